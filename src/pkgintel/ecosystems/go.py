"""
Go adapter: module versions from the module proxy, dates and licences from pkg.go.dev.

Proxy protocol: https://go.dev/ref/mod#goproxy-protocol — `GET {module}/@v/list` (one released
version a line; pseudo-versions are not listed), `@latest` (JSON `{"Version", "Time"}`),
`@v/{version}.mod` (the go.mod file), `@v/{version}.info` (JSON `{"Version", "Time"}`; asked for a
version `@v/list` omits — a pseudo-version a go.mod requires — which is then served as the proxy
knows it). Capital letters in module paths and versions are escaped as
`!` + lower case (`github.com/BurntSushi/toml` → `github.com/!burnt!sushi/toml`). Unknown modules
answer 404 or 410.

go.mod (https://go.dev/ref/mod#go-mod-file): the latest version's go.mod lists its requirements
(`// indirect` marks indirect ones), its retractions (`retract v1.0.0` or `retract [v1.0.0, v1.2.0]`,
with the rationale in the comment) and the module's deprecation (a `// Deprecated:` comment on or
above the `module` line). Retracted versions are kept but marked yanked; the latest is the highest
release (else pre-release) version that is not retracted, as the `go` command chooses it.

pkg.go.dev (`/v1beta/versions/{module}`, `/v1beta/module/{module}?licenses=true`,
`/v1beta/package/{module}`) gives commit times, retraction/deprecation flags, detected licence types,
the repository URL and the package synopsis; it is optional: when it fails, dates and licence are
unavailable, not guessed. The proxy list and pkg.go.dev's versions are merged (pkg.go.dev only knows
versions the proxy served). Go has no download counts; deps.dev gives none either, so popularity is
null with `downloads_unavailable` saying why.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_datetime
from pkgintel.domain.packages import Dependency, Ecosystem, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, is_valid, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import get_json, get_text
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://proxy.golang.org"
DEFAULT_PKGSITE_URL: Final = "https://pkg.go.dev"
REGISTRY_SOURCE: Final = "proxy.golang.org"
GOMOD_SOURCE: Final = "proxy.golang.org go.mod"
PKGSITE_SOURCE: Final = "pkg.go.dev"
NO_DOWNLOADS: Final = "the Go module proxy and pkg.go.dev publish no download counts"
AVAILABLE_IN_ERRORS: Final = 10

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.GO
_MODULE_PATH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~/+-]*$")
_VERSION_LINE = re.compile(r"^v\d+\.\d+\.\d+\S*$")


def escape_path(path: str) -> str:
    """Module path or version in the proxy's case encoding (`A` → `!a`)."""
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in path)


@dataclass(frozen=True, slots=True)
class GoMod:
    """What a go.mod file says about its module (pure parse of `parse_gomod`)."""

    module: str | None
    deprecated: str | None = None
    requires: tuple[Dependency, ...] = ()
    retractions: tuple[tuple[str, str, str | None], ...] = ()
    """`(low, high, rationale)`; a single version has low == high."""
    go_version: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def retracted(self, version: str) -> str | None:
        """The rationale ("" when none given) when `version` is retracted, else None."""
        key = sort_key(_ECOSYSTEM, version)
        for low, high, why in self.retractions:
            if sort_key(_ECOSYSTEM, low) <= key <= sort_key(_ECOSYSTEM, high):
                return why or ""
        return None


class GoAdapter:
    """`RegistryAdapter` for the Go module proxy (`base_url`) with pkg.go.dev (`pkgsite_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.GO
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        pkgsite_url: str = DEFAULT_PKGSITE_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._pkgsite_url = pkgsite_url.rstrip("/")

    def _proxy(self, module: str, suffix: str) -> str:
        return f"{self._base_url}/{quote(escape_path(module), safe='/!~+')}/{suffix}"

    def _pkgsite(self, kind: str, module: str, query: str = "") -> str:
        return f"{self._pkgsite_url}/v1beta/{kind}/{quote(module, safe='/~+')}{query}"

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`. Round one: list, @latest and pkg.go.dev at once;
        round two: the go.mod of the chosen version."""
        module = name.strip().strip("/")
        if not _MODULE_PATH.match(module) or "//" in module or ".." in module:
            raise PackageNotFound(_ECOSYSTEM, module)

        def pkgsite(kind: str, query: str = "") -> Any:
            return optional_source(
                lambda: get_json(
                    self._client,
                    self._pkgsite(kind, module, query),
                    ecosystem=_ECOSYSTEM,
                    name=module,
                    source=PKGSITE_SOURCE,
                    not_found="none",
                ),
                source=PKGSITE_SOURCE,
                kind=kind,
            )

        latest_task = asyncio.ensure_future(
            optional_source(
                lambda: get_json(
                    self._client,
                    self._proxy(module, "@latest"),
                    ecosystem=_ECOSYSTEM,
                    name=module,
                    source=REGISTRY_SOURCE,
                    not_found="none",
                ),
                source=REGISTRY_SOURCE,
                kind="latest",
            )
        )
        versions_task = asyncio.ensure_future(pkgsite("versions", "?limit=1000"))
        module_task = asyncio.ensure_future(pkgsite("module", "?licenses=true"))
        package_task = asyncio.ensure_future(pkgsite("package"))
        side = (latest_task, versions_task, module_task, package_task)
        try:
            listing = await get_text(
                self._client,
                self._proxy(module, "@v/list"),
                ecosystem=_ECOSYSTEM,
                name=module,
                source=REGISTRY_SOURCE,
            )
        except BaseException:
            abandon(*side)
            raise
        try:
            latest_info, _ = await latest_task
            versions, versions_st = await versions_task
            mod_info, module_st = await module_task
            pkg, pkg_st = await package_task
        except BaseException:
            abandon(*side)
            raise
        pkgsite_status = _merge_status(versions_st, module_st, pkg_st)
        state = ProxyState.build(module, listing, latest_info, versions)
        target = version.strip() if version is not None else state.candidate(None)
        if target not in state.versions and version is not None:
            await self._unlisted(module, target, state)
        if target not in state.versions:
            available = newest_first(_ECOSYSTEM, list(state.versions))
            raise VersionNotFound(
                _ECOSYSTEM, module, target, available=available[:AVAILABLE_IN_ERRORS]
            )
        gomod_text, gomod_status = await optional_source(
            lambda: get_text(
                self._client,
                self._proxy(module, f"@v/{escape_path(target)}.mod"),
                ecosystem=_ECOSYSTEM,
                name=module,
                source=GOMOD_SOURCE,
                not_found="none",
            ),
            source=GOMOD_SOURCE,
            kind="dependencies",
        )
        gomod = parse_gomod(gomod_text) if gomod_text is not None else None
        return build_info(
            state,
            version=version,
            gomod_version=target,
            gomod=gomod,
            module_info=mod_info,
            package_info=pkg,
            sources=(gomod_status, pkgsite_status),
        )

    async def _unlisted(self, module: str, version: str, state: ProxyState) -> None:
        """
        Add `version` to `state` when the proxy serves it although `@v/list` omits it (a
        pseudo-version such as `v0.0.0-20200101000000-abcdef123456`, which a go.mod may require):
        `@v/{version}.info` must answer with that exact canonical version. A query the proxy
        resolves to another version (a branch name, `v1.2`) is not added. Raises what `get_json`
        raises for a failing proxy; a 404/410 adds nothing.
        """
        if not _VERSION_LINE.match(version) or not is_valid(_ECOSYSTEM, version):
            return
        info = await get_json(
            self._client,
            self._proxy(module, f"@v/{escape_path(version)}.info"),
            ecosystem=_ECOSYSTEM,
            name=module,
            source=REGISTRY_SOURCE,
            not_found="none",
        )
        if info is not None and info.get("Version") == version:
            state.versions[version] = {"commitTime": info.get("Time"), "unlisted": True}

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Go has no download counts: always None."""
        return None


def _merge_status(*statuses: SourceStatus) -> SourceStatus:
    """One `_meta.sources` entry for pkg.go.dev: ok when every call answered."""
    failed = [f"{s.kind}: {s.detail}" for s in statuses if s.status is SourceState.UNAVAILABLE]
    if not failed:
        return SourceStatus(PKGSITE_SOURCE, "metadata", SourceState.OK)
    state = SourceState.UNAVAILABLE if len(failed) == len(statuses) else SourceState.OK
    return SourceStatus(PKGSITE_SOURCE, "metadata", state, None, "; ".join(failed))


@dataclass(slots=True)
class ProxyState:
    """Versions known for one module: `{version: (published_at or None, pkg.go.dev item or None)}`."""

    module: str
    versions: dict[str, Mapping[str, Any]]
    latest_hint: str | None

    @classmethod
    def build(
        cls,
        module: str,
        listing: str,
        latest_info: Mapping[str, Any] | None,
        pkgsite_versions: Mapping[str, Any] | None,
    ) -> ProxyState:
        """Merge `@v/list`, `@latest` and pkg.go.dev versions; `PackageNotFound` when none,
        `RegistryResponseInvalid` when the list has a line that is not a version."""
        found: dict[str, dict[str, Any]] = {}
        for line in listing.splitlines():
            v = line.strip()
            if not v:
                continue
            if not _VERSION_LINE.match(v):
                raise RegistryResponseInvalid(
                    _ECOSYSTEM,
                    f"@v/list of {module} has a line that is not a version",
                    reason="invalid_shape",
                    source=REGISTRY_SOURCE,
                )
            found.setdefault(v, {})
        hint = None
        if latest_info is not None and isinstance(latest_info.get("Version"), str):
            hint = latest_info["Version"]
            found.setdefault(hint, {}).setdefault("commitTime", latest_info.get("Time"))
        items = pkgsite_versions.get("items") if pkgsite_versions is not None else None
        if isinstance(items, list):
            for item in items:
                if (
                    isinstance(item, Mapping)
                    and item.get("modulePath") == module
                    and isinstance(item.get("version"), str)
                ):
                    found.setdefault(item["version"], {}).update(item)
        if not found:
            raise PackageNotFound(_ECOSYSTEM, module)
        return cls(module, dict(found), hint)

    def candidate(self, gomod: GoMod | None) -> str:
        """Highest non-retracted release, else pre-release, else the proxy's @latest, else newest."""
        ordered = sorted(self.versions, key=lambda v: sort_key(_ECOSYSTEM, v), reverse=True)

        def ok(v: str) -> bool:
            if self.versions[v].get("retracted") is True:
                return False
            return gomod is None or gomod.retracted(v) is None

        valid = [v for v in ordered if is_valid(_ECOSYSTEM, v) and ok(v)]
        releases = [v for v in valid if not is_prerelease(_ECOSYSTEM, v)]
        if releases:
            return releases[0]
        if valid:
            return valid[0]
        return self.latest_hint or ordered[0]


def build_info(
    state: ProxyState,
    *,
    version: str | None = None,
    gomod_version: str | None = None,
    gomod: GoMod | None = None,
    module_info: Mapping[str, Any] | None = None,
    package_info: Mapping[str, Any] | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    `PackageInfo` from the merged versions, the go.mod read for `gomod_version` (the requested
    version, or the latest candidate before retractions were known) and the pkg.go.dev
    module/package bodies. Retractions in that go.mod can move `latest` to an older version; the
    dependencies stay those of `gomod_version`. Raises `VersionNotFound` for an unknown `version`.
    """
    module = state.module
    latest = state.candidate(gomod if version is None else None)
    target = gomod_version or (latest if version is None else version.strip())
    if target not in state.versions:
        available = newest_first(_ECOSYSTEM, list(state.versions))
        raise VersionNotFound(_ECOSYSTEM, module, target, available=available[:AVAILABLE_IN_ERRORS])
    releases = []
    for v, item in state.versions.items():
        why = gomod.retracted(v) if gomod is not None else None
        if why is None and item.get("retracted") is True:
            why = str(item.get("retractionReason") or "")
        releases.append(
            Release(
                version=v,
                published_at=as_datetime(item.get("commitTime")),
                yanked=why is not None,
                yanked_reason=(why or "retracted by the module author")
                if why is not None
                else None,
                prerelease=is_prerelease(_ECOSYSTEM, v),
                deprecated=f"retracted: {why}"
                if why
                else ("retracted" if why is not None else None),
            )
        )
    releases.sort(key=lambda r: sort_key(_ECOSYSTEM, r.version))
    deprecated = gomod.deprecated if gomod is not None else None
    if deprecated is None:
        item = state.versions.get(latest, {})
        if item.get("deprecated") is True:
            deprecated = str(item.get("deprecationReason") or "").strip() or "Deprecated"
    extra: dict[str, str] = {"downloads_unavailable": NO_DOWNLOADS}
    dependencies: tuple[Dependency, ...] = ()
    if gomod is not None:
        dependencies = gomod.requires
        if gomod.go_version:
            extra["go"] = gomod.go_version
    else:
        extra["dependencies_unavailable"] = f"the go.mod of {target} could not be read"
    repo_url = module_info.get("repoUrl") if module_info is not None else None
    repository = (
        normalise_repository_url(repo_url)
        if isinstance(repo_url, str)
        else normalise_repository_url(f"https://{module}", forges_only=True)
    )
    synopsis = package_info.get("synopsis") if package_info is not None else None
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=module,
        latest_version=latest,
        description=synopsis.strip() if isinstance(synopsis, str) else "",
        license=_license(module_info),
        homepage=repository,
        repository=repository,
        releases=tuple(releases),
        dependencies=dependencies,
        dependencies_version=target,
        deprecated=deprecated is not None,
        deprecated_message=deprecated,
        extra=extra,
        sources=sources,
    )


def _license(module_info: Mapping[str, Any] | None) -> str | None:
    """pkg.go.dev's detected licence types, ANDed when the module ships several licence files."""
    if module_info is None or not isinstance(module_info.get("licenses"), list):
        return None
    types: list[str] = []
    for lic in module_info["licenses"]:
        for kind in lic.get("types") or [] if isinstance(lic, Mapping) else []:
            if isinstance(kind, str) and kind and kind not in types:
                types.append(kind)
    return " AND ".join(types) if types else None


_COMMENT = re.compile(r"//(.*)$")
_DIRECTIVE = re.compile(
    r"^(module|require|retract|go|replace|exclude|toolchain|godebug|tool)\b\s*(.*)$"
)


def _strip_comment(line: str) -> tuple[str, str | None]:
    m = _COMMENT.search(line)
    if m is None:
        return line.strip(), None
    return line[: m.start()].strip(), m[1].strip()


def _unquote(token: str) -> str:
    return token[1:-1] if len(token) >= 2 and token[0] == token[-1] and token[0] in '"`' else token


def parse_gomod(text: str) -> GoMod:
    """
    The module path, deprecation, requirements, retractions and `go` version of a go.mod file.

    Raises `RegistryResponseInvalid` when the text has no `module` directive (not a go.mod).
    """
    module: str | None = None
    deprecated: str | None = None
    go_version: str | None = None
    requires: list[Dependency] = []
    retractions: list[tuple[str, str, str | None]] = []
    pending: list[str] = []
    block: str | None = None
    for raw in text.splitlines():
        code, comment = _strip_comment(raw)
        if not code:
            if comment is not None:
                pending.append(comment)
            else:
                pending = []
            continue
        if block is not None:
            if code == ")":
                block = None
                pending = []
                continue
            _directive(block, code, comment, pending, requires, retractions)
            pending = []
            continue
        m = _DIRECTIVE.match(code)
        if m is None:
            pending = []
            continue
        verb, rest = m[1], m[2].strip()
        if rest == "(":
            block = verb
            pending = []
            continue
        if verb == "module":
            module = _unquote(rest.split()[0]) if rest else None
            for note in [*pending, comment or ""]:
                if note.startswith("Deprecated:"):
                    deprecated = note.removeprefix("Deprecated:").strip() or "Deprecated"
        elif verb == "go":
            go_version = rest or None
        else:
            _directive(verb, rest, comment, pending, requires, retractions)
        pending = []
    if module is None:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "go.mod has no module directive",
            reason="invalid_shape",
            source=GOMOD_SOURCE,
        )
    return GoMod(module, deprecated, tuple(requires), tuple(retractions), go_version)


def _directive(
    verb: str,
    rest: str,
    comment: str | None,
    pending: Sequence[str],
    requires: list[Dependency],
    retractions: list[tuple[str, str, str | None]],
) -> None:
    if verb == "require":
        parts = rest.split()
        if len(parts) >= 2:
            kind = (
                "indirect" if comment is not None and comment.startswith("indirect") else "runtime"
            )
            requires.append(Dependency(name=_unquote(parts[0]), requirement=parts[1], kind=kind))
    elif verb == "retract":
        why = " ".join([*pending, comment] if comment else pending).strip() or None
        if rest.startswith("[") and rest.endswith("]"):
            low, _, high = rest[1:-1].partition(",")
            if low.strip() and high.strip():
                retractions.append((low.strip(), high.strip(), why))
        elif rest:
            retractions.append((rest.split()[0], rest.split()[0], why))

"""
Homebrew adapter: formula and cask metadata from the formulae.brew.sh JSON API.

API: https://formulae.brew.sh/docs/api/ (static JSON, no auth, no documented rate limit).

| request | gives |
|---|---|
| `GET /api/formula/{name}.json` | `versions.stable`, `revision`, `desc`, `license`, `homepage`, `urls`, `dependencies` (plus build/optional/recommended ones), `deprecated`/`disabled` with date, reason and replacement, install analytics (`30d`, `90d`, `365d`) |
| `GET /api/cask/{token}.json` | the same for a cask: `version`, `name`, `desc`, `homepage`, `url`, `depends_on`, deprecation and analytics |

Names: a plain name is a formula (`wget`); a cask is named with the `cask:` prefix
(`cask:firefox`), since a formula and a cask may share a token. Formula names are case-insensitive
in Homebrew and always lower case in homebrew/core, so the name is sent lower-cased.

Homebrew keeps one version per formula (older ones are not installable from homebrew/core), so the
release list is the current stable version only, with no publish date (the API gives none). The
formula's `revision` (the `_N` of `pkg_version`) is kept as `extra["revision"]`, and
`extra["release_history"] = "current_only"` tells the health score not to read maturity from a
version count of one.

Deprecated and disabled formulae (https://docs.brew.sh/Deprecating-Disabling-and-Removing-Formulae)
are deprecated here, with the reason, the date and the replacement in the message; a disabled one
cannot be installed any more (`extra["disabled"]`). The replacement is also
`extra["deprecated_successor"]` and the `SuccessorAware` answer.

Homebrew counts installs over 30, 90 and 365 days, never a week: the weekly figure is null,
`extra["downloads"]` is the 30-day install count (`downloads_window: "30d"`), and the three
windows are kept as `extra["downloads.<window>"]`. Formulae list no maintainers (homebrew/core is
maintained by the Homebrew team as a whole), so the maintainer list is empty, never invented.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, versions_equal
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import get_json

DEFAULT_BASE_URL: Final = "https://formulae.brew.sh"
REGISTRY_SOURCE: Final = "formulae.brew.sh"
CASK_PREFIX: Final = "cask:"
DOWNLOAD_WINDOWS: Final = ("30d", "90d", "365d")
_OPERATORS = re.compile(r"\s+(and|or|with)\s+")

_ECOSYSTEM: Final = Ecosystem.HOMEBREW


def split_name(name: str) -> tuple[str, bool]:
    """`(token, is_cask)` for a name as the caller gives it (`cask:firefox` → `("firefox", True)`)."""
    cleaned = name.strip()
    if cleaned.lower().startswith(CASK_PREFIX):
        return cleaned[len(CASK_PREFIX) :].strip().lower(), True
    return cleaned.lower(), False


class HomebrewAdapter:
    """`RegistryAdapter` for formulae.brew.sh (or a mirror of its JSON API at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.HOMEBREW
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")

    def url(self, name: str) -> str:
        """The JSON document of a formula, or of a cask for a `cask:` name."""
        token, cask = split_name(name)
        kind = "cask" if cask else "formula"
        return f"{self._base_url}/api/{kind}/{quote(token, safe='@+')}.json"

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package` (one request)."""
        body = await get_json(
            self._client,
            self.url(name),
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
        )
        _, cask = split_name(name)
        return parse_cask(body, version=version) if cask else parse_formula(body, version=version)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Always None: Homebrew counts installs over 30/90/365 days (`extra["downloads"]`)."""
        return None

    def successors(self, info: PackageInfo) -> tuple[str, ...]:
        """The replacement formula or cask Homebrew names for a deprecated or disabled one."""
        successor = info.extra.get("deprecated_successor")
        return (successor,) if successor else ()


def parse_formula(body: Mapping[str, Any], *, version: str | None = None) -> PackageInfo:
    """
    Turn `GET /api/formula/{name}.json` into `PackageInfo`.

    Raises `RegistryResponseInvalid` when the body has no name or no stable version,
    `VersionNotFound` when `version` is not the current stable one.
    """
    name = as_text(body.get("name"))
    stable = as_text(as_object(body.get("versions")).get("stable"))
    if not name or not stable:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "formulae.brew.sh formula body has no name or stable version",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    _check_version(name, stable, version)
    extra: dict[str, str] = {"kind": "formula", "release_history": "current_only"}
    revision = body.get("revision")
    if isinstance(revision, int) and not isinstance(revision, bool) and revision > 0:
        extra["revision"] = str(revision)
    tap = as_text(body.get("tap"))
    if tap:
        extra["tap"] = tap
    if body.get("keg_only") is True:
        extra["keg_only"] = "true"
    deps: list[Dependency] = [Dependency(d, "") for d in _names(body.get("dependencies"))]
    # `:recommended` ones are installed unless `--without-<name>`, `:optional` ones only with
    # `--with-<name>` (https://rubydoc.brew.sh/Formula.html#depends_on-class_method)
    deps.extend(
        Dependency(d, "", kind="recommended") for d in _names(body.get("recommended_dependencies"))
    )
    deps.extend(
        Dependency(d, "", kind="optional") for d in _names(body.get("optional_dependencies"))
    )
    # `uses_from_macos`: provided by macOS there, a formula dependency elsewhere (Linux)
    deps.extend(
        Dependency(d, "", kind="uses_from_macos")
        for d in _runtime_names(body.get("uses_from_macos"))
    )
    build = _names(body.get("build_dependencies"))
    if build:
        extra["build_dependencies"] = ", ".join(build)
    urls = as_object(body.get("urls"))
    repository = _repository(
        as_text(body.get("homepage")),
        as_text(as_object(urls.get("head")).get("url")),
        as_text(as_object(urls.get("stable")).get("url")),
    )
    deprecated, message, successor = _deprecation(body)
    if successor:
        extra["deprecated_successor"] = successor
    if body.get("disabled") is True:
        extra["disabled"] = "true"
    extra.update(_analytics(body.get("analytics"), name))
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=stable,
        description=as_text(body.get("desc")) or "",
        license=spdx_expression(as_text(body.get("license"))),
        homepage=as_text(body.get("homepage")),
        repository=repository,
        releases=(Release(stable, prerelease=is_prerelease(_ECOSYSTEM, stable)),),
        dependencies=tuple(deps),
        dependencies_version=stable,
        deprecated=deprecated,
        deprecated_message=message,
        keywords=tuple(_names(body.get("aliases"))),
        extra=extra,
    )


def parse_cask(body: Mapping[str, Any], *, version: str | None = None) -> PackageInfo:
    """
    Turn `GET /api/cask/{token}.json` into `PackageInfo` named `cask:<token>`.

    Raises `RegistryResponseInvalid` when the body has no token or version, `VersionNotFound`
    when `version` is not the current one.
    """
    token = as_text(body.get("token"))
    current = as_text(body.get("version"))
    if not token or not current:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "formulae.brew.sh cask body has no token or version",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    name = f"{CASK_PREFIX}{token}"
    _check_version(name, current, version)
    extra: dict[str, str] = {"kind": "cask", "release_history": "current_only"}
    tap = as_text(body.get("tap"))
    if tap:
        extra["tap"] = tap
    depends = as_object(body.get("depends_on"))
    deps = [Dependency(d, "") for d in _names(depends.get("formula"))]
    deps.extend(Dependency(f"{CASK_PREFIX}{d}", "") for d in _names(depends.get("cask")))
    deprecated, message, successor = _deprecation(body)
    if successor:
        extra["deprecated_successor"] = successor
    if body.get("disabled") is True:
        extra["disabled"] = "true"
    if body.get("auto_updates") is True:
        extra["auto_updates"] = "true"
    extra.update(_analytics(body.get("analytics"), token))
    titles = _names(body.get("name"))
    homepage = as_text(body.get("homepage"))
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=current,
        description=as_text(body.get("desc")) or (titles[0] if titles else ""),
        license=None,  # casks declare no licence
        homepage=homepage,
        repository=_repository(homepage, as_text(body.get("url"))),
        releases=(Release(current, prerelease=is_prerelease(_ECOSYSTEM, current)),),
        dependencies=tuple(deps),
        dependencies_version=current,
        deprecated=deprecated,
        deprecated_message=message,
        extra=extra,
    )


def spdx_expression(value: str | None) -> str | None:
    """
    Homebrew's licence string as an SPDX expression: its lower-case `and`/`or`/`with` operators
    upper-cased (`GPL-2.0-only or MIT` → `GPL-2.0-only OR MIT`); Homebrew's own non-SPDX terms
    (`Public Domain`, `Cannot Represent`) are kept as written, so they classify as unknown.
    """
    if not value:
        return None
    return _OPERATORS.sub(lambda m: f" {m[1].upper()} ", value.strip())


def _check_version(name: str, current: str, version: str | None) -> None:
    if version is None:
        return
    wanted = version.strip()
    if not versions_equal(_ECOSYSTEM, wanted, current):
        raise VersionNotFound(_ECOSYSTEM, name, wanted, available=[current])


def _deprecation(body: Mapping[str, Any]) -> tuple[bool, str | None, str | None]:
    """`(deprecated, message, successor)` from the `deprecat*`/`disable*` fields."""
    for flag, prefix, word in (
        ("disabled", "disable", "disabled"),
        ("deprecated", "deprecation", "deprecated"),
    ):
        if body.get(flag) is not True:
            continue
        reason = as_text(body.get(f"{prefix}_reason"))
        date = as_text(body.get(f"{prefix}_date"))
        successor = next(
            (
                value
                for key in ("replacement_formula", "replacement", "replacement_cask")
                if (value := as_text(body.get(f"{prefix}_{key}")))
            ),
            None,
        )
        if successor and as_text(body.get(f"{prefix}_replacement_cask")) == successor:
            successor = f"{CASK_PREFIX}{successor}"
        message = word + (f" since {date}" if date else "")
        message += f": {reason.replace('_', ' ')}" if reason else ""
        message += f"; replacement: {successor}" if successor else ""
        return True, message, successor
    return False, None, None


def _analytics(value: Any, token: str) -> dict[str, str]:
    """Install counts per window, summed over the formula's option variants (`abook --HEAD`)."""
    installs = as_object(as_object(value).get("install"))
    extra: dict[str, str] = {}
    for window in DOWNLOAD_WINDOWS:
        counts = as_object(installs.get(window))
        found = [
            n
            for key, n in counts.items()
            if isinstance(n, int)
            and not isinstance(n, bool)
            and n >= 0
            and str(key).split(" ", 1)[0].lower() == token.lower()
        ]
        if found:
            extra[f"downloads.{window}"] = str(sum(found))
    if "downloads.30d" in extra:
        extra["downloads"] = extra["downloads.30d"]
        extra["downloads_window"] = "30d"
    return extra


def _repository(*candidates: str | None) -> str | None:
    """The first candidate URL that is a code-host repository (homepage, head, source archive)."""
    for url in candidates:
        if url:
            repo = normalise_repository_url(url, forges_only=True)
            if repo:
                return repo
    return None


def _names(value: Any) -> list[str]:
    """Dependency entries: strings, or one-key objects (`{"name": ["build"]}`)."""
    out: list[str] = []
    items: Iterable[Any] = value if isinstance(value, list) else ()
    for item in items:
        if isinstance(item, str) and item.strip():
            out.append(item.strip())
        elif isinstance(item, Mapping):
            out.extend(str(k).strip() for k in item if str(k).strip())
    return list(dict.fromkeys(out))


def _runtime_names(value: Any) -> list[str]:
    """`uses_from_macos` entries needed at run time: plain names, not `{"name": "build"}` nor
    `{"name": ["build", "test"]}` (those are only for building or testing)."""
    out: list[str] = []
    for item in value if isinstance(value, list) else ():
        if isinstance(item, str) and item.strip():
            out.append(item.strip())
        elif isinstance(item, Mapping):
            for key, when in item.items():
                tags = {when} if isinstance(when, str) else set(when or ())
                if str(key).strip() and not tags & {"build", "test"}:
                    out.append(str(key).strip())
    return list(dict.fromkeys(out))

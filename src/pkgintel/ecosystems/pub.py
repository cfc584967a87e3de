"""
Pub adapter: package metadata from the pub.dev API.

API: https://github.com/dart-lang/pub/blob/master/doc/repository-spec-v2.md (hosted repository
spec) plus pub.dev's own JSON endpoints. All requests are concurrent:

| request | gives |
|---|---|
| `GET /api/packages/{name}` | `latest`, every version with its pubspec, `published`, `retracted`; `isDiscontinued` and `replacedBy` |
| `GET /api/packages/{name}/score` | `likeCount`, `grantedPoints`/`maxPoints`, `downloadCount30Days`, tags (`license:…`) — the downloads source |
| `GET /api/packages/{name}/publisher` | the verified publisher (`publisherId`), shown as the maintainer |

Retracted versions are still on pub.dev but the solver skips them (like a yank): `yanked=True`,
reason `retracted`. A discontinued package is deprecated, with `replacedBy` as the successor.
pub.dev names are case-sensitive (legacy mixed-case packages such as `Babylon` exist next to
`babylon`), so the name is sent as given. pub.dev counts downloads over 30 days, not a week: the
weekly figure is null and `extra["downloads"]` is the 30-day count (`downloads_window: "30d"`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import RegistryError, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import JSONObject, get_json
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://pub.dev"
REGISTRY_SOURCE: Final = "pub.dev"
DOWNLOADS_SOURCE: Final = "pub.dev/score"
AVAILABLE_IN_ERRORS: Final = 10
DOWNLOADS_WINDOW: Final = "30d"
"""pub.dev's score document counts downloads over the last 30 days (`downloadCount30Days`)."""
_LICENSE_TAG: Final = "license:"
_NOT_SPDX_TAGS: Final = frozenset({"fsf-libre", "osi-approved", "unknown"})

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.PUB


class PubAdapter:
    """`RegistryAdapter` for pub.dev (or a mirror at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.PUB
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = DOWNLOADS_SOURCE

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._scores = SharedFetches[JSONObject | None]()

    def _url(self, name: str, tail: str = "") -> str:
        return f"{self._base_url}/api/packages/{quote(name.strip(), safe='')}{tail}"

    def _score(self, name: str) -> asyncio.Future[JSONObject | None]:
        async def start() -> JSONObject | None:
            return await get_json(
                self._client,
                self._url(name, "/score"),
                ecosystem=self.ecosystem,
                name=name,
                source=DOWNLOADS_SOURCE,
                not_found="none",
            )

        return asyncio.ensure_future(self._scores.get(name.strip(), start))

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`; score and publisher failing only drop their facts."""
        common: dict[str, Any] = {
            "ecosystem": self.ecosystem,
            "name": name,
            "source": self.registry_source,
        }
        package_task = asyncio.ensure_future(get_json(self._client, self._url(name), **common))
        publisher_task = asyncio.ensure_future(
            get_json(self._client, self._url(name, "/publisher"), not_found="none", **common)
        )
        score_task = self._score(name)
        try:
            body = await package_task
        except BaseException:
            abandon(publisher_task)
            abandon(score_task)
            raise
        optional: list[JSONObject | None] = []
        for task in (score_task, publisher_task):
            try:
                optional.append(await task)
            except RegistryError as exc:
                logger.info("pub %s: optional source unavailable (%s)", name, exc.reason)
                optional.append(None)
        return parse_package(body, score=optional[0], publisher=optional[1], version=version)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """pub.dev counts 30 days, not 7: None. The score request is shared with `fetch_package`."""
        await self._score(name)
        return None


def parse_package(
    body: Mapping[str, Any],
    *,
    score: Mapping[str, Any] | None = None,
    publisher: Mapping[str, Any] | None = None,
    version: str | None = None,
) -> PackageInfo:
    """
    Turn `GET /api/packages/{name}` (+ score and publisher documents) into `PackageInfo`.

    Raises `RegistryResponseInvalid` when the body has no name or no versions list,
    `VersionNotFound` when `version` is not published.
    """
    name = as_text(body.get("name"))
    raw_versions = body.get("versions")
    if not name or not isinstance(raw_versions, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "pub.dev package body has no name or versions",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    entries: dict[str, Mapping[str, Any]] = {}
    for item in raw_versions:
        if isinstance(item, Mapping) and as_text(item.get("version")):
            entries[str(item["version"]).strip()] = item
        else:
            logger.info("pub %s: skipped malformed version entry %r", name, item)
    if not entries:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"pub.dev lists no versions of {name!r}",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    releases = tuple(
        sorted(
            (
                Release(
                    version=v,
                    published_at=as_datetime(e.get("published")),
                    yanked=e.get("retracted") is True,
                    yanked_reason="retracted" if e.get("retracted") is True else None,
                    prerelease=is_prerelease(_ECOSYSTEM, v),
                )
                for v, e in entries.items()
            ),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    latest_doc = as_object(body.get("latest"))
    latest = as_text(latest_doc.get("version"))
    if latest not in entries:
        stable = [r for r in releases if not r.prerelease and not r.yanked]
        latest = (stable or list(releases))[-1].version
    target = latest if version is None else version.strip()
    if target not in entries:
        available = newest_first(_ECOSYSTEM, list(entries))
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])
    pubspec = _pubspec(entries[target])
    head = _pubspec(entries[latest])

    extra: dict[str, str] = {}
    sdk = pubspec.get("environment")  # the asked version's own SDK constraint, not the latest's
    if isinstance(sdk, Mapping) and isinstance(sdk.get("sdk"), str):
        extra["requires_dart"] = sdk["sdk"].strip()
    message: str | None = None
    if body.get("isDiscontinued") is True:
        successor = as_text(body.get("replacedBy"))
        if successor:
            extra["deprecated_successor"] = successor
            message = f"discontinued: the publisher suggests {successor} instead"
        else:
            message = "discontinued by its publisher"
    tags: list[str] = []
    if score is not None:
        count = score.get("downloadCount30Days")
        if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            extra["downloads"] = str(count)
            extra["downloads_window"] = DOWNLOADS_WINDOW
        for key in ("likeCount", "grantedPoints", "maxPoints"):
            value = score.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                extra[f"pub.{key}"] = str(value)
        raw_tags = score.get("tags")
        tags = [t for t in raw_tags if isinstance(t, str)] if isinstance(raw_tags, list) else []

    maintainers: tuple[Maintainer, ...] = ()
    publisher_id = as_text((publisher or {}).get("publisherId"))
    if publisher_id:
        maintainers = (Maintainer(publisher_id, role="publisher"),)
        extra["maintainers_source"] = "verified publisher"
    else:
        maintainers = _authors(head)
        if maintainers:
            extra["maintainers_source"] = "pubspec authors"

    homepage = as_text(head.get("homepage"))
    repository = as_text(head.get("repository"))
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(head.get("description")) or "",
        license=_license(tags),
        homepage=homepage,
        repository=(normalise_repository_url(repository) if repository else None)
        or (normalise_repository_url(homepage, forges_only=True) if homepage else None),
        releases=releases,
        maintainers=maintainers,
        dependencies=_dependencies(pubspec),
        dependencies_version=target,
        deprecated=message is not None,
        deprecated_message=message,
        keywords=tuple(t for t in (head.get("topics") or ()) if isinstance(t, str)),
        extra=extra,
    )


def _pubspec(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = entry.get("pubspec")
    return spec if isinstance(spec, Mapping) else {}


def _dependencies(pubspec: Mapping[str, Any]) -> tuple[Dependency, ...]:
    """`dependencies` of a pubspec: `name: ^1.0.0`, or a map (`sdk`, `hosted`, `git`, `path`)."""
    table = pubspec.get("dependencies")
    if not isinstance(table, Mapping):
        return ()
    deps: list[Dependency] = []
    for dep, spec in table.items():
        if not isinstance(dep, str):
            continue
        if spec is None:
            deps.append(Dependency(dep, "any"))
        elif isinstance(spec, str):
            deps.append(Dependency(dep, spec.strip()))
        elif isinstance(spec, Mapping):
            if isinstance(spec.get("sdk"), str):
                deps.append(Dependency(dep, f"sdk:{spec['sdk']}", kind="sdk"))
            elif _other_host(spec.get("hosted")):
                deps.append(Dependency(dep, "", kind="source:hosted"))
            elif isinstance(spec.get("version"), str):
                deps.append(Dependency(dep, spec["version"].strip()))
            else:
                source = next((k for k in ("git", "path", "hosted") if k in spec), "other")
                deps.append(Dependency(dep, "", kind=f"source:{source}"))
    return tuple(deps)


def _other_host(hosted: Any) -> bool:
    """A `hosted:` source on a server other than pub.dev (`hosted: https://...` or
    `hosted: {name: ..., url: ...}`): its versions are not pub.dev's."""
    url = hosted.get("url") if isinstance(hosted, Mapping) else hosted
    if not isinstance(url, str) or not url.strip():
        return False
    host = url.strip().lower().split("://", 1)[-1].split("/", 1)[0]
    return host not in ("pub.dev", "pub.dartlang.org")


def _authors(pubspec: Mapping[str, Any]) -> tuple[Maintainer, ...]:
    """Legacy pubspec `author` / `authors` (`Name <email>`), dropped by pub in Dart 2.7."""
    raw: Sequence[Any]
    if isinstance(pubspec.get("authors"), list):
        raw = pubspec["authors"]
    elif isinstance(pubspec.get("author"), str):
        raw = [pubspec["author"]]
    else:
        return ()
    found: dict[str, Maintainer] = {}
    for item in raw:
        if not isinstance(item, str) or not item.strip():
            continue
        who, _, rest = item.partition("<")
        email = rest.rstrip(">").strip() or None
        label = who.strip() or email
        if label:
            found.setdefault(label.lower(), Maintainer(label, email, role="author"))
    return tuple(found.values())


def _license(tags: Sequence[str]) -> str | None:
    """The SPDX id(s) pub.dev detected in the package's LICENSE file (score tags `license:<id>`)."""
    ids = [
        t[len(_LICENSE_TAG) :]
        for t in tags
        if t.startswith(_LICENSE_TAG) and t[len(_LICENSE_TAG) :] not in _NOT_SPDX_TAGS
    ]
    return " AND ".join(dict.fromkeys(ids)) or None

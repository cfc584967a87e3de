"""
PyPI adapter: project metadata from the PyPI JSON API, weekly downloads from pypistats.org.

API: https://docs.pypi.org/api/json/ — `GET /pypi/{project}/json` (latest release's metadata plus
every release's files) and `GET /pypi/{project}/{version}/json` (that release's metadata, e.g. its
`requires_dist`). No auth; PyPI asks clients to cache and to avoid bulk crawling (it answers 429 when
throttled). The project endpoint's `info` block describes the latest release only, and its
`ownership.roles` (organisation members are not listed) and `project-status` (PEP 792) keys are
recent additions that older mirrors lack.

A version's requirements (`requires_dist`, `requires_python`) are that version's own: its release
body; where that is missing (some mirrors answer 404), the core metadata file of one of its wheels
(PEP 658, `ecosystems/pypi_metadata.py`); else none, with `extra["dependencies_unavailable"]` saying
why. `requires_python` then still comes from the release's own file entries when they agree
(`extra["requires_python_of"]` names the version it belongs to). Never the latest release's.

Downloads: https://pypistats.org/api/ — `GET /api/packages/{name}/recent` (PEP 503-normalised name);
404 for unknown projects. pypistats is a volunteer service with modest rate limits, so callers cache.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from email.header import decode_header, make_header
from email.utils import getaddresses
from functools import cache
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx
from license_expression import ExpressionError, Licensing, get_spdx_licensing
from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from pkgintel.domain.errors import RegistryError, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_text
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.pypi_metadata import (
    PUBLIC_FILES_URL,
    choose_metadata_file,
    fetch_metadata_file,
    parse_core_metadata,
    same_version,
)
from pkgintel.transport.fetch import JSONObject, get_json

DEFAULT_BASE_URL: Final = "https://pypi.org"
DEFAULT_DOWNLOADS_URL: Final = "https://pypistats.org"
REGISTRY_SOURCE: Final = "pypi.org"
DOWNLOADS_SOURCE: Final = "pypistats.org"
AVAILABLE_IN_ERRORS: Final = 10
"""How many of the newest versions a `VersionNotFound` lists."""
MAX_LICENSE_TEXT: Final = 64
"""Longer `info.license` values are usually the whole licence text, not a name."""
INACTIVE_CLASSIFIER: Final = "Development Status :: 7 - Inactive"

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.PYPI
_OSI = "License :: OSI Approved :: "
LICENSE_CLASSIFIERS: Final[Mapping[str, str]] = {
    # Only classifiers that name one licence version. "BSD License", "GNU General Public License
    # (GPL)", "GNU Library or Lesser General Public License (LGPL)" and the like stay unmapped.
    f"{_OSI}MIT License": "MIT",
    f"{_OSI}MIT No Attribution License (MIT-0)": "MIT-0",
    f"{_OSI}Apache Software License": "Apache-2.0",
    f"{_OSI}ISC License (ISCL)": "ISC",
    f"{_OSI}Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    f"{_OSI}Python Software Foundation License": "PSF-2.0",
    f"{_OSI}The Unlicense (Unlicense)": "Unlicense",
    f"{_OSI}zlib/libpng License": "Zlib",
    f"{_OSI}Boost Software License 1.0 (BSL-1.0)": "BSL-1.0",
    f"{_OSI}Eclipse Public License 2.0 (EPL-2.0)": "EPL-2.0",
    f"{_OSI}European Union Public Licence 1.2 (EUPL 1.2)": "EUPL-1.2",
    f"{_OSI}Universal Permissive License (UPL)": "UPL-1.0",
    f"{_OSI}GNU General Public License v2 (GPLv2)": "GPL-2.0-only",
    f"{_OSI}GNU General Public License v2 or later (GPLv2+)": "GPL-2.0-or-later",
    f"{_OSI}GNU General Public License v3 (GPLv3)": "GPL-3.0-only",
    f"{_OSI}GNU General Public License v3 or later (GPLv3+)": "GPL-3.0-or-later",
    f"{_OSI}GNU Lesser General Public License v2 (LGPLv2)": "LGPL-2.0-only",
    f"{_OSI}GNU Lesser General Public License v2 or later (LGPLv2+)": "LGPL-2.0-or-later",
    f"{_OSI}GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0-only",
    f"{_OSI}GNU Lesser General Public License v3 or later (LGPLv3+)": "LGPL-3.0-or-later",
    f"{_OSI}GNU Affero General Public License v3": "AGPL-3.0-only",
    f"{_OSI}GNU Affero General Public License v3 or later (AGPLv3+)": "AGPL-3.0-or-later",
    "License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication": "CC0-1.0",
}
"""Trove licence classifiers (https://pypi.org/classifiers/) → SPDX identifiers."""

_REPOSITORY_LABELS: Final = ("source", "sourcecode", "repository", "code", "github", "gitlab")
"""`project_urls` labels (normalised as PEP 753 does) that point at the code, by preference."""
_HOMEPAGE_LABELS: Final = ("homepage", "home")
_EXTRA_MARKER = re.compile(r"""\bextra\s*==\s*['"]([^'"]+)['"]""")
_NO_VALUE: Final = frozenset({"", "unknown", "none", "n/a", "null"})
_PROJECT_STATUS_MESSAGES: Final[Mapping[str, str]] = {
    "archived": "archived on PyPI: the project expects no further updates",
    "deprecated": "deprecated on PyPI",
    "quarantined": "quarantined by PyPI administrators",
}


class PyPIAdapter:
    """`RegistryAdapter` for pypi.org (or a mirror of its JSON API at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = DOWNLOADS_SOURCE

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        downloads_url: str = DEFAULT_DOWNLOADS_URL,
        files_url: str = PUBLIC_FILES_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._downloads_url = downloads_url.rstrip("/")
        self._files_url = files_url.rstrip("/")

    def project_url(self, name: str, version: str | None = None) -> str:
        """The JSON API URL of the project (or one release), under the PEP 503 name."""
        project = quote(normalise_name(Ecosystem.PYPI, name.strip()), safe="")
        if version is None:
            return f"{self._base_url}/pypi/{project}/json"
        return f"{self._base_url}/pypi/{project}/{quote(version.strip(), safe='')}/json"

    def downloads_url(self, name: str) -> str:
        """The pypistats `recent` URL for the PEP 503 name."""
        project = quote(normalise_name(Ecosystem.PYPI, name.strip()), safe="")
        return f"{self._downloads_url}/api/packages/{project}/recent"

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """
        See `RegistryAdapter.fetch_package`.

        With `version`, the project and the release are fetched concurrently; the release's own
        body gives the requirements. A release body that is missing, or that describes another
        version (a mirror answering with the latest), is replaced by the release's core metadata
        file; without one the requirements are unknown (`dependencies_unavailable` says why).
        A failing files host makes only the requirements unknown, not the answer fail.
        """
        if version is None:
            return parse_project(await self._get_project(name))
        project, release = await asyncio.gather(
            self._get_project(name), self._get_release(name, version), return_exceptions=True
        )
        # The project's failure explains the release's (a missing project 404s both).
        if isinstance(project, BaseException):
            raise project
        if isinstance(release, BaseException):
            raise release
        key = find_release(project, version)
        if key is None:
            raise _version_not_found(project, name, version)
        # PyPI may know the release under another spelling (`1.0` vs `1.0.0`).
        if release is None and key != version:
            release = await self._get_release(name, key)
        if release is not None and not same_version(_release_version(release), key):
            logger.warning(
                "PyPI %s: the release body for %s describes %r; not used",
                name,
                key,
                _release_version(release),
            )
            release = None
        if release is not None:
            return parse_project(project, version=version, version_data=release)
        if same_version(key, as_text(_info(project).get("version"))):
            return parse_project(project, version=key)  # the project's info block is this release's
        return await self._from_core_metadata(project, name, key)

    async def _from_core_metadata(
        self, project: Mapping[str, Any], name: str, key: str
    ) -> PackageInfo:
        """Release `key` of `project` from its core metadata file, else with unknown requirements."""
        releases = project.get("releases")
        files = releases.get(key) if isinstance(releases, Mapping) else None
        chosen = choose_metadata_file(
            files if isinstance(files, list) else [],
            document_url=self.project_url(name),
            files_url=self._files_url,
        )
        why = f"no release document for {key}"
        if isinstance(chosen, str):
            why = f"{why}, and {chosen}"
        else:
            try:
                raw = await fetch_metadata_file(self._client, chosen)
            except RegistryError as exc:
                why = f"{why}, and its core metadata file could not be read ({exc.reason})"
            else:
                if raw is None:
                    why = f"{why}, and {chosen.wheel} has no core metadata file (404)"
                else:
                    try:
                        meta = parse_core_metadata(raw, name=name, version=key)
                    except RegistryResponseInvalid as exc:
                        why = f"{why}, and its core metadata file is unusable: {exc.message}"
                    else:
                        info = parse_project(
                            project, version=key, version_data={"info": meta.as_release_info()}
                        )
                        source = f"core metadata of {chosen.wheel} (PEP 658)"
                        return replace(info, extra={**info.extra, "metadata_source": source})
        info = parse_project(project, version=key)
        return replace(info, extra={**info.extra, "dependencies_unavailable": why})

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """See `RegistryAdapter.fetch_weekly_downloads`; a project pypistats lacks gives None."""
        data = await get_json(
            self._client,
            self.downloads_url(name),
            ecosystem=self.ecosystem,
            name=name,
            source=DOWNLOADS_SOURCE,
            not_found="none",
        )
        return None if data is None else parse_recent_downloads(data)

    async def _get_project(self, name: str) -> JSONObject:
        return await get_json(
            self._client,
            self.project_url(name),
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
        )

    async def _get_release(self, name: str, version: str) -> JSONObject | None:
        """The release body, or None when PyPI has no such release (404)."""
        return await get_json(
            self._client,
            self.project_url(name, version),
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
            not_found="none",
        )


def parse_recent_downloads(data: Mapping[str, Any]) -> int:
    """`data.last_week` of a pypistats `recent` body; raises `RegistryResponseInvalid` without it."""
    block = data.get("data")
    count = block.get("last_week") if isinstance(block, Mapping) else None
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    raise RegistryResponseInvalid(
        _ECOSYSTEM,
        "pypistats body has no last_week count",
        reason="invalid_shape",
        source=DOWNLOADS_SOURCE,
    )


def find_release(data: Mapping[str, Any] | None, version: str) -> str | None:
    """The `releases` key equal to `version` (exactly, else under PEP 440), or None."""
    releases = data.get("releases") if isinstance(data, Mapping) else None
    if not isinstance(releases, Mapping):
        return None
    if version in releases:
        return version
    try:
        wanted = Version(version)
    except InvalidVersion:
        return None
    for key in releases:
        try:
            if Version(key) == wanted:
                return str(key)
        except InvalidVersion:
            continue
    return None


def parse_project(
    data: Mapping[str, Any],
    *,
    version: str | None = None,
    version_data: Mapping[str, Any] | None = None,
) -> PackageInfo:
    """
    Turn a `/pypi/{name}/json` body into `PackageInfo`.

    Dependencies and `requires_python` come from `version_data` (a `/pypi/{name}/{version}/json`
    body) when given; else from the project body when `version` is None or the latest; else the
    dependencies are unknown (empty, `dependencies_version` None, `extra["dependencies_unavailable"]`)
    and `requires_python` is the one the release's own file entries agree on (with
    `extra["requires_python_of"]`), never the latest's. Malformed releases, files and requirement lines
    are skipped and logged. Raises `VersionNotFound` when `version` is given without `version_data`
    and the project has no such release, and `RegistryResponseInvalid` when `info.name` is missing.
    """
    info = data.get("info")
    if not isinstance(info, Mapping) or not isinstance(info.get("name"), str) or not info["name"]:
        raise RegistryResponseInvalid(
            _ECOSYSTEM, "PyPI body has no info.name", reason="invalid_shape", source=REGISTRY_SOURCE
        )
    name: str = info["name"]
    releases = _releases(name, data.get("releases"))
    latest = as_text(info.get("version")) or _newest_installable(name, releases)

    dep_info: Mapping[str, Any] | None = info
    dep_version: str | None = latest
    unread_key: str | None = None
    if version_data is not None:
        release_info = version_data.get("info")
        dep_info = release_info if isinstance(release_info, Mapping) else {}
        dep_version = as_text(dep_info.get("version")) or version
    elif version is not None:
        key = find_release(data, version)
        if key is None:
            raise _version_not_found(data, name, version)
        if not same_version(key, latest):
            logger.debug("PyPI %s: no release body for %s, dependencies unknown", name, key)
            dep_info, dep_version, unread_key = None, None, key

    status, status_message = _project_status(data.get("project-status"))
    classifiers = tuple(c for c in _strings(info.get("classifiers")) if c)
    latest_release = next((rel for rel in releases if rel.version == latest), None)
    deprecated_message = status_message
    if deprecated_message is None and INACTIVE_CLASSIFIER in classifiers:
        deprecated_message = f"classified as {INACTIVE_CLASSIFIER!r}"
    if deprecated_message is None and latest_release is not None and latest_release.yanked:
        deprecated_message = (
            latest_release.yanked_reason or f"the latest release {latest} is yanked"
        )

    extra: dict[str, str] = {}
    requires_python = as_text(dep_info.get("requires_python")) if dep_info is not None else None
    if unread_key is not None:
        extra["dependencies_unavailable"] = f"no release document for {unread_key}"
        known, requires_python = _files_requires_python(data, unread_key)
        if known:
            extra["requires_python_of"] = unread_key
    if requires_python:
        extra["requires_python"] = requires_python
    if status:
        extra["project_status"] = status

    project_urls = _project_urls(info.get("project_urls"))
    homepage = _url(info.get("home_page")) or _first_label(project_urls, _HOMEPAGE_LABELS)
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(info.get("summary")) or "",
        license=_license(dep_info or info) or _license(info),
        homepage=homepage,
        repository=_repository(project_urls, homepage),
        releases=releases,
        maintainers=_maintainers(data.get("ownership"), info),
        dependencies=() if dep_info is None else _dependencies(name, dep_info.get("requires_dist")),
        dependencies_version=dep_version,
        deprecated=deprecated_message is not None,
        deprecated_message=deprecated_message,
        classifiers=classifiers,
        keywords=_keywords(info.get("keywords")),
        extra=extra,
    )


def _info(data: Mapping[str, Any]) -> Mapping[str, Any]:
    info = data.get("info")
    return info if isinstance(info, Mapping) else {}


def _release_version(data: Mapping[str, Any]) -> str | None:
    """`info.version` of a release body (None when it does not say)."""
    return as_text(_info(data).get("version"))


def _files_requires_python(data: Mapping[str, Any], key: str) -> tuple[bool, str | None]:
    """
    (known, value) of `requires_python` as release `key`'s file entries state it: known when every
    entry has the field and they agree (a null is "none declared"); unknown otherwise.
    """
    releases = data.get("releases")
    files = releases.get(key) if isinstance(releases, Mapping) else None
    entries = [f for f in files if isinstance(f, Mapping)] if isinstance(files, list) else []
    if not entries or any("requires_python" not in f for f in entries):
        return False, None
    values = {as_text(f.get("requires_python")) for f in entries}
    if len(values) != 1:
        return False, None
    return True, values.pop()


def _version_not_found(data: Mapping[str, Any] | None, name: str, version: str) -> VersionNotFound:
    """`VersionNotFound` listing the newest releases of a project body (well-formed ones only)."""
    info = data.get("info") if isinstance(data, Mapping) else None
    if isinstance(info, Mapping) and isinstance(info.get("name"), str):
        name = info["name"]
    releases = _releases(name, data.get("releases")) if isinstance(data, Mapping) else ()
    available = [rel.version for rel in reversed(releases)][:AVAILABLE_IN_ERRORS]
    return VersionNotFound(_ECOSYSTEM, name, version, available=available)


def _releases(name: str, raw: Any) -> tuple[Release, ...]:
    if not isinstance(raw, Mapping):
        return ()
    releases: list[Release] = []
    for version, files in raw.items():
        if not isinstance(version, str) or not isinstance(files, list):
            logger.warning("PyPI %s: skipped malformed release %r", name, version)
            continue
        good = [f for f in files if isinstance(f, Mapping)]
        times = [t for f in good if (t := _upload_time(f)) is not None]
        yanked = bool(good) and all(f.get("yanked") is True for f in good)
        reasons = (as_text(f.get("yanked_reason")) for f in good if f.get("yanked") is True)
        releases.append(
            Release(
                version=version,
                published_at=min(times) if times else None,
                yanked=yanked,
                yanked_reason=next((r for r in reasons if r), None) if yanked else None,
                prerelease=is_prerelease(_ECOSYSTEM, version),
            )
        )
    return tuple(sorted(releases, key=lambda rel: sort_key(_ECOSYSTEM, rel.version)))


def _upload_time(file: Mapping[str, Any]) -> datetime | None:
    """`upload_time_iso_8601`, else the older `upload_time` (naive, UTC by PyPI's convention)."""
    for key in ("upload_time_iso_8601", "upload_time"):
        value = file.get(key)
        if not isinstance(value, str):
            continue
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            logger.info("PyPI: unreadable %s %r", key, value)
            continue
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return None


def _newest_installable(name: str, releases: tuple[Release, ...]) -> str:
    candidates = [r for r in releases if not r.yanked and not r.prerelease] or list(releases)
    if not candidates:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"PyPI body for {name!r} has no version",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    return candidates[-1].version


def _project_status(value: Any) -> tuple[str | None, str | None]:
    """PEP 792 status and, for archived/deprecated/quarantined projects, a message."""
    if not isinstance(value, Mapping):
        return None, None
    status = as_text(value.get("status"))
    if status is None or status not in _PROJECT_STATUS_MESSAGES:
        return status, None
    reason = as_text(value.get("reason"))
    message = _PROJECT_STATUS_MESSAGES[status]
    return status, f"{message}: {reason}" if reason else message


@cache
def _spdx() -> Licensing:
    return get_spdx_licensing()


def _is_spdx_expression(text: str) -> bool:
    try:
        return not _spdx().validate(text).errors
    except ExpressionError:  # pragma: no cover - validate() reports errors rather than raising
        return False


def _license(info: Mapping[str, Any]) -> str | None:
    """
    PEP 639 `license_expression`; else `license` when it is a valid SPDX expression; else the
    trove classifiers when every licence classifier maps to SPDX; else a short `license` text.
    """
    expression = as_text(info.get("license_expression"))
    if expression:
        return expression
    stated = as_text(info.get("license"))
    if stated is not None and stated.lower() in _NO_VALUE:
        stated = None
    if (
        stated
        and len(stated) <= MAX_LICENSE_TEXT
        and "\n" not in stated
        and _is_spdx_expression(stated)
    ):
        return stated
    named = [
        c
        for c in _strings(info.get("classifiers"))
        if c.startswith("License ::") and c != "License :: OSI Approved"
    ]
    if named and all(c in LICENSE_CLASSIFIERS for c in named):
        return " OR ".join(dict.fromkeys(LICENSE_CLASSIFIERS[c] for c in named))
    if stated and len(stated) <= MAX_LICENSE_TEXT and "\n" not in stated:
        return stated
    return None


def _project_urls(value: Any) -> list[tuple[str, str]]:
    """(normalised label, URL) pairs; labels lose case, spaces and punctuation as in PEP 753."""
    if not isinstance(value, Mapping):
        return []
    pairs: list[tuple[str, str]] = []
    for label, url in value.items():
        if isinstance(label, str) and isinstance(url, str) and url.strip():
            pairs.append((re.sub(r"[^a-z0-9]", "", label.lower()), url.strip()))
    return pairs


def _first_label(pairs: list[tuple[str, str]], labels: Iterable[str]) -> str | None:
    for wanted in labels:
        for label, url in pairs:
            if label == wanted:
                return url
    return None


def _repository(pairs: list[tuple[str, str]], homepage: str | None) -> str | None:
    for wanted in _REPOSITORY_LABELS:
        for label, url in pairs:
            if label == wanted and (normalised := normalise_repository_url(url)):
                return normalised
    return normalise_repository_url(homepage, forges_only=True) if homepage else None


def _maintainers(ownership: Any, info: Mapping[str, Any]) -> tuple[Maintainer, ...]:
    """
    PyPI accounts with a role (`ownership.roles`) when listed; otherwise the owning organisation
    and the declared authors and maintainers.
    """
    people: list[Maintainer] = []
    if isinstance(ownership, Mapping):
        for entry in ownership.get("roles") or ():
            if isinstance(entry, Mapping) and (user := as_text(entry.get("user"))):
                role = as_text(entry.get("role"))
                people.append(Maintainer(name=user, role=role.lower() if role else None))
        if not people and (org := as_text(ownership.get("organization"))):
            people.append(Maintainer(name=org, role="organization"))
    if not any(p.role != "organization" for p in people):
        people += _declared(info.get("author"), info.get("author_email"), "author")
        people += _declared(info.get("maintainer"), info.get("maintainer_email"), "maintainer")
    unique: dict[str, Maintainer] = {}
    for person in people:
        unique.setdefault(person.name.lower(), person)
    return tuple(unique.values())


def _declared(name_field: Any, email_field: Any, role: str) -> list[Maintainer]:
    """People from core-metadata `Author`/`Author-email` style fields (emails may carry names)."""
    name = _decoded(as_text(name_field))
    emails = as_text(email_field)
    addresses = [
        (_decoded(n.strip()) or None, a.strip() or None)
        for n, a in getaddresses([emails] if emails else [])
    ]
    addresses = [(n, a) for n, a in addresses if n or a]
    if name and len(addresses) == 1 and not addresses[0][0]:
        return [Maintainer(name=name, email=addresses[0][1], role=role)]
    people = [Maintainer(name=n or a or "", email=a, role=role) for n, a in addresses]
    if name and not any(p.name == name for p in people):
        people.insert(0, Maintainer(name=name, role=role))
    return people


def _decoded(text: str | None) -> str | None:
    """Undo RFC 2047 encoded words (`=?utf-8?q?...?=`), which some uploads put in author fields."""
    if not text or "=?" not in text:
        return text
    try:
        return str(make_header(decode_header(text)))
    except (UnicodeDecodeError, LookupError, ValueError):
        return text


def _dependencies(name: str, requires_dist: Any) -> tuple[Dependency, ...]:
    deps: list[Dependency] = []
    for line in _strings(requires_dist):
        try:
            requirement = Requirement(line)
        except InvalidRequirement as exc:
            logger.warning("PyPI %s: skipped unparsable requirement %r: %s", name, line, exc)
            continue
        marker = str(requirement.marker) if requirement.marker is not None else None
        extra = _EXTRA_MARKER.search(marker) if marker else None
        deps.append(
            Dependency(
                name=requirement.name,
                requirement=str(requirement.specifier),
                kind=f"extra:{extra[1]}" if extra else "runtime",
                marker=marker,
            )
        )
    return tuple(deps)


def _keywords(value: Any) -> tuple[str, ...]:
    """Keywords from a comma-separated (or, without commas, space-separated) string or a list."""
    if isinstance(value, str):
        items: Iterable[str] = value.split(",") if "," in value else value.split()
    else:
        items = _strings(value)
    return tuple(dict.fromkeys(k.strip() for k in items if k.strip()))


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _url(value: Any) -> str | None:
    text = as_text(value)
    return None if text is None or text.lower() in _NO_VALUE else text

"""
A PyPI release's own requirements when its JSON document (`/pypi/{name}/{version}/json`) is missing,
as some mirrors do: the core metadata file that PEP 658 / PEP 714 serve next to a wheel
(`<wheel url>.metadata`, the wheel's `METADATA`), which pip and uv read instead of the wheel.

Which file: the release's wheels (sdists' `PKG-INFO` may leave requirements dynamic), universal
(`-none-any`) wheels first, then those whose metadata the index advertises. A file entry's
`core-metadata` (PEP 714; `data-dist-info-metadata` before it) is read as the Simple API defines it:
an object of hashes → served, with its `sha256` verified; `true` → served, no hash; absent (the JSON
API does not say) → asked for, a 404 meaning none; `false` → asked for last, a 404 meaning none,
because mirrors are seen to say `false` in the JSON API while serving the file (the pypi.org mirror
this service was tried against does: `core-metadata: false` on every file, and the `.metadata` file
answers 200). Whatever the flag, the file is used only when it names the asked project and version.

Where: the file's `url` resolved against the JSON document's URL (mirrors such as bandersnatch write
relative links to their own copies, which are followed as given); a link on the public files host
(`PUBLIC_FILES_URL`) is moved onto the configured files host (`PKGINTEL_UPSTREAM_PYPI_FILES_URL`), so
a mirror that passes PyPI's bodies through unchanged can serve the files too.

The file must name the asked project and version (PEP 503 / PEP 440 equality); otherwise, on a hash
mismatch or an unreadable body it is `RegistryResponseInvalid`, never used.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

import httpx
from packaging.metadata import parse_email
from packaging.version import InvalidVersion, Version

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.transport.upstream import raise_if_unavailable, send

PUBLIC_FILES_URL: Final = "https://files.pythonhosted.org"
FILES_SOURCE: Final = "files.pythonhosted.org"
MAX_METADATA_BYTES: Final = 16 * 1024 * 1024
"""Largest metadata file accepted (a long description is embedded; real ones are far smaller)."""
_HEADERS: Final = {"Accept": "*/*"}
_ECOSYSTEM: Final = Ecosystem.PYPI


@dataclass(frozen=True, slots=True)
class MetadataFile:
    """The core metadata file of one wheel: where to read it and the hash to check it against."""

    url: str
    sha256: str | None
    wheel: str
    """The wheel's filename (shown as the source of the requirements)."""


@dataclass(frozen=True, slots=True)
class CoreMetadata:
    """What a core metadata file declares that the service reads."""

    version: str
    requires_python: str | None
    requires_dist: tuple[str, ...]
    license_expression: str | None
    license: str | None
    classifiers: tuple[str, ...]

    def as_release_info(self) -> dict[str, Any]:
        """The fields in the shape of a `/pypi/{name}/{version}/json` body's `info` block."""
        return {
            "version": self.version,
            "requires_python": self.requires_python,
            "requires_dist": list(self.requires_dist),
            "license_expression": self.license_expression,
            "license": self.license,
            "classifiers": list(self.classifiers),
        }


def resolve_file_url(raw: str, *, document_url: str, files_url: str) -> str:
    """A file link of a JSON body as an absolute URL on the configured files host (module docstring)."""
    url = urljoin(document_url, raw)
    configured = files_url.rstrip("/")
    if configured != PUBLIC_FILES_URL and url.startswith(f"{PUBLIC_FILES_URL}/"):
        url = configured + url[len(PUBLIC_FILES_URL) :]
    return url


def choose_metadata_file(
    files: Sequence[Any], *, document_url: str, files_url: str
) -> MetadataFile | str:
    """The metadata file to read for a release's `files`, or why there is none (a sentence)."""
    wheels = [
        f
        for f in files
        if isinstance(f, Mapping)
        and isinstance(f.get("url"), str)
        and isinstance(f.get("filename"), str)
        and f["filename"].endswith(".whl")
    ]
    if not wheels:
        return "the release has no wheel, whose core metadata could be read"
    offered = [(f, _advertised(f)) for f in wheels]
    offered.sort(
        key=lambda pair: (
            pair[1] is False,
            not pair[0]["filename"].endswith("-none-any.whl"),
            pair[1] is None,
        )
    )
    wheel, flag = offered[0]
    sha256 = flag.get("sha256") if isinstance(flag, Mapping) else None
    return MetadataFile(
        url=resolve_file_url(wheel["url"], document_url=document_url, files_url=files_url)
        + ".metadata",
        sha256=sha256.lower() if isinstance(sha256, str) and sha256 else None,
        wheel=wheel["filename"],
    )


def _advertised(file: Mapping[str, Any]) -> Mapping[str, Any] | bool | None:
    """`core-metadata` (else `data-dist-info-metadata`): hashes, True, False, or None (unsaid)."""
    for key in ("core-metadata", "data-dist-info-metadata"):
        if key in file:
            value = file[key]
            if isinstance(value, Mapping):
                return value
            if isinstance(value, bool):
                return value
    return None


async def fetch_metadata_file(client: httpx.AsyncClient, meta: MetadataFile) -> bytes | None:
    """
    The bytes of `meta.url`, or None on 404/410 (the file is not served); errors name the URL's
    host as their source. Raises
    `RegistryUnavailable` (timeout, 429, 5xx) and `RegistryResponseInvalid` (other statuses, an
    oversized body, a sha256 that differs from the advertised one).
    """
    source = urlsplit(meta.url).hostname or FILES_SOURCE
    response = await send(
        client, "GET", meta.url, ecosystem=_ECOSYSTEM.value, source=source, headers=_HEADERS
    )
    if response.status_code in (404, 410):
        return None
    raise_if_unavailable(response, ecosystem=_ECOSYSTEM.value, source=source)
    if not 200 <= response.status_code < 300:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"{source} answered HTTP {response.status_code} for {meta.wheel}.metadata",
            reason=f"status.{response.status_code}",
            source=source,
        )
    body = response.content
    if len(body) > MAX_METADATA_BYTES:
        raise RegistryResponseInvalid(
            _ECOSYSTEM, f"{meta.wheel}.metadata is oversized", reason="invalid_text", source=source
        )
    if meta.sha256 is not None and hashlib.sha256(body).hexdigest() != meta.sha256:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"{meta.wheel}.metadata does not match the sha256 the index gives",
            reason="hash_mismatch",
            source=source,
        )
    return body


def parse_core_metadata(
    raw: bytes, *, name: str, version: str, source: str = FILES_SOURCE
) -> CoreMetadata:
    """
    Requires-Python, Requires-Dist and licence fields of a core metadata file (RFC 822 form,
    any metadata version). Raises `RegistryResponseInvalid` when it has no Name/Version or names
    another project or version than `name` / `version`.
    """
    fields, _unparsed = parse_email(raw)
    stated_name, stated_version = fields.get("name"), fields.get("version")
    if not stated_name or not stated_version:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "core metadata without Name or Version",
            reason="invalid_shape",
            source=source,
        )
    if normalise_name(_ECOSYSTEM, stated_name) != normalise_name(
        _ECOSYSTEM, name
    ) or not same_version(stated_version, version):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"core metadata describes {stated_name} {stated_version}, not {name} {version}",
            reason="metadata_mismatch",
            source=source,
        )
    return CoreMetadata(
        version=version,
        requires_python=fields.get("requires_python"),
        requires_dist=tuple(fields.get("requires_dist") or ()),
        license_expression=fields.get("license_expression"),
        license=fields.get("license"),
        classifiers=tuple(fields.get("classifiers") or ()),
    )


def same_version(a: str | None, b: str | None) -> bool:
    """PEP 440 equality (`1.0` == `1.0.0`), else exact string equality; False with a None."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False

"""
Community submissions (pure): wrong-verdict reports (`POST /api/anomaly`) and page views
(`POST /api/track`) — their limits and validation. Validation never echoes what it rejects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem

MAX_PACKAGE_CHARS = 214
MAX_VERSION_CHARS = 128
MAX_VERDICT_CHARS = 2000
MAX_URL_CHARS = 2048
MAX_PATH_CHARS = 512
MAX_HOST_CHARS = 253
MAX_BODY_BYTES = 16 * 1024
"""Largest anomaly or track body accepted (larger: 413 before parsing)."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9-]{1,63})*$")


@dataclass(frozen=True, slots=True)
class AnomalyReport:
    """A validated report that a verdict is wrong (`client` is a keyed hash, never an IP)."""

    ecosystem: Ecosystem
    package: str
    version: str | None
    observed: str
    expected: str
    evidence_url: str | None
    client: str
    source: str


@dataclass(frozen=True, slots=True)
class StoredAnomaly:
    id: str
    received_at: datetime
    report: AnomalyReport


def _clean(value: str, field: str, limit: int, *, multiline: bool) -> str:
    text = value.strip()
    if not text:
        raise InvalidInput(field, f"{field} must not be empty")
    if len(text) > limit:
        raise InvalidInput(field, f"{field} is longer than {limit} characters")
    if _CONTROL.search(text) or (not multiline and ("\n" in text or "\r" in text)):
        raise InvalidInput(field, f"{field} contains control characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(field, f"{field} is not valid text") from None
    return text


def evidence_url(value: str | None) -> str | None:
    """An `http(s)` URL with a host, or None; anything else is `InvalidInput`."""
    if value is None or not value.strip():
        return None
    url = _clean(value, "evidence_url", MAX_URL_CHARS, multiline=False)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput("evidence_url", "evidence_url must be an http or https URL")
    return url


def anomaly_report(
    *,
    ecosystem: str,
    package: str,
    version: str | None,
    observed: str,
    expected: str,
    evidence: str | None,
    client: str,
    source: str,
) -> AnomalyReport:
    """Validate one report; raises `InvalidInput` naming the first bad field."""
    try:
        eco = Ecosystem(ecosystem)
    except ValueError:
        raise InvalidInput("ecosystem", "ecosystem is not one we support") from None
    return AnomalyReport(
        eco,
        _clean(package, "package", MAX_PACKAGE_CHARS, multiline=False),
        _clean(version, "version", MAX_VERSION_CHARS, multiline=False) if version else None,
        _clean(observed, "observed", MAX_VERDICT_CHARS, multiline=True),
        _clean(expected, "expected", MAX_VERDICT_CHARS, multiline=True),
        evidence_url(evidence),
        client,
        source,
    )


def tracked_path(path: str) -> str:
    """The path of a page view without its query and fragment (they can carry personal data)."""
    clean = _clean(path, "path", MAX_PATH_CHARS, multiline=False)
    parts = urlsplit(clean)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        raise InvalidInput("path", "path must be a site path starting with '/'")
    return parts.path


def referrer_host(referrer: str | None) -> str | None:
    """The host of a referrer URL (lower case, no port, user or path), or None."""
    if referrer is None or not referrer.strip():
        return None
    url = _clean(referrer, "referrer", MAX_URL_CHARS, multiline=False)
    try:
        host = urlsplit(url).hostname
    except ValueError:
        host = None
    if not host or len(host) > MAX_HOST_CHARS or not _HOST.match(host):
        raise InvalidInput("referrer", "referrer must be a URL with a host")
    return host

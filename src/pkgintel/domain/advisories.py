"""
Advisories in the OSV shape (pure values) and their severity.

An `Advisory` is one OSV record (https://ossf.github.io/osv-schema/) reduced to what the service
uses: ids and aliases, text, dates, a severity bucket with its CVSS score and vector, references,
and the `affected` entries, each holding one package's `ranges` (events kept in record order, as
`(kind, value)` pairs) and its explicit `versions` list. Evaluating them is `domain/matching.py`;
reading OSV JSON is `sources/osv_schema.py`.

Severity (`severity_from_osv`), in order of preference, never invented:

1. the highest CVSS v4, else v3 base score among the record's `severity` and
   `affected[].severity` vectors, computed with the `cvss` library: critical ≥ 9.0, high ≥ 7.0,
   medium ≥ 4.0, low > 0.0, none = 0.0;
2. `database_specific.severity` (GitHub: CRITICAL/HIGH/MODERATE/LOW);
3. the highest `affected[].ecosystem_specific.severity` label, or an `Ubuntu`-type severity label;
4. a numeric base score the database states without a vector
   (`database_specific.cvss_v4_base_score`, `cvss_v3_base_score`, `cvss_score`);
5. a CVSS v2 vector, else `database_specific.cvss_v2_base_score` (v2 has no "critical":
   high ≥ 7.0, medium ≥ 4.0, low otherwise);
6. otherwise unknown: `(None, None, None)`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, Literal

from cvss import CVSS2, CVSS3, CVSS4
from cvss.exceptions import CVSSError

from pkgintel.domain.json_fields import as_list, as_object
from pkgintel.domain.packages import Ecosystem

EventKind = Literal["introduced", "fixed", "last_affected", "limit"]
EVENT_KINDS: tuple[EventKind, ...] = ("introduced", "fixed", "last_affected", "limit")

GIT_RANGE_REASON = (
    "GIT range ignored: its bounds are commit hashes, and deciding whether a release contains a "
    "commit needs the repository's commit graph; the record's versions list and SEMVER/ECOSYSTEM "
    "ranges are used instead"
)


MALICIOUS_CODE_CWES = frozenset({"CWE-506", "CWE-507"})
"""CWE ids that say the package itself carries malicious code."""

_MALICIOUS_SUMMARY = re.compile(
    r"^\s*(?:embedded\s+)?malicious\s+(?:code|package|version|release)s?\b"
    r"|\b(?:contains?|ships?|includes?|with)\s+(?:an?\s+)?(?:embedded\s+)?"
    r"(?:malicious\s+code|malware|backdoor|trojan)\b"
    r"|\bcompromised\s+(?:package|release|version)s?\b",
    re.IGNORECASE,
)


class RangeType(StrEnum):
    """OSV `affected[].ranges[].type`."""

    SEMVER = "SEMVER"
    ECOSYSTEM = "ECOSYSTEM"
    GIT = "GIT"


class Severity(StrEnum):
    """Severity bucket. `NONE` only for a stated CVSS base score of 0.0."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Reference:
    """OSV `references[]`: a typed link (ADVISORY, WEB, FIX, PACKAGE, REPORT, ...)."""

    type: str
    url: str


@dataclass(frozen=True, slots=True)
class AffectedRange:
    """
    One OSV range: its type and its events, in record order, as `(kind, value)` pairs.

    `kind` is one of `EVENT_KINDS`; `value` is the version string as written (`"0"` for an
    `introduced` means "before every version"; a `limit` containing `*` means infinity).
    """

    type: RangeType
    events: tuple[tuple[EventKind, str], ...]
    repo: str | None = None

    @property
    def unevaluable_reason(self) -> str | None:
        """Why this range is not evaluated, or None when it is."""
        if self.type is RangeType.GIT:
            return GIT_RANGE_REASON
        if not any(kind == "introduced" for kind, _ in self.events):
            return "range has no introduced event (OSV requires one); evaluated as never affected"
        return None


@dataclass(frozen=True, slots=True)
class Affected:
    """
    One OSV `affected[]` entry: a package and the versions of it the advisory affects.

    `name` is normalised with `names.normalise_name` for `ecosystem` (PyPI `PaddlePaddle` →
    `paddlepaddle`); `display_name` is as the record wrote it. `ecosystem` is None for OSV
    ecosystems we do not serve (`GHC`, Linux distributions); such entries never match, and
    `unevaluable_reason` says why. `versions` is the explicit list (matched by equality).
    """

    osv_ecosystem: str
    ecosystem: Ecosystem | None
    name: str
    display_name: str
    ranges: tuple[AffectedRange, ...] = ()
    versions: frozenset[str] = frozenset()
    purl: str | None = None
    ecosystem_specific_severity: str | None = None
    unevaluable_reason: str | None = None
    """Set when part of this entry cannot be evaluated (unknown ecosystem, GIT-only ranges,
    unknown range types); evaluation uses whatever remains."""


@dataclass(frozen=True, slots=True)
class Advisory:
    """One OSV record. `severity`/`cvss_*` come from `severity_from_osv`; times are UTC."""

    id: str
    source: str
    """Where the record was read from (e.g. `osv:PyPI`, `osv-malicious:npm`, `api.osv.dev`)."""
    aliases: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    upstream: tuple[str, ...] = ()
    summary: str = ""
    details: str = ""
    published: datetime | None = None
    modified: datetime | None = None
    withdrawn: datetime | None = None
    severity: Severity | None = None
    cvss_score: float | None = None
    cvss_vector: str | None = None
    database_severity: str | None = None
    """`database_specific.severity` as written (GitHub's CRITICAL/HIGH/MODERATE/LOW)."""
    references: tuple[Reference, ...] = ()
    affected: tuple[Affected, ...] = ()
    is_malicious: bool = False
    """A malicious-package report: a `MAL-` id, or `database_specific` from the OpenSSF
    malicious-packages project."""
    converted_from: str | None = None
    """`database_specific.converted_from`: the record was converted from a native database by a
    third party (a second opinion, ranked below a feed's own record when de-duplicating)."""
    schema_version: str | None = None
    cwe_ids: tuple[str, ...] = ()
    """`database_specific.cwe_ids` (GitHub), upper-case (`CWE-506`)."""

    @property
    def reports_malicious_code(self) -> bool:
        """
        True for a malicious-package report (`is_malicious`) and for an ordinary advisory that says
        the package itself carries malicious code: CWE-506 (embedded malicious code) or CWE-507
        (trojan horse), or a summary that names it (`Malicious Package`, `Embedded Malicious Code`,
        `... contains a backdoor`, `... contains malware`). A vulnerability that merely lets an
        attacker run malicious code is not one (the summary must say the package contains it).
        """
        if self.is_malicious or any(c in MALICIOUS_CODE_CWES for c in self.cwe_ids):
            return True
        return bool(_MALICIOUS_SUMMARY.search(self.summary))

    @property
    def is_withdrawn(self) -> bool:
        """True when the record is withdrawn: it must never match."""
        return self.withdrawn is not None

    @property
    def ids(self) -> frozenset[str]:
        """The record id and all its aliases."""
        return frozenset((self.id, *self.aliases))

    @property
    def url(self) -> str | None:
        """The first ADVISORY reference, else the first reference, else None."""
        for ref in self.references:
            if ref.type == "ADVISORY":
                return ref.url
        return self.references[0].url if self.references else None


# --------------------------------------------------------------------------------------------
# Severity.

_LABELS: dict[str, Severity] = {
    "critical": Severity.CRITICAL,
    "high": Severity.HIGH,
    "important": Severity.HIGH,
    "moderate": Severity.MEDIUM,
    "medium": Severity.MEDIUM,
    "low": Severity.LOW,
    "negligible": Severity.LOW,
}
_RANK = {
    Severity.NONE: 0,
    Severity.LOW: 1,
    Severity.MEDIUM: 2,
    Severity.HIGH: 3,
    Severity.CRITICAL: 4,
}


def severity_for_score(score: float) -> Severity:
    """CVSS v3/v4 qualitative rating of a base score."""
    if score >= 9.0:
        return Severity.CRITICAL
    if score >= 7.0:
        return Severity.HIGH
    if score >= 4.0:
        return Severity.MEDIUM
    if score > 0.0:
        return Severity.LOW
    return Severity.NONE


def severity_for_label(label: object) -> Severity | None:
    """A bucket for a database's label (`HIGH`, `MODERATE`, `important`, ...), or None."""
    if not isinstance(label, str):
        return None
    return _LABELS.get(label.strip().lower())


def cvss_base_score(kind: str, vector: str) -> float | None:
    """The base score of a `CVSS_V2`/`CVSS_V3`/`CVSS_V4` vector, or None when it is malformed."""
    try:
        if kind == "CVSS_V4":
            score: Any = CVSS4(vector.strip()).base_score
        elif kind == "CVSS_V3":
            score = CVSS3(vector.strip()).base_score
        elif kind == "CVSS_V2":
            score = CVSS2(vector.strip()).base_score
        else:
            return None
    except (CVSSError, ValueError, KeyError, IndexError, TypeError, ArithmeticError):
        return None
    if isinstance(score, Decimal | int | float):
        return round(float(score), 1)
    return None  # pragma: no cover - the library always returns a number


def _severity_entries(record: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    for entry in as_list(record.get("severity")):
        if isinstance(entry, Mapping):
            yield entry
    for affected in as_list(record.get("affected")):
        if isinstance(affected, Mapping):
            for entry in as_list(affected.get("severity")):
                if isinstance(entry, Mapping):
                    yield entry


def severity_from_osv(
    record: Mapping[str, Any],
) -> tuple[Severity | None, float | None, str | None]:
    """
    `(bucket, base score, vector)` of an OSV record, per the module docstring's order.

    Score and vector are None when the bucket comes from a label; all three are None when the
    record says nothing usable. Never raises on malformed input.
    """
    entries = list(_severity_entries(record))
    for kind in ("CVSS_V4", "CVSS_V3"):
        best: tuple[float, str] | None = None
        for entry in entries:
            vector = entry.get("score")
            if entry.get("type") != kind or not isinstance(vector, str):
                continue
            score = cvss_base_score(kind, vector)
            if score is not None and (best is None or score > best[0]):
                best = (score, vector.strip())
        if best is not None:
            return severity_for_score(best[0]), best[0], best[1]

    db = as_object(record.get("database_specific"))
    label = severity_for_label(db.get("severity"))
    if label is not None:
        return label, None, None

    labels = [
        severity_for_label(as_object(a).get("ecosystem_specific", {}).get("severity"))
        if isinstance(as_object(a).get("ecosystem_specific"), Mapping)
        else None
        for a in as_list(record.get("affected"))
    ]
    labels += [severity_for_label(e.get("score")) for e in entries if e.get("type") == "Ubuntu"]
    known = [s for s in labels if s is not None]
    if known:
        return max(known, key=_RANK.__getitem__), None, None

    for key in ("cvss_v4_base_score", "cvss_v3_base_score", "cvss_score"):
        number = _number(db.get(key))
        if number is not None:
            return severity_for_score(number), number, None

    best_v2: tuple[float, str | None] | None = None
    for entry in entries:
        vector = entry.get("score")
        if entry.get("type") == "CVSS_V2" and isinstance(vector, str):
            score = cvss_base_score("CVSS_V2", vector)
            if score is not None and (best_v2 is None or score > best_v2[0]):
                best_v2 = (score, vector.strip())
    if best_v2 is None:
        v2_score = _number(db.get("cvss_v2_base_score"))
        best_v2 = (v2_score, None) if v2_score is not None else None
    if best_v2 is not None:
        return severity_for_v2_score(best_v2[0]), best_v2[0], best_v2[1]
    return None, None, None


def severity_for_v2_score(score: float) -> Severity:
    """CVSS v2 (NVD) rating: high ≥ 7.0, medium ≥ 4.0, low otherwise; v2 has no "critical"."""
    if score >= 7.0:
        return Severity.HIGH
    if score >= 4.0:
        return Severity.MEDIUM
    return Severity.LOW if score > 0.0 else Severity.NONE


def _number(value: object) -> float | None:
    """A base score in [0, 10] from a JSON number or numeric string, else None."""
    if not isinstance(value, int | float | str) or isinstance(value, bool):
        return None
    try:
        score = float(value)
    except ValueError:
        return None
    return round(score, 1) if 0.0 <= score <= 10.0 else None

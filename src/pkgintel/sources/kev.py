"""
CISA Known Exploited Vulnerabilities (KEV) catalog JSON → `KevCatalog` (pure).

Feed: https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json
(schema: `known_exploited_vulnerabilities_schema.json` beside it; licence CC0-1.0). Top level:
`catalogVersion`, `dateReleased`, `count`, `vulnerabilities: [...]`; each vulnerability has
`cveID`, `vendorProject`, `product`, `vulnerabilityName`, `dateAdded`, `shortDescription`,
`requiredAction`, `dueDate`, `knownRansomwareCampaignUse`, `notes`, `cwes`.

Reading rules:

- The document must be a JSON object with a `vulnerabilities` array, else `InvalidSourceData`.
  `catalogVersion` and `dateReleased` are optional (None when missing or unusable).
- An entry is skipped, and the reason recorded in `KevCatalog.skipped`, when it is not an object,
  its `cveID` is not `CVE-YYYY-NNNN` (4 to 19 digits; case and surrounding blanks are forgiven,
  the id is stored upper-case), its `dateAdded` is not an ISO date, or its CVE id was already seen
  (the first entry wins).
- Text fields that are missing or not strings become `""`; a missing or invalid `dueDate` becomes
  None; `cwes` keeps the strings of a list, in order.
- `knownRansomwareCampaignUse`: `"Known"` (any case, blanks stripped) → True; any other non-blank
  string (CISA writes `"Unknown"`) → False; missing, null, blank or not a string → None.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final

import orjson

from pkgintel.sources.errors import InvalidSourceData
from pkgintel.sources.osv_schema import parse_time

logger = logging.getLogger(__name__)

SOURCE: Final = "cisa-kev"
"""How the KEV feed names itself in errors."""

CVE_ID_RE: Final = re.compile(r"CVE-[0-9]{4}-[0-9]{4,19}")
"""The schema's `cveID` pattern (anchored by `fullmatch`)."""


@dataclass(frozen=True, slots=True)
class KevEntry:
    """One known exploited vulnerability."""

    cve_id: str
    """Upper-case `CVE-YYYY-NNNN...`."""
    vendor: str
    product: str
    name: str
    """`vulnerabilityName`."""
    date_added: date
    due_date: date | None
    ransomware: bool | None
    """True: known ransomware use; False: CISA states anything else ("Unknown"); None: not stated."""
    notes: str
    description: str = ""
    """`shortDescription`."""
    required_action: str = ""
    cwes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KevCatalog:
    """A parsed KEV catalog; `skipped` holds one human-readable reason per dropped entry."""

    catalog_version: str | None
    date_released: datetime | None
    """Aware UTC."""
    entries: tuple[KevEntry, ...]
    skipped: tuple[str, ...] = ()

    def by_cve(self) -> dict[str, KevEntry]:
        """Entries keyed by CVE id (ids are unique after parsing)."""
        return {entry.cve_id: entry for entry in self.entries}


def parse_kev(data: bytes | str, *, source: str = SOURCE) -> KevCatalog:
    """
    Parse the KEV catalog JSON in `data`.

    Raises `InvalidSourceData` when `data` is not JSON, not an object, or has no `vulnerabilities`
    array. Bad entries are skipped and listed in `KevCatalog.skipped` (see the module docstring).
    """
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InvalidSourceData(source, f"KEV catalog is not valid JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise InvalidSourceData(
            source, f"KEV catalog is JSON {type(document).__name__}, expected an object"
        )
    vulnerabilities = document.get("vulnerabilities")
    if not isinstance(vulnerabilities, list):
        raise InvalidSourceData(source, "KEV catalog has no 'vulnerabilities' array")

    entries: list[KevEntry] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for index, raw in enumerate(vulnerabilities):
        entry = _entry(raw)
        if isinstance(entry, str):
            skipped.append(f"vulnerabilities[{index}]: {entry}")
        elif entry.cve_id in seen:
            skipped.append(f"vulnerabilities[{index}]: duplicate {entry.cve_id}")
        else:
            seen.add(entry.cve_id)
            entries.append(entry)
    if skipped:
        logger.warning(
            "%s: skipped %d of %d KEV entries", source, len(skipped), len(vulnerabilities)
        )

    version = document.get("catalogVersion")
    return KevCatalog(
        catalog_version=(version.strip() or None) if isinstance(version, str) else None,
        date_released=parse_time(document.get("dateReleased")),
        entries=tuple(entries),
        skipped=tuple(skipped),
    )


def ransomware_flag(value: object) -> bool | None:
    """`knownRansomwareCampaignUse` as a tri-state (rules in the module docstring)."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().casefold() == "known"


def _entry(raw: object) -> KevEntry | str:
    """The entry, or the reason it is skipped."""
    if not isinstance(raw, Mapping):
        return f"not an object ({type(raw).__name__})"
    cve = raw.get("cveID")
    cve_id = cve.strip().upper() if isinstance(cve, str) else ""
    if not CVE_ID_RE.fullmatch(cve_id):
        return f"invalid cveID {cve!r}"
    added = _date(raw.get("dateAdded"))
    if added is None:
        return f"{cve_id}: invalid dateAdded {raw.get('dateAdded')!r}"
    cwes = raw.get("cwes")
    return KevEntry(
        cve_id=cve_id,
        vendor=_text(raw, "vendorProject"),
        product=_text(raw, "product"),
        name=_text(raw, "vulnerabilityName"),
        date_added=added,
        due_date=_date(raw.get("dueDate")),
        ransomware=ransomware_flag(raw.get("knownRansomwareCampaignUse")),
        notes=_text(raw, "notes"),
        description=_text(raw, "shortDescription"),
        required_action=_text(raw, "requiredAction"),
        cwes=tuple(c.strip() for c in cwes if isinstance(c, str) and c.strip())
        if isinstance(cwes, list)
        else (),
    )


def _text(raw: Mapping[str, Any], key: str) -> str:
    value = raw.get(key)
    return value.strip() if isinstance(value, str) else ""


def _date(value: object) -> date | None:
    """A `YYYY-MM-DD` date; None when missing or invalid."""
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        return None

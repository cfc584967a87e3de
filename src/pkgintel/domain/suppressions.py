"""
Suppressions: advisories a project has decided to accept, as CI users know them from OSV-Scanner
and pip-audit. Pure: text and dicts in, dicts out; no file access and no clock (the caller gives
`today`).

An entry has an `id` (an advisory id or any of its aliases, compared case-insensitively), a
`reason` (required: a suppression nobody can explain is not accepted) and an optional `until`
date. An entry applies while `today <= until` (or always without `until`); once expired it no
longer applies — the finding counts again — and the audit says so in `expired`.

A suppressed finding stays in the answer, marked `suppressed: true` with the `suppression`
(`id`, `reason`, `until`, `source`); it is left out of the summary's severity counts and of the
`--fail-on` gate. The `.pkgintel.toml` form:

    [[ignore]]
    id = "GHSA-xxxx-xxxx-xxxx"     # or CVE-..., PYSEC-..., MAL-...
    reason = "not reachable: we never call the affected function"
    until = 2027-03-31             # optional; a TOML date or "YYYY-MM-DD"
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

MAX_ENTRIES = 1000
"""At most this many entries in one list (a body or a file)."""
ENTRY_KEYS = frozenset({"id", "reason", "until"})


class SuppressionError(ValueError):
    """An invalid suppression list: the message names the entry (and its line when known)."""


@dataclass(frozen=True, slots=True)
class Suppression:
    """One accepted advisory. `source` names where it was read (a file path, `request`)."""

    id: str
    reason: str
    until: date | None = None
    source: str | None = None

    def active(self, today: date) -> bool:
        """True while the entry applies: no `until`, or `today` is on or before it."""
        return self.until is None or today <= self.until

    def wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reason": self.reason,
            "until": self.until.isoformat() if self.until else None,
            "source": self.source,
        }


def entry(raw: Mapping[str, Any], *, where: str, source: str | None = None) -> Suppression:
    """One `Suppression` from a mapping; `where` names it in errors (`entry 2 (line 7)`).
    Raises `SuppressionError` for an unknown key, a missing or empty `id`/`reason`, a bad date."""
    unknown = sorted(set(raw) - ENTRY_KEYS)
    if unknown:
        raise SuppressionError(
            f"{where}: unknown key {', '.join(unknown)} (an entry has id, reason and until)"
        )
    ident, reason, until = raw.get("id"), raw.get("reason"), raw.get("until")
    if not isinstance(ident, str) or not ident.strip():
        raise SuppressionError(f'{where}: id is required (an advisory id, e.g. id = "GHSA-...")')
    if not isinstance(reason, str) or not reason.strip():
        raise SuppressionError(
            f"{where} ({ident.strip()}): reason is required (say why the advisory is accepted)"
        )
    if isinstance(until, str):
        try:
            until = date.fromisoformat(until.strip())
        except ValueError:
            raise SuppressionError(
                f"{where} ({ident.strip()}): until must be a date, e.g. 2027-03-31"
            ) from None
    if until is not None and (not isinstance(until, date) or hasattr(until, "hour")):
        raise SuppressionError(f"{where} ({ident.strip()}): until must be a date, e.g. 2027-03-31")
    return Suppression(ident.strip(), reason.strip(), until, source)


_HEADER = re.compile(r"^\s*\[\[\s*ignore\s*\]\]\s*(#.*)?$")


def parse_toml(text: str, *, source: str) -> tuple[Suppression, ...]:
    """
    The `[[ignore]]` entries of a `.pkgintel.toml`. Raises `SuppressionError` naming `source`
    and the entry (its line when written as a `[[ignore]]` table) for invalid TOML, a top-level
    key other than `ignore`, or an invalid entry.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SuppressionError(f"{source}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"ignore"})
    if unknown:
        raise SuppressionError(
            f"{source}: unknown key {', '.join(unknown)} (this file holds [[ignore]] entries)"
        )
    raw = data.get("ignore", [])
    if not isinstance(raw, list) or not all(isinstance(item, dict) for item in raw):
        raise SuppressionError(f"{source}: ignore must be a list of [[ignore]] tables")
    if len(raw) > MAX_ENTRIES:
        raise SuppressionError(f"{source}: at most {MAX_ENTRIES} [[ignore]] entries")
    lines = [n for n, line in enumerate(text.splitlines(), 1) if _HEADER.match(line)]
    out = []
    for index, item in enumerate(raw):
        at = f" (line {lines[index]})" if len(lines) == len(raw) else ""
        out.append(entry(item, where=f"{source}: [[ignore]] entry {index + 1}{at}", source=source))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Applied:
    """`apply`'s answer: the packages (copies, findings marked), the count of suppressed
    findings, and the expired entries (which no longer apply)."""

    packages: tuple[dict[str, Any], ...]
    suppressed: int
    expired: tuple[Suppression, ...]


def _index(entries: Iterable[Suppression]) -> dict[str, Suppression]:
    found: dict[str, Suppression] = {}
    for item in entries:
        found.setdefault(item.id.casefold(), item)
    return found


def _match(ids: Iterable[str], active: Mapping[str, Suppression]) -> Suppression | None:
    for ident in ids:
        hit = active.get(ident.casefold())
        if hit is not None:
            return hit
    return None


def apply(
    packages: Sequence[dict[str, Any]], entries: Sequence[Suppression], today: date
) -> Applied:
    """
    Mark every finding of `packages` (audit items, `services/audit/scan.py`) that an active entry
    names — by the advisory id or any alias — as `suppressed: true` with its `suppression`;
    every other finding gets `suppressed: false`. A malicious flag is suppressed only when an
    active entry names every one of its `malicious_advisories`. A package whose every finding is
    suppressed takes the status it would have without them (`deprecated`, `unchecked`, `ok`) and
    lists the suppressed ids in `suppressed`. Expired entries apply to nothing and are returned.
    """
    active = _index(e for e in entries if e.active(today))
    expired = tuple(e for e in entries if not e.active(today))
    out: list[dict[str, Any]] = []
    count = 0
    for pkg in packages:
        if not pkg.get("vulnerabilities") and not pkg.get("malicious"):
            out.append(pkg)  # nothing to mark: most packages of a large lockfile
            continue
        vulns = []
        hidden: list[str] = []
        for vuln in pkg.get("vulnerabilities") or []:
            hit = _match([vuln["id"], *(vuln.get("aliases") or [])], active)
            marked = {**vuln, "suppressed": hit is not None}
            if hit is not None:
                marked["suppression"] = hit.wire()
                hidden.append(vuln["id"])
            vulns.append(marked)
        item = {**pkg, "vulnerabilities": vulns}
        mal_ids = list(pkg.get("malicious_advisories") or [])
        if pkg.get("malicious") and mal_ids and all(_match([m], active) for m in mal_ids):
            item["malicious_suppressed"] = True
            item["malicious_suppression"] = [
                hit.wire() for m in mal_ids if (hit := _match([m], active))
            ]
            hidden.extend(mal_ids)
        if hidden:
            count += len(hidden)
            item["suppressed"] = hidden
            item["status"] = _status_without(item)
        out.append(item)
    return Applied(tuple(out), count, expired)


def _status_without(item: Mapping[str, Any]) -> str:
    """The audit status of `item` counting only findings that are not suppressed."""
    if item.get("malicious") and not item.get("malicious_suppressed"):
        return "malicious"
    if any(not v.get("suppressed") for v in item.get("vulnerabilities") or []):
        return "vulnerable"
    if item.get("deprecated"):
        return "deprecated"
    if item.get("vulnerability_status") == "unavailable":
        return "unchecked"
    return "ok"


def open_findings(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The findings of an audit item that are not suppressed."""
    return [v for v in item.get("vulnerabilities") or [] if not v.get("suppressed")]


def expired_note(entry: Suppression) -> str:
    """The warning for an expired entry: it names the id and the date and says it applies again."""
    where = f" ({entry.source})" if entry.source else ""
    return (
        f"the suppression of {entry.id}{where} expired on {entry.until}: "
        f"the advisory counts again (reason was: {entry.reason})"
    )

"""
`BulkCheckService`: up to 100 (ecosystem, package[, version]) pairs answered from the database only.

Status per item, first match wins:

1. `stdlib`: the name is in the ecosystem's standard library (`knowledge/stdlib`): nothing to install.
2. `malicious`: a malicious-package report affects the version asked, or — without a version — the
   latest release in the name index, or no clean release is known (the name left the index after
   the report, or the index has no version for it); `review_advisory` marks mainstream packages
   (`scoring.verdicts.malicious_status`).
3. `typosquat_suspect`: imitates a far more popular name (`NameService.typosquat`: omission,
   repetition, transposition, adjacent key, homoglyph, delimiter, scope, combosquat, version
   suffix), not established itself; or a registered name reported as invented by language models.
4. `historical_incident`: reports exist, but the version asked (or the latest) is outside all of them.
   Curated past compromises (`knowledge/compromises`) count as reports: a release they name is
   `malicious` (2.), a package they name is otherwise `historical_incident`; they never downgrade.
5. `exists`: in the name index (or seen by a live report).
6. `unknown`: none of the above is known — not "absent": the caller may fall back to `/api/check`.

Each item but `stdlib` says how far its malicious check reaches: `malicious_checked` and
`malicious_data` (`complete`, `stale`, `partial`, `unavailable`: `domain/freshness.py`); the answer's
`malicious_data`, `malicious_data_as_of` and `malicious_data_sources` (`BulkCheckService.malicious_data`)
are the worst over the ecosystems asked, with the date of stale data.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

from pkgintel.domain.freshness import Freshness, freshness
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.knowledge.stdlib import backport_on_registry, is_stdlib
from pkgintel.services.advisories.compromises import bulk_status
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.services.advisories.verdicts import VerdictService
from pkgintel.services.names.service import NameService

MAX_ITEMS = 100


class BulkCheckService:
    """See the module contract."""

    def __init__(
        self,
        names: NameService,
        advisories: AdvisoryService,
        verdicts: VerdictService | None = None,
    ) -> None:
        self._names = names
        self._advisories = advisories
        self._verdicts = verdicts or VerdictService(advisories)

    async def malicious_data(self, ecosystems: list[Ecosystem]) -> Freshness:
        """The malicious-package data the statuses of `ecosystems` rest on: the worst status
        (`domain/freshness.py`; `unavailable` when an ecosystem has none) with, when stale, the date
        and the stale feeds."""
        found = await asyncio.gather(
            *(self._advisories.malicious_data(eco) for eco in dict.fromkeys(ecosystems))
        )
        return freshness(
            [status for status, _ in found],
            [src for _, sources in found for src in sources],
            kinds=("malicious",),
        )

    async def check(self, items: list[tuple[Ecosystem, str, str | None]]) -> list[dict[str, Any]]:
        """One answer per item, in order. Never calls a registry."""
        by_eco: dict[Ecosystem, list[str]] = defaultdict(list)
        for eco, name, _ in items:
            by_eco[eco].append(name)
        ecosystems = list(by_eco)
        data = dict(
            zip(
                ecosystems,
                await asyncio.gather(*(self._advisories.malicious_data(e) for e in ecosystems)),
                strict=True,
            )
        )
        looked_up = await asyncio.gather(
            *(self._names.known_many(eco, by_eco[eco]) for eco in ecosystems),
            *(
                self._advisories.malicious_names(eco, [normalise_name(eco, n) for n in by_eco[eco]])
                for eco in ecosystems
            ),
        )
        known: dict[Ecosystem, Any] = dict(
            zip(ecosystems, looked_up[: len(ecosystems)], strict=True)
        )
        flagged: dict[Ecosystem, Any] = dict(
            zip(ecosystems, looked_up[len(ecosystems) :], strict=True)
        )
        await asyncio.gather(
            *(
                self._advisories.prefetch(eco, sorted(names))
                for eco, names in flagged.items()
                if names
            ),
            # Names the index lacks are compared with the whole index: one query per ecosystem
            # for all of them instead of one per item.
            *(
                self._names.prefetch_wide(
                    eco, [(n, known[eco][0].get(normalise_name(eco, n))) for n in by_eco[eco]]
                )
                for eco in ecosystems
                if known[eco][1] is not None
            ),
        )
        out = []
        for eco, name, version in items:
            out.append(await self._one(eco, name, version, known[eco], flagged[eco], data[eco][0]))
        return out

    async def _one(
        self,
        eco: Ecosystem,
        name: str,
        version: str | None,
        known: tuple[dict[str, Any], Any],
        flagged: set[str] | None,
        malicious_data: str,
    ) -> dict[str, Any]:
        """`flagged`: the normalised names with a malicious report (None: no reports loaded); only
        those are looked at further, the others have nothing a report could say. `malicious_data`:
        the status of the ecosystem's malicious-package data (`AdvisoryService.malicious_data`)."""
        entries, state = known
        key = normalise_name(eco, name)
        entry = entries.get(key)
        base: dict[str, Any] = {
            "ecosystem": eco.value,
            "package": name,
            "version": version,
            "purl": purl_of(eco, name, version),
        }
        if is_stdlib(eco, name):
            note = (
                "part of the standard library; a same-named backport also exists on the registry"
                if backport_on_registry(eco, name)
                else "part of the standard library: nothing to install"
            )
            return {**base, "status": "stdlib", "reason": note}
        historical: dict[str, Any] | None = None
        base["malicious_checked"] = flagged is not None
        base["malicious_data"] = malicious_data
        if flagged and key in flagged:
            mal = await self._advisories.malicious(eco, name, version)
            if mal.advisories:
                ids = [a["id"] for a in mal.advisories]
                monthly = entry.monthly_downloads if entry is not None else None
                verdict = await self._verdicts.malicious_verdict(
                    eco,
                    name,
                    mal,
                    version=version,
                    latest_version=entry.latest_version if entry is not None else None,
                    # Gone: the name index is loaded and no longer lists it (removed after the report).
                    # (a partial index, the shipped popularity snapshot, proves no absence)
                    package_gone=state is not None and not state.partial and entry is None,
                    weekly_downloads=round(monthly * 7 / 30.44) if monthly is not None else None,
                )
                if verdict.status == "malicious":
                    return {
                        **base,
                        "status": "malicious",
                        "reason": verdict.reason,
                        "advisories": ids,
                        "judged_version": verdict.judged_version,
                        "review_advisory": verdict.review_advisory,
                    }
                historical = {
                    **base,
                    "status": "historical_incident",
                    "reason": verdict.reason,
                    "advisories": ids,
                    "judged_version": verdict.judged_version,
                }
        if historical is None:
            curated = bulk_status(eco, name, version or (entry.latest_version if entry else None))
            if curated is not None:
                status, why, matches = curated
                row = {
                    **base,
                    "status": status,
                    "reason": why,
                    "advisories": [],
                    "incidents": [m.incident.id for m in matches],
                    "sources": [m.incident.sources[0] for m in matches],
                    "judged_version": version or (entry.latest_version if entry else None),
                }
                if status == "malicious":
                    return {**row, "review_advisory": False}
                historical = row
        if state is not None:
            hint = await self._names.typosquat(eco, name, entry, lookup=False)
            if hint.is_suspected:
                return {
                    **base,
                    "status": "typosquat_suspect",
                    "reason": hint.reason,
                    "similar_to": [n for n, _ in hint.targets[:3]],
                    "techniques": [m.technique for m in hint.matches if m.suspected][:3],
                    **({"slopsquat": hint.slopsquat.facts()} if hint.slopsquat is not None else {}),
                }
        if historical is not None:
            return historical
        if entry is not None:
            return {
                **base,
                "status": "exists",
                "reason": "in the name index",
                "latest_version": entry.latest_version,
            }
        reason = (
            f"no {eco.value} name index is loaded: use /api/check"
            if state is None
            else f"not among the most popular {eco.value} names of the shipped snapshot, which "
            "is all the name index holds yet: use /api/check"
            if state.partial
            else f"not in the {eco.value} name index (it may be new or absent): use /api/check"
        )
        return {**base, "status": "unknown", "reason": reason}

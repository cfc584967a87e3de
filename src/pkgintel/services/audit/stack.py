"""
`StackService`: the audit of a proposed dependency stack (`POST /api/ai/stack`, MCP), from the
database only.

Per package a verdict, and action items ordered by severity (replace, upgrade, review, remove,
remove_duplicate, pin, verify), one per package and action. The rules (`docs/scoring.md`, "How a
verdict is reached"):

- Malicious, typosquat suspect and standard-library names come from `BulkCheckService`.
- A package without a version is judged at its latest release (from the name index, else from stored
  registry data), and the verdict says so; with no latest known it is `unknown`, never `ok`.
- Vulnerabilities of the judged version: none loaded for the ecosystem → `unknown` with a `review`
  item (absence of data is not absence of risk). Blocking advisories (effective severity medium or
  worse) → `vulnerable`, with an upgrade to a **published** release checked against every advisory
  (`VerdictService.upgrade_plan`) when the release list is stored, naming what it clears; otherwise
  no target is invented.
- `ok` only when the malicious check ran, vulnerability data covered the version and nothing blocks.
  Each judged package's `vulnerabilities` carry the data's `status` (`stale` on old data, with
  `data_as_of`), and `vulnerability_data` sums them up (`domain/freshness.py`): an `ok` on stale data
  says so.
- Compatibility (`CompatService`, registry metadata, cached): declared and curated conflicts among the
  versioned packages become `upgrade` items (to the resolver's suggestion) or `review` items; metadata
  that is unavailable is a `review`, never "compatible".
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.freshness import Freshness, freshness, iso
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.purl import purl_of
from pkgintel.domain.releases import resolve_version
from pkgintel.domain.versions import is_valid, sort_key
from pkgintel.scoring.verdicts import VERDICT_GATE, at_or_above
from pkgintel.services.advisories.verdicts import VerdictService, with_published_fixes
from pkgintel.services.advisories.vulnerabilities import AdvisoryLookup, VulnerabilityReport
from pkgintel.services.audit.bulk import BulkCheckService
from pkgintel.services.knowledge.compatibility import CHECKED as COMPAT_ECOSYSTEMS
from pkgintel.services.knowledge.compatibility import CompatService, Suggestion
from pkgintel.services.packages.service import PackageService
from pkgintel.transport.memo import one_answer

ACTION_RANK = {
    "replace": 0,
    "upgrade": 1,
    "review": 2,
    "remove": 3,
    "remove_duplicate": 4,
    "pin": 5,
    "verify": 6,
}


@dataclass(frozen=True, slots=True)
class StackAudit:
    """Verdicts in input order, action items by severity."""

    packages: tuple[dict[str, Any], ...]
    action_items: tuple[dict[str, Any], ...]
    compatibility: list[dict[str, Any]] = field(default_factory=list)
    """Per ecosystem checked: `compatible` (true/false/null), the conflict count, what was unavailable."""
    vulnerability_data: Freshness | None = None
    """The advisory data the verdicts rest on (worst status, date of stale data); None when no
    package was judged on advisories (all malicious, typos, stdlib or without a known version)."""


def _forward_fix(
    eco: Ecosystem, stack: dict[str, str], suggestions: Sequence[Suggestion]
) -> dict[str, str]:
    """The resolver suggestion to act on: the one that moves the most packages *up* (an agent
    should not be told to downgrade when an upgrade also resolves the conflict), then the fewest
    changes."""

    def score(s: Suggestion) -> tuple[int, int]:
        ups = sum(
            1
            for name, version in s.changes.items()
            if name in stack and _key(eco, version) > _key(eco, stack[name])
        )
        return (-ups, len(s.changes))

    return min(suggestions, key=score).changes if suggestions else {}


def _key(eco: Ecosystem, version: str) -> tuple[Any, ...]:
    try:
        return sort_key(eco, version)
    except (ValueError, TypeError):
        return (-1,)


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


class StackService:
    """See the module contract."""

    def __init__(
        self,
        bulk: BulkCheckService,
        advisories: AdvisoryLookup,
        packages: PackageService,
        verdicts: VerdictService,
        *,
        compat: CompatService | None = None,
    ) -> None:
        self._bulk = bulk
        self._advisories = advisories
        self._packages = packages
        self._verdicts = verdicts
        self._compat = compat

    async def audit(self, items: list[tuple[Ecosystem, str, str | None]]) -> StackAudit:
        """Raises `InvalidInput` naming `packages[i].version` for a version the ecosystem cannot parse.
        Every registry document is asked for once per audit (`upstream_memo.one_answer`)."""
        with one_answer():
            return await self._audit(items)

    async def _audit(self, items: list[tuple[Ecosystem, str, str | None]]) -> StackAudit:
        for i, (eco, _, version) in enumerate(items):
            if version is not None and not is_valid(eco, version):
                raise InvalidInput(
                    f"packages[{i}].version",
                    f"{version!r} is not a valid {eco.value} version",
                )
        statuses = await self._bulk.check(items)
        by_eco: dict[Ecosystem, list[str]] = {}
        for eco, name, _ in items:
            by_eco.setdefault(eco, []).append(name)
        stored_maps = await asyncio.gather(
            *(self._packages.stored_many(eco, names) for eco, names in by_eco.items())
        )
        stored = dict(zip(by_eco, stored_maps, strict=True))
        verdicts: list[dict[str, Any]] = []
        reports: list[VulnerabilityReport] = []
        actions: dict[tuple[str, str, str], dict[str, Any]] = {}
        seen: dict[tuple[str, str], str] = {}

        def act(action: str, eco: Ecosystem, name: str, detail: str, **extra: Any) -> None:
            key = (action, eco.value, normalise_name(eco, name))
            if key not in actions:
                actions[key] = {
                    "action": action,
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": detail,
                    **extra,
                }

        for (eco, name, version), status in zip(items, statuses, strict=True):
            ident = (eco.value, normalise_name(eco, name))
            if ident in seen:
                act(
                    "remove_duplicate",
                    eco,
                    name,
                    f"listed more than once (as {seen[ident]!r} before)",
                )
                continue
            seen[ident] = name
            info = stored[eco].get(normalise_name(eco, name))
            verdicts.append(await self._one(eco, name, version, status, info, act, reports))
        compat = await self._compatibility(items, act)
        ordered = sorted(actions.values(), key=lambda a: ACTION_RANK[a["action"]])
        data = (
            freshness([r.status for r in reports], [s for r in reports for s in r.sources])
            if reports
            else None
        )
        return StackAudit(tuple(verdicts), tuple(ordered), compat, data)

    async def _compatibility(
        self, items: list[tuple[Ecosystem, str, str | None]], act: Any
    ) -> list[dict[str, Any]]:
        """
        Declared and curated conflicts among the versioned packages of each ecosystem that
        `CompatService` covers (registry metadata, cached): each conflict becomes a `replace`-free
        `upgrade` or `review` item on the package whose constraint breaks; unknown compatibility is
        said, never read as compatible. Each entry lists its conflicts (`details`: who breaks what,
        declared or curated, the source and, for curated ones, the fix) so that a conflict stays
        visible when the package already has an action item of the same kind. Ecosystems checked against curated breakages only
        (`CURATED_ONLY`) add their conflicts but no "unknown" item per package (their declarations
        are never read, which the entry's `checked` says once).
        """
        if self._compat is None:
            return []
        groups: dict[Ecosystem, dict[str, str]] = {}
        for eco, name, version in items:
            if version is not None and eco in COMPAT_ECOSYSTEMS:
                groups.setdefault(eco, {})[name] = version
        out: list[dict[str, Any]] = []
        for eco, stack in groups.items():
            if len(stack) < 2:
                continue
            try:
                report = await self._compat.check(stack, ecosystem=eco)
            except PkgIntelError as exc:
                out.append({"ecosystem": eco.value, "compatible": None, "reason": exc.message})
                continue
            curated_only = bool(report.unavailable) and all(
                u.reason == "unsupported" for u in report.unavailable
            )
            out.append(
                {
                    "ecosystem": eco.value,
                    "compatible": report.compatible,
                    "conflicts": len(report.conflicts),
                    "unavailable": [u.package for u in report.unavailable],
                    "details": [
                        {
                            "package": c.package,
                            "version": c.package_version,
                            "requires": c.requires,
                            "found_version": c.found_version,
                            "origin": c.origin,
                            "source": c.source,
                            "message": c.message,
                            "fix": c.fix or None,
                        }
                        for c in report.conflicts
                    ],
                }
                | ({"checked": "curated breakages only"} if curated_only else {})
            )
            fix = _forward_fix(eco, stack, report.suggestions)
            for conflict in report.conflicts:
                target = fix.get(conflict.package) or fix.get(conflict.requires)
                moved = conflict.package if conflict.package in fix else conflict.requires
                detail = conflict.message or (
                    f"{conflict.package} {conflict.package_version} requires {conflict.requires} "
                    f"{conflict.constraint}, found {conflict.found_version}"
                )
                extra = {"source": conflict.source, "origin": conflict.origin}
                if target:
                    act(
                        "upgrade",
                        eco,
                        moved,
                        f"compatibility: {detail}; use {moved} {target}",
                        to=target,
                        **extra,
                    )
                else:
                    act("review", eco, conflict.package, f"compatibility: {detail}", **extra)
            if report.compatible is None and not curated_only:
                names = ", ".join(u.package for u in report.unavailable) or "some packages"
                for u in report.unavailable or ():
                    act(
                        "review",
                        eco,
                        u.package,
                        f"compatibility unknown: the metadata of {names} is unavailable"
                        + (f" ({u.message})" if u.reason == "metadata_unavailable" else ""),
                    )
                for w in report.warnings:
                    if w.kind == "unevaluable":
                        act("review", eco, w.package, f"compatibility unknown: {w.message}")
        return out

    async def _one(
        self,
        eco: Ecosystem,
        name: str,
        version: str | None,
        status: dict[str, Any],
        info: PackageInfo | None,
        act: Any,
        reports: list[VulnerabilityReport],
    ) -> dict[str, Any]:
        """The verdict of one package; the vulnerability report it was judged on goes to `reports`."""
        st = status["status"]
        verdict: dict[str, Any] = {
            "ecosystem": eco.value,
            "package": name,
            "version": version,
            "purl": purl_of(eco, name, version),
            "status": st,
            "reason": status["reason"],
        }
        if st == "malicious":
            verdict["verdict"] = "do_not_use"
            act(
                "replace",
                eco,
                name,
                "reported malicious: "
                + (", ".join(status.get("advisories", [])) or status["reason"]),
            )
            return verdict
        if st == "typosquat_suspect":
            verdict["verdict"] = "likely_typo"
            act("replace", eco, name, f"did you mean {', '.join(status.get('similar_to', []))}?")
            return verdict
        if st == "stdlib":
            verdict["verdict"] = "builtin"
            act("remove", eco, name, status["reason"])
            return verdict
        if st == "historical_incident":
            act("review", eco, name, status["reason"])

        judged = version
        if judged is None:
            judged = status.get("latest_version") or (info.latest_version if info else None)
            verdict["judged_version"] = judged
            verdict["judged_at"] = "latest" if judged else None
            act("pin", eco, name, "no version given: pin one (see /api/pin_safe)")
        elif info is not None:
            judged = resolve_version(info, judged)
            verdict["judged_version"] = judged
        else:
            verdict["judged_version"] = judged
        if judged is None:
            verdict["verdict"] = "unknown"
            reason = (
                "no version given and the latest release is not known"
                if st != "unknown"
                else status["reason"]
            )
            verdict["reason"] = reason
            act("verify", eco, name, reason)
            return verdict

        report = await self._advisories.for_version(eco, name, judged)
        report = with_published_fixes(report, eco, info.releases if info else None)
        reports.append(report)
        blocking = [d for d in report.details if at_or_above(d, VERDICT_GATE)]
        verdict["vulnerabilities"] = {
            "status": report.status,
            "count": len(report.details),
            "blocking": len(blocking),
            "ids": [d["id"] for d in report.details],
            "stale": report.stale,
            "data_as_of": iso(report.data_as_of),
        }
        if report.status == "unavailable":
            verdict["verdict"] = "unknown"
            act(
                "review",
                eco,
                name,
                f"security not verified: {report.reason or 'no advisory data for ' + eco.value}",
            )
            return verdict
        if blocking:
            verdict["verdict"] = "vulnerable"
            found = _plural(len(blocking), "advisory", "advisories")
            if info is None:
                act(
                    "upgrade",
                    eco,
                    name,
                    f"{found} at or above {VERDICT_GATE} affect {judged}; its published releases are "
                    "not stored, so no upgrade target is named: see /api/pin_safe",
                    to=None,
                )
                return verdict
            plan = await self._verdicts.upgrade_plan(eco, info, judged, report)
            if plan.target is not None:
                remaining = (
                    f"; {_plural(len(plan.remaining), 'advisory', 'advisories')} remain in {plan.target}"
                    if plan.remaining
                    else ""
                )
                act(
                    "upgrade",
                    eco,
                    name,
                    f"upgrade to {plan.target}: clears {', '.join(plan.clears[:8])} "
                    f"({found} affect {judged}){remaining}",
                    to=plan.target,
                    clears=list(plan.clears),
                    remaining=[i for i, _ in plan.remaining],
                )
            else:
                act(
                    "replace",
                    eco,
                    name,
                    f"{found} affect {judged} and no published release fixes them ({plan.reason})",
                )
            return verdict
        if st == "unknown":
            verdict["verdict"] = "unknown"
            act("verify", eco, name, status["reason"])
            return verdict
        if not status.get("malicious_checked", True):
            verdict["verdict"] = "unknown"
            act("review", eco, name, "not checked against malicious-package reports")
            return verdict
        verdict["verdict"] = "ok"
        return verdict

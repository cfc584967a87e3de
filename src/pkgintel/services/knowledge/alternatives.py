"""
`AlternativesService`: what to use instead of a deprecated or unhealthy package, and how to migrate.

Alternatives come from, in this order:
1. the registry's own deprecation data: successor names in the deprecation message
   (`domain/knowledge/successors.py`) and, when the adapter has the `SuccessorAware` capability, the
   registry's structured successor field;
2. curated pairs (`knowledge/curated/alternatives.yaml`, loaded by `pkgintel ingest knowledge`),
   each with why and a source link.
Every candidate gets its own current report (fetched concurrently): health score, risk, action. A
candidate the registry does not know is dropped (we never recommend an unpublished name); one whose
report cannot be built now is kept with `status: "unavailable"`. A curated replacement that ships
with the language or framework (`builtin`, e.g. `unittest.mock`) is never looked up on the registry
and has `status: "builtin"`. A package that is healthy and has no stated successor gets an empty
list, never filler.

When the package's own report cannot be built now (registry unreachable, no stored copy, no
adapter) but the curated knowledge names replacements, the answer is the curated one with
`report: None`: a fact written down with its source does not need the registry to be true. With
nothing curated, the report's error is raised as before.

Migration: a curated path when one exists; otherwise a scaffold from live data of both packages,
marked `kind: "generated"`.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pkgintel.domain.errors import InvalidInput, PackageNotFound, PkgIntelError
from pkgintel.domain.knowledge.successors import successors_from_message
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.ecosystems.optional import SuccessorAware
from pkgintel.services.reports.service import PackageReport, ReportService
from pkgintel.storage.base import KnowledgeStore

UNHEALTHY_ACTIONS = frozenset({"find_alternative", "do_not_use"})
MAX_CANDIDATES = 8


@dataclass(frozen=True, slots=True)
class _Proposal:
    why: str
    origin: str
    sources: tuple[str, ...]
    builtin: bool = False


def _curated_proposals(payload: Mapping[str, Any], entry_source: str) -> dict[str, _Proposal]:
    """The curated entry's replacements, in its order."""
    return {
        str(choice["name"]): _Proposal(
            str(choice["why"]),
            "curated",
            tuple(dict.fromkeys((str(choice["source"]), entry_source))),
            bool(choice.get("builtin", False)),
        )
        for choice in payload["alternatives"]
    }


@dataclass(frozen=True, slots=True)
class AlternativeOption:
    name: str
    why: str
    origin: str
    """`registry-deprecation` (the deprecation message), `registry` (a structured registry field) or `curated`."""
    sources: tuple[str, ...]
    status: str
    """`ok`, `unavailable` (its report could not be built now) or `builtin` (ships with the
    language or framework; nothing to install)."""
    report: PackageReport | None

    @property
    def builtin(self) -> bool:
        return self.status == "builtin"


@dataclass(frozen=True, slots=True)
class AlternativesAnswer:
    ecosystem: Ecosystem
    package: str
    report: PackageReport | None
    """None when the report could not be built now and the answer is the curated knowledge alone."""
    needs_replacement: bool
    reason: str
    curated_reason: str | None
    curated_source: str | None
    alternatives: tuple[AlternativeOption, ...]


@dataclass(frozen=True, slots=True)
class MigrationSide:
    name: str
    status: str
    """`ok`, `not_found`, `unavailable` or `builtin` (ships with the language or framework; the
    curated alternatives say so, and the registry is not asked)."""
    report: PackageReport | None
    install: Mapping[str, str]
    uninstall: Mapping[str, str]
    error: PkgIntelError | None = None

    @property
    def detail(self) -> str | None:
        return self.error.message if self.error else None


@dataclass(frozen=True, slots=True)
class MigrationAnswer:
    ecosystem: Ecosystem
    kind: str
    """`curated` or `generated`."""
    source: MigrationSide
    target: MigrationSide
    curated: Mapping[str, object] | None
    """The curated entry (rationale, steps, before, after, differences, estimated_minutes, sources)."""
    notes: tuple[str, ...]


def package_commands(
    ecosystem: Ecosystem, name: str, version: str | None
) -> tuple[dict[str, str], dict[str, str]]:
    """(install, uninstall) commands of the common tools, shell-quoted; empty for ecosystems we do not know."""
    q = shlex.quote
    if ecosystem is Ecosystem.NPM:
        spec = q(f"{name}@{version}" if version else name)
        return (
            {"npm": f"npm install {spec}", "yarn": f"yarn add {spec}", "pnpm": f"pnpm add {spec}"},
            {
                "npm": f"npm uninstall {q(name)}",
                "yarn": f"yarn remove {q(name)}",
                "pnpm": f"pnpm remove {q(name)}",
            },
        )
    if ecosystem is Ecosystem.PYPI:
        spec = q(f"{name}=={version}" if version else name)
        return (
            {"pip": f"pip install {spec}", "uv": f"uv add {spec}", "poetry": f"poetry add {spec}"},
            {
                "pip": f"pip uninstall {q(name)}",
                "uv": f"uv remove {q(name)}",
                "poetry": f"poetry remove {q(name)}",
            },
        )
    if ecosystem is Ecosystem.CARGO:
        spec = q(f"{name}@{version}" if version else name)
        return {"cargo": f"cargo add {spec}"}, {"cargo": f"cargo remove {q(name)}"}
    if ecosystem is Ecosystem.RUBYGEMS:
        ver = f" -v {q(version)}" if version else ""
        return {"gem": f"gem install {q(name)}{ver}", "bundler": f"bundle add {q(name)}"}, {
            "gem": f"gem uninstall {q(name)}",
            "bundler": f"bundle remove {q(name)}",
        }
    if ecosystem is Ecosystem.COMPOSER:
        spec = q(f"{name}:{version}" if version else name)
        return {"composer": f"composer require {spec}"}, {"composer": f"composer remove {q(name)}"}
    if ecosystem is Ecosystem.GO:
        spec = q(f"{name}@v{version.removeprefix('v')}" if version else name)
        return {"go": f"go get {spec}"}, {"go": f"go get {q(name)}@none"}
    if ecosystem is Ecosystem.NUGET:
        ver = f" --version {q(version)}" if version else ""
        return {"dotnet": f"dotnet add package {q(name)}{ver}"}, {
            "dotnet": f"dotnet remove package {q(name)}"
        }
    if ecosystem is Ecosystem.PUB:
        spec = q(f"{name}:{version}" if version else name)
        return {"dart": f"dart pub add {spec}"}, {"dart": f"dart pub remove {q(name)}"}
    return {}, {}


def needs_replacement(report: PackageReport) -> tuple[bool, str]:
    """Whether the report itself says to move away, and why."""
    if report.malicious.is_malicious:
        return True, "the package is reported as malicious"
    if report.health.deprecated or report.deprecated:
        msg = report.deprecated_message or "the registry marks it deprecated"
        return True, f"deprecated: {msg}"
    if report.recommendation.action in UNHEALTHY_ACTIONS:
        return (
            True,
            f"recommendation is {report.recommendation.action} (health {report.health.score}/100)",
        )
    return (
        False,
        f"healthy enough to keep (health {report.health.score}/100, action {report.recommendation.action})",
    )


class AlternativesService:
    """See the module docstring."""

    def __init__(
        self,
        reports: ReportService,
        store: KnowledgeStore,
        adapters: Mapping[Ecosystem, RegistryAdapter],
    ) -> None:
        self._reports = reports
        self._store = store
        self._adapters = adapters

    async def _candidate(
        self, ecosystem: Ecosystem, name: str
    ) -> tuple[str, PackageReport | None] | None:
        try:
            return "ok", await self._reports.get_report(ecosystem, name)
        except PackageNotFound:
            return None
        except PkgIntelError:
            return "unavailable", None

    async def alternatives(self, ecosystem: Ecosystem, name: str) -> AlternativesAnswer:
        """
        Replacements for `name` (see the module docstring). Raises like `ReportService.get_report`
        for the package itself (404 unknown; 503 registry down with nothing cached and nothing
        curated; 501 no adapter and nothing curated).
        """
        name = validate_name(ecosystem, name)
        own = normalise_name(ecosystem, name)
        try:
            report = await self._reports.get_report(ecosystem, name)
        except PackageNotFound:
            raise
        except PkgIntelError as exc:
            rows = await self._store.curated("alternatives", ecosystem, own)
            if not rows:
                raise
            payload = rows[0].payload
            options = await self._options(
                ecosystem, own, _curated_proposals(payload, rows[0].source)
            )
            return AlternativesAnswer(
                ecosystem,
                str(payload.get("package") or name),
                None,
                True,
                f"curated: {payload['reason']} (the registry could not be read now: {exc.message})",
                str(payload["reason"]),
                rows[0].source,
                options,
            )
        info = report.info
        flagged, reason = needs_replacement(report)
        proposals: dict[str, _Proposal] = {}
        own = normalise_name(ecosystem, info.name)
        message = info.deprecated_message or (
            next(
                (
                    r.deprecated
                    for r in info.releases
                    if r.version == info.latest_version and r.deprecated
                ),
                None,
            )
        )
        for succ in successors_from_message(ecosystem, message):
            proposals.setdefault(
                succ,
                _Proposal(
                    f"the registry's deprecation message names it: {message!r}",
                    "registry-deprecation",
                    (),
                ),
            )
        adapter = self._adapters.get(ecosystem)
        if isinstance(adapter, SuccessorAware):
            for succ in adapter.successors(info):
                proposals.setdefault(
                    succ, _Proposal("the registry names it as the successor", "registry", ())
                )
        curated_rows = await self._store.curated("alternatives", ecosystem, own)
        curated_reason = curated_source = None
        if curated_rows:
            row = curated_rows[0]
            curated_reason, curated_source = row.payload["reason"], row.source
            for cand, proposal in _curated_proposals(row.payload, row.source).items():
                proposals.setdefault(cand, proposal)
            if not flagged:
                flagged, reason = True, f"curated: {curated_reason}"
        if not flagged:
            return AlternativesAnswer(ecosystem, info.name, report, False, reason, None, None, ())
        options = await self._options(ecosystem, own, proposals)
        return AlternativesAnswer(
            ecosystem,
            info.name,
            report,
            True,
            reason,
            curated_reason,
            curated_source,
            options,
        )

    async def _options(
        self, ecosystem: Ecosystem, own: str, proposals: Mapping[str, _Proposal]
    ) -> tuple[AlternativeOption, ...]:
        """Each proposal with its current report (concurrently), best first; unknown names dropped."""
        names = [
            n for n, p in proposals.items() if p.builtin or normalise_name(ecosystem, n) != own
        ][:MAX_CANDIDATES]
        looked_up = [n for n in names if not proposals[n].builtin]
        results = dict(
            zip(
                looked_up,
                await asyncio.gather(*(self._candidate(ecosystem, n) for n in looked_up)),
                strict=True,
            )
        )
        options = []
        for cand in names:
            proposal = proposals[cand]
            if proposal.builtin:
                options.append(
                    AlternativeOption(
                        cand, proposal.why, proposal.origin, proposal.sources, "builtin", None
                    )
                )
                continue
            result = results[cand]
            if result is None:
                continue
            status, cand_report = result
            options.append(
                AlternativeOption(
                    cand_report.info.name if cand_report else cand,
                    proposal.why,
                    proposal.origin,
                    proposal.sources,
                    status,
                    cand_report,
                )
            )
        options.sort(
            key=lambda o: (
                o.report is None and not o.builtin,
                bool(o.report and (o.report.health.deprecated or o.report.deprecated)),
                -(o.report.health.score if o.report else 0),
            )
        )
        return tuple(options)

    async def _side(self, ecosystem: Ecosystem, name: str) -> MigrationSide:
        try:
            report = await self._reports.get_report(ecosystem, name)
        except PackageNotFound as exc:
            return MigrationSide(name, "not_found", None, {}, {}, exc)
        except PkgIntelError as exc:
            return MigrationSide(name, "unavailable", None, {}, {}, exc)
        install, _ = package_commands(ecosystem, report.info.name, report.info.latest_version)
        _, uninstall = package_commands(ecosystem, report.info.name, None)
        return MigrationSide(report.info.name, "ok", report, install, uninstall)

    async def _is_builtin(self, ecosystem: Ecosystem, from_key: str, to_pkg: str) -> bool:
        """Whether the curated alternatives of `from_key` name `to_pkg` as built in (nothing to
        install, so never looked up on the registry)."""
        for row in await self._store.curated("alternatives", ecosystem, from_key):
            for choice in row.payload["alternatives"]:
                if choice.get("builtin") and choice["name"] == to_pkg:
                    return True
        return False

    async def migration(self, ecosystem: Ecosystem, from_pkg: str, to_pkg: str) -> MigrationAnswer:
        """
        The curated path from → to, or a generated scaffold. Raises `InvalidInput` when both names are
        the same package, and `PackageNotFound` when there is no curated path and either package is
        unknown to the registry (a scaffold needs both).
        """
        from_pkg, to_pkg = validate_name(ecosystem, from_pkg), validate_name(ecosystem, to_pkg)
        a, b = normalise_name(ecosystem, from_pkg), normalise_name(ecosystem, to_pkg)
        if a == b:
            raise InvalidInput("to_pkg", "from and to name the same package")
        if await self._is_builtin(ecosystem, a, to_pkg):
            rows, source = await asyncio.gather(
                self._store.curated("migration", ecosystem, a, b),
                self._side(ecosystem, from_pkg),
            )
            target = MigrationSide(to_pkg, "builtin", None, {}, {})
        else:
            rows, source, target = await asyncio.gather(
                self._store.curated("migration", ecosystem, a, b),
                self._side(ecosystem, from_pkg),
                self._side(ecosystem, to_pkg),
            )
        if rows:
            return MigrationAnswer(
                ecosystem,
                "curated",
                source,
                target,
                rows[0].payload,
                (
                    "curated path written from the sources listed; live facts of both packages beside it",
                ),
            )
        for side in (source, target):
            if side.error is not None:
                raise side.error
        notes = [
            "generated from the registries' data of both packages; not a curated migration guide",
            "no before/after code: we only show code a person has checked",
        ]
        if source.report and target.report:
            if source.report.license.license != target.report.license.license:
                notes.append(
                    f"licence changes from {source.report.license.license or 'unknown'} to "
                    f"{target.report.license.license or 'unknown'}"
                )
            deps_a = {d.name for d in source.report.info.dependencies}
            if normalise_name(ecosystem, target.name) in {
                normalise_name(ecosystem, d) for d in deps_a
            }:
                notes.append(f"{source.name} already depends on {target.name}")
        return MigrationAnswer(ecosystem, "generated", source, target, None, tuple(notes))

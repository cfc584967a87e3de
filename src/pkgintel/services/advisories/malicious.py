"""
`MaliciousService`: the malicious-package answer of `/api/malicious` (and MCP `check_malicious`).

Reports come from the advisory lookup (MAL- reports and advisories that say the package carries
malicious code); the latest release and the weekly downloads come from the registry when it answers,
else from the name index. The status is decided by `scoring.verdicts.malicious_status`: without a
version the answer is about the latest release, and a package gone from the registry after a report
stays `malicious`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.domain.errors import PackageNotFound, PkgIntelError
from pkgintel.domain.packages import Ecosystem
from pkgintel.scoring.verdicts import MaliciousStatus
from pkgintel.services.advisories.verdicts import VerdictService
from pkgintel.services.advisories.vulnerabilities import AdvisoryLookup, MaliciousAnswer
from pkgintel.services.names.service import NameService
from pkgintel.services.packages.service import PackageService

WEEKS_A_MONTH = 30.44 / 7


@dataclass(frozen=True, slots=True)
class MaliciousCheck:
    """The reports, the resolved status and what it was judged against."""

    answer: MaliciousAnswer
    verdict: MaliciousStatus
    latest_version: str | None
    latest_source: str
    """`registry`, `name_index`, `gone` (the registry says it does not exist) or `unknown`."""
    weekly_downloads: int | None


class MaliciousService:
    """See the module contract."""

    def __init__(
        self,
        advisories: AdvisoryLookup,
        names: NameService,
        packages: PackageService,
        verdicts: VerdictService,
    ) -> None:
        self._advisories = advisories
        self._names = names
        self._packages = packages
        self._verdicts = verdicts

    async def check(self, ecosystem: Ecosystem, name: str, version: str | None) -> MaliciousCheck:
        """Never raises for registry trouble: an unreachable registry falls back to the name index."""
        answer = await self._advisories.malicious(ecosystem, name, version)
        latest: str | None = None
        weekly: int | None = None
        source = "unknown"
        gone = False
        if answer.advisories:
            try:
                snapshot = await self._packages.get_snapshot(ecosystem, name)
                latest, weekly, source = (
                    snapshot.info.latest_version,
                    snapshot.weekly_downloads,
                    "registry",
                )
            except PackageNotFound:
                gone, source = True, "gone"
            except PkgIntelError:
                exists = await self._names.exists(ecosystem, name, suggestions=False)
                if exists.entry is not None:
                    latest, source = exists.entry.latest_version, "name_index"
                    monthly = exists.entry.monthly_downloads
                    weekly = round(monthly / WEEKS_A_MONTH) if monthly is not None else None
                elif exists.exists is False:
                    gone, source = True, "gone"
        verdict = await self._verdicts.malicious_verdict(
            ecosystem,
            name,
            answer,
            version=version,
            latest_version=latest,
            package_gone=gone,
            weekly_downloads=weekly,
        )
        return MaliciousCheck(answer, verdict, latest, source, weekly)

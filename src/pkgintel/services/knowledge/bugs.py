"""
`BugService`: known non-CVE bugs per package (harvested from issue trackers by `HarvestService`),
full-text search over them, the packages with most recorded bugs, and the report's `known_issues`.

Database only. A package never harvested answers `status: "not_harvested"` (and `known_issues`
says "unavailable"), so zero bugs is never claimed for a package nobody looked at.
"""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.knowledge.bugs import KnownIssues, summarise
from pkgintel.domain.knowledge.values import HarvestState, StoredBug
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_valid, sort_key, validate_version
from pkgintel.storage.base import KnowledgeStore

MAX_QUERY = 200


@dataclass(frozen=True, slots=True)
class BugVerdict:
    """One bug as it concerns the version asked about."""

    stored: StoredBug
    affects_version: bool | None
    """True: the report names this version; False: fixed before it; None: not known."""


@dataclass(frozen=True, slots=True)
class PackageBugs:
    ecosystem: Ecosystem
    package: str
    version: str | None
    status: str
    """`ok` (harvested), `not_harvested`, `no_repository` or `failed` (last harvest failed)."""
    bugs: tuple[BugVerdict, ...]
    summary: KnownIssues
    harvest: HarvestState | None


def _before(ecosystem: Ecosystem, a: str, b: str) -> bool | None:
    """a < b under the ecosystem's ordering; None when either is not a version there."""
    if not (is_valid(ecosystem, a) and is_valid(ecosystem, b)):
        return None
    return sort_key(ecosystem, a) < sort_key(ecosystem, b)


class BugService:
    """See the module docstring."""

    def __init__(self, store: KnowledgeStore) -> None:
        self._store = store

    async def for_package(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> PackageBugs:
        """
        Bugs of `name`; with `version`, bugs fixed in an earlier version are left out and each bug
        says whether it names that version. Raises `InvalidInput` for an unparseable version.
        """
        if version is not None:
            version = validate_version(ecosystem, version)
        key = normalise_name(ecosystem, name)
        stored = await self._store.bugs(ecosystem, key)
        states = await self._store.harvest_states(ecosystem, key)
        harvest = states.get("bugs")
        verdicts: list[BugVerdict] = []
        for s in stored:
            affects: bool | None = None
            if version is not None:
                fixed = s.bug.fixed_in
                if fixed is not None and (
                    fixed == version or _before(ecosystem, fixed, version) is True
                ):
                    continue
                if version in s.bug.versions:
                    affects = True
            verdicts.append(BugVerdict(s, affects))
        status = harvest.status if harvest else "not_harvested"
        link = (
            f"{harvest.repository}/issues?q=label%3Abug" if harvest and harvest.repository else None
        )
        if harvest is None or harvest.status != "ok":
            scope = (
                "unavailable: this package's issue tracker has not been harvested, so 0 means not checked"
                if harvest is None
                else f"unavailable: the last harvest ended with {harvest.status}"
                + (f" ({harvest.detail})" if harvest.detail else "")
            )
            summary = summarise(
                [v.stored.bug for v in verdicts], link=link, scope=scope, available=False
            )
        else:
            scope = (
                f"issues labelled as bugs in {harvest.repository} (open and recently closed), harvested "
                f"{harvest.harvested_at.date().isoformat()}"
                + (f"; bugs fixed before {version} left out" if version else "")
            )
            summary = summarise([v.stored.bug for v in verdicts], link=link, scope=scope)
        return PackageBugs(ecosystem, key, version, status, tuple(verdicts), summary, harvest)

    async def known_issues(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> KnownIssues:
        """The report's `known_issues` block."""
        return (await self.for_package(ecosystem, name, version)).summary

    async def search(self, query: str, limit: int = 20) -> list[StoredBug]:
        """Bugs matching every word of `query` (prefix match), best first."""
        query = query.strip()
        if not query:
            raise InvalidInput("q", "q must not be empty")
        if len(query) > MAX_QUERY:
            raise InvalidInput("q", f"q must be at most {MAX_QUERY} characters")
        return await self._store.search_bugs(query, limit)

    async def popular(self, limit: int = 100) -> list[tuple[Ecosystem, str, int, int]]:
        """(ecosystem, package, bugs, open bugs), most bugs first."""
        return await self._store.bug_counts(limit)

"""
`CompatService` never says compatible when a declaration could not be read or evaluated (issue 27):
a PyPI snapshot whose requirements are another version's (the latest stored copy serving an old
version while the registry fails) or unknown is not read as "no requirements"; an npm range that
cannot be evaluated leaves the answer unknown, named in the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.application.schemas.compat import compat_wire
from pkgintel.domain.knowledge.compat import PublishedConstraints, Requirement, VersionConstraints
from pkgintel.domain.packages import Dependency, Ecosystem, PackageInfo, Release
from pkgintel.services.knowledge.compatibility import CompatService, pypi_version_constraints

LIB = PackageInfo(
    ecosystem=Ecosystem.PYPI,
    name="lib",
    latest_version="2.0",
    releases=(Release("1.0"), Release("2.0")),
    dependencies=(Dependency("other", ">=5"),),
    dependencies_version="2.0",
    extra={"requires_python": ">=3.12"},
)
OTHER = PackageInfo(
    ecosystem=Ecosystem.PYPI,
    name="other",
    latest_version="1.0",
    releases=(Release("1.0"),),
    dependencies_version="1.0",
)


@dataclass
class Snap:
    info: PackageInfo
    cache_status: str = "miss"


class Stored:
    """Snapshots as `PackageService` serves them when the registry fails: the stored copy of the
    latest release answers for every version it lists (marked stale)."""

    async def get_snapshot(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> Snap:
        return Snap(LIB if name == "lib" else OTHER, "stale")


def test_requirements_of_another_version_are_unread_not_empty() -> None:
    vc = pypi_version_constraints(LIB, "1.0")
    assert vc.requirements == () and vc.engines == {}
    assert set(vc.unread) == {"requires_dist", "requires_python"}
    assert "of 2.0, not 1.0" in vc.unread["requires_dist"]

    own = pypi_version_constraints(LIB, "2.0")
    assert own.unread == {} and own.engines == {"python": ">=3.12"}


def test_unknown_requirements_keep_the_versions_own_requires_python() -> None:
    partial = PackageInfo(
        ecosystem=Ecosystem.PYPI,
        name="lib",
        latest_version="2.0",
        releases=(Release("1.0"), Release("2.0")),
        extra={
            "requires_python": ">=3.6",
            "requires_python_of": "1.0",
            "dependencies_unavailable": "no release document for 1.0",
        },
    )
    vc = pypi_version_constraints(partial, "1.0")
    assert vc.engines == {"python": ">=3.6"}
    assert vc.unread == {"requires_dist": "no release document for 1.0"}


async def test_stale_latest_copy_gives_unknown_not_a_verdict_on_the_latest() -> None:
    """On main: "lib@1.0 needs python >=3.12" from 2.0's metadata, and `other` never checked."""
    report = await CompatService(Stored(), None).check(
        {"lib": "1.0", "other": "1.0", "python": "3.9"}, ecosystem=Ecosystem.PYPI
    )
    assert report.conflicts == [] and report.compatible is None
    [gap] = report.unavailable
    assert (gap.package, gap.reason) == ("lib", "metadata_unavailable")
    assert gap.unread == ("requires_dist", "requires_python")
    assert {s.package: s.status for s in report.sources} == {"lib": "unavailable", "other": "stale"}


class Npm:
    registry_source = "registry.npmjs.org"

    async def fetch_constraints(self, name: str) -> PublishedConstraints:
        declared = {
            "a": VersionConstraints("1.0.0", (Requirement("b", "github:owner/b#v1", "peer"),)),
            "b": VersionConstraints("1.0.0"),
        }
        return PublishedConstraints(
            name, ("1.0.0",), {"1.0.0": declared[name]}, "registry.npmjs.org"
        )


async def test_an_unevaluable_constraint_is_never_compatible() -> None:
    """On main: `compatible: true`, "every declared constraint among these versions holds"."""
    report = await CompatService(Stored(), Npm()).check(
        {"a": "1.0.0", "b": "1.0.0"}, ecosystem=Ecosystem.NPM
    )
    assert report.conflicts == [] and report.unavailable == []
    assert report.compatible is None
    wire = compat_wire(report, public_url="http://test")
    assert wire["verdict"].startswith("unknown: a: cannot evaluate")

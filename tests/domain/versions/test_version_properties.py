"""
Property tests over every ecosystem's version scheme:

- equality agrees with ordering: `versions_equal(a, b)` iff `compare(a, b) == 0`, for versions
  the scheme reads;
- an advisory listing version `v` in `versions` affects exactly the versions that a range
  `introduced v, last_affected v` affects — listed membership and range membership agree;
- nothing raises, whatever the text (oversized digits included).
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pkgintel.domain.advisories import Advisory, Affected, AffectedRange, RangeType
from pkgintel.domain.matching import affects
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import compare, equality_key, is_valid, versions_equal

VERSION = st.from_regex(
    r"\A(v|V|=)?[0-9]{1,3}(\.[0-9]{1,3}){0,3}"
    r"([-._]?(alpha|beta|rc|a|b|c|dev|post|pre|RC|p|patch)([.-]?[0-9]{1,2})?)?"
    r"(\+[a-z0-9]{1,3})?\Z",
    fullmatch=True,
)
POOLS = st.lists(VERSION, min_size=2, max_size=8)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(pool=POOLS, ecosystem=st.sampled_from(list(Ecosystem)))
def test_equality_agrees_with_ordering(pool: list[str], ecosystem: Ecosystem) -> None:
    readable = [v for v in pool if is_valid(ecosystem, v)]
    for a in readable:
        for b in readable:
            assert versions_equal(ecosystem, a, b) == (compare(ecosystem, a, b) == 0), (a, b)
            assert (equality_key(ecosystem, a) == equality_key(ecosystem, b)) == (
                compare(ecosystem, a, b) == 0
            )


def _advisory(
    ecosystem: Ecosystem,
    *,
    versions: frozenset[str] = frozenset(),
    ranges: tuple[AffectedRange, ...] = (),
) -> Advisory:
    affected = Affected(
        osv_ecosystem=ecosystem.value,
        ecosystem=ecosystem,
        name="pkg",
        display_name="pkg",
        ranges=ranges,
        versions=versions,
    )
    return Advisory(
        id="P-1", source="test", affected=(affected,), modified=datetime(2026, 1, 1, tzinfo=UTC)
    )


@SETTINGS
@given(listed=VERSION, pool=POOLS, ecosystem=st.sampled_from(list(Ecosystem)))
def test_listed_membership_agrees_with_range_membership(
    listed: str, pool: list[str], ecosystem: Ecosystem
) -> None:
    if not is_valid(ecosystem, listed):
        return
    by_list = _advisory(ecosystem, versions=frozenset({listed}))
    by_range = _advisory(
        ecosystem,
        ranges=(
            AffectedRange(RangeType.ECOSYSTEM, (("introduced", listed), ("last_affected", listed))),
        ),
    )
    for version in [listed, *pool]:
        if not is_valid(ecosystem, version):
            continue
        assert affects(by_list, ecosystem, version, "pkg") == affects(
            by_range, ecosystem, version, "pkg"
        ), (listed, version)


@settings(max_examples=80, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=40),
        st.integers(min_value=4000, max_value=6000).map(lambda n: "1" * n),
        st.integers(min_value=4000, max_value=6000).map(lambda n: "1.0." + "9" * n),
    ),
    ecosystem=st.sampled_from(list(Ecosystem)),
)
def test_nothing_raises(text: str, ecosystem: Ecosystem) -> None:
    adv = _advisory(
        ecosystem,
        versions=frozenset({"1.0"}),
        ranges=(AffectedRange(RangeType.ECOSYSTEM, (("introduced", "0"), ("fixed", "2.0"))),),
    )
    assert isinstance(affects(adv, ecosystem, text, "pkg"), bool)
    assert isinstance(versions_equal(ecosystem, text, "1.0"), bool)
    compare(ecosystem, text, "1.0")

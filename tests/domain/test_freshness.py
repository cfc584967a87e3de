"""The data-status precedence and the date stated with `stale` (`domain/freshness.py`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pkgintel.domain.freshness import DATA_STATUSES, as_of, freshness, worst_status
from pkgintel.domain.signals.provenance import SourceState, SourceStatus

LOADED = datetime(2026, 11, 20, tzinfo=UTC)


def feed(
    name: str,
    state: SourceState = SourceState.STALE,
    data: datetime | None = None,
    kind: str = "vulnerabilities",
) -> SourceStatus:
    return SourceStatus(name, kind, state, LOADED, None, data)


@pytest.mark.parametrize(
    ("statuses", "worst"),
    [
        ([], "complete"),
        (["complete", "complete"], "complete"),
        (["complete", "stale"], "stale"),
        (["stale", "partial"], "partial"),
        (["partial", "unavailable", "stale"], "unavailable"),
    ],
)
def test_precedence_unavailable_then_partial_then_stale(statuses: list[str], worst: str) -> None:
    assert worst_status(statuses) == worst
    assert DATA_STATUSES == ("complete", "stale", "partial", "unavailable")


def test_unknown_status_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown data status"):
        worst_status(["fine"])


def test_a_stale_feed_makes_complete_stale_with_the_oldest_date() -> None:
    old = datetime(2024, 10, 10, tzinfo=UTC)
    older = datetime(2024, 6, 1, tzinfo=UTC)
    fresh = freshness(
        ["complete"],
        [
            feed("osv:npm", data=old),
            feed("osv-converted:npm", data=older),
            feed("osv:npm", data=old),  # the same feed twice counts once
            feed("ghsa:npm", SourceState.OK, data=LOADED),
        ],
    )
    assert fresh.status == "stale" and fresh.stale
    assert fresh.as_of == older
    assert [s.name for s in fresh.stale_sources] == ["osv-converted:npm", "osv:npm"]
    assert fresh.note() == "vulnerability data stale, as of 2024-06-01 (osv-converted:npm, osv:npm)"
    wire = fresh.sources_wire()
    assert wire[0]["as_of"] == "2024-06-01T00:00:00Z"
    assert wire[0]["fetched_at"] == "2026-11-20T00:00:00Z"


def test_worse_statuses_are_kept_and_still_name_the_stale_feeds() -> None:
    partial = freshness(["partial"], [feed("osv:PyPI", data=datetime(2024, 10, 10, tzinfo=UTC))])
    assert partial.status == "partial" and partial.stale
    assert freshness(["unavailable"], [feed("osv:PyPI")]).status == "unavailable"


def test_fresh_feeds_and_enrichments_do_not_make_data_stale() -> None:
    fresh = freshness(
        ["complete"],
        [
            feed("osv:PyPI", SourceState.OK, data=LOADED),
            feed("cisa-kev", kind="exploited_catalog"),  # KEV is listed in sources, not a feed
        ],
    )
    assert fresh.status == "complete" and not fresh.stale
    assert fresh.as_of is None and fresh.note() is None and fresh.sources_wire() == []


def test_malicious_feeds_count_when_asked_for() -> None:
    source = feed("osv-malicious:npm", kind="malicious")
    assert freshness(["complete"], [source]).status == "complete"
    assert freshness(["complete"], [source], kinds=("malicious",)).status == "stale"


def test_as_of_is_the_newest_record_else_the_load() -> None:
    assert as_of(feed("a", data=datetime(2024, 1, 1, tzinfo=UTC))) == datetime(
        2024, 1, 1, tzinfo=UTC
    )
    assert as_of(feed("b")) == LOADED
    assert freshness(["complete"], [feed("b")]).as_of == LOADED

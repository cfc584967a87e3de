"""Maintainer analysis: bus factor, dominance, ownership changes and alerts, on real npm and
crates.io bodies (`../shared/data/registry-fixtures/`) and small hand-made histories."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from pkgintel.domain.packages import Maintainer
from pkgintel.domain.signals.maintainers import (
    Publication,
    PublisherHistory,
    analyse_maintainers,
    bus_factor,
)
from pkgintel.ecosystems.cargo import parse_publishers as parse_crate_publishers
from pkgintel.ecosystems.npm import parse_packument, parse_publishers
from tests.shared import read_shared_json

T0 = datetime(2020, 1, 1, tzinfo=UTC)


def _npm(name: str):
    data = read_shared_json("registry-fixtures", "npm", f"registry.npmjs.org_{name}")
    info = parse_packument(data)
    history = parse_publishers(data)
    return info, analyse_maintainers(
        info.maintainers, history, latest_version=info.latest_version, registry="registry.npmjs.org"
    )


def test_bus_factor_is_the_fewest_publishers_covering_half():
    assert bus_factor(Counter({"a": 5, "b": 3, "c": 2})) == 1
    assert bus_factor(Counter({"a": 4, "b": 3, "c": 3})) == 2
    assert bus_factor(Counter()) is None


def test_chalk_publishers_from_the_real_packument():
    _, a = _npm("chalk.json")
    assert a.count == 2 and a.count_basis == "accounts"
    assert a.primary_publisher == "sindresorhus"
    assert a.bus_factor == 1
    assert a.dominance == pytest.approx(18 / 25, abs=0.001)
    assert a.releases_with_publisher == 25
    # jbnicolai published 2 releases but no longer has publish rights: listed as a former publisher.
    former = {f.name: f for f in a.accounts if not f.current}
    assert former["jbnicolai"].releases_published == 2
    # qix joined in 1.1.2 (ownership change: added qix, removed jbnicolai, first release by qix)
    change = next(c for c in a.ownership_changes if c.version == "1.1.2")
    assert change.added == ("qix",) and change.removed == ("jbnicolai",)
    assert change.new_publisher == "qix"
    qix = next(f for f in a.accounts if f.name == "qix")
    assert qix.first_seen_version == "1.1.2" and qix.first_seen_at is not None
    assert "bus_factor" not in a.unavailable


def test_react_has_a_bus_factor_of_two_and_no_sole_maintainer_alert():
    _, a = _npm("react.json.gz")
    assert a.bus_factor == 2
    assert a.count == 7
    assert not any(al.code == "sole_maintainer" for al in a.alerts)


def test_etag_sole_maintainer_alert():
    _, a = _npm("etag.json")
    assert a.count == 1
    assert [al.code for al in a.alerts] == ["sole_maintainer"]
    # two old versions carry no _npmUser: counted in the total, not as anyone's releases
    assert a.releases_total == 13 and a.releases_with_publisher == 11


def test_stripped_packument_says_publishers_unavailable():
    data = read_shared_json("registry-fixtures", "npm-live", "registry.npmjs.org_express.json.gz")
    info = parse_packument(data)
    a = analyse_maintainers(
        info.maintainers,
        parse_publishers(data),
        latest_version=info.latest_version,
        registry="registry.npmjs.org",
    )
    assert a.bus_factor is None and a.dominance is None
    assert "names no publisher" in a.unavailable["bus_factor"]


def test_no_history_gives_reasons_not_zeros():
    a = analyse_maintainers(
        (Maintainer("alice", role="owner"), Maintainer("bob", role="owner")),
        None,
        latest_version="1.0",
        registry="pypi.org",
        history_unavailable="pypi.org does not say who published each release",
    )
    assert a.count == 2
    assert a.bus_factor is None
    assert a.unavailable["bus_factor"] == "pypi.org does not say who published each release"
    assert "ownership_changes" in a.unavailable
    assert a.accounts[0].releases_published is None


def test_declared_authors_are_not_accounts():
    a = analyse_maintainers(
        (Maintainer("Jane Doe", "j@example.org", role="author"),),
        None,
        latest_version="1.0",
        registry="pypi.org",
    )
    assert a.count == 1 and a.count_basis == "declared"
    assert not any(al.code == "sole_maintainer" for al in a.alerts)


def _hist(*pubs: tuple[str, str | None, tuple[str, ...] | None]) -> PublisherHistory:
    return PublisherHistory(
        "test",
        tuple(
            Publication(v, T0 + timedelta(days=30 * i), who, m)
            for i, (v, who, m) in enumerate(pubs)
        ),
    )


def test_new_publisher_and_new_maintainer_on_the_latest_release_alert():
    history = _hist(
        ("1.0.0", "alice", ("alice",)),
        ("1.1.0", "alice", ("alice",)),
        ("1.1.1", "mallory", ("alice", "mallory")),
    )
    a = analyse_maintainers(
        (Maintainer("alice"), Maintainer("mallory")),
        history,
        latest_version="1.1.1",
        registry="registry.npmjs.org",
    )
    codes = [al.code for al in a.alerts]
    assert "new_publisher_on_latest" in codes
    assert "maintainers_changed_on_latest" in codes
    assert a.ownership_changes[0].version == "1.1.1"
    assert a.ownership_changes[0].added == ("mallory",)


def test_account_newer_than_the_package_alert_when_the_registry_says():
    history = PublisherHistory(
        "test",
        (Publication("1.0", T0, "alice"), Publication("2.0", T0 + timedelta(days=400), "alice")),
        {"bob": T0 + timedelta(days=100)},
    )
    a = analyse_maintainers(
        (Maintainer("alice"), Maintainer("bob")),
        history,
        latest_version="2.0",
        registry="x",
    )
    assert [al.code for al in a.alerts] == ["account_newer_than_package"]
    assert "account_created_at" not in a.unavailable


def test_crates_published_by_from_the_real_body():
    data = read_shared_json(
        "registry-fixtures", "cargo", "crates.io_api_v1_crates_parameters_lib.json"
    )
    history = parse_crate_publishers(data)
    assert history.publications
    assert {p.publisher for p in history.publications} == {"TheFox"}
    a = analyse_maintainers(
        (Maintainer("TheFox", role="owner"),),
        history,
        latest_version=history.publications[0].version,
        registry="crates.io",
    )
    assert a.bus_factor == 1 and a.dominance == 1.0


def test_crates_without_published_by_has_no_publishers():
    data = read_shared_json("registry-fixtures", "cargo", "crates.io_api_v1_crates_regex.json")
    history = parse_crate_publishers(data)
    assert history.publications and all(p.publisher is None for p in history.publications)

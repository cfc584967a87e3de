"""Quality upstream parsers on recorded bodies (`../shared/data/registry-fixtures/downloads/`) and
the download-trend rule."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.signals.quality import download_trend
from pkgintel.sources.quality import parse_dependents, parse_npm_point, parse_pypistats_recent
from tests.shared import read_shared_json


def test_npm_month_point_from_the_recorded_body():
    body = read_shared_json(
        "registry-fixtures", "downloads", "api.npmjs.org_downloads_point_last-month_base62.json"
    )
    assert parse_npm_point(body) == body["downloads"]
    assert parse_npm_point({"error": "package foo not found"}) is None
    with pytest.raises(RegistryResponseInvalid):
        parse_npm_point({"start": "2026-01-01"})


@pytest.mark.parametrize("name", ["flask", "pip", "yiban"])
def test_pypistats_recent_from_the_recorded_bodies(name: str):
    body = read_shared_json(
        "registry-fixtures", "downloads", f"pypistats.org_api_packages_{name}_recent.json"
    )
    w = parse_pypistats_recent(body)
    assert w.last_week == body["data"]["last_week"]
    assert w.last_month == body["data"]["last_month"]


def test_pypistats_without_data_is_invalid():
    with pytest.raises(RegistryResponseInvalid):
        parse_pypistats_recent({"package": "x"})


def test_dependents_counts_and_missing_counts_stay_unknown():
    # deps.dev v3alpha `:dependents` shape (no recorded body exists; see sources/quality.py)
    d = parse_dependents(
        {"dependentCount": 1200, "directDependentCount": 300, "indirectDependentCount": 900},
        "1.0.0",
    )
    assert (d.total, d.direct, d.indirect, d.version) == (1200, 300, 900, "1.0.0")
    assert parse_dependents({}, "1.0.0").total is None


@pytest.mark.parametrize(
    ("week", "month", "trend"),
    [
        (3000, 8571, "up"),  # weekly average 2000
        (2000, 8571, "stable"),
        (1000, 8571, "down"),
        (10, 50, "insufficient_data"),
        (None, 1000, "insufficient_data"),
    ],
)
def test_download_trend(week: int | None, month: int | None, trend: str):
    assert download_trend(week, month).trend == trend


def test_trend_on_recorded_flask_windows():
    body = read_shared_json(
        "registry-fixtures", "downloads", "pypistats.org_api_packages_flask_recent.json"
    )
    w = parse_pypistats_recent(body)
    t = download_trend(w.last_week, w.last_month)
    assert t.trend in {"up", "down", "stable"}
    assert t.ratio is not None and t.ratio > 0

"""Adapter tests run without the real retry pause (one test in `test_http.py` checks it)."""

from __future__ import annotations

import pytest

from pkgintel.transport import fetch


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_retry_pause: keep `transport.fetch`'s real pause between retries"
    )


@pytest.fixture(autouse=True)
def no_retry_pause(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Zero the retry pause unless the test is marked `real_retry_pause`."""
    if request.node.get_closest_marker("real_retry_pause") is None:
        monkeypatch.setattr(fetch, "RETRY_WAIT_MIN_S", 0.0)
        monkeypatch.setattr(fetch, "RETRY_WAIT_MAX_S", 0.0)

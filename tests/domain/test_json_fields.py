"""`domain.json_fields`: one reading of a JSON field for every adapter, source and parser."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pkgintel.domain.json_fields import as_count, as_datetime, as_list, as_object, as_text


@pytest.mark.parametrize(
    ("value", "expected"),
    [(" MIT ", "MIT"), ("", None), ("   ", None), (None, None), (3, None), (["a"], None)],
)
def test_as_text(value: object, expected: str | None) -> None:
    assert as_text(value) == expected


def test_as_object_and_as_list() -> None:
    body = {"a": 1}
    assert as_object(body) is body
    assert as_object([1]) == {} and as_object(None) == {} and as_object("x") == {}
    items = [1, 2]
    assert as_list(items) is items
    assert as_list({"a": 1}) == [] and as_list(None) == [] and as_list("ab") == []


@pytest.mark.parametrize(
    ("value", "expected"), [(0, 0), (12, 12), (-1, None), (True, None), (1.5, None), ("3", None)]
)
def test_as_count(value: object, expected: int | None) -> None:
    assert as_count(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-01T10:00:00Z", datetime(2024, 3, 1, 10, tzinfo=UTC)),
        (" 2024-03-01T10:00:00 ", datetime(2024, 3, 1, 10, tzinfo=UTC)),
        ("2024-03-01T12:00:00+02:00", datetime(2024, 3, 1, 10, tzinfo=UTC)),
        ("2024-03-01", datetime(2024, 3, 1, tzinfo=UTC)),
        ("2024-03-01T10:00:00z", datetime(2024, 3, 1, 10, tzinfo=UTC)),
        ("0001-01-01T00:00:00+01:00", None),
        ("yesterday", None),
        ("", None),
        (1709287200, None),
        (None, None),
    ],
)
def test_as_datetime_is_aware_utc(value: object, expected: datetime | None) -> None:
    got = as_datetime(value)
    assert got == expected
    if got is not None:
        assert got.utcoffset() == timedelta(0)
        assert got.tzinfo in (UTC, UTC)

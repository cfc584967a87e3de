"""
Reading one field of a decoded JSON body without trusting its type.

Registry and feed bodies are external input: a field may be absent, `null`, or of another type than
documented. Each helper returns the field in the type the caller wants, or an empty value, and never
raises; the adapters, sources and domain parsers all read fields through these, so "missing" means
the same thing everywhere.

| helper        | gives                                                        | otherwise  |
|---------------|--------------------------------------------------------------|------------|
| `as_text`     | a string with its surrounding white space stripped, if any left | None    |
| `as_object`   | a JSON object (any `Mapping`)                                | `{}`       |
| `as_list`     | a JSON array                                                 | `[]`       |
| `as_count`    | a whole number >= 0 (a JSON `true`/`false` is not one)       | None       |
| `as_datetime` | an ISO 8601 timestamp as an aware UTC datetime (no offset = UTC) | None    |
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any


def as_text(value: object) -> str | None:
    """`value` stripped, when it is a string with something left; else None."""
    return (value.strip() or None) if isinstance(value, str) else None


def as_object(value: object) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else a new empty one."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    """`value` when it is a JSON array, else a new empty list."""
    return value if isinstance(value, list) else []


def as_count(value: object) -> int | None:
    """`value` when it is a whole number >= 0 (booleans excluded); else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def as_datetime(value: object) -> datetime | None:
    """An ISO 8601 timestamp (a trailing `Z` or `z` accepted) as an aware UTC datetime; a timestamp
    without an offset is read as UTC. None when absent, not a string, unreadable, or outside the
    years a datetime holds once in UTC."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(text)
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


__all__ = ["as_count", "as_datetime", "as_list", "as_object", "as_text"]

"""
`Answer`: one JSON answer as every door renders it (body, cache policy, volatile keys), and the
`Cache-Control` policies answers pick from. The HTTP door adds the ETag and 304s (`api/http.py`); the
MCP door returns `wire()` as structured content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

PACKAGE_CACHE = "public, max-age=21600, stale-while-revalidate=86400"
STALE_CACHE = "public, max-age=300, stale-while-revalidate=3600"
NO_STORE = "no-store"


@dataclass(frozen=True, slots=True)
class Answer:
    """
    One JSON answer as every door renders it: `body` (the stable part, what the ETag covers),
    `cache_control`, and `volatile` keys (timings, cache markers) added last. The JSON API sends
    `wire()`; the MCP tools return it as structured content.
    """

    body: dict[str, Any]
    cache_control: str = PACKAGE_CACHE
    volatile: dict[str, Any] = field(default_factory=dict)

    def wire(self) -> dict[str, Any]:
        """What both doors send: the body, the volatile keys, and each `_meta.sources` entry with
        its `age_s` and `stale` (`aged_sources`), as `cached_json` sends them."""
        payload = {**self.body, **self.volatile} if self.volatile else self.body
        meta = payload.get("_meta")
        if isinstance(meta, dict) and meta.get("sources"):
            payload = {**payload, "_meta": {**meta, "sources": aged_sources(meta["sources"])}}
        return payload


def aged_sources(
    sources: list[dict[str, Any]], now: datetime | None = None
) -> list[dict[str, Any]]:
    """
    Each `_meta.sources` entry with `age_s` (seconds since `fetched_at`, null when unknown) and
    `stale` (true when served from an older copy). Added after the ETag is computed, so the age
    ticking does not defeat revalidation.
    """
    current = now or datetime.now(UTC)
    out = []
    for source in sources:
        fetched = source.get("fetched_at")
        age: int | None = None
        if isinstance(fetched, str):
            try:
                age = max(0, int((current - datetime.fromisoformat(fetched)).total_seconds()))
            except (TypeError, ValueError):
                age = None
        out.append({**source, "age_s": age, "stale": source.get("status") == "stale"})
    return out

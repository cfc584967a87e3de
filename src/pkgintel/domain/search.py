"""Search results (pure values) and how registry hits and name-index hits are merged."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
MAX_TOKENS = 8


def query_tokens(query: str) -> list[str]:
    """Lower-cased word tokens of a free-text query (at most `MAX_TOKENS`)."""
    return [t.lower() for t in _TOKEN.findall(query)][:MAX_TOKENS]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One package found by a search."""

    name: str
    description: str | None = None
    latest_version: str | None = None
    monthly_downloads: int | None = None
    popularity_rank: int | None = None
    relevance: float = 0.0
    """Source-specific relevance (higher is better); only compared within one source."""
    sources: tuple[str, ...] = field(default_factory=tuple)


def _popularity(hit: SearchHit) -> float:
    """0..1 from monthly downloads (log scale, 100M → 1) or a download rank (1 → 1)."""
    if hit.monthly_downloads:
        return min(1.0, math.log10(hit.monthly_downloads + 1) / 8)
    if hit.popularity_rank:
        return max(0.0, 1.0 - math.log10(hit.popularity_rank) / 5)
    return 0.0


def merge_hits(
    query: str,
    ranked: Sequence[tuple[str, Sequence[SearchHit]]],
    normalise: Callable[[str], str],
    limit: int,
) -> list[SearchHit]:
    """
    Merge ranked lists from several sources into one ranking: each hit scores by its best position
    in any list (reciprocal rank), plus an exact-name bonus, plus popularity; hits found by several
    sources keep every source name and the richest facts.
    """
    wanted = normalise(query.strip())
    merged: dict[str, SearchHit] = {}
    score: dict[str, float] = {}
    for source, hits in ranked:
        for pos, hit in enumerate(hits):
            key = normalise(hit.name)
            rr = 1.0 / (pos + 3)
            prev = merged.get(key)
            if prev is None:
                merged[key] = SearchHit(
                    hit.name,
                    hit.description,
                    hit.latest_version,
                    hit.monthly_downloads,
                    hit.popularity_rank,
                    hit.relevance,
                    (source,),
                )
                score[key] = rr
            else:
                merged[key] = SearchHit(
                    prev.name,
                    prev.description or hit.description,
                    prev.latest_version or hit.latest_version,
                    prev.monthly_downloads or hit.monthly_downloads,
                    prev.popularity_rank or hit.popularity_rank,
                    max(prev.relevance, hit.relevance),
                    (*prev.sources, source) if source not in prev.sources else prev.sources,
                )
                score[key] = max(score[key], rr) + 0.05
    for key, hit in merged.items():
        score[key] += 0.5 * _popularity(hit) + (1.0 if key == wanted else 0.0)
    order = sorted(merged, key=lambda k: (-score[k], k))
    return [merged[k] for k in order[:limit]]

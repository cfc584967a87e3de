"""
Near-miss search over package names: every name within a Damerau-Levenshtein distance `k` of a query.

Pure. Two filters make the search cheap without ever dropping a true match:

1. **Length window.** A name whose length differs from the query's by more than `k` is at distance
   more than `k`, so `NamePool` only looks at names of length `len(query) - k .. len(query) + k`.
2. **Indel prefilter.** Indel distance (insertions and deletions only, bit-parallel in rapidfuzz) is
   far cheaper than Damerau-Levenshtein. If `DL(a, b) <= k`, the characters no edit touches, plus one
   character of each transposed pair, form a common subsequence of length at least
   `max(len(a), len(b)) - k`, so `Indel(a, b) = len(a) + len(b) - 2 * LCS <= 2 * k`. Names above
   `2 * k` are discarded before the exact distance is computed.

On the 20,000 most downloaded npm names this is about 20 times faster than one Damerau-Levenshtein
pass over the whole list, with the same answers (`tests/domain/test_near_names.py` checks both).
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein, Indel


def close_matches(query: str, choices: Sequence[str], k: int) -> list[tuple[int, int]]:
    """
    `(index in choices, distance)` of every choice within Damerau-Levenshtein distance `k` of
    `query`, the query itself included (distance 0), ordered by distance then index.
    """
    if k < 0 or not choices:
        return []
    rough = process.extract(query, choices, scorer=Indel.distance, score_cutoff=2 * k, limit=None)
    if not rough:
        return []
    survivors = [choice for choice, _, _ in rough]
    positions = [idx for _, _, idx in rough]
    exact = process.extract(
        query, survivors, scorer=DamerauLevenshtein.distance, score_cutoff=k, limit=None
    )
    return sorted((positions[idx], int(dist)) for _, dist, idx in exact)


class NamePool:
    """
    A fixed list of names (most popular first) indexed by length for `near`.

    `index_of(name)` gives the position of a name in the list (its first occurrence), or None.
    Windows of names per (length, k) are built on first use and kept; the pool never changes.
    """

    __slots__ = ("_by_length", "_names", "_position", "_windows")

    def __init__(self, names: Sequence[str]) -> None:
        self._names = list(names)
        self._position: dict[str, int] = {}
        self._by_length: dict[int, list[int]] = {}
        for i, name in enumerate(self._names):
            self._position.setdefault(name, i)
            self._by_length.setdefault(len(name), []).append(i)
        self._windows: dict[tuple[int, int], tuple[list[str], list[int]]] = {}

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._position

    def index_of(self, name: str) -> int | None:
        return self._position.get(name)

    def _window(self, length: int, k: int) -> tuple[list[str], list[int]]:
        window = self._windows.get((length, k))
        if window is None:
            indices = sorted(
                i for n in range(length - k, length + k + 1) for i in self._by_length.get(n, ())
            )
            window = ([self._names[i] for i in indices], indices)
            self._windows[(length, k)] = window
        return window

    def near(self, query: str, k: int, limit: int | None = None) -> list[tuple[int, int]]:
        """
        `(pool index, distance)` of the names within distance `k` of `query` other than the query
        itself, nearest first and, at equal distance, most popular first; at most `limit` of them.
        """
        names, indices = self._window(len(query), k)
        found = [(indices[i], dist) for i, dist in close_matches(query, names, k) if dist > 0]
        found.sort(key=lambda hit: (hit[1], hit[0]))
        return found if limit is None else found[:limit]

"""Near-miss search: the filtered search finds exactly what a full Damerau-Levenshtein pass finds."""

from __future__ import annotations

import csv
import io
import random

import pytest
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names.near import NamePool, close_matches
from tests.shared import read_shared_bytes


def damerau_levenshtein(a: str, b: str) -> int:
    """Unrestricted Damerau-Levenshtein (Lowrance-Wagner), written out as the oracle."""
    inf = len(a) + len(b)
    last_row: dict[str, int] = {}
    d = [[inf] * (len(b) + 2) for _ in range(len(a) + 2)]
    for i in range(len(a) + 1):
        d[i + 1][0], d[i + 1][1] = inf, i
    for j in range(len(b) + 1):
        d[0][j + 1], d[1][j + 1] = inf, j
    for i in range(1, len(a) + 1):
        last_match_col = 0
        for j in range(1, len(b) + 1):
            i1, j1 = last_row.get(b[j - 1], 0), last_match_col
            cost = 1
            if a[i - 1] == b[j - 1]:
                cost, last_match_col = 0, j
            d[i + 1][j + 1] = min(
                d[i][j] + cost,
                d[i + 1][j] + 1,
                d[i][j + 1] + 1,
                d[i1][j1] + (i - i1 - 1) + 1 + (j - j1 - 1),
            )
        last_row[a[i - 1]] = i
    return d[len(a) + 1][len(b) + 1]


def brute(query: str, names: list[str], k: int) -> list[tuple[int, int]]:
    return [(i, d) for i, n in enumerate(names) if (d := damerau_levenshtein(query, n)) <= k]


def test_oracle_counts_a_transposition_as_one_edit_and_allows_edits_between() -> None:
    assert damerau_levenshtein("lodash", "lodahs") == 1
    assert damerau_levenshtein("ca", "abc") == 2  # OSA says 3
    assert damerau_levenshtein("requests", "requests") == 0


def mutate(rng: random.Random, word: str, edits: int) -> str:
    chars = list(word)
    for _ in range(edits):
        op = rng.choice("isdt")
        pos = rng.randrange(len(chars) + (op == "i")) if chars else 0
        if op == "i" or not chars:
            chars.insert(pos, rng.choice("abcd-"))
        elif op == "s":
            chars[pos] = rng.choice("abcd-")
        elif op == "d":
            del chars[pos]
        elif pos + 1 < len(chars):
            chars[pos], chars[pos + 1] = chars[pos + 1], chars[pos]
    return "".join(chars)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_close_matches_equals_the_full_search_on_dense_random_names(k: int) -> None:
    # A four-letter alphabet makes near misses (and Indel/DL disagreements) common.
    rng = random.Random(k)
    names = ["".join(rng.choice("abcd-") for _ in range(rng.randint(1, 9))) for _ in range(400)]
    for _ in range(150):
        query = mutate(rng, rng.choice(names), rng.randint(0, 3))
        assert close_matches(query, names, k) == brute(query, names, k), query


def test_close_matches_of_nothing() -> None:
    assert close_matches("react", [], 2) == []
    assert close_matches("react", ["react"], -1) == []


def test_pool_near_orders_by_distance_then_popularity_and_leaves_out_the_name_itself() -> None:
    pool = NamePool(["react", "reacts", "preact", "raect", "redact", "lodash"])
    assert "react" in pool and "vue" not in pool
    assert pool.near("react", 1) == [(1, 1), (2, 1), (3, 1), (4, 1)]
    assert pool.near("reakt", 1) == [(0, 1)]
    assert pool.near("reakt", 2, limit=2) == [(0, 1), (1, 2)]
    assert pool.near("angular", 2) == []


def test_pool_near_equals_the_full_search_on_random_pools() -> None:
    rng = random.Random(11)
    names = ["".join(rng.choice("abcde") for _ in range(rng.randint(2, 12))) for _ in range(600)]
    pool = NamePool(names)
    for _ in range(200):
        query = mutate(rng, rng.choice(names), rng.randint(1, 3))
        k = 2 if len(query) > 8 else 1
        expected = sorted(
            ((i, d) for i, d in brute(query, names, k) if d > 0), key=lambda h: (h[1], h[0])
        )
        assert pool.near(query, k) == expected, query


def test_pool_near_equals_one_full_pass_over_the_real_npm_popular_names() -> None:
    text = read_shared_bytes("names", "npm.tsv.gz").decode()
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))[1:]
    ranked = sorted(
        ((int(r[2]), r[0].lower()) for r in rows if len(r) > 2 and r[2].isdigit()), reverse=True
    )
    names = [n for _, n in ranked[:20000]]
    pool = NamePool(names)
    rng = random.Random(3)
    for word in rng.sample(names, 300):
        query = mutate(rng, word, rng.randint(1, 2))
        k = 2 if len(query) > 8 else 1
        full = process.extract(
            query, names, scorer=DamerauLevenshtein.distance, score_cutoff=k, limit=None
        )
        expected = sorted(((i, int(d)) for _, d, i in full if d > 0), key=lambda h: (h[1], h[0]))
        assert pool.near(query, k) == expected, query


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_pool_near_equals_a_full_pass_for_every_k(k: int) -> None:
    # Dense short names: many names at every distance, so a missed segment shift shows up.
    rng = random.Random(100 + k)
    names = ["".join(rng.choice("abcd") for _ in range(rng.randint(1, 14))) for _ in range(3000)]
    pool = NamePool(names)
    for _ in range(400):
        query = mutate(rng, rng.choice(names), rng.randint(0, k + 1))
        full = process.extract(
            query, names, scorer=DamerauLevenshtein.distance, score_cutoff=k, limit=None
        )
        expected = sorted(((i, int(d)) for _, d, i in full if d > 0), key=lambda h: (h[1], h[0]))
        assert pool.near(query, k) == expected, query

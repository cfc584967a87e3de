"""`domain.names.key_filter.KeyFilter`: never a false negative; false positives near the stated rate."""

from __future__ import annotations

import math
import random
import string

from pkgintel.domain.names.key_filter import BITS_PER_KEY, HASHES, KeyFilter


def _names(rng: random.Random, count: int) -> list[str]:
    return [
        "".join(rng.choices(string.ascii_lowercase + "-", k=rng.randint(4, 20)))
        for _ in range(count)
    ]


def test_every_added_key_passes() -> None:
    keys = _names(random.Random(1), 20_000)
    kept = KeyFilter(keys)
    assert all(kept.might_contain(k) for k in keys)
    assert kept.candidates(keys) == keys
    assert kept.count == len(keys)


def test_false_positives_stay_near_the_bound() -> None:
    rng = random.Random(2)
    keys = set(_names(rng, 20_000))
    others = [n for n in _names(rng, 50_000) if n not in keys]
    rate = len(KeyFilter(keys).candidates(others)) / len(others)
    bound = (1 - math.exp(-HASHES / BITS_PER_KEY)) ** HASHES  # ~1.4 %
    assert rate < 2 * bound
    assert rate > 0  # a filter that passes nothing unknown would be suspicious, not clever


def test_an_empty_filter_passes_nothing() -> None:
    empty = KeyFilter([])
    assert not empty.might_contain("lodash")
    assert empty.candidates(["a", "b"]) == []
    assert empty.size_bytes == 128


def test_keys_added_later_pass_too() -> None:
    rng = random.Random(3)
    first, later = _names(rng, 5_000), _names(rng, 500)
    kept = KeyFilter(first)
    kept.add(later)
    kept.add(later)  # twice: harmless
    assert kept.candidates(first + later) == first + later
    assert kept.count == len(first)

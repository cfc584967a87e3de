"""
`KeyFilter`: which of many candidate keys may be in a set, answered in memory (a Bloom filter).

Pure. The whole-index typosquat probe (`names.wide.wide_variants`) asks the store
about the ~77·n spellings one edit from a name; all but a handful are names nobody registered.
The filter holds the keys that could answer (names with enough downloads to be a target), so only
those that pass reach the database.

**Contract.** `might_contain(key)` is True for every key given to the constructor or to `add` (no
false negatives), and for a key never given it is True with probability at most about
`(1 - e^(-HASHES / BITS_PER_KEY))^HASHES` (~1.4 % with the defaults; the rate grows when `add`
takes many more keys than the filter was built for). Keys are hashed with Python's `hash`, which is
salted per process: a filter is built and used in one process, never stored or sent.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

BITS_PER_KEY: Final = 16
"""Filter bits per key, at least (the size is rounded up to a power of two): 182,000 npm names take
512 KB."""
HASHES: Final = 2
"""Bits set per key (two halves of one 64-bit hash)."""
_MIN_BITS: Final = 1 << 10


class KeyFilter:
    """See the module contract."""

    __slots__ = ("_bits", "_mask", "count")

    def __init__(self, keys: Collection[str]) -> None:
        size = _MIN_BITS
        while size < len(keys) * BITS_PER_KEY:
            size <<= 1
        self._mask = size - 1
        self._bits = bytearray(size >> 3)
        self.count = len(keys)
        for key in keys:
            for bit in self._positions(key):
                self._bits[bit >> 3] |= 1 << (bit & 7)

    def add(self, keys: Iterable[str]) -> None:
        """Add keys (names the index learned after the filter was built); adding one twice is
        harmless. `count` stays the number of keys given to the constructor."""
        bits = self._bits
        for key in keys:
            for bit in self._positions(key):
                bits[bit >> 3] |= 1 << (bit & 7)

    def _positions(self, key: str) -> tuple[int, int]:
        h = hash(key) & 0xFFFFFFFFFFFFFFFF
        return h & self._mask, (h >> 32) & self._mask

    def might_contain(self, key: str) -> bool:
        """False only when `key` was never added."""
        first, second = self._positions(key)
        bits = self._bits
        return bool(
            bits[first >> 3] & (1 << (first & 7)) and bits[second >> 3] & (1 << (second & 7))
        )

    def candidates(self, keys: Iterable[str]) -> list[str]:
        """The keys that may be in the set (all the added ones among them), in the given order."""
        bits, mask, out = self._bits, self._mask, []
        for key in keys:  # `might_contain`, inlined: this runs for ~77·n keys per name
            h = hash(key) & 0xFFFFFFFFFFFFFFFF
            a, b = h & mask, (h >> 32) & mask
            if bits[a >> 3] & (1 << (a & 7)) and bits[b >> 3] & (1 << (b & 7)):
                out.append(key)
        return out

    @property
    def size_bytes(self) -> int:
        return len(self._bits)

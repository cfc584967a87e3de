"""
Cross-ecosystem confusion (pure): the query (or the query without its ecosystem affix, or one edit
from either) is the *brand* of a popular name of another ecosystem (`opencv-python` on PyPI is the
brand `opencv`; `node-opencv` and `opencv.js` on npm borrow it), while the brand is not a popular
name here. `BrandIndex.variants` finds them; technique `cross_ecosystem`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pkgintel.domain.names.affixes import ecosystem_bases
from pkgintel.domain.names.edits import skeleton
from pkgintel.domain.names.near import NamePool

MIN_BRAND: Final = 5
"""A cross-ecosystem brand is at least this long (shorter ones are mostly common words)."""


def brands(name: str) -> list[str]:
    """
    The brands a package name carries, as separator-free keys: the name itself and the name
    without one ecosystem affix (`opencv-python` → `opencv`, `pyopenssl` → `openssl`,
    `node-opencv` → `opencv`), each at least `MIN_BRAND` long. Scoped npm names carry none.
    """
    if name.startswith("@"):
        return []
    keys = []
    for brand in ecosystem_bases(name):
        key = skeleton(brand)
        if len(key) >= MIN_BRAND and key not in keys:
            keys.append(key)
    return keys


@dataclass(frozen=True, slots=True)
class BrandVariant:
    """`query` borrows the brand of the other ecosystem's popular name at `index` (position in that
    ecosystem's list, most popular first)."""

    index: int
    target: str
    brand: str
    edit_distance: int
    """Edits between the query's brand and the target's (0: the same brand)."""
    detail: str
    affixed: bool = False
    """The query carries the brand inside an ecosystem affix (`node-opencv`, `opencv.js`)."""


class BrandIndex:
    """
    The brands (`brands`) of another ecosystem's popular names (most popular first), leaving out
    every brand that is also a brand of a popular name here (`local`): those are this ecosystem's
    own, and the variant model judges imitations of them. `variants(query)` finds the brands the
    query carries exactly or within one edit.
    """

    __slots__ = ("_keys", "_names", "_pool", "_position")

    def __init__(self, names: Sequence[str], local: Sequence[str]) -> None:
        own = {key for name in local for key in brands(name)}
        self._names = list(names)
        position: dict[str, int] = {}
        for i, name in enumerate(self._names):
            for key in brands(name):
                if key not in own:
                    position.setdefault(key, i)
        self._position = position
        self._keys = list(position)
        self._pool = NamePool(self._keys)
        self._pool.prepare(1)

    def __len__(self) -> int:
        return len(self._keys)

    def variants(self, query: str, limit: int = 3) -> list[BrandVariant]:
        """The other ecosystem's popular names whose brand `query` carries (exactly, then within
        one edit), most popular first within each; at most `limit`."""
        found: dict[int, BrandVariant] = {}
        keys = brands(query)
        whole = skeleton(query)
        for key in keys:
            i = self._position.get(key)
            if i is not None and i not in found:
                found[i] = BrandVariant(
                    i, self._names[i], key, 0, f"carries the brand {key!r}", key != whole
                )
        for key in keys:
            for j, dist in self._pool.near(key, 1, limit):
                brand = self._keys[j]
                i = self._position[brand]
                if i not in found:
                    found[i] = BrandVariant(
                        i,
                        self._names[i],
                        brand,
                        dist,
                        f"one edit from the brand {brand!r}",
                        key != whole,
                    )
        ranked = sorted(found.values(), key=lambda v: (v.edit_distance, v.index))
        return ranked[:limit]

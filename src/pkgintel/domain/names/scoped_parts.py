"""
`ScopedParts`: which npm scopes publish a given package part (`arm-dns` → `@azure/arm-dns`), over a
whole name index, in about 16 bytes per scoped name.

Pure. The typosquat check asks it whether an unscoped name is a scoped package with its scope
dropped, under any scope, not only the scopes common among the popular names
(`@azure-rest/agrifood-farming`, `@autorest/modelerfour`).

**Contract.** `names_for(part)` gives every `@scope/part` among the names it was built from, when
at most `MAX_SCOPES` (two) scopes publish that part; a part more scopes publish is a common word
(`utils`, `eslint-config`) and gives nothing. Parts are matched by Python's 64-bit `hash` (salted
per process, so a structure is built and used in one process): a collision can add a name that
does not exist, never drop one that does, so callers confirm the names in the index.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable
from typing import Final

MAX_SCOPES: Final = 2
"""A part published under more scopes than this is a common word, not one package's name (the
structure keeps two scope ids per part)."""

IGNORED_SCOPES: Final = frozenset({"@types"})
"""Scopes whose packages are named after another package (`@types/lodash` types `lodash`): the
unscoped name is the original, not a copy."""


class ScopedParts:
    """See the module contract."""

    __slots__ = ("_first", "_hashes", "_scopes", "_second")

    def __init__(self, names: Iterable[str]) -> None:
        scope_ids: dict[str, int] = {}
        found: dict[int, list[int]] = {}
        for name in names:
            if not name.startswith("@"):
                continue
            scope, slash, part = name.partition("/")
            if not slash or not part or scope in IGNORED_SCOPES:
                continue
            sid = scope_ids.setdefault(scope, len(scope_ids))
            found.setdefault(hash(part), []).append(sid)
        kept = sorted((h, ids) for h, ids in found.items() if len(set(ids)) <= MAX_SCOPES)
        self._hashes = array("q", (h for h, _ in kept))
        self._first = array("i", (ids[0] for _, ids in kept))
        self._second = array("i", (_other(ids) for _, ids in kept))
        self._scopes = list(scope_ids)

    def __len__(self) -> int:
        return len(self._hashes)

    def names_for(self, part: str) -> tuple[str, ...]:
        """`@scope/part` for each scope that publishes `part` (none for a common word)."""
        h = hash(part)
        i = bisect_left(self._hashes, h)
        if i == len(self._hashes) or self._hashes[i] != h:
            return ()
        ids = [self._first[i]] + ([self._second[i]] if self._second[i] >= 0 else [])
        return tuple(f"{self._scopes[sid]}/{part}" for sid in ids)


def _other(ids: list[int]) -> int:
    """The second distinct scope id of `ids`, or -1."""
    return next((sid for sid in ids if sid != ids[0]), -1)

"""
Homebrew ordering (`Version` tokens): alpha < beta < pre < rc < numbers < patch/post, `_N` revision.
`key(version)` never raises.
"""

from __future__ import annotations

import re
from itertools import zip_longest
from typing import Any

from pkgintel.domain.versions.ordered import OrderedVersion

_BREW_VALID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._+~-]*$")
_BREW_TOKEN = re.compile(r"alpha|beta|pre|rc|patch|post|[a-z]+|\d+")
_BREW_RANK = {
    "alpha": 0,
    "a": 0,
    "beta": 1,
    "b": 1,
    "pre": 2,
    "rc": 3,
    "patch": 6,
    "p": 6,
    "post": 6,
}
# Token ranks: alpha 0 < beta 1 < pre 2 < rc 3 < other strings 4 < numbers 5 < patch/post 6.


def _brew_tokens(version: str) -> list[tuple[int, int | str]]:
    tokens: list[tuple[int, int | str]] = []
    raw = _BREW_TOKEN.findall(version.lower())
    for i, tok in enumerate(raw):
        if tok.isdigit():
            tokens.append((5, int(tok)))
        elif tok in ("a", "b", "p") and not (i + 1 < len(raw) and raw[i + 1].isdigit()):
            tokens.append((4, tok))  # a lone letter is a plain string (e.g. openssl 1.0.2a)
        else:
            tokens.append((_BREW_RANK.get(tok, 4), tok if tok not in _BREW_RANK else 0))
    return tokens


def _brew_vs_padding(token: tuple[int, int | str]) -> int:
    # Padding equals a zero number; pre-release tokens sort below it, strings and
    # patch/post tokens above it.
    rank, value = token
    if rank == 5:
        return 1 if value else 0
    return -1 if rank < 4 else 1


def _brew_cmp(a: Any, b: Any) -> int:
    (ta, reva), (tb, revb) = a, b
    for x, y in zip_longest(ta, tb):
        if x is None:
            r = -_brew_vs_padding(y)
        elif y is None:
            r = _brew_vs_padding(x)
        else:
            r = int(x > y) - int(x < y)
        if r:
            return r
    return int(reva > revb) - int(reva < revb)


class HomebrewVersion(OrderedVersion):
    """A parsed Homebrew version (tokens plus `_N` revision)."""

    __slots__ = ()

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        return _brew_cmp(a, b)


def key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not _BREW_VALID.match(v):
        return (0, version)
    revision = 0
    m = re.match(r"^(.*\d.*)_(\d+)$", v)
    if m:
        v, revision = m[1], int(m[2])
    tokens = _brew_tokens(v)
    if not tokens:
        return (0, version)
    return (1, HomebrewVersion((tokens, revision)))


def is_prerelease(version: str) -> bool:
    """True when a token ranks below a release (alpha, beta, pre, rc)."""
    return any(rank < 4 for rank, _ in _brew_tokens(version))

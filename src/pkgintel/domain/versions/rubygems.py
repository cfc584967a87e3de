"""
RubyGems ordering (`Gem::Version`; CocoaPods' `Pod::Version` builds on it): segments compared with
zero padding, strings before numbers, trailing zeros ignored. `key(version)` never raises.
"""

from __future__ import annotations

import re
from typing import Any

_GEM = re.compile(r"^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")
_GEM_SEGMENT = re.compile(r"[0-9]+|[a-zA-Z]+")
_PAD_END = (1, float("-inf"))


def _gem_segments(version: str) -> list[int | str] | None:
    v = version.strip()
    if not _GEM.match(v):
        return None
    v = v.replace("-", ".pre.")
    segments: list[int | str] = [int(s) if s.isdigit() else s for s in _GEM_SEGMENT.findall(v)]
    # canonical_segments: trailing zeros of the release part and of the pre-release part
    # do not count.
    first_str = next((i for i, s in enumerate(segments) if isinstance(s, str)), len(segments))
    release, prerelease = segments[:first_str], segments[first_str:]
    while release and release[-1] == 0:
        release.pop()
    while prerelease and prerelease[-1] == 0:
        prerelease.pop()
    return release + prerelease


def _zero_padded_key(segments: list[Any]) -> tuple[Any, ...]:
    """
    A tuple key for a segment list compared Gem::Version-style: the shorter list is padded with
    zeros, strings sort before numbers.

    Each zero segment is folded into the next segment as a count `z`, so that tuple comparison
    (which ranks a prefix first) gives the padded comparison: number `n` after `z` zeros →
    `(1, -z, n)`; string `s` → `(0, z, s)`; the end of the list → `(1, -inf)`.
    """
    key: list[Any] = []
    zeros = 0
    for s in segments:
        if s == 0 and not isinstance(s, str):
            zeros += 1
        elif isinstance(s, str):
            key.append((0, zeros, s))
            zeros = 0
        else:
            key.append((1, -zeros, s))
            zeros = 0
    key.append(_PAD_END)
    return tuple(key)


def key(version: str) -> tuple[Any, ...]:
    segments = _gem_segments(version)
    if segments is None:
        return (0, version)
    return (1, _zero_padded_key(segments))


def is_prerelease(version: str) -> bool:
    """`Gem::Version#prerelease?`: any letter in the version."""
    return any(c.isalpha() for c in version)

"""
Conda ordering (`conda.models.version.VersionOrder`): epoch `!`, local `+`, `-` read as `_`,
`dev` < letters < numbers < `post`. `parse` and `compare_parsed` are what the conda range grammar
builds on; `key(version)` never raises.
"""

from __future__ import annotations

import re
from itertools import zip_longest
from typing import Any

from pkgintel.domain.versions.ordered import OrderedVersion

_CONDA_VALID = re.compile(r"^[*.+!_0-9a-z]+$")
_CONDA_SPLIT = re.compile(r"([0-9]+|[*]+|[^0-9*]+)")
_CondaPart = int | float | str


def _conda_components(part: str) -> list[list[_CondaPart]] | None:
    if part.endswith("_"):
        pieces = part[:-1].replace("_", ".").split(".")
        pieces[-1] += "_"
    else:
        pieces = part.replace("_", ".").split(".")
    components: list[list[_CondaPart]] = []
    for piece in pieces:
        runs = _CONDA_SPLIT.findall(piece)
        if not runs:
            return None
        comp: list[_CondaPart] = []
        for run in runs:
            if run.isdigit():
                comp.append(int(run))
            elif run == "post":
                comp.append(float("inf"))  # number < post
            elif run == "dev":
                comp.append("DEV")  # '*' < DEV < '_' < 'a' < number (upper case sorts first)
            else:
                comp.append(run)
        components.append(comp if piece[0].isdigit() else [0, *comp])
    return components


def parse(version: str) -> tuple[list[list[_CondaPart]], list[list[_CondaPart]]] | None:
    v = version.strip().lower().replace("-", "_")
    if not v or not _CONDA_VALID.match(v):
        return None
    epoch_split = v.split("!")
    if len(epoch_split) > 2 or not epoch_split[-1]:
        return None
    epoch = epoch_split[0] if len(epoch_split) == 2 else "0"
    if not epoch.isdigit():
        return None
    local_split = epoch_split[-1].split("+")
    if len(local_split) > 2 or not local_split[0]:
        return None
    main = _conda_components(local_split[0])
    local = _conda_components(local_split[1]) if len(local_split) == 2 else []
    if main is None or local is None:
        return None
    return ([[int(epoch)], *main], local)


def compare_parsed(a: Any, b: Any) -> int:
    for t1, t2 in zip(a, b, strict=True):
        v1: Any
        v2: Any
        for v1, v2 in zip_longest(t1, t2, fillvalue=[]):
            for c1, c2 in zip_longest(v1, v2, fillvalue=0):
                if c1 == c2:
                    continue
                if isinstance(c1, str):
                    if not isinstance(c2, str):
                        return -1  # strings sort before numbers
                    return -1 if c1 < c2 else 1
                if isinstance(c2, str):
                    return 1
                return -1 if c1 < c2 else 1
    return 0


class CondaVersion(OrderedVersion):
    """A parsed conda version ordered like conda's `VersionOrder`."""

    __slots__ = ()

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        return compare_parsed(a, b)


def key(version: str) -> tuple[Any, ...]:
    parsed = parse(version)
    if parsed is None:
        return (0, version)
    return (1, CondaVersion(parsed))


_CONDA_PRE = re.compile(r"(?:^|[^a-z])(?:dev|a|alpha|b|beta|rc|c|pre)(?:\d|$|[^a-z])")


def is_prerelease(version: str) -> bool:
    """True when the version names a dev, alpha, beta, rc or pre release."""
    return bool(_CONDA_PRE.search(version.lower()))

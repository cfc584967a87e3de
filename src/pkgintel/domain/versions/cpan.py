"""
CPAN ordering (Perl `version.pm`): decimal (`1.23` = v1.230) or dotted-decimal; `_` marks a developer
(TRIAL) release. `key(version)` never raises.
"""

from __future__ import annotations

import re
from typing import Any

_CPAN_DOTTED = re.compile(r"^(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+(?:\.\d+)*)(?:_\d+)?$")
_CPAN_DECIMAL = re.compile(r"^\d+(?:\.\d*)?(?:_\d+)?$|^\.\d+(?:_\d+)?$")


def key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if _CPAN_DOTTED.match(v):
        parts = [int(p) for p in v.lstrip("v").replace("_", "").split(".")]
    elif _CPAN_DECIMAL.match(v):
        whole, _, frac = v.replace("_", "").partition(".")
        frac += "0" * (-len(frac) % 3)
        parts = [int(whole or 0), *(int(frac[i : i + 3]) for i in range(0, len(frac), 3))]
    else:
        return (0, version)
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()  # v1.2 == v1.2.0
    return (1, tuple(parts))


def is_prerelease(version: str) -> bool:
    """True for a developer (TRIAL) release: one with `_`."""
    return "_" in version

"""
The limits on what a caller may send, declared once for every door (the HTTP parameters and bodies,
the MCP tool arguments, the CLI): how long a package name, a version or a version constraint may
be, the pin_safe choices, and the sizes of the audit bodies. Pure values.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

MAX_NAME_CHARS: Final = 214
"""Longest package name: npm's limit, the tightest of the big registries; longer names exist
nowhere we serve."""

MAX_VERSION_CHARS: Final = 128
"""Longest version a caller may name (a parameter, a body item, a tool argument)."""

MAX_CONSTRAINT_CHARS: Final = 128
"""Longest version constraint of pin_safe (`^X.Y.Z`, `>=1.0,<2.0`, `[2.0,3.0)`, ...)."""

Severity = Literal["critical", "high", "medium", "low"]
"""The severities pin_safe may be asked to stay below."""
SEVERITIES: Final[tuple[str, ...]] = get_args(Severity)
SEVERITY_PATTERN: Final = "^(" + "|".join(SEVERITIES) + ")$"
DEFAULT_MIN_SEVERITY: Final = "high"

MAX_VERSIONS_CHECKED: Final = 500
"""Most versions pin_safe examines, newest first."""
DEFAULT_VERSIONS_CHECKED: Final = 50

MAX_SCAN_PACKAGES: Final = 5000
"""Most entries of a scan's `packages` map."""
MAX_LOCKFILE_KIND_CHARS: Final = 64
MAX_FILENAME_CHARS: Final = 256
"""Longest lockfile (or included file) name of a scan."""


def body_limit_message(limit: int) -> str:
    """What a door says when a scan body (a lockfile) is larger than `limit` bytes."""
    return f"the scan body is limited to {limit:,} bytes"

"""
`OrderedVersion`: a comparable wrapper around a parsed version for schemes whose order is a
three-way comparison rather than a tuple (Maven, conda, Homebrew); subclasses define `_cmp`.
"""

from __future__ import annotations

from typing import Any


class OrderedVersion:
    """A comparable wrapper around a parsed value; subclasses define the three-way `_cmp`."""

    __slots__ = ("parsed",)

    def __init__(self, parsed: Any) -> None:
        self.parsed = parsed

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self._cmp(self.parsed, other.parsed) == 0

    def __lt__(self, other: OrderedVersion) -> bool:
        return self._cmp(self.parsed, other.parsed) < 0

    def __le__(self, other: OrderedVersion) -> bool:
        return self._cmp(self.parsed, other.parsed) <= 0

    def __gt__(self, other: OrderedVersion) -> bool:
        return self._cmp(self.parsed, other.parsed) > 0

    def __ge__(self, other: OrderedVersion) -> bool:
        return self._cmp(self.parsed, other.parsed) >= 0

    def __hash__(self) -> int:
        # Equal versions may parse to different structures; a constant hash stays consistent.
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.parsed!r})"

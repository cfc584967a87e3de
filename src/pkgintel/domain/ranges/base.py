"""
The range-grammar contract: an ecosystem's own constraint syntax in, a membership test out.

A grammar is pure. `parse(text, include_prerelease=...)` reads one constraint written in the
ecosystem's native syntax (`>=2,<3` for PyPI, `^1.2 || 2.x` for npm, ...) and returns a
`VersionRange`; it raises `RangeSyntaxError` naming the constraint when the text is not in the
grammar. `VersionRange.contains(version)` answers with the ecosystem tool's own semantics,
including its pre-release rule, and never raises: a version the scheme cannot read is outside
every range.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from pkgintel.domain.errors import InvalidInput


class RangeSyntaxError(InvalidInput):
    """A constraint that is not in the ecosystem's grammar (→ 422 `field: "constraint"`)."""

    def __init__(self, grammar: str, text: str, why: str) -> None:
        super().__init__("constraint", f"{text!r} is not a valid {grammar} range: {why}")
        self.grammar = grammar
        self.text = text


class VersionRange(Protocol):
    """A parsed constraint."""

    @property
    def text(self) -> str:
        """The constraint as written (stripped)."""
        ...

    def contains(self, version: str) -> bool:
        """True when `version` satisfies the constraint; False (never an exception) otherwise."""
        ...


class RangeGrammar(Protocol):
    """
    One ecosystem's constraint syntax.

    - `name`: a short label used in messages (`PEP 440`, `npm`).
    - `parse(text, include_prerelease)`: the constraint, or `RangeSyntaxError`. With
      `include_prerelease` pre-releases are treated like releases (npm's option of that name;
      PEP 440's `prereleases=True`); without, each tool's default rule applies.
    """

    name: ClassVar[str]

    def parse(self, text: str, *, include_prerelease: bool = False) -> VersionRange: ...

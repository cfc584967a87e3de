"""
What every family of tree rules answers with: `EdgeDecision` (whether a declared dependency is
installed with its parent, and why not) and `UnevaluableRequirement` (a requirement that is not a
version range of its ecosystem). `resolution.py` and each family's rules module import these; none
imports the other's dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EdgeDecision:
    applies: bool
    why: str | None = None
    """Why an edge was left out (a marker that does not hold, a feature-gated crate...)."""


class UnevaluableRequirement(ValueError):
    """The requirement is not a version range of the ecosystem (a git URL, an alias, a tag...)."""

"""Stored package-knowledge values: curated entries, harvest states, stored bugs (pure values)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pkgintel.domain.knowledge.bugs import BugReport
from pkgintel.domain.packages import Ecosystem


@dataclass(frozen=True, slots=True)
class CuratedRow:
    kind: str
    ecosystem: Ecosystem
    package: str
    target: str
    payload: dict[str, Any]
    source: str
    loaded_at: datetime


@dataclass(frozen=True, slots=True)
class HarvestState:
    ecosystem: Ecosystem
    package: str
    kind: str
    repository: str | None
    status: str
    """`ok`, `no_repository`, `failed`."""
    detail: str | None
    items: int
    harvested_at: datetime


@dataclass(frozen=True, slots=True)
class StoredBug:
    ecosystem: Ecosystem
    package: str
    bug: BugReport
    harvested_at: datetime

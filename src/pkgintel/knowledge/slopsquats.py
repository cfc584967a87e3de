"""
Names language models were publicly reported to invent (slopsquat candidates), with their sources.

Data: `slopsquats/names.json` (shipped in the package, read with `importlib.resources`), one entry per
name: `ecosystem`, `name`, `reported_in` (`YYYY-MM` of the report, or null), `source` (URL of the
public report), `meant` (the real package the invented name stands for) and `note` (our own words).
A listed name is only a *slopsquat* once somebody has registered it; the caller decides that from the
registry or the name index, never from this list.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem


@dataclass(frozen=True, slots=True)
class HallucinatedName:
    """One reported LLM-invented name."""

    ecosystem: Ecosystem
    name: str
    reported_in: str | None
    source: str
    meant: str | None
    note: str


@functools.cache
def _entries() -> dict[tuple[Ecosystem, str], HallucinatedName]:
    raw = json.loads(
        resources.files("pkgintel.knowledge").joinpath("slopsquats", "names.json").read_text()
    )
    out: dict[tuple[Ecosystem, str], HallucinatedName] = {}
    for item in raw["entries"]:
        eco = Ecosystem(item["ecosystem"])
        if not str(item.get("source", "")).startswith("https://"):
            raise ValueError(f"slopsquat entry {item['name']!r} has no https source")
        entry = HallucinatedName(
            eco,
            item["name"],
            item.get("reported_in"),
            item["source"],
            item.get("meant"),
            item["note"],
        )
        out[(eco, normalise_name(eco, entry.name))] = entry
    return out


def hallucinated(ecosystem: Ecosystem, name: str) -> HallucinatedName | None:
    """The report naming `name` as LLM-invented in `ecosystem`, if there is one."""
    return _entries().get((ecosystem, normalise_name(ecosystem, name)))


def all_hallucinated() -> list[HallucinatedName]:
    """Every listed name (for tests and documentation)."""
    return list(_entries().values())

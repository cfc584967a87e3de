"""
Curated breakages: incompatibilities between packages (or a package and a runtime) that the
packages' metadata does not declare, as data (`compat/breakages.yaml`), each with a source URL.

Entry: `ecosystem`, `package`, `versions` (range in the ecosystem's syntax), `other` (another package
of the same ecosystem, or a runtime named in `domain.knowledge.compat.RUNTIMES`: `python`, `node`,
`ruby`, `php`, `java`), `other_versions` (range in the ecosystem's syntax; for a runtime, in the
syntax of the runtime's ecosystem), `reason` (what breaks, in our words), `fix` (the versions that
work together again) and `source` (an https URL where the breakage is reported or documented).

Validated when read (`BreakageDataError` names the entry): every field present and non-empty, both
ranges parse in their grammar, the source is https, and no two entries state the same pair of
ranges for the same two names. Read once per process; `load_breakage_index` indexes the entries by
package for the compatibility check.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml

from pkgintel.domain.knowledge.compat import RUNTIMES, Breakage, BreakageIndex, key
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import GRAMMARS, RangeSyntaxError

_FIELDS = ("ecosystem", "package", "versions", "other", "other_versions", "reason", "fix", "source")


class BreakageDataError(ValueError):
    """The data file breaks the format above."""


def parse_breakages(raw: Any) -> tuple[Breakage, ...]:
    """The entries of a parsed data document (`{"breakages": [...]}`), validated as above."""
    if not isinstance(raw, dict) or not isinstance(raw.get("breakages"), list):
        raise BreakageDataError("the document needs a `breakages` list")
    out: list[Breakage] = []
    seen: dict[tuple[str, ...], int] = {}
    for i, item in enumerate(raw["breakages"], start=1):
        if not isinstance(item, dict):
            raise BreakageDataError(f"breakage {i}: not a mapping")
        missing = [f for f in _FIELDS if not str(item.get(f) or "").strip()]
        if missing:
            raise BreakageDataError(f"breakage {i}: missing {', '.join(missing)}")
        try:
            ecosystem = Ecosystem(str(item["ecosystem"]))
        except ValueError as exc:
            raise BreakageDataError(f"breakage {i}: {exc}") from exc
        b = Breakage(
            ecosystem=ecosystem,
            package=str(item["package"]).strip(),
            versions=str(item["versions"]).strip(),
            other=str(item["other"]).strip(),
            other_versions=str(item["other_versions"]).strip(),
            reason=" ".join(str(item["reason"]).split()),
            fix=" ".join(str(item["fix"]).split()),
            source=str(item["source"]).strip(),
        )
        where = f"breakage {i} ({b.package} / {b.other})"
        if not b.source.startswith("https://"):
            raise BreakageDataError(f"{where}: source must be an https URL")
        other_grammar = RUNTIMES.get(b.other, ecosystem)
        for eco, text in ((ecosystem, b.versions), (other_grammar, b.other_versions)):
            grammar = GRAMMARS.get(eco)
            if grammar is None:
                raise BreakageDataError(f"{where}: no range grammar for {eco.value}")
            try:
                grammar.parse(text)
            except RangeSyntaxError as exc:
                raise BreakageDataError(f"{where}: {text!r} is not a {eco.value} range") from exc
        if b.package in RUNTIMES:
            raise BreakageDataError(f"{where}: a runtime goes on the `other` side")
        ident = (
            ecosystem.value,
            key(ecosystem, b.package),
            b.versions,
            key(ecosystem, b.other),
            b.other_versions,
        )
        if ident in seen:
            raise BreakageDataError(f"{where}: duplicates breakage {seen[ident]}")
        seen[ident] = i
        out.append(b)
    return tuple(out)


@functools.cache
def load_breakages() -> tuple[Breakage, ...]:
    """The shipped matrix, validated (raises `BreakageDataError`)."""
    text = (
        resources.files("pkgintel.knowledge")
        .joinpath("compat", "breakages.yaml")
        .read_text("utf-8")
    )
    return parse_breakages(yaml.safe_load(text))


@functools.cache
def load_breakage_index() -> BreakageIndex:
    """The shipped matrix indexed by (ecosystem, package key)."""
    return BreakageIndex.of(load_breakages())

"""
Curated error-to-fix entries: `errors/<toolchain>.yaml`, one file per toolchain, shipped in the
package and loaded into the database by `pkgintel ingest knowledge`.

File shape::

    tool: pip                     # default tool of the entries
    ecosystem: pypi               # default ecosystem
    entries:
      - pattern: "error: externally-managed-environment"
        form: specific            # or generic (quoted identifiers replaced); default specific
        title: pip refuses to install into a distribution-managed Python
        cause: ...                # why it happens, in our own words
        fix: [ "python3 -m venv .venv && .venv/bin/pip install <pkg>", ... ]
        packages: [ {name: pip, versions: ">=23.0.1"} ]
        source: https://peps.python.org/pep-0668/     # or `sources: [...]`
        tool: pip                 # overrides the file's default

`pattern` is normalised on load (`domain.knowledge.error_patterns.normalise_line` in the stated form), so a raw
message line may be written; the stored key is the SHA-256 of the normalised pattern. Every entry
needs a title, a cause, at least one fix step and at least one https source. Two entries with the
same normalised pattern are an error in the data (`KnowledgeDataError`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

import yaml

from pkgintel.domain.knowledge.error_patterns import Form, error_hash, normalise_line
from pkgintel.domain.knowledge.errors import ErrorEntry, InvolvedPackage

_DATA_PACKAGE = "pkgintel.knowledge"
_DATA_FOLDER = "errors"


class KnowledgeDataError(ValueError):
    """A curated data file breaks the format above."""


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise KnowledgeDataError(f"{where}: `{key}` must be a non-empty string")
    return " ".join(value.split())


def _sources(entry: Mapping[str, Any], where: str) -> tuple[str, ...]:
    raw = entry.get("sources", entry.get("source"))
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not items:
        raise KnowledgeDataError(f"{where}: needs `source` or `sources`")
    out: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item.startswith("https://"):
            raise KnowledgeDataError(f"{where}: source {item!r} is not an https URL")
        out.append(item.strip())
    return tuple(out)


def _packages(entry: Mapping[str, Any], ecosystem: str, where: str) -> tuple[InvolvedPackage, ...]:
    raw = entry.get("packages") or []
    if not isinstance(raw, list):
        raise KnowledgeDataError(f"{where}: `packages` must be a list")
    out: list[InvolvedPackage] = []
    for item in raw:
        if isinstance(item, str):
            out.append(InvolvedPackage(name=item, ecosystem=ecosystem))
        elif isinstance(item, Mapping) and isinstance(item.get("name"), str):
            versions = item.get("versions")
            out.append(
                InvolvedPackage(
                    name=item["name"],
                    ecosystem=str(item.get("ecosystem") or ecosystem),
                    versions=str(versions) if versions is not None else None,
                )
            )
        else:
            raise KnowledgeDataError(f"{where}: bad package {item!r}")
    return tuple(out)


def parse_error_file(data: Any, *, origin: str) -> list[ErrorEntry]:
    """Entries of one parsed YAML document; raises `KnowledgeDataError` on a malformed entry."""
    if not isinstance(data, Mapping) or not isinstance(data.get("entries"), list):
        raise KnowledgeDataError(f"{origin}: needs a mapping with an `entries` list")
    default_tool = str(data.get("tool") or "")
    default_eco = str(data.get("ecosystem") or "")
    out: list[ErrorEntry] = []
    for i, raw in enumerate(data["entries"]):
        where = f"{origin} entry {i + 1}"
        if not isinstance(raw, Mapping):
            raise KnowledgeDataError(f"{where}: not a mapping")
        form = Form(str(raw.get("form", "specific")))
        pattern = normalise_line(_text(raw, "pattern", where), form)
        fix_raw = raw.get("fix")
        fix = [fix_raw] if isinstance(fix_raw, str) else fix_raw
        if (
            not isinstance(fix, list)
            or not fix
            or not all(isinstance(s, str) and s.strip() for s in fix)
        ):
            raise KnowledgeDataError(f"{where}: `fix` must be a non-empty list of steps")
        tool = str(raw.get("tool") or default_tool)
        ecosystem = str(raw.get("ecosystem") or default_eco)
        if not tool or not ecosystem:
            raise KnowledgeDataError(f"{where}: no tool/ecosystem")
        out.append(
            ErrorEntry(
                error_hash=error_hash(pattern),
                pattern=pattern,
                form=form,
                ecosystem=ecosystem,
                tool=tool,
                title=_text(raw, "title", where),
                cause=_text(raw, "cause", where),
                fix=tuple(" ".join(s.split()) for s in fix),
                sources=_sources(raw, where),
                packages=_packages(raw, ecosystem, where),
            )
        )
    return out


def check_unique(entries: Iterable[ErrorEntry]) -> list[ErrorEntry]:
    """The entries, or `KnowledgeDataError` naming the first duplicated pattern."""
    seen: dict[str, ErrorEntry] = {}
    for entry in entries:
        if entry.error_hash in seen:
            raise KnowledgeDataError(f"duplicate pattern {entry.pattern!r} ({entry.tool})")
        seen[entry.error_hash] = entry
    return list(seen.values())


@functools.cache
def load_error_knowledge() -> tuple[ErrorEntry, ...]:
    """Every curated entry shipped in the package, validated (read once per process)."""
    folder = resources.files(_DATA_PACKAGE).joinpath(_DATA_FOLDER)
    entries: list[ErrorEntry] = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".yaml", ".yml")):
            data = yaml.safe_load(item.read_text(encoding="utf-8"))
            entries.extend(parse_error_file(data, origin=f"errors/{item.name}"))
    return tuple(check_unique(entries))

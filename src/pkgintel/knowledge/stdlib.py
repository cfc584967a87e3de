"""
Standard-library names per ecosystem: is this name part of the language's own distribution?

The lists are data files, `stdlib/<ecosystem value>.json`, shipped inside the package (read with
`importlib.resources`, so they work from a wheel or zip). Each file has `ecosystem`, `source` (URL of
the authoritative list), `generated_from` (how the list was obtained), `names` (sorted), and
optionally `also_on_registry` (standard names that are *also* real registry packages shipping the
same module, e.g. the PyPI backport `dataclasses`) and `prefix_only` (npm modules that exist only as
`node:<name>`). Ecosystems without a file (Maven, NuGet, ...) have no standard-library names here.

Name comparison follows each ecosystem's rules (`domain.names.rules.normalise_name`): PyPI is
case-insensitive and PEP 503-normalised (`Importlib` = `importlib`; names are project names, so
`os.path` is not `os`), Cargo folds `_`/`-` and case, Julia drops a `.jl` suffix, the others compare
exactly. On npm a `node:` prefix is stripped before comparing (`node:fs` is `fs`); modules in
`prefix_only` match only with the prefix (`node:test` is built in, `test` is an npm package).

Each file is read once, on first use, and cached for the life of the process.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem

_DATA_PACKAGE = "pkgintel.knowledge"
_DATA_FOLDER = "stdlib"
_NODE_PREFIX = "node:"


@dataclass(frozen=True, slots=True)
class StdlibList:
    """One ecosystem's data file, as written (names in their original spelling)."""

    ecosystem: Ecosystem
    source: str
    generated_from: str
    names: frozenset[str]
    also_on_registry: frozenset[str] = frozenset()
    prefix_only: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Index:
    """Normalised lookup keys of one `StdlibList`."""

    listing: StdlibList
    names: frozenset[str]
    also_on_registry: frozenset[str]
    prefix_only: frozenset[str]


def stdlib_ecosystems() -> frozenset[Ecosystem]:
    """The ecosystems that have a standard-library list (one data file each)."""
    folder = resources.files(_DATA_PACKAGE).joinpath(_DATA_FOLDER)
    values = {e.value for e in Ecosystem}
    stems = (entry.name.removesuffix(".json") for entry in folder.iterdir())
    return frozenset(Ecosystem(stem) for stem in stems if stem in values)


def stdlib_list(ecosystem: Ecosystem) -> StdlibList | None:
    """
    The data file of `ecosystem` (with its source and provenance), or None when it has none.

    Raises `ValueError` when the file is malformed: wrong `ecosystem`, empty or unsorted `names`,
    or `also_on_registry`/`prefix_only` naming something that is not in the list.
    """
    index = _index(ecosystem)
    return index.listing if index is not None else None


def stdlib_names(ecosystem: Ecosystem) -> frozenset[str]:
    """The standard-library names of `ecosystem` as listed (empty when it has no list)."""
    listing = stdlib_list(ecosystem)
    return listing.names if listing is not None else frozenset()


def is_stdlib(ecosystem: Ecosystem, name: str) -> bool:
    """
    True when `name` is part of `ecosystem`'s standard library (compared as the module docstring
    says); False for every name of an ecosystem without a list.
    """
    index = _index(ecosystem)
    if index is None:
        return False
    key, prefixed = _key(ecosystem, name)
    return key in index.names or (prefixed and key in index.prefix_only)


def backport_on_registry(ecosystem: Ecosystem, name: str) -> bool:
    """
    True when `name` is a standard-library name that is *also* a registry package shipping the same
    module (a backport or standalone release, e.g. `dataclasses` or `typing` on PyPI, `buffer` on
    npm), so depending on it from the registry can be legitimate. False otherwise, including for
    names that are not standard at all.
    """
    index = _index(ecosystem)
    if index is None:
        return False
    key, _ = _key(ecosystem, name)
    return key in index.also_on_registry


def _key(ecosystem: Ecosystem, name: str) -> tuple[str, bool]:
    """(lookup key, whether an npm `node:` prefix was present)."""
    cleaned = name.strip()
    prefixed = False
    if ecosystem is Ecosystem.NPM and cleaned.startswith(_NODE_PREFIX):
        cleaned, prefixed = cleaned.removeprefix(_NODE_PREFIX), True
    return normalise_name(ecosystem, cleaned), prefixed


@functools.cache
def _index(ecosystem: Ecosystem) -> _Index | None:
    resource = resources.files(_DATA_PACKAGE).joinpath(_DATA_FOLDER, f"{ecosystem.value}.json")
    if not resource.is_file():
        return None
    listing = _parse(ecosystem, json.loads(resource.read_text(encoding="utf-8")))

    def keys(values: frozenset[str]) -> frozenset[str]:
        return frozenset(normalise_name(ecosystem, v) for v in values)

    return _Index(
        listing=listing,
        names=keys(listing.names),
        also_on_registry=keys(listing.also_on_registry),
        prefix_only=keys(listing.prefix_only),
    )


def _parse(ecosystem: Ecosystem, data: dict[str, Any]) -> StdlibList:
    where = f"stdlib/{ecosystem.value}.json"
    if data.get("ecosystem") != ecosystem.value:
        raise ValueError(f"{where}: ecosystem is {data.get('ecosystem')!r}")
    names = data.get("names")
    if not isinstance(names, list) or not names or names != sorted(set(names)):
        raise ValueError(f"{where}: names must be a non-empty, sorted list without repeats")
    also = frozenset(data.get("also_on_registry", ()))
    prefix_only = frozenset(data.get("prefix_only", ()))
    if not also <= set(names):
        raise ValueError(
            f"{where}: also_on_registry names non-standard {sorted(also - set(names))}"
        )
    if prefix_only & set(names):
        raise ValueError(f"{where}: prefix_only overlaps names {sorted(prefix_only & set(names))}")
    return StdlibList(
        ecosystem=ecosystem,
        source=str(data["source"]),
        generated_from=str(data["generated_from"]),
        names=frozenset(names),
        also_on_registry=also,
        prefix_only=prefix_only,
    )

"""Standard-library names: real facts per ecosystem, name comparison rules, and the data files."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.stdlib import (
    _parse,
    backport_on_registry,
    is_stdlib,
    stdlib_ecosystems,
    stdlib_list,
    stdlib_names,
)

E = Ecosystem
DATA = resources.files("pkgintel.knowledge").joinpath("stdlib")
FILES = sorted(entry.name for entry in DATA.iterdir() if entry.name.endswith(".json"))


@pytest.mark.parametrize(
    ("ecosystem", "name"),
    [
        (E.PYPI, "os"),
        (E.PYPI, "json"),
        (E.PYPI, "asyncio"),
        (E.PYPI, "JSON"),  # PyPI names are case-insensitive
        (E.PYPI, "Tkinter"),
        (E.PYPI, "distutils"),  # removed in 3.12, still recognised
        (E.PYPI, "telnetlib"),  # PEP 594, removed in 3.13
        (E.NPM, "fs"),
        (E.NPM, "node:fs"),
        (E.NPM, "path"),
        (E.NPM, "fs/promises"),
        (E.NPM, "node:test"),  # exists only with the prefix
        (E.GO, "net/http"),
        (E.GO, "fmt"),
        (E.GO, "crypto/tls"),
        (E.GO, "encoding/json"),
        (E.GO, "iter"),  # new in Go 1.23
        (E.CARGO, "std"),
        (E.CARGO, "proc_macro"),
        (E.RUBYGEMS, "socket"),
        (E.HACKAGE, "base"),
        (E.HACKAGE, "ghc-prim"),
        (E.HACKAGE, "template-haskell"),
        (E.CRAN, "stats"),
        (E.CRAN, "grDevices"),
        (E.JULIA, "LinearAlgebra"),
        (E.JULIA, "Dates.jl"),  # Julia names may carry `.jl`
        (E.JULIA, "Base"),
    ],
)
def test_standard_names(ecosystem: Ecosystem, name: str) -> None:
    assert is_stdlib(ecosystem, name)


@pytest.mark.parametrize(
    ("ecosystem", "name"),
    [
        (E.PYPI, "requests"),
        (E.PYPI, "enum34"),  # a backport under another name is an ordinary PyPI project
        (E.PYPI, "os.path"),  # compared as a project name, not a module path
        (E.NPM, "test"),  # the npm package, not node:test
        (E.NPM, "express"),
        (E.NPM, "node:left-pad"),
        (E.GO, "github.com/gorilla/mux"),
        (E.GO, "golang.org/x/net"),  # vendored in GOROOT, but a module of its own
        (E.GO, "internal/poll"),  # not importable
        (E.CARGO, "serde"),
        (E.RUBYGEMS, "rails"),
        (E.RUBYGEMS, "json"),  # a default gem, also on rubygems.org: deliberately not listed
        (E.HACKAGE, "aeson"),
        (E.CRAN, "ggplot2"),
        (E.CRAN, "MASS"),  # recommended, on CRAN
        (E.CRAN, "Stats"),  # CRAN names are case-sensitive
        (E.JULIA, "Statistics"),  # no longer a standard library in 1.11
        (E.JULIA, "DataFrames"),
        (E.MAVEN, "java.util"),  # no list for Maven
    ],
)
def test_not_standard_names(ecosystem: Ecosystem, name: str) -> None:
    assert not is_stdlib(ecosystem, name)


def test_backports_on_registry() -> None:
    assert backport_on_registry(E.PYPI, "dataclasses")
    assert backport_on_registry(E.PYPI, "Typing")
    assert backport_on_registry(E.NPM, "buffer")
    assert backport_on_registry(E.NPM, "node:events")
    assert not backport_on_registry(E.PYPI, "os")
    assert not backport_on_registry(E.PYPI, "enum34")  # not a standard name
    assert not backport_on_registry(E.PYPI, "requests")
    assert not backport_on_registry(E.NPM, "fs")
    assert not backport_on_registry(E.MAVEN, "anything")


def test_ecosystem_without_list() -> None:
    assert stdlib_list(E.NUGET) is None
    assert stdlib_names(E.NUGET) == frozenset()


def test_lists_are_loaded_once() -> None:
    assert stdlib_names(E.PYPI) is stdlib_names(E.PYPI)


def test_every_data_file_is_one_ecosystem() -> None:
    assert {name.removesuffix(".json") for name in FILES} == {e.value for e in stdlib_ecosystems()}
    assert stdlib_ecosystems() == {
        E.PYPI, E.NPM, E.GO, E.CARGO, E.RUBYGEMS, E.HACKAGE, E.CRAN, E.JULIA
    }  # fmt: skip


@pytest.mark.parametrize("file", FILES)
def test_data_file_is_well_formed(file: str) -> None:
    data: dict[str, Any] = json.loads(DATA.joinpath(file).read_text(encoding="utf-8"))
    ecosystem = Ecosystem(data["ecosystem"])
    assert file == f"{ecosystem.value}.json"
    assert data["source"].startswith("https://")
    assert data["generated_from"].strip()
    names = data["names"]
    assert names
    assert names == sorted(names)
    assert len(names) == len(set(names))
    assert all(isinstance(n, str) and n == n.strip() and n for n in names)
    assert set(data.get("also_on_registry", ())) <= set(names)
    listing = stdlib_list(ecosystem)
    assert listing is not None
    assert listing.names == frozenset(names)
    assert listing.source == data["source"]


def test_malformed_file_is_rejected() -> None:
    good = {"ecosystem": "cargo", "source": "https://x", "generated_from": "y", "names": ["a", "b"]}
    assert _parse(E.CARGO, good).names == {"a", "b"}
    for bad in (
        {**good, "ecosystem": "npm"},
        {**good, "names": []},
        {**good, "names": ["b", "a"]},
        {**good, "names": ["a", "a"]},
        {**good, "also_on_registry": ["c"]},
        {**good, "prefix_only": ["a"]},
    ):
        with pytest.raises(ValueError, match=r"stdlib/cargo\.json"):
            _parse(E.CARGO, bad)


def test_known_sizes_of_real_lists() -> None:
    # Sanity against truncated files: the sizes of the authoritative lists these files were made from.
    assert len(stdlib_names(E.CRAN)) == 14
    assert len(stdlib_names(E.CARGO)) == 5
    assert "sys" in stdlib_names(E.PYPI) and len(stdlib_names(E.PYPI)) > 300
    assert len(stdlib_names(E.GO)) > 150

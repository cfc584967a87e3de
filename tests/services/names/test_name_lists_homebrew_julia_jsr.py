"""Name lists of Homebrew, Julia and JSR: formats, normalisation, exists, did-you-mean, typosquat."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.services.names.service import NameService
from pkgintel.sources.name_lists import parse_name_list
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine
from tests.shared import read_shared_bytes, requires_shared

FORMULAE = orjson.dumps(
    [
        {"name": "wget", "desc": "Internet file retriever", "versions": {"stable": "1.25.0"}},
        {"name": "python@3.12", "desc": "Interpreted language", "versions": {"stable": "3.12.8"}},
    ]
)
CASKS = orjson.dumps([{"token": "firefox", "version": "133.0", "desc": "Web browser"}])
ANALYTICS = orjson.dumps(
    {
        "category": "install",
        "items": [
            {"number": 1, "formula": "wget", "count": "512,345", "percent": "3.1"},
            {"number": 2, "formula": "python@3.12", "count": "400,001", "percent": "2.4"},
            {"number": 3, "formula": "wget --HEAD", "count": "12", "percent": "0"},
        ],
    }
)
JSR_PAGE = orjson.dumps(
    {
        "items": [
            {
                "scope": "std",
                "name": "path",
                "description": "Path utilities",
                "latestVersion": "1.1.3",
            },
            {"scope": "std", "name": "assert", "description": None, "latestVersion": "1.0.14"},
        ],
        "total": 2,
    }
)


def test_homebrew_formula_and_cask_lists() -> None:
    formulae = list(parse_name_list(Ecosystem.HOMEBREW, FORMULAE))
    assert [(e.name, e.latest_version) for e in formulae] == [
        ("wget", "1.25.0"),
        ("python@3.12", "3.12.8"),
    ]
    assert formulae[0].summary == "Internet file retriever"
    casks = list(parse_name_list(Ecosystem.HOMEBREW, CASKS))
    assert [(e.name, e.latest_version) for e in casks] == [("cask:firefox", "133.0")]


def test_homebrew_analytics_give_ranks_and_30_day_counts() -> None:
    entries = list(parse_name_list(Ecosystem.HOMEBREW, ANALYTICS))
    assert [(e.name, e.popularity_rank, e.monthly_downloads) for e in entries] == [
        ("wget", 1, 512345),
        ("python@3.12", 2, 400001),
    ]


def test_jsr_packages_page() -> None:
    entries = list(parse_name_list(Ecosystem.JSR, JSR_PAGE))
    assert [(e.name, e.latest_version, e.summary) for e in entries] == [
        ("@std/path", "1.1.3", "Path utilities"),
        ("@std/assert", "1.0.14", None),
    ]


@requires_shared
def test_real_julia_registry_toml() -> None:
    raw = read_shared_bytes(
        "registry-fixtures",
        "julia",
        "raw.githubusercontent.com_JuliaRegistries_General_master_Registry.toml.txt.gz",
    )
    entries = list(parse_name_list(Ecosystem.JULIA, raw))
    assert len(entries) == 7427
    names = {e.name for e in entries}
    assert {"Inequality", "HTTP", "oneAPI_Level_Zero_jll", "homebrew"} <= names


def test_broken_registry_toml_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"Registry\.toml"):
        list(parse_name_list(Ecosystem.JULIA, b"[packages]\nx = {"))


@requires_shared
async def test_exists_did_you_mean_and_typosquat(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    try:
        await upgrade(engine)
        names = NameService(SqlStore(engine))
        registry = read_shared_bytes(
            "registry-fixtures",
            "julia",
            "raw.githubusercontent.com_JuliaRegistries_General_master_Registry.toml.txt.gz",
        )
        await names.ingest(Ecosystem.JULIA, parse_name_list(Ecosystem.JULIA, registry), source="t")
        await names.ingest(
            Ecosystem.HOMEBREW, parse_name_list(Ecosystem.HOMEBREW, ANALYTICS), source="t"
        )
        await names.ingest(Ecosystem.JSR, parse_name_list(Ecosystem.JSR, JSR_PAGE), source="t")

        # Julia: `.jl` is dropped, case is kept (Julia names are case-sensitive).
        assert (await names.exists(Ecosystem.JULIA, "Inequality.jl")).exists is True
        missing = await names.exists(Ecosystem.JULIA, "Inequalty")
        assert missing.exists is False and "Inequality" in missing.did_you_mean
        assert (await names.exists(Ecosystem.JULIA, "inequality")).exists is False

        # Homebrew: formula names fold case.
        assert (await names.exists(Ecosystem.HOMEBREW, "WGET")).exists is True
        hint = await names.typosquat(Ecosystem.HOMEBREW, "wgett")
        assert hint.is_suspected and hint.targets[0][0] == "wget"

        # JSR: scoped names as given.
        assert (await names.exists(Ecosystem.JSR, "@std/path")).exists is True
        near = await names.exists(Ecosystem.JSR, "@std/paht")
        assert near.exists is False and "@std/path" in near.did_you_mean
    finally:
        await engine.dispose()

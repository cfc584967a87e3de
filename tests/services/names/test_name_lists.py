"""Name-list formats and the ingestion command, on committed samples and on the real shared lists."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pkgintel.domain.packages import Ecosystem
from pkgintel.entry import app
from pkgintel.sources.name_lists import parse_name_list
from tests.shared import requires_shared, shared_path

PYPI_TSV = (
    "name\tversion\tmonth\trank_among_15000_most_downloaded\tsummary\n"
    "Django_Rest.Framework\t3.15.2\t2024-06\t120\tWeb APIs for Django\n"
    "requests\t2.34.2\t2026-05\t4\tPython HTTP for Humans.\n"
    "tiny\t0.1\t2017-01\t\t\n"
)


def test_pypi_tsv_is_normalised_with_rank() -> None:
    entries = list(parse_name_list(Ecosystem.PYPI, PYPI_TSV.encode()))
    assert [e.name for e in entries] == ["django-rest-framework", "requests", "tiny"]
    assert entries[0].display_name == "Django_Rest.Framework" and entries[0].popularity_rank == 120
    assert entries[2].popularity_rank is None and entries[2].summary is None


def test_npm_tsv_keeps_case_and_scopes() -> None:
    raw = b"name\tversion\tdownloads_a_month\tsummary\n@types/node\t22.0.0\t1000\tTypes\nJSONStream\t1.3.5\t50\t\n"
    entries = list(parse_name_list(Ecosystem.NPM, raw))
    assert [(e.name, e.monthly_downloads) for e in entries] == [
        ("@types/node", 1000),
        ("JSONStream", 50),
    ]


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        (
            b'{"meta": {"api-version": "1.1"}, "projects": [{"name": "Flask"}, {"name": "zope.interface"}]}',
            ["flask", "zope-interface"],
        ),
        (b'["Flask", "zope.interface"]', ["flask", "zope-interface"]),
        (b"Flask\nzope.interface\n# comment\n\n", ["flask", "zope-interface"]),
    ],
)
def test_registry_name_list_formats(raw: bytes, names: list[str]) -> None:
    assert [e.name for e in parse_name_list(Ecosystem.PYPI, raw)] == names


def test_unusable_json_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="expected an array"):
        list(parse_name_list(Ecosystem.NPM, b'{"nothing": 1}'))


def test_cli_ingest_then_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    src = tmp_path / "pypi.tsv.gz"
    src.write_bytes(gzip.compress(PYPI_TSV.encode()))
    result = CliRunner().invoke(app, ["ingest", "names", "--ecosystem", "pypi", "--from", str(src)])
    assert result.exit_code == 0, result.output
    assert "loaded 3 pypi names" in result.output
    missing = CliRunner().invoke(
        app, ["ingest", "names", "--ecosystem", "pypi", "--from", str(tmp_path / "nope")]
    )
    assert missing.exit_code == 2


@requires_shared
@pytest.mark.slow
def test_real_npm_list_parses_completely() -> None:
    raw = gzip.decompress(shared_path("names", "npm.tsv.gz").read_bytes())
    entries = list(parse_name_list(Ecosystem.NPM, raw))
    assert len(entries) == 226_974
    by_name = {e.name: e for e in entries}
    assert by_name["lodash"].monthly_downloads and by_name["lodash"].monthly_downloads > 10_000_000
    assert "@types/node" in by_name


async def test_popular_pool_loads_once_under_concurrency(tmp_path: Path) -> None:
    import asyncio

    from pkgintel.domain.names.rules import NameEntry
    from pkgintel.services.names.service import NameService
    from pkgintel.storage.migrate import upgrade
    from pkgintel.storage.sql import SqlStore, create_engine

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    await upgrade(engine)
    store = SqlStore(engine)
    loads = 0
    real = store.list_popular_names

    async def counting(ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        nonlocal loads
        loads += 1
        return await real(ecosystem, limit)

    store.list_popular_names = counting  # type: ignore[method-assign]
    names = NameService(store)
    await names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "lodash", "lodash", monthly_downloads=10**8)],
        source="t",
    )
    hints = await asyncio.gather(*(names.typosquat(Ecosystem.NPM, "lodahs") for _ in range(20)))
    assert loads == 1
    assert all(h.is_suspected and h.targets[0][0] == "lodash" for h in hints)
    await engine.dispose()


async def test_warm_loads_the_pools_of_loaded_indexes_only(tmp_path: Path) -> None:
    from pkgintel.domain.names.rules import NameEntry
    from pkgintel.services.names.service import NameService
    from pkgintel.storage.migrate import upgrade
    from pkgintel.storage.sql import SqlStore, create_engine

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    await upgrade(engine)
    store = SqlStore(engine)
    names = NameService(store)
    assert await names.warm() == []
    await names.ingest(
        Ecosystem.PYPI,
        [NameEntry(Ecosystem.PYPI, "requests", "requests", monthly_downloads=10**8)],
        source="t",
    )
    asked: list[Ecosystem] = []
    real = store.list_popular_names

    async def counting(ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        asked.append(ecosystem)
        return await real(ecosystem, limit)

    store.list_popular_names = counting  # type: ignore[method-assign]
    assert await names.warm() == [Ecosystem.PYPI]
    hint = await names.typosquat(Ecosystem.PYPI, "reqeusts")
    assert hint.is_suspected and hint.targets == (("requests", 1),)
    assert asked == [Ecosystem.PYPI]  # the check used the warmed pool
    await engine.dispose()

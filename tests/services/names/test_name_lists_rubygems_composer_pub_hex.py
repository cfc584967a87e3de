"""Name lists of RubyGems, Packagist, pub.dev and hex.pm: formats, normalisation, exists/did-you-mean."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from typer.testing import CliRunner

from pkgintel.domain.packages import Ecosystem
from pkgintel.entry import app
from pkgintel.services.names.service import NameService
from pkgintel.sources.name_lists import parse_name_list
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine
from tests.shared import read_shared_bytes, requires_shared

RUBYGEMS_NAMES = b"---\n-\nnokogiri\nrack\nRedCloth\n"
PACKAGIST_LIST = b'{"packageNames": ["Monolog/Monolog", "psr/log", "symfony/console"]}'


def test_rubygems_compact_index_names_skip_the_header_and_keep_case() -> None:
    entries = list(parse_name_list(Ecosystem.RUBYGEMS, RUBYGEMS_NAMES))
    assert [(e.name, e.display_name) for e in entries] == [
        ("-", "-"),
        ("nokogiri", "nokogiri"),
        ("rack", "rack"),
        ("RedCloth", "RedCloth"),
    ]


def test_packagist_list_is_lower_cased() -> None:
    entries = list(parse_name_list(Ecosystem.COMPOSER, PACKAGIST_LIST))
    assert [e.name for e in entries] == ["monolog/monolog", "psr/log", "symfony/console"]
    assert entries[0].display_name == "Monolog/Monolog"


@requires_shared
def test_real_pub_package_names_keep_legacy_capitals() -> None:
    raw = read_shared_bytes("registry-fixtures", "pub", "pub.dev_api_package-names.json.gz")
    entries = list(parse_name_list(Ecosystem.PUB, raw))
    names = {e.name for e in entries}
    assert len(entries) > 10_000
    assert {"bloc", "Autolinker", "zxing"} <= names  # pub names are case-sensitive: not folded
    assert "autolinker" not in names


@requires_shared
def test_real_hex_page_ranks_by_90_day_downloads() -> None:
    raw = read_shared_bytes("registry-fixtures", "hex", "hex.pm_api_packages_page_1.json")
    entries = list(parse_name_list(Ecosystem.HEX, raw))
    assert len(entries) == 100
    ranked = sorted((e for e in entries if e.popularity_rank), key=lambda e: e.popularity_rank or 0)
    assert ranked[0].popularity_rank == 1
    aadya = next(e for e in entries if e.name == "aadya")
    assert aadya.latest_version == "0.1.0" and aadya.summary == "CoAP framework"


async def test_exists_and_did_you_mean_per_ecosystem_rules(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    try:
        await _exists_checks(engine)
    finally:
        await engine.dispose()


async def _exists_checks(engine: AsyncEngine) -> None:
    await upgrade(engine)
    names = NameService(SqlStore(engine))
    await names.ingest(
        Ecosystem.COMPOSER, parse_name_list(Ecosystem.COMPOSER, PACKAGIST_LIST), source="t"
    )
    await names.ingest(
        Ecosystem.PUB,
        parse_name_list(Ecosystem.PUB, b'{"packages": ["bloc", "Babylon", "babylon"]}'),
        source="t",
    )
    assert (await names.exists(Ecosystem.COMPOSER, "MONOLOG/monolog")).exists is True
    missing = await names.exists(Ecosystem.COMPOSER, "monolog/monologg")
    assert missing.exists is False and missing.did_you_mean == ("monolog/monolog",)
    # Pub keeps case: Babylon and babylon are two packages, BLOC is not bloc.
    assert (await names.exists(Ecosystem.PUB, "Babylon")).exists is True
    assert (await names.exists(Ecosystem.PUB, "BLOC")).exists is False


@pytest.mark.parametrize(
    ("ecosystem", "raw", "count"),
    [("rubygems", RUBYGEMS_NAMES, 4), ("composer", PACKAGIST_LIST, 3)],
)
def test_cli_ingests_the_registry_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ecosystem: str, raw: bytes, count: int
) -> None:
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    src = tmp_path / "names.gz"
    src.write_bytes(gzip.compress(raw))
    result = CliRunner().invoke(
        app, ["ingest", "names", "--ecosystem", ecosystem, "--from", str(src)]
    )
    assert result.exit_code == 0, result.output
    assert f"loaded {count} {ecosystem} names" in result.output

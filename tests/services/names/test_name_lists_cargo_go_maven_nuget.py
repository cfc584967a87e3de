"""Name lists of crates.io, the Go module index, Maven archetype catalogs and the NuGet catalog/search:
parsed with each ecosystem's normalisation, ranked where the registry counts downloads, and
answering exists / did-you-mean / typosquat after ingestion."""

from __future__ import annotations

from pathlib import Path

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.services.names.service import NameService
from pkgintel.sources.name_lists import parse_name_list
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine
from tests.shared import read_shared_bytes, requires_shared

FIXTURES = "registry-fixtures"


@requires_shared
@pytest.mark.parametrize(
    ("ecosystem", "file", "count", "sample"),
    [
        (Ecosystem.CARGO, "cargo/crates.io_api_v1_crates_page_1_per_page_100.json", 100, "a"),
        (Ecosystem.GO, "go/index.golang.org_index.json", 864, "golang.org/x/text"),
        (
            Ecosystem.MAVEN,
            "maven/repo1.maven.org_maven2_archetype-catalog.xml",
            1,
            "am.ik.archetype:elm-spring-boot-blank-archetype",
        ),
        (Ecosystem.NUGET, "nuget/api.nuget.org_v3_catalog0_page15386.json", 203, "vl.badmapper"),
    ],
)
def test_recorded_registry_name_lists(
    ecosystem: Ecosystem, file: str, count: int, sample: str
) -> None:
    entries = list(parse_name_list(ecosystem, read_shared_bytes(FIXTURES, *file.split("/"))))
    names = [e.name for e in entries]
    assert len(names) == len(set(names)) == count
    assert sample in names


@requires_shared
def test_go_index_keeps_the_newest_version_per_module() -> None:
    entries = parse_name_list(
        Ecosystem.GO, read_shared_bytes(FIXTURES, "go", "index.golang.org_index.json")
    )
    by_name = {e.name: e for e in entries}
    # The index lists golang.org/x/text at several versions; the highest one is kept.
    assert by_name["golang.org/x/text"].latest_version == "v0.3.1-0.20180807135948-17ff2d5776d2"


@requires_shared
def test_crates_listing_is_ranked_by_the_registry_download_count() -> None:
    entries = list(
        parse_name_list(
            Ecosystem.CARGO,
            read_shared_bytes(
                FIXTURES, "cargo", "crates.io_api_v1_crates_page_1_per_page_100.json"
            ),
        )
    )
    ranks = sorted(e.popularity_rank for e in entries if e.popularity_rank is not None)
    assert ranks == list(range(1, len(ranks) + 1))


def test_nuget_search_answers_are_case_folded_and_ranked() -> None:
    raw = b'{"data": [{"id": "Serilog", "version": "4.3.1", "totalDownloads": 10}, {"id": "Newtonsoft.Json", "version": "13.0.3", "totalDownloads": 99}]}'
    entries = list(parse_name_list(Ecosystem.NUGET, raw))
    assert [(e.name, e.display_name, e.popularity_rank) for e in entries] == [
        ("serilog", "Serilog", 2),
        ("newtonsoft.json", "Newtonsoft.Json", 1),
    ]


def test_maven_coordinate_lines_are_plain_text_lists() -> None:
    entries = list(
        parse_name_list(Ecosystem.MAVEN, b"com.google.guava:guava\norg.slf4j/slf4j-api\n")
    )
    assert [e.name for e in entries] == ["com.google.guava:guava", "org.slf4j:slf4j-api"]


def test_broken_registry_list_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unreadable go name list"):
        list(parse_name_list(Ecosystem.GO, b'{"Path": "x", \n'))


async def test_exists_and_typosquat_follow_each_ecosystems_normalisation(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    await upgrade(engine)
    names = NameService(SqlStore(engine))
    crates = b'{"crates": [{"name": "serde_json", "max_version": "1.0.1", "recent_downloads": 900}, {"name": "tokio", "max_version": "1.0.0", "recent_downloads": 800}]}'
    await names.ingest(Ecosystem.CARGO, parse_name_list(Ecosystem.CARGO, crates), source="t")
    search = b'{"data": [{"id": "Newtonsoft.Json", "version": "13.0.3", "totalDownloads": 99}]}'
    await names.ingest(Ecosystem.NUGET, parse_name_list(Ecosystem.NUGET, search), source="t")

    assert (await names.exists(Ecosystem.CARGO, "serde-json")).exists is True  # `-` and `_` fold
    assert (await names.exists(Ecosystem.NUGET, "NEWTONSOFT.JSON")).exists is True
    assert (await names.exists(Ecosystem.CARGO, "serde-jsno")).exists is False
    hint = await names.typosquat(Ecosystem.CARGO, "serde_jsonn")
    assert hint.is_suspected and hint.targets[0][0] == "serde_json"
    assert await names.suggest(Ecosystem.NUGET, "Newtonsoft.Jsn") == ["Newtonsoft.Json"]
    await engine.dispose()


@requires_shared
def test_cli_ingests_the_go_module_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from pkgintel.entry import app
    from tests.shared import shared_path

    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    src = shared_path(FIXTURES, "go", "index.golang.org_index.json")
    result = CliRunner().invoke(app, ["ingest", "names", "--ecosystem", "go", "--from", str(src)])
    assert result.exit_code == 0, result.output
    assert "loaded 864 go names" in result.output

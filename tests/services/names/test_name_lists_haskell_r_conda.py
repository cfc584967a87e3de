"""Name lists of Hackage, CRAN and Conda: formats, normalisation, exists/did-you-mean/typosquat."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.names.service import NameService
from pkgintel.sources.name_lists import parse_name_list
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine
from tests.shared import read_shared_bytes, requires_shared

HACKAGE_LIST = b'[{"packageName": "aeson"}, {"packageName": "base"}, {"packageName": "Cabal"}]'
PACKAGES_DCF = b"""Package: readxl
Version: 1.4.5
Depends: R (>= 3.6)
Imports: cellranger, tibble (>= 2.0.1),
        utils

Package: data.table
Version: 1.16.0

Package: readxl
Version: 1.4.3
"""
CHANNELDATA = {
    "channeldata_version": 1,
    "packages": {
        "pytest": {"version": "8.3.3", "summary": "Simple and powerful testing with Python."},
        "numpy": {"version": "2.1.2"},
    },
    "subdirs": ["noarch", "linux-64"],
}
REPODATA = {
    "info": {"subdir": "noarch"},
    "packages": {"pytest-8.3.2-pyhd8ed1ab_0.tar.bz2": {"name": "pytest", "version": "8.3.2"}},
    "packages.conda": {"pytest-8.3.3-pyhd8ed1ab_0.conda": {"name": "pytest", "version": "8.3.3"}},
}


def test_hackage_package_list_keeps_case() -> None:
    entries = list(parse_name_list(Ecosystem.HACKAGE, HACKAGE_LIST))
    assert [e.name for e in entries] == ["aeson", "base", "Cabal"]


def test_cran_packages_file_keeps_the_newest_version() -> None:
    entries = {e.name: e for e in parse_name_list(Ecosystem.CRAN, PACKAGES_DCF)}
    assert set(entries) == {"readxl", "data.table"}
    assert entries["readxl"].latest_version == "1.4.5"


def test_cranlogs_top_list_ranks_by_downloads() -> None:
    top = {
        "start": "2026-10-01",
        "end": "2026-10-31",
        "downloads": [
            {"package": "ggplot2", "downloads": "1500000"},
            {"package": "rlang", "downloads": "2100000"},
        ],
    }
    entries = {e.name: e for e in parse_name_list(Ecosystem.CRAN, json.dumps(top).encode())}
    assert entries["rlang"].popularity_rank == 1 and entries["ggplot2"].popularity_rank == 2


@requires_shared
def test_real_cran_packages_by_date_page() -> None:
    raw = read_shared_bytes(
        "registry-fixtures",
        "cran",
        "cran.r-project.org_web_packages_available_packages_by_date.html.gz",
    )
    names = {e.name for e in parse_name_list(Ecosystem.CRAN, raw)}
    assert len(names) > 19_000
    assert {"AcceptanceSampling", "dials", "readxl"} <= names  # case kept: CRAN names are exact


def test_conda_channeldata_and_repodata() -> None:
    entries = {
        e.name: e for e in parse_name_list(Ecosystem.CONDA, json.dumps(CHANNELDATA).encode())
    }
    assert entries["pytest"].latest_version == "8.3.3"
    assert entries["pytest"].summary == "Simple and powerful testing with Python."
    repo = {e.name: e for e in parse_name_list(Ecosystem.CONDA, json.dumps(REPODATA).encode())}
    assert repo["pytest"].latest_version == "8.3.3"


def test_conda_names_fold_case_and_the_default_channel() -> None:
    assert normalise_name(Ecosystem.CONDA, "conda-forge/PyTest") == "pytest"
    assert normalise_name(Ecosystem.CONDA, "bioconda/samtools") == "bioconda/samtools"
    assert normalise_name(Ecosystem.CRAN, "ReadXL") == "ReadXL"


async def test_exists_did_you_mean_and_typosquat_hints(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    try:
        await _checks(engine)
    finally:
        await engine.dispose()


async def _checks(engine: AsyncEngine) -> None:
    await upgrade(engine)
    names = NameService(SqlStore(engine))
    await names.ingest(
        Ecosystem.HACKAGE, parse_name_list(Ecosystem.HACKAGE, HACKAGE_LIST), source="t"
    )
    await names.ingest(Ecosystem.CRAN, parse_name_list(Ecosystem.CRAN, PACKAGES_DCF), source="t")
    await names.ingest(
        Ecosystem.CONDA,
        parse_name_list(Ecosystem.CONDA, json.dumps(CHANNELDATA).encode()),
        source="t",
    )
    assert (await names.exists(Ecosystem.HACKAGE, "aeson")).exists is True
    missing = await names.exists(Ecosystem.HACKAGE, "aesonn")
    assert missing.exists is False and "aeson" in missing.did_you_mean
    assert (await names.exists(Ecosystem.CRAN, "readxl")).exists is True
    assert (await names.exists(Ecosystem.CRAN, "ReadXL")).exists is False  # case-sensitive
    assert (await names.exists(Ecosystem.CONDA, "conda-forge/PyTest")).exists is True
    near = await names.exists(Ecosystem.CONDA, "pytset")
    assert near.exists is False and "pytest" in near.did_you_mean
    top = {"downloads": [{"package": "ggplot2", "downloads": 1500000}]}
    await names.ingest(
        Ecosystem.CRAN, parse_name_list(Ecosystem.CRAN, json.dumps(top).encode()), source="t"
    )
    hint = await names.typosquat(Ecosystem.CRAN, "ggplot3")
    assert hint.checked and hint.is_suspected
    assert [t[0] for t in hint.targets] == ["ggplot2"]

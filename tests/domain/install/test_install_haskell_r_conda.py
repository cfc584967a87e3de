"""Install lines of Hackage, CRAN and Conda: PVP caret, pinned R installs, conda match specs."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.install.commands import install_commands
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem


def test_hackage_caret_is_the_pvp_major_and_exact_pins() -> None:
    assert install_commands(Ecosystem.HACKAGE, "aeson", "2.2.3.0") == {
        "cabal": "cabal install --lib aeson-2.2.3.0",
        "build-depends": "aeson ^>=2.2.3.0",
    }
    assert (
        install_commands(Ecosystem.HACKAGE, "aeson", "2.1.0.0", exact=True)["build-depends"]
        == "aeson ==2.1.0.0"
    )


def test_cran_pins_only_with_tools_that_can() -> None:
    latest = install_commands(Ecosystem.CRAN, "data.table", "1.16.0")
    assert latest["install.packages"] == 'install.packages("data.table")'
    pinned = install_commands(Ecosystem.CRAN, "data.table", "1.15.4", exact=True)
    assert "install.packages" not in pinned  # it cannot install an older version
    assert pinned["pak"] == 'pak::pak("data.table@1.15.4")'
    assert pinned["remotes"] == 'remotes::install_version("data.table", version = "1.15.4")'


def test_conda_channel_and_pixi_spelling() -> None:
    cmds = install_commands(Ecosystem.CONDA, "bioconda/samtools", "1.21", exact=True)
    assert cmds == {
        "conda": "conda install -c bioconda samtools==1.21",
        "mamba": "mamba install -c bioconda samtools==1.21",
        "pixi": "pixi add bioconda::samtools==1.21",
    }
    assert (
        install_commands(Ecosystem.CONDA, "pytest", "8.3.3")["pixi"] == "pixi add 'pytest>=8.3.3'"
    )


@pytest.mark.parametrize(
    ("ecosystem", "good", "bad"),
    [
        (
            Ecosystem.HACKAGE,
            ["aeson", "text-iso8601", "Cabal", "base64-bytestring", "3d-graphics"],
            ["aeson_", "-x", "12", "a--b", "x-1"],
        ),
        (
            Ecosystem.CRAN,
            ["readxl", "data.table", "R6", "ggplot2"],
            ["1abc", "abc.", "a", "read_xl", "a-b"],
        ),
        (
            Ecosystem.CONDA,
            [
                "pytest",
                "conda-forge/pytest",
                "bioconda/samtools",
                "_libgcc_mutex",
                "ca-certificates",
            ],
            ["a/b/c", "/x", "x y"],
        ),
    ],
)
def test_name_grammars(ecosystem: Ecosystem, good: list[str], bad: list[str]) -> None:
    for name in good:
        assert validate_name(ecosystem, name) == name
    for name in bad:
        with pytest.raises(InvalidInput):
            validate_name(ecosystem, name)

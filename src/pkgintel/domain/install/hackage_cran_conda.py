"""
Install commands of Hackage, CRAN and Conda (pure): one `installer(name, version, exact)` per
ecosystem returning `{tool: command or manifest line}`, collected in `INSTALLERS_HASKELL_R_CONDA`.

- Hackage: `cabal install --lib name-x.y.z.w` (a package id names one version) and the
  `build-depends` entry: `name ^>=x.y.z.w` (PVP: at least this version, below the next major
  `x.(y+1)`), or `name ==x.y.z.w` when the caller asked for this version.
- CRAN: `install.packages("name")`, `pak::pak("name")` and `renv::install("name")` install the
  current CRAN version. A version asked for is pinned with `pak::pak("name@x.y")`,
  `renv::install("name@x.y")` and `remotes::install_version("name", version = "x.y")`;
  `install.packages()` cannot pin one, so it is left out then.
- Conda: `conda install -c <channel>`, `mamba install -c <channel>` and `pixi add` with the match
  spec `name>=x` (at least the checked version), or `name==x` when asked for. The channel is the
  one in `channel/name`, else `conda-forge`; pixi names a non-default channel as `channel::name`.

Shell commands are shell-quoted; names are validated by `domain.names.rules.validate_name` first.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Final

from pkgintel.domain.packages import Ecosystem

Installer = Callable[[str, str, bool], dict[str, str]]
DEFAULT_CONDA_CHANNEL: Final = "conda-forge"


def _hackage(name: str, version: str, exact: bool) -> dict[str, str]:
    constraint = f"=={version}" if exact else f"^>={version}"
    return {
        "cabal": f"cabal install --lib {shlex.quote(f'{name}-{version}')}",
        "build-depends": f"{name} {constraint}",
    }


def _r_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cran(name: str, version: str, exact: bool) -> dict[str, str]:
    if not exact:
        return {
            "install.packages": f"install.packages({_r_string(name)})",
            "pak": f"pak::pak({_r_string(name)})",
            "renv": f"renv::install({_r_string(name)})",
        }
    pinned = _r_string(f"{name}@{version}")
    return {
        "pak": f"pak::pak({pinned})",
        "renv": f"renv::install({pinned})",
        "remotes": (f"remotes::install_version({_r_string(name)}, version = {_r_string(version)})"),
    }


def _conda(name: str, version: str, exact: bool) -> dict[str, str]:
    channel, _, package = name.rpartition("/")
    channel = channel or DEFAULT_CONDA_CHANNEL
    spec = f"{package}{'==' if exact else '>='}{version}"
    pixi_spec = spec if channel == DEFAULT_CONDA_CHANNEL else f"{channel}::{spec}"
    return {
        "conda": f"conda install -c {shlex.quote(channel)} {shlex.quote(spec)}",
        "mamba": f"mamba install -c {shlex.quote(channel)} {shlex.quote(spec)}",
        "pixi": f"pixi add {shlex.quote(pixi_spec)}",
    }


INSTALLERS_HASKELL_R_CONDA: Final[Mapping[Ecosystem, Installer]] = {
    Ecosystem.HACKAGE: _hackage,
    Ecosystem.CRAN: _cran,
    Ecosystem.CONDA: _conda,
}

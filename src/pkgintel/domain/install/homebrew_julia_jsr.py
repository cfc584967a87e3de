"""
Install commands of Homebrew, Julia and JSR (pure): one `installer(name, version, exact)` per
ecosystem returning `{tool: command or manifest line}`, collected in `INSTALLERS_HOMEBREW_JULIA_JSR`.

- Homebrew installs only a formula's (or cask's) current version, so there is no version to pin:
  `brew install <formula>` / `brew install --cask <token>` and the Brewfile line.
- Julia: `Pkg.add` and the Pkg REPL's `] add`, plus the `[compat]` entry of Project.toml. Without
  `exact` the entry is the bare version, which Pkg reads as a caret bound (`"1.2.3"` allows up to
  the next breaking release); with `exact` the commands name the version and the entry is `=x.y.z`.
- JSR: `deno add jsr:`, `npx jsr add` (and the pnpm, Yarn and Bun equivalents JSR documents) with
  `^version`, or the exact version when asked for or when it is a pre-release.

Shell commands are shell-quoted; names are validated by `domain.names.rules.validate_name` first.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_prerelease

Installer = Callable[[str, str, bool], dict[str, str]]


def _homebrew(name: str, version: str, exact: bool) -> dict[str, str]:
    if name.lower().startswith("cask:"):
        token = name[len("cask:") :].lower()
        return {"brew": f"brew install --cask {shlex.quote(token)}", "brewfile": f'cask "{token}"'}
    formula = name.lower()
    return {"brew": f"brew install {shlex.quote(formula)}", "brewfile": f'brew "{formula}"'}


def _julia(name: str, version: str, exact: bool) -> dict[str, str]:
    pkg = name.removesuffix(".jl")
    if exact:
        return {
            "pkg": f'using Pkg; Pkg.add(name="{pkg}", version="{version}")',
            "repl": f"] add {pkg}@{version}",
            "project": f'{pkg} = "={version}"',
        }
    return {
        "pkg": f'using Pkg; Pkg.add("{pkg}")',
        "repl": f"] add {pkg}",
        "project": f'{pkg} = "{version}"',
    }


def _jsr(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.JSR, version)
    spec = f"{name}@{version if exact else '^' + version}"
    return {
        "deno": f"deno add {shlex.quote('jsr:' + spec)}",
        "npx": f"npx jsr add {shlex.quote(spec)}",
        "pnpm": f"pnpm add {shlex.quote('jsr:' + spec)}",
        "yarn": f"yarn add {shlex.quote('jsr:' + spec)}",
        "bunx": f"bunx jsr add {shlex.quote(spec)}",
    }


INSTALLERS_HOMEBREW_JULIA_JSR: Final[Mapping[Ecosystem, Installer]] = {
    Ecosystem.HOMEBREW: _homebrew,
    Ecosystem.JULIA: _julia,
    Ecosystem.JSR: _jsr,
}

"""
Install commands of RubyGems, Composer, Pub and Hex (pure): one `installer(name, version, exact)`
per ecosystem returning `{tool: command or manifest line}`, collected in `INSTALLERS_RUBYGEMS_COMPOSER_PUB_HEX`.

`exact=True` means the caller asked for this version: every line pins it exactly. Without it the
lines name the ecosystem's usual compatible-release requirement built from `version` (the latest):
RubyGems and Hex `~> x.y` (`~> 0.y.z` below 1.0, where a minor bump may break), Composer and Pub
`^x.y.z`. A pre-release is always pinned exactly (a range would skip it or float to another
pre-release). Shell commands are shell-quoted; Gemfile and mix.exs lines are given verbatim
(names are validated by `domain.names.rules.validate_name` before they get here).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_prerelease

Installer = Callable[[str, str, bool], dict[str, str]]


def pessimistic_operand(version: str) -> str:
    """The `~>` operand for `version`: `x.y` from `x.y.z`, `0.y.z` below 1.0; else `version`."""
    parts = version.split(".")
    if len(parts) < 3 or not all(p.isdigit() for p in parts[:3]):
        return version
    return ".".join(parts[:3]) if parts[0] == "0" else ".".join(parts[:2])


def _rubygems(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.RUBYGEMS, version)
    requirement = version if exact else f"~> {pessimistic_operand(version)}"
    gem = shlex.quote(name)
    return {
        "gem": f"gem install {gem} -v {shlex.quote(version)}" if exact else f"gem install {gem}",
        "gemfile": f'gem "{name}", "{requirement}"',
        "bundler": f"bundle add {gem} --version {shlex.quote(requirement)}",
    }


def _composer(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.COMPOSER, version)
    spec = shlex.quote(f"{name}:{version if exact else '^' + version}")
    return {"composer": f"composer require {spec}"}


def _pub(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.PUB, version)
    spec = shlex.quote(f"{name}:{version if exact else '^' + version}")
    return {"dart": f"dart pub add {spec}", "flutter": f"flutter pub add {spec}"}


def _hex(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.HEX, version)
    requirement = f"== {version}" if exact else f"~> {pessimistic_operand(version)}"
    # rebar3's hex dependency `{name, "x.y.z"}` names one version.
    return {"mix": f'{{:{name}, "{requirement}"}}', "rebar3": f'{{{name}, "{version}"}}'}


INSTALLERS_RUBYGEMS_COMPOSER_PUB_HEX: Final[Mapping[Ecosystem, Installer]] = {
    Ecosystem.RUBYGEMS: _rubygems,
    Ecosystem.COMPOSER: _composer,
    Ecosystem.PUB: _pub,
    Ecosystem.HEX: _hex,
}

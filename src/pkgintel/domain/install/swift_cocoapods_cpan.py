"""
Install lines of Swift, CocoaPods and CPAN (pure): one `installer(name, version, exact)` per
ecosystem returning `{tool: command or manifest line}`, collected in `INSTALLERS_SWIFT_COCOAPODS_CPAN`.

- Swift (SwiftPM, https://docs.swift.org/package-manager/PackageDescription/PackageDescription.html):
  `name` is the repository URL; `.package(url:, from:)` takes the version and every later one up to
  the next major, `exact:` pins it; `swift package add-dependency` (Swift 6 toolchains) writes the
  same requirement.
- CocoaPods (https://guides.cocoapods.org/using/the-podfile.html): `pod 'Name', '~> x.y'` (the
  optimistic operator, `~> 0.y.z` below 1.0 as for RubyGems), `pod 'Name', 'x.y.z'` pins.
- CPAN: `name` is a module (the distribution's main module, see `cpan.py`); `cpanm Module` installs
  the newest release, `cpanm Module@version` exactly that version
  (https://metacpan.org/pod/App::cpanminus#COMMANDS); the cpanfile `requires` line states a
  minimum, `== version` pins (https://metacpan.org/pod/cpanfile).

`exact=True` (the caller asked for this version) or a pre-release version pins exactly. Shell
commands are shell-quoted; manifest lines are given verbatim (names are validated by
`domain.names.rules.validate_name`, whose grammars exclude quotes for these ecosystems).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Final

from pkgintel.domain.install.rubygems_composer_pub_hex import pessimistic_operand
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_prerelease

Installer = Callable[[str, str, bool], dict[str, str]]


def _swift(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.SWIFT, version)
    url = name if "://" in name else f"https://github.com/{name.removesuffix('.git')}.git"
    label, flag = ("exact", "--exact") if exact else ("from", "--from")
    return {
        "Package.swift": f'.package(url: "{url}", {label}: "{version}")',
        "swift": f"swift package add-dependency {shlex.quote(url)} {flag} {shlex.quote(version)}",
    }


def _cocoapods(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.COCOAPODS, version)
    requirement = version if exact else f"~> {pessimistic_operand(version)}"
    return {"Podfile": f"pod '{name}', '{requirement}'"}


def _cpan(name: str, version: str, exact: bool) -> dict[str, str]:
    exact = exact or is_prerelease(Ecosystem.CPAN, version)
    if exact:
        return {
            "cpanm": f"cpanm {shlex.quote(f'{name}@{version}')}",
            "cpanfile": f"requires '{name}', '== {version}';",
        }
    return {
        "cpanm": f"cpanm {shlex.quote(name)}",
        "cpanfile": f"requires '{name}', '{version}';",
    }


INSTALLERS_SWIFT_COCOAPODS_CPAN: Final[Mapping[Ecosystem, Installer]] = {
    Ecosystem.SWIFT: _swift,
    Ecosystem.COCOAPODS: _cocoapods,
    Ecosystem.CPAN: _cpan,
}

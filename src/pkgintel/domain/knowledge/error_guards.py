"""
Vetoes for similarity matches (pure): two lines that read alike but name different things are
different errors, and a wrong fix is worse than no answer.

- `names_differ(line, pattern)`: both quote identifiers (`No module named 'setuptools_rust'` vs
  `No module named 'pkg_resources'`) and no quoted identifier is shared. Placeholders (`'<name>'`)
  are not identifiers: a generic pattern never vetoes.
- `tools_differ(tools, pattern)`: the pattern names a package manager or build tool (`tools_in`)
  none of which the input names, and the input names another one (`CocoaPods could not find
  compatible versions for pod` vs `Bundler could not find compatible versions for gem`; a cpanm
  log vs a pattern about `gcc`). `tools` is `tools_in` of the whole input, computed once.
- `similar_but_different(line, pattern, tools)`: either of the two.
"""

from __future__ import annotations

import re
from typing import Final

_QUOTED: Final = re.compile(
    r"'([^'\n]{1,200})'|\"([^\"\n]{1,200})\"|`([^`\n]{1,200})`|‘([^’\n]{1,200})’"
)
_PLACEHOLDER: Final = re.compile(r"^<\w+>$")
# Words that name one toolchain (lowercased); a line naming two tools names both sets.
_TOOL_WORDS: Final[dict[str, str]] = {
    "bundler": "bundler",
    "gem": "bundler",
    "gemfile": "bundler",
    "rubygems": "bundler",
    "cocoapods": "cocoapods",
    "pod": "cocoapods",
    "podfile": "cocoapods",
    "npm": "npm",
    "pnpm": "pnpm",
    "yarn": "yarn",
    "bun": "bun",
    "deno": "deno",
    "corepack": "corepack",
    "pip": "pip",
    "poetry": "poetry",
    "uv": "uv",
    "conda": "conda",
    "mamba": "conda",
    "cargo": "cargo",
    "rustc": "cargo",
    "maven": "maven",
    "mvn": "maven",
    "gradle": "gradle",
    "composer": "composer",
    "nuget": "dotnet",
    "dotnet": "dotnet",
    "brew": "homebrew",
    "homebrew": "homebrew",
    "mix": "mix",
    "pub": "dart",
    "flutter": "dart",
    "cabal": "cabal",
    "cpanm": "cpanm",
    "julia": "julia",
    "swiftpm": "swiftpm",
    "gcc": "compiler",
    "clang": "compiler",
    "cc1": "compiler",
    "cl": "compiler",
}
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def _names(text: str) -> set[str]:
    out: set[str] = set()
    for m in _QUOTED.finditer(text):
        name = next(g for g in m.groups() if g is not None).strip()
        if name and not _PLACEHOLDER.match(name):
            out.add(name.casefold())
    return out


def tools_in(text: str) -> frozenset[str]:
    """The toolchains `text` names (see `_TOOL_WORDS`)."""
    words = (m.group(0).lower() for m in _WORD.finditer(text))
    return frozenset(_TOOL_WORDS[w] for w in words if w in _TOOL_WORDS)


def names_differ(line: str, pattern: str) -> bool:
    """Both quote real identifiers and share none (see the module docstring)."""
    a, b = _names(line), _names(pattern)
    return bool(a) and bool(b) and not (a & b)


def tools_differ(tools: frozenset[str], pattern: str) -> bool:
    """The pattern's tools are all absent from the input's `tools`, which name another package
    manager or build tool (a compiler alone names none: native builds run under every tool)."""
    theirs = tools_in(pattern)
    return bool(tools - {"compiler"}) and bool(theirs) and not (tools & theirs)


def similar_but_different(line: str, pattern: str, tools: frozenset[str]) -> bool:
    """`names_differ(line, pattern)` or `tools_differ(tools, pattern)`."""
    return names_differ(line, pattern) or tools_differ(tools, pattern)

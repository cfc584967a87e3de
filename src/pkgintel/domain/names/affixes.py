"""
The affixes and words a combosquat adds to a popular name (pure).

`PREFIXES`/`SUFFIXES` are the affixes combosquats add (`python3-dateutil`, `cross-env.js`);
`ECOSYSTEM_PREFIXES`/`ECOSYSTEM_SUFFIXES` only say which ecosystem a package is for, and
`HABIT_AFFIXES` are typed from habit. `affix_bases`, `token_bases` and `two_word_bases` give the
popular name a query may be built on; `ecosystem_bases` the name without its ecosystem affix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from pkgintel.domain.names.edits import DELIMITERS

MIN_BASE: Final = 4
"""A combosquat's popular base must be at least this long (`node-` + `ws` is not an imitation)."""


PREFIXES: Final = (
    "python3-",
    "python-",
    "python",
    "py3-",
    "py-",
    "py",
    "node-",
    "node",
    "nodejs-",
    "js-",
    "go-",
    "lib",
    "the-",
    "real-",
    "official-",
)
"""Affixes a combosquat adds in front of a popular name (longest first within a family)."""
SUFFIXES: Final = (
    "-python3",
    "-python",
    "-py3",
    "-py",
    "py",
    "-nodejs",
    "-node",
    "node",
    ".js",
    "-js",
    "js",
    "-ts",
    "-dev",
    "-cli",
    "-lib",
    "-api",
    "-sdk",
    "-core",
    "-utils",
    "-util",
    "-tools",
    "-tool",
    "-plus",
    "-pro",
    "-new",
    "-next",
    "-latest",
    "-official",
    "-fixed",
    "-fix",
    "-secure",
    "-lite",
    "-async",
    "-helper",
    "-module",
    "-package",
    "-validator",
    "-basic",
)
"""Affixes a combosquat adds behind a popular name."""


ECOSYSTEM_PREFIXES: Final = (
    "python3-",
    "python-",
    "python",
    "py3-",
    "py-",
    "py",
    "nodejs-",
    "node-",
    "node",
    "js-",
)
"""Affixes that only say which ecosystem a package is for; dropped to find a name's brand."""
ECOSYSTEM_SUFFIXES: Final = (
    "-python3",
    "-python",
    "-py3",
    "-py",
    "py",
    "-nodejs",
    "-node",
    "node",
    ".js",
    "-js",
    "js",
)
HABIT_AFFIXES: Final = frozenset(ECOSYSTEM_PREFIXES) | frozenset(ECOSYSTEM_SUFFIXES)
"""Affixes typed from habit (the language's name around the package's): `node-`, `.js`, `py-`."""


_JS_SUFFIXES: Final = frozenset({".js", "-js", "js"})


def _by(key_of: int, affixes: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for affix in affixes:
        out.setdefault(affix[key_of], []).append(affix)
    return {k: tuple(v) for k, v in out.items()}


_PREFIXES_BY_FIRST: Final = _by(0, PREFIXES)
_SUFFIXES_BY_LAST: Final = _by(-1, SUFFIXES)
_PY_PREFIXES: Final = frozenset({"py", "py-", "python-", "py3-", "python3-", "python"})


def affix_bases(name: str) -> list[tuple[str, str]]:
    """`(base, affix)` for each known prefix or suffix `name` carries (base at least `MIN_BASE`;
    two characters for the `js` suffixes, `d3.js` / `d3`, three for the `py` prefixes, `pysmb` /
    `smb`)."""
    out: list[tuple[str, str]] = []
    scope, sep, rest = name.rpartition("/")
    if not rest:
        return out
    head = f"{scope}{sep}"
    for prefix in _PREFIXES_BY_FIRST.get(rest[0], ()):
        least = 3 if prefix in _PY_PREFIXES else MIN_BASE
        if rest.startswith(prefix) and len(rest) - len(prefix) >= least:
            out.append((head + rest[len(prefix) :], prefix))
    for suffix in _SUFFIXES_BY_LAST.get(rest[-1], ()):
        least = 2 if suffix in _JS_SUFFIXES else MIN_BASE
        if rest.endswith(suffix) and len(rest) - len(suffix) >= least:
            out.append((head + rest[: -len(suffix)], suffix))
    return out


def token_bases(name: str) -> list[tuple[str, str]]:
    """`(base, word)` for each way of dropping one delimited word from an unscoped name of three
    or more words (`plain-crypto-js` → `crypto-js`, `is-buffer-validator` → `is-buffer`)."""
    if name.startswith("@"):
        return []
    words = re.split(r"([-_.])", name)
    tokens = words[0::2]
    if len(tokens) < 3:
        return []
    out = []
    for i, word in enumerate(tokens):
        kept = words[: 2 * i] + words[2 * i + 2 :] if i < len(tokens) - 1 else words[: 2 * i - 1]
        base = "".join(kept).strip("-_.")
        if len(base) >= MIN_BASE + 2:
            out.append((base, word))
    return out


def two_word_bases(name: str) -> list[tuple[str, str, int]]:
    """`(base, word, side)` for a two-word unscoped name: each word as the base (at least
    `MIN_BASE` long), the other (with at least one letter) as the word added; side 0 when the
    base comes first."""
    if name.startswith("@"):
        return []
    tokens = DELIMITERS.split(name)
    if len(tokens) != 2 or not all(tokens):
        return []
    first, last = tokens
    # A number beside the name is a version suffix (`lodash-4`), judged as such.
    return [
        (b, w, side)
        for b, w, side in ((first, last, 0), (last, first, -1))
        if len(b) >= MIN_BASE and any(ch.isalpha() for ch in w)
    ]


def ecosystem_bases(name: str) -> list[str]:
    """`name` itself, then `name` without each ecosystem affix it carries (`python-mysqldb` →
    `mysqldb`, `opencv.js` → `opencv`); scoped npm names carry none."""
    out = [name]
    if name.startswith("@"):
        return out
    # The longest affix of each side only (`python-` rather than `py`, which would leave `thon-`).
    prefix = next((p for p in ECOSYSTEM_PREFIXES if name.startswith(p)), None)
    if prefix is not None and len(name) > len(prefix):
        out.append(name[len(prefix) :].lstrip("-_."))
    suffix = next((x for x in ECOSYSTEM_SUFFIXES if name.endswith(x)), None)
    if suffix is not None and len(name) > len(suffix):
        out.append(name[: -len(suffix)].rstrip("-_."))
    return [base for i, base in enumerate(out) if base and base not in out[:i]]

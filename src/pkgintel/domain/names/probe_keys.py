"""
Keys to probe a whole name index with (pure): every spelling one edit from a name
(`one_edit_keys`), and the scoped names an unscoped name may stand for (`scope_keys`).

A caller looks all of them up in one query, so that a new name is compared with the original it
misspells even when that original is outside the popular names (`shadowsock` / `shadowsocks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pkgintel.domain.names.edits import DELIMITERS

MIN_SCOPED_PART: Final = 8
"""A scoped name's package part is matched alone (`arm-resources` / `@azure/arm-resources`) only
from this length: short parts are common words (`core`, `utils`, `node`)."""
MIN_SCOPED_WORDS: Final = 6
"""A scoped name's package part of several words (`arm-dns`) is matched alone from this length."""
MIN_WIDE: Final = 6
"""`one_edit_keys` answers nothing for shorter names: a name of five characters or fewer is one edit
from several real packages of the whole index by chance."""
MAX_WIDE: Final = 64
"""`one_edit_keys` answers nothing for longer names: ~77 keys per character would make one query of
thousands of keys for a name nobody mistypes that way (npm allows 214 characters)."""
MIN_SCOPE_EDIT: Final = 4
"""`one_edit_keys` edits a scope of at least this many characters: one edit turns a shorter one into
another organisation's (`@aws` / `@ams`)."""
EDIT_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz0123456789-_."
"""The characters of a package name an edit can insert or substitute (npm and PyPI keys)."""


def one_edit_keys(key: str) -> set[str]:
    """
    Every key one Damerau-Levenshtein edit from `key` (a deletion, an adjacent transposition, or a
    character of `EDIT_ALPHABET` substituted or inserted), `key` itself excluded. In a scoped npm
    name the package part is edited, and the scope (from `MIN_SCOPE_EDIT` characters) with the part
    kept. A name with `_` or `.` also gives its spelling with dashes
    and every key one edit from that (a separator change plus one edit). Empty when the (package part
    of the) name is shorter than `MIN_WIDE` or longer than `MAX_WIDE`. A name of n characters has about 77·n such keys; a caller
    probes an index with them in one query.
    """
    scope, sep, part = key.rpartition("/")
    head = f"{scope}{sep}"
    if not MIN_WIDE <= len(part) <= MAX_WIDE:
        return set()
    keys = {head + k for k in _edits(part)}
    if scope.startswith("@") and len(scope) > MIN_SCOPE_EDIT:
        # A slip in the scope, the package part kept (`@flashbotts/ethers-provider-bundle`).
        keys |= {f"@{s}/{part}" for s in _edits(scope[1:])}
    dashed = DELIMITERS.sub("-", part)
    if dashed != part:
        # Separators changed as well (`ember_cli_babe` / `ember-cli-babel`): the name with dashes,
        # and every key one edit from it.
        keys |= one_edit_keys(head + dashed) | {head + dashed}
    return keys


def _edits(text: str) -> set[str]:
    """Every spelling one edit from `text` (see `one_edit_keys`) that neither starts nor ends with a
    separator, `text` excluded."""
    out: set[str] = set()
    n = len(text)
    for i in range(n):
        out.add(text[:i] + text[i + 1 :])
        if i + 1 < n:
            out.add(text[:i] + text[i + 1] + text[i] + text[i + 2 :])
        for ch in EDIT_ALPHABET:
            out.add(text[:i] + ch + text[i + 1 :])
    for i in range(n + 1):
        for ch in EDIT_ALPHABET:
            out.add(text[:i] + ch + text[i:])
    out.discard(text)
    return {k for k in out if k and k[0] not in "-_." and k[-1] not in "-_."}


def scoped_part_distinct(part: str) -> bool:
    """Whether a scoped name's package part says enough to be matched alone: `MIN_SCOPED_PART`
    characters, or `MIN_SCOPED_WORDS` when it has more than one word (`arm-dns`, not `utils`)."""
    if len(part) >= MIN_SCOPED_PART:
        return True
    return len(part) >= MIN_SCOPED_WORDS and any(ch in "-_." for ch in part.strip("-_."))


def scope_keys(key: str, scopes: Sequence[str]) -> dict[str, str]:
    """
    Scoped names an unscoped `key` may stand for, each with how: the name moved under one of the
    registry's common `scopes` (`arm-logic` / `@azure/arm-logic`, for a key of at least
    `MIN_SCOPED_PART` characters) or its first word turned into the scope
    (`vitejs-plugin-react-refresh` / `@vitejs/plugin-react-refresh`). `scopes` are written with
    their `@`. Empty for a scoped key.
    """
    if key.startswith("@"):
        return {}
    out: dict[str, str] = {}
    if scoped_part_distinct(key):
        for scope in scopes:
            out[f"{scope}/{key}"] = f"the scoped name {scope}/{key} without its scope"
    for i, ch in enumerate(key):
        if ch == "-" and 2 <= i < len(key) - 2:
            probe = f"@{key[:i]}/{key[i + 1 :]}"
            out.setdefault(probe, f"the scoped name {probe} flattened")
    return out

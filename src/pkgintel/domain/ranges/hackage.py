"""
Cabal version ranges (Hackage `build-depends`), after Cabal's `Distribution.Types.VersionRange`
as the Cabal user guide describes it (https://cabal.readthedocs.io/en/stable/cabal-package-description-file.html#pkg-field-build-depends):

- `>= 1.2`, `> 1.2`, `<= 1.2`, `< 1.2`, `== 1.2`; versions are PVP lists of integers compared
  element-wise, a shorter prefix first (`1.0 < 1.0.0`, `domain/versions`);
- `== 1.2.*`: `>= 1.2 && < 1.3`;
- `^>= 1.2.3` (major bound): `>= 1.2.3 && < 1.3`; `^>= 1` is `>= 1 && < 1.1`;
- set notation `== { 1.2, 1.4 }` and `^>= { 1.2, 2.0 }`: the union of each;
- `&&` binds tighter than `||`, parentheses group; `-any` (and an empty range) is every version,
  `-none` none.

Hackage has no pre-releases, so `include_prerelease` changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final

from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.versions import MAX_VERSION_LENGTH

_TOKEN: Final = re.compile(
    r"\s*(\^>=|>=|<=|==|>|<|&&|\|\||\(|\)|\{|\}|,|-any|-none|\d+(?:\.\d+)*(?:\.\*)?)"
)
_VERSION: Final = re.compile(r"^\d+(?:\.\d+)*$")

Predicate = Callable[[tuple[int, ...]], bool]


def _key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _bump(parts: tuple[int, ...], index: int) -> tuple[int, ...]:
    """`parts` cut after `index` with that component incremented (`(1, 2, 3)`, 1 → `(1, 3)`)."""
    padded = parts + (0,) * (index + 1 - len(parts))
    return (*padded[:index], padded[index] + 1)


def _between(low: tuple[int, ...], high: tuple[int, ...]) -> Predicate:
    return lambda v: low <= v < high


@dataclass(frozen=True, slots=True)
class HackageRange:
    text: str
    _test: Predicate

    def contains(self, version: str) -> bool:
        v = version.strip()
        if len(v) > MAX_VERSION_LENGTH or not _VERSION.match(v):
            return False
        return self._test(_key(v))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise RangeSyntaxError("Cabal", text, f"unexpected text at {text[pos:].strip()!r}")
            self.tokens.append(m[1])
            pos = m.end()
        self.i = 0

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _next(self) -> str:
        tok = self._peek()
        if tok is None:
            raise RangeSyntaxError("Cabal", self.text, "unexpected end")
        self.i += 1
        return tok

    def parse(self) -> Predicate:
        if not self.tokens:
            return lambda v: True
        pred = self._union()
        if self._peek() is not None:
            raise RangeSyntaxError("Cabal", self.text, f"unexpected {self._peek()!r}")
        return pred

    def _union(self) -> Predicate:
        parts = [self._intersection()]
        while self._peek() == "||":
            self._next()
            parts.append(self._intersection())
        return parts[0] if len(parts) == 1 else (lambda v: any(p(v) for p in parts))

    def _intersection(self) -> Predicate:
        parts = [self._atom()]
        while self._peek() == "&&":
            self._next()
            parts.append(self._atom())
        return parts[0] if len(parts) == 1 else (lambda v: all(p(v) for p in parts))

    def _atom(self) -> Predicate:
        tok = self._next()
        if tok == "(":
            inner = self._union()
            if self._next() != ")":
                raise RangeSyntaxError("Cabal", self.text, "unbalanced parentheses")
            return inner
        if tok == "-any":
            return lambda v: True
        if tok == "-none":
            return lambda v: False
        if tok not in ("==", ">=", "<=", ">", "<", "^>="):
            raise RangeSyntaxError("Cabal", self.text, f"expected an operator, found {tok!r}")
        if self._peek() == "{":
            if tok not in ("==", "^>="):
                raise RangeSyntaxError("Cabal", self.text, "a version set needs == or ^>=")
            self._next()
            members = [self._single(tok, self._version())]
            while self._peek() == ",":
                self._next()
                members.append(self._single(tok, self._version()))
            if self._next() != "}":
                raise RangeSyntaxError("Cabal", self.text, "unclosed version set")
            return lambda v: any(m(v) for m in members)
        return self._single(tok, self._next())

    def _version(self) -> str:
        tok = self._next()
        if len(tok) > MAX_VERSION_LENGTH or not _VERSION.match(tok):
            raise RangeSyntaxError("Cabal", self.text, f"{tok!r} is not a version")
        return tok

    def _single(self, op: str, version: str) -> Predicate:
        if len(version) > MAX_VERSION_LENGTH:
            raise RangeSyntaxError("Cabal", self.text[:80], "the version is too long")
        if version.endswith(".*"):
            if op != "==":
                raise RangeSyntaxError("Cabal", self.text, "a wildcard version needs ==")
            base = _key(version[:-2])
            return _between(base, _bump(base, len(base) - 1))
        if not _VERSION.match(version):
            raise RangeSyntaxError("Cabal", self.text, f"{version!r} is not a version")
        want = _key(version)
        if op == "^>=":
            return _between(want, _bump(want, 1))
        return {
            "==": lambda v: v == want,
            ">=": lambda v: v >= want,
            "<=": lambda v: v <= want,
            ">": lambda v: v > want,
            "<": lambda v: v < want,
        }[op]


class HackageGrammar:
    """Cabal `build-depends` version ranges (see the module docstring)."""

    name: ClassVar[str] = "Cabal"

    def parse(self, text: str, *, include_prerelease: bool = False) -> HackageRange:
        stripped = text.strip()
        return HackageRange(stripped, _Parser(stripped).parse())


__all__ = ["HackageGrammar", "HackageRange"]

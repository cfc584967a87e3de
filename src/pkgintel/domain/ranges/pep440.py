"""
PEP 440 version specifiers (PyPI), evaluated by `packaging.specifiers.SpecifierSet`.

Grammar: comma-separated clauses `==`, `!=`, `<`, `<=`, `>`, `>=`, `~=`, `===`, with `.*`
prefix matching on `==`/`!=`; an empty text admits every version. Semantics are packaging's,
which is pip's: pre-releases are admitted only when a clause names one or `include_prerelease`
is set; `<V` excludes pre-releases of V; `>V` excludes post-releases of V; local labels are
ignored unless the clause has one; epochs compare first (`>=1.0` does not admit `1!0.5`...
but does admit `1!2.0`, which is higher).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion

from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.versions import MAX_VERSION_LENGTH


@dataclass(frozen=True, slots=True)
class Pep440Range:
    """A parsed specifier set."""

    text: str
    specifiers: SpecifierSet
    include_prerelease: bool

    def contains(self, version: str) -> bool:
        # packaging reads the string itself, so `===` compares the text as written.
        if len(version) > MAX_VERSION_LENGTH:
            return False
        prereleases = True if self.include_prerelease else None
        try:
            return self.specifiers.contains(version, prereleases=prereleases)
        except (InvalidVersion, ValueError):
            return False


class Pep440Grammar:
    """See the module contract."""

    name: ClassVar[str] = "PEP 440"

    def parse(self, text: str, *, include_prerelease: bool = False) -> Pep440Range:
        raw = text.strip()
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        if not raw.isascii():
            raise RangeSyntaxError(self.name, raw, "PEP 440 specifiers are ASCII")
        try:
            specifiers = SpecifierSet(raw)
        except (InvalidSpecifier, ValueError) as exc:
            raise RangeSyntaxError(self.name, raw, str(exc) or "invalid specifier") from None
        return Pep440Range(raw, specifiers, include_prerelease)

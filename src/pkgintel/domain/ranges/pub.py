"""
Pub (Dart) version constraints, with `pub_semver`'s `VersionConstraint.parse` semantics.

Grammar: `any`; a caret `^V` alone; or one or more comparators `>V`, `>=V`, `<V`, `<=V` or a
bare version (exactly V), separated by optional whitespace and intersected
(`>=1.2.3 <2.0.0`). Versions are full `MAJOR.MINOR.PATCH[-PRE][+BUILD]`.

`^V` is `>=V <V.nextBreaking`: the next major for 1.0.0 and up, the next *minor* below 1.0.0
(`^0.7.2` → `<0.8.0`, and `^0.0.3` → `<0.1.0`, unlike npm and Cargo). An exclusive upper bound
that is not itself a pre-release also excludes its pre-releases (`<2.0.0` excludes
`2.0.0-dev`), as pub_semver does. Versions compare with `versions.sort_key(Ecosystem.PUB, ...)`
(build metadata sorts after the plain version: `>1.2.3` admits `1.2.3+foo`).

Pre-release rule: `VersionConstraint.allows` has none; pub's solver only falls back to a
pre-release when no stable version fits. Without `include_prerelease` pre-releases are outside
the range unless the constraint names one (the conservative reading of that preference); with
it, `allows` alone decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, Key, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_prerelease, is_valid

_ECO = Ecosystem.PUB
_VERSION = (
    r"\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_TOKEN = re.compile(rf"\s*(<=|>=|<|>)?\s*({_VERSION})")
_CARET = re.compile(rf"^\^({_VERSION})$")
_CORE = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def _next_breaking(version: str) -> str:
    m = _CORE.match(version)
    assert m is not None  # the caller matched _VERSION
    major, minor = int(m[1]), int(m[2])
    return f"0.{minor + 1}.0" if major == 0 else f"{major + 1}.0.0"


def _excludes_max_prerelease(maxima: tuple[str, ...]) -> Callable[[str, Key], bool]:
    cores = {m[0] for m in (_CORE.match(b) for b in maxima) if m}

    def exclude(version: str, key: Key) -> bool:
        m = _CORE.match(version.strip())
        return m is not None and m[0] in cores and is_prerelease(_ECO, version)

    return exclude


class PubGrammar:
    """See the module contract."""

    name: ClassVar[str] = "pub"

    def parse(self, text: str, *, include_prerelease: bool = False) -> ComparatorRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty constraint")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        if raw == "any":
            return ComparatorRange(raw, _ECO, ((),), include_prerelease)
        caret = _CARET.match(raw)
        clauses: list[Comparator] = []
        if caret:
            version = caret[1]
            self._check(version, raw)
            clauses = [
                comparator(_ECO, ">=", version),
                comparator(_ECO, "<", _next_breaking(version)),
            ]
        else:
            pos = 0
            while pos < len(raw):
                m = _TOKEN.match(raw, pos)
                if not m or m.end() == pos:
                    raise RangeSyntaxError(self.name, raw, f"unexpected text at {raw[pos:]!r}")
                op, version = m[1] or "==", m[2]
                self._check(version, raw)
                clauses.append(comparator(_ECO, op, version))
                pos = m.end()
                if pos < len(raw) and not (raw[pos].isspace() or raw[pos] in "<>"):
                    raise RangeSyntaxError(self.name, raw, f"unexpected text at {raw[pos:]!r}")
                while pos < len(raw) and raw[pos].isspace():
                    pos += 1
        maxima = tuple(c.bound for c in clauses if c.op == "<" and not is_prerelease(_ECO, c.bound))
        names_pre = any(is_prerelease(_ECO, c.bound) for c in clauses)
        return ComparatorRange(
            raw,
            _ECO,
            (tuple(clauses),),
            include_prerelease or names_pre,
            _excludes_max_prerelease(maxima) if maxima else None,
        )

    def _check(self, version: str, raw: str) -> None:
        if not is_valid(_ECO, version):
            raise RangeSyntaxError(self.name, raw, f"{version!r} is not a pub version")

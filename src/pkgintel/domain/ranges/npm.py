"""
npm ranges, with node-semver 7's semantics (the reference npm itself uses).

Grammar (node-semver `Range`): comparator sets joined by `||`; in a set, space-separated
comparators `<`, `<=`, `>`, `>=`, `=` or none; hyphen ranges `1.2.3 - 2.3.4`; x-ranges and
partial versions (`1.x`, `1.2.*`, `1`, `*`, ``); tilde `~1.2.3` (`~>` too); caret `^1.2.3`. Each
is desugared into plain comparators exactly as node-semver's `replaceHyphen`, `replaceTilde`,
`replaceCaret`, `replaceXRange` and `replaceStars` do, then evaluated with SemVer precedence
(build metadata ignored).

Pre-release rule (node-semver `testSet`): without `include_prerelease`, a version with a
pre-release tag satisfies a set only if some comparator of that set carries a pre-release on the
same `major.minor.patch` (`>=1.2.3-beta` admits `1.2.3-rc` but not `1.2.4-rc`). With it, the
comparators alone decide and x-range lower bounds become `-0` (`1.x` admits `1.0.0-alpha`).

`loose` reads sloppy spellings the way node-semver's loose mode does (`=1.2.3`, `v 1.2.3`,
`1.2.3beta`, leading zeros). Versions longer than 256 characters, or with a numeric component
above 2^53-1, are invalid (node-semver's limits) and satisfy nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.versions import MAX_VERSION_LENGTH

MAX_SAFE_INTEGER = 2**53 - 1

_NUM = r"0|[1-9]\d*"
_NUM_LOOSE = r"\d+"
_NONNUM = r"\d*[a-zA-Z-][a-zA-Z0-9-]*"
_BUILD = r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))"


def _tokens(loose: bool) -> dict[str, str]:
    num = _NUM_LOOSE if loose else _NUM
    pre_id = f"(?:{_NONNUM}|{num})"
    pre = f"(?:-?({pre_id}(?:\\.{pre_id})*))" if loose else f"(?:-({pre_id}(?:\\.{pre_id})*))"
    xid = f"{num}|x|X|\\*"
    xplain = f"[v=\\s]*({xid})(?:\\.({xid})(?:\\.({xid})(?:{pre})?{_BUILD}?)?)?"
    main = f"({num})\\.({num})\\.({num})"
    full = (
        f"[v=\\s]*{main}{pre}?{_BUILD}?" if loose else f"v?{main}{pre}?{_BUILD}?"
    )  # FULLPLAIN / LOOSEPLAIN
    return {"xplain": xplain, "full": full}


@dataclass(frozen=True, slots=True)
class _Re:
    version: re.Pattern[str]
    hyphen: re.Pattern[str]
    comparator_trim: re.Pattern[str]
    tilde: re.Pattern[str]
    caret: re.Pattern[str]
    xrange: re.Pattern[str]
    comparator: re.Pattern[str]


def _compile(loose: bool) -> _Re:
    t = _tokens(loose)
    gtlt = r"((?:<|>)?=?)"
    return _Re(
        version=re.compile(f"^{t['full']}$"),
        hyphen=re.compile(f"^\\s*({t['xplain']})\\s+-\\s+({t['xplain']})\\s*$"),
        comparator_trim=re.compile(f"(\\s*){gtlt}\\s*({t['full']}|{t['xplain']})"),
        tilde=re.compile(f"^(?:~>?){t['xplain']}$"),
        caret=re.compile(f"^\\^{t['xplain']}$"),
        xrange=re.compile(f"^{gtlt}\\s*{t['xplain']}$"),
        comparator=re.compile(f"^{gtlt}\\s*({t['full']})$|^$"),
    )


_STRICT = _compile(False)
_LOOSE = _compile(True)
_STAR = re.compile(r"(<|>)?=?\s*\*")
_TILDE_TRIM = re.compile(r"(\s*)(?:~>?)\s+")
_CARET_TRIM = re.compile(r"(\s*)\^\s+")
_OR = re.compile(r"\s*\|\|\s*")

Ident = tuple[int, int | float | str]
NpmVersion = tuple[int, int, int, tuple[Ident, ...]]
"""(major, minor, patch, pre-release identifiers); numeric identifiers sort first."""


def _ident(part: str) -> Ident:
    if part.isdigit():
        n = int(part)
        # node-semver compares numeric identifiers as JavaScript numbers (doubles).
        return (0, n if n <= MAX_SAFE_INTEGER else float(n))
    return (1, part)


def parse_version(version: str, *, loose: bool = False) -> NpmVersion | None:
    """node-semver `new SemVer(version, {loose})`: the parsed version, or None when invalid."""
    v = version.strip()
    if len(v) > MAX_VERSION_LENGTH:
        return None
    m = (_LOOSE if loose else _STRICT).version.match(v)
    if not m:
        return None
    major, minor, patch = int(m[1]), int(m[2]), int(m[3])
    if max(major, minor, patch) > MAX_SAFE_INTEGER:
        return None
    pre = tuple(_ident(p) for p in m[4].split(".")) if m[4] else ()
    return (major, minor, patch, pre)


def compare(a: NpmVersion, b: NpmVersion) -> int:
    """SemVer precedence (node-semver `compare`): -1, 0 or 1."""
    if a[:3] != b[:3]:
        return -1 if a[:3] < b[:3] else 1
    pa, pb = a[3], b[3]
    if pa == pb:
        return 0
    if not pa:
        return 1
    if not pb:
        return -1
    return -1 if pa < pb else 1


def _is_x(part: str | None) -> bool:
    return not part or part.lower() == "x" or part == "*"


def _caret(m: re.Match[str], include_prerelease: bool) -> str:
    major, minor, patch, pre = m[1], m[2], m[3], m[4]
    z = "-0" if include_prerelease else ""
    if _is_x(major):
        return ""
    if _is_x(minor):
        return f">={major}.0.0{z} <{int(major) + 1}.0.0-0"
    if _is_x(patch):
        if major == "0":
            return f">={major}.{minor}.0{z} <{major}.{int(minor) + 1}.0-0"
        return f">={major}.{minor}.0{z} <{int(major) + 1}.0.0-0"
    low = f">={major}.{minor}.{patch}" + (f"-{pre}" if pre else "")
    if major == "0":
        if minor == "0":
            return f"{low} <{major}.{minor}.{int(patch) + 1}-0"
        return f"{low} <{major}.{int(minor) + 1}.0-0"
    return f"{low} <{int(major) + 1}.0.0-0"


def _tilde(m: re.Match[str], include_prerelease: bool) -> str:
    major, minor, patch, pre = m[1], m[2], m[3], m[4]
    z = "-0" if include_prerelease else ""
    if _is_x(major):
        return ""
    if _is_x(minor):
        return f">={major}.0.0{z} <{int(major) + 1}.0.0-0"
    if _is_x(patch):
        return f">={major}.{minor}.0{z} <{major}.{int(minor) + 1}.0-0"
    low = f">={major}.{minor}.{patch}" + (f"-{pre}" if pre else "")
    return f"{low} <{major}.{int(minor) + 1}.0-0"


def _xrange(comp: str, m: re.Match[str], include_prerelease: bool) -> str:
    gtlt, major, minor, patch = m[1], m[2], m[3], m[4]
    x_major = _is_x(major)
    x_minor = x_major or _is_x(minor)
    x_patch = x_minor or _is_x(patch)
    if gtlt == "=" and x_patch:
        gtlt = ""
    pr = "-0" if include_prerelease else ""
    if x_major:
        return "<0.0.0-0" if gtlt in (">", "<") else "*"
    if gtlt and x_patch:
        mi = 0 if x_minor else int(minor)
        pa = 0
        ma = int(major)
        if gtlt == ">":
            gtlt = ">="
            if x_minor:
                ma, mi = ma + 1, 0
            else:
                mi += 1
        elif gtlt == "<=":
            gtlt = "<"
            if x_minor:
                ma += 1
            else:
                mi += 1
        if gtlt == "<":
            pr = "-0"
        return f"{gtlt}{ma}.{mi}.{pa}{pr}"
    if x_minor:
        return f">={major}.0.0{pr} <{int(major) + 1}.0.0-0"
    if x_patch:
        return f">={major}.{minor}.0{pr} <{major}.{int(minor) + 1}.0-0"
    return comp


def _hyphen(m: re.Match[str], include_prerelease: bool) -> str:
    # Groups: 1 whole `from`, 2-4 M.m.p, 5 pre, 6 build; 7 whole `to`, 8-10, 11 pre, 12 build.
    from_, fmaj, fmin, fpat, fpre = m[1], m[2], m[3], m[4], m[5]
    to, tmaj, tmin, tpat, tpre = m[7], m[8], m[9], m[10], m[11]
    z = "-0" if include_prerelease else ""
    if _is_x(fmaj):
        low = ""
    elif _is_x(fmin):
        low = f">={fmaj}.0.0{z}"
    elif _is_x(fpat):
        low = f">={fmaj}.{fmin}.0{z}"
    elif fpre:
        low = f">={from_.strip()}"
    else:
        low = f">={from_.strip()}{z}"
    if _is_x(tmaj):
        high = ""
    elif _is_x(tmin):
        high = f"<{int(tmaj) + 1}.0.0-0"
    elif _is_x(tpat):
        high = f"<{tmaj}.{int(tmin) + 1}.0-0"
    elif tpre:
        high = f"<={tmaj}.{tmin}.{tpat}-{tpre}"
    elif include_prerelease:
        high = f"<{tmaj}.{tmin}.{int(tpat) + 1}-0"
    else:
        high = f"<={to.strip()}"
    return f"{low} {high}".strip()


Comparator = tuple[str, NpmVersion | None]
"""(operator, version); version None is the "any" comparator."""


def _comparator(text: str, rx: _Re, loose: bool, raw: str) -> Comparator:
    m = rx.comparator.match(text)
    if not m:
        raise RangeSyntaxError("npm", raw, f"invalid comparator {text!r}")
    if not m[2]:
        return ("", None)
    version = parse_version(m[2], loose=loose)
    if version is None:
        raise RangeSyntaxError("npm", raw, f"invalid version in {text!r}")
    op = "" if m[1] == "=" else m[1]
    return (op, version)


def _parse_set(text: str, loose: bool, include_prerelease: bool, raw: str) -> list[Comparator]:
    rx = _LOOSE if loose else _STRICT
    text = text.strip()
    hy = rx.hyphen.match(text)
    if hy:
        text = _hyphen(hy, include_prerelease)
    text = rx.comparator_trim.sub(lambda m: f"{m[1]}{m[2]}{m[3]}", text)
    text = _TILDE_TRIM.sub(r"\1~", text)
    text = _CARET_TRIM.sub(r"\1^", text)
    comps: list[str] = []
    for part in text.split():
        for piece in _desugar(part, rx, include_prerelease).split():
            comps.append(piece)
    if loose:
        kept = [c for c in comps if rx.comparator.match(c)]
        if comps and not kept:
            return []  # node-semver drops a set that loose mode emptied
        comps = kept
    parsed = [_comparator(c, rx, loose, raw) for c in comps] or [("", None)]
    if len(parsed) > 1:
        parsed = [c for c in parsed if c[1] is not None] or [("", None)]
    return parsed


def _desugar(comp: str, rx: _Re, include_prerelease: bool) -> str:
    m = rx.caret.match(comp)
    if m:
        comp = _caret(m, include_prerelease)
    else:
        m = rx.tilde.match(comp)
        if m:
            comp = _tilde(m, include_prerelease)
    out = []
    for piece in comp.split():
        xm = rx.xrange.match(piece)
        out.append(_xrange(piece, xm, include_prerelease) if xm else piece)
    return " ".join(_STAR.sub("", p.strip()) for p in out)


def _test(op: str, bound: NpmVersion | None, version: NpmVersion) -> bool:
    if bound is None:
        return True
    c = compare(version, bound)
    return {
        "": c == 0,
        "<": c < 0,
        "<=": c <= 0,
        ">": c > 0,
        ">=": c >= 0,
    }[op]


@dataclass(frozen=True, slots=True)
class NpmRange:
    """A parsed npm range: comparator sets, OR-ed."""

    text: str
    sets: tuple[tuple[Comparator, ...], ...]
    loose: bool
    include_prerelease: bool

    def contains(self, version: str) -> bool:
        parsed = parse_version(version, loose=self.loose)
        if parsed is None:
            return False
        return any(self._in_set(s, parsed) for s in self.sets)

    def _in_set(self, comparators: tuple[Comparator, ...], version: NpmVersion) -> bool:
        if not all(_test(op, bound, version) for op, bound in comparators):
            return False
        if version[3] and not self.include_prerelease:
            # Only a comparator carrying a pre-release on the same M.m.p lets one in.
            return any(
                bound is not None and bound[3] and bound[:3] == version[:3]
                for _, bound in comparators
            )
        return True


class NpmGrammar:
    """See the module contract. `loose` is node-semver's loose option."""

    name: ClassVar[str] = "npm"

    def __init__(self, *, loose: bool = False) -> None:
        self.loose = loose

    def parse(self, text: str, *, include_prerelease: bool = False) -> NpmRange:
        raw = text.strip()
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        sets = tuple(
            tuple(parsed)
            for part in _OR.split(raw)
            if (parsed := _parse_set(part, self.loose, include_prerelease, raw))
        )
        if not sets:
            raise RangeSyntaxError(self.name, raw, "no valid comparator set")
        return NpmRange(raw, sets, self.loose, include_prerelease)

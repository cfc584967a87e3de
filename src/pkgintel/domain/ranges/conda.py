"""
Conda version specs (the version part of a MatchSpec), with conda's `VersionSpec` semantics.

Source: conda's `conda/models/version.py` (`VersionSpec.get_matcher`, `treeify`,
`VersionOrder.startswith`, `compatible_release_operator`) and the user guide's "Package search and
install specifications" (https://docs.conda.io/projects/conda/en/stable/user-guide/concepts/pkg-search.html).

Grammar: clauses joined by `,` (all must hold) and `|` (any may hold), `,` binding tighter, with
parentheses. A clause is

- `*` (anything), or empty;
- `OP VERSION` with OP one of `==`, `!=`, `<`, `<=`, `>`, `>=` (compared in `VersionOrder`, so
  `1.2 == 1.2.0`), `~=` (compatible release: `>= V` and starts with V minus its last part) or `=`
  (starts with V: `=1.2` admits `1.2.5`, not `1.20`); a trailing `.*` is dropped after `=`, `>=`,
  `<`, `<=`, `>`, `==` and makes `!=` "does not start with";
- `VERSION*` / `VERSION.*` (starts with VERSION), a `*` inside a version (a glob over the version
  text), `^...$` (a regular expression over the version text);
- a bare `VERSION`: exactly that version (`==`).

There is no pre-release rule: conda's matcher has none (conda-forge keeps pre-releases under other
labels, which the adapter marks yanked). `include_prerelease` is accepted and has no effect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any, ClassVar, NoReturn

from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.versions import MAX_VERSION_LENGTH
from pkgintel.domain.versions.conda import compare_parsed as conda_compare
from pkgintel.domain.versions.conda import parse as conda_parse

_RELATION = re.compile(r"^(==|!=|<=|>=|<|>|~=|=)(?![=<>!~])(\S+)$")
_TOKENS = re.compile(r"[()|,]|[^()|,]+")

_Parsed = tuple[Any, Any]


def _parse(version: str) -> _Parsed | None:
    if len(version) > MAX_VERSION_LENGTH:
        return None
    return conda_parse(version)


def _eq(t1: Any, t2: Any) -> bool:
    """Component lists equal with conda's padding (missing parts read as 0)."""
    v1: Any
    v2: Any
    for v1, v2 in zip_longest(t1, t2, fillvalue=[]):
        for c1, c2 in zip_longest(v1, v2, fillvalue=0):
            if c1 != c2:
                return False
    return True


def _startswith(version: _Parsed, prefix: _Parsed) -> bool:
    """conda's `VersionOrder.startswith`: the version's parts match the prefix's up to its last
    one; a last string part matches as a text prefix (`1.2a` starts with `1.2`)."""
    if prefix[1]:
        if not _eq(version[0], prefix[0]):
            return False
        t1, t2 = version[1], prefix[1]
    else:
        t1, t2 = version[0], prefix[0]
    nt = len(t2) - 1
    if not _eq(t1[:nt], t2[:nt]):
        return False
    v1 = [] if len(t1) <= nt else t1[nt]
    v2 = t2[nt]
    last = len(v2) - 1
    if not _eq([v1[:last]], [v2[:last]]):
        return False
    c1 = 0 if len(v1) <= last else v1[last]
    c2 = v2[last]
    if isinstance(c2, str):
        return isinstance(c1, str) and c1.startswith(c2)
    return bool(c1 == c2)


def _cmp(a: _Parsed, b: _Parsed) -> int:
    return conda_compare(a, b)


@dataclass(frozen=True, slots=True)
class _Leaf:
    op: str
    """`==`, `!=`, `<`, `<=`, `>`, `>=`, `~=`, `=` (starts with), `!=*` (does not start with),
    `*` (any), `re` (regular expression over the text)."""
    bound: _Parsed | None
    pattern: re.Pattern[str] | None = None
    compat_prefix: _Parsed | None = None

    def admits(self, text: str, parsed: _Parsed) -> bool:
        op = self.op
        if op == "*":
            return True
        if op == "re":
            assert self.pattern is not None
            return self.pattern.match(text) is not None
        bound = self.bound
        assert bound is not None
        if op == "=":
            return _startswith(parsed, bound)
        if op == "!=*":
            return not _startswith(parsed, bound)
        c = _cmp(parsed, bound)
        if op == "==":
            return c == 0
        if op == "!=":
            return c != 0
        if op == "<":
            return c < 0
        if op == "<=":
            return c <= 0
        if op == ">":
            return c > 0
        if op == ">=":
            return c >= 0
        # "~=": at least the bound and starting with the bound minus its last part
        assert self.compat_prefix is not None
        return c >= 0 and _startswith(parsed, self.compat_prefix)


@dataclass(frozen=True, slots=True)
class _Node:
    op: str
    """`,` (all) or `|` (any)."""
    children: tuple[_Node | _Leaf, ...]

    def admits(self, text: str, parsed: _Parsed) -> bool:
        if self.op == ",":
            return all(c.admits(text, parsed) for c in self.children)
        return any(c.admits(text, parsed) for c in self.children)


@dataclass(frozen=True, slots=True)
class CondaRange:
    """A parsed conda version spec."""

    text: str
    tree: _Node | _Leaf

    def contains(self, version: str) -> bool:
        text = version.strip()
        parsed = _parse(text)
        if parsed is None:
            return False
        try:
            return self.tree.admits(text.lower(), parsed)
        except (TypeError, ValueError):  # pragma: no cover - parsed conda versions always compare
            return False


MAX_CALLER_GLOBS = 2
"""Stars inside one version (`1.*.1`) a caller's spec may carry (and one at its end): each becomes
`.*` in a regular expression, and many of them make one that backtracks for as long as the version
is long."""


class CondaGrammar:
    """
    See the module contract. `caller_text` False (the default) is for specs from registry data,
    which conda itself evaluates. True is for a spec a caller sent (`/api/pin_safe`): a
    `^...$` clause, a regular expression of the caller's, is refused with a `RangeSyntaxError`
    rather than run in our process, and so is a glob of more than `MAX_CALLER_GLOBS` stars inside
    a version (one more may end it); the other characters of a caller's glob are literal. Every
    other spec means the same in both modes.
    """

    name: ClassVar[str] = "conda"

    def __init__(self, *, caller_text: bool = False) -> None:
        self.caller_text = caller_text

    def parse(self, text: str, *, include_prerelease: bool = False) -> CondaRange:
        raw = text.strip()
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        if raw in ("", "*"):
            return CondaRange(raw, _Leaf("*", None))
        return CondaRange(raw, _Parser(self.name, raw, caller_text=self.caller_text).parse())


class _Parser:
    """`treeify`: `|` below `,`, parentheses group."""

    def __init__(self, grammar: str, text: str, *, caller_text: bool = False) -> None:
        self.grammar = grammar
        self.caller_text = caller_text
        self.text = text
        self.tokens = [t.strip() for t in _TOKENS.findall(text) if t.strip()]
        self.pos = 0

    def _fail(self, why: str) -> NoReturn:
        raise RangeSyntaxError(self.grammar, self.text, why)

    def parse(self) -> _Node | _Leaf:
        tree = self._any()
        if self.pos != len(self.tokens):
            self._fail("unbalanced parentheses")
        return tree

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _any(self) -> _Node | _Leaf:
        parts = [self._all()]
        while self._peek() == "|":
            self.pos += 1
            parts.append(self._all())
        return parts[0] if len(parts) == 1 else _Node("|", tuple(parts))

    def _all(self) -> _Node | _Leaf:
        parts = [self._atom()]
        while self._peek() == ",":
            self.pos += 1
            parts.append(self._atom())
        return parts[0] if len(parts) == 1 else _Node(",", tuple(parts))

    def _atom(self) -> _Node | _Leaf:
        clause = self._peek()
        if clause is None or clause in ("|", ",", ")"):
            self._fail("a clause is missing")
        self.pos += 1
        if clause == "(":
            inner = self._any()
            if self._peek() != ")":
                self._fail("unbalanced parentheses")
            self.pos += 1
            return inner
        return self._leaf(clause)

    def _version(self, text: str) -> _Parsed:
        parsed = _parse(text)
        if parsed is None:
            self._fail(f"{text!r} is not a conda version")
        return parsed

    def _leaf(self, clause: str) -> _Leaf:
        if clause.startswith("^") or clause.endswith("$"):
            if not (clause.startswith("^") and clause.endswith("$")):
                self._fail("a regular expression must start with ^ and end with $")
            if self.caller_text:
                self._fail(
                    "regular-expression clauses (^...$) are not evaluated here; "
                    "write the range with operators, `,` and `|`"
                )
            try:
                return _Leaf("re", None, re.compile(clause))
            except re.error:
                self._fail("the regular expression does not compile")
        if clause[0] in "=<>!~":
            m = _RELATION.match(clause)
            if m is None:
                self._fail(f"{clause!r}: invalid operator")
            op, version = m[1], m[2]
            if version.endswith(".*"):
                if op == "~=":
                    self._fail("`~=` with `.*`")
                version = version[:-2]
                if op == "!=":
                    op = "!=*"
            bound = self._version(version)
            if op == "~=":
                head = ".".join(version.split(".")[:-1])
                return _Leaf(op, bound, compat_prefix=self._version(head or version))
            return _Leaf(op, bound)
        if clause == "*":
            return _Leaf("*", None)
        if "*" in clause.rstrip("*"):
            if self.caller_text:
                if clause.count("*") > MAX_CALLER_GLOBS + 1:
                    self._fail(f"at most {MAX_CALLER_GLOBS} `*` inside one version, and one after")
                # Every other character literal: `?`, `{` or `[` of a caller's are not syntax.
                rx = ".*".join(re.escape(part) for part in clause.lower().split("*"))
            else:
                rx = clause.lower().replace(".", r"\.").replace("+", r"\+").replace("*", ".*")
            return _Leaf("re", None, re.compile(rf"^(?:{rx})$"))
        if clause.endswith("*"):
            return _Leaf("=", self._version(clause.rstrip("*").rstrip(".")))
        if "@" in clause:
            return _Leaf("re", None, re.compile(rf"^{re.escape(clause.lower())}$"))
        return _Leaf("==", self._version(clause))

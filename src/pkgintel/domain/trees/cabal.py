"""
The dependencies of a `.cabal` package description (pure), by component, for one build target.

What cabal builds for a library is its main `library` stanza's `build-depends`, with `import:`ed
`common` stanzas included, `if`/`elif`/`else` blocks decided for the target, and the package's own
sub-libraries it names followed into (Cabal user guide, "Package Description":
https://cabal.readthedocs.io/en/stable/cabal-package-description-file.html — `build-depends`,
"Configurations" for conditions and flags, "Common stanzas"). The target here is Linux on x86_64
with GHC `GHC_VERSION` and every flag at its `default:` (cabal's solver tries defaults first; an
automatic flag it would flip to find a solution is not flipped here). Conditions:
`os(...)`, `arch(...)`, `impl(ghc <range>)`, `flag(...)`, `true`/`false`, `!`, `&&`, `||`.

`library_dependencies` gives every dependency with a kind: `runtime` (built with the library on the
target), `conditional` (in a branch not taken, the condition as `marker`), `executable` (only the
executables'). Test-suites and benchmarks are left out (never built by an install). A requirement
named several times is the intersection of its ranges (`(a) && (b)`), as Cabal combines them.
Returns None when the text is not a layout the parser reads (brace-delimited sections).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from pkgintel.domain.packages import Dependency
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.hackage import HackageGrammar

GHC_VERSION: Final = "9.8.4"
"""The compiler `impl(ghc ...)` conditions are decided for."""
TARGET_OS: Final = "linux"
TARGET_ARCH: Final = "x86_64"

_FIELD: Final = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")
_DEP: Final = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9-]*)(?::(\{[^}]*\}|[A-Za-z0-9-]+))?\s*(.*)$", re.DOTALL
)
_OS_ALIASES: Final = {
    "linux": "linux",
    "windows": "windows",
    "mingw32": "windows",
    "win32": "windows",
    "cygwin32": "windows",
    "osx": "osx",
    "darwin": "osx",
    "freebsd": "freebsd",
}
_ARCH_ALIASES: Final = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "i386": "i386",
    "x86": "i386",
    "aarch64": "aarch64",
    "arm64": "aarch64",
    "arm": "arm",
}


@dataclass
class _Node:
    header: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    children: list[_Node] = field(default_factory=list)


class Unevaluable(ValueError):
    """A condition the target does not decide (an unknown test or syntax)."""


def _tree(text: str) -> _Node | None:
    root = _Node("")
    stack: list[tuple[int, _Node]] = [(-1, root)]
    current: tuple[int, _Node, int] | None = None
    for raw in text.splitlines():
        line = raw.rstrip().expandtabs()
        stripped = line.lstrip()
        if not stripped or stripped.startswith("--"):
            continue
        indent = len(line) - len(stripped)
        if current is not None and indent > current[0]:
            node, idx = current[1], current[2]
            name, value = node.fields[idx]
            node.fields[idx] = (name, f"{value}\n{stripped}")
            continue
        current = None
        if "{" in stripped or stripped == "}":
            return None
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        m = _FIELD.match(stripped)
        if m and not stripped.lower().startswith(("if ", "elif ", "else")):
            parent.fields.append((m[1].lower(), m[2].strip()))
            current = (indent, parent, len(parent.fields) - 1)
            continue
        child = _Node(stripped)
        parent.children.append(child)
        stack.append((indent, child))
    return root


def _sections(root: _Node, kind: str) -> dict[str, _Node]:
    out: dict[str, _Node] = {}
    for child in root.children:
        word, _, rest = child.header.partition(" ")
        if word.lower() == kind:
            out[rest.strip().lower()] = child
    return out


def _flags(root: _Node) -> dict[str, bool]:
    flags: dict[str, bool] = {}
    for name, node in _sections(root, "flag").items():
        default = next((v for k, v in node.fields if k == "default"), "true")
        flags[name] = default.strip().lower() == "true"
    return flags


class _Cond:
    """A cabal condition evaluated for the target (`Unevaluable` on what it cannot decide)."""

    _TOKEN = re.compile(
        r"\s*(\|\||&&|!|\(|\)|[A-Za-z][A-Za-z0-9_-]*\s*\([^()]*\)|true|false|True|False)"
    )

    def __init__(self, text: str, flags: dict[str, bool]) -> None:
        self.text, self.flags = text, flags
        self.tokens: list[str] = []
        pos = 0
        while pos < len(text) and text[pos:].strip():
            m = self._TOKEN.match(text, pos)
            if not m:
                raise Unevaluable(text)
            self.tokens.append(m[1])
            pos = m.end()
        self.i = 0

    def value(self) -> bool:
        result = self._or()
        if self.i != len(self.tokens):
            raise Unevaluable(self.text)
        return result

    def _take(self) -> str:
        if self.i >= len(self.tokens):
            raise Unevaluable(self.text)
        self.i += 1
        return self.tokens[self.i - 1]

    def _or(self) -> bool:
        parts = [self._and()]
        while self.i < len(self.tokens) and self.tokens[self.i] == "||":
            self._take()
            parts.append(self._and())
        return any(parts)

    def _and(self) -> bool:
        parts = [self._not()]
        while self.i < len(self.tokens) and self.tokens[self.i] == "&&":
            self._take()
            parts.append(self._not())
        return all(parts)

    def _not(self) -> bool:
        tok = self._take()
        if tok == "!":
            return not self._not()
        if tok == "(":
            inner = self._or()
            if self._take() != ")":
                raise Unevaluable(self.text)
            return inner
        if tok.lower() in ("true", "false"):
            return tok.lower() == "true"
        test, _, arg = tok.partition("(")
        arg = arg.rstrip(")").strip()
        test = test.strip().lower()
        if test == "os":
            return _OS_ALIASES.get(arg.lower(), arg.lower()) == TARGET_OS
        if test == "arch":
            return _ARCH_ALIASES.get(arg.lower(), arg.lower()) == TARGET_ARCH
        if test == "flag":
            if arg.lower() not in self.flags:
                raise Unevaluable(self.text)
            return self.flags[arg.lower()]
        if test == "impl":
            compiler, _, rng = arg.partition(" ")
            if compiler.lower() != "ghc":
                return False
            try:
                return HackageGrammar().parse(rng).contains(GHC_VERSION)
            except RangeSyntaxError:
                raise Unevaluable(self.text) from None
        raise Unevaluable(self.text)


@dataclass
class _Collector:
    own: str
    flags: dict[str, bool]
    commons: dict[str, _Node]
    sublibs: dict[str, _Node]
    found: dict[tuple[str, str, str | None], list[str]] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)

    def add(self, node: _Node, kind: str, marker: str | None, *, evaluate: bool) -> None:
        if id(node) in self.seen and kind == "runtime":
            return
        if kind == "runtime":
            self.seen.add(id(node))
        for name, value in node.fields:
            if name == "import":
                for common in (c.strip().lower() for c in value.split(",")):
                    if common in self.commons:
                        self.add(self.commons[common], kind, marker, evaluate=evaluate)
            elif name == "build-depends":
                self._depends(value, kind, marker, evaluate=evaluate)
        children = node.children
        i = 0
        while i < len(children):
            child = children[i]
            word, _, cond = child.header.partition(" ")
            if word.lower() != "if":
                i += 1
                continue
            branches: list[tuple[str | None, _Node]] = [(cond.strip(), child)]
            i += 1
            while i < len(children):
                w, _, c = children[i].header.partition(" ")
                if w.lower() == "elif":
                    branches.append((c.strip(), children[i]))
                elif w.lower() == "else":
                    branches.append((None, children[i]))
                else:
                    break
                i += 1
            self._branches(branches, kind, marker, evaluate=evaluate)

    def _branches(
        self,
        branches: list[tuple[str | None, _Node]],
        kind: str,
        marker: str | None,
        *,
        evaluate: bool,
    ) -> None:
        taken = False
        negated: list[str] = []
        for cond, body in branches:
            text = cond if cond is not None else "else"
            where = " && ".join([*negated, text]) if cond is not None else " && ".join(negated)
            if not evaluate or kind != "runtime":
                self.add(body, kind, marker or where, evaluate=False)
            elif taken:
                self.add(body, "conditional", where, evaluate=False)
            else:
                try:
                    holds = True if cond is None else _Cond(cond, self.flags).value()
                except Unevaluable:
                    self.add(body, "conditional", f"{where} (not decided here)", evaluate=False)
                    negated.append(f"!({text})")
                    continue
                if holds:
                    taken = True
                    self.add(body, kind, marker, evaluate=True)
                else:
                    self.add(body, "conditional", where, evaluate=False)
            if cond is not None:
                negated.append(f"!({cond})")

    def _depends(self, value: str, kind: str, marker: str | None, *, evaluate: bool) -> None:
        for item in _split(value):
            m = _DEP.match(" ".join(item.split()))
            if not m:
                continue
            name, component, rng = m[1], m[2], m[3].strip()
            if name.lower() == self.own.lower() or name.lower() in self.sublibs:
                # the package's own (sub-)libraries: their dependencies are built with it
                parts = [name.lower()] if name.lower() in self.sublibs else []
                if component:
                    parts += [p.strip().lower() for p in component.strip("{}").split(",")]
                for sub in parts:
                    if sub in self.sublibs:
                        self.add(self.sublibs[sub], kind, marker, evaluate=evaluate)
                continue
            self.found.setdefault((name, kind, marker), []).append(rng)


def split_top_level(text: str, *, opening: str = "(<", closing: str = ")>") -> list[str]:
    """Split on commas outside the given brackets (parentheses and angle brackets by default);
    parts are returned as written, empty ones included."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _split(value: str) -> list[str]:
    """The non-empty comma-separated items of a field, braces (`{a, b}`) kept whole."""
    return [p.strip() for p in split_top_level(value, opening="{", closing="}") if p.strip()]


def declared_version(text: str) -> str | None:
    """The top-level `version:` field of a `.cabal` text (None when absent)."""
    m = re.search(r"^version\s*:\s*(\S+)\s*$", text, re.IGNORECASE | re.MULTILINE)
    return m[1] if m else None


def library_dependencies(text: str, *, own: str) -> tuple[Dependency, ...] | None:
    """The dependencies of package `own`'s `.cabal` text by kind (see the module contract)."""
    root = _tree(text)
    if root is None:
        return None
    flags = _flags(root)
    collector = _Collector(
        own=own,
        flags=flags,
        commons=_sections(root, "common"),
        sublibs={k: v for k, v in _sections(root, "library").items() if k},
    )
    main = _sections(root, "library").get("")
    if main is not None:
        collector.add(main, "runtime", None, evaluate=True)
    for exe in _sections(root, "executable").values():
        collector.add(exe, "executable", None, evaluate=False)
    out: dict[tuple[str, str], Dependency] = {}
    runtime = {name for (name, kind, _) in collector.found if kind == "runtime"}
    for (name, kind, marker), ranges in collector.found.items():
        if kind != "runtime" and name in runtime:
            continue  # already an edge of the library on the target
        if kind != "runtime" and (name, kind) in out:
            continue
        wanted = [r for r in ranges if r and r != "-any"]
        requirement = wanted[0] if len(wanted) == 1 else " && ".join(f"({r})" for r in wanted)
        if kind == "runtime" and (name, kind) in out:
            before = out[(name, kind)].requirement
            if requirement and before:
                requirement = f"({before}) && ({requirement})"
            requirement = requirement or before
        out[(name, kind)] = Dependency(name, requirement, kind=kind, marker=marker)
    return tuple(out.values())


__all__ = [
    "GHC_VERSION",
    "TARGET_ARCH",
    "TARGET_OS",
    "declared_version",
    "library_dependencies",
]

"""
Elixir Mix `mix.lock`.

Format: the Elixir map written by Mix (`Mix.Dep.Lock`), e.g.
`%{"plug": {:hex, :plug, "1.15.3", "<inner hash>", [:mix], [{:mime, "~> 1.0 or ~> 2.0", [hex: :mime,
repo: "hexpm", optional: false]}], "hexpm", "<outer hash>"}, "dep": {:git, "https://...", "<sha>", []}}`
(see https://hexdocs.pm/mix/Mix.Tasks.Deps.html). The file is Elixir source; it is read by a small
tokenizer and recursive-descent parser for the literal subset Mix writes — never evaluated.

- One package per map entry. `:hex` entries are resolved (the second element is the Hex package name,
  which may differ from the app name; private repositories other than `hexpm` keep resolved but get no
  purl, since their names are not public Hex names). `:git` and `:path` entries are unresolved.
- mix.lock records neither the project's own dependencies nor `only: :dev|:test` → `direct`/`dev` None.
- Edges come from the dependency lists of `:hex` entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    dedupe_edges,
    head,
    redact_url,
    registry_package,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

KIND = "mix.lock"
_MAX_DEPTH = 64
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@?!.")
_PUNCT = ("%{", "=>", "{", "}", "[", "]", ",")


@dataclass(frozen=True, slots=True)
class Atom:
    """An Elixir atom (`:hex`, `true`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Pair:
    """A keyword pair (`repo: "hexpm"`) or a map association (`"plug" => {...}`)."""

    key: Any
    value: Any
    line: int | None = None


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "punct" | "string" | "atom" | "key" | "number" | "ident" | "end"
    value: str
    line: int
    column: int


def _tokenize(text: str) -> list[_Token]:
    """Tokens of the Elixir literal subset; `LockfileError` with the position of anything else."""
    tokens: list[_Token] = []
    i, n, line, line_start = 0, len(text), 1, 0
    while i < n:
        ch = text[i]
        column = i - line_start + 1
        if ch == "\n":
            line, line_start = line + 1, i + 1
            i += 1
        elif ch in " \t\r\ufeff":
            i += 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith(_PUNCT, i):
            punct = next(p for p in _PUNCT if text.startswith(p, i))
            tokens.append(_Token("punct", punct, line, column))
            i += len(punct)
        elif ch == '"' or (ch == ":" and text.startswith('"', i + 1)):
            start_line = line
            quoted_atom = ch == ":"
            start = i + 1 if quoted_atom else i
            j, chunk = start + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    chunk.append(text[j + 1])
                    j += 2
                    continue
                if text[j] == "\n":
                    line, line_start = line + 1, j + 1
                chunk.append(text[j])
                j += 1
            if j >= n:
                raise LockfileError(KIND, "unterminated string", line=start_line, column=column)
            i = j + 1
            if quoted_atom:
                tokens.append(_Token("atom", "".join(chunk), line, column))
                continue
            is_key = i < n and text[i] == ":" and (i + 1 >= n or text[i + 1] in " \t\r\n")
            tokens.append(_Token("key" if is_key else "string", "".join(chunk), line, column))
            i += 1 if is_key else 0
        elif ch == ":" and i + 1 < n and text[i + 1] in _IDENT_CHARS:
            j = i + 1
            while j < n and text[j] in _IDENT_CHARS:
                j += 1
            tokens.append(_Token("atom", text[i + 1 : j], line, column))
            i = j
        elif ch in _IDENT_CHARS:
            j = i
            while j < n and text[j] in _IDENT_CHARS:
                j += 1
            word = text[i:j]
            if j < n and text[j] == ":" and (j + 1 >= n or text[j + 1] in " \t\r\n"):
                tokens.append(_Token("key", word, line, column))
                j += 1
            elif word[0].isdigit():
                tokens.append(_Token("number", word, line, column))
            else:
                tokens.append(_Token("ident", word, line, column))
            i = j
        else:
            raise LockfileError(KIND, f"unexpected character {ch!r}", line=line, column=column)
    tokens.append(_Token("end", "", line, i - line_start + 1))
    return tokens


class _Parser:
    """Recursive descent over the tokens, depth-limited."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def take(self) -> _Token:
        token = self.tokens[self.pos]
        if token.kind != "end":
            self.pos += 1
        return token

    def fail(self, message: str, token: _Token | None = None) -> LockfileError:
        token = token or self.peek()
        if token.kind == "end":
            message = f"{message} (unexpected end of file)"
        return LockfileError(KIND, message, line=token.line, column=token.column)

    def expect(self, value: str) -> None:
        token = self.take()
        if token.kind != "punct" or token.value != value:
            raise self.fail(f"expected {value!r}", token)

    def value(self, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise self.fail("nesting is too deep")
        token = self.take()
        if token.kind == "string":
            return token.value
        if token.kind == "atom":
            return Atom(token.value)
        if token.kind == "number":
            return token.value
        if token.kind == "ident" and token.value in ("true", "false", "nil"):
            return Atom(token.value)
        if token.kind == "punct" and token.value == "%{":
            return self.sequence("}", depth, allow_pairs=True)
        if token.kind == "punct" and token.value == "{":
            return tuple(self.sequence("}", depth, allow_pairs=False))
        if token.kind == "punct" and token.value == "[":
            return self.sequence("]", depth, allow_pairs=True)
        raise self.fail(f"unexpected {token.value or token.kind!r}", token)

    def sequence(self, close: str, depth: int, *, allow_pairs: bool) -> list[Any]:
        items: list[Any] = []
        while True:
            token = self.peek()
            if token.kind == "punct" and token.value == close:
                self.take()
                return items
            if allow_pairs and token.kind == "key":
                self.take()
                items.append(Pair(token.value, self.value(depth + 1), token.line))
            else:
                item = self.value(depth + 1)
                nxt = self.peek()
                if allow_pairs and nxt.kind == "punct" and nxt.value == "=>":
                    self.take()
                    item = Pair(item, self.value(depth + 1), token.line)
                items.append(item)
            token = self.take()
            if token.kind == "punct" and token.value == close:
                return items
            if token.kind != "punct" or token.value != ",":
                raise self.fail(f"expected ',' or {close!r}", token)


def parse_terms(text: str) -> list[Any]:
    """The entries (`Pair`s) of the top-level `%{...}` map of a mix.lock."""
    parser = _Parser(_tokenize(text))
    first = parser.take()
    if first.kind != "punct" or first.value != "%{":
        raise parser.fail("a mix.lock must start with '%{'", first)
    entries = parser.sequence("}", 1, allow_pairs=True)
    trailing = parser.peek()
    if trailing.kind != "end":
        raise parser.fail("unexpected content after the map", trailing)
    return entries


class MixLockParser:
    """Elixir Mix `mix.lock`."""

    kind: ClassVar[str] = KIND
    filenames: ClassVar[tuple[str, ...]] = ("mix.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.mix.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.HEX

    def sniff(self, text: str) -> bool:
        """An Elixir map `%{` whose entries are `{:hex, ...}` / `{:git, ...}` tuples."""
        start = head(text).lstrip()
        return start.startswith("%{") and (
            "{:hex," in start or "{:git," in start or "{:path," in start
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a mix.lock; `LockfileError` with the line/column of the first unparsable token."""
        packages: list[LockedPackage] = []
        app_keys: dict[str, str] = {}
        dep_apps: list[list[str]] = []
        for entry in parse_terms(text):
            if not isinstance(entry, Pair) or not isinstance(entry.key, str):
                line = entry.line if isinstance(entry, Pair) else None
                raise LockfileError(self.kind, 'entries must read "app": {...}', line=line)
            if not isinstance(entry.value, tuple) or not entry.value:
                raise LockfileError(
                    self.kind, f"entry {entry.key!r} is not a tuple", line=entry.line
                )
            package, deps = self._package(entry.key, entry.value)
            app_keys[entry.key] = package.key
            packages.append(package)
            dep_apps.append(deps)
        edges = [
            (package.key, app_keys[app])
            for package, apps in zip(packages, dep_apps, strict=True)
            for app in apps
            if app in app_keys
        ]
        return ParsedLockfile(self.kind, self.ecosystem, tuple(packages), dedupe_edges(edges), ())

    def _package(self, app: str, term: tuple[Any, ...]) -> tuple[LockedPackage, list[str]]:
        scm = term[0].name if isinstance(term[0], Atom) else None
        if scm == "hex" and len(term) >= 3 and isinstance(term[2], str):
            name = term[1].name if isinstance(term[1], Atom) else app
            version = term[2]
            deps: list[str] = []
            if len(term) >= 6 and isinstance(term[5], list):
                for dep in term[5]:
                    if isinstance(dep, tuple) and dep and isinstance(dep[0], Atom):
                        deps.append(dep[0].name)
            repo = term[6] if len(term) >= 7 and isinstance(term[6], str) else "hexpm"
            package = registry_package(self.ecosystem, name, version, dependencies=deps)
            if repo != "hexpm":
                package = LockedPackage(
                    ecosystem=self.ecosystem,
                    name=name,
                    version=version,
                    purl=None,
                    resolved=True,
                    source=f"registry:{repo}",
                    dependencies=tuple(deps),
                )
            return package, deps
        if scm == "git" and len(term) >= 3:
            url = redact_url(str(term[1]))
            where = f"{url}@{term[2]}" if isinstance(term[2], str) else url
            return (
                unresolved_package(
                    self.ecosystem,
                    app,
                    None,
                    reason=f"git source {where}, not a registry version",
                    source="git",
                    requirement=where,
                ),
                [],
            )
        what = scm or "unknown"
        return (
            unresolved_package(
                self.ecosystem,
                app,
                None,
                reason=f"{what} dependency, not a registry version",
                source="path" if scm == "path" else what,
            ),
            [],
        )

"""
Helpers shared by the lockfile parsers: loading JSON/JSONC/YAML/TOML with errors that name the line, URL
redaction, npm-name handling and small graph utilities. Pure functions; nothing here does I/O.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from pkgintel.domain.errors import InvalidInput, LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import build_purl
from pkgintel.lockfiles.base import LockedPackage

HEAD = 8192
"""How many leading characters content sniffers look at."""

_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def head(text: str) -> str:
    """The leading part of `text` that sniffers inspect (without a UTF-8 BOM)."""
    return text[:HEAD].lstrip("\ufeff")


def line_at(text: str, offset: int) -> int:
    """1-based line number of character `offset` in `text`."""
    return text.count("\n", 0, max(0, offset)) + 1


def line_of(text: str, needle: str) -> int | None:
    """1-based line of the first occurrence of `needle`, or None when absent."""
    index = text.find(needle)
    return None if index < 0 else line_at(text, index)


def last_line(text: str) -> int:
    """The number of the last line of `text` (where a truncated document ends)."""
    return text.count("\n") + 1 if text else 1


def load_json(kind: str, text: str) -> Any:
    """Parse JSON; `LockfileError` with the line and column of the first syntax error."""
    try:
        return json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise LockfileError(
            kind, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise LockfileError(kind, "JSON nesting is too deep", line=None) from None


def strip_jsonc(text: str) -> str:
    """
    JSONC → JSON: remove `//` and `/* */` comments and trailing commas outside strings.

    Linear scan; removed characters become spaces (newlines are kept), so line/column numbers of a later
    JSON error still point into the original text.
    """
    out: list[str] = []
    i, n = 0, len(text)
    pending_comma: int | None = None  # index in `out` of a comma that may turn out to be trailing
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            pending_comma = None
            i = j + 1
            continue
        if ch == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if ch == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if ch == ",":
            pending_comma = len(out)
            out.append(ch)
        elif ch in "}]":
            if pending_comma is not None:
                out[pending_comma] = " "
            pending_comma = None
            out.append(ch)
        else:
            if not ch.isspace():
                pending_comma = None
            out.append(ch)
        i += 1
    return "".join(out)


def load_jsonc(kind: str, text: str) -> Any:
    """Parse JSON with comments and trailing commas (bun.lock); errors as in `load_json`."""
    return load_json(kind, strip_jsonc(text.lstrip("\ufeff")))


_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_documents(kind: str, text: str) -> list[Any]:
    """All YAML documents of `text` (safe loader only); `LockfileError` with the line of a syntax error."""
    try:
        return list(yaml.load_all(text, Loader=_YAML_LOADER))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # an end-of-stream mark sits one line past the text: clamp it to the last line
        line = min(mark.line + 1, last_line(text)) if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        problem = exc.problem or exc.context or "syntax error"
        raise LockfileError(kind, f"invalid YAML: {problem}", line=line, column=column) from None
    except yaml.YAMLError as exc:
        raise LockfileError(kind, f"invalid YAML: {exc}", line=None) from None
    except RecursionError:
        raise LockfileError(kind, "YAML nesting is too deep", line=None) from None


def load_toml(kind: str, text: str) -> dict[str, Any]:
    """Parse TOML; `LockfileError` with the line/column tomllib reports (end of document → last line)."""
    try:
        return tomllib.loads(text.lstrip("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _TOML_POSITION.search(message)
        problem = _TOML_POSITION.sub("", message).replace("(at end of document)", "").strip()
        if match:
            line, column = int(match.group(1)), int(match.group(2))
            raise LockfileError(
                kind, f"invalid TOML: {problem}", line=line, column=column
            ) from None
        raise LockfileError(kind, f"invalid TOML: {problem}", line=last_line(text)) from None
    except RecursionError:
        raise LockfileError(kind, "TOML nesting is too deep", line=None) from None


Line = int | None | Callable[[], int | None]
"""A line number, or a function computing it (only called when an error is raised)."""


def _line(line: Line) -> int | None:
    return line() if callable(line) else line


def locate(text: str, needle: str) -> Callable[[], int | None]:
    """A deferred `line_of(text, needle)`: locating is O(size), so it is done only for errors."""
    return lambda: line_of(text, needle)


def require_mapping(kind: str, value: Any, what: str, *, line: Line = None) -> dict[str, Any]:
    """`value` when it is a mapping, else a `LockfileError` about `what` at `line`."""
    if not isinstance(value, dict):
        message = f"{what} must be a mapping, not {type(value).__name__}"
        raise LockfileError(kind, message, line=_line(line))
    return value


def redact_url(url: str) -> str:
    """`url` without user name/password (tokens sometimes sit there); unparseable text is returned as is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None and parts.username in (None, "git"):
        return url  # nothing secret (`git@host` is the conventional SSH user)
    # The host part as written after the credentials: `.port` would raise on a damaged port.
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def try_purl(ecosystem: Ecosystem, name: str, version: str | None) -> str | None:
    """The purl of a resolved package, or None when the name cannot form one."""
    try:
        return build_purl(ecosystem, name, version)
    except InvalidInput:
        return None


def registry_package(
    ecosystem: Ecosystem,
    name: str,
    version: str,
    *,
    direct: bool | None = None,
    dev: bool | None = None,
    source: str = "registry",
    dependencies: Iterable[str] = (),
) -> LockedPackage:
    """A resolved package pinned to one registry version."""
    return LockedPackage(
        ecosystem=ecosystem,
        name=name,
        version=version,
        direct=direct,
        dev=dev,
        purl=try_purl(ecosystem, name, version),
        resolved=True,
        source=source,
        dependencies=tuple(dependencies),
    )


def unresolved_package(
    ecosystem: Ecosystem,
    name: str,
    version: str | None,
    *,
    reason: str,
    source: str | None,
    requirement: str | None = None,
    direct: bool | None = None,
    dev: bool | None = None,
    dependencies: Iterable[str] = (),
) -> LockedPackage:
    """An entry that cannot be pinned to one registry version; `reason` says why."""
    return LockedPackage(
        ecosystem=ecosystem,
        name=name,
        version=version,
        direct=direct,
        dev=dev,
        purl=None,
        resolved=False,
        unresolved_reason=reason,
        requirement=requirement,
        source=source,
        dependencies=tuple(dependencies),
    )


def split_npm_ident(ident: str) -> tuple[str, str]:
    """`name@spec` → (name, spec), scopes respected: `@babel/core@7.0.0` → (`@babel/core`, `7.0.0`)."""
    at = ident.find("@", 1)
    if at < 0:
        return ident, ""
    return ident[:at], ident[at + 1 :]


_GIT_PREFIXES = ("git+", "git:", "git@", "github:", "gitlab:", "bitbucket:", "gist:", "ssh://")


def classify_npm_resolved(resolved: str | None) -> str | None:
    """
    The source of an npm-family `resolved`/`resolution` value: `registry`, `git`, `path`, `url` or None.

    Registry tarballs are recognised by npm's `/-/` tarball path; other HTTP(S) archives are `url`;
    codeload.github.com archives are `git`.
    """
    if not resolved:
        return None
    lowered = resolved.lower()
    if lowered.startswith(_GIT_PREFIXES) or "codeload.github.com/" in lowered:
        return "git"
    if lowered.startswith(("file:", "link:", "workspace:", "portal:")):
        return "path"
    if lowered.startswith(("http://", "https://")):
        return "registry" if "/-/" in lowered else "url"
    return None


def reachable(roots: Iterable[str], neighbours: Callable[[str], Iterable[str]]) -> set[str]:
    """Every node reachable from `roots` (roots included), breadth first, each node visited once."""
    seen: set[str] = set()
    queue: deque[str] = deque()
    for root in roots:
        if root not in seen:
            seen.add(root)
            queue.append(root)
    while queue:
        node = queue.popleft()
        for nxt in neighbours(node):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def dev_flag(key: str, prod: set[str], dev: set[str]) -> bool | None:
    """False when reachable from production roots, True when only from dev roots, else None."""
    if key in prod:
        return False
    if key in dev:
        return True
    return None


def dedupe_edges(edges: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Edges without duplicates or self-loops, in first-seen order."""
    seen: dict[tuple[str, str], None] = {}
    for edge in edges:
        if edge[0] != edge[1]:
            seen.setdefault(edge, None)
    return tuple(seen)


def table_lines(text: str, header: str) -> list[int]:
    """1-based line numbers of every line that is exactly `header` (e.g. `[[package]]`), in order."""
    return [
        number for number, line in enumerate(text.splitlines(), start=1) if line.strip() == header
    ]


def array_of_tables(
    kind: str, text: str, data: dict[str, Any], key: str
) -> list[tuple[dict[str, Any], int | None]]:
    """
    The tables of TOML array `key` (`[[key]]`), each with the line of its header when it can be located.

    Raises `LockfileError` when `key` is not an array of tables.
    """
    raw = data.get(key, [])
    lines = table_lines(text, f"[[{key}]]")
    if not isinstance(raw, list):
        raise LockfileError(kind, f"{key!r} must be an array of tables", line=line_of(text, key))
    result: list[tuple[dict[str, Any], int | None]] = []
    for index, table in enumerate(raw):
        line = lines[index] if index < len(lines) else None
        if not isinstance(table, dict):
            raise LockfileError(kind, f"{key}[{index}] must be a table", line=line)
        result.append((table, line))
    return result


def none_to(value: Any, default: Any) -> Any:
    """`default` when `value` is None (an absent or empty YAML/JSON section), else `value` unchanged."""
    return default if value is None else value

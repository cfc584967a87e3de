"""
Yarn `yarn.lock`: classic (v1) text format and Berry (Yarn 2+, YAML with `__metadata`).

Formats: classic https://classic.yarnpkg.com/en/docs/yarn-lock (a line format, parsed here by a small
line tokenizer); Berry https://yarnpkg.com/configuration/yarnrc and the lockfile written by
`@yarnpkg/core` (`Project.generateLockfile`): YAML, keys are comma-joined descriptors.

- One package per lockfile entry (an entry may carry several descriptors, e.g. `foo@^1.0.0, foo@^1.1.0`).
- Classic: the file does not record the project's own dependencies nor dev-ness → `direct`/`dev` None.
- Berry: workspace entries (`name@workspace:...`) list the workspace's dependencies (dev and prod merged),
  so packages they reference are direct and the others transitive; `dev` is None. Workspace entries are
  unresolved (`workspace` source); `patch:` entries resolve to their patched registry version.
- Git, file/link/portal, exec and non-registry tarball sources are unresolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import unquote

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    classify_npm_resolved,
    dedupe_edges,
    head,
    load_yaml_documents,
    locate,
    redact_url,
    registry_package,
    require_mapping,
    split_npm_ident,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_DEP_SECTIONS = ("dependencies", "optionalDependencies")
_BERRY_MARKER = re.compile(r"^__metadata:\s*$", re.MULTILINE)
_CLASSIC_MARKER = "# yarn lockfile v1"


@dataclass(slots=True)
class _Entry:
    """One classic entry as read from the text."""

    line: int
    specifiers: list[str]
    fields: dict[str, str] = field(default_factory=dict)
    sections: dict[str, dict[str, str]] = field(default_factory=dict)


def _tokenize(kind: str, text: str, lineno: int) -> list[str]:
    """
    Tokens of one classic line (indentation removed): quoted strings (unquoted), bare words, `,` and `:`.

    A bare word ends at whitespace, `,` or a `:` that is followed by whitespace or the end of the line
    (URLs keep their `:`). Raises `LockfileError` for an unterminated string.
    """
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t":
            i += 1
        elif ch == '"':
            j = i + 1
            chunk: list[str] = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    chunk.append(text[j + 1])
                    j += 2
                else:
                    chunk.append(text[j])
                    j += 1
            if j >= n:
                raise LockfileError(kind, "unterminated string", line=lineno, column=i + 1)
            tokens.append("\x00" + "".join(chunk))  # \x00 marks "was quoted"
            i = j + 1
        elif ch == ",":
            tokens.append(",")
            i += 1
        elif ch == ":" and (i + 1 >= n or text[i + 1] in " \t"):
            tokens.append(":")
            i += 1
        else:
            j = i
            while (
                j < n
                and text[j] not in ' \t,"'
                and not (text[j] == ":" and (j + 1 >= n or text[j + 1] in " \t"))
            ):
                j += 1
            tokens.append(text[i:j])
            i = j
    return tokens


_BARE_NAME = re.compile(r"^(?:@[A-Za-z0-9._~-]+/)?[A-Za-z0-9._~-]+$")


def _word(token: str) -> str:
    return token[1:] if token.startswith("\x00") else token


def _parse_classic_entries(kind: str, text: str) -> list[_Entry]:
    """The entries of a classic yarn.lock, validating indentation and line shapes."""
    entries: list[_Entry] = []
    current: _Entry | None = None
    section: dict[str, str] | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.rstrip()
        if not stripped or stripped.lstrip().startswith("#"):
            continue
        indent = len(stripped) - len(stripped.lstrip(" "))
        if stripped.startswith("\t"):
            raise LockfileError(kind, "tab indentation is not valid", line=lineno, column=1)
        tokens = _tokenize(kind, stripped[indent:], lineno)
        if indent == 0:
            if not tokens or tokens[-1] != ":":
                raise LockfileError(kind, "entry header must end with ':'", line=lineno)
            specifiers = [_word(t) for t in tokens[:-1] if t != ","]
            # `name@range` descriptors; a bare package name (`balanced-match:`) is read as that
            # name with no range, as yarn and the peers do.
            if not specifiers or any(
                "@" not in s[1:] and not _BARE_NAME.match(s) for s in specifiers
            ):
                raise LockfileError(
                    kind, "entry header must list name@range descriptors", line=lineno
                )
            current = _Entry(line=lineno, specifiers=specifiers)
            entries.append(current)
            section = None
        elif indent == 2:
            if current is None:
                raise LockfileError(kind, "field outside of an entry", line=lineno)
            if len(tokens) == 2 and tokens[1] == ":":
                section = current.sections.setdefault(_word(tokens[0]), {})
            elif len(tokens) == 2 and tokens[1] != ":":
                current.fields[_word(tokens[0])] = _word(tokens[1])
                section = None
            else:
                raise LockfileError(kind, "expected 'key value' or 'key:'", line=lineno)
        elif indent == 4:
            if section is None:
                raise LockfileError(kind, "nested value outside of a section", line=lineno)
            if len(tokens) != 2 or tokens[1] == ":":
                raise LockfileError(kind, "expected 'name range'", line=lineno)
            section[_word(tokens[0])] = _word(tokens[1])
        else:
            raise LockfileError(kind, f"unexpected indentation of {indent} spaces", line=lineno)
    for entry in entries:
        if "version" not in entry.fields:
            raise LockfileError(kind, "entry has no version", line=entry.line)
    return entries


def _range_source(spec: str) -> str | None:
    """Source implied by a classic descriptor's range (`file:..`, `github:..`, `user/repo#sha`, URL)."""
    source = classify_npm_resolved(spec)
    if source is None and "/" in spec and not spec.startswith(("npm:", "@")):
        return "git"  # `owner/repo#ref` GitHub shorthand
    return source


class YarnLockParser:
    """Yarn `yarn.lock`, classic v1 and Berry."""

    kind: ClassVar[str] = "yarn.lock"
    filenames: ClassVar[tuple[str, ...]] = ("yarn.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.yarn.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM

    def sniff(self, text: str) -> bool:
        """Classic: the `# yarn lockfile v1` banner or descriptor headers; Berry: a `__metadata:` key."""
        start = head(text)
        if _CLASSIC_MARKER in start or _BERRY_MARKER.search(start):
            return True
        # Without the banner: the first entry reads `name@range:` followed by `  version "..."`.
        lines = [line for line in start.splitlines() if line.strip() and not line.startswith("#")]
        return (
            len(lines) >= 2
            and not lines[0].startswith((" ", "{", "["))
            and lines[0].rstrip().endswith(":")
            and "@" in lines[0]
            and lines[1].startswith('  version "')
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a classic or Berry lockfile; `LockfileError` names the failing line."""
        if _BERRY_MARKER.search(text) and _CLASSIC_MARKER not in head(text):
            return self._parse_berry(text)
        return self._parse_classic(text)

    # -- classic -----------------------------------------------------------------------------------

    def _parse_classic(self, text: str) -> ParsedLockfile:
        entries = _parse_classic_entries(self.kind, text)
        by_descriptor: dict[str, int] = {}
        packages: list[LockedPackage] = []
        for index, entry in enumerate(entries):
            for spec in entry.specifiers:
                by_descriptor[spec] = index
            packages.append(self._classic_package(entry))
        edges: list[tuple[str, str]] = []
        for index, entry in enumerate(entries):
            for section in _DEP_SECTIONS:
                for dep_name, dep_range in entry.sections.get(section, {}).items():
                    target = by_descriptor.get(f"{dep_name}@{dep_range}")
                    if target is not None:
                        edges.append((packages[index].key, packages[target].key))
        return ParsedLockfile(self.kind, self.ecosystem, tuple(packages), dedupe_edges(edges), ())

    def _classic_package(self, entry: _Entry) -> LockedPackage:
        name, spec = split_npm_ident(entry.specifiers[0])
        if spec.startswith("npm:"):
            name, spec = split_npm_ident(spec[4:])
        version = entry.fields["version"]
        resolved = entry.fields.get("resolved")
        deps = tuple(d for s in _DEP_SECTIONS for d in entry.sections.get(s, {}))
        source = classify_npm_resolved(resolved) if resolved else None
        range_source = _range_source(spec)
        if range_source in ("git", "path") or source is None:
            source = range_source or source
        if source is None and _EXACT_VERSION.match(version):
            source = "registry"
        if source == "registry" and _EXACT_VERSION.match(version):
            return registry_package(self.ecosystem, name, version, dependencies=deps)
        where = redact_url(resolved or spec)
        return unresolved_package(
            self.ecosystem,
            name,
            version if _EXACT_VERSION.match(version) else None,
            reason=f"{source or 'unknown'} source ({where}), not a registry version",
            source=source or "unknown",
            requirement=redact_url(spec),
            dependencies=deps,
        )

    # -- berry -------------------------------------------------------------------------------------

    def _parse_berry(self, text: str) -> ParsedLockfile:
        documents = load_yaml_documents(self.kind, text)
        if len(documents) != 1:
            raise LockfileError(self.kind, "expected one YAML document", line=1)
        data = require_mapping(self.kind, documents[0], "the document", line=1)
        entries: dict[str, dict[str, Any]] = {}
        by_descriptor: dict[str, str] = {}
        for key, value in data.items():
            if key == "__metadata":
                continue
            where = locate(text, str(key))
            entry = require_mapping(self.kind, value, f"entry {key!r}", line=where)
            if not isinstance(entry.get("resolution"), str):
                raise LockfileError(self.kind, f"entry {key!r} has no resolution", line=where())
            entries[str(key)] = entry
            for descriptor in str(key).split(","):
                by_descriptor[descriptor.strip()] = str(key)

        def lookup(dep_name: str, dep_range: Any) -> str | None:
            spec = f"{dep_name}@{dep_range}"
            return by_descriptor.get(spec) or by_descriptor.get(f"{dep_name}@npm:{dep_range}")

        workspace_keys = {k for k, e in entries.items() if "@workspace:" in e["resolution"]}
        direct_keys: set[str] = set()
        for key in workspace_keys:
            for section in (*_DEP_SECTIONS, "devDependencies"):
                deps = entries[key].get(section)
                if isinstance(deps, dict):
                    for dep_name, dep_range in deps.items():
                        target = lookup(str(dep_name), dep_range)
                        if target is not None:
                            direct_keys.add(target)

        packages: dict[str, LockedPackage] = {}
        for key, entry in entries.items():
            is_workspace = key in workspace_keys
            direct = None if is_workspace else key in direct_keys
            packages[key] = self._berry_package(entry, direct)
        edges: list[tuple[str, str]] = []
        for key, entry in entries.items():
            for section in _DEP_SECTIONS:
                deps = entry.get(section)
                if isinstance(deps, dict):
                    for dep_name, dep_range in deps.items():
                        target = lookup(str(dep_name), dep_range)
                        if target is not None:
                            edges.append((packages[key].key, packages[target].key))
        return ParsedLockfile(
            self.kind, self.ecosystem, tuple(packages.values()), dedupe_edges(edges), ()
        )

    def _berry_package(self, entry: dict[str, Any], direct: bool | None) -> LockedPackage:
        resolution: str = entry["resolution"]
        name, locator = split_npm_ident(resolution)
        version = str(entry.get("version", "")) or None
        deps = tuple(
            str(d) for s in _DEP_SECTIONS if isinstance(entry.get(s), dict) for d in entry[s]
        )
        protocol, _, reference = locator.partition(":")
        if protocol == "npm" and _EXACT_VERSION.match(reference):
            return registry_package(
                self.ecosystem, name, reference, direct=direct, dependencies=deps
            )
        if protocol == "patch":
            inner = unquote(reference.split("#", 1)[0])
            inner_name, inner_locator = split_npm_ident(inner)
            inner_version = inner_locator.removeprefix("npm:")
            if inner_locator.startswith("npm:") and _EXACT_VERSION.match(inner_version):
                return registry_package(
                    self.ecosystem,
                    inner_name,
                    inner_version,
                    direct=direct,
                    source="patch",
                    dependencies=deps,
                )
            source, what = "patch", f"patch of {inner}"
        elif protocol == "workspace":
            source, what = "workspace", f"workspace package at {reference!r}"
        elif protocol in ("file", "link", "portal"):
            source, what = "path", f"local {protocol}: {reference!r}"
        elif protocol == "exec":
            source, what = "exec", "generated by a script (exec:)"
        elif protocol in ("git", "git+ssh", "git+https", "github") or ".git#" in locator:
            source, what = "git", f"git source {redact_url(locator)}"
        elif protocol in ("http", "https"):
            source, what = "url", f"tarball {redact_url(locator)}"
        else:
            source, what = protocol or "unknown", f"{redact_url(locator)}"
        exact = version if version and _EXACT_VERSION.match(version) else None
        return unresolved_package(
            self.ecosystem,
            name,
            exact,
            reason=f"{what}, not a registry version",
            source=source,
            requirement=redact_url(locator),
            direct=direct,
            dependencies=deps,
        )

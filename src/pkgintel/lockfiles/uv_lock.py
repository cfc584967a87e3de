"""
uv `uv.lock` (lock `version = 1`, any `revision`).

Format: https://docs.astral.sh/uv/concepts/projects/layout/#the-lockfile (TOML written by uv; the schema
is uv's `Lock` type, not a standard).

- One package per `[[package]]` table.
- Workspace members (`source = { virtual | editable = ... }`, and `[manifest] members`) are the project
  itself: the root project (the member at `.`) is left out with a warning naming it (it is what is
  audited, not a dependency); other members are unresolved (`workspace` source). Their `dependencies`,
  `optional-dependencies` and `dev-dependencies` are the direct dependencies.
- `dev`: from the graph: reachable from a member's `dependencies`/`optional-dependencies` → False; only
  from its `dev-dependencies` (dependency groups) → True; unreachable → None.
- `git`, `path`, `directory`, `editable` and `url` sources are unresolved.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    array_of_tables,
    dedupe_edges,
    dev_flag,
    head,
    load_toml,
    reachable,
    redact_url,
    registry_package,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_MEMBER_SOURCES = ("virtual", "editable")


def _norm(name: str) -> str:
    return normalise_name(Ecosystem.PYPI, name)


def _dep_list(value: Any) -> list[dict[str, Any]]:
    return [d for d in value if isinstance(d, dict)] if isinstance(value, list) else []


def _grouped(value: Any) -> list[dict[str, Any]]:
    """Dependencies of a `{group-or-extra: [deps]}` table, flattened."""
    if not isinstance(value, dict):
        return []
    return [d for deps in value.values() for d in _dep_list(deps)]


class UvLockParser:
    """uv `uv.lock`."""

    kind: ClassVar[str] = "uv.lock"
    filenames: ClassVar[tuple[str, ...]] = ("uv.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.uv.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI

    def sniff(self, text: str) -> bool:
        """`[[package]]` tables with uv's inline `source = { registry|virtual|editable = ... }`."""
        start = head(text)
        return "[[package]]" in start and (
            "source = { registry = " in start
            or "source = { virtual = " in start
            or "source = { editable = " in start
            or ("\nrevision = " in "\n" + start and "requires-python = " in start)
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a uv.lock; `LockfileError` for invalid TOML or a package without a name."""
        data = load_toml(self.kind, text)
        tables = array_of_tables(self.kind, text, data, "package")
        manifest = data.get("manifest")
        members_list = manifest.get("members", []) if isinstance(manifest, dict) else []
        declared_members = {_norm(m) for m in members_list if isinstance(m, str)}

        rows: list[tuple[dict[str, Any], int | None, str, str | None]] = []
        for table, line in tables:
            name, version = table.get("name"), table.get("version")
            if not isinstance(name, str) or not name:
                raise LockfileError(self.kind, "[[package]] without a name", line=line)
            rows.append((table, line, name, version if isinstance(version, str) else None))

        by_name: dict[str, list[int]] = {}
        for index, (_, _, name, _) in enumerate(rows):
            by_name.setdefault(_norm(name), []).append(index)

        def source_kind(table: dict[str, Any]) -> str | None:
            source = table.get("source")
            if isinstance(source, dict) and source:
                return str(next(iter(source)))
            return None

        def location(table: dict[str, Any]) -> str:
            kind = source_kind(table)
            return str(table["source"][kind]) if kind else ""

        # Workspace members: `[manifest] members` when present, else the virtual/editable project at ".".
        candidates = [i for i, row in enumerate(rows) if source_kind(row[0]) in _MEMBER_SOURCES]
        if declared_members:
            members = {i for i, row in enumerate(rows) if _norm(row[2]) in declared_members}
        else:
            members = {i for i in candidates if location(rows[i][0]) == "."} or set(candidates)

        def targets(dep: dict[str, Any]) -> list[int]:
            name = dep.get("name")
            if not isinstance(name, str):
                return []
            found = by_name.get(_norm(name), [])
            version = dep.get("version")
            if isinstance(version, str) and len(found) > 1:
                found = [i for i in found if rows[i][3] == version] or found
            return found

        def neighbours_of(
            index: int, extras: tuple[str, ...] = ()
        ) -> list[tuple[int, tuple[str, ...]]]:
            table = rows[index][0]
            deps = _dep_list(table.get("dependencies"))
            optional = table.get("optional-dependencies")
            if isinstance(optional, dict):
                for extra in extras:
                    deps.extend(_dep_list(optional.get(extra)))
            out: list[tuple[int, tuple[str, ...]]] = []
            for dep in deps:
                dep_extras = tuple(str(e) for e in dep.get("extra", []) if isinstance(e, str))
                out.extend((t, dep_extras) for t in targets(dep))
            return out

        # The graph walks (package, requested extras) states so extras pull their optional deps.
        def walk(roots: list[tuple[int, tuple[str, ...]]]) -> set[int]:
            encoded = [f"{i}|{','.join(e)}" for i, e in roots]

            def step(state: str) -> list[str]:
                index, _, extras = state.partition("|")
                chosen = tuple(x for x in extras.split(",") if x)
                return [f"{t}|{','.join(e)}" for t, e in neighbours_of(int(index), chosen)]

            return {int(state.partition("|")[0]) for state in reachable(encoded, step)}

        prod_roots: list[tuple[int, tuple[str, ...]]] = []
        dev_roots: list[tuple[int, tuple[str, ...]]] = []
        direct: set[int] = set()
        for member in members:
            table = rows[member][0]
            for deps, bucket in (
                (_dep_list(table.get("dependencies")), prod_roots),
                (_grouped(table.get("optional-dependencies")), prod_roots),
                (_grouped(table.get("dev-dependencies")), dev_roots),
            ):
                for dep in deps:
                    dep_extras = tuple(str(e) for e in dep.get("extra", []) if isinstance(e, str))
                    for target in targets(dep):
                        if target not in members:
                            direct.add(target)
                        bucket.append((target, dep_extras))
        prod = {str(i) for i in walk(prod_roots)}
        dev = {str(i) for i in walk(dev_roots)}

        # The project itself (the member at ".") is what is being audited, not one of its
        # dependencies: it is left out, and a warning says so.
        roots = {
            i
            for i in members
            if source_kind(rows[i][0]) in _MEMBER_SOURCES and location(rows[i][0]) == "."
        }
        warnings = tuple(
            f"the project's own package {rows[i][2]!r} is left out" for i in sorted(roots)
        )
        packages: list[LockedPackage | None] = []
        for index, (table, _, name, version) in enumerate(rows):
            if index in roots:
                packages.append(None)
                continue
            is_member = index in members
            packages.append(
                self._package(
                    table,
                    name,
                    version,
                    source_kind(table),
                    is_member=is_member,
                    direct=None if is_member else index in direct,
                    dev=None if is_member else dev_flag(str(index), prod, dev),
                )
            )
        edges = [
            (source.key, target_package.key)
            for index in range(len(rows))
            if (source := packages[index]) is not None
            for target, _ in neighbours_of(index)
            if (target_package := packages[target]) is not None
        ]
        kept = tuple(p for p in packages if p is not None)
        return ParsedLockfile(self.kind, self.ecosystem, kept, dedupe_edges(edges), warnings)

    def _package(
        self,
        table: dict[str, Any],
        name: str,
        version: str | None,
        source_kind: str | None,
        *,
        is_member: bool,
        direct: bool | None,
        dev: bool | None,
    ) -> LockedPackage:
        deps = tuple(
            str(d["name"])
            for d in _dep_list(table.get("dependencies"))
            if isinstance(d.get("name"), str)
        )
        source = _v if isinstance(_v := table.get("source"), dict) else {}
        location = redact_url(str(source.get(source_kind, ""))) if source_kind else ""
        if source_kind == "registry" and version:
            return registry_package(
                self.ecosystem, name, version, direct=direct, dev=dev, dependencies=deps
            )
        if is_member:
            kind, what = "workspace", f"workspace member ({source_kind} {location!r})"
        elif source_kind == "git":
            kind, what = "git", f"git source {location}"
        elif source_kind in ("path", "directory", "editable", "virtual"):
            kind, what = "path", f"local {source_kind} {location!r}"
        elif source_kind == "url":
            kind, what = "url", f"archive {location}"
        elif source_kind is None:
            kind, what = "unknown", "no source recorded"
        else:
            kind, what = source_kind, f"{source_kind} source {location}"
        if source_kind == "registry":
            what = "registry package without a version"
        return unresolved_package(
            self.ecosystem,
            name,
            version,
            reason=f"{what}, not a registry version",
            source=kind,
            requirement=location or None,
            direct=direct,
            dev=dev,
            dependencies=deps,
        )

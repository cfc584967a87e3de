"""
pnpm `pnpm-lock.yaml` (lockfileVersion 5.x, 6.x and 9.x; multi-document files of pnpm 11 included).

Format: https://pnpm.io/git#lockfiles and the lockfile types of pnpm
(https://github.com/pnpm/pnpm/blob/main/lockfile/types/src/index.ts); no formal specification exists.

- One package per distinct `name@version` of the `packages` section(s); peer-dependency variants
  (`foo@1.0.0(react@18.2.0)`) are one package. Importer dependencies resolved with `link:` (workspace
  links) come back as unresolved `workspace` entries.
- Direct = referenced by an importer (`importers` in v6+/v9, the top-level `dependencies` sections of a
  single-project v5/v6 file).
- Dev: v5/v6 record it per package (`dev: true` only dev, `dev: false` only production, absent = both,
  i.e. needed in production). v9 no longer does, so it is computed from the dependency graph: reachable
  from an importer's `dependencies`/`optionalDependencies` → False; only from `devDependencies` → True;
  only from the package-manager/config dependencies of pnpm 11 → None.
- Git, tarball-URL and directory resolutions are unresolved.
- v5 keys may start with a registry host (`registry.npmjs.org/foo/1.1.0`, `example.com/foo/1.2.0_bar@2.0.0`):
  the host is dropped and the rest read as `/name/version`. A v5 key that is no dependency path at all
  (`invalidpath1`, or a v6-style `axios@1.2.5`) is an error naming its line, as pnpm itself treats it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    classify_npm_resolved,
    dedupe_edges,
    head,
    line_of,
    load_yaml_documents,
    locate,
    none_to,
    reachable,
    redact_url,
    registry_package,
    require_mapping,
    split_npm_ident,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_PROD_SECTIONS = ("dependencies", "optionalDependencies")
_DEV_SECTIONS = ("devDependencies",)
_TOOL_SECTIONS = ("packageManagerDependencies", "configDependencies")
_ALL_SECTIONS = (*_PROD_SECTIONS, *_DEV_SECTIONS, *_TOOL_SECTIONS)
_ALIAS = re.compile(r"^(?:@[^/@]+/)?[^@/:()]+@")
_EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_V5_HOST_KEY = re.compile(
    r"^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::\d+)?(/(?:@[^/@]+/)?[^/@_]+/\d[^/]*)$"
)
_LOCKFILE_VERSION = re.compile(r"^(?:---\s*\n)?lockfileVersion:\s*['\"]?\d", re.MULTILINE)


@dataclass(slots=True)
class _Acc:
    """A package being assembled from one or more peer variants / documents."""

    name: str
    version: str
    entry: dict[str, Any]
    direct: bool = False
    dev_values: list[bool | None] = field(default_factory=list)
    deps: dict[str, None] = field(default_factory=dict)


def _major(value: Any) -> int:
    try:
        return int(float(str(value).split(".")[0]))
    except ValueError:
        return 0


def _strip_peers(key: str, major: int) -> str:
    """`foo@1.0.0(react@18.2.0)` → `foo@1.0.0`; v5 `/foo/1.0.0_react@18.2.0` → `/foo/1.0.0`; v5
    keys of a package from a named registry host (`registry.npmjs.org/foo/1.1.0`,
    `example.com/@foo/bar/1.2.0_bar@2.0.0`) → the path without the host (`/foo/1.1.0`)."""
    paren = key.find("(", 1)
    if paren > 0:
        key = key[:paren]
    if major < 6:
        hosted = _V5_HOST_KEY.match(key)
        if hosted:
            key = hosted.group(1)
    if major < 6 and key.startswith("/"):
        underscore = key.find("_", key.rfind("/"))
        if underscore > 0:
            key = key[:underscore]
    return key


def _merge_dev(values: list[bool | None]) -> bool | None:
    if any(v is False for v in values):
        return False
    if values and all(v is True for v in values):
        return True
    return None


class PnpmLockParser:
    """pnpm `pnpm-lock.yaml`."""

    kind: ClassVar[str] = "pnpm-lock.yaml"
    filenames: ClassVar[tuple[str, ...]] = ("pnpm-lock.yaml", "pnpm-lock.yml")
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.pnpm-lock.yaml", "*.pnpm-lock.yml")
    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM

    def sniff(self, text: str) -> bool:
        """A YAML mapping starting with `lockfileVersion:`."""
        return bool(_LOCKFILE_VERSION.match(head(text).lstrip()))

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of every document; `LockfileError` for invalid YAML or an unexpected shape."""
        documents = [d for d in load_yaml_documents(self.kind, text) if d is not None]
        if not documents:
            raise LockfileError(self.kind, "the document is empty", line=1)
        accs: dict[tuple[str, str], _Acc] = {}
        links: dict[tuple[str, str], LockedPackage] = {}
        edges: list[tuple[tuple[str, str], tuple[str, str]]] = []
        warnings: list[str] = []
        for document in documents:
            doc = require_mapping(self.kind, document, "a pnpm-lock document", line=1)
            if "lockfileVersion" not in doc:
                raise LockfileError(self.kind, "no lockfileVersion", line=1)
            self._parse_document(text, doc, accs, links, edges, warnings)

        packages: list[LockedPackage] = []
        key_of: dict[tuple[str, str], str] = {}
        for ident, acc in accs.items():
            package = self._package(acc)
            key_of[ident] = package.key
            packages.append(package)
        packages.extend(links.values())
        edge_keys = [(key_of[a], key_of[b]) for a, b in edges if a in key_of and b in key_of]
        return ParsedLockfile(
            self.kind, self.ecosystem, tuple(packages), dedupe_edges(edge_keys), tuple(warnings)
        )

    # -- one document ---------------------------------------------------------------------------

    def _parse_document(
        self,
        text: str,
        doc: dict[str, Any],
        accs: dict[tuple[str, str], _Acc],
        links: dict[tuple[str, str], LockedPackage],
        edges: list[tuple[tuple[str, str], tuple[str, str]]],
        warnings: list[str],
    ) -> None:
        major = _major(doc.get("lockfileVersion"))

        def strip(key: str) -> str:
            return _strip_peers(key, major)

        raw_packages = none_to(doc.get("packages"), {})
        packages = require_mapping(
            self.kind, raw_packages, '"packages"', line=locate(text, "packages:")
        )
        snapshots = require_mapping(
            self.kind,
            none_to(doc.get("snapshots"), {}),
            '"snapshots"',
            line=locate(text, "snapshots:"),
        )
        # Nodes of the dependency graph: v9 snapshots, earlier versions the package entries themselves.
        nodes: dict[str, dict[str, Any]] = {}
        graph_source = snapshots if major >= 9 else packages
        for key, value in graph_source.items():
            nodes[str(key)] = require_mapping(
                self.kind, none_to(value, {}), f"entry {key!r}", line=locate(text, str(key))
            )
        if major < 6:
            for key in packages:
                # v5 keys are dependency paths: `/name/version`, `host/name/version`, or a
                # `file:`/URL reference; pnpm (and the peers) reject anything else.
                if "/" not in str(key) and ":" not in str(key):
                    raise LockfileError(
                        self.kind,
                        f"invalid package path {key!r}: a lockfile v{doc.get('lockfileVersion')} "
                        "key is /name/version",
                        line=line_of(text, f"{key}:"),
                    )
        entries: dict[str, dict[str, Any]] = {}
        for key, value in packages.items():
            entries[strip(str(key))] = require_mapping(
                self.kind, none_to(value, {}), f"package {key!r}", line=locate(text, str(key))
            )
        if major >= 9:
            # a package without any snapshot is still a package (no known dependencies)
            snapshot_bases = {strip(key) for key in nodes}
            for key in packages:
                if strip(str(key)) not in snapshot_bases:
                    nodes[str(key)] = {}

        def ident_of(node_key: str) -> tuple[str, str]:
            base = strip(node_key)
            entry = entries.get(base, {})
            if major >= 6 or not base.startswith("/"):
                name, version = split_npm_ident(base.lstrip("/"))
            else:
                name, _, version = base.lstrip("/").rpartition("/")
            if isinstance(entry.get("name"), str):
                name = entry["name"]
            if isinstance(entry.get("version"), str):
                version = entry["version"]
            return name, version

        def node_key(name: str, ref: Any) -> str | None:
            if isinstance(ref, dict):
                ref = ref.get("version")
            if not isinstance(ref, str) or ref.startswith("link:"):
                return None
            if ref in nodes:  # `file:` / URL keys are written as is
                return ref
            if major >= 9:
                candidate = ref if _ALIAS.match(ref) else f"{name}@{ref}"
            elif major >= 6:
                candidate = ref if ref.startswith("/") else f"/{name}@{ref}"
            else:
                candidate = ref if ref.startswith("/") else f"/{name}/{ref}"
            if candidate in nodes:
                return candidate
            stripped = strip(candidate)
            return stripped if stripped in nodes else (candidate if major >= 9 else None)

        for key in nodes:
            base = strip(key)
            if base not in entries:
                warnings.append(f"snapshot {key!r} has no entry in packages")
                continue
            ident = ident_of(key)
            acc = accs.get(ident)
            if acc is None:
                acc = accs[ident] = _Acc(name=ident[0], version=ident[1], entry=entries[base])
            if major < 9:
                dev = entries[base].get("dev")
                acc.dev_values.append(False if dev is None else bool(dev))
            for section in _PROD_SECTIONS:
                deps = nodes[key].get(section)
                if isinstance(deps, dict):
                    for dep_name in deps:
                        acc.deps.setdefault(str(dep_name), None)

        def neighbours(key: str) -> list[str]:
            out: list[str] = []
            for section in _PROD_SECTIONS:
                deps = nodes.get(key, {}).get(section)
                if isinstance(deps, dict):
                    for dep_name, ref in deps.items():
                        target = node_key(str(dep_name), ref)
                        if target is not None and target in nodes:
                            out.append(target)
            return out

        for key in nodes:
            if strip(key) in entries:
                for target in neighbours(key):
                    if strip(target) in entries:
                        edges.append((ident_of(key), ident_of(target)))

        importers = self._importers(text, doc)
        roots: dict[str, list[str]] = {"prod": [], "dev": [], "tool": []}
        for importer_path, importer in importers.items():
            for section in _ALL_SECTIONS:
                deps = importer.get(section)
                if not isinstance(deps, dict):
                    continue
                for dep_name, ref in deps.items():
                    version_ref = ref.get("version") if isinstance(ref, dict) else ref
                    if isinstance(version_ref, str) and version_ref.startswith("link:"):
                        self._add_link(links, str(dep_name), version_ref, importer_path, section)
                        continue
                    found = node_key(str(dep_name), ref)
                    if found is None or strip(found) not in entries:
                        warnings.append(
                            f"importer {importer_path!r}: {dep_name} → {version_ref!r} is not in packages"
                        )
                        continue
                    accs[ident_of(found)].direct = True
                    group = "prod" if section in _PROD_SECTIONS else "dev"
                    roots["tool" if section in _TOOL_SECTIONS else group].append(found)

        if major >= 9:
            prod = reachable(roots["prod"], neighbours)
            dev = reachable(roots["dev"], neighbours)
            for key in nodes:
                if strip(key) not in entries:
                    continue
                flag = False if key in prod else (True if key in dev else None)
                accs[ident_of(key)].dev_values.append(flag)

    def _importers(self, text: str, doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
        raw = doc.get("importers")
        if raw is not None:
            importers = require_mapping(
                self.kind, raw, '"importers"', line=locate(text, "importers:")
            )
            return {
                str(path): require_mapping(
                    self.kind,
                    none_to(value, {}),
                    f"importer {path!r}",
                    line=locate(text, str(path)),
                )
                for path, value in importers.items()
            }
        return {".": {section: doc[section] for section in _ALL_SECTIONS if section in doc}}

    def _add_link(
        self,
        links: dict[tuple[str, str], LockedPackage],
        name: str,
        ref: str,
        importer: str,
        section: str,
    ) -> None:
        target = ref.removeprefix("link:")
        if (name, target) in links:
            return
        links[(name, target)] = unresolved_package(
            self.ecosystem,
            name,
            None,
            reason=f"linked local directory {target!r} (workspace package of importer {importer!r})",
            source="workspace",
            requirement=ref,
            direct=True,
            dev=True
            if section in _DEV_SECTIONS
            else (False if section in _PROD_SECTIONS else None),
        )

    def _package(self, acc: _Acc) -> LockedPackage:
        dev = _merge_dev(acc.dev_values)
        resolution = acc.entry.get("resolution")
        resolution = resolution if isinstance(resolution, dict) else {}
        deps = tuple(acc.deps)
        if resolution.get("type") == "git" or "repo" in resolution:
            repo = redact_url(str(resolution.get("repo", "")))
            where = f"{repo}#{resolution.get('commit', '')}"
            source, reason = "git", f"git source ({where}), not a registry version"
        elif resolution.get("type") == "directory" or "directory" in resolution:
            where = str(resolution.get("directory", ""))
            source, reason = "path", f"local directory {where!r}, not a registry version"
        elif isinstance(resolution.get("tarball"), str):
            tarball = resolution["tarball"]
            source = classify_npm_resolved(tarball) or "url"
            reason = f"{source} source ({redact_url(tarball)}), not a registry version"
        elif _EXACT_VERSION.match(acc.version):
            source, reason = "registry", ""
        elif not acc.version:
            source, reason = "unknown", "the lockfile names no version for it"
        else:
            source = classify_npm_resolved(acc.version) or "unknown"
            reason = f"{source} source ({redact_url(acc.version)}), not a registry version"
        if source == "registry" and _EXACT_VERSION.match(acc.version):
            return registry_package(
                self.ecosystem, acc.name, acc.version, direct=acc.direct, dev=dev, dependencies=deps
            )
        exact = acc.version if _EXACT_VERSION.match(acc.version) else None
        return unresolved_package(
            self.ecosystem,
            acc.name,
            exact,
            reason=reason,
            source=source,
            requirement=None if exact else redact_url(acc.version),
            direct=acc.direct,
            dev=dev,
            dependencies=deps,
        )

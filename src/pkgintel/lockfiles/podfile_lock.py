"""
CocoaPods `Podfile.lock`.

Format: the lockfile CocoaPods writes (`Pod::Lockfile` in https://github.com/CocoaPods/Core,
`lib/cocoapods-core/lockfile.rb`; https://guides.cocoapods.org/using/using-cocoapods.html): YAML with
`PODS` (a list of `Name (version)` strings, or one-key mappings from such a string to the pod's own
dependencies `Other (requirement)`), `DEPENDENCIES` (the Podfile's pods), `SPEC REPOS` (spec repository
→ pod names; CocoaPods 1.6+), `EXTERNAL SOURCES` and `CHECKOUT OPTIONS` (pod → `:git`/`:path`/
`:podspec`, `:commit`/`:tag`/`:branch`), `SPEC CHECKSUMS`, `PODFILE CHECKSUM`, `COCOAPODS`.

Reading:

- **Subspecs are their pod.** `Firebase/Core (10.0.0)` and `Firebase/CoreOnly (10.0.0)` are parts of
  one podspec published once as `Firebase 10.0.0`: they become one package `Firebase@10.0.0` (the
  name the CocoaPods adapter and the trunk CDN know, and the unit advisories name). The subspecs'
  dependencies are merged; a dependency on a sibling subspec is not an edge.
- Direct = the pod (of any of its subspecs) is listed under `DEPENDENCIES`. The lock does not record
  Podfile targets or test-only pods → `dev` None.
- A pod under `EXTERNAL SOURCES` is not from the trunk CDN: `:git` → unresolved `git` (with the
  `CHECKOUT OPTIONS` commit or tag), `:path` → unresolved `path`, `:podspec` → unresolved `url`; its
  version is the one its podspec declares, kept but not audited as a trunk release.
- `SPEC REPOS` says where every other pod comes from: `trunk` (the CDN) and the old master Specs git
  repository are the registry; a pod from another (private) spec repository stays resolved with that
  repository as the purl `repository_url` qualifier. A lockfile without `SPEC REPOS` (before
  CocoaPods 1.6) does not say: its pods are read as trunk pods and a warning says so.
- A `DEPENDENCIES` pod that has no `PODS` entry is returned unresolved with its requirement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pkgintel.domain.errors import InvalidInput, LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import build_purl
from pkgintel.lockfiles._support import (
    dedupe_edges,
    head,
    load_yaml_documents,
    locate,
    none_to,
    redact_url,
    require_mapping,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_ENTRY = re.compile(r"^(\S+)(?: \((.*)\))?$")
_TRUNK = frozenset(
    {
        "trunk",
        "https://cdn.cocoapods.org/",
        "https://github.com/cocoapods/specs.git",
        "https://github.com/cocoapods/specs",
        "git@github.com:cocoapods/specs.git",
        "master",
    }
)
_NO_SPEC_REPOS = (
    "this Podfile.lock has no SPEC REPOS section (written before CocoaPods 1.6): pods not from "
    "external sources are read as trunk pods"
)


@dataclass(slots=True)
class _Pod:
    name: str
    version: str
    deps: list[str] = field(default_factory=list)


def _pod_of(name: str) -> str:
    """The pod a (sub)spec name belongs to: `Firebase/Core` → `Firebase`."""
    return name.split("/", 1)[0]


class PodfileLockParser:
    """CocoaPods `Podfile.lock`."""

    kind: ClassVar[str] = "Podfile.lock"
    filenames: ClassVar[tuple[str, ...]] = ("Podfile.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.Podfile.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.COCOAPODS

    def sniff(self, text: str) -> bool:
        """A top-level `PODS:` list next to `DEPENDENCIES:` or the `COCOAPODS:` version line."""
        start = head(text)
        return (start.startswith("PODS:") or "\nPODS:\n" in start) and (
            "\nDEPENDENCIES:" in start or "\nCOCOAPODS: " in text[-4096:]
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Pods of a Podfile.lock; `LockfileError` for invalid YAML or an unexpected shape."""
        documents = load_yaml_documents(self.kind, text)
        if len(documents) != 1 or documents[0] is None:
            raise LockfileError(self.kind, "expected one YAML document", line=1)
        data = require_mapping(self.kind, documents[0], "the document", line=1)
        if "PODS" not in data:
            raise LockfileError(self.kind, 'no "PODS" section', line=1)
        pods = self._pods(text, data["PODS"])
        direct = self._dependencies(text, none_to(data.get("DEPENDENCIES"), []))
        external = self._mapping_of_mappings(text, data, "EXTERNAL SOURCES")
        checkout = self._mapping_of_mappings(text, data, "CHECKOUT OPTIONS")
        repos, warnings = self._spec_repos(text, data)
        packages: list[LockedPackage] = []
        for pod in pods.values():
            packages.append(self._package(pod, pod.name in direct, external, checkout, repos))
        locked = {pod.name for pod in pods.values()}
        for name, requirement in direct.items():
            if name not in locked:
                packages.append(
                    unresolved_package(
                        self.ecosystem,
                        name,
                        None,
                        reason="declared in DEPENDENCIES but no pod is locked for it",
                        source=None,
                        requirement=requirement,
                        direct=True,
                    )
                )
        keys = {p.name: p.key for p in packages}
        edges = [
            (package.key, keys[dep])
            for package in packages
            for dep in package.dependencies
            if dep in keys
        ]
        return ParsedLockfile(
            self.kind, self.ecosystem, tuple(packages), dedupe_edges(edges), warnings
        )

    def _entry(self, value: Any, where: Callable[[], int | None]) -> tuple[str, str | None]:
        if not isinstance(value, str):
            raise LockfileError(
                self.kind, f"expected 'Name (version)', not {type(value).__name__}", line=where()
            )
        match = _ENTRY.match(value.strip())
        if match is None:
            raise LockfileError(self.kind, f"malformed entry {value!r}", line=where())
        return match.group(1), match.group(2)

    def _pods(self, text: str, raw: Any) -> dict[tuple[str, str], _Pod]:
        if not isinstance(raw, list):
            raise LockfileError(self.kind, '"PODS" must be a list', line=locate(text, "PODS:")())
        pods: dict[tuple[str, str], _Pod] = {}
        for item in raw:
            if isinstance(item, dict):
                if len(item) != 1:
                    where = locate(text, str(next(iter(item), "PODS:")))
                    raise LockfileError(
                        self.kind, "a pod entry must have exactly one key", line=where()
                    )
                spec, children = next(iter(item.items()))
            else:
                spec, children = item, []
            where = locate(text, f"- {spec}") if isinstance(spec, str) else locate(text, "PODS:")
            name, version = self._entry(spec, where)
            if not version:
                raise LockfileError(self.kind, f"pod {name!r} has no version", line=where())
            if not isinstance(children, list):
                raise LockfileError(
                    self.kind, f"the dependencies of {name!r} must be a list", line=where()
                )
            pod_name = _pod_of(name)
            pod = pods.setdefault((pod_name, version), _Pod(pod_name, version))
            for child in children:
                dep, _ = self._entry(child, where)
                dep_pod = _pod_of(dep)
                if dep_pod != pod_name and dep_pod not in pod.deps:
                    pod.deps.append(dep_pod)
        return pods

    def _dependencies(self, text: str, raw: Any) -> dict[str, str | None]:
        if not isinstance(raw, list):
            where = locate(text, "DEPENDENCIES:")
            raise LockfileError(self.kind, '"DEPENDENCIES" must be a list', line=where())
        out: dict[str, str | None] = {}
        for item in raw:
            where = locate(text, f"- {item}") if isinstance(item, str) else locate(text, "DEPEN")
            name, requirement = self._entry(item, where)
            out.setdefault(_pod_of(name), requirement)
        return out

    def _mapping_of_mappings(
        self, text: str, data: dict[str, Any], section: str
    ) -> dict[str, dict[str, str]]:
        raw = require_mapping(
            self.kind, none_to(data.get(section), {}), f'"{section}"', line=locate(text, section)
        )
        out: dict[str, dict[str, str]] = {}
        for name, options in raw.items():
            where = locate(text, f"  {name}:")
            mapping = require_mapping(self.kind, options, f"{section} of {name!r}", line=where)
            out[_pod_of(str(name))] = {str(k): str(v) for k, v in mapping.items()}
        return out

    def _spec_repos(
        self, text: str, data: dict[str, Any]
    ) -> tuple[dict[str, str] | None, tuple[str, ...]]:
        """Pod → spec repository, or None (with a warning) when the lock does not record them."""
        if "SPEC REPOS" not in data:
            return None, (_NO_SPEC_REPOS,)
        raw = require_mapping(
            self.kind,
            none_to(data["SPEC REPOS"], {}),
            '"SPEC REPOS"',
            line=locate(text, "SPEC REPOS:"),
        )
        out: dict[str, str] = {}
        for repo, names in raw.items():
            where = locate(text, f"  {repo}:")
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise LockfileError(
                    self.kind, f"SPEC REPOS {repo!r} must list pod names", line=where()
                )
            for name in names:
                out[_pod_of(name)] = str(repo)
        return out, ()

    def _package(
        self,
        pod: _Pod,
        direct: bool,
        external: dict[str, dict[str, str]],
        checkout: dict[str, dict[str, str]],
        repos: dict[str, str] | None,
    ) -> LockedPackage:
        deps = tuple(pod.deps)
        if pod.name in external:
            return self._external(pod, direct, external[pod.name], checkout.get(pod.name, {}))
        repo = None if repos is None else repos.get(pod.name)
        if repos is not None and repo is None:
            return unresolved_package(
                self.ecosystem,
                pod.name,
                pod.version,
                reason="neither SPEC REPOS nor EXTERNAL SOURCES says where this pod comes from",
                source=None,
                direct=direct,
                dependencies=deps,
            )
        qualifiers = None
        if repo is not None and repo.lower() not in _TRUNK:
            qualifiers = {"repository_url": redact_url(repo)}
        try:
            purl: str | None = build_purl(
                self.ecosystem, pod.name, pod.version, qualifiers=qualifiers
            )
        except InvalidInput:
            purl = None
        return LockedPackage(
            ecosystem=self.ecosystem,
            name=pod.name,
            version=pod.version,
            direct=direct,
            purl=purl,
            resolved=True,
            source="registry",
            dependencies=deps,
        )

    def _external(
        self, pod: _Pod, direct: bool, options: dict[str, str], checkout: dict[str, str]
    ) -> LockedPackage:
        if ":git" in options:
            url = redact_url(options[":git"])
            ref = checkout.get(":commit") or checkout.get(":tag") or options.get(":tag")
            ref = ref or options.get(":commit") or options.get(":branch")
            where = url + (f"@{ref}" if ref else "")
            source, what = "git", f"git source {where}"
        elif ":path" in options:
            where = options[":path"]
            source, what = "path", f"local path {where!r}"
        elif ":podspec" in options:
            where = redact_url(options[":podspec"])
            source, what = "url", f"podspec {where}"
        else:
            where = ", ".join(f"{k} {v}" for k, v in options.items())
            source, what = "external", f"external source {where}"
        return unresolved_package(
            self.ecosystem,
            pod.name,
            pod.version,
            reason=f"{what}, not from the CocoaPods trunk",
            source=source,
            requirement=where or None,
            direct=direct,
            dependencies=tuple(pod.deps),
        )

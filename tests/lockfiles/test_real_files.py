"""
Every real lockfile of `../shared/data/lockfiles/` (read in place, parametrized from its MANIFEST.json):
it parses, its kind is detected from the file name and from the content alone, and the package count
equals what the file's own structure implies — computed here independently and simply, and also
checked against counts verified by hand (so the test cannot silently agree with a parser bug).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import pytest
import yaml

from pkgintel.lockfiles import detect, detect_from_content, detect_from_filename, parse_lockfile
from pkgintel.lockfiles.base import ParsedLockfile
from tests.shared import SHARED_DATA, read_shared_bytes, requires_shared

from .helpers import check_invariants

KIND_OF_FOLDER = {
    "package-lock-v1": "package-lock.json",
    "package-lock-v2": "package-lock.json",
    "package-lock-v3": "package-lock.json",
    "pnpm-lock": "pnpm-lock.yaml",
    "yarn-v1": "yarn.lock",
    "yarn-berry": "yarn.lock",
    "poetry-lock": "poetry.lock",
    "pipfile-lock": "Pipfile.lock",
    "composer-lock": "composer.lock",
    "cargo-lock": "Cargo.lock",
    "requirements-hashes": "requirements.txt",
    "requirements-ranges": "requirements.txt",
    "go-sum": "go.sum",
    "uv-lock": "uv.lock",
    "gemfile-lock": "Gemfile.lock",
}

# file → (packages, direct=True, dev=True, unresolved), checked by hand against each file: counts of
# `[[package]]` tables / entries / spec lines, the root's declared dependencies, `dev: true` flags,
# `groups = ["dev"]`, `develop`-only entries, `packages-dev`, and the git/workspace/local entries.
HAND_CHECKED: dict[str, tuple[int, int, int, int]] = {
    "package-lock-v1/dependabot-fixture-npm6-lerna.package-lock.json": (630, 0, 630, 0),
    "package-lock-v1/dependabot-fixture-npm5-subdependency_update.package-lock.json": (
        668,
        0,
        658,
        0,
    ),
    "package-lock-v2/fastapi-full-stack-template-frontend.package-lock.json": (448, 47, 183, 0),
    "package-lock-v2/osv.dev-frontend3-2023-12.package-lock.json": (509, 24, 408, 1),
    "package-lock-v2/dependabot-npm_and_yarn-helpers.package-lock.json": (1536, 23, 530, 0),
    "package-lock-v3/socket-mcp.package-lock.json": (482, 14, 312, 0),
    "package-lock-v3/osv.dev-frontend3-2024-11.package-lock.json": (459, 20, 423, 1),
    "pnpm-lock/socket-mcp.pnpm-lock.yaml": (616, 54, 565, 0),
    "pnpm-lock/osv.dev-website-frontend3.pnpm-lock.yaml": (416, 20, 377, 0),
    "pnpm-lock/dependabot-fixture-pnpm-catalog_monorepo.pnpm-lock.yaml": (717, 9, 708, 0),
    "pnpm-lock/dependabot-fixture-pnpm-peer_disambiguation_v6.pnpm-lock.yaml": (122, 3, 122, 0),
    "yarn-v1/prettier-2022-05.yarn.lock": (826, 0, 0, 1),
    "yarn-v1/dependabot-fixture-yarn-duplicate_indirect_dependency.yarn.lock": (504, 0, 0, 0),
    "yarn-berry/dependabot-fixture-yarn_berry-lockfile_only_change.yarn.lock": (678, 19, 0, 1),
    "yarn-berry/dependabot-fixture-yarn_berry-multiple_requirements.yarn.lock": (182, 3, 0, 1),
    "poetry-lock/osv.dev.poetry.lock": (63, 0, 17, 0),
    "poetry-lock/fastapi-full-stack-template-backend-2024-09.poetry.lock": (81, 0, 0, 0),
    "poetry-lock/dependabot-fixture.poetry.lock": (36, 0, 28, 0),
    "pipfile-lock/osv-schema-tools-ghsa.Pipfile.lock": (59, 0, 8, 0),
    "pipfile-lock/ruby-advisory-db.Pipfile.lock": (5, 0, 0, 0),
    "pipfile-lock/fastapi-full-stack-template-2019-04.Pipfile.lock": (104, 0, 57, 0),
    "composer-lock/composer.composer.lock": (36, 0, 6, 0),
    "composer-lock/dependabot-composer-helpers-v2.composer.lock": (49, 0, 18, 0),
    "cargo-lock/ripgrep.Cargo.lock": (63, 29, 0, 11),
    "cargo-lock/ripgrep-2019-old-format.Cargo.lock": (77, 30, 0, 10),
    "requirements-hashes/osv.dev-docker-poetry.requirements.txt": (44, 1, 0, 0),
    "requirements-hashes/renovate-fixture-requirementsWithHashes.txt": (2, 2, 0, 0),
    "requirements-hashes/dependabot-fixture-pip_compile_hashes.txt": (13, 5, 0, 0),
    "requirements-ranges/httpx.requirements.txt": (16, 16, 0, 1),
    "requirements-ranges/renovate-fixture-requirements7.txt": (6, 6, 0, 0),
    "requirements-ranges/dependabot-fixture-incompatible_versions.txt": (22, 3, 0, 0),
    "go-sum/osv.dev-go.go.sum": (235, 0, 0, 0),
    "go-sum/golang-vulndb.go.sum": (140, 0, 0, 0),
    "go-sum/deps.dev-util-resolve.go.sum": (21, 0, 0, 0),
    "uv-lock/renovate.uv.lock": (33, 2, 0, 0),  # the project's own package left out
    "gemfile-lock/osv-schema-docs.Gemfile.lock": (96, 3, 0, 0),
    "gemfile-lock/osv.dev-docs.Gemfile.lock": (54, 16, 0, 3),
}

# Real file names that carry no kind (`*.txt` without "requirements"): detected from content only.
NAMES_WITHOUT_KIND = {
    "dependabot-fixture-pip_compile_hashes.txt",
    "dependabot-fixture-incompatible_versions.txt",
}


def _manifest() -> list[dict[str, Any]]:
    path = SHARED_DATA / "lockfiles" / "MANIFEST.json"
    if not path.is_file():
        return []
    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return entries


ENTRIES = _manifest()
PARAMS = [pytest.param(entry, id=entry["file"]) for entry in ENTRIES] or [
    pytest.param(None, marks=pytest.mark.skip(reason=f"no shared data at {SHARED_DATA}"))
]


@functools.cache
def _read(file: str) -> str:
    return read_shared_bytes("lockfiles", *file.split("/")).decode("utf-8")


@functools.cache
def _parse(file: str, kind: str) -> ParsedLockfile:
    return parse_lockfile(_read(file), kind=kind)


def _text(entry: dict[str, Any]) -> str:
    return _read(entry["file"])


# -- counts computed independently from each file's own structure -----------------------------------


def _npm_v1_nodes(dependencies: dict[str, Any]) -> int:
    return sum(1 + _npm_v1_nodes(v.get("dependencies", {})) for v in dependencies.values())


def _requirement_lines(text: str) -> int:
    joined = text.replace("\\\n", " ")
    count = 0
    for line in joined.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("-") and not stripped.startswith(("-r ", "-e ")):
            continue
        count += 1
    return count


def expected_count(folder: str, text: str) -> int:
    if folder.startswith("package-lock"):
        data = json.loads(text)
        if "packages" in data:
            return sum(1 for k, v in data["packages"].items() if k and not v.get("link"))
        return _npm_v1_nodes(data["dependencies"])
    if folder == "pnpm-lock":
        keys = {
            key.lstrip("/").split("(")[0]
            for doc in yaml.safe_load_all(text)
            for key in (doc.get("packages") or {})
        }
        return len(keys)
    if folder == "yarn-v1":
        return sum(
            1
            for line in text.splitlines()
            if line and not line.startswith((" ", "#")) and line.rstrip().endswith(":")
        )
    if folder == "yarn-berry":
        return len(yaml.safe_load(text)) - 1  # every key but __metadata
    if folder in ("poetry-lock", "cargo-lock"):
        return sum(1 for line in text.splitlines() if line == "[[package]]")
    if folder == "uv-lock":  # the project's own package (source at ".") is left out
        roots = text.count('source = { virtual = "." }') + text.count('source = { editable = "." }')
        return sum(1 for line in text.splitlines() if line == "[[package]]") - roots
    if folder == "pipfile-lock":
        data = json.loads(text)
        return len(
            {
                (name.lower(), spec.get("version"))
                for section in ("default", "develop")
                for name, spec in data.get(section, {}).items()
            }
        )
    if folder == "composer-lock":
        data = json.loads(text)
        return len(data["packages"]) + len(data.get("packages-dev", []))
    if folder.startswith("requirements"):
        return _requirement_lines(text)
    if folder == "go-sum":
        fields = (line.split() for line in text.splitlines() if line.strip())
        return len({(f[0], f[1].removesuffix("/go.mod")) for f in fields})
    if folder == "gemfile-lock":
        specs = {
            (m.group(1), m.group(2).split("-")[0])
            for m in re.finditer(r"^    (\S+) \(([^)]*)\)$", text, re.MULTILINE)
        }
        section = text.split("\nDEPENDENCIES\n", 1)[1].split("\n\n", 1)[0]
        declared = {line.split()[0].rstrip("!") for line in section.splitlines() if line.strip()}
        return len(specs) + len(declared - {name for name, _ in specs})
    raise AssertionError(f"no independent count for folder {folder!r}")


# -- the tests --------------------------------------------------------------------------------------


@requires_shared
@pytest.mark.shared
def test_every_manifest_file_is_hand_checked() -> None:
    if not ENTRIES:
        pytest.skip("no MANIFEST.json")
    assert {e["file"] for e in ENTRIES} == set(HAND_CHECKED)
    assert {e["kind"] for e in ENTRIES} <= set(KIND_OF_FOLDER)


@requires_shared
@pytest.mark.shared
@pytest.mark.parametrize("entry", PARAMS)
def test_kind_is_detected_from_name_and_from_content(entry: dict[str, Any]) -> None:
    text = _text(entry)
    expected = KIND_OF_FOLDER[entry["kind"]]
    filename = entry["file"].rsplit("/", 1)[-1]
    assert detect_from_content(text) == expected
    assert detect(filename, text) == expected
    assert detect(None, text) == expected
    if filename in NAMES_WITHOUT_KIND:
        assert detect_from_filename(filename) is None
    else:
        assert detect_from_filename(filename) == expected


@requires_shared
@pytest.mark.shared
@pytest.mark.parametrize("entry", PARAMS)
def test_package_count_matches_the_file(entry: dict[str, Any]) -> None:
    text = _text(entry)
    result = parse_lockfile(text, filename=entry["file"].rsplit("/", 1)[-1])
    assert result.kind == KIND_OF_FOLDER[entry["kind"]]
    assert len(result.packages) == expected_count(entry["kind"], text)
    packages, direct, dev, unresolved = HAND_CHECKED[entry["file"]]
    assert len(result.packages) == packages
    assert sum(1 for p in result.packages if p.direct is True) == direct
    assert sum(1 for p in result.packages if p.dev is True) == dev
    assert len(result.unresolved) == unresolved


@requires_shared
@pytest.mark.shared
@pytest.mark.parametrize("entry", PARAMS)
def test_nothing_is_invented(entry: dict[str, Any]) -> None:
    text = _text(entry)
    result = _parse(entry["file"], KIND_OF_FOLDER[entry["kind"]])
    check_invariants(result)
    for package in result.packages:
        # every name and version is read from the file (modulo the file's own quoting)
        assert package.name in text, package
        if package.version:
            assert package.version in text, package
        if package.resolved:
            assert package.purl and package.purl.startswith("pkg:"), package
        assert package.ecosystem == result.ecosystem


@requires_shared
@pytest.mark.shared
def test_spot_checks_on_real_files() -> None:
    if not ENTRIES:
        pytest.skip("no MANIFEST.json")

    def parsed(path: str) -> ParsedLockfile:
        return parse_lockfile(_read(path))

    spicy = next(
        p
        for p in parsed("package-lock-v3/osv.dev-frontend3-2024-11.package-lock.json").packages
        if p.name == "spicy-sections"
    )
    assert (spicy.resolved, spicy.source, spicy.direct) == (False, "git", True)

    ripgrep = parsed("cargo-lock/ripgrep.Cargo.lock")
    root = next(p for p in ripgrep.packages if p.name == "ripgrep")
    assert (root.resolved, root.source) == (False, "path")
    memchr = next(p for p in ripgrep.packages if p.name == "memchr")
    assert ("pkg:cargo/aho-corasick@1.1.5", memchr.key) in ripgrep.edges

    uv = parsed("uv-lock/renovate.uv.lock")
    assert {p.name for p in uv.packages if p.direct} == {
        "mkdocs-awesome-pages-plugin",
        "mkdocs-material",
    }

    docs = parsed("gemfile-lock/osv.dev-docs.Gemfile.lock")
    assert {p.name for p in docs.unresolved} == {"tzinfo", "tzinfo-data", "wdm"}

    go = parsed("go-sum/deps.dev-util-resolve.go.sum")
    assert all(p.direct is None and p.dev is None for p in go.packages)

    alias = parsed("package-lock-v2/dependabot-npm_and_yarn-helpers.package-lock.json")
    assert sum(1 for p in alias.packages if p.name == "react-is") == 2  # react-is-18, react-is-19

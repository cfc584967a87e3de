"""
`/api/tree` for JSR, CRAN and Julia: hand-written bodies in each registry's own format (jsr.io
`meta.json`/`<version>_meta.json` with npm packuments for `npm:` imports, Posit Package Manager
package documents with the CRAN page, the General registry's Versions/Deps/Compat.toml) for the
installers' rules, and the recorded @std/fs + @std/path, readxl/abd and Inequality bodies from
../shared.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from tests.api.test_graph_api import packument
from tests.api.tree_bodies import ids as _ids
from tests.api.tree_bodies import node as _node
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

JSR = "https://jsr.io"
NPM = "https://registry.npmjs.org"
PPM = "https://packagemanager.posit.co/__api__/repos/2/packages"
CRAN = "https://cran.r-project.org/web/packages"
GENERAL = "https://raw.githubusercontent.com/JuliaRegistries/General/master"
CREATED = "2024-05-01T00:00:00.000Z"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories and no OSV fallback: node counts are "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


def _skipped(body: dict[str, Any]) -> dict[str, str]:
    return {s["name"]: s["why"] for s in body["skipped"]}


# --- JSR ---------------------------------------------------------------------------------------


def jsr(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, list[str]],
    latest: str,
    *,
    yanked: tuple[str, ...] = (),
) -> None:
    """`meta.json` and one `<version>_meta.json` per version whose module graph imports the given
    specifiers (`jsr:@a/b@^1`, `npm:chalk@^5`)."""
    scope, short = name[1:].split("/")
    registry.add(
        f"{JSR}/{name}/meta.json",
        {
            "scope": scope,
            "name": short,
            "latest": latest,
            "versions": {v: {"createdAt": CREATED, "yanked": v in yanked} for v in versions},
        },
    )
    for v, specifiers in versions.items():
        graph = {"/mod.ts": {"dependencies": [{"specifier": s} for s in specifiers]}}
        registry.add(f"{JSR}/{name}/{v}_meta.json", {"manifest": {}, "moduleGraph2": graph})


async def test_jsr_tree_resolves_jsr_imports_and_npm_imports_from_npm(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    jsr(
        registry,
        "@app/web",
        {"1.0.0": ["jsr:@std/path@^1.0.0", "jsr:@std/fmt@^0.9.0", "npm:chalk@^5.0.0", "./x.ts"]},
        "1.0.0",
    )
    # @std/fmt 0.9.x needs @std/path ^0.224: no overlap with ^1 — Deno keeps both versions
    jsr(registry, "@std/fmt", {"0.9.0": ["jsr:@std/path@^0.224.0"], "1.0.0": []}, "1.0.0")
    jsr(
        registry,
        "@std/path",
        {"0.224.0": [], "1.0.0": [], "1.0.9": [], "2.0.0": []},
        "2.0.0",
        yanked=("1.0.9",),
    )
    registry.add(
        f"{NPM}/chalk",
        packument(
            "chalk",
            {
                "5.3.0": {"dependencies": {"ansi-styles": "^6.0.0"}, "devDependencies": {"x": "1"}},
                "6.0.0": {},
            },
            "6.0.0",
        ),
    )
    registry.add(f"{NPM}/ansi-styles", packument("ansi-styles", {"6.2.1": {}}, "6.2.1"))
    resp = await client.get("/api/tree/jsr/@app/web")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {
        "@app/web@1.0.0",
        "@std/path@1.0.0",  # ^1.0.0: 2.0.0 is out of range, the yanked 1.0.9 skipped
        "@std/fmt@0.9.0",
        "@std/path@0.224.0",
        "npm:chalk@5.3.0",
        "npm:ansi-styles@6.2.1",
    }
    assert body["conflicts"] == []
    assert _node(body, "npm:chalk@5.3.0")["dependencies"] == ["npm:ansi-styles@6.2.1"]
    assert _node(body, "npm:chalk@5.3.0")["license"] == "MIT"  # the npm package's report
    assert _node(body, "npm:ansi-styles@6.2.1")["depth"] == 2
    # npm's own rules inside an npm package: devDependencies are never installed
    assert not any("/npm/x" in h for h in registry.hits)
    assert body["complete"] is True
    licences = (await client.get("/api/licenses/jsr/@app/web")).json()
    assert licences["by_license"]["MIT"] == 2  # the two npm packages' own licences
    assert any(p["id"] == "npm:chalk@5.3.0" for p in licences["packages"])


async def test_jsr_reuses_a_chosen_version_a_later_range_admits(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    jsr(registry, "@app/dedupe", {"1.0.0": ["jsr:@oak/oak@^14.2.0", "jsr:@a/b@^1"]}, "1.0.0")
    jsr(registry, "@a/b", {"1.0.0": ["jsr:@oak/oak@^14.1.0"]}, "1.0.0")
    jsr(registry, "@oak/oak", {"14.1.0": [], "14.2.0": []}, "14.2.0")
    body = (await client.get("/api/tree/jsr/@app/dedupe")).json()
    assert [n["id"] for n in body["nodes"] if n["name"] == "@oak/oak"] == ["@oak/oak@14.2.0"]
    assert _node(body, "@a/b@1.0.0")["dependencies"] == ["@oak/oak@14.2.0"]


@requires_shared
async def test_jsr_tree_on_the_recorded_std_fs_and_std_path(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    # the recorded meta.json version lists (@std/fs, @std/path); @std/path's recorded 1.1.3
    # version document has no module graph (Deno's vendor copy drops it): its dependencies are
    # unknown, said so, never assumed empty
    registry.add(
        f"{JSR}/@std/fs/1.0.20_meta.json",
        {
            "manifest": {},
            "moduleGraph2": {"/mod.ts": {"dependencies": [{"specifier": "jsr:@std/path@^1.1.1"}]}},
        },
    )
    resp = await client.get("/api/tree/jsr/@std/fs")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"@std/fs@1.0.20", "@std/path@1.1.3"}
    assert _node(body, "@std/path@1.1.3")["dependencies_known"] is False


# --- CRAN --------------------------------------------------------------------------------------


def cran(
    registry: ReplayRegistry,
    name: str,
    version: str,
    *,
    archived: tuple[str, ...] = (),
    page: str | None = None,
    **fields: str,
) -> None:
    """A Package Manager document (current version, archived ones, DESCRIPTION fields) and,
    when given, the CRAN page."""
    registry.add(
        f"{PPM}/{name}",
        {
            "name": name,
            "version": version,
            "license": "MIT + file LICENSE",
            "title": name,
            "date_publication": "2024-05-01T00:00:00Z",
            "archived": [
                {"version": v, "date_publication": "2020-01-01T00:00:00Z"} for v in archived
            ],
            **fields,
        },
    )
    if page is not None:
        registry.add(f"{CRAN}/{name}/index.html", page.encode())


async def test_cran_tree_installs_depends_imports_linking_to_current_versions_only(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    cran(
        registry,
        "rootpkg",
        "1.0.0",
        depends="R (>= 4.1.0), methods, lattice",
        imports="utils, dplyr (>= 1.1.0), vctrs (>= 0.6.0), oldie (< 1.0), gone",
        linking_to="cpp11 (>= 0.4.0)",
        suggests="testthat (>= 3.0.0), knitr",
    )
    # dplyr wants vctrs < 0.5: met only by an archived version, which install.packages never
    # installs, and the tree already holds the current 0.6.5 — a conflict, not 0.4.2
    cran(registry, "dplyr", "1.1.4", archived=("1.0.0",), imports="vctrs (< 0.5)")
    cran(registry, "vctrs", "0.6.5", archived=("0.4.2",))
    cran(registry, "oldie", "1.2", archived=("0.9",))  # `< 1.0`: only the archive has one
    cran(registry, "cpp11", "0.3.1", archived=("0.2.0",))  # `>= 0.4.0`: the current is too old
    cran(
        registry,
        "gone",
        "2.0",
        page="<html><body><p>Package ‘gone’ was removed from the CRAN repository.</p>"
        "<p>Archived on 2024-01-02 as requested by the maintainer.</p></body></html>",
    )
    resp = await client.get("/api/tree/cran/rootpkg")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"rootpkg@1.0.0", "dplyr@1.1.4", "vctrs@0.6.5"}
    skipped = _skipped(body)
    assert skipped["methods"].startswith("base package") and skipped["utils"].startswith("base")
    assert skipped["lattice"].startswith("recommended package")
    assert skipped["testthat"].startswith("Suggests") and skipped["knitr"].startswith("Suggests")
    assert "R" not in skipped  # `R (>= x)` is the R requirement, not a package
    unresolved = {u["name"]: u for u in body["unresolved"]}
    assert unresolved["cpp11"]["reason"] == "no_matching_version"
    assert unresolved["oldie"]["reason"] == "no_matching_version"  # 0.9 is archived: not taken
    assert unresolved["gone"]["reason"] == "not_found"
    assert "install.packages cannot install" in unresolved["gone"]["detail"]
    [clash] = body["conflicts"]
    assert clash["package"] == "vctrs" and clash["requirement"] == "< 0.5"
    assert clash["kept"] == "vctrs@0.6.5" and clash["required_by"] == "dplyr@1.1.4"
    assert clash["why"].startswith("install.packages installs the one current CRAN version")
    assert not any("/testthat" in h or "/knitr" in h or "/methods" in h for h in registry.hits)
    assert body["environment"] == {"platform": "linux", "install": "source"}


@requires_shared
async def test_cran_tree_on_the_recorded_readxl(client: httpx.AsyncClient) -> None:
    # readxl 1.4.5 (recorded): Imports cellranger, tibble (>= 2.0.1), utils; LinkingTo cpp11,
    # progress; Suggests covr, knitr, ... — the dependencies' documents were not recorded
    resp = await client.get("/api/tree/cran/readxl")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["nodes"][0]["id"] == "readxl@1.4.5"
    skipped = _skipped(body)
    assert skipped["utils"].startswith("base package")
    assert {"covr", "knitr", "rmarkdown", "testthat", "withr"} <= set(skipped)
    edges = {u["name"] for u in body["unresolved"]}
    assert edges == {"cellranger", "tibble", "cpp11", "progress"}  # looked up, none invented


# --- Julia -------------------------------------------------------------------------------------


def julia(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, dict[str, str]],
    *,
    yanked: tuple[str, ...] = (),
) -> None:
    """Versions.toml, Package.toml and one Deps/Compat section per version (`{dep: compat}`)."""
    path = f"{GENERAL}/{name[0].upper()}/{name}"
    lines = []
    for v in versions:
        lines.append(f'["{v}"]\ngit-tree-sha1 = "{"0" * 40}"\n')
        if v in yanked:
            lines.append("yanked = true\n")
    registry.add(f"{path}/Versions.toml", "".join(lines).encode())
    registry.add(
        f"{path}/Package.toml",
        f'name = "{name}"\nuuid = "00000000-0000-0000-0000-000000000000"\n'
        f'repo = "https://github.com/example/{name}.jl.git"\n'.encode(),
    )
    deps = "".join(
        f'["{v}"]\n'
        + "".join(f'{d} = "00000000-0000-0000-0000-00000000000{i}"\n' for i, d in enumerate(ds))
        for v, ds in versions.items()
        if ds
    )
    compat = "".join(
        f'["{v}"]\n' + "".join(f'{d} = "{c}"\n' for d, c in ds.items() if c)
        for v, ds in versions.items()
        if any(ds.values())
    )
    registry.add(f"{path}/Deps.toml", deps.encode())
    registry.add(f"{path}/Compat.toml", compat.encode())


async def test_julia_tree_compat_ranges_stdlibs_and_one_version_per_name(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    julia(
        registry,
        "RootPkg",
        {"1.0.0": {"DataAPI": "1.9.0-1", "Tables": "1", "LinearAlgebra": "", "Gone": "5"}},
    )
    julia(registry, "DataAPI", {"1.8.0": {}, "1.16.0": {}, "1.17.0": {}}, yanked=("1.17.0",))
    # Tables 1.x wants DataAPI 1.8: the tree already holds 1.16.0 — one version per name
    julia(registry, "Tables", {"1.11.1": {"DataAPI": "1.8"}, "2.0.0": {}})
    julia(registry, "Gone", {"1.0.0": {}})
    resp = await client.get("/api/tree/julia/RootPkg")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"RootPkg@1.0.0", "DataAPI@1.16.0", "Tables@1.11.1"}
    assert _skipped(body)["LinearAlgebra"].startswith("standard library")
    [gone] = body["unresolved"]
    assert gone["name"] == "Gone" and gone["reason"] == "no_matching_version"
    [clash] = body["conflicts"]
    assert clash["package"] == "DataAPI" and clash["requirement"] == "1.8"
    assert clash["kept"] == "DataAPI@1.16.0" and "no backtracking" in clash["why"]
    assert not any("LinearAlgebra" in h for h in registry.hits)


@requires_shared
async def test_julia_tree_on_the_recorded_inequality(client: httpx.AsyncClient) -> None:
    # Inequality 0.0.4's JuliaHub document (recorded): DataFrames 1.3.0-1, Documenter 0.27,
    # Statistics 1 (a standard library), StatsBase 0.33; the dependencies were not recorded
    resp = await client.get("/api/tree/julia/Inequality")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["nodes"][0]["id"] == "Inequality@0.0.4"
    assert _skipped(body)["Statistics"].startswith("standard library")
    assert {u["name"] for u in body["unresolved"]} == {"DataFrames", "Documenter", "StatsBase"}
    assert {u["reason"] for u in body["unresolved"]} == {"unavailable"}
    assert body["complete"] is False  # a gap, said so (and the tree is not cached)
    assert len(body["nodes"]) == 1  # nothing invented for what was not recorded


# --- Hackage -----------------------------------------------------------------------------------

HACKAGE = "https://hackage.haskell.org/package"


def hackage(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, str],
    *,
    deprecated: tuple[str, ...] = (),
) -> None:
    """`/package/<name>.json` and one `.cabal` file per version (`versions[v]` is the library's
    `build-depends` stanza body)."""
    registry.add(
        f"{HACKAGE}/{name}.json",
        {v: "deprecated" if v in deprecated else "normal" for v in versions},
    )
    for v, library in versions.items():
        cabal = f"cabal-version: 2.4\nname: {name}\nversion: {v}\n\nlibrary\n{library}"
        registry.add(f"{HACKAGE}/{name}-{v}/{name}.cabal", cabal.encode())
        if v == max(versions, key=lambda x: tuple(int(p) for p in x.split("."))):
            # hackage-server serves the highest version's file without a version
            registry.add(f"{HACKAGE}/{name}/{name}.cabal", cabal.encode())


async def test_hackage_tree_reads_the_library_of_each_cabal_file(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    hackage(
        registry,
        "root-pkg",
        {
            "1.0.0": "  build-depends: base >=4.7 && <5, text ^>=2.0, aeson ^>=2.1, gone >=9\n"
            "  if os(windows)\n    build-depends: Win32\n"
        },
    )
    # aeson ^>=2.1: 2.1.2.1 (2.2 is out of range; 2.1.9 is deprecated on Hackage)
    hackage(
        registry,
        "aeson",
        {
            "2.1.0.0": "  build-depends: base\n",
            "2.1.2.1": "  build-depends: base, scientific >= 0.3.7 && < 0.4\n",
            "2.1.9": "  build-depends: base\n",
            "2.2.3.0": "  build-depends: base\n",
        },
        deprecated=("2.1.9",),
    )
    # aeson takes scientific 0.3.7.0 (< 0.4); extra, reached through it, asks >= 0.4: cabal keeps
    # one version per name, so the clash is named (the tree does not backtrack)
    hackage(
        registry,
        "scientific",
        {"0.3.7.0": "  build-depends: base, extra >= 1\n", "0.4.0": ""},
    )
    hackage(registry, "extra", {"1.7.14": "  build-depends: scientific >= 0.4\n"})
    hackage(registry, "gone", {"1.0": ""})
    resp = await client.get("/api/tree/hackage/root-pkg?max_depth=5")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {
        "root-pkg@1.0.0",
        "aeson@2.1.2.1",
        "scientific@0.3.7.0",
        "extra@1.7.14",
    }
    skipped = _skipped(body)
    assert "comes with the compiler" in skipped["base"]
    assert "comes with the compiler" in skipped["text"]
    assert skipped["Win32"].startswith("only when `os(windows)`")
    [gone] = body["unresolved"]
    assert gone["name"] == "gone" and gone["reason"] == "no_matching_version"
    [clash] = body["conflicts"]
    assert clash["package"] == "scientific" and clash["requirement"] == ">= 0.4"
    assert clash["kept"] == "scientific@0.3.7.0" and "cabal's solver" in clash["why"]
    # extra's edge goes back to the kept scientific: a cycle, reported once
    assert body["cycles"] == [["scientific@0.3.7.0", "extra@1.7.14", "scientific@0.3.7.0"]]
    assert not any("/Win32" in h or "/base" in h for h in registry.hits)
    assert body["environment"] == {
        "os": "linux",
        "arch": "x86_64",
        "ghc": "9.8.4",
        "flags": "defaults",
    }


@requires_shared
async def test_hackage_tree_on_the_recorded_aeson_page_says_its_dependencies_are_unknown(
    client: httpx.AsyncClient,
) -> None:
    # the recorded aeson version map and 0.2.0.0 page; no .cabal file was recorded: the page's
    # list merges every component and branch, so nothing is followed and the node says so
    resp = await client.get("/api/tree/hackage/aeson?version=0.2.0.0")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    [root] = body["nodes"]
    assert root["id"] == "aeson@0.2.0.0"
    assert root["dependencies_known"] is False
    assert body["unresolved"] == [] and body["skipped"] == []

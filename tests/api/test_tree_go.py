"""
`/api/tree/go/...` by minimal version selection, on hand-written Go module proxy bodies (`@v/list`,
`@latest`, `@v/<version>.mod`, `@v/<version>.info`; pkg.go.dev answers 404, it is optional): the
highest minimum in the graph wins and never the newest published version, a non-selected version's
requirements still count, pseudo-versions the list omits are read through `.info`, go 1.17+ roots
prune the graph, and the recorded smithy-go go.mod from ../shared.
"""

from __future__ import annotations

import httpx
import pytest

from pkgintel.config import Settings
from tests.api.tree_bodies import node as _node
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

PROXY = "https://proxy.golang.org"
TIME = "2024-05-01T00:00:00Z"
PSEUDO = "v0.0.0-20200101000000-abcdef123456"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories and no OSV fallback: node counts are "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


def module(
    registry: ReplayRegistry,
    path: str,
    mods: dict[str, str],
    *,
    unlisted: tuple[str, ...] = (),
) -> None:
    """One module: `mods[version]` is the go.mod body after the `module` line; versions in
    `unlisted` are served (`.info`, `.mod`) but missing from `@v/list`, as pseudo-versions are."""
    listed = [v for v in mods if v not in unlisted]
    registry.add(f"{PROXY}/{path}/@v/list", ("\n".join(listed) + "\n").encode())
    newest = (listed or list(mods))[-1]
    registry.add(f"{PROXY}/{path}/@latest", {"Version": newest, "Time": TIME})
    for version, body in mods.items():
        registry.add(f"{PROXY}/{path}/@v/{version}.info", {"Version": version, "Time": TIME})
        registry.add(f"{PROXY}/{path}/@v/{version}.mod", f"module {path}\n\n{body}\n".encode())


async def test_mvs_takes_the_highest_minimum_and_counts_every_reached_version(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    module(
        registry,
        "example.com/app",
        {
            "v1.0.0": "go 1.16\n\nrequire (\n\texample.com/a v1.1.0\n\texample.com/b v1.0.0\n"
            "\texample.com/gone v9.0.0\n\texample.com/ind v0.1.0 // indirect\n)",
            "v1.2.0": "go 1.16\n\nrequire example.com/c v1.0.0",
        },
    )
    # a@v1.1.0 is asked for; the newer v1.2.0 is never taken (MVS does not upgrade)
    module(
        registry,
        "example.com/a",
        {"v1.0.0": "", "v1.1.0": "require example.com/c v1.0.0", "v1.2.0": ""},
    )
    module(
        registry,
        "example.com/b",
        {
            "v1.0.0": f"require (\n\texample.com/c v1.3.0\n\texample.com/d {PSEUDO}\n"
            "\texample.com/app v1.2.0\n)"
        },
    )
    # c: a needs v1.0.0, b needs v1.3.0 → v1.3.0, not the newest v1.4.0; c@v1.0.0 is not
    # selected but its requirement on e stays in the module graph
    module(
        registry,
        "example.com/c",
        {"v1.0.0": "require example.com/e v1.0.0", "v1.3.0": "", "v1.4.0": ""},
    )
    module(registry, "example.com/d", {PSEUDO: "go 1.13"}, unlisted=(PSEUDO,))
    module(registry, "example.com/e", {"v1.0.0": ""})
    module(registry, "example.com/ind", {"v0.1.0": ""})
    resp = await client.get("/api/tree/go/example.com/app", params={"version": "v1.0.0"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert {n["id"] for n in body["nodes"]} == {
        "example.com/app@v1.0.0",
        "example.com/a@v1.1.0",
        "example.com/b@v1.0.0",
        "example.com/c@v1.3.0",
        f"example.com/d@{PSEUDO}",
        "example.com/e@v1.0.0",
        "example.com/ind@v0.1.0",
    }
    c = _node(body, "example.com/c@v1.3.0")
    assert c["requirement"] == "v1.3.0" and c["latest_version"] == "v1.4.0"
    assert c["minimums"] == [
        {"required_by": "example.com/a@v1.1.0", "version": "v1.0.0"},
        {"required_by": "example.com/b@v1.0.0", "version": "v1.3.0"},
        # the root's raised version is part of the graph too
        {"required_by": "example.com/app@v1.2.0", "version": "v1.0.0"},
    ]
    assert c["required_by"] == ["example.com/a@v1.1.0", "example.com/b@v1.0.0"]
    # e is in the build list through the unselected c@v1.0.0 only
    assert _node(body, "example.com/e@v1.0.0")["minimums"] == [
        {"required_by": "example.com/c@v1.0.0", "version": "v1.0.0"}
    ]
    assert _node(body, "example.com/ind@v0.1.0")["kind"] == "indirect"
    assert _node(body, "example.com/a@v1.1.0")["latest_version"] == "v1.2.0"
    assert not any(h.endswith("/@v/v1.4.0.mod") or "/a/@v/v1.2.0.mod" in h for h in registry.hits)
    [gone] = body["unresolved"]
    assert gone["name"] == "example.com/gone" and gone["reason"] == "not_found"
    assert gone["requirement"] == "v9.0.0"
    # b requires a higher version of the root itself: the build would use it
    [raised] = body["conflicts"]
    assert raised["package"] == "example.com/app" and raised["requirement"] == "v1.2.0"
    assert raised["kept"] == "example.com/app@v1.0.0"
    assert body["environment"]["module_graph"].startswith("unpruned")
    assert "replace and exclude directives are ignored" in body["environment"]["main_module"]
    assert body["complete"] is True and body["truncated"] is False


async def test_a_go_1_17_root_prunes_the_graph_to_its_own_requirements(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    module(
        registry,
        "example.com/tidy",
        {
            "v2.0.0": "go 1.21\n\nrequire (\n\texample.com/a v1.0.0\n"
            "\texample.com/c v1.1.0 // indirect\n)\n\nreplace example.com/a => example.com/fork v1.0.0"
        },
    )
    module(
        registry,
        "example.com/a",
        {"v1.0.0": "go 1.21\n\nrequire (\n\texample.com/c v1.5.0\n\texample.com/x v1.0.0\n)"},
    )
    module(registry, "example.com/c", {"v1.1.0": "", "v1.5.0": ""})
    body = (await client.get("/api/tree/go/example.com/tidy")).json()
    assert {n["id"] for n in body["nodes"]} == {
        "example.com/tidy@v2.0.0",
        "example.com/a@v1.0.0",
        "example.com/c@v1.1.0",
    }
    assert body["environment"]["module_graph"] == "pruned: the root's go.mod says go 1.21"
    pruned = {(s["parent"], s["name"], s["requirement"]) for s in body["skipped"]}
    assert pruned == {
        ("example.com/a@v1.0.0", "example.com/c", "v1.5.0"),
        ("example.com/a@v1.0.0", "example.com/x", "v1.0.0"),
    }
    assert all("Go module graph pruning" in s["why"] for s in body["skipped"])
    # neither x nor the fork named by the root's replace directive is looked up
    assert not any("/example.com/x/" in h or "fork" in h for h in registry.hits)
    assert _node(body, "example.com/a@v1.0.0")["dependencies"] == []


async def test_depth_limit_says_a_selection_may_be_raised_below(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    module(registry, "example.com/top", {"v1.0.0": "require example.com/a v1.0.0"})
    module(registry, "example.com/a", {"v1.0.0": "require example.com/b v1.0.0"})
    module(registry, "example.com/b", {"v1.0.0": ""})
    body = (await client.get("/api/tree/go/example.com/top", params={"max_depth": 1})).json()
    assert [n["id"] for n in body["nodes"]] == ["example.com/top@v1.0.0", "example.com/a@v1.0.0"]
    assert body["truncated"] is True
    assert "can raise a selected version" in body["truncation"][0]
    assert _node(body, "example.com/a@v1.0.0")["not_expanded"] == 1
    assert not any("/example.com/b/" in h for h in registry.hits)


@requires_shared
async def test_go_tree_on_the_recorded_smithy_go_gomod(client: httpx.AsyncClient) -> None:
    # smithy-go v1.9.0's recorded go.mod: go 1.15 (unpruned), one requirement, go-cmp v0.5.4,
    # which the recordings do not hold: a not_found edge, never an invented version
    resp = await client.get("/api/tree/go/github.com/aws/smithy-go", params={"version": "v1.9.0"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["root"] == "github.com/aws/smithy-go@v1.9.0"
    assert [n["id"] for n in body["nodes"]] == ["github.com/aws/smithy-go@v1.9.0"]
    [cmp] = body["unresolved"]
    assert (cmp["name"], cmp["requirement"], cmp["reason"]) == (
        "github.com/google/go-cmp",
        "v0.5.4",
        "not_found",
    )
    assert body["environment"]["module_graph"] == "unpruned: the root's go.mod says go 1.15"


async def test_licences_over_a_go_tree(client: httpx.AsyncClient, registry: ReplayRegistry) -> None:
    module(registry, "example.com/lic", {"v1.0.0": "go 1.20\n\nrequire example.com/dep v1.0.0"})
    module(registry, "example.com/dep", {"v1.0.0": ""})
    resp = await client.get("/api/licenses/go/example.com/lic")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["total_dependencies"] == 1
    assert [p["id"] for p in body["packages"]] == ["example.com/dep@v1.0.0"]
    # pkg.go.dev (the licence source) does not answer here: unknown, never guessed compatible
    assert body["packages"][0]["license"] is None
    assert body["compatibility"]["verdict"] == "unknown"

"""
Issue 27: compatibility and reports judge a version on its own metadata, through every door
(`/api/compat`, the MCP tool `check_compatibility`, `/api/ai/stack`, `/api/check?version=`).

The replay registry serves the verbatim pypi-live project bodies (whose per-version documents are
absent: 404, as on the mirror they were captured from) and npm-live packuments; core metadata files
and the small pydantic body are written here from the releases' published facts.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from pkgintel.mcp.render import compat as render_compat
from pkgintel.mcp.tools import check_compatibility
from pkgintel.runtime.container import Runtime
from tests.fake_registry import ReplayRegistry
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

pytestmark = [requires_shared, pytest.mark.shared]

REACT = Path(__file__).resolve().parents[1] / "recordings" / "npm" / "react.json.gz"
FASTAPI_0_95_METADATA = b"""Metadata-Version: 2.1
Name: fastapi
Version: 0.95.0
Requires-Python: >=3.7
Requires-Dist: pydantic (!=1.7,!=1.7.1,!=1.7.2,!=1.7.3,!=1.8,!=1.8.1,<2.0.0,>=1.6.2)
Requires-Dist: starlette (<0.27.0,>=0.26.1)
"""
DJANGO_3_0_METADATA = b"""Metadata-Version: 2.1
Name: Django
Version: 3.0
Requires-Python: >=3.6
Requires-Dist: pytz
Requires-Dist: sqlparse (>=0.2.2)
Requires-Dist: asgiref (~=3.2)
Provides-Extra: bcrypt
Requires-Dist: bcrypt ; extra == 'bcrypt'
"""
WHEELS = {
    ("fastapi", "0.95.0"): "3f/91/5412a4c845d1b88cfded182b0e5553e3498a38e5a65a8e9b02e3aaf47dd5/"
    "fastapi-0.95.0-py3-none-any.whl",
    ("django", "3.0"): "43/d6/0aed0b12c66527748ce5a007da4618a65dfbe1f8fca82eccedf57d60295f/"
    "Django-3.0-py3-none-any.whl",
}
PYDANTIC = {
    "info": {
        "name": "pydantic",
        "version": "2.0",
        "summary": "Data validation using Python type hints",
        "requires_python": ">=3.7",
        "requires_dist": [
            "annotated-types>=0.4.0",
            "pydantic-core==2.0.1",
            "typing-extensions>=4.6.1",
        ],
    },
    "releases": {
        "1.10.7": [
            {
                "filename": "pydantic-1.10.7-py3-none-any.whl",
                "requires_python": ">=3.7",
                "upload_time_iso_8601": "2023-03-22T15:42:25Z",
                "yanked": False,
            }
        ],
        "2.0": [
            {
                "filename": "pydantic-2.0-py3-none-any.whl",
                "requires_python": ">=3.7",
                "upload_time_iso_8601": "2023-06-30T15:35:13Z",
                "yanked": False,
            }
        ],
    },
}


def live(name: str) -> Any:
    return read_shared_json("registry-fixtures", "pypi-live", f"pypi.org_pypi_{name}_json.json.gz")


def serve_core_metadata(registry: ReplayRegistry, name: str, version: str, metadata: bytes) -> None:
    """Advertise (with its sha256) and serve the core metadata file of `name`'s wheel of `version`,
    next to the wheel as the capture links it; the per-version JSON stays 404."""
    body = copy.deepcopy(live(name))
    for file in body["releases"][version]:
        if file["filename"].endswith(".whl"):
            file["core-metadata"] = {"sha256": hashlib.sha256(metadata).hexdigest()}
    registry.add(f"https://pypi.org/pypi/{name}/json", body)
    registry.add(f"https://pypi.org/packages/packages/{WHEELS[(name, version)]}.metadata", metadata)


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    registry.add("https://pypi.org/pypi/pydantic/json", PYDANTIC)
    registry.add("https://registry.npmjs.org/react", gzip.decompress(REACT.read_bytes()))
    for name in ("react-dom", "next"):
        registry.add(
            f"https://registry.npmjs.org/{name}",
            read_shared_bytes(
                "registry-fixtures", "npm-live", f"registry.npmjs.org_{name}.json.gz"
            ),
        )
    return registry


async def compat(client: httpx.AsyncClient, packages: dict[str, str], **extra: str) -> Any:
    resp = await client.post("/api/compat", json={"packages": packages, **extra})
    assert resp.status_code == 200, resp.text
    return resp.json()


# --- PyPI: the asked version's own requirements ---------------------------------------------------


async def test_django_3_0_is_judged_on_its_own_requires_python(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """On main: a conflict "django@3.0 needs python >=3.12" (6.1's requirement)."""
    serve_core_metadata(registry, "django", "3.0", DJANGO_3_0_METADATA)
    body = await compat(client, {"django": "3.0"}, python="3.9")

    assert body["conflicts"] == [] and body["unavailable"] == []
    assert body["compatible"] is True
    [source] = body["_meta"]["sources"]
    assert source["package"] == "Django" and source["status"] == "ok"


async def test_django_3_0_without_metadata_files_is_unknown_but_not_judged_on_6_1(
    client: httpx.AsyncClient,
) -> None:
    """The verbatim capture: no per-version JSON, `core-metadata: false` and no metadata file served
    (404). Requires-Python still comes
    from 3.0's own files (`>=3.6`, no conflict under 3.9); Requires-Dist is named as not read."""
    body = await compat(client, {"django": "3.0"}, python="3.9")

    assert body["conflicts"] == []
    assert body["compatible"] is None and body["verdict"].startswith("unknown: ")
    [gap] = body["unavailable"]
    assert gap["package"] == "django" and gap["version"] == "3.0"
    assert gap["reason"] == "metadata_unavailable" and gap["unread"] == ["requires_dist"]
    assert "has no core metadata file (404)" in gap["message"]
    assert body["_meta"]["sources"][0]["status"] == "unavailable"

    old = await compat(client, {"django": "3.0"}, python="3.5")
    [engine] = old["conflicts"]  # its own >=3.6, not 6.1's >=3.12
    assert engine["requires"] == "python" and engine["constraint"] == ">=3.6"
    assert old["compatible"] is False


async def test_fastapi_0_95_with_pydantic_2_is_incompatible_from_core_metadata(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """On main: "compatible: every declared constraint holds" (fastapi 0.165's metadata, or none)."""
    serve_core_metadata(registry, "fastapi", "0.95.0", FASTAPI_0_95_METADATA)
    body = await compat(client, {"fastapi": "0.95.0", "pydantic": "2.0"}, python="3.11")

    assert body["compatible"] is False
    [conflict] = body["conflicts"]
    assert conflict["package"] == "fastapi" and conflict["version"] == "0.95.0"
    assert conflict["requires"] == "pydantic" and conflict["found_version"] == "2.0"
    assert "<2.0.0" in conflict["constraint"] and "requires_dist" in conflict["source"]
    assert any(h.endswith("fastapi-0.95.0-py3-none-any.whl.metadata") for h in registry.hits)
    assert "/pypi/pypi/fastapi/0.95.0/json" in registry.hits  # asked first: 404


async def test_fastapi_0_95_unreadable_is_unknown_never_compatible(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    """Per-version JSON 404 and no metadata file: unknown, naming fastapi 0.95.0's requires_dist —
    in the API, the MCP tool (and its text) and the stack audit alike."""
    body = await compat(client, {"fastapi": "0.95.0", "pydantic": "2.0"}, python="3.11")

    assert body["compatible"] is None and body["conflicts"] == []
    [gap] = body["unavailable"]
    assert (gap["package"], gap["version"], gap["unread"]) == (
        "fastapi",
        "0.95.0",
        ["requires_dist"],
    )
    assert "fastapi 0.95.0: requires_dist not read" in body["verdict"]

    tool = await check_compatibility(
        runtime, packages={"fastapi": "0.95.0", "pydantic": "2.0"}, python="3.11"
    )
    assert tool["compatible"] is None and tool["unavailable"] == body["unavailable"]
    assert "unavailable: fastapi@0.95.0:" in render_compat(tool)

    audit = await client.post(
        "/api/ai/stack",
        json={
            "packages": [
                {"ecosystem": "pypi", "package": "fastapi", "version": "0.95.0"},
                {"ecosystem": "pypi", "package": "pydantic", "version": "2.0"},
            ]
        },
    )
    assert audit.status_code == 200, audit.text
    out = audit.json()
    assert out["compatibility"] == [
        {
            "ecosystem": "pypi",
            "compatible": None,
            "conflicts": 0,
            "unavailable": ["fastapi"],
            "details": [],
        }
    ]
    assert any(a["package"] == "fastapi" and a["action"] == "review" for a in out["action_items"])


async def test_report_for_an_old_version_states_its_own_requirements(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """`/api/check?version=` reads the same adapter path: on main 3.0 showed `>=3.12`."""
    resp = await client.get("/api/check/pypi/django", params={"version": "3.0"})
    assert resp.status_code == 200, resp.text
    meta = resp.json()["metadata"]
    assert meta["requires_python"] == ">=3.6"
    assert meta["dependencies_version"] is None and meta["dependencies_count"] is None
    assert "no release document for 3.0" in meta["dependencies_unavailable"]

    serve_core_metadata(registry, "fastapi", "0.95.0", FASTAPI_0_95_METADATA)
    fastapi = (await client.get("/api/check/pypi/fastapi", params={"version": "0.95.0"})).json()
    meta = fastapi["metadata"]
    assert meta["dependencies_version"] == "0.95.0" and meta["requires_python"] == ">=3.7"
    assert {d["name"] for d in meta["dependencies"]} == {"pydantic", "starlette"}


# --- npm: the packument's per-version manifests ---------------------------------------------------


async def test_npm_old_version_is_judged_on_its_own_peers_and_engines(
    client: httpx.AsyncClient,
) -> None:
    """next 12.0.0 declares react ^17.0.2 and node >=12.22.0 (16.4.6, the latest: react ^18.2.0 ||
    ^19.0.0, node >=20.9.0)."""
    body = await compat(
        client,
        {"next": "12.0.0", "react": "17.0.2", "react-dom": "17.0.2", "node": "14.0.0"},
        ecosystem="npm",
    )
    assert body["conflicts"] == [] and body["compatible"] is True

    too_old = await compat(
        client, {"next": "12.0.0", "react": "17.0.2", "react-dom": "17.0.2", "node": "12.0.0"}
    )
    [engine] = too_old["conflicts"]
    assert engine["constraint"] == ">=12.22.0" and engine["found_version"] == "12.0.0"

    report = (await client.get("/api/check/npm/next", params={"version": "12.0.0"})).json()
    meta = report["metadata"]
    assert meta["dependencies_version"] == "12.0.0"
    peers = {d["name"]: d["requirement"] for d in meta["dependencies"] if d["kind"] == "peer"}
    assert peers["react"] == "^17.0.2" and peers["react-dom"] == "^17.0.2"

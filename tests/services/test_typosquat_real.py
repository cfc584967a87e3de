"""
Typosquat detection on the real name lists of `../shared/data/names` (read in place): `/api/check_bulk`
flags typosquats of popular names and leaves the 1,000 most popular npm and PyPI names alone;
`/api/typosquat` answers with the evidence and its source.
"""

from __future__ import annotations

import functools
import gzip
from typing import Any

import httpx
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.sources.name_lists import parse_tsv
from tests.shared import requires_shared, shared_path

pytestmark = requires_shared

POOL = 20_000


def _lines(file: str) -> list[str]:
    with gzip.open(shared_path("names", file), "rt", encoding="utf-8") as f:
        return f.read().splitlines()


@functools.cache
def _npm_top() -> tuple[list[str], list[str]]:
    """(header + the `POOL` most downloaded lines, their names most downloaded first)."""
    lines = _lines("npm.tsv.gz")
    rows = [ln for ln in lines[1:] if ln.split("\t")[2:3] and ln.split("\t")[2].isdigit()]
    rows.sort(key=lambda ln: -int(ln.split("\t")[2]))
    top = rows[:POOL]
    return [lines[0], *top], [ln.split("\t")[0] for ln in top]


@functools.cache
def _pypi_ranked() -> tuple[list[str], list[str]]:
    """(header + every ranked line, their names best rank first)."""
    lines = _lines("pypi.tsv.gz")
    rows = [ln for ln in lines[1:] if ln.split("\t")[3:4] and ln.split("\t")[3].isdigit()]
    rows.sort(key=lambda ln: int(ln.split("\t")[3]))
    return [lines[0], *rows], [ln.split("\t")[0] for ln in rows]


@pytest.fixture
async def loaded(runtime: Runtime) -> dict[Ecosystem, list[str]]:
    npm_lines, npm_names = _npm_top()
    pypi_lines, pypi_names = _pypi_ranked()
    await runtime.names.ingest(
        Ecosystem.NPM, parse_tsv(Ecosystem.NPM, npm_lines), source="npm.tsv.gz"
    )
    await runtime.names.ingest(
        Ecosystem.PYPI, parse_tsv(Ecosystem.PYPI, pypi_lines), source="pypi.tsv.gz"
    )
    return {Ecosystem.NPM: npm_names, Ecosystem.PYPI: pypi_names}


async def _bulk(client: httpx.AsyncClient, items: list[dict[str, str]]) -> list[dict[str, Any]]:
    resp = await client.post("/api/check_bulk", json={"items": items})
    assert resp.status_code == 200, resp.text
    results: list[dict[str, Any]] = resp.json()["results"]
    return results


async def test_check_bulk_flags_typosquats_and_leaves_the_top_names_alone(
    client: httpx.AsyncClient, loaded: dict[Ecosystem, list[str]]
) -> None:
    flagged = await _bulk(
        client,
        [
            {"ecosystem": "npm", "package": "lodahs"},
            {"ecosystem": "pypi", "package": "reqeusts"},
            {"ecosystem": "npm", "package": "expresss"},
        ],
    )
    assert [r["status"] for r in flagged] == ["typosquat_suspect"] * 3, flagged
    assert [r["similar_to"][0] for r in flagged] == ["lodash", "requests", "express"]
    assert [r["techniques"][0] for r in flagged] == ["transposition", "transposition", "repetition"]
    for eco in (Ecosystem.NPM, Ecosystem.PYPI):
        top = loaded[eco][:1000]
        statuses: dict[str, str] = {}
        for start in range(0, len(top), 100):
            chunk = top[start : start + 100]
            results = await _bulk(client, [{"ecosystem": eco.value, "package": n} for n in chunk])
            statuses.update({r["package"]: r["status"] for r in results})
        suspects = {n: s for n, s in statuses.items() if s == "typosquat_suspect"}
        assert not suspects, (eco, suspects)
        assert len(statuses) == 1000


async def test_typosquat_endpoint_answers_with_evidence_and_sources(
    client: httpx.AsyncClient, loaded: dict[Ecosystem, list[str]]
) -> None:
    resp = await client.get("/api/typosquat/npm/crossenv")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["is_suspected"] is True and body["exists"] is False
    first = body["targets"][0]
    assert first["name"] == "cross-env" and first["technique"] == "delimiter"
    assert first["edit_distance"] == 1 and first["suspected"] is True
    assert first["target_monthly_downloads"] > 1_000_000
    assert body["suspect_popularity"] == "not in the name index: popularity unknown"
    (source,) = body["_meta"]["sources"]
    assert source["kind"] == "name_index" and source["status"] == "ok"
    assert source["fetched_at"] and "npm names" in source["detail"]
    assert source["age_s"] >= 0 and source["stale"] is False

    # PyPI: ranks stand in for downloads.
    body = (await client.get("/api/typosquat/pypi/colourama")).json()
    assert body["is_suspected"] is True
    colorama = next(t for t in body["targets"] if t["name"] == "colorama")
    assert colorama["target_rank"] is not None and colorama["technique"] == "insertion"

    # A popular package is never a suspect of a less popular one: react-dom beside react.
    body = (await client.get("/api/typosquat/npm/react-dom")).json()
    assert body["is_suspected"] is False
    assert all(not t["suspected"] for t in body["targets"])

    # Scoped names are path segments, encoded or not.
    for path in ("/api/typosquat/npm/@babel/core", "/api/typosquat/npm/%40babel%2Fcore"):
        resp = await client.get(path)
        assert resp.status_code == 200 and resp.json()["package"] == "@babel/core"
        assert resp.json()["is_suspected"] is False

"""Ecosystem names people type (any case, aliases, OSV names) reach the same answer as the identifier."""

from __future__ import annotations

import httpx
import pytest


async def test_check_accepts_the_osv_spelling_of_pypi(client: httpx.AsyncClient) -> None:
    canonical = await client.get("/api/check/pypi/requests")
    typed = await client.get("/api/check/PyPI/requests")
    assert canonical.status_code == typed.status_code == 200
    a, b = canonical.json(), typed.json()
    assert b["ecosystem"] == "pypi"  # answers carry the identifier, never the alias
    assert (b["package"], b["latest_version"], b["health"]["score"]) == (
        a["package"],
        a["latest_version"],
        a["health"]["score"],
    )


@pytest.mark.parametrize("alias", ["NPM", "Npm", " npm"])
async def test_case_and_blanks_do_not_matter(client: httpx.AsyncClient, alias: str) -> None:
    resp = await client.get(f"/api/latest/{alias}/lodash")
    assert resp.status_code == 200, resp.text
    assert resp.json()["ecosystem"] == "npm"


async def test_unknown_ecosystem_is_a_422_listing_the_accepted_names(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/latest/python/requests")
    assert resp.status_code == 422
    detail = resp.json()["detail"][0]
    assert detail["loc"] == ["path", "ecosystem"]
    assert "'pypi'" in detail["msg"] and "'npm'" in detail["msg"]


async def test_body_fields_take_aliases(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/check_bulk",
        json={
            "items": [
                {"ecosystem": "crates.io", "package": "serde"},
                {"ecosystem": "PyPI", "package": "requests"},
            ]
        },
    )
    assert resp.status_code == 200, resp.text
    assert [r["ecosystem"] for r in resp.json()["results"]] == ["cargo", "pypi"]

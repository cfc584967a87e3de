"""
pin_safe takes each ecosystem's native range syntax (Cargo, RubyGems, Maven, NuGet, Composer, Pub,
Hex, Hackage, conda) on the replayed registry fixtures: with one test advisory on the newest version inside the
range, the answer is the next one inside it, and versions outside the range are counted as such.
"""

from __future__ import annotations

import httpx
import pytest

from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

pytestmark = requires_shared

CASES = [
    # ecosystem, OSV ecosystem, package (path), OSV name, native constraint, affected, expected
    ("cargo", "crates.io", "regex", "regex", ">=0.1.70, <0.2", "0.1.80", "0.1.79"),
    ("rubygems", "RubyGems", "nokogiri", "nokogiri", "~> 1.12.0", "1.12.5", "1.12.4"),
    (
        "maven",
        "Maven",
        "com.google.guava:guava",
        "com.google.guava:guava",
        "[20,23)",
        "22.0-android",
        "22.0",
    ),
    ("nuget", "NuGet", "Serilog", "Serilog", "[2.0,3.0)", "2.12.0", "2.11.0"),
    (
        "composer",
        "Packagist",
        "monolog%2Fmonolog",
        "monolog/monolog",
        "^2.3 || ^1.0",
        "2.11.0",
        "2.10.0",
    ),
    ("pub", "Pub", "bloc", "bloc", ">=7.0.0 <8.0.0", "7.2.1", "7.2.0"),
    ("hex", "Hex", "phoenix", "phoenix", "~> 1.3.0", "1.3.4", "1.3.3"),
    ("hackage", "Hackage", "aeson", "aeson", "^>= 2.1", "2.1.2.1", "2.1.2.0"),
]


@pytest.mark.parametrize(
    ("ecosystem", "osv_ecosystem", "path", "name", "constraint", "affected", "expected"),
    CASES,
    ids=[c[0] for c in CASES],
)
async def test_pin_safe_native_constraint(
    client: httpx.AsyncClient,
    registry: ReplayRegistry,
    ecosystem: str,
    osv_ecosystem: str,
    path: str,
    name: str,
    constraint: str,
    affected: str,
    expected: str,
) -> None:
    registry.osv_fail_with = None
    registry.osv_records.append(
        {
            "id": f"TEST-{ecosystem}-native",
            "modified": "2026-01-01T00:00:00Z",
            "summary": "test advisory",
            "affected": [
                {
                    "package": {"ecosystem": osv_ecosystem, "name": name},
                    "versions": [affected],
                    "database_specific": {"severity": "HIGH"},
                }
            ],
        }
    )
    resp = await client.get(f"/api/pin_safe/{ecosystem}/{path}", params={"constraint": constraint})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["safe_version"] == expected, body
    assert body["constraint"] == constraint
    assert body["skipped"]["outside_constraint"] > 0
    assert [r["version"] for r in body["rejected"]] == [affected]


async def test_a_bare_version_stays_the_exact_version(client: httpx.AsyncClient) -> None:
    # NuGet reads `13.0.3` as ">= 13.0.3", Maven as "prefer", Cargo as "^": pin_safe keeps the
    # specification's exact-version form, the narrowest reading.
    body = (await client.get("/api/pin_safe/cargo/regex", params={"constraint": "0.2.5"})).json()
    assert body["candidates"] == 1  # 0.2.5 only; `^0.2.5` would admit 0.2.6 to 0.2.11
    assert body["skipped"]["outside_constraint"] > 80


@pytest.mark.parametrize(
    ("path", "constraint"),
    [
        ("maven/com.google.guava:guava", "[23,20)"),
        ("nuget/Serilog", "1.*"),
        ("rubygems/nokogiri", ">>> 1.3"),
        ("composer/monolog%2Fmonolog", "~>1.2"),
        ("pub/bloc", "^1.0.0 <2.0.0"),
        ("hex/phoenix", "~> 1"),
        ("cargo/regex", "1.2.3 - 2.3.4"),
        ("hackage/aeson", ">= { 2.1 }"),  # only == and ^>= take a version set
    ],
)
async def test_text_outside_the_grammar_is_422(
    client: httpx.AsyncClient, path: str, constraint: str
) -> None:
    resp = await client.get(f"/api/pin_safe/{path}", params={"constraint": constraint})
    assert resp.status_code == 422, resp.text
    assert "constraint" in resp.text


async def test_a_conda_constraint_is_read_as_conda_but_never_as_a_regular_expression(
    client: httpx.AsyncClient,
) -> None:
    path = "/api/pin_safe/conda/conda-forge%2Fpytest"
    resp = await client.get(path, params={"constraint": "6.2.*|6.1.2"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["constraint"] == "6.2.*|6.1.2"
    assert body["candidates"] == 7  # 6.2.0 to 6.2.5, and 6.1.2
    assert body["skipped"]["outside_constraint"] == 87
    # No vulnerability database covers conda: no version is called safe.
    assert body["status"] == "unavailable" and body["safe_version"] is None
    # conda's own specs may hold regular expressions (`^6\.2\..*$`): a caller's is not run.
    refused = await client.get(path, params={"constraint": "^6\\.2\\..*$"})
    assert refused.status_code == 422, refused.text
    assert "regular-expression" in refused.text
    resp = await client.get(path, params={"constraint": "~6.2.0"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["candidates"] == 6  # the specification's tilde: 6.2.0 to 6.2.5

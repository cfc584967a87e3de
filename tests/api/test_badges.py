"""SVG badges: parsed as XML, colour band and texts checked, the score equal to /api/health's."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest

from pkgintel.api.badge_svg import COLOURS, render_badge, text_width
from pkgintel.scoring import badge_colour

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> tuple[ET.Element, list[str], str, int]:
    """Root, the visible texts (label, message), the message fill and the width."""
    root = ET.fromstring(svg)  # noqa: S314 - our own output, not untrusted input
    texts = [t.text or "" for t in root.iterfind(".//svg:text", NS) if t.get("aria-hidden") is None]
    rects = root.findall("./svg:g/svg:rect", NS)
    return root, texts, rects[1].get("fill") or "", int(root.get("width") or 0)


@pytest.mark.parametrize(
    ("score", "band", "fill"),
    [
        (100, "green", "#4c1"),
        (80, "green", "#4c1"),
        (79, "yellow", "#dfb317"),
        (60, "yellow", "#dfb317"),
        (59, "orange", "#fe7d37"),
        (40, "orange", "#fe7d37"),
        (39, "red", "#e05d44"),
        (0, "red", "#e05d44"),
    ],
)
def test_colour_bands(score: int, band: str, fill: str) -> None:
    assert badge_colour(score) == band
    _, texts, got, _ = parse(render_badge("health", f"{score}/100", band))
    assert got == fill and texts == ["health", f"{score}/100"]


def test_widths_are_measured_and_text_escaped() -> None:
    short = parse(render_badge("pkgintel", "87", "green"))[3]
    long = parse(render_badge("pkgintel", "87 · use with caution", "green"))[3]
    assert long - short == round(text_width("87 · use with caution") + 12) - round(
        text_width("87") + 12
    )
    assert text_width("WWW") > text_width("iii")  # proportional, not a fixed width per character
    root, texts, _, _ = parse(render_badge("<x&y>", "unknown", "nope"))
    assert texts[0] == "<x&y>" and root.find("svg:title", NS).text == "<x&y>: unknown"  # type: ignore[union-attr]
    assert parse(render_badge("a", "b", "nope"))[2] == COLOURS["grey"]
    clipped = parse(render_badge("a" * 300, "b", "green"))[1][0]
    assert len(clipped) == 64 and clipped.endswith("…")


async def test_badges_show_the_health_score(client: httpx.AsyncClient) -> None:
    health = (await client.get("/api/health/npm/tiny-lib")).json()
    score, colour = health["health"]["score"], health["health"]["colour"]
    verdict = health["recommendation"]["action"].replace("_", " ")
    full = await client.get("/badge/npm/tiny-lib")
    assert full.status_code == 200 and full.headers["content-type"].startswith("image/svg+xml")
    assert full.headers["cache-control"].startswith("public, max-age=")
    _, texts, fill, _ = parse(full.text)
    assert texts == ["pkgintel", f"{score} · {verdict}"] and fill == COLOURS[colour]
    for path in ("/badge/score/npm/tiny-lib", "/badge/npm/tiny-lib/score"):
        resp = await client.get(path)
        _, texts, fill, _ = parse(resp.text)
        assert texts == ["health", f"{score}/100"] and fill == COLOURS[colour], path
    scoped = await client.get("/badge/score/npm/%40acme%2Fwidget")
    assert parse(scoped.text)[1][1].endswith("/100")
    again = await client.get("/badge/npm/tiny-lib", headers={"If-None-Match": full.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.parametrize(
    "path",
    [
        "/badge/npm/no-such-package-here",
        "/badge/score/cargo/serde",  # no live adapter for cargo yet
        "/badge/npm/Bad%20Name/score",
    ],
)
async def test_unscorable_package_gets_a_grey_unknown_badge(
    client: httpx.AsyncClient, path: str
) -> None:
    resp = await client.get(path)
    assert resp.status_code == 200
    assert resp.headers["cache-control"] == "public, max-age=300"
    _, texts, fill, _ = parse(resp.text)
    assert texts[1] == "unknown" and fill == COLOURS["grey"]


async def test_unknown_ecosystem_is_422(client: httpx.AsyncClient) -> None:
    assert (await client.get("/badge/cobol/x")).status_code == 422

"""`/docs` and `/redoc` work on an air-gapped install: every asset comes from the app itself."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings

CONTENT_TYPES = {".js": "javascript", ".css": "text/css", ".png": "image/png"}


class _Links(HTMLParser):
    """Every URL-valued attribute of a page (src, href, spec-url, data-openapi-url)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "spec-url", "data-openapi-url") and value:
                self.urls.append(value)


def _links(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.urls


@pytest.fixture
async def docs_client(settings: Settings) -> httpx.AsyncClient:
    app = create_app(settings)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


@pytest.mark.parametrize(
    ("page", "assets"),
    [
        ("/docs", {"swagger-ui-bundle.js", "swagger-ui.css", "swagger-init.js", "favicon.png"}),
        ("/redoc", {"redoc.standalone.js", "favicon.png"}),
    ],
)
async def test_docs_pages_name_no_external_url_and_their_assets_are_served(
    docs_client: httpx.AsyncClient, page: str, assets: set[str]
) -> None:
    async with docs_client as client:
        resp = await client.get(page)
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/html")
        # Not a single absolute URL in the page: no CDN, no web font, no remote favicon.
        assert "http://" not in resp.text and "https://" not in resp.text
        assert "//" not in resp.text.replace("<!doctype html>", "")
        csp = resp.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "http" not in csp
        assert "<script>" not in resp.text  # no inline script: works under the policy
        urls = _links(resp.text)
        assert {u.rsplit("/", 1)[-1] for u in urls if u.startswith("/docs/static/")} == assets
        for url in urls:
            assert url.startswith("/"), url
            got = await client.get(url)
            assert got.status_code == 200, url
            if url == "/openapi.json":
                assert got.json()["openapi"] == "3.1.0"
                continue
            suffix = "." + url.rsplit(".", 1)[-1]
            assert CONTENT_TYPES[suffix] in got.headers["content-type"], (url, got.headers)


async def test_swagger_ui_starts_from_the_apps_document_without_the_online_validator(
    docs_client: httpx.AsyncClient,
) -> None:
    async with docs_client as client:
        init = (await client.get("/docs/static/swagger-init.js")).text
        bundle = await client.get("/docs/static/swagger-ui-bundle.js")
    assert "validatorUrl: null" in init
    assert "SwaggerUIBundle" in bundle.text[:2000]


async def test_docs_pages_follow_the_root_path_of_a_reverse_proxy(settings: Settings) -> None:
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app, root_path="/pkgintel")
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        page = (await client.get("/docs")).text
    assert '"/pkgintel/docs/static/swagger-ui-bundle.js"' in page
    assert 'data-openapi-url="/pkgintel/openapi.json"' in page


async def test_fastapis_cdn_pages_are_off(docs_client: httpx.AsyncClient) -> None:
    async with docs_client as client:
        assert (await client.get("/docs/oauth2-redirect")).status_code == 404
        spec = (await client.get("/openapi.json")).json()
    assert not any(p.startswith(("/docs", "/redoc")) for p in spec["paths"])


async def test_docs_assets_are_cached_files_sent_uncompressed(
    docs_client: httpx.AsyncClient,
) -> None:
    # Compressing the 1.5 MB bundle per request would hold the event loop for most of a second.
    async with docs_client as client:
        first = await client.get(
            "/docs/static/swagger-ui-bundle.js", headers={"Accept-Encoding": "br, gzip"}
        )
        again = await client.get(
            "/docs/static/swagger-ui-bundle.js", headers={"If-None-Match": first.headers["etag"]}
        )
    assert "content-encoding" not in first.headers
    assert first.headers["cache-control"] == "public, max-age=86400"
    assert again.status_code == 304

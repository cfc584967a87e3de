"""
Interactive API documentation served by the app itself: `/docs` (Swagger UI) and `/redoc` (ReDoc).

FastAPI's own pages load their JavaScript, CSS, favicon and fonts from public CDNs, so they are blank
on an air-gapped install. Here every asset comes from this app under `/docs/static/`: Swagger UI and
ReDoc from the `fastapi-offline` package's data (see `docs/adr/0036-offline-api-docs.md`), and the
Swagger UI start-up script from `docs_static/` beside this module. The pages name no external URL and
hold no inline script, and they send a Content-Security-Policy that allows only this origin (plus
inline styles and `blob:` workers, which both UIs need), so a browser never reaches out from them.
"""

from __future__ import annotations

import os
from html import escape

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.staticfiles import PathLike
from starlette.types import Scope

STATIC_PATH = "/docs/static"
"""Where the documentation assets are mounted."""
ASSET_PACKAGES: tuple[tuple[str, str], ...] = (
    ("fastapi_offline", "static"),  # swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js
    ("pkgintel.api", "docs_static"),  # swagger-init.js
)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'self'"
)
"""The pages' policy: nothing outside this origin."""

ASSET_CACHE = "public, max-age=86400"
"""Assets change only with the installed version; a day's caching, then an ETag revalidation."""


class DocsAssets(StaticFiles):
    """The assets as files (ETag, Last-Modified, 304) with `ASSET_CACHE`."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.setdefault("Cache-Control", ASSET_CACHE)
        return response


_HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" type="image/png" href="{static}/favicon.png">
"""


def swagger_page(*, title: str, openapi_url: str, static: str) -> str:
    """The Swagger UI page: assets from `static`, the document from `openapi_url`."""
    return (
        _HEAD.format(title=escape(title), static=escape(static))
        + f'<link rel="stylesheet" href="{escape(static)}/swagger-ui.css">\n</head>\n<body>\n'
        f'<div id="swagger-ui" data-openapi-url="{escape(openapi_url)}"></div>\n'
        f'<script src="{escape(static)}/swagger-ui-bundle.js"></script>\n'
        f'<script src="{escape(static)}/swagger-init.js"></script>\n</body>\n</html>\n'
    )


def redoc_page(*, title: str, openapi_url: str, static: str) -> str:
    """The ReDoc page: the standalone bundle from `static`, the document from `openapi_url`."""
    return (
        _HEAD.format(title=escape(title), static=escape(static))
        + "<style>body { margin: 0; padding: 0; }</style>\n</head>\n<body>\n"
        f'<redoc spec-url="{escape(openapi_url)}"></redoc>\n'
        f'<script src="{escape(static)}/redoc.standalone.js"></script>\n</body>\n</html>\n'
    )


def install_docs(app: FastAPI) -> None:
    """
    Mount the assets at `STATIC_PATH` and add `GET /docs` and `GET /redoc` (not in the OpenAPI
    document). Build the app with `docs_url=None, redoc_url=None` so FastAPI's CDN pages are off.
    """
    app.mount(STATIC_PATH, DocsAssets(packages=list(ASSET_PACKAGES)), name="docs-static")
    openapi_path = app.openapi_url or "/openapi.json"

    def _urls(request: Request) -> tuple[str, str]:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        return f"{root}{openapi_path}", f"{root}{STATIC_PATH}"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        openapi_url, static = _urls(request)
        page = swagger_page(title=f"{app.title} API", openapi_url=openapi_url, static=static)
        return HTMLResponse(page, headers={"Content-Security-Policy": CSP})

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        openapi_url, static = _urls(request)
        page = redoc_page(title=f"{app.title} API", openapi_url=openapi_url, static=static)
        return HTMLResponse(page, headers={"Content-Security-Policy": CSP})

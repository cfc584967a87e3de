"""
The web pages' own assets (one stylesheet, one script), served by the app itself: no CDN, no build
step. Each URL carries a hash of the file's content, so the answer is cached for a year
(`immutable`) and a new release changes the URL; a request with a stale or no hash still gets the
current file, revalidated by its ETag.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.web.security import secure

STATIC = Path(__file__).parent / "static"
MEDIA_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "public, max-age=300"


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    media_type: str
    digest: str

    @property
    def etag(self) -> str:
        return f'"{self.digest}"'


def _load() -> dict[str, Asset]:
    assets: dict[str, Asset] = {}
    for path in sorted(STATIC.iterdir()):
        if path.suffix in MEDIA_TYPES:
            body = path.read_bytes()
            digest = hashlib.blake2b(body, digest_size=8).hexdigest()
            assets[path.name] = Asset(body, MEDIA_TYPES[path.suffix], digest)
    return assets


ASSETS = _load()


def asset_url(name: str) -> str:
    """`/static/<name>?v=<content hash>`; raises KeyError for a file that is not an asset."""
    return f"/static/{name}?v={ASSETS[name].digest}"


router = APIRouter(include_in_schema=False)


@router.get("/static/{name}")
async def static_asset(name: str, request: Request) -> Response:
    asset = ASSETS.get(name)
    if asset is None:
        return secure(Response(b"not found", status_code=404, media_type="text/plain"))
    versioned = request.query_params.get("v") == asset.digest
    headers = {"ETag": asset.etag, "Cache-Control": IMMUTABLE if versioned else REVALIDATE}
    if request.headers.get("if-none-match") == asset.etag:
        return secure(Response(status_code=304, headers=headers))
    return secure(Response(asset.body, media_type=asset.media_type, headers=headers))

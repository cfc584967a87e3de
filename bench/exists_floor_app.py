"""
The floor for `/api/exists`: a bare ASGI app answering the same paths from a dict, with a JSON body
of the same shape (no framework, no database, no middleware). Served by uvicorn exactly as
`pkgintel serve` is; `bench_exists_floor.py` sets it against the service. Names come from the file
named by `PKGINTEL_FLOOR_NAMES` (one per line).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson

PREFIX = "/api/exists/npm/"
_NAMES = {
    n: orjson.dumps(
        {
            "ecosystem": "npm",
            "package": n,
            "normalized": n,
            "exists": True,
            "reason": "in the name index",
            "display_name": n,
            "latest_version": None,
            "source": "ingest",
            "index_loaded_at": "2026-11-24T00:00:00Z",
            "did_you_mean": [],
        }
    )
    for n in Path(os.environ.get("PKGINTEL_FLOOR_NAMES", "/dev/null")).read_text().splitlines()
    if n
}
_ABSENT = b'{"ecosystem":"npm","exists":false,"did_you_mean":[]}'


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    name = unquote(scope["path"].removeprefix(PREFIX))
    body = _NAMES.get(name, _ABSENT)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})

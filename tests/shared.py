"""Access to `../shared/data` (real recorded data), read in place; tests skip when it is absent."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

SHARED_DATA = Path(
    os.environ.get(
        "PKGINTEL_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)

requires_shared = pytest.mark.skipif(
    not SHARED_DATA.is_dir(),
    reason=f"shared data not found at {SHARED_DATA} (set PKGINTEL_SHARED_DATA)",
)


def shared_path(*parts: str) -> Path:
    """Path under the shared data folder; skips the calling test when the file is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data file missing: {path}")
    return path


def read_shared_bytes(*parts: str) -> bytes:
    """Bytes of a shared file, gunzipped when its name ends in `.gz`."""
    path = shared_path(*parts)
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.name.endswith(".gz") else raw


def read_shared_json(*parts: str) -> Any:
    """Parsed JSON of a shared file (gunzipped when needed)."""
    return json.loads(read_shared_bytes(*parts))

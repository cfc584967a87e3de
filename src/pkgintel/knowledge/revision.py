"""
The revision of the curated knowledge the services read from the database: a SHA-256 over the
shipped files of those sets (`errors/*.yaml`: error-to-fix; `curated/*.yaml`: alternatives,
migration paths, breaking changes) and the pkgintel version (whose code turns them into rows).
`services.knowledge.shipped` stores it with each load, so a start finds in one query whether the database
holds what this installation ships.

The other shipped sets (past compromises, the compatibility matrix `compat/breakages.yaml`,
slopsquats, stdlib and import names, install confusions) are read from the package files when
answering; they need no load and are not part of the revision.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from typing import Final

from pkgintel import __version__

_PACKAGE: Final = "pkgintel.knowledge"
LOADED_FOLDERS: Final = ("errors", "curated")
"""The folders whose files are loaded into the database."""


@functools.cache
def curated_revision() -> str:
    """`v<version>:<sha256 hex>` of the loaded sets' files (name and bytes, in name order)."""
    digest = hashlib.sha256()
    root = resources.files(_PACKAGE)
    for folder in LOADED_FOLDERS:
        for item in sorted(root.joinpath(folder).iterdir(), key=lambda p: p.name):
            if item.name.endswith((".yaml", ".yml")):
                digest.update(f"{folder}/{item.name}\0".encode())
                digest.update(item.read_bytes())
                digest.update(b"\0")
    return f"v{__version__}:{digest.hexdigest()}"

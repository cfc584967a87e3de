"""
`LoadState`: where this process stands in loading the knowledge shipped in the package
(`services.knowledge.shipped`), shared with the services whose answers depend on it (`ErrorService`), so an
answer given while the load runs or after it failed says so instead of `ok`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

LoadStatus = Literal["pending", "loading", "ok", "failed"]


@dataclass(slots=True)
class LoadState:
    """Mutable, one per process. `pending`: no check has run yet (a runtime built without the
    start-up step, e.g. by a one-off command); `loading`: the check or the load is running; `ok`:
    the stored curated knowledge is the shipped revision; `failed`: the load failed (`detail`)."""

    status: LoadStatus = "pending"
    detail: str | None = None
    revision: str | None = None
    """The shipped revision the state refers to."""

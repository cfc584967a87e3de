"""`collector_paused` for the API layer: a re-export of `pkgintel.gc_pause` (one shared counter)."""

from __future__ import annotations

from pkgintel.gc_pause import collector_paused

__all__ = ["collector_paused"]

"""`collector_paused` for the API layer: a re-export of `pkgintel.transport.gc_pause` (one shared counter)."""

from __future__ import annotations

from pkgintel.transport.gc_pause import collector_paused

__all__ = ["collector_paused"]

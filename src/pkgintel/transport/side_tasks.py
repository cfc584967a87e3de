"""
Side lookups nobody waits for any more: cancelled, and whatever they end with seen.

A task whose exception is never retrieved makes asyncio log `Task exception was never retrieved`
with a traceback of ~50 lines when it is collected. A report starts lookups beside the registry
fetch (downloads, owners, an index file) and stops caring when the registry fails; those lookups
are handed to `abandon`, and futures kept running in the background get `seen` as a done callback.
An upstream failure found that way was already logged as one WARNING line where the request failed
(`transport/upstream.py`), so it is logged at debug here; anything else is one WARNING line, never a stack.

Used by the registry adapters and the services, so it imports only the domain errors.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pkgintel.domain.errors import PackageNotFound, PkgIntelError, VersionNotFound

logger = logging.getLogger(__name__)


def abandon(*futures: asyncio.Future[Any] | None) -> None:
    """
    Cancel side lookups a failed (or finished) answer no longer needs, and mark whatever they end
    with as seen: an error one of them already raised, or raises while being cancelled, is then
    never asyncio's "exception was never retrieved" traceback. None entries are skipped.
    """
    for future in futures:
        if future is not None:
            future.cancel()
            future.add_done_callback(seen)


def seen(future: asyncio.Future[Any]) -> None:
    """Done callback: retrieve the outcome of `future` (a failure is one log line, never a stack)."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is None or isinstance(exc, PackageNotFound | VersionNotFound):
        return
    if isinstance(exc, PkgIntelError):
        # An upstream failure was logged (one WARNING line) where the request failed.
        logger.debug("background lookup failed: %s", exc.message)
    else:
        logger.warning("background lookup failed: %s: %s", type(exc).__name__, exc)

"""
`collector_paused()`: run a burst of allocation-heavy, cycle-free work without Python's cyclic
garbage collector.

Why: parsing a large lockfile builds hundreds of thousands of short-lived dicts and lists. Each of
them counts toward the collector's thresholds, so the parse sets off full collections, and a full
collection walks every tracked object of a long-running server (caches included). In the audit
benchmark that doubled a 717-package `pnpm-lock.yaml` scan (185 ms, of which ~100 ms collections).
The parsed trees hold no reference cycles, so reference counting frees them without the collector;
pausing it only defers the collection of cycles made elsewhere by the length of the burst.

The same pause serves the npm packuments a compatibility check decodes (`transport/fetch.py`
`get_json_parsed`): a 21 MB packument (next) is millions of objects, and with the collector
running the collections took about two thirds of a cold 10-package check.

One module-wide counter, so every caller shares it (`api.gc_pause` re-exports this function).
Nesting and threads are safe: the collector is re-enabled when the last paused section ends, and
only if it was enabled when the first one began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector for the `with` body (see the module docstring)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()

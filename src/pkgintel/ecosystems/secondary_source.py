"""
A secondary source of a report (publish dates, owners, yanked flags, download counts...) fetched
without letting its failure fail the report: `optional_source` gives the value, or None, and the
source's `_meta.sources` entry saying which.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from pkgintel.domain.errors import PackageNotFound, RegistryError
from pkgintel.domain.signals.provenance import SourceState, SourceStatus

T = TypeVar("T")


async def optional_source(
    call: Callable[[], Awaitable[T | None]], *, source: str, kind: str
) -> tuple[T | None, SourceStatus]:
    """
    Call and await a secondary source's fetch (publish dates, owners, yanked flags...) without letting it
    fail the report: its value and its `_meta.sources` entry.

    A `RegistryError` (timeout, 5xx, bad body) or a `PackageNotFound` from the secondary source
    gives `(None, unavailable)` with the reason as detail; None from `call` (a 404 read with
    `not_found="none"`) gives `(None, unavailable, "no entry")`. `fetched_at` is left None: the
    package service stamps it when it builds the snapshot.

    `call` is a zero-argument function returning the awaitable, so nothing is created (and left
    un-awaited) when the surrounding task is cancelled before it runs.
    """
    try:
        value = await call()
    except PackageNotFound:
        return None, SourceStatus(source, kind, SourceState.UNAVAILABLE, None, "no entry")
    except RegistryError as exc:
        return None, SourceStatus(source, kind, SourceState.UNAVAILABLE, None, exc.reason)
    if value is None:
        return None, SourceStatus(source, kind, SourceState.UNAVAILABLE, None, "no entry")
    return value, SourceStatus(source, kind, SourceState.OK)

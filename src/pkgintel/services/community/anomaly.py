"""
`AnomalyService`: reports that a verdict is wrong (`POST /api/anomaly`) — validated, limited per
client with the same `limits` gate as contact requests, stored, listed for the operators
(`GET /api/admin/anomalies`), removed after the retention period (checked at most once an hour,
when a report arrives).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

from pkgintel.domain.community import StoredAnomaly, anomaly_report
from pkgintel.domain.errors import RateLimited
from pkgintel.services.operations.contact import Gate

_PRUNE_EVERY_S = 3600.0


class AnomalyStore(Protocol):
    async def add_anomaly(self, stored: StoredAnomaly) -> None: ...

    async def newest_anomalies(self, *, limit: int) -> list[StoredAnomaly]: ...

    async def prune(self, *, anomalies_before: datetime, views_before: datetime) -> int: ...


class AnomalyService:
    """See the module docstring."""

    def __init__(
        self,
        store: AnomalyStore,
        *,
        gate: Gate | None,
        retention_days: int,
        views_retention_days: int,
        clock: Callable[[], datetime],
    ) -> None:
        self._store, self._gate, self._clock = store, gate, clock
        self.retention_days = retention_days
        self._views_days = views_retention_days
        self._last_prune = 0.0

    @property
    def limit(self) -> str | None:
        return self._gate.limit if self._gate is not None else None

    async def submit(
        self,
        *,
        ecosystem: str,
        package: str,
        version: str | None,
        observed: str,
        expected: str,
        evidence_url: str | None,
        client: str,
        source: str,
    ) -> StoredAnomaly:
        """Validate (`InvalidInput`), count against the client's limit (`RateLimited`), store
        (`StorageError`: then not acknowledged) and return the stored report."""
        report = anomaly_report(
            ecosystem=ecosystem,
            package=package,
            version=version,
            observed=observed,
            expected=expected,
            evidence=evidence_url,
            client=client,
            source=source,
        )
        if self._gate is not None:
            wait = await self._gate.allow(client)
            if wait is not None:
                raise RateLimited(
                    f"too many anomaly reports; try again in {wait} s",
                    retry_after=wait,
                    limit=self._gate.limit,
                )
        stored = StoredAnomaly(str(uuid.uuid4()), self._clock(), report)
        await self._store.add_anomaly(stored)
        if time.monotonic() - self._last_prune >= _PRUNE_EVERY_S:
            self._last_prune = time.monotonic()
            await self.prune()
        return stored

    async def newest(self, *, limit: int = 50) -> list[StoredAnomaly]:
        return await self._store.newest_anomalies(limit=limit)

    async def prune(self) -> int:
        """Delete reports and page views past their retention periods; how many rows."""
        now = self._clock()
        return await self._store.prune(
            anomalies_before=now - timedelta(days=self.retention_days),
            views_before=now - timedelta(days=self._views_days),
        )

    async def close(self) -> None:
        if self._gate is not None:
            await self._gate.close()

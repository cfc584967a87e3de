"""
Agents by range (`/api/admin/agents-by-range`): calls per user-agent class per time bucket, read from
the usage log (`services/operations/usage.py`, one row per API or MCP call, the client as a keyed hash).

Written against the small `ClassCounts` Protocol, which `UsageLog` satisfies; without a usage log
(`PKGINTEL_USAGE_LOG_ENABLED=false`) it answers `OpsUnavailable` and never makes numbers up. Classes are
the usage log's (`ai-agent`, `ci`, `browser`, `crawler`, `other`), reported with underscores as the admin
API names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from pkgintel.domain.operations.ops import AGENT_CLASSES, OpsUnavailable

BUCKETS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
MAX_BUCKETS = 1000


class ClassBucket(Protocol):
    @property
    def bucket_start(self) -> datetime: ...

    @property
    def ua_class(self) -> str: ...

    @property
    def calls(self) -> int: ...

    @property
    def clients(self) -> int: ...


class ClassCounts(Protocol):
    """Counted calls per user-agent class (`UsageLog.agents_by_range`)."""

    async def agents_by_range(
        self, start: datetime, end: datetime, *, bucket: str = "day"
    ) -> Sequence[ClassBucket]: ...


def _week(start: datetime) -> datetime:
    """The Monday 00:00 UTC that starts `start`'s ISO week."""
    day = start.replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


class AgentsByRange:
    """See the module contract."""

    def __init__(self, log: ClassCounts | None) -> None:
        self._log = log

    async def report(self, since: datetime, until: datetime, bucket: str) -> dict[str, Any]:
        """Counts (calls and distinct clients) per class per bucket; `week` buckets are summed from
        days. Raises `OpsUnavailable` without a usage log."""
        if self._log is None:
            raise OpsUnavailable(
                "no call log in this installation: agents-by-range needs the usage log "
                "(PKGINTEL_USAGE_LOG_ENABLED)"
            )
        rows = await self._log.agents_by_range(
            since, until, bucket="hour" if bucket == "hour" else "day"
        )
        series: dict[str, dict[str, int]] = {}
        clients: dict[str, int] = {}
        for row in rows:
            start = _week(row.bucket_start) if bucket == "week" else row.bucket_start
            key = start.isoformat()
            slot = series.setdefault(key, dict.fromkeys(AGENT_CLASSES, 0))
            cls = row.ua_class.replace("-", "_")
            slot[cls if cls in slot else "other"] += row.calls
            clients[key] = clients.get(key, 0) + row.clients
        return {
            "since": since.isoformat(),
            "until": until.isoformat(),
            "bucket": bucket,
            "classes": list(AGENT_CLASSES),
            "buckets": [
                {"start": k, **v, "clients": clients[k]} for k, v in sorted(series.items())
            ],
            "source": "usage log (API and MCP calls; clients as keyed hashes)",
        }

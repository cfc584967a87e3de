"""
Agents by range: calls per user-agent class per time bucket, read from a call log.

This build has no call log (the usage table is built on another branch), so `AgentsByRange` is
written against the small `CallLog` Protocol below and answers `OpsUnavailable` until one is wired
in `bootstrap.py`. It never makes numbers up.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from pkgintel.domain.ops import AGENT_CLASSES, OpsUnavailable, classify_user_agent

BUCKETS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
MAX_BUCKETS = 1000


class CallLog(Protocol):
    """Counted API calls."""

    async def calls_by_user_agent(
        self, since: datetime, until: datetime, bucket_s: int
    ) -> Sequence[tuple[datetime, str | None, int]]:
        """(bucket start, raw User-Agent, calls) for calls in [since, until), buckets aligned to
        multiples of `bucket_s` since the Unix epoch."""
        ...


class AgentsByRange:
    def __init__(self, log: CallLog | None) -> None:
        self._log = log

    async def report(self, since: datetime, until: datetime, bucket: str) -> dict[str, Any]:
        """Counts per class per bucket. Raises `OpsUnavailable` without a call log."""
        if self._log is None:
            raise OpsUnavailable(
                "no call log in this installation: agents-by-range needs the usage log "
                "(accounts and usage), which is not part of this build"
            )
        step = BUCKETS[bucket]
        rows = await self._log.calls_by_user_agent(since, until, int(step.total_seconds()))
        series: dict[str, dict[str, int]] = {}
        for start, agent, calls in rows:
            slot = series.setdefault(start.isoformat(), dict.fromkeys(AGENT_CLASSES, 0))
            slot[classify_user_agent(agent)] += calls
        return {
            "since": since.isoformat(),
            "until": until.isoformat(),
            "bucket": bucket,
            "classes": list(AGENT_CLASSES),
            "buckets": [{"start": k, **v} for k, v in sorted(series.items())],
        }

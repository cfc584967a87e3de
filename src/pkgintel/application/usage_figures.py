"""`/api/stats` and `/api/savings` answers: figures from the usage log, served with
stale-while-revalidate (`cache` says `fresh`, `stale` or `computed`; `age_s` their age)."""

from __future__ import annotations

from typing import Any

from pkgintel.application.usage_access import meta, usage_services
from pkgintel.runtime.container import Runtime
from pkgintel.services.usage.swr import Served

SOURCE = "pkgintel usage log"


def _wire(served: Served, endpoint: str) -> dict[str, Any]:
    return {
        **served.value,
        "_cache": served.cache,
        "_meta": meta(endpoint, SOURCE, age_s=served.age_s),
    }


async def stats_answer(runtime: Runtime) -> dict[str, Any]:
    return _wire(await usage_services(runtime).figures.stats(), "/api/stats")


async def savings_answer(runtime: Runtime) -> dict[str, Any]:
    return _wire(await usage_services(runtime).figures.savings(), "/api/savings")

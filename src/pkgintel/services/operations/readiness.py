"""
Liveness and readiness, as a load balancer or an orchestrator reads them (door-neutral; the HTTP
door serves them as `/livez` and `/readyz`).

- Live: the process answers. Nothing is checked: a live process whose database is away must not be
  restarted for it (restarting does not bring the database back).
- Ready: this worker should be sent traffic. Two checks, each `ok` or a sentence saying what is not
  ready: `database` (a round trip within `timeout_s`; an outage under way, as seen by the outage
  tracker, also says since when) and `warm` (the start-up work that makes the first answers slow —
  loading the name pools — is done).

`/api/health` is left as the specification defines it (always 200, `ready` in the body).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from pkgintel.storage.base import StoreHealth
from pkgintel.storage.outage import DatabaseOutage, database


@dataclass
class WarmState:
    """Whether this worker's start-up warm-up is done (set once by the app's lifespan)."""

    warm: bool = False
    started: float = field(default_factory=time.monotonic)
    took_s: float | None = None

    def done(self) -> None:
        """The warm-up ended (successfully or not: a failed one leaves loads to first use)."""
        if not self.warm:
            self.warm = True
            self.took_s = round(time.monotonic() - self.started, 3)


@dataclass(frozen=True, slots=True)
class Readiness:
    """The readiness answer: `ready` only when every check is `ok`."""

    checks: dict[str, str]
    retry_after: int

    @property
    def ready(self) -> bool:
        return all(value == "ok" for value in self.checks.values())

    @property
    def not_ready(self) -> list[str]:
        """Names of the checks that are not `ok`."""
        return [name for name, value in self.checks.items() if value != "ok"]

    def body(self) -> dict[str, Any]:
        return {"ready": self.ready, "checks": self.checks}


async def _database(db: StoreHealth, timeout_s: float, outage: DatabaseOutage) -> str:
    try:
        await asyncio.wait_for(db.ping(), timeout_s)
    except TimeoutError:
        return f"database did not answer within {timeout_s:g} s"
    except Exception as exc:
        down = f" (unavailable for {outage.down_for():.0f} s)" if outage.down else ""
        return f"database cannot be reached: {exc.__class__.__name__}{down}"[:200]
    outage.recovered()
    return "ok"


async def readiness(
    db: StoreHealth,
    warm: WarmState,
    *,
    timeout_s: float = 1.0,
    outage: DatabaseOutage = database,
) -> Readiness:
    """Whether this worker is ready for traffic; never raises."""
    checks = {
        "database": await _database(db, timeout_s, outage),
        "warm": "ok" if warm.warm else "warming up: name pools are being loaded",
    }
    return Readiness(checks, outage.retry_after)

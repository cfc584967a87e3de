"""The runtime's issue-30 services, or a 503 problem when this installation has none."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pkgintel.domain.errors import NotConfigured
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.usage import UsageServices


def usage_services(runtime: Runtime) -> UsageServices:
    if runtime.usage_services is None:
        raise NotConfigured(
            "usage figures and community endpoints are not wired in this installation"
        )
    return runtime.usage_services


def meta(endpoint: str, name: str, *, kind: str = "database", age_s: int = 0) -> dict[str, Any]:
    """`_meta` naming the one source an answer comes from, fetched `age_s` seconds ago."""
    fetched = datetime.now(UTC).timestamp() - age_s
    at = datetime.fromtimestamp(fetched, UTC).isoformat().replace("+00:00", "Z")
    return {
        "endpoint": endpoint,
        "sources": [{"name": name, "kind": kind, "status": "ok", "fetched_at": at}],
    }

"""
Schemathesis over the whole OpenAPI document, against the in-process app: every operation the app
declares (routes added later are picked up without touching this file), checks `not_a_server_error`
and response-schema conformance. Fixed seed and bounded examples in the default suite;
`make fuzz` (PKGINTEL_FUZZ_EXAMPLES=...) runs it long.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, settings
from schemathesis import checks

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from tests.bodies import RECORDINGS
from tests.fake_registry import build

EXAMPLES = int(os.environ.get("PKGINTEL_FUZZ_EXAMPLES", "40"))
SEED = int(os.environ.get("PKGINTEL_FUZZ_SEED", "20261124"))


def _app() -> FastAPI:
    """The real app with its lifespan, upstreams replaced by the replay registry (no network)."""
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-fuzz-"))
    cfg = Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{workdir / 'fuzz.db'}",
        upstream_npm_url="http://registry.test/npm",
        upstream_npm_downloads_url="http://registry.test/npm-downloads",
        upstream_pypi_url="http://registry.test/pypi",
        upstream_pypistats_url="http://registry.test/pypistats",
        upstream_pypi_files_url="http://registry.test/pypi-files",
        upstream_osv_api_url="http://registry.test/osv-api",
        upstream_scorecard_url="http://registry.test/scorecard",
        ip_hash_secret="fuzz-secret",
    )
    registry = build(None, extra=RECORDINGS)
    app = create_app(cfg)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        transport = httpx.ASGITransport(app=registry.app)
        async with build_runtime(cfg, transport=transport) as runtime:
            app.state.runtime = runtime
            yield

    app.router.lifespan_context = lifespan
    return app


DELIBERATE_5XX = frozenset({501, 502, 503})
"""Answers the service gives on purpose (ecosystem not supported yet, a source sent unreadable data,
upstream down with nothing stored), as declared problem+json; a 500 is never deliberate."""


def no_unhandled_server_error(ctx: Any, response: Any, case: schemathesis.Case) -> bool | None:
    """`not_a_server_error`, except a declared 501/502/503 problem answer; anything else 5xx fails."""
    declared = case.operation.definition.raw.get("responses", {})
    deliberate = (
        response.status_code in DELIBERATE_5XX
        and str(response.status_code) in declared
        and response.headers.get("content-type", [""])[0].startswith("application/problem+json")
    )
    if deliberate:
        return None
    return checks.not_a_server_error(ctx, response, case)


schema = schemathesis.openapi.from_asgi("/openapi.json", _app())
schema.config.max_stream_events = 1


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
def test_no_server_error_and_schema_conformance(case: schemathesis.Case) -> None:
    case.call_and_validate(
        checks=[
            no_unhandled_server_error,
            checks.response_schema_conformance,
            checks.status_code_conformance,
            checks.content_type_conformance,
        ]
    )

"""Fixtures of the job-system tests: a runtime with an admin token, a worker, an authorised client,
and a slow fake model (an OpenAI-compatible endpoint) beside the replay registry."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.jobs import Worker
from tests.conftest import NOW
from tests.ecosystems._recorded import recording_body
from tests.fake_registry import ReplayRegistry

TOKEN = "test-admin-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class FakeModel:
    """`POST /llm/chat/completions`: answers `reply` after `delay_s`; counts calls."""

    def __init__(self) -> None:
        self.delay_s = 0.0
        self.reply: list[dict[str, Any]] = []
        self.calls = 0
        self.started = asyncio.Event()

    async def chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        assert body["messages"][0]["role"] == "user"
        self.calls += 1
        self.started.set()
        await asyncio.sleep(self.delay_s)
        return JSONResponse(
            {
                "choices": [{"message": {"role": "assistant", "content": json.dumps(self.reply)}}],
                "usage": {"total_tokens": 120},
            }
        )


@pytest.fixture
def model() -> FakeModel:
    return FakeModel()


@pytest.fixture
def ops_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "admin_token": TOKEN,
            "upstream_llm_url": "http://registry.test/llm",
            "llm_model": "test-model",
            "job_heartbeat_s": 0.1,
            "job_poll_s": 0.05,
            "initial_ingest": False,
        }
    )


@pytest.fixture
async def ops_runtime(
    ops_settings: Settings, registry: ReplayRegistry, model: FakeModel
) -> AsyncIterator[Runtime]:
    # A deprecated package agents asked about (its message names the replacement @acme/widget).
    legacy = "https://registry.npmjs.org/@acme%2Flegacy-widget"
    registry.add(legacy, recording_body("npm", "scoped-deprecated", legacy))
    llm = Starlette(routes=[Route("/llm/chat/completions", model.chat, methods=["POST"])])

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        target = llm if str(scope.get("path", "")).startswith("/llm/") else registry.app
        await target(scope, receive, send)

    async with build_runtime(
        ops_settings, transport=httpx.ASGITransport(app=upstream), clock=lambda: NOW
    ) as rt:
        yield rt


@pytest.fixture
def worker(ops_runtime: Runtime) -> Worker:
    assert ops_runtime.ops is not None
    return Worker(ops_runtime.ops.queue, heartbeat_s=0.1, poll_s=0.05, lease_s=5)


@pytest.fixture
async def admin(ops_settings: Settings, ops_runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(ops_settings, runtime=ops_runtime)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test", headers=AUTH
    ) as c:
        yield c


@pytest.fixture
async def running_worker(worker: Worker) -> AsyncIterator[Worker]:
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    yield worker
    stop.set()
    await task


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)

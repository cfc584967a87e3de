"""
`upstream_memo`: inside one answer a GET is sent once per URL and headers (its response or error
handed to every later caller), nested answers join the open one, and nothing is shared outside an
answer or after it ends; POSTs, other headers and oversized bodies are not kept.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest

from pkgintel.domain.errors import RegistryUnavailable
from pkgintel.domain.packages import Ecosystem
from pkgintel.transport.fetch import get_json
from pkgintel.transport.memo import AnswerFetches, answer_fetches, one_answer
from pkgintel.transport.upstream import send

URL = "http://reg.example/pkg"


def counting(
    status: int = 200, body: bytes = b'{"name": "pkg"}'
) -> tuple[httpx.AsyncClient, Counter[str]]:
    calls: Counter[str] = Counter()

    async def handle(request: httpx.Request) -> httpx.Response:
        calls[f"{request.method} {request.url}"] += 1
        await asyncio.sleep(0.01)  # concurrent callers overlap
        return httpx.Response(status, content=body)

    return httpx.AsyncClient(transport=httpx.MockTransport(handle)), calls


async def get(client: httpx.AsyncClient, url: str = URL, accept: str = "application/json") -> int:
    response = await send(
        client,
        "GET",
        url,
        ecosystem="npm",
        source="reg.example",
        headers={"Accept": accept},
        wait_s=(0.0, 0.0),
    )
    return response.status_code


async def test_one_request_per_url_within_an_answer_concurrent_or_not() -> None:
    client, calls = counting()
    async with client:
        with one_answer() as memo:
            await asyncio.gather(*(get(client) for _ in range(5)))
            await get(client)
            await get(client, f"{URL}/1.0")
        assert calls == Counter({f"GET {URL}": 1, f"GET {URL}/1.0": 1})
        assert memo.reused == 1  # the five concurrent ones shared the flight; the sixth was kept
        assert not memo.open and answer_fetches.get() is None


async def test_outside_or_after_an_answer_every_request_is_sent() -> None:
    client, calls = counting()
    async with client:
        await get(client)
        await get(client)
        with one_answer():
            await get(client)
        await get(client)
    assert calls[f"GET {URL}"] == 4


async def test_a_nested_answer_joins_the_open_one_and_does_not_close_it() -> None:
    client, calls = counting()
    async with client:
        with one_answer() as outer:
            await get(client)
            with one_answer() as inner:
                assert inner is outer
                await get(client)
            assert outer.open
            await get(client)
    assert calls[f"GET {URL}"] == 1


async def test_a_failure_is_not_asked_again_in_the_same_answer() -> None:
    client, calls = counting(status=503)
    async with client:
        with one_answer():
            for _ in range(3):
                with pytest.raises(RegistryUnavailable):
                    await get_json(
                        client, URL, ecosystem=Ecosystem.NPM, name="pkg", source="reg.example"
                    )
        # 503 is retried once by `send`: two attempts, then never again in this answer.
        assert calls[f"GET {URL}"] == 2
        with pytest.raises(RegistryUnavailable):
            await get_json(client, URL, ecosystem=Ecosystem.NPM, name="pkg", source="reg.example")
    assert calls[f"GET {URL}"] == 4  # a new answer asks again


async def test_other_headers_and_posts_are_not_shared() -> None:
    client, calls = counting()
    async with client:
        with one_answer():
            await get(client)
            await get(client, accept="application/vnd.npm.install-v1+json")
            for _ in range(2):
                await send(
                    client,
                    "POST",
                    URL,
                    ecosystem="npm",
                    source="reg.example",
                    headers={"Accept": "application/json"},
                    content=b"{}",
                )
    assert calls == Counter({f"GET {URL}": 2, f"POST {URL}": 2})


async def test_bodies_past_the_byte_budget_are_not_kept() -> None:
    client, calls = counting(body=b"x" * 100)
    async with client:
        memo = AnswerFetches(max_bytes=150)
        token = answer_fetches.set(memo)
        try:
            await get(client, f"{URL}/a")
            await get(client, f"{URL}/b")  # 200 bytes in all: not kept
            await get(client, f"{URL}/a")
            await get(client, f"{URL}/b")
        finally:
            memo.close()
            answer_fetches.reset(token)
    assert calls == Counter({f"GET {URL}/a": 1, f"GET {URL}/b": 2})

"""`transport.fetch`: the four fetch-and-decode helpers share one status table (404/410, 429/5xx,
other non-2xx) and differ only in what the body must be."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, RegistryUnavailable
from pkgintel.domain.packages import Ecosystem
from pkgintel.transport.fetch import get_json, get_json_array, get_json_parsed, get_text

URL = "https://registry.example/pkg"
KW: dict[str, Any] = {"ecosystem": Ecosystem.RUBYGEMS, "name": "pkg", "source": "registry.example"}


async def call(
    answer: httpx.Response, helper: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any
) -> Any:
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda _: answer)) as client:
        return await helper(client, URL, *args, **KW, **kwargs)


async def parsed(client: httpx.AsyncClient, url: str, **kwargs: Any) -> Any:
    return await get_json_parsed(client, url, dict, **kwargs)


ALL = [get_json, get_json_array, get_text, parsed]


@pytest.mark.parametrize("helper", ALL)
@pytest.mark.parametrize("status", [404, 410])
async def test_not_found_raises_with_the_response_as_cause(
    helper: Callable[..., Awaitable[Any]], status: int
) -> None:
    with pytest.raises(PackageNotFound) as caught:
        await call(httpx.Response(status), helper)
    assert isinstance(caught.value.__cause__, httpx.HTTPStatusError)


@pytest.mark.parametrize("helper", [get_json, get_json_array, get_text])
async def test_not_found_none_answers_none(helper: Callable[..., Awaitable[Any]]) -> None:
    assert await call(httpx.Response(404), helper, not_found="none") is None


@pytest.mark.parametrize("helper", ALL)
async def test_rate_limit_is_unavailable_with_retry_after(
    helper: Callable[..., Awaitable[Any]],
) -> None:
    with pytest.raises(RegistryUnavailable) as caught:
        await call(httpx.Response(429, headers={"Retry-After": "7"}), helper)
    assert (caught.value.reason, caught.value.retry_after) == ("status.429", 7)


@pytest.mark.parametrize("helper", ALL)
async def test_other_non_2xx_is_invalid(helper: Callable[..., Awaitable[Any]]) -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await call(httpx.Response(403, json={"a": 1}), helper)
    assert caught.value.reason == "status.403"


async def test_json_array_body() -> None:
    assert await call(httpx.Response(200, json=[{"number": "1.0.0"}]), get_json_array) == [
        {"number": "1.0.0"}
    ]


@pytest.mark.parametrize(
    ("helper", "body"),
    [(get_json_array, b'{"a": 1}'), (get_json, b"[1]"), (get_json_array, b"not json")],
)
async def test_json_of_the_other_kind_is_invalid(
    helper: Callable[..., Awaitable[Any]], body: bytes
) -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await call(httpx.Response(200, content=body), helper)
    assert caught.value.reason == "invalid_json"


async def test_text_body_and_bad_encoding() -> None:
    assert await call(httpx.Response(200, content=b"\xef\xbb\xbfmodule x\n"), get_text) == (
        "module x\n"
    )
    with pytest.raises(RegistryResponseInvalid) as caught:
        await call(httpx.Response(200, content=b"\xff\xfe\xfa"), get_text)
    assert caught.value.reason == "invalid_text"

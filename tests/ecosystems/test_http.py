"""`transport.fetch.get_json` error mapping and retries, and the same failure paths through every adapter."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
)
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import ADAPTERS
from pkgintel.transport import fetch as fetch_module
from pkgintel.transport.fetch import get_json
from pkgintel.transport.upstream import parse_retry_after

URL = "https://registry.example/pkg"
Outcome = httpx.Response | Exception


class Scripted:
    """A MockTransport handler that plays `outcomes` in order (the last one repeats) and counts calls."""

    def __init__(self, *outcomes: Outcome) -> None:
        self.outcomes = list(outcomes)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        outcome = self.outcomes[min(len(self.requests), len(self.outcomes)) - 1]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


async def fetch(handler: Callable[[httpx.Request], httpx.Response], **kwargs: object) -> object:
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        return await get_json(
            client,
            URL,
            ecosystem=Ecosystem.NPM,
            name="pkg",
            source="registry.example",
            **kwargs,  # type: ignore[arg-type]
        )


def connect_error(message: str = "refused") -> httpx.ConnectError:
    return httpx.ConnectError(message, request=httpx.Request("GET", URL))


# --- get_json ---------------------------------------------------------------------------------


async def test_returns_the_json_object_and_asks_for_json() -> None:
    handler = Scripted(httpx.Response(200, json={"name": "pkg", "versions": {}}))

    data = await fetch(handler)

    assert data == {"name": "pkg", "versions": {}}
    assert handler.requests[0].headers["accept"] == "application/json"
    assert handler.requests[0].method == "GET"


@pytest.mark.parametrize("status", [404, 410])
async def test_not_found_raises_package_not_found(status: int) -> None:
    with pytest.raises(PackageNotFound) as caught:
        await fetch(Scripted(httpx.Response(status, json={"error": "Not found"})))

    assert caught.value.name == "pkg"
    assert caught.value.ecosystem == "npm"
    assert isinstance(caught.value.__cause__, httpx.HTTPStatusError)


async def test_not_found_returns_none_when_the_caller_expects_it() -> None:
    assert await fetch(Scripted(httpx.Response(404)), not_found="none") is None


async def test_not_found_none_still_raises_on_other_failures() -> None:
    with pytest.raises(RegistryUnavailable):
        await fetch(Scripted(httpx.Response(429)), not_found="none")


async def test_429_is_unavailable_with_retry_after_and_not_retried() -> None:
    handler = Scripted(httpx.Response(429, headers={"Retry-After": "30"}))

    with pytest.raises(RegistryUnavailable) as caught:
        await fetch(handler)

    assert caught.value.retry_after == 30
    assert caught.value.reason == "status.429"
    assert caught.value.source == "registry.example"
    assert len(handler.requests) == 1


@pytest.mark.parametrize(("status", "attempts"), [(500, 1), (502, 2), (503, 2), (504, 2)])
async def test_5xx_is_unavailable_and_only_gateway_errors_are_retried(
    status: int, attempts: int
) -> None:
    handler = Scripted(httpx.Response(status))

    with pytest.raises(RegistryUnavailable) as caught:
        await fetch(handler)

    assert caught.value.reason == f"status.{status}"
    assert caught.value.retry_after is None
    assert len(handler.requests) == attempts


async def test_503_then_200_succeeds_on_the_retry() -> None:
    handler = Scripted(httpx.Response(503), httpx.Response(200, json={"ok": True}))

    assert await fetch(handler) == {"ok": True}
    assert len(handler.requests) == 2


@pytest.mark.real_retry_pause
async def test_the_retry_waits_a_short_pause_first() -> None:
    handler = Scripted(httpx.Response(502), httpx.Response(200, json={}))

    started = time.perf_counter()
    await fetch(handler)

    assert time.perf_counter() - started >= fetch_module.RETRY_WAIT_MIN_S
    assert len(handler.requests) == 2


async def test_connection_error_is_retried_once_then_succeeds() -> None:
    handler = Scripted(connect_error(), httpx.Response(200, json={"ok": True}))

    assert await fetch(handler) == {"ok": True}
    assert len(handler.requests) == 2


async def test_persistent_connection_error_is_unavailable_connect() -> None:
    handler = Scripted(connect_error())

    with pytest.raises(RegistryUnavailable) as caught:
        await fetch(handler)

    assert caught.value.reason == "connect"
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert len(handler.requests) == 2


async def test_connect_timeout_is_unavailable_timeout_after_one_retry() -> None:
    handler = Scripted(httpx.ConnectTimeout("slow", request=httpx.Request("GET", URL)))

    with pytest.raises(RegistryUnavailable) as caught:
        await fetch(handler)

    assert caught.value.reason == "timeout"
    assert isinstance(caught.value.__cause__, httpx.ConnectTimeout)
    assert len(handler.requests) == 2


async def test_read_timeout_is_unavailable_and_not_retried() -> None:
    handler = Scripted(httpx.ReadTimeout("slow body", request=httpx.Request("GET", URL)))

    with pytest.raises(RegistryUnavailable) as caught:
        await fetch(handler)

    assert caught.value.reason == "timeout"
    assert len(handler.requests) == 1


@pytest.mark.parametrize(
    "body", [b"not json", b"<html>rate limited</html>", b"", b"[1, 2]", b'"text"', b"null"]
)
async def test_body_that_is_not_a_json_object_is_invalid(body: bytes) -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await fetch(Scripted(httpx.Response(200, content=body)))

    assert caught.value.reason == "invalid_json"


async def test_undecodable_json_keeps_the_parser_error_as_cause() -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await fetch(Scripted(httpx.Response(200, content=b"{broken")))

    assert isinstance(caught.value.__cause__, ValueError)


async def test_other_4xx_is_invalid_response_with_the_status_as_reason() -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await fetch(Scripted(httpx.Response(403)))

    assert caught.value.reason == "status.403"


async def test_redirects_are_followed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/pkg":
            return httpx.Response(301, headers={"Location": "https://registry.example/Pkg"})
        return httpx.Response(200, json={"name": "Pkg"})

    assert await fetch(handler) == {"name": "Pkg"}


async def test_each_request_is_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="pkgintel.transport.fetch")

    await fetch(Scripted(httpx.Response(200, json={})))

    [record] = [r for r in caplog.records if r.name == "pkgintel.transport.fetch"]
    assert record.levelno == logging.DEBUG
    message = record.getMessage()
    assert message.startswith(f"GET {URL} -> 200 in ")
    assert message.endswith(" ms")


NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("120", 120),
        (" 7 ", 7),
        ("0", 0),
        (None, None),
        ("soon", None),
        ("-3", None),
        ("1.5", None),
        (format_datetime(NOW + timedelta(seconds=90), usegmt=True), 90),
        (format_datetime(NOW - timedelta(hours=1), usegmt=True), 0),
    ],
)
def test_parse_retry_after(header: str | None, expected: int | None) -> None:
    assert parse_retry_after(header, now=NOW) == expected


# --- the same failures through each adapter ---------------------------------------------------

ADAPTER_CASES = [
    pytest.param(Ecosystem.NPM, "@types/jquery", id="npm"),
    pytest.param(Ecosystem.PYPI, "requests", id="pypi"),
]


async def adapter_call(ecosystem: Ecosystem, handler: Scripted, method: str, name: str) -> object:
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        adapter = ADAPTERS[ecosystem](client)
        if method == "package":
            return await adapter.fetch_package(name)
        return await adapter.fetch_weekly_downloads(name)


def test_registry_holds_npm_and_pypi_with_their_source_names() -> None:
    assert ADAPTERS[Ecosystem.NPM].registry_source == "registry.npmjs.org"  # type: ignore[attr-defined]
    assert ADAPTERS[Ecosystem.NPM].downloads_source == "api.npmjs.org"  # type: ignore[attr-defined]
    assert ADAPTERS[Ecosystem.PYPI].registry_source == "pypi.org"  # type: ignore[attr-defined]
    assert ADAPTERS[Ecosystem.PYPI].downloads_source == "pypistats.org"  # type: ignore[attr-defined]
    for ecosystem in (Ecosystem.NPM, Ecosystem.PYPI):
        assert ADAPTERS[ecosystem].ecosystem is ecosystem  # type: ignore[attr-defined]


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
async def test_adapter_404_is_package_not_found(ecosystem: Ecosystem, name: str) -> None:
    with pytest.raises(PackageNotFound) as caught:
        await adapter_call(ecosystem, Scripted(httpx.Response(404)), "package", name)

    assert caught.value.name == name
    assert caught.value.ecosystem == ecosystem


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
async def test_adapter_429_is_unavailable_with_retry_after(ecosystem: Ecosystem, name: str) -> None:
    handler = Scripted(httpx.Response(429, headers={"Retry-After": "17"}))

    with pytest.raises(RegistryUnavailable) as caught:
        await adapter_call(ecosystem, handler, "package", name)

    assert caught.value.retry_after == 17
    assert caught.value.ecosystem == ecosystem
    assert caught.value.source == ADAPTERS[ecosystem].registry_source  # type: ignore[attr-defined]


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
async def test_adapter_503_is_unavailable(ecosystem: Ecosystem, name: str) -> None:
    with pytest.raises(RegistryUnavailable) as caught:
        await adapter_call(ecosystem, Scripted(httpx.Response(503)), "package", name)

    assert caught.value.reason == "status.503"


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
@pytest.mark.parametrize("body", [b"not json", b"[]"])
async def test_adapter_non_object_body_is_invalid(
    ecosystem: Ecosystem, name: str, body: bytes
) -> None:
    handler = Scripted(httpx.Response(200, content=body))

    with pytest.raises(RegistryResponseInvalid):
        await adapter_call(ecosystem, handler, "package", name)


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
async def test_adapter_connect_timeout_is_unavailable(ecosystem: Ecosystem, name: str) -> None:
    handler = Scripted(httpx.ConnectTimeout("slow", request=httpx.Request("GET", URL)))

    with pytest.raises(RegistryUnavailable) as caught:
        await adapter_call(ecosystem, handler, "package", name)

    assert caught.value.reason == "timeout"


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
async def test_adapter_downloads_404_is_none(ecosystem: Ecosystem, name: str) -> None:
    handler = Scripted(httpx.Response(404, json={"error": "not found"}))

    assert await adapter_call(ecosystem, handler, "downloads", name) is None


@pytest.mark.parametrize(("ecosystem", "name"), ADAPTER_CASES)
async def test_adapter_downloads_failure_names_the_downloads_source(
    ecosystem: Ecosystem, name: str
) -> None:
    with pytest.raises(RegistryUnavailable) as caught:
        await adapter_call(ecosystem, Scripted(httpx.Response(500)), "downloads", name)

    assert caught.value.source == ADAPTERS[ecosystem].downloads_source  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("ecosystem", "expected"),
    [
        (Ecosystem.NPM, "https://mirror.example/npm/lodash"),
        (Ecosystem.PYPI, "https://mirror.example/npm/pypi/lodash/json"),
    ],
)
async def test_adapters_use_the_configured_base_url(ecosystem: Ecosystem, expected: str) -> None:
    handler = Scripted(httpx.Response(404))

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        adapter = ADAPTERS[ecosystem](
            client,
            base_url="https://mirror.example/npm/",
            downloads_url="https://stats.example",
        )
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package("lodash")
        assert await adapter.fetch_weekly_downloads("lodash") is None

    assert str(handler.requests[0].url) == expected
    assert handler.requests[1].url.host == "stats.example"

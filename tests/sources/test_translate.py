"""The LibreTranslate-compatible adapter (httpx.MockTransport) and `GET /api/translate`."""

from __future__ import annotations

import json

import httpx
import pytest

from pkgintel.cache.memory import MemoryCache
from pkgintel.domain.errors import InvalidInput, NotConfigured, RegistryUnavailable
from pkgintel.sources.translate import Translator

BASE = "http://translate.test"


def _translator(
    handler: httpx.MockTransport, *, base: str = BASE, key: str | None = "k1"
) -> Translator:
    return Translator(
        httpx.AsyncClient(transport=handler),
        MemoryCache(),
        base_url=base,
        api_key=key,
        max_chars=50,
        ttl_s=60,
    )


async def test_translates_once_then_serves_the_shared_cache() -> None:
    seen: list[dict[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and request.url.path == "/translate"
        seen.append(json.loads(request.content))
        return httpx.Response(
            200, json={"translatedText": "ciao mondo", "detectedLanguage": {"language": "en"}}
        )

    t = _translator(httpx.MockTransport(answer))
    first = await t.translate("hello world", "it")
    assert (first.translated, first.detected, first.cache) == ("ciao mondo", "en", "miss")
    assert seen == [
        {"q": "hello world", "source": "auto", "target": "it", "format": "text", "api_key": "k1"}
    ]
    second = await t.translate("hello world", "it")
    assert (second.translated, second.cache) == ("ciao mondo", "hit") and len(seen) == 1


async def test_not_configured_is_a_503_naming_the_setting() -> None:
    t = _translator(httpx.MockTransport(lambda r: httpx.Response(500)), base="")
    with pytest.raises(NotConfigured, match="PKGINTEL_UPSTREAM_TRANSLATE_URL"):
        await t.translate("hello", "it")


@pytest.mark.parametrize(
    ("text", "to", "field"),
    [("x" * 51, "it", "text"), ("  ", "it", "text"), ("hi", "italian!", "to")],
)
async def test_bad_input_is_refused_before_the_provider_is_asked(
    text: str, to: str, field: str
) -> None:
    t = _translator(httpx.MockTransport(lambda r: pytest.fail("the provider was asked")))
    with pytest.raises(InvalidInput) as exc:
        await t.translate(text, to)
    assert exc.value.field == field


async def test_provider_failures_map_to_clear_errors() -> None:
    refused = _translator(
        httpx.MockTransport(lambda r: httpx.Response(400, json={"error": "xx is not supported"}))
    )
    with pytest.raises(InvalidInput, match="xx is not supported"):
        await refused.translate("hello", "xx")
    bad_key = _translator(httpx.MockTransport(lambda r: httpx.Response(403, json={})))
    with pytest.raises(NotConfigured, match="API key"):
        await bad_key.translate("hello", "it")
    down = _translator(httpx.MockTransport(lambda r: httpx.Response(503)))
    with pytest.raises(RegistryUnavailable):
        await down.translate("hello", "it")


async def test_the_endpoint_answers_503_problem_when_unconfigured_and_422_for_long_text(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/translate", params={"text": "hello"})
    assert resp.status_code == 503
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert "PKGINTEL_UPSTREAM_TRANSLATE_URL" in resp.json()["detail"]
    long = await client.get("/api/translate", params={"text": "x" * 2001, "to": "it"})
    assert long.status_code == 422 and "text" in long.text

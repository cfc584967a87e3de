"""
Translation through a LibreTranslate-compatible HTTP API (`PKGINTEL_UPSTREAM_TRANSLATE_URL`,
optional `PKGINTEL_TRANSLATE_API_KEY`), cached in the shared cache.

`POST {base}/translate` with `{"q", "source": "auto", "target", "format": "text", "api_key"?}`
answers `{"translatedText", "detectedLanguage": {"language", "confidence"}?}`; a 400 names a
refused request (`{"error"}`: an unsupported language), 401/403 a refused key.

Failures: not configured → `NotConfigured` (503 with the setting to set); a refused key →
`NotConfigured`; a refused language → `InvalidInput` on `to` (422); timeouts, 429, 5xx →
`RegistryUnavailable` (503 with `Retry-After`); a shapeless body → `RegistryResponseInvalid`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
from dataclasses import dataclass
from typing import Any, Final

import httpx
import orjson

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import InvalidInput, NotConfigured, RegistryResponseInvalid
from pkgintel.transport.upstream import json_object, raise_if_unavailable, send

logger = logging.getLogger(__name__)

UPSTREAM: Final = "translate"
LANGUAGE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z]{2,4})?$")
NOT_CONFIGURED: Final = (
    "translation is not configured in this installation: set PKGINTEL_UPSTREAM_TRANSLATE_URL to a "
    "LibreTranslate-compatible API (and PKGINTEL_TRANSLATE_API_KEY when it needs a key)"
)


@dataclass(frozen=True, slots=True)
class Translation:
    text: str
    to: str
    translated: str
    detected: str | None
    provider: str
    cache: str
    """`hit` when served from the shared cache, `miss` when the provider was asked."""


def validate_request(text: str, to: str, max_chars: int) -> tuple[str, str]:
    """The text (non-empty, at most `max_chars`) and target language; `InvalidInput` otherwise."""
    if not text.strip():
        raise InvalidInput("text", "text must not be empty")
    if len(text) > max_chars:
        raise InvalidInput("text", f"text is longer than {max_chars} characters")
    lang = to.strip()
    if not LANGUAGE.match(lang):
        raise InvalidInput("to", "to must be a language code such as 'it' or 'pt-BR'")
    return text, lang


class Translator:
    """See the module docstring. `base_url` empty = not configured."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        cache: Cache,
        *,
        base_url: str,
        api_key: str | None,
        max_chars: int,
        ttl_s: float,
    ) -> None:
        self._client, self._cache = client, cache
        self._base = base_url.rstrip("/")
        self._key, self.max_chars, self._ttl = api_key, max_chars, ttl_s

    @property
    def configured(self) -> bool:
        return bool(self._base)

    @property
    def provider(self) -> str:
        return httpx.URL(self._base).host if self._base else ""

    async def translate(self, text: str, to: str) -> Translation:
        text, to = validate_request(text, to, self.max_chars)
        if not self.configured:
            raise NotConfigured(NOT_CONFIGURED)
        key = "translate:" + hashlib.sha256(f"{to}\0{text}".encode()).hexdigest()
        cached = None
        with contextlib.suppress(CacheUnavailable):
            cached = await self._cache.get(key)
        if cached is not None:
            got = orjson.loads(cached.value)
            return Translation(text, to, got["t"], got.get("d"), self.provider, "hit")
        translated, detected = await self._ask(text, to)
        with contextlib.suppress(CacheUnavailable):
            await self._cache.set(
                key, orjson.dumps({"t": translated, "d": detected}), ttl_s=self._ttl
            )
        return Translation(text, to, translated, detected, self.provider, "miss")

    async def _ask(self, text: str, to: str) -> tuple[str, str | None]:
        payload: dict[str, Any] = {"q": text, "source": "auto", "target": to, "format": "text"}
        if self._key:
            payload["api_key"] = self._key
        response = await send(
            self._client,
            "POST",
            f"{self._base}/translate",
            ecosystem=UPSTREAM,
            source=self.provider,
            headers={"Accept": "application/json", "Content-Type": "application/json"},
            content=orjson.dumps(payload),
            log=logger,
        )
        if response.status_code in (401, 403):
            raise NotConfigured(
                f"the translation provider {self.provider} refused our API key "
                "(PKGINTEL_TRANSLATE_API_KEY)"
            )
        if response.status_code == 400:
            raise InvalidInput(
                "to", f"the translation provider refused the request: {_error(response)}"
            )
        raise_if_unavailable(response, ecosystem=UPSTREAM, source=self.provider)
        body = json_object(response, ecosystem=UPSTREAM, source=self.provider)
        translated = body.get("translatedText")
        if not isinstance(translated, str):
            raise RegistryResponseInvalid(
                UPSTREAM,
                f"{self.provider} sent no translatedText",
                reason="invalid_json",
                source=self.provider,
            )
        detected = body.get("detectedLanguage")
        language = detected.get("language") if isinstance(detected, dict) else None
        return translated, language if isinstance(language, str) else None


def _error(response: httpx.Response) -> str:
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return "HTTP 400"
    message = data.get("error") if isinstance(data, dict) else None
    return message[:200] if isinstance(message, str) else "HTTP 400"

"""`GET /api/translate` answer: a LibreTranslate-compatible provider, cached in the shared cache."""

from __future__ import annotations

from typing import Any

from pkgintel.application.usage_access import meta, usage_services
from pkgintel.runtime.container import Runtime


async def translate_answer(runtime: Runtime, text: str, to: str) -> dict[str, Any]:
    translator = usage_services(runtime).translator
    t = await translator.translate(text, to)
    return {
        "text": t.text,
        "to": t.to,
        "translated_text": t.translated,
        "detected_source_language": t.detected,
        "provider": t.provider,
        "_cache": t.cache,
        "_meta": meta("/api/translate", t.provider, kind="translation-api"),
    }

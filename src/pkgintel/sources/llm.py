"""
OpenAI-compatible chat client (`POST {base_url}/chat/completions`), used by LLM mission profiles.

Works with any server speaking that API (OpenAI, vLLM, llama.cpp server, Ollama's `/v1`, ...). The
token count comes from the answer's `usage.total_tokens`; a server that omits it is charged the
prompt and answer lengths divided by four (a documented estimate, marked `estimated`).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from pkgintel.domain.errors import PkgIntelError


class LlmUnavailable(PkgIntelError):
    """The model server failed or answered something unreadable."""

    reason = "llm_unavailable"


@dataclass(frozen=True, slots=True)
class ChatAnswer:
    text: str
    tokens: int
    estimated: bool


class ChatClient:
    """One model behind an OpenAI-compatible endpoint."""

    def __init__(
        self, client: httpx.AsyncClient, *, base_url: str, model: str, api_key: str | None = None
    ) -> None:
        self._client = client
        self._url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    async def complete(self, prompt: str, *, timeout: float = 120.0) -> ChatAnswer:
        """The model's answer to one user message. Raises `LlmUnavailable`."""
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
        }
        try:
            resp = await self._client.post(
                self._url, json=body, headers=self._headers, timeout=timeout
            )
        except httpx.HTTPError as exc:
            raise LlmUnavailable(f"model server unreachable: {exc.__class__.__name__}") from exc
        if resp.status_code >= 400:
            raise LlmUnavailable(f"model server answered HTTP {resp.status_code}")
        try:
            data = resp.json()
            text = str(data["choices"][0]["message"]["content"])
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LlmUnavailable("model server answered an unreadable body") from exc
        usage = data.get("usage") if isinstance(data, dict) else None
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        if isinstance(total, int) and total >= 0:
            return ChatAnswer(text, total, estimated=False)
        return ChatAnswer(text, (len(prompt) + len(text)) // 4 + 1, estimated=True)

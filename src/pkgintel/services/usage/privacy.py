"""
`PrivacyService`: the GDPR answers — the caller's rows (export), their erasure, and the policy.
The caller is a client hash (`ClientIdentity.key`), never an address. The usage log's buffer is
written first, so rows of calls just made are exported and erased too; when that write fails the
request fails (`StorageError`, 503) rather than leave rows behind that would appear later.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pkgintel.domain.privacy import Retention, policy_document


class ClientRows(Protocol):
    async def export(self, client: str) -> dict[str, list[dict[str, Any]]]: ...

    async def erase(self, client: str) -> dict[str, int]: ...


class PrivacyService:
    """See the module docstring."""

    def __init__(
        self,
        rows: ClientRows,
        *,
        flush: Callable[[], Awaitable[int]] | None,
        retention: Retention,
        public_url: str,
    ) -> None:
        self._rows, self._flush = rows, flush
        self.retention, self._public_url = retention, public_url

    async def export(self, client: str) -> dict[str, list[dict[str, Any]]]:
        if self._flush is not None:
            await self._flush()
        return await self._rows.export(client)

    async def erase(self, client: str) -> dict[str, int]:
        if self._flush is not None:
            await self._flush()
        return await self._rows.erase(client)

    def policy(self) -> dict[str, Any]:
        return policy_document(self.retention, public_url=self._public_url)

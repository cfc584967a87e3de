"""
`ExistsBytes`: the `/api/exists` answer as the bytes sent, with its ETag, for the doors' fast lane.

The body is `packages.exists_wire` of the name index's answer, encoded once and reused for as long
as the index hands back the *same* answer object: `NameIndex.exists` keeps each answer for a bounded
time and drops it at once on an ingestion or a live sighting, so a reused encoding is never older
than the answer the slow path would give. Per request this costs the name check, the index's own
memo lookup and a dict lookup — no JSON encoding, no hashing, no purl building.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

import orjson

from pkgintel.application.packages import exists_wire
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.names.index import ExistsAnswer

_ENTRIES: Final = 16_384


def etag_of(body: bytes) -> str:
    """The strong ETag every JSON answer of the service carries for `body` (blake2b-96, quoted)."""
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


@dataclass(frozen=True, slots=True)
class EncodedExists:
    """One encoded `/api/exists` answer."""

    answer: ExistsAnswer
    body: bytes
    etag: str
    name: str
    """The validated name (the usage log's `package`)."""

    @property
    def found(self) -> bool | None:
        return self.answer.exists


class ExistsBytes:
    """See the module docstring. One per door instance; bounded to the most recent names."""

    def __init__(self, entries: int = _ENTRIES) -> None:
        self._entries = entries
        self._memo: OrderedDict[tuple[Ecosystem, str], EncodedExists] = OrderedDict()
        self._names: dict[tuple[Ecosystem, str], str] = {}
        """Asked spelling → validated name (`validate_name` is pure)."""

    async def get(self, runtime: Runtime, ecosystem: Ecosystem, package: str) -> EncodedExists:
        """The encoded answer for `package`; raises `InvalidInput` for a name the ecosystem cannot
        have (as `exists_body` does)."""
        key = (ecosystem, package)
        name = self._names.get(key)
        if name is None:
            name = validate_name(ecosystem, package)  # raises for a name refused
            if len(self._names) >= self._entries:
                self._names.clear()
            self._names[key] = name
        answer = await runtime.names.exists(ecosystem, name)
        runtime.status.stats.count("exists")
        key = (ecosystem, name)
        found = self._memo.get(key)
        if found is not None and found.answer is answer:
            return found
        body = orjson.dumps(exists_wire(ecosystem, name, answer))
        found = EncodedExists(answer, body, etag_of(body), name)
        self._memo[key] = found
        if len(self._memo) > self._entries:
            self._memo.popitem(last=False)
        return found

"""
`ErrorService`: the error-to-fix database (`/api/error*`, MCP `resolve_error`).

Resolution of a pasted error or log, in order:

1. `domain.knowledge.error_patterns.normalise_error` finds the decisive lines and their two forms.
2. **Exact hash**: every decisive line's specific and generic pattern is hashed and looked up
   (confidence 0.97 specific, 0.93 a tool's error code, 0.90 generic).
2b. **Message core**: the same lines without their location, tool and level prefixes
   (`message_core`) are looked up among the stored patterns' cores, so `Error: X`, `fatal error: X`
   and `<file>:3:10: fatal error: X` find an entry written as any of them (0.91 specific, 0.88
   generic); then the line's leading clauses (`X, relax the …` finds `X`; 0.86).

Similar-but-different entries are vetoed in steps 2b–4 (`domain.knowledge.error_guards`): other
quoted names than the line's, or a toolchain (in the pattern or the entry's tool) that the input
does not name while it names another.
3. **Full text**: the lines' words are searched in the store (SQLite FTS5 / PostgreSQL tsvector); each
   hit is kept when its pattern is similar enough to a decisive line (confidence ≤ 0.85, scaled by
   the rapidfuzz token-sort similarity).
4. **Fuzzy**: rapidfuzz over every stored pattern (kept in memory, refreshed every
   `pattern_refresh_s`), for near-identical wording the full-text terms missed.

Nothing at or above `min_confidence` → "no match", and the primary pattern is recorded as a miss
(pattern, hash and a count; never the raw text). Entries returned first count a hit.
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

from rapidfuzz import fuzz, process

from pkgintel.domain.errors import ErrorEntryNotFound, InvalidInput, RateLimited
from pkgintel.domain.knowledge.error_guards import similar_but_different, tools_differ, tools_in
from pkgintel.domain.knowledge.error_patterns import (
    Form,
    NormalisedError,
    core_prefixes,
    error_hash,
    fuzzy_key,
    is_error_hash,
    normalise_error,
    pattern_core_keys,
    search_terms,
)
from pkgintel.domain.knowledge.errors import (
    ErrorEntry,
    ErrorMatch,
    ErrorMiss,
    ErrorResolution,
    KnowledgeLoad,
    MatchMethod,
    Vote,
    VoteOutcome,
)
from pkgintel.services.knowledge.load_state import LoadState
from pkgintel.storage.base import ErrorStore

EXACT_SPECIFIC: Final = 0.97
EXACT_CODE: Final = 0.93
EXACT_GENERIC: Final = 0.90
CORE_SPECIFIC: Final = 0.91
CORE_GENERIC: Final = 0.88
CORE_PREFIX: Final = 0.86
"""A stored message that the line starts with (the line goes on: `…failed, relax the …`)."""
SIMILAR_MAX: Final = 0.85
FULLTEXT_MIN_SIMILARITY: Final = 62.0
FUZZY_MIN_SIMILARITY: Final = 78.0
FULLTEXT_CANDIDATES: Final = 25
FUZZY_LINES: Final = 6
MAX_ERROR_CHARS: Final = 200_000
_QUERY_WORD: Final = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]{3,48}(?![A-Za-z0-9_])")


class RateGate(Protocol):
    """A per-key limit: `allow(key)` is None when allowed, else the seconds to wait."""

    @property
    def limit(self) -> str: ...

    async def allow(self, key: str) -> int | None: ...

    async def close(self) -> None:
        """Release the gate's connections (a no-op for in-memory gates)."""
        ...


class ErrorService:
    """See the module docstring. `knowledge` returns the curated entries shipped with the package."""

    def __init__(
        self,
        store: ErrorStore,
        *,
        knowledge: Callable[[], Sequence[ErrorEntry]],
        vote_gate: RateGate | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        min_confidence: float = 0.6,
        pattern_refresh_s: float = 60.0,
        curated_state: LoadState | None = None,
    ) -> None:
        self._store = store
        self._curated_state = curated_state
        self._has_entries = False
        self._knowledge = knowledge
        self._gate = vote_gate
        self._clock = clock
        self._min_confidence = min_confidence
        self._refresh_s = pattern_refresh_s
        self._patterns: _PatternIndex | None = None
        self._patterns_at = 0.0
        self._lock = asyncio.Lock()

    @property
    def backend(self) -> str:
        return self._store.backend

    async def close(self) -> None:
        """Release what the service holds open (the vote gate's Redis connections)."""
        if self._gate is not None:
            await self._gate.close()

    async def load_knowledge(self) -> KnowledgeLoad:
        """Write the shipped curated entries into the store (`pkgintel ingest knowledge`)."""
        summary = await self._store.replace_curated(list(self._knowledge()), now=self._clock())
        self._patterns = None
        self._has_entries = summary.total > 0
        return summary

    async def source_status(self) -> tuple[str, str | None]:
        """
        The error knowledge as a source of answers: (`ok`, None) when entries are stored; while
        the shipped knowledge is being loaded, (`stale`, why) when a previous load answers
        meanwhile, else (`unavailable`, why); (`unavailable`, why) when nothing is stored (the
        load failed, or never ran in this database).
        """
        if not self._has_entries:
            self._has_entries = await self._store.count() > 0
        state = self._curated_state
        if state is not None and state.status == "loading":
            if self._has_entries:
                return "stale", (
                    "the error knowledge shipped with this version is being loaded; a previous "
                    "load answers meanwhile"
                )
            return "unavailable", (
                "the error knowledge shipped with pkgintel is being loaded (first start); ask "
                "again in a few seconds"
            )
        if self._has_entries:
            return "ok", None
        if state is not None and state.status == "failed":
            return "unavailable", f"the shipped error knowledge could not be loaded: {state.detail}"
        return "unavailable", (
            "no error knowledge is loaded in this database: start the service once, or run "
            "`pkgintel ingest knowledge`"
        )

    async def count(self) -> int:
        return await self._store.count()

    async def _pattern_index(self) -> _PatternIndex:
        """Every entry's hash, pattern, fuzzy key and cores, cached for `pattern_refresh_s`."""
        now = time.monotonic()
        if self._patterns is not None and now - self._patterns_at < self._refresh_s:
            return self._patterns
        async with self._lock:
            if self._patterns is None or time.monotonic() - self._patterns_at >= self._refresh_s:
                self._patterns = _PatternIndex.build(await self._store.patterns())
                self._patterns_at = time.monotonic()
        return self._patterns

    async def _match(
        self, normalised: NormalisedError, limit: int, text: str = ""
    ) -> list[ErrorMatch]:
        candidates = normalised.candidate_patterns()
        if not candidates:
            return []
        by_hash = {error_hash(p): (p, form, idx) for p, form, idx in reversed(candidates)}
        exact = await self._store.get_entries(list(by_hash))
        found: dict[str, ErrorMatch] = {}
        for h, entry in exact.items():
            pattern, form, idx = by_hash[h]
            confidence = {Form.SPECIFIC: EXACT_SPECIFIC, Form.CODE: EXACT_CODE}.get(
                form, EXACT_GENERIC
            )
            found[h] = ErrorMatch(
                entry=entry,
                confidence=confidence,
                method=MatchMethod.EXACT,
                why=(
                    f"line {idx + 1} of the input carries this entry's error code {pattern!r}"
                    if form is Form.CODE
                    else f"line {idx + 1} of the input normalises to this entry's pattern "
                    f"({form.value} form; hash {h[:12]}…)"
                ),
                matched_line=pattern,
            )
        index = await self._pattern_index()
        specific_of = {line.index: line.specific for line in normalised.lines}
        tools = tools_in(text[-20_000:])
        cored: dict[str, tuple[float, str, int]] = {}
        for key, form, idx in normalised.core_candidates():
            whole = CORE_SPECIFIC if form is Form.SPECIFIC else CORE_GENERIC
            for part, confidence in [(key, whole)] + [(p, CORE_PREFIX) for p in core_prefixes(key)]:
                for h in index.cores.get(part, ()):
                    if h in found or (h in cored and cored[h][0] >= confidence):
                        continue
                    if similar_but_different(specific_of[idx], index.pattern_of[h], tools):
                        continue
                    cored[h] = (confidence, part, idx)
        decisive = normalised.lines[:FUZZY_LINES]
        lines = [line.generic for line in decisive]
        keys = [_sorted_tokens(fuzzy_key(line)) for line in lines]
        specifics = {line.generic: line.specific for line in decisive}
        scored: dict[str, tuple[float, str, MatchMethod, str]] = {}

        terms = search_terms(normalised)
        text_hits = await self._store.search_text(terms, FULLTEXT_CANDIDATES)
        for h, _rank in text_hits:
            if h in found or h in cored or h not in index.fuzzy_of:
                continue
            best, line = _best_similarity(index.fuzzy_of[h], keys, lines)
            if best >= FULLTEXT_MIN_SIMILARITY and not similar_but_different(
                specifics[line], index.pattern_of[h], tools
            ):
                scored[h] = (
                    best,
                    line,
                    MatchMethod.FULLTEXT,
                    "full-text search on the error's words",
                )
        if index.hashes:
            for line, key in zip(lines, keys, strict=True):
                for _p, score, i in process.extract(
                    key,
                    index.fuzzy,
                    scorer=fuzz.ratio,  # on sorted tokens: token_sort_ratio, choices sorted once
                    limit=5,
                    score_cutoff=FUZZY_MIN_SIMILARITY,
                ):
                    h = index.hashes[i]
                    if h in found or h in cored or (h in scored and scored[h][0] >= score):
                        continue
                    if similar_but_different(specifics[line], index.pattern_of[h], tools):
                        continue
                    scored[h] = (
                        float(score),
                        line,
                        MatchMethod.FUZZY,
                        "fuzzy match on the pattern",
                    )
        if scored or cored:
            entries = await self._store.get_entries([*cored, *scored])
            for h, (confidence, key, idx) in cored.items():
                if h in entries and not tools_differ(tools, entries[h].tool):
                    found[h] = ErrorMatch(
                        entry=entries[h],
                        confidence=confidence,
                        method=MatchMethod.EXACT,
                        why=f"line {idx + 1} of the input carries this entry's message "
                        f"(location, tool and level prefixes left aside): {key!r}",
                        matched_line=key,
                    )
            for h, (score, line, method, how) in scored.items():
                if h not in entries or tools_differ(tools, entries[h].tool):
                    continue
                found[h] = ErrorMatch(
                    entry=entries[h],
                    confidence=round(SIMILAR_MAX * score / 100.0, 3),
                    method=method,
                    why=f"{how}: {score:.0f}% similar to a decisive line",
                    matched_line=line,
                )
        ranked = sorted(
            (m for m in found.values() if m.confidence >= self._min_confidence),
            key=lambda m: (-m.confidence, -len(m.entry.pattern), m.entry.error_hash),
        )
        return ranked[:limit]

    async def resolve(self, error: str, *, limit: int = 5, record: bool = True) -> ErrorResolution:
        """
        Matches for a pasted error or log, best first; with none, the miss is recorded (when
        `record`). Raises `InvalidInput` for empty or overlong input.
        """
        if not error.strip():
            raise InvalidInput("error", "the error text is empty")
        if len(error) > MAX_ERROR_CHARS:
            raise InvalidInput(
                "error", f"the error text is longer than {MAX_ERROR_CHARS} characters"
            )
        normalised = normalise_error(error)
        status, why = await self.source_status()
        if status == "unavailable":
            # Nothing to search: a "no match" would say nothing, and is no miss of the knowledge.
            return ErrorResolution(normalised, (), unavailable=why)
        matches = await self._match(normalised, limit, error)
        if matches:
            if record:
                await self._store.record_hits([matches[0].entry.error_hash])
            return ErrorResolution(normalised=normalised, matches=tuple(matches))
        if record and normalised.pattern:
            count = await self._store.record_miss(
                normalised.error_hash, normalised.pattern, normalised.tool, now=self._clock()
            )
            return ErrorResolution(normalised, (), miss_recorded=True, miss_count=count)
        return ErrorResolution(normalised, ())

    async def search(
        self, query: str, *, limit: int = 5
    ) -> tuple[NormalisedError | None, list[ErrorMatch]]:
        """
        `GET /api/error`: a 64-hex query is an exact hash lookup; other text is matched like
        `resolve` without recording hits or misses; an empty query lists the most popular entries.
        """
        query = query.strip()
        if not query:
            return None, [
                ErrorMatch(e, 1.0, MatchMethod.EXACT, "popular entry (empty query)")
                for e in await self._store.popular(limit)
            ]
        if is_error_hash(query.lower()):
            got = await self._store.get_entries([query.lower()])
            return None, [
                ErrorMatch(e, 1.0, MatchMethod.EXACT, "hash lookup") for e in got.values()
            ]
        resolution = await self.resolve(query, limit=limit, record=False)
        matches = list(resolution.matches)
        if len(matches) < limit:
            # A search is also a keyword query: add full-text hits below the resolve threshold.
            seen = {m.entry.error_hash for m in matches}
            words = [w.lower() for w in _QUERY_WORD.findall(query)][:24]
            hits = [
                (h, r) for h, r in await self._store.search_text(words, limit * 2) if h not in seen
            ]
            if hits:
                best = max(r for _, r in hits) or 1.0
                entries = await self._store.get_entries([h for h, _ in hits])
                for h, rank in hits[: limit - len(matches)]:
                    if h in entries:
                        matches.append(
                            ErrorMatch(
                                entries[h],
                                round(0.3 + 0.25 * max(rank, 0.0) / best, 3),
                                MatchMethod.FULLTEXT,
                                "full-text search on the query's words (not a pattern match)",
                            )
                        )
        return resolution.normalised, matches

    async def get(self, error_hash_value: str) -> ErrorEntry:
        """One entry; `InvalidInput` for a malformed hash, `ErrorEntryNotFound` for an unknown one."""
        key = error_hash_value.strip().lower()
        if not is_error_hash(key):
            raise InvalidInput("error_hash", "must be 64 hexadecimal characters (SHA-256)")
        got = await self._store.get_entries([key])
        if key not in got:
            raise ErrorEntryNotFound(key)
        return got[key]

    async def popular(self, limit: int) -> list[ErrorEntry]:
        return await self._store.popular(limit)

    async def misses(self, limit: int) -> list[ErrorMiss]:
        return await self._store.misses(limit)

    async def vote(self, error_hash_value: str, vote: Vote, *, client: str) -> VoteOutcome:
        """
        One vote per client per entry (a repeat is `unchanged`, the opposite vote replaces it).
        Raises `InvalidInput`, `ErrorEntryNotFound`, or `RateLimited` when the client votes too often.
        """
        key = error_hash_value.strip().lower()
        if not is_error_hash(key):
            raise InvalidInput("error_hash", "must be 64 hexadecimal characters (SHA-256)")
        if self._gate is not None:
            wait = await self._gate.allow(client)
            if wait is not None:
                raise RateLimited(
                    f"too many votes; try again in {wait} s",
                    retry_after=wait,
                    limit=self._gate.limit,
                )
        outcome = await self._store.vote(
            key, client, 1 if vote is Vote.UP else -1, now=self._clock()
        )
        if outcome is None:
            raise ErrorEntryNotFound(key)
        return outcome


def _best_similarity(
    pattern_key: str, keys: Sequence[str], lines: Sequence[str]
) -> tuple[float, str]:
    """The best token-sort similarity of a stored pattern's fuzzy key to the lines' keys (both
    token-sorted already), and the line it was found on."""
    best, best_line = 0.0, ""
    for key, line in zip(keys, lines, strict=True):
        score = float(fuzz.ratio(key, pattern_key))
        if score > best:
            best, best_line = score, line
    return best, best_line


def _sorted_tokens(text: str) -> str:
    """`text`'s whitespace-separated tokens sorted (`fuzz.ratio` of two such strings is their
    `fuzz.token_sort_ratio`)."""
    return " ".join(sorted(text.split()))


@functools.lru_cache(maxsize=8192)
def _pattern_keys(pattern: str) -> tuple[str, tuple[str, ...]]:
    """(token-sorted fuzzy key, message cores) of a stored pattern, remembered across refreshes."""
    return _sorted_tokens(fuzzy_key(pattern)), pattern_core_keys(pattern)


@dataclass(frozen=True, slots=True)
class _PatternIndex:
    """The stored patterns as matching reads them: parallel lists of hashes and token-sorted fuzzy
    keys, the fuzzy key and pattern per hash, and the hashes found under each message core."""

    hashes: list[str]
    fuzzy: list[str]
    fuzzy_of: dict[str, str]
    pattern_of: dict[str, str]
    cores: dict[str, tuple[str, ...]]

    @classmethod
    def build(cls, rows: Sequence[tuple[str, str]]) -> _PatternIndex:
        hashes = [h for h, _ in rows]
        keyed = [_pattern_keys(p) for _, p in rows]
        fuzzy = [k for k, _ in keyed]
        cores: dict[str, list[str]] = {}
        for h, (_, pattern_cores) in zip(hashes, keyed, strict=True):
            for key in pattern_cores:
                cores.setdefault(key, []).append(h)
        return cls(
            hashes=hashes,
            fuzzy=fuzzy,
            fuzzy_of=dict(zip(hashes, fuzzy, strict=True)),
            pattern_of=dict(rows),
            cores={k: tuple(v) for k, v in cores.items()},
        )

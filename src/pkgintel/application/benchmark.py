"""Hallucination benchmark answers: the corpus, the verification of one name, the loaded results."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.usage_access import meta, usage_services
from pkgintel.domain.hallucinations import CORPUS_LICENSE
from pkgintel.runtime.container import Runtime

SOURCE = "pkgintel usage log and name index"


class VerificationOut(BaseModel):
    """The benchmark verification object (`is_hallucinated` is true exactly when `in_corpus` is
    true and `in_registry` is false)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    ecosystem: str
    package: str
    is_hallucinated: bool
    in_corpus: bool
    in_registry: bool | None = Field(description="null: the registry could not be consulted")
    hit_count: int
    verdict: str = Field(
        description="hallucinated, registered_after_hallucination, real, not_found or unknown"
    )
    evidence: str
    likely_real_alternative: str | None


async def hallucinations_answer(
    runtime: Runtime, ecosystem: str | None, limit: int
) -> dict[str, Any]:
    entries = await usage_services(runtime).benchmark.corpus(ecosystem, limit)
    return {
        "ecosystem": ecosystem,
        "count": len(entries),
        "entries": entries,
        **CORPUS_LICENSE,
        "_meta": meta("/api/benchmark/hallucinations", SOURCE),
    }


async def verify_answer(runtime: Runtime, ecosystem: str, package: str) -> dict[str, Any]:
    return {
        **await usage_services(runtime).benchmark.verify(ecosystem, package),
        "_meta": meta("/api/benchmark/verify", SOURCE),
    }


async def results_answer(runtime: Runtime) -> dict[str, Any]:
    return {
        **await usage_services(runtime).benchmark.results(),
        "_meta": meta("/api/benchmark/results", "pkgintel benchmark results"),
    }

"""
The savings model of `GET /api/savings` (pure): what an agent would have read to answer the same
question without us, per endpoint group, against what our answer costs it.

Every figure is an assumption and is published with the answer (`ASSUMPTIONS`): tokens of the
registry, advisory and repository pages an agent would fetch and read, tokens of our answer, and
the energy of processing a token. The counts they multiply are real: answered calls (status below
400) from the usage log, crawler traffic excluded. Calls of endpoints without an assumption are
counted as `not_modelled`, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

WH_PER_1K_TOKENS = 0.3
"""Assumed energy of processing 1,000 tokens by a large language model, watt-hours (published
estimates of inference energy range from about 0.1 to 1 Wh per 1,000 tokens)."""

GRAMS_CO2_PER_WH = 0.4
"""Assumed grid intensity, grams of CO2-equivalent per watt-hour (a world average)."""


@dataclass(frozen=True, slots=True)
class Assumption:
    """One endpoint group: what the agent would read instead (`instead`, tokens) and our answer's
    size (`answer`, tokens)."""

    group: str
    instead_tokens: int
    answer_tokens: int
    instead: str

    @property
    def saved_tokens(self) -> int:
        return max(0, self.instead_tokens - self.answer_tokens)


ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        "exists", 3_000, 150, "the registry's package page, to learn whether the name exists"
    ),
    Assumption("latest", 3_000, 120, "the registry's package page, for the latest version"),
    Assumption(
        "check",
        15_000,
        3_000,
        "the registry page, an advisory database page and the repository page",
    ),
    Assumption("health", 15_000, 300, "the same pages as a full check, for the verdict only"),
    Assumption("brief", 15_000, 500, "the same pages as a full check, summarised"),
    Assumption("vulns", 6_000, 800, "an advisory database's pages for the package"),
    Assumption("malicious", 6_000, 300, "malware advisories and the registry page"),
    Assumption("typosquat", 5_000, 400, "registry pages of the names it may imitate"),
    Assumption("install", 3_000, 200, "the registry page and the tool's documentation"),
    Assumption("check_bulk", 30_000, 2_000, "ten registry pages (a typical bulk call)"),
)

_ROUTE_GROUP = {
    "/api/exists/": "exists",
    "/api/latest/": "latest",
    "/api/check/": "check",
    "/api/health/": "health",
    "/api/prompt/": "brief",
    "/api/ai/brief/": "brief",
    "/api/vulns/": "vulns",
    "/api/malicious/": "malicious",
    "/api/typosquat/": "typosquat",
    "/api/install/": "install",
    "/api/check_bulk": "check_bulk",
}
_TOOL_GROUP = {
    "package_exists": "exists",
    "get_latest_version": "latest",
    "check_package": "check",
    "get_health_score": "health",
    "get_package_prompt": "brief",
    "get_vulnerabilities": "vulns",
    "check_malicious": "malicious",
    "check_typosquat": "typosquat",
    "install_command": "install",
    "check_bulk": "check_bulk",
}


def group_of(source: str) -> str | None:
    """The assumption group of a usage-log source tag (`api:/api/check/...`, `mcp:check_package`),
    or None when the endpoint has no assumption."""
    door, _, what = source.partition(":")
    if door == "mcp":
        return _TOOL_GROUP.get(what)
    for prefix, group in _ROUTE_GROUP.items():
        if what.startswith(prefix):
            return group
    return None


def savings_wire(calls_by_source: Mapping[str, int]) -> dict[str, Any]:
    """The `/api/savings` body (without `_meta`) from answered, non-crawler calls per source."""
    per_group: dict[str, int] = {}
    not_modelled = 0
    for source, calls in calls_by_source.items():
        group = group_of(source)
        if group is None:
            not_modelled += calls
        else:
            per_group[group] = per_group.get(group, 0) + calls
    rows = []
    total_tokens = 0
    for a in ASSUMPTIONS:
        calls = per_group.get(a.group, 0)
        saved = calls * a.saved_tokens
        total_tokens += saved
        rows.append({"group": a.group, "calls": calls, "tokens_saved": saved})
    energy_wh = total_tokens / 1000 * WH_PER_1K_TOKENS
    return {
        "tokens_saved": total_tokens,
        "energy_saved_wh": round(energy_wh, 1),
        "co2_saved_g": round(energy_wh * GRAMS_CO2_PER_WH, 1),
        "calls_counted": sum(per_group.values()),
        "calls_not_modelled": not_modelled,
        "by_group": rows,
        "assumptions": {
            "wh_per_1k_tokens": WH_PER_1K_TOKENS,
            "grams_co2_per_wh": GRAMS_CO2_PER_WH,
            "counted": "answered calls (status below 400) of the usage log; crawler traffic "
            "excluded",
            "groups": [
                {
                    "group": a.group,
                    "instead": a.instead,
                    "instead_tokens": a.instead_tokens,
                    "answer_tokens": a.answer_tokens,
                }
                for a in ASSUMPTIONS
            ],
        },
    }

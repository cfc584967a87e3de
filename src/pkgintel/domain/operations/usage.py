"""
One API call as the usage log records it, and the user-agent classes (pure).

Classes: `ai-agent` (coding agents and LLM tool clients), `ci` (CI runners and dependency bots),
`crawler` (search and SEO bots, link checkers, uptime probes), `browser` (a browser engine and none of
the above), `other` (scripts, HTTP libraries, empty). Crawlers are tested before browsers because
most crawlers also say `Mozilla/5.0`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

UA_CLASSES = ("ai-agent", "ci", "browser", "crawler", "other")
TRENDING_EXCLUDED_CLASSES = ("crawler",)
"""User-agent classes never counted as interest in a package (trending, popularity harvests)."""
TRENDING_EXCLUDED_SOURCES = ("api:/api/status", "api:/api/health", "api:/api/now")
"""Call sources never counted as interest in a package (health checks)."""

_AI = re.compile(
    r"claude|anthropic|openai|chatgpt|gptbot-user|copilot|cursor|aider|codex|gemini|windsurf|"
    r"codeium|continue\.dev|cline|devin|mcp|langchain|llama|perplexity-user|sourcegraph|cody|"
    r"tabnine|jetbrains-ai|amazon-q|zed",
    re.IGNORECASE,
)
_CI = re.compile(
    r"github-actions|github actions|gitlab-ci|gitlab-runner|jenkins|circleci|travis|buildkite|"
    r"teamcity|azure-pipelines|bitbucket-pipelines|drone|dependabot|renovate|\bci\b",
    re.IGNORECASE,
)
_CRAWLER = re.compile(
    r"bot\b|bot/|crawl|spider|slurp|bingpreview|facebookexternalhit|headlesschrome|"
    r"uptime|pingdom|statuscake|monitor|lighthouse|curl-linkcheck|linkchecker|"
    r"ahrefs|semrush|mj12|yandex|baidu|petalbot|gptbot|ccbot|bytespider|amazonbot|"
    r"pkgintel-healthcheck|^pkgintel/",
    re.IGNORECASE,
)
_BROWSER = re.compile(r"mozilla/5\.0|applewebkit|gecko/|chrome/|safari/|firefox/", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def classify_user_agent(user_agent: str | None) -> str:
    """The class of a `User-Agent` header (see the module docstring). Memoised: a service sees few
    distinct agents, and each is asked about on every request."""
    ua = (user_agent or "").strip()[:512]
    if not ua:
        return "other"
    if _AI.search(ua):
        return "ai-agent"
    if _CI.search(ua):
        return "ci"
    if _CRAWLER.search(ua):
        return "crawler"
    if _BROWSER.search(ua):
        return "browser"
    return "other"


class UsageEvent(NamedTuple):
    """One recorded call. `client` is a keyed hash of the caller's address, never the address. A
    named tuple: every API call makes one, and it costs a fifth of a frozen dataclass."""

    at: datetime
    source: str
    """Which door and what: `api:/api/check/{ecosystem}/{package}`, `mcp:<tool>`, `cli:<command>`."""
    ecosystem: str | None
    package: str | None
    ua_class: str
    client: str
    status: int | None = None
    """HTTP status of the answer (an MCP tool error carries its problem's status); None: not known."""
    found: bool | None = None
    """False when the package named was not found (404 `package-not-found`, `exists: false`): the
    hallucination corpus reads these rows. None: no package named, or not an existence answer."""
    latency_ms: int | None = None
    cache: str | None = None
    """Cache status of the answer (`hit`, `miss`, `stale`, ...) when the answer says it."""
    account_id: int | None = None
    key_id: int | None = None


class CallOutcome(NamedTuple):
    """What a door knows of one answered call beyond its name, in `UsageEvent`'s field order."""

    status: int | None = None
    found: bool | None = None
    latency_ms: int | None = None
    cache: str | None = None
    account_id: int | None = None
    key_id: int | None = None


@dataclass(frozen=True, slots=True)
class Trend:
    """How often one package was asked about this window and the one before."""

    ecosystem: str
    package: str
    this_window: int
    previous_window: int
    clients: int

    @property
    def growth(self) -> float | None:
        """Relative change (1.0 = doubled); None when nothing was asked before."""
        if self.previous_window == 0:
            return None
        return round((self.this_window - self.previous_window) / self.previous_window, 3)

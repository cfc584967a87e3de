"""
The rate-limit policy (pure): which limits a request counts against, and under which key.

Every request counts against one *caller* limit, chosen by who calls: an API key (per key), a
recognised AI-agent user agent (per client hash; a higher limit, not a bypass) or anyone else
(per client hash; signed-in sessions included). A request on a path with a *path rule* counts
against that rule too (`/api/gdpr/` per IP hash). Rules keyed by `address` (the magic-link
request, per e-mail address) are counted by the answer itself, which reads the body; the HTTP
layer skips them. Exempt paths (health, status, probes, the live feed) count against nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pkgintel.domain.accounts import Principal

KeyKind = Literal["client", "key", "address"]

EXEMPT_PATHS = frozenset({"/livez", "/readyz", "/api/health", "/api/status"})
EXEMPT_PREFIXES = ("/api/live/",)


@dataclass(frozen=True, slots=True)
class LimitRule:
    """One row of the policy table: `limit` is a `limits` rate string (`100/minute`)."""

    name: str
    limit: str
    key: KeyKind
    prefix: str | None = None
    """Path prefix the rule applies to (with or without its trailing slash)."""
    paths: frozenset[str] = frozenset()
    """Exact paths the rule applies to."""
    methods: frozenset[str] | None = None
    """Methods the rule applies to; None for all."""


@dataclass(frozen=True, slots=True)
class LimitPolicy:
    """The whole table: the three caller limits and the path rules."""

    anonymous: LimitRule
    key: LimitRule
    ai_agent: LimitRule
    paths: tuple[LimitRule, ...]

    def rules(self) -> tuple[LimitRule, ...]:
        return (self.anonymous, self.ai_agent, self.key, *self.paths)

    def named(self, name: str) -> LimitRule:
        """The rule called `name` (`KeyError` when there is none)."""
        for rule in self.rules():
            if rule.name == name:
                return rule
        raise KeyError(name)

    def caller_rule(self, principal: Principal, ua_class: str) -> LimitRule:
        """The caller limit of `principal`: its key's, the AI-agent one, or the anonymous one."""
        if principal.kind == "key":
            return self.key
        if ua_class == "ai-agent":
            return self.ai_agent
        return self.anonymous

    def path_rules(self, path: str, method: str) -> list[LimitRule]:
        """The path rules a request counts against in the HTTP layer (not the `address` ones)."""
        return [
            rule
            for rule in self.paths
            if rule.key != "address"
            and (
                path in rule.paths
                or (
                    rule.prefix is not None
                    and (path == rule.prefix.rstrip("/") or path.startswith(rule.prefix))
                )
            )
            and (rule.methods is None or method in rule.methods)
        ]


def exempt(path: str) -> bool:
    """Whether `path` is never limited (health, status, probes, the event stream)."""
    return path in EXEMPT_PATHS or path.startswith(EXEMPT_PREFIXES)


MAGIC_LINK_PATHS = ("/api/auth/magic-link/request", "/api/auth/magic-link")


def build_policy(
    *,
    anonymous: str,
    key: str,
    ai_agent: str,
    gdpr: str,
    magic_link_address: str,
    magic_link_ip: str,
) -> LimitPolicy:
    """The policy from the settings' rate strings."""
    post = frozenset({"POST"})
    return LimitPolicy(
        anonymous=LimitRule("anonymous", anonymous, "client"),
        key=LimitRule("key", key, "key"),
        ai_agent=LimitRule("ai-agent", ai_agent, "client"),
        paths=(
            LimitRule("gdpr", gdpr, "client", prefix="/api/gdpr/"),
            LimitRule("magic-link-address", magic_link_address, "address", methods=post),
            LimitRule(
                "magic-link-ip",
                magic_link_ip,
                "client",
                paths=frozenset(MAGIC_LINK_PATHS),
                methods=post,
            ),
        ),
    )

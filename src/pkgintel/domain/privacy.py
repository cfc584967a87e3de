"""
The machine-readable privacy policy of `GET /api/gdpr/policy` (pure): what is stored about a
caller, why, for how long, on which legal basis, how the caller is identified, and how to reach
the operators. The retention figures are the installation's settings, so the policy cannot drift
from what the retention jobs do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HASH_METHOD = {
    "algorithm": "HMAC-SHA256",
    "input": "the client address: the socket peer, or the nearest untrusted X-Forwarded-For entry "
    "behind a trusted proxy (PKGINTEL_TRUSTED_PROXIES)",
    "key": "a server secret (PKGINTEL_IP_HASH_SECRET) never published; without it a random secret "
    "per process",
    "output": "the first 32 hexadecimal characters of the digest",
    "raw_address_stored": False,
}
LEGAL_BASIS = "legitimate interest (GDPR Art. 6(1)(f)): operating, securing and improving a free public service"


@dataclass(frozen=True, slots=True)
class Retention:
    usage_days: int
    contact_days: int
    anomaly_days: int


def policy_document(retention: Retention, *, public_url: str) -> dict[str, Any]:
    """The `/api/gdpr/policy` body (without `_meta`)."""
    base = public_url.rstrip("/")
    return {
        "controller": {"service": "pkgintel", "url": base},
        "identification": HASH_METHOD,
        "legal_basis": LEGAL_BASIS,
        "data": [
            {
                "what": "usage log: one row per API or MCP call — time, endpoint, ecosystem and "
                "package asked about, answer status, latency, cache status, door (api, mcp:<tool>, "
                "web), user-agent class (not the user agent), account or API key id when one was "
                "used, client hash",
                "why": "trending packages, usage statistics, savings figures, the hallucination "
                "corpus, abuse prevention",
                "retention_days": retention.usage_days,
                "table": "usage_event",
            },
            {
                "what": "page views: path and referrer host, client hash; no cookies",
                "why": "which documentation pages are read",
                "retention_days": retention.usage_days,
                "table": "page_view",
            },
            {
                "what": "anomaly reports: ecosystem, package, version, observed and expected "
                "verdict, evidence URL, client hash",
                "why": "correcting wrong verdicts",
                "retention_days": retention.anomaly_days,
                "table": "anomaly_report",
            },
            {
                "what": "contact requests: type, message, optional reply address, package, client "
                "hash",
                "why": "answering the request",
                "retention_days": retention.contact_days,
                "table": "contact_request",
            },
        ],
        "not_stored": ["IP addresses", "full user-agent strings", "cookies of anonymous callers"],
        "rights": {
            "export": {"method": "GET", "path": "/api/gdpr/export"},
            "erase": {"method": "POST", "path": "/api/gdpr/delete"},
            "authentication": "none: the caller is identified by the hash of the address the "
            "request comes from, so a request only reaches the rows of that address",
            "limit": "10 requests per hour per client hash",
        },
        "contact": {
            "method": "POST",
            "path": "/api/contact",
            "type": "other",
            "url": f"{base}/api/contact",
        },
    }

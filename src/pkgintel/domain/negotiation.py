"""Content negotiation on the `Accept` header: whether a client asks for a page or for JSON."""

from __future__ import annotations

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
JSON_TYPES = frozenset({"application/json", "application/problem+json"})


def _ranges(accept: str) -> list[tuple[str, float]]:
    """`(media range, q)` pairs of an `Accept` header; a malformed `q` counts as 0."""
    out: list[tuple[str, float]] = []
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        if not media:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        out.append((media.lower(), q if 0.0 <= q <= 1.0 else 0.0))
    return out


def prefers_html(accept: str | None) -> bool:
    """
    True when `accept` names an HTML type explicitly (with q > 0) and ranks it at least as high as
    any JSON type: what browsers send for a navigation. `*/*` alone, no header, or JSON ranked
    higher is False: agents, curl and scripts keep getting JSON.
    """
    if not accept:
        return False
    ranges = _ranges(accept)
    html = max((q for media, q in ranges if media in HTML_TYPES), default=0.0)
    if html <= 0.0:
        return False
    json_q = max((q for media, q in ranges if media in JSON_TYPES), default=0.0)
    return html >= json_q

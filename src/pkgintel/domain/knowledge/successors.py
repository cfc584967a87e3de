"""
Successor names in a registry's deprecation message (pure).

npm and others let a publisher leave a free-text message ("deprecated, use `sass` instead",
"renamed to @scope/name", "moved to X", "replaced by X", "in favour of X"). Only names written right
after such a phrase are taken, and only when they look like a package name of the ecosystem; URLs
are not names. A message that names no successor gives an empty tuple, never a guess.
"""

from __future__ import annotations

import re

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem

_PHRASE = re.compile(
    r"(?:\buse\b|\bswitch to\b|\bmigrate to\b|\bmoved to\b|\brenamed to\b|\breplaced by\b|"
    r"\bsuperseded by\b|\bin favou?r of\b|\bsuccessor is\b|\bnow published as\b|\bplease use\b)"
    r"\s+(?:the\s+)?(?:package\s+|module\s+)?[`'\"]?(@?[A-Za-z0-9][\w.\-]*(?:/[\w.\-]+)?)[`'\"]?",
    re.IGNORECASE,
)
_STOP = frozenset(
    {
        "it",
        "this",
        "the",
        "a",
        "an",
        "another",
        "latest",
        "version",
        "v",
        "instead",
        "native",
        "node",
        "nodejs",
        "https",
        "http",
        "www",
        "github",
        "our",
        "your",
        "new",
        "that",
        "one",
    }
)


def _valid(ecosystem: Ecosystem, name: str) -> bool:
    try:
        validate_name(ecosystem, name)
    except InvalidInput:
        return False
    return True


def successors_from_message(ecosystem: Ecosystem, message: str | None) -> tuple[str, ...]:
    """Package names the message points to, in order, without duplicates."""
    if not message:
        return ()
    out: list[str] = []
    for m in _PHRASE.finditer(message):
        name = m.group(1).rstrip(".,;:)")
        tail = message[m.end(1) : m.end(1) + 3]
        if (
            name.lower() in _STOP
            or tail.startswith("://")
            or (
                "." in name
                and "/" not in name
                and (name.lower().endswith((".com", ".org", ".io", ".dev", ".html", ".md")))
            )
        ):
            continue
        if _valid(ecosystem, name) and name not in out:
            out.append(name)
    return tuple(out)

"""
Composer ordering: composer/semver `VersionParser::normalize`, then PHP `version_compare`.
`composer_normalize` is the normalised form the range grammar builds on; `key(version)` never raises.
"""

from __future__ import annotations

import re
from typing import Any

_COMPOSER_MODIFIER = r"[._-]?(?:(stable|beta|b|RC|alpha|a|patch|pl|p)((?:[.-]?\d+)*+)?)?([.-]?dev)?"
_COMPOSER_CLASSICAL = re.compile(
    r"^v?(\d{1,5}+)(\.\d++)?(\.\d++)?(\.\d++)?" + _COMPOSER_MODIFIER + "$", re.IGNORECASE
)
_COMPOSER_DATE = re.compile(
    r"^v?(\d{4}(?:[.:-]?\d{2}){1,6}(?:[.:-]?\d{1,3}){0,2})" + _COMPOSER_MODIFIER + "$",
    re.IGNORECASE,
)
_COMPOSER_BRANCH = re.compile(
    r"^v?(\d++)(\.(?:\d++|[xX*]))?(\.(?:\d++|[xX*]))?(\.(?:\d++|[xX*]))?$", re.IGNORECASE
)
_COMPOSER_STABILITY_FLAG = re.compile(r"@(?:stable|RC|beta|alpha|dev)$", re.IGNORECASE)
_COMPOSER_ALIAS = re.compile(r"^([^,\s]++) ++as ++([^,\s]++)$")
_PHP_SPECIAL = (("dev", 0), ("alpha", 1), ("a", 1), ("beta", 2), ("b", 2), ("RC", 3), ("rc", 3))
_PHP_SPECIAL_POST = (("pl", 5), ("p", 5))


def _composer_stability(mod: str) -> str:
    low = mod.lower()
    return {"a": "alpha", "b": "beta", "p": "patch", "pl": "patch", "rc": "RC"}.get(low, low)


def composer_normalize(version: str) -> str | None:
    """
    Composer's normalised form (`1.2` → `1.2.0.0`, `2.4.4-p9` → `2.4.4.0-patch9`,
    `1.x-dev` → `1.9999999.9999999.9999999-dev`), or None for a branch name or garbage.
    """
    v = version.strip()
    alias = _COMPOSER_ALIAS.match(v)
    if alias:
        v = alias[1]
    flag = _COMPOSER_STABILITY_FLAG.search(v)
    if flag:
        v = v[: flag.start()]
    if v.lower().startswith("dev-") or v in ("master", "trunk", "default"):
        return None
    if "+" in v:
        head, _, tail = v.partition("+")
        if head and tail and not re.search(r"[,\s]", head):
            v = head
    m = _COMPOSER_CLASSICAL.match(v)
    index = 5
    if m:
        out = m[1] + (m[2] or ".0") + (m[3] or ".0") + (m[4] or ".0")
    else:
        m = _COMPOSER_DATE.match(v)
        index = 2
        if m:
            out = re.sub(r"\D", ".", m[1])
    if m:
        if m[index]:
            if m[index] == "stable":
                return out
            out += "-" + _composer_stability(m[index]) + (m[index + 1] or "").lstrip(".-")
        if m[index + 2]:
            out += "-dev"
        return out
    dev = re.match(r"^(.*?)[.-]?dev$", v, re.IGNORECASE)
    if dev:
        b = _COMPOSER_BRANCH.match(dev[1].strip())
        if b:
            parts = "".join((b[i] or ".x").replace("*", "x").replace("X", "x") for i in range(1, 5))
            return parts.replace("x", "9999999") + "-dev"
    return None


def _php_canonical_parts(version: str) -> list[str]:
    # php_canonicalize_version: [-_+] become '.', a '.' goes between a digit and a non-digit,
    # other non-alphanumerics become '.'; then split on '.'.
    def digit(c: str) -> bool:
        return "0" <= c <= "9"

    out: list[str] = [version[:1]]
    prev = version[:1]
    for ch in version[1:]:
        if ch in "-_+":
            if out[-1] != ".":
                out.append(".")
        elif (digit(prev) and not digit(ch) and ch != ".") or (
            not digit(prev) and prev != "." and digit(ch)
        ):
            if out[-1] != ".":
                out.append(".")
            out.append(ch)
        elif not ch.isalnum():
            if out[-1] != ".":
                out.append(".")
        else:
            out.append(ch)
        prev = ch
    return [p for p in "".join(out).split(".") if p]


def _php_special_rank(part: str) -> int:
    # compare_special_version_forms: prefix match against the list, unknown strings lowest.
    for name, order in (*_PHP_SPECIAL, ("#", 4), *_PHP_SPECIAL_POST):
        if part.startswith(name):
            return order
    return -1


def key(version: str) -> tuple[Any, ...]:
    normalized = composer_normalize(version)
    if normalized is None:
        return (0, version)
    # version_compare: numbers compare numerically and rank as '#' (4) against strings;
    # when one side runs out, its next part is compared with '#', which the end marker
    # (4, -1) reproduces.
    key = tuple(
        (4, int(p)) if p.isdigit() else (_php_special_rank(p), 0)
        for p in _php_canonical_parts(normalized)
    )
    return (1, (*key, (4, -1)))


def is_prerelease(version: str) -> bool:
    normalized = composer_normalize(version)
    if normalized is None:
        return version.strip().lower().startswith("dev-")
    return any(s in normalized for s in ("-dev", "-alpha", "-beta", "-RC"))

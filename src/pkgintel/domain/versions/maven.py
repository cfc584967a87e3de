"""
Maven ordering: Maven 3.9 `ComparableVersion` (our implementation; see `MavenVersion`).
`key(version)` never raises; a blank or a version with whitespace is invalid.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from pkgintel.domain.versions.ordered import OrderedVersion

_MAVEN_QUALIFIERS = ("alpha", "beta", "milestone", "rc", "snapshot", "", "sp")
_MAVEN_ALIASES = {"ga": "", "final": "", "release": "", "cr": "rc"}
_MAVEN_RELEASE = "5"  # comparable form of the empty qualifier
_MavenItem = int | str | list[Any]


def _maven_qualifier(value: str, followed_by_digit: bool) -> str:
    if followed_by_digit and len(value) == 1:
        value = {"a": "alpha", "b": "beta", "m": "milestone"}.get(value, value)
    value = _MAVEN_ALIASES.get(value, value)
    try:
        return str(_MAVEN_QUALIFIERS.index(value))
    except ValueError:
        return f"{len(_MAVEN_QUALIFIERS)}-{value}"


def _maven_item(is_digit: bool, buf: str) -> int | str:
    return int(buf) if is_digit else _maven_qualifier(buf, False)


def _maven_is_null(item: _MavenItem) -> bool:
    if isinstance(item, list):
        return not item
    if isinstance(item, str):
        return item == _MAVEN_RELEASE
    return item == 0


def _maven_normalize(items: list[Any]) -> None:
    # Remove trailing null items (0, "", empty list), skipping over non-null sub-lists.
    for i in range(len(items) - 1, -1, -1):
        last = items[i]
        if _maven_is_null(last):
            del items[i]
        elif not isinstance(last, list):
            break


def _maven_parse(version: str) -> tuple[Any, ...]:
    v = version.lower()
    root: list[Any] = []
    current = root
    stack = [root]
    is_digit = False
    start = 0

    def push() -> None:
        nonlocal current
        new: list[Any] = []
        current.append(new)
        current = new
        stack.append(new)

    for i, c in enumerate(v):
        if c == ".":
            current.append(0 if i == start else _maven_item(is_digit, v[start:i]))
            start = i + 1
        elif c == "-":
            current.append(0 if i == start else _maven_item(is_digit, v[start:i]))
            start = i + 1
            push()
        elif "0" <= c <= "9":
            if not is_digit and i > start:
                # "1.0.0.X1 < 1.0.0-X2": a qualifier followed by digits starts a sub-list.
                if current:
                    push()
                current.append(_maven_qualifier(v[start:i], True))
                start = i
                push()
            is_digit = True
        else:
            if is_digit and i > start:
                current.append(int(v[start:i]))
                start = i
                push()
            is_digit = False
    if len(v) > start:
        if not is_digit and current:
            push()  # treat ".X" as "-X"
        current.append(_maven_item(is_digit, v[start:]))
    while stack:
        _maven_normalize(stack.pop())
    return _freeze(root)


def _freeze(items: list[Any]) -> tuple[Any, ...]:
    return tuple(_freeze(i) if isinstance(i, list) else i for i in items)


def _maven_cmp(a: Any, b: Any) -> int:
    """ComparableVersion Item.compareTo; `b` may be None (padding)."""
    if isinstance(a, int):
        if b is None:
            return 0 if a == 0 else 1
        if isinstance(b, int):
            return (a > b) - (a < b)
        return 1  # 1.1 > 1-sp, 1.1 > 1-1
    if isinstance(a, str):
        if b is None:
            return (a > _MAVEN_RELEASE) - (a < _MAVEN_RELEASE)
        if isinstance(b, str):
            return (a > b) - (a < b)
        return -1  # 1.any < 1.1, 1.any < 1-1
    # a is a list
    if b is None:
        for item in a:
            r = _maven_cmp(item, None)
            if r:
                return r
        return 0
    if isinstance(b, int):
        return -1  # 1-1 < 1.0.x
    if isinstance(b, str):
        return 1  # 1-1 > 1-sp
    for left, right in zip_longest(a, b):
        r = -_maven_cmp(right, None) if left is None else _maven_cmp(left, right)
        if r:
            return r
    return 0


class MavenVersion(OrderedVersion):
    """A parsed Maven version ordered like Maven 3.9 `ComparableVersion`."""

    __slots__ = ()

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        return _maven_cmp(a, b)


def key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not v or any(c.isspace() for c in v):
        return (0, version)
    return (1, MavenVersion(_maven_parse(v)))


def is_prerelease(version: str) -> bool:
    def walk(items: tuple[Any, ...]) -> bool:
        for item in items:
            if isinstance(item, tuple) and walk(item):
                return True
            if isinstance(item, str) and item < _MAVEN_RELEASE:
                return True
        return False

    v = version.strip()
    return bool(v) and walk(_maven_parse(v))

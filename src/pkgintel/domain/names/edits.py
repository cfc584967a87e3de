"""
The shapes of a misspelling (pure): how two package names differ by a slip of the keyboard, a
separator, a look-alike character, the vowels or the order of the letters.

`skeleton` drops separators and case, `fold` also folds look-alike characters (`rn`/`m`, `1`/`l`,
`0`/`o`...); `classify_edit` names the technique of a one-edit difference (omission, repetition,
transposition, adjacent_key on a QWERTY keyboard, homoglyph, delimiter, insertion, substitution);
`slip_keys`/`two_slips`/`unpopular_slip` tell keyboard slips from spelling choices; `consonants` and
`sorted_letters` give the keys of the `sound_alike` and `scramble` techniques; `install_confusion`
measures a name against a file a user meant to pass to the installer.
"""

from __future__ import annotations

import re
from typing import Final

from rapidfuzz.distance import DamerauLevenshtein

LONG_NAME: Final = 8
"""Names longer than this are compared within two edits, shorter ones within one."""


MIN_SCRAMBLE: Final = 7
"""A `scramble` variant has at least this many characters once separators are dropped: short
anagrams of real words are common (`listen` / `silent`)."""


DELIMITERS = re.compile(r"[-_.]+")
_HOMOGLYPHS: Final = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("1", "l"), ("i", "l"), ("0", "o"))
_HOMOGLYPH_PAIRS: Final = frozenset(
    {frozenset(p) for p in (("1", "l"), ("i", "l"), ("0", "o"), ("5", "s"), ("1", "i"))}
)
_QWERTY: Final = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for r, row in enumerate(_QWERTY):
        for c, ch in enumerate(row):
            near = out.setdefault(ch, set())
            for dr in (-1, 0, 1):
                rr = r + dr
                if not 0 <= rr < len(_QWERTY):
                    continue
                for dc in (-1, 0, 1):
                    cc = c + dc
                    if (dr, dc) != (0, 0) and 0 <= cc < len(_QWERTY[rr]):
                        near.add(_QWERTY[rr][cc])
    return {k: frozenset(v) for k, v in out.items()}


_ADJACENT: Final = _neighbours()


def skeleton(name: str) -> str:
    """The name without delimiters (`-`, `_`, `.`), lower-cased; the npm scope's `@` and `/` kept."""
    return DELIMITERS.sub("", name.lower())


def fold(name: str) -> str:
    """`skeleton(name)` with look-alike characters folded to one spelling (see the module docstring)."""
    out = skeleton(name)
    for seen, meant in _HOMOGLYPHS:
        out = out.replace(seen, meant)
    return out.replace("5", "s")


def classify_edit(query: str, target: str) -> str:
    """
    The technique of a one-edit difference between `query` and `target` (`two_edits` when they are
    further apart): omission, repetition, transposition, adjacent_key, homoglyph, delimiter,
    insertion or substitution.
    """
    if DamerauLevenshtein.distance(query, target) != 1:
        return "two_edits"
    lq, lt = len(query), len(target)
    i = 0
    while i < min(lq, lt) and query[i] == target[i]:
        i += 1
    if lq == lt - 1:
        return "delimiter" if target[i] in "-_." else "omission"
    if lq == lt + 1:
        extra = query[i]
        if extra in "-_.":
            return "delimiter"
        if (i > 0 and query[i - 1] == extra) or (i + 1 < lq and query[i + 1] == extra):
            return "repetition"
        neighbours = {query[j] for j in (i - 1, i + 1) if 0 <= j < lq}
        return "adjacent_key" if neighbours & _ADJACENT.get(extra, frozenset()) else "insertion"
    if (
        i + 1 < lq
        and query[i] == target[i + 1]
        and query[i + 1] == target[i]
        and query[i + 2 :] == target[i + 2 :]
    ):
        return "transposition"
    a, b = query[i], target[i]
    if a in "-_." and b in "-_.":
        return "delimiter"
    if frozenset((a, b)) in _HOMOGLYPH_PAIRS:
        return "homoglyph"
    if b in _ADJACENT.get(a, frozenset()):
        return "adjacent_key"
    return "substitution"


KEY_SLIPS: Final = frozenset({"omission", "repetition", "transposition", "adjacent_key"})
"""One-edit techniques a finger makes on a keyboard (`classify_edit`), as opposed to a spelling
mistake (`substitution`, `insertion` of an unrelated character)."""


def slip_keys(name: str) -> set[str]:
    """Every spelling one keyboard slip from `name`: a character left out, doubled, swapped with the
    next, replaced by a neighbouring key, or a neighbouring key struck beside it (`name` excluded)."""
    out: set[str] = set()
    n = len(name)
    for i, ch in enumerate(name):
        out.add(name[:i] + name[i + 1 :])
        out.add(name[:i] + ch + name[i:])
        if i + 1 < n:
            out.add(name[:i] + name[i + 1] + ch + name[i + 2 :])
        for near in _ADJACENT.get(ch, ()):
            out.add(name[:i] + near + name[i + 1 :])
            out.add(name[:i] + near + name[i:])
            out.add(name[: i + 1] + near + name[i + 1 :])
    out.discard(name)
    return out


def two_slips(query: str, target: str) -> bool:
    """Whether `query` is `target` after exactly two keyboard slips (see `slip_keys`; `fkaks` / `flask`: a
    swap, then a neighbouring key), each of them a `KEY_SLIPS` technique of `classify_edit`."""
    if DamerauLevenshtein.distance(query, target, score_cutoff=2) != 2:
        return False
    return any(
        DamerauLevenshtein.distance(query, middle, score_cutoff=1) == 1
        and classify_edit(query, middle) in KEY_SLIPS
        for middle in slip_keys(target)
    )


MIN_ANY_SLIP: Final = 8
"""A name is compared with *every* name of the index, whatever its popularity, from this length
(`unpopular_slip`): one edit from a shorter name happens by chance."""
_ANY_SLIPS: Final = KEY_SLIPS | {"delimiter", "homoglyph"}
_DIGITS = re.compile(r"\d")


def digits_only(query: str, target: str) -> bool:
    """Whether two different names differ in digits alone (`lib2` / `lib3`, `webpack5-plugin` /
    `webpack-plugin`): version siblings rather than slips."""
    return query != target and _DIGITS.sub("", query) == _DIGITS.sub("", target)


def unpopular_slip(query: str, target: str) -> str | None:
    """
    The technique (`classify_edit`) when `query` is `target` after one slip-shaped edit (a key left
    out, doubled, swapped, struck beside or instead of its neighbour, a separator or a look-alike
    changed; `monoliht` / `monolith`) and has at least `MIN_ANY_SLIP` characters; None otherwise. A
    different number (`lib2` / `lib3`) is a version, and a letter added that is no neighbouring key
    (`gate-apis` / `gate-api`) or an unrelated letter in place of another (`pytest-zoo` /
    `pytest-foo`) is as often a word of its own, so none of them counts. Used for targets whose
    popularity is low or unknown, where only the shape speaks.
    """
    if len(query) < MIN_ANY_SLIP or digits_only(query, target):
        return None
    technique = classify_edit(query, target)
    return technique if technique in _ANY_SLIPS else None


MIN_SOUND: Final = 5
"""A `sound_alike` name has at least this many characters, and its consonants at least
`MIN_CONSONANTS`: short names of the same consonants are common (`hook` / `hack`)."""
MIN_CONSONANTS: Final = 3
_VOWELS = re.compile(r"[aeiouy]+")
_REPEATS = re.compile(r"(.)\1+")


def consonants(name: str) -> str | None:
    """The consonants of an unscoped name, separators and vowels (`y` counted) dropped and doubled
    letters single (`chokidar` and `chokader`: `chkdr`), or None for scoped and short names and
    for names with digits. Two names with the same consonants and different vowels sound alike."""
    if name.startswith("@") or len(name) < MIN_SOUND:
        return None
    flat = skeleton(name)
    if not flat.isalpha():
        return None
    out = _REPEATS.sub(r"\1", _VOWELS.sub("", flat))
    return out if len(out) >= MIN_CONSONANTS else None


def sorted_letters(name: str) -> str | None:
    """The characters of an unscoped name without separators, sorted: equal for two names made of
    the same letters (`scramble`); None under `MIN_SCRAMBLE` characters or for scoped names."""
    flat = skeleton(name)
    if len(flat) < MIN_SCRAMBLE or "/" in flat:
        return None
    return "".join(sorted(flat))


def install_confusion(query: str, file_name: str) -> int | None:
    """
    Edits between `query` and `file_name` (a file a user meant to pass to the installer, such as
    `requirements.txt`) once separators and case are dropped (`requiremetnstxt` is one), or None
    when they are further apart than one edit (two for names over `LONG_NAME` characters).
    """
    flat, meant = skeleton(query), skeleton(file_name)
    limit = 2 if len(meant) > LONG_NAME else 1
    if abs(len(flat) - len(meant)) > limit:
        return None
    distance = int(DamerauLevenshtein.distance(flat, meant, score_cutoff=limit))
    return distance if distance <= limit else None

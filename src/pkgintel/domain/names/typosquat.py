"""
The typosquat variant model (pure): which popular names a package name imitates, and how.

A `VariantIndex` is built once from an ecosystem's popular names (normalised keys, most popular
first) and answers `variants(query)`: every popular name the query is a variant of, each with the
**technique**, the Damerau-Levenshtein **edit distance** and the rapidfuzz **similarity** (0-100).
Whether a variant makes the query a *suspect* is decided elsewhere (`scoring.typosquat`), from the
popularity of both names; this module only recognises shapes.

Techniques, tried in this order (a target keeps the first technique found):

- `delimiter`: the same name once `-`, `_` and `.` are dropped (`crossenv` / `cross-env`).
- `homoglyph`: the same name once look-alike characters are folded (`rn`/`m`, `vv`/`w`, `cl`/`d`,
  `1`/`l`, `i`/`l`, `0`/`o`, `5`/`s`), e.g. `jeIlyfish` / `jellyfish` (PyPI folds case first).
- one edit (two for names over `LONG_NAME` characters), classified by its shape: `omission`
  (`lodsh`), `repetition` (`expresss`), `transposition` (`lodahs`), `adjacent_key` (a neighbour on a
  QWERTY keyboard: `reqyests`), `insertion`, `substitution`, or `two_edits` (names of 5-8
  characters: any two edits from the `TWO_EDIT_TOP` most popular, two keyboard slips, `two_slips`,
  from the `TWO_SLIP_TOP`).
- `scope_confusion` (npm): `@scope/name` against `scope-name` / `scopename` (`types-node` /
  `@types/node`), one edit in the scope with the same package part (`@babe1/core`), and a popular
  scoped name without its scope when the part says enough (`scoped_part_distinct`: `arm-dns`).
- `combosquat`: a known prefix or suffix added to, removed from or swapped on a popular name
  (`python3-dateutil` / `python-dateutil`, `cross-env.js` / `cross-env`, `node-fabric` / `fabric`),
  a word beside a popular name that is not a namespace (`crypto-jsonwebtoken`), or glued onto it in a
  one-word name (`cloudscrapersafe`); a word beside one of the `MISSPELT_WORD_TOP` most popular
  names misspelt by one edit or carrying a habit affix (`loadash-lint`, `expressjs-lint`), or
  beside such a name without its ecosystem affix (`rich-figlet` / `pyfiglet`); a word dropped from
  a three-word name leaving a popular name with other separators (`easy-day-js` / `dayjs`).
- `version_suffix`: a version number appended (`requests2`, `lodash-4`, `django-v5`), also to a
  popular name written with other separators (`chartjs-2` / `chart.js`).
- `reorder`: the same letters cut in two and swapped (`libhtml5` / `html5lib`, `nmap-python` /
  `python-nmap`), each part at least `MIN_ROTATED` long.
- `delimiter_typo`: a separator change plus one edit, for names too short for two edits
  (`base_xd` / `base-x`): the names without separators are one edit apart; and a long name typed
  flat with one slip besides (`reactdncdhtml5backend` / `react-dnd-html5-backend`), which differs
  from the original by every dropped separator too.
- `scramble`: the same letters in another order, beyond one transposition (`rstseuqe` /
  `requests`), for names of at least `MIN_SCRAMBLE` letters.
- `sound_alike`: the same consonants with other vowels (`consonants`: `chokader` / `chokidar`),
  within two edits of one of the `SOUND_TOP` most popular names.

A habit affix on a name one keyboard slip from a popular one (`ethrs.js` / `ethers`) is a
`combosquat` too. `edits.unpopular_slip` tells whether a long name is one slip-shaped edit from *any*
name, for callers that compare it with originals of low or unknown popularity (`monoliht` /
PyPI's unranked `monolith`).

`probe_keys.one_edit_keys` lists every key one edit from a name, so that a caller can probe a *whole* name index
(not only the popular names) for the original a new name misspells (`shadowsock` / `shadowsocks`).
`edits.install_confusion` (with `knowledge.install_confusion`) recognises names that are, or misspell, a
file a user meant to pass to the installer (`pip install requirements.txt` without `-r`).

`brands.BrandIndex` answers a separate question, **cross-ecosystem confusion**: the query (or the query
without its ecosystem affix, or one edit from either) is the *brand* of a popular name of another
ecosystem (`opencv-python` on PyPI is the brand `opencv`; `node-opencv` and `opencv.js` on npm
borrow it), while the brand is not a popular name here. Technique `cross_ecosystem`.

Names shorter than `MIN_LENGTH` are compared by delimiter and homoglyph folding only: one edit turns
most three-letter names into another real one.

This module holds `VariantIndex` and its thresholds; the shapes of an edit are in `edits`, the
affixes in `affixes`, the whole-index probe keys in `probe_keys`, the brands in `brands`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rapidfuzz import fuzz
from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names.affixes import (
    HABIT_AFFIXES,
    affix_bases,
    token_bases,
    two_word_bases,
)
from pkgintel.domain.names.edits import (
    DELIMITERS,
    KEY_SLIPS,
    LONG_NAME,
    classify_edit,
    consonants,
    digits_only,
    fold,
    skeleton,
    sorted_letters,
    two_slips,
)
from pkgintel.domain.names.near import NamePool
from pkgintel.domain.names.probe_keys import scoped_part_distinct

MIN_LENGTH: Final = 4
"""Shorter names are not compared by edit distance."""


MIN_ROTATED: Final = 3
"""Each part of a `reorder` variant (`libhtml5` / `html5lib`) is at least this long."""


_VERSION_SUFFIX = re.compile(r"^(?P<base>.*?[a-z])[-_.]?v?(?P<version>\d+(?:[._]\d+)*)$")


SHORT_TWO_EDITS: Final = 5
"""Names of this many characters up to `LONG_NAME` are also compared within two edits, against the
`TWO_EDIT_TOP` most popular names only: users mistype most the names they type most (`reqest` /
`requests`), and a short name is two edits from many others further down."""
TWO_EDIT_TOP: Final = 100
TWO_SLIP_TOP: Final = 1000
"""Two edits that are both keyboard slips (`two_slips`: `fkaks` / `flask`, `toorc` / `torch`) are
compared against this many most popular names: a slip is what a hurried user makes, a random pair of
substitutions is not."""
EXTRA_WORD_TOP: Final = 20000
"""A two-word name (`axios-http`) imitates one of this many most popular names by its other word."""
MIN_SLIPPED_BASE: Final = 5
"""A name with a habit affix (`.js`, `py-`) is also compared, without it, one keyboard slip from the
popular names (`ethrs.js` / `ethers`) from this many characters."""
MIN_GLUED_BASE: Final = 5
"""A popular name with a word glued on (`web3tool`) is looked for from this many characters."""
MIN_GLUED_WORD: Final = 3
"""The glued word has at least this many letters (`py` and `js` are the habit affixes' business)."""
_HABIT_WORDS: Final = frozenset(a.strip("-_.") for a in HABIT_AFFIXES)
MISSPELT_WORD_TOP: Final = 1000
"""A two-word name whose word is one of this many most popular names misspelt (`loadash-lint`)
imitates it: the names users type most are the ones squatted with a word beside them."""
NAMESPACE_NAMES: Final = 3
"""A popular name that at least this many popular names extend on the same side (`react-*`,
`*-loader`) is a namespace: a new word beside it makes a plugin, not an imitation."""


@dataclass(frozen=True, slots=True)
class Variant:
    """`query` imitates the popular name at `index` (position in the pool, most popular first)."""

    index: int
    target: str
    technique: str
    edit_distance: int
    similarity: float
    detail: str
    typo_traffic: bool = True
    """Users reach this name by a slip when they mean the target (one keystroke, a separator, a
    look-alike, words swapped, an ecosystem affix typed from habit such as `node-` or `.js`), so an
    established name of this shape can owe its downloads to the target. False for shapes nobody
    types by accident (two edits, an extra word, a version number, scrambled letters)."""


SLIP_TECHNIQUES: Final = frozenset(
    {
        "delimiter",
        "homoglyph",
        "omission",
        "repetition",
        "transposition",
        "adjacent_key",
        "insertion",
        "substitution",
        "scope_confusion",
        "reorder",
        "case_twin",
        "import_name",
    }
)
"""Techniques whose names users type by a slip (see `Variant.typo_traffic`); `combosquat` counts
when its affix is an ecosystem affix (`HABIT_AFFIXES`)."""


class VariantIndex:
    """
    Popular names (normalised keys, most popular first) indexed for `variants`. Built once per
    pool; lookups are dictionary probes plus the exact near-miss search of `domain.names.near`.
    """

    __slots__ = (
        "_affixed",
        "_flat_pool",
        "_flat_positions",
        "_folded",
        "_names",
        "_namespaces",
        "_pool",
        "_position",
        "_scoped_parts",
        "_scrambled",
        "_skeletons",
        "_sounds",
    )

    def __init__(self, names: Sequence[str], pool: NamePool | None = None) -> None:
        self._names = list(names)
        self._pool = pool if pool is not None else NamePool(self._names)
        self._position = {n: i for i, n in reversed(list(enumerate(self._names)))}
        self._skeletons: dict[str, int] = {}
        self._folded: dict[str, int] = {}
        self._affixed: dict[str, list[tuple[int, str]]] = {}
        self._scrambled: dict[str, int] = {}
        self._scoped_parts: dict[str, int] = {}
        self._namespaces: dict[tuple[str, int], int] = {}
        self._sounds: dict[str, int] = {}
        # Long popular names with separators, without them (`reactdndhtml5backend`), for the
        # flattened names one edit from them that `delimiter_typo` cannot reach by whole strings.
        flat_names: list[str] = []
        self._flat_positions: list[int] = []
        for i, name in enumerate(self._names):
            flat = skeleton(name)
            if flat != name and len(flat) > LONG_NAME and "/" not in flat:
                flat_names.append(flat)
                self._flat_positions.append(i)
        self._flat_pool = NamePool(flat_names)
        for i, name in enumerate(self._names[:SOUND_TOP]):
            sound = consonants(name)
            if sound is not None:
                self._sounds.setdefault(sound, i)
        for i, name in enumerate(self._names):
            if not name.startswith("@"):
                tokens = DELIMITERS.split(name)
                if len(tokens) >= 2:
                    for side in (0, -1):
                        key = (tokens[side], side)
                        self._namespaces[key] = self._namespaces.get(key, 0) + 1
            if name.startswith("@") and "/" in name:
                part = name.partition("/")[2]
                if scoped_part_distinct(part):
                    self._scoped_parts.setdefault(part, i)
            self._skeletons.setdefault(skeleton(name), i)
            letters = sorted_letters(name)
            if letters is not None:
                self._scrambled.setdefault(letters, i)
            self._folded.setdefault(fold(name), i)
            for base, affix in affix_bases(name):
                self._affixed.setdefault(base, []).append((i, affix))

    @property
    def pool(self) -> NamePool:
        return self._pool

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._position

    def position(self, name: str) -> int | None:
        """Popularity position (0 = most popular) of a pool member."""
        return self._position.get(name)

    def variants(self, query: str, limit: int = 5) -> list[Variant]:
        """
        The popular names `query` is a variant of (never `query` itself), most telling first:
        delimiter, homoglyph and one-edit variants before two-edit, scope and affix ones, and
        within a technique the more popular target first. At most `limit`.
        """
        found: dict[int, Variant] = {}

        def add(i: int, technique: str, detail: str, habit: bool = False) -> None:
            target = self._names[i]
            if target == query or i in found:
                return
            found[i] = Variant(
                i,
                target,
                technique,
                int(DamerauLevenshtein.distance(query, target)),
                round(float(fuzz.ratio(query, target)), 1),
                detail,
                technique in SLIP_TECHNIQUES or habit,
            )

        i = self._skeletons.get(skeleton(query))
        if i is not None:
            add(i, "delimiter", "the same name with different separators")
        i = self._folded.get(fold(query))
        if i is not None:
            add(i, "homoglyph", "the same name with look-alike characters swapped")
        flat = skeleton(query)
        if len(flat) >= 2 * MIN_ROTATED and "/" not in flat:
            for cut in range(MIN_ROTATED, len(flat) - MIN_ROTATED + 1):
                i = self._skeletons.get(flat[cut:] + flat[:cut])
                if i is not None:
                    add(i, "reorder", "the same words in another order")
        # Scopes before edits: `sentry-vite-plugin` is `@sentry/vite-plugin` flattened, which also
        # happens to be two edits away.
        for i, detail in self._scope_variants(query):
            add(i, "scope_confusion", detail)
        package_part = query.rpartition("/")[2]
        if len(package_part) >= MIN_LENGTH:
            k = 2 if len(package_part) > LONG_NAME else 1
            for i, dist in self._pool.near(query, k, limit * 2):
                target = self._names[i]
                if not _scopes_compatible(query, target):
                    continue
                technique = classify_edit(query, target)
                add(i, technique, f"{dist} edit{'s' if dist > 1 else ''} from the popular name")
        for base, affix in affix_bases(query):
            i = self._position.get(base)
            if i is not None:
                add(
                    i,
                    "combosquat",
                    f"the popular name with {affix!r} added",
                    affix in HABIT_AFFIXES,
                )
            for j, other in self._affixed.get(base, ()):
                if other != affix:
                    add(
                        j,
                        "combosquat",
                        f"{other!r} of the popular name swapped for {affix!r}",
                        {affix, other} <= HABIT_AFFIXES,
                    )
        for base, affix in affix_bases(query):
            # A habit affix on a misspelt name (`ethrs.js`: `ethers` with a key left out).
            if affix not in HABIT_AFFIXES or len(base) < MIN_SLIPPED_BASE or "/" in base:
                continue
            for i, dist in self._pool.near(base, 1, limit * 2):
                slip = classify_edit(base, self._names[i])
                if dist == 1 and slip in KEY_SLIPS:
                    add(i, "combosquat", f"the popular name with {affix!r} added and one {slip}")
        for i, other in self._affixed.get(query, ()):
            add(
                i,
                "combosquat",
                f"the popular name without its {other!r}",
                other in HABIT_AFFIXES,
            )
        for base, word in token_bases(query):
            i = self._position.get(base)
            if i is None and len(skeleton(base)) >= MIN_SLIPPED_BASE:
                i = self._skeletons.get(skeleton(base))  # `easy-day-js` / `dayjs`
            if i is not None:
                add(i, "combosquat", f"the popular name with the word {word!r} added")
        for base, word, side in two_word_bases(query):
            i = self._position.get(base)
            if (
                i is not None
                and i < EXTRA_WORD_TOP
                and self._namespaces.get((base, side), 0) < NAMESPACE_NAMES
            ):
                add(i, "combosquat", f"the popular name with the word {word!r} added")
            for j, other in self._affixed.get(base, ()):
                # The popular name without its ecosystem affix, a word beside it (`rich-figlet`
                # / `pyfiglet`): two steps, each a combosquat habit on its own.
                if other in HABIT_AFFIXES and j < MISSPELT_WORD_TOP:
                    add(
                        j,
                        "combosquat",
                        f"the popular name without its {other!r}, with the word {word!r} added",
                    )
        for i, word, _ in self._glued(query):
            add(i, "combosquat", f"the popular name with {word!r} glued on")
        match = _VERSION_SUFFIX.match(query.rpartition("/")[2])
        if match is not None:
            head = query[: len(query) - len(query.rpartition("/")[2])]
            base = head + match.group("base")
            i = self._position.get(base)
            if i is None and not head:
                i = self._skeletons.get(skeleton(base))  # `chartjs-2` / `chart.js`
            if i is not None and len(match.group("base")) >= MIN_LENGTH - 1:
                add(i, "version_suffix", f"the popular name with {match.group('version')!r} added")
        if MIN_LENGTH <= len(package_part) <= LONG_NAME and "/" not in query:
            # Separator plus one edit: two edits in all, beyond the one-edit reach of short names.
            flat = skeleton(query)
            for i, dist in self._pool.near(query, 2, limit * 2):
                target = self._names[i]
                if dist == 2 and _flat_distance(flat, target) == 1:
                    add(
                        i,
                        "delimiter_typo",
                        "one edit from the popular name once separators are dropped",
                    )
        flat = skeleton(query)
        if len(flat) > LONG_NAME and "/" not in flat:
            # A long name typed without its separators and with one slip besides
            # (`reactdncdhtml5backend` / `react-dnd-html5-backend`): one edit once both are flat.
            for j, dist in self._flat_pool.near(flat, 1, limit * 2):
                if dist == 1:
                    add(
                        self._flat_positions[j],
                        "delimiter_typo",
                        "one edit from the popular name once separators are dropped",
                    )
        for i, word, base in self._misspelt_words(query):
            add(
                i,
                "combosquat",
                f"the popular name as {base!r}, with the word {word!r} added",
            )
        if SHORT_TWO_EDITS <= len(package_part) <= LONG_NAME:
            # Two edits on a short name: only against the very top, where typos concentrate.
            for i, dist in self._pool.near(query, 2, limit * 2):
                if dist != 2 or not _scopes_compatible(query, self._names[i]):
                    continue
                if i < TWO_EDIT_TOP:
                    add(i, "two_edits", "2 edits from one of the most popular names")
                elif i < TWO_SLIP_TOP and two_slips(query, self._names[i]):
                    add(i, "two_edits", "2 keyboard slips from one of the most popular names")
        sound = consonants(query)
        i = self._sounds.get(sound) if sound is not None else None
        if (
            i is not None
            and DamerauLevenshtein.distance(skeleton(query), skeleton(self._names[i])) <= 2
        ):
            add(i, "sound_alike", "the popular name with its vowels changed")
        letters = sorted_letters(query)
        if letters is not None:
            i = self._scrambled.get(letters)
            if i is not None:
                add(i, "scramble", "the same letters in another order")
        ranked = sorted(found.values(), key=lambda v: (_ORDER.get(v.technique, 9), v.index))
        return ranked[:limit]

    def _glued(self, query: str) -> list[tuple[int, str, int]]:
        """`(pool index, word, side)` for a popular name the one-word `query` is with a word of at
        least `MIN_GLUED_WORD` letters glued before or after it, no separator between
        (`cloudscrapersafe`, `etherweb3`), unless that name is a namespace on that side."""
        if query.startswith("@") or not query.isalnum():
            return []  # a name with separators is judged by its words (`two_word_bases`)
        flat = query.lower()
        out = []
        for cut in range(MIN_GLUED_WORD, len(flat) - MIN_GLUED_BASE + 1):
            word, base = flat[:cut], flat[cut:]
            i = self._skeletons.get(base)
            if i is not None and word.isalpha() and self._not_namespace(i, -1):
                out.append((i, word, -1))
        for cut in range(MIN_GLUED_BASE, len(flat) - MIN_GLUED_WORD + 1):
            base, word = flat[:cut], flat[cut:]
            i = self._skeletons.get(base)
            if i is not None and word.isalpha() and self._not_namespace(i, 0):
                out.append((i, word, 0))
        return out

    def _misspelt_words(self, query: str) -> list[tuple[int, str, str]]:
        """`(pool index, word, base)` for a two-word name whose other word is one of the
        `MISSPELT_WORD_TOP` most popular names misspelt by one edit, or carrying a habit affix
        (`loadash-lint`, `ether-lint`, `expressjs-lint`), while that word is no popular name
        itself. The added word makes the one-edit search miss it; the misspelling is what makes it
        an imitation rather than a plugin (`lodash-lint` alone is judged as an extra word)."""
        out: list[tuple[int, str, str]] = []
        for base, word, _ in two_word_bases(query):
            if (
                base in self._position
                or len(base) < MIN_SLIPPED_BASE
                or not word.isalpha()
                or word in _HABIT_WORDS  # `ethexs.js`: the habit-affix rule's business
            ):
                continue
            for i, dist in self._pool.near(base, 1, 4):
                target = self._names[i]
                if (
                    dist == 1
                    and i < MISSPELT_WORD_TOP
                    and "/" not in target
                    and not digits_only(base, target)
                ):
                    out.append((i, word, base))
            for plain, affix in affix_bases(base):
                j = self._position.get(plain)
                if affix in HABIT_AFFIXES and j is not None and j < MISSPELT_WORD_TOP:
                    out.append((j, word, base))
        return out

    def _not_namespace(self, i: int, side: int) -> bool:
        return self._namespaces.get((self._names[i], side), 0) < NAMESPACE_NAMES

    def _scope_variants(self, query: str) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        if query.startswith("@") and "/" in query:
            scope, _, rest = query[1:].partition("/")
            for flat in (f"{scope}-{rest}", f"{scope}{rest}"):
                i = self._position.get(flat)
                if i is not None:
                    out.append((i, f"the unscoped name {flat!r} moved into the @{scope} scope"))
            for i, dist in self._pool.near(query, 1, 10):
                target = self._names[i]
                if target.startswith("@") and target.partition("/")[2] == rest and dist == 1:
                    out.append((i, "the same package name in a scope one edit away"))
        elif not query.startswith("@"):
            if "-" in query:
                scope, _, rest = query.partition("-")
                i = self._position.get(f"@{scope}/{rest}")
                if i is not None:
                    out.append((i, f"the scoped name @{scope}/{rest} flattened"))
            i = self._scoped_parts.get(query)
            if i is not None:
                out.append((i, f"the scoped name {self._names[i]} without its scope"))
        return out


_ORDER: Final = {
    "delimiter": 0,
    "homoglyph": 0,
    "omission": 1,
    "repetition": 1,
    "transposition": 1,
    "adjacent_key": 1,
    "insertion": 1,
    "substitution": 1,
    "scope_confusion": 2,
    "version_suffix": 2,
    "reorder": 2,
    "combosquat": 3,
    "two_edits": 3,
    "delimiter_typo": 3,
    "scramble": 3,
    "sound_alike": 3,
    "case_twin": 0,
}


SOUND_TOP: Final = 5000
"""Vowel changes (`sound_alike`) are compared against this many most popular names: users spell by
ear the names they hear most."""


def _scopes_compatible(query: str, target: str) -> bool:
    """Scoped names in different scopes are compared by `_scope_variants` only (the package part
    must be identical), never by their whole strings (`@talkjs/core` vs `@tapjs/core`)."""
    if query.startswith("@") and target.startswith("@"):
        return query.partition("/")[0] == target.partition("/")[0]
    return True


def _flat_distance(flat: str, target: str) -> int:
    return int(DamerauLevenshtein.distance(flat, skeleton(target)))

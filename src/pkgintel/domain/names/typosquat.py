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
  one-word name (`cloudscrapersafe`).
- `version_suffix`: a version number appended (`requests2`, `lodash-4`, `django-v5`).
- `reorder`: the same letters cut in two and swapped (`libhtml5` / `html5lib`, `nmap-python` /
  `python-nmap`), each part at least `MIN_ROTATED` long.
- `delimiter_typo`: a separator change plus one edit, for names too short for two edits
  (`base_xd` / `base-x`): the names without separators are one edit apart.
- `scramble`: the same letters in another order, beyond one transposition (`rstseuqe` /
  `requests`), for names of at least `MIN_SCRAMBLE` letters.
- `sound_alike`: the same consonants with other vowels (`consonants`: `chokader` / `chokidar`),
  within two edits of one of the `SOUND_TOP` most popular names.

A habit affix on a name one keyboard slip from a popular one (`ethrs.js` / `ethers`) is a
`combosquat` too. `unpopular_slip` tells whether a long name is one slip-shaped edit from *any*
name, for callers that compare it with originals of low or unknown popularity (`monoliht` /
PyPI's unranked `monolith`).

`one_edit_keys` lists every key one edit from a name, so that a caller can probe a *whole* name index
(not only the popular names) for the original a new name misspells (`shadowsock` / `shadowsocks`).
`install_confusion` (with `knowledge.install_confusion`) recognises names that are, or misspell, a
file a user meant to pass to the installer (`pip install requirements.txt` without `-r`).

`BrandIndex` answers a separate question, **cross-ecosystem confusion**: the query (or the query
without its ecosystem affix, or one edit from either) is the *brand* of a popular name of another
ecosystem (`opencv-python` on PyPI is the brand `opencv`; `node-opencv` and `opencv.js` on npm
borrow it), while the brand is not a popular name here. Technique `cross_ecosystem`.

Names shorter than `MIN_LENGTH` are compared by delimiter and homoglyph folding only: one edit turns
most three-letter names into another real one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rapidfuzz import fuzz
from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names.near import NamePool

MIN_LENGTH: Final = 4
"""Shorter names are not compared by edit distance."""
LONG_NAME: Final = 8
"""Names longer than this are compared within two edits, shorter ones within one."""
MIN_BASE: Final = 4
"""A combosquat's popular base must be at least this long (`node-` + `ws` is not an imitation)."""
MIN_ROTATED: Final = 3
"""Each part of a `reorder` variant (`libhtml5` / `html5lib`) is at least this long."""
MIN_BRAND: Final = 5
"""A cross-ecosystem brand is at least this long (shorter ones are mostly common words)."""
MIN_SCRAMBLE: Final = 7
"""A `scramble` variant has at least this many characters once separators are dropped: short
anagrams of real words are common (`listen` / `silent`)."""
MIN_SCOPED_PART: Final = 8
"""A scoped name's package part is matched alone (`arm-resources` / `@azure/arm-resources`) only
from this length: short parts are common words (`core`, `utils`, `node`)."""
MIN_SCOPED_WORDS: Final = 6
"""A scoped name's package part of several words (`arm-dns`) is matched alone from this length."""
MIN_WIDE: Final = 6
"""`one_edit_keys` answers nothing for shorter names: a name of five characters or fewer is one edit
from several real packages of the whole index by chance."""
MAX_WIDE: Final = 64
"""`one_edit_keys` answers nothing for longer names: ~77 keys per character would make one query of
thousands of keys for a name nobody mistypes that way (npm allows 214 characters)."""
MIN_SCOPE_EDIT: Final = 4
"""`one_edit_keys` edits a scope of at least this many characters: one edit turns a shorter one into
another organisation's (`@aws` / `@ams`)."""
EDIT_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz0123456789-_."
"""The characters of a package name an edit can insert or substitute (npm and PyPI keys)."""

_DELIMITERS = re.compile(r"[-_.]+")
_HOMOGLYPHS: Final = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("1", "l"), ("i", "l"), ("0", "o"))
_HOMOGLYPH_PAIRS: Final = frozenset(
    {frozenset(p) for p in (("1", "l"), ("i", "l"), ("0", "o"), ("5", "s"), ("1", "i"))}
)
_QWERTY: Final = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")
_VERSION_SUFFIX = re.compile(r"^(?P<base>.*?[a-z])[-_.]?v?(?P<version>\d+(?:[._]\d+)*)$")

PREFIXES: Final = (
    "python3-",
    "python-",
    "python",
    "py3-",
    "py-",
    "py",
    "node-",
    "node",
    "nodejs-",
    "js-",
    "go-",
    "lib",
    "the-",
    "real-",
    "official-",
)
"""Affixes a combosquat adds in front of a popular name (longest first within a family)."""
SUFFIXES: Final = (
    "-python3",
    "-python",
    "-py3",
    "-py",
    "py",
    "-nodejs",
    "-node",
    ".js",
    "-js",
    "js",
    "-ts",
    "-dev",
    "-cli",
    "-lib",
    "-api",
    "-sdk",
    "-core",
    "-utils",
    "-util",
    "-tools",
    "-tool",
    "-plus",
    "-pro",
    "-new",
    "-next",
    "-latest",
    "-official",
    "-fixed",
    "-fix",
    "-secure",
    "-lite",
    "-async",
    "-helper",
    "-module",
    "-package",
    "-validator",
    "-basic",
)
"""Affixes a combosquat adds behind a popular name."""


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
    return _DELIMITERS.sub("", name.lower())


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


_KEY_SLIPS: Final = frozenset({"omission", "repetition", "transposition", "adjacent_key"})
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
    swap, then a neighbouring key), each of them a `_KEY_SLIPS` technique of `classify_edit`."""
    if DamerauLevenshtein.distance(query, target, score_cutoff=2) != 2:
        return False
    return any(
        DamerauLevenshtein.distance(query, middle, score_cutoff=1) == 1
        and classify_edit(query, middle) in _KEY_SLIPS
        for middle in slip_keys(target)
    )


MIN_ANY_SLIP: Final = 8
"""A name is compared with *every* name of the index, whatever its popularity, from this length
(`unpopular_slip`): one edit from a shorter name happens by chance."""
_ANY_SLIPS: Final = _KEY_SLIPS | {"delimiter", "homoglyph"}
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


_JS_SUFFIXES: Final = frozenset({".js", "-js", "js"})


def _by(key_of: int, affixes: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for affix in affixes:
        out.setdefault(affix[key_of], []).append(affix)
    return {k: tuple(v) for k, v in out.items()}


_PREFIXES_BY_FIRST: Final = _by(0, PREFIXES)
_SUFFIXES_BY_LAST: Final = _by(-1, SUFFIXES)
_PY_PREFIXES: Final = frozenset({"py", "py-", "python-", "py3-", "python3-", "python"})


def _affix_bases(name: str) -> list[tuple[str, str]]:
    """`(base, affix)` for each known prefix or suffix `name` carries (base at least `MIN_BASE`;
    two characters for the `js` suffixes, `d3.js` / `d3`, three for the `py` prefixes, `pysmb` /
    `smb`)."""
    out: list[tuple[str, str]] = []
    scope, sep, rest = name.rpartition("/")
    if not rest:
        return out
    head = f"{scope}{sep}"
    for prefix in _PREFIXES_BY_FIRST.get(rest[0], ()):
        least = 3 if prefix in _PY_PREFIXES else MIN_BASE
        if rest.startswith(prefix) and len(rest) - len(prefix) >= least:
            out.append((head + rest[len(prefix) :], prefix))
    for suffix in _SUFFIXES_BY_LAST.get(rest[-1], ()):
        least = 2 if suffix in _JS_SUFFIXES else MIN_BASE
        if rest.endswith(suffix) and len(rest) - len(suffix) >= least:
            out.append((head + rest[: -len(suffix)], suffix))
    return out


def _token_bases(name: str) -> list[tuple[str, str]]:
    """`(base, word)` for each way of dropping one delimited word from an unscoped name of three
    or more words (`plain-crypto-js` → `crypto-js`, `is-buffer-validator` → `is-buffer`)."""
    if name.startswith("@"):
        return []
    words = re.split(r"([-_.])", name)
    tokens = words[0::2]
    if len(tokens) < 3:
        return []
    out = []
    for i, word in enumerate(tokens):
        kept = words[: 2 * i] + words[2 * i + 2 :] if i < len(tokens) - 1 else words[: 2 * i - 1]
        base = "".join(kept).strip("-_.")
        if len(base) >= MIN_BASE + 2:
            out.append((base, word))
    return out


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
NAMESPACE_NAMES: Final = 3
"""A popular name that at least this many popular names extend on the same side (`react-*`,
`*-loader`) is a namespace: a new word beside it makes a plugin, not an imitation."""


def _two_word_bases(name: str) -> list[tuple[str, str, int]]:
    """`(base, word, side)` for a two-word unscoped name: each word as the base (at least
    `MIN_BASE` long), the other (with at least one letter) as the word added; side 0 when the
    base comes first."""
    if name.startswith("@"):
        return []
    tokens = _DELIMITERS.split(name)
    if len(tokens) != 2 or not all(tokens):
        return []
    first, last = tokens
    # A number beside the name is a version suffix (`lodash-4`), judged as such.
    return [
        (b, w, side)
        for b, w, side in ((first, last, 0), (last, first, -1))
        if len(b) >= MIN_BASE and any(ch.isalpha() for ch in w)
    ]


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
when its affix is an ecosystem affix (`_HABIT_AFFIXES`)."""


class VariantIndex:
    """
    Popular names (normalised keys, most popular first) indexed for `variants`. Built once per
    pool; lookups are dictionary probes plus the exact near-miss search of `domain.names.near`.
    """

    __slots__ = (
        "_affixed",
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
        for i, name in enumerate(self._names[:SOUND_TOP]):
            sound = consonants(name)
            if sound is not None:
                self._sounds.setdefault(sound, i)
        for i, name in enumerate(self._names):
            if not name.startswith("@"):
                tokens = _DELIMITERS.split(name)
                if len(tokens) >= 2:
                    for side in (0, -1):
                        key = (tokens[side], side)
                        self._namespaces[key] = self._namespaces.get(key, 0) + 1
            if name.startswith("@") and "/" in name:
                part = name.partition("/")[2]
                if scoped_part_distinct(part):
                    self._scoped_parts.setdefault(part, i)
            self._skeletons.setdefault(skeleton(name), i)
            letters = _letters(name)
            if letters is not None:
                self._scrambled.setdefault(letters, i)
            self._folded.setdefault(fold(name), i)
            for base, affix in _affix_bases(name):
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
        for base, affix in _affix_bases(query):
            i = self._position.get(base)
            if i is not None:
                add(
                    i,
                    "combosquat",
                    f"the popular name with {affix!r} added",
                    affix in _HABIT_AFFIXES,
                )
            for j, other in self._affixed.get(base, ()):
                if other != affix:
                    add(
                        j,
                        "combosquat",
                        f"{other!r} of the popular name swapped for {affix!r}",
                        {affix, other} <= _HABIT_AFFIXES,
                    )
        for base, affix in _affix_bases(query):
            # A habit affix on a misspelt name (`ethrs.js`: `ethers` with a key left out).
            if affix not in _HABIT_AFFIXES or len(base) < MIN_SLIPPED_BASE or "/" in base:
                continue
            for i, dist in self._pool.near(base, 1, limit * 2):
                slip = classify_edit(base, self._names[i])
                if dist == 1 and slip in _KEY_SLIPS:
                    add(i, "combosquat", f"the popular name with {affix!r} added and one {slip}")
        for i, other in self._affixed.get(query, ()):
            add(
                i,
                "combosquat",
                f"the popular name without its {other!r}",
                other in _HABIT_AFFIXES,
            )
        for base, word in _token_bases(query):
            i = self._position.get(base)
            if i is not None:
                add(i, "combosquat", f"the popular name with the word {word!r} added")
        for base, word, side in _two_word_bases(query):
            i = self._position.get(base)
            if (
                i is not None
                and i < EXTRA_WORD_TOP
                and self._namespaces.get((base, side), 0) < NAMESPACE_NAMES
            ):
                add(i, "combosquat", f"the popular name with the word {word!r} added")
        for i, word, _ in self._glued(query):
            add(i, "combosquat", f"the popular name with {word!r} glued on")
        match = _VERSION_SUFFIX.match(query.rpartition("/")[2])
        if match is not None:
            head = query[: len(query) - len(query.rpartition("/")[2])]
            base = head + match.group("base")
            i = self._position.get(base)
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
        letters = _letters(query)
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
            return []  # a name with separators is judged by its words (`_two_word_bases`)
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


def _letters(name: str) -> str | None:
    """The characters of an unscoped name without separators, sorted: equal for two names made of
    the same letters (`scramble`); None under `MIN_SCRAMBLE` characters or for scoped names."""
    flat = skeleton(name)
    if len(flat) < MIN_SCRAMBLE or "/" in flat:
        return None
    return "".join(sorted(flat))


def one_edit_keys(key: str) -> set[str]:
    """
    Every key one Damerau-Levenshtein edit from `key` (a deletion, an adjacent transposition, or a
    character of `EDIT_ALPHABET` substituted or inserted), `key` itself excluded. In a scoped npm
    name the package part is edited, and the scope (from `MIN_SCOPE_EDIT` characters) with the part
    kept. A name with `_` or `.` also gives its spelling with dashes
    and every key one edit from that (a separator change plus one edit). Empty when the (package part
    of the) name is shorter than `MIN_WIDE` or longer than `MAX_WIDE`. A name of n characters has about 77·n such keys; a caller
    probes an index with them in one query.
    """
    scope, sep, part = key.rpartition("/")
    head = f"{scope}{sep}"
    if not MIN_WIDE <= len(part) <= MAX_WIDE:
        return set()
    keys = {head + k for k in _edits(part)}
    if scope.startswith("@") and len(scope) > MIN_SCOPE_EDIT:
        # A slip in the scope, the package part kept (`@flashbotts/ethers-provider-bundle`).
        keys |= {f"@{s}/{part}" for s in _edits(scope[1:])}
    dashed = _DELIMITERS.sub("-", part)
    if dashed != part:
        # Separators changed as well (`ember_cli_babe` / `ember-cli-babel`): the name with dashes,
        # and every key one edit from it.
        keys |= one_edit_keys(head + dashed) | {head + dashed}
    return keys


def _edits(text: str) -> set[str]:
    """Every spelling one edit from `text` (see `one_edit_keys`) that neither starts nor ends with a
    separator, `text` excluded."""
    out: set[str] = set()
    n = len(text)
    for i in range(n):
        out.add(text[:i] + text[i + 1 :])
        if i + 1 < n:
            out.add(text[:i] + text[i + 1] + text[i] + text[i + 2 :])
        for ch in EDIT_ALPHABET:
            out.add(text[:i] + ch + text[i + 1 :])
    for i in range(n + 1):
        for ch in EDIT_ALPHABET:
            out.add(text[:i] + ch + text[i:])
    out.discard(text)
    return {k for k in out if k and k[0] not in "-_." and k[-1] not in "-_."}


def scoped_part_distinct(part: str) -> bool:
    """Whether a scoped name's package part says enough to be matched alone: `MIN_SCOPED_PART`
    characters, or `MIN_SCOPED_WORDS` when it has more than one word (`arm-dns`, not `utils`)."""
    if len(part) >= MIN_SCOPED_PART:
        return True
    return len(part) >= MIN_SCOPED_WORDS and any(ch in "-_." for ch in part.strip("-_."))


def scope_keys(key: str, scopes: Sequence[str]) -> dict[str, str]:
    """
    Scoped names an unscoped `key` may stand for, each with how: the name moved under one of the
    registry's common `scopes` (`arm-logic` / `@azure/arm-logic`, for a key of at least
    `MIN_SCOPED_PART` characters) or its first word turned into the scope
    (`vitejs-plugin-react-refresh` / `@vitejs/plugin-react-refresh`). `scopes` are written with
    their `@`. Empty for a scoped key.
    """
    if key.startswith("@"):
        return {}
    out: dict[str, str] = {}
    if scoped_part_distinct(key):
        for scope in scopes:
            out[f"{scope}/{key}"] = f"the scoped name {scope}/{key} without its scope"
    for i, ch in enumerate(key):
        if ch == "-" and 2 <= i < len(key) - 2:
            probe = f"@{key[:i]}/{key[i + 1 :]}"
            out.setdefault(probe, f"the scoped name {probe} flattened")
    return out


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


def _scopes_compatible(query: str, target: str) -> bool:
    """Scoped names in different scopes are compared by `_scope_variants` only (the package part
    must be identical), never by their whole strings (`@talkjs/core` vs `@tapjs/core`)."""
    if query.startswith("@") and target.startswith("@"):
        return query.partition("/")[0] == target.partition("/")[0]
    return True


def _flat_distance(flat: str, target: str) -> int:
    return int(DamerauLevenshtein.distance(flat, skeleton(target)))


ECOSYSTEM_PREFIXES: Final = (
    "python3-",
    "python-",
    "python",
    "py3-",
    "py-",
    "py",
    "nodejs-",
    "node-",
    "node",
    "js-",
)
"""Affixes that only say which ecosystem a package is for; dropped to find a name's brand."""
ECOSYSTEM_SUFFIXES: Final = (
    "-python3",
    "-python",
    "-py3",
    "-py",
    "py",
    "-nodejs",
    "-node",
    ".js",
    "-js",
    "js",
)
_HABIT_AFFIXES: Final = frozenset(ECOSYSTEM_PREFIXES) | frozenset(ECOSYSTEM_SUFFIXES)
"""Affixes typed from habit (the language's name around the package's): `node-`, `.js`, `py-`."""


def ecosystem_bases(name: str) -> list[str]:
    """`name` itself, then `name` without each ecosystem affix it carries (`python-mysqldb` →
    `mysqldb`, `opencv.js` → `opencv`); scoped npm names carry none."""
    out = [name]
    if name.startswith("@"):
        return out
    # The longest affix of each side only (`python-` rather than `py`, which would leave `thon-`).
    prefix = next((p for p in ECOSYSTEM_PREFIXES if name.startswith(p)), None)
    if prefix is not None and len(name) > len(prefix):
        out.append(name[len(prefix) :].lstrip("-_."))
    suffix = next((x for x in ECOSYSTEM_SUFFIXES if name.endswith(x)), None)
    if suffix is not None and len(name) > len(suffix):
        out.append(name[: -len(suffix)].rstrip("-_."))
    return [base for i, base in enumerate(out) if base and base not in out[:i]]


def brands(name: str) -> list[str]:
    """
    The brands a package name carries, as separator-free keys: the name itself and the name
    without one ecosystem affix (`opencv-python` → `opencv`, `pyopenssl` → `openssl`,
    `node-opencv` → `opencv`), each at least `MIN_BRAND` long. Scoped npm names carry none.
    """
    if name.startswith("@"):
        return []
    keys = []
    for brand in ecosystem_bases(name):
        key = skeleton(brand)
        if len(key) >= MIN_BRAND and key not in keys:
            keys.append(key)
    return keys


@dataclass(frozen=True, slots=True)
class BrandVariant:
    """`query` borrows the brand of the other ecosystem's popular name at `index` (position in that
    ecosystem's list, most popular first)."""

    index: int
    target: str
    brand: str
    edit_distance: int
    """Edits between the query's brand and the target's (0: the same brand)."""
    detail: str
    affixed: bool = False
    """The query carries the brand inside an ecosystem affix (`node-opencv`, `opencv.js`)."""


class BrandIndex:
    """
    The brands (`brands`) of another ecosystem's popular names (most popular first), leaving out
    every brand that is also a brand of a popular name here (`local`): those are this ecosystem's
    own, and the variant model judges imitations of them. `variants(query)` finds the brands the
    query carries exactly or within one edit.
    """

    __slots__ = ("_keys", "_names", "_pool", "_position")

    def __init__(self, names: Sequence[str], local: Sequence[str]) -> None:
        own = {key for name in local for key in brands(name)}
        self._names = list(names)
        position: dict[str, int] = {}
        for i, name in enumerate(self._names):
            for key in brands(name):
                if key not in own:
                    position.setdefault(key, i)
        self._position = position
        self._keys = list(position)
        self._pool = NamePool(self._keys)
        self._pool.prepare(1)

    def __len__(self) -> int:
        return len(self._keys)

    def variants(self, query: str, limit: int = 3) -> list[BrandVariant]:
        """The other ecosystem's popular names whose brand `query` carries (exactly, then within
        one edit), most popular first within each; at most `limit`."""
        found: dict[int, BrandVariant] = {}
        keys = brands(query)
        whole = skeleton(query)
        for key in keys:
            i = self._position.get(key)
            if i is not None and i not in found:
                found[i] = BrandVariant(
                    i, self._names[i], key, 0, f"carries the brand {key!r}", key != whole
                )
        for key in keys:
            for j, dist in self._pool.near(key, 1, limit):
                brand = self._keys[j]
                i = self._position[brand]
                if i not in found:
                    found[i] = BrandVariant(
                        i,
                        self._names[i],
                        brand,
                        dist,
                        f"one edit from the brand {brand!r}",
                        key != whole,
                    )
        ranked = sorted(found.values(), key=lambda v: (v.edit_distance, v.index))
        return ranked[:limit]

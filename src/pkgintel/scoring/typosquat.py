"""
When a name that imitates a popular one is a typosquat *suspect* (pure).

The variant model (`domain.names.typosquat`) says which popular names a name imitates and how; this
module weighs the **popularity gap**, which decides whether the imitation is suspicious:

- A popular package is never a suspect of a less popular one: the target must be at least
  `POPULARITY_GAP` times as popular as the suspect (`scoring.verdicts.POPULARITY_GAP`). Downloads are
  compared when both are known. Where a registry gives only a rank (PyPI's top-15,000 list), ranks
  stand in for downloads (download counts fall roughly as 1/rank), so a target must rank at least
  `POPULARITY_GAP` times higher; a name outside the ranking counts as ranked just below its end,
  the most popular it could be.
- When the gap cannot be measured — the name is not in the name index (new, or never published),
  or it is listed without enough popularity data (a PyPI name outside the ranking beside a target
  ranked below the 750th) — the answer says so. A name missing from the index is then suspected on
  its shape: typo-shaped variants (one or two edits, delimiters, homoglyphs, scope) of any popular
  name, affix variants (`combosquat`, `version_suffix`) of the `COMBO_TOP` most popular. A listed
  name is suspected only when the registry shows it young with few releases (`young`: at most
  `FEW_RELEASES` releases, first one at most `YOUNG_DAYS` ago), as a report does; `check_bulk`,
  which reads the index only, leaves it alone.
- An established package (`scoring.verdicts.established`: real downloads, a place in the ranking or
  a long release history) is a suspect only when its shape is one users reach by a slip (a
  keystroke, a separator, a look-alike, swapped words, an ecosystem affix typed from habit), and the
  gap is measured and at least `ESTABLISHED_GAP`: typo traffic alone gives a squat of a very popular name thousands of downloads
  (npm's security placeholder `crossenv` draws 10,533 a month beside `cross-env`'s 60 million), while a
  legitimate neighbour (`path-parser` beside `path-parse`) has far more than 0.1 % of its traffic.
  No list of names is exempt: every name is judged by the same two thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pkgintel.scoring.verdicts import POPULARITY_GAP

COMBO_TOP: Final = 20000
"""Affix variants of an unknown-popularity name are suspected only against this many top names."""
ESTABLISHED_GAP: Final = 1000
"""The gap an *established* name (real downloads, a rank or a long history) must show to be a
suspect: its own traffic is then under 0.1 % of the target's, the share typos and squats draw."""
TYPO_TECHNIQUES: Final = frozenset(
    {
        "delimiter",
        "homoglyph",
        "omission",
        "repetition",
        "transposition",
        "adjacent_key",
        "insertion",
        "substitution",
        "two_edits",
        "scope_confusion",
        "reorder",
        "delimiter_typo",
        "scramble",
        "sound_alike",
        "case_twin",
    }
)


@dataclass(frozen=True, slots=True)
class Popularity:
    """What the name index knows of a name's popularity (both None: nothing)."""

    monthly_downloads: int | None = None
    rank: int | None = None
    """1 = most downloaded, when the registry's list ranks names."""
    ranked_count: int | None = None
    """How many names the ranking holds (a name outside it ranks below this)."""

    def describe(self) -> str:
        if self.monthly_downloads is not None:
            return f"{self.monthly_downloads:,} downloads a month"
        if self.rank is not None:
            return f"ranked {self.rank:,} by downloads"
        if self.ranked_count:
            return f"not among the {self.ranked_count:,} most downloaded"
        return "popularity unknown"


@dataclass(frozen=True, slots=True)
class Gap:
    """The popularity gap between a target and a suspect."""

    holds: bool | None
    """True: the target is far more popular; False: it is not; None: cannot be measured."""
    ratio: float | None
    """Target popularity over the suspect's (downloads, or ranks as a stand-in); None if unknown."""
    basis: str
    """`downloads`, `rank` or `unknown`."""


def popularity_gap(target: Popularity, suspect: Popularity | None) -> Gap:
    """See the module docstring. `suspect` None: the name is not in the index."""
    if suspect is None:
        return Gap(None, None, "unknown")
    if target.monthly_downloads is not None and suspect.monthly_downloads is not None:
        ratio = target.monthly_downloads / max(1, suspect.monthly_downloads)
        return Gap(ratio >= POPULARITY_GAP, round(ratio, 1), "downloads")
    if target.rank is not None:
        suspect_rank = suspect.rank
        if suspect_rank is None and suspect.ranked_count:
            suspect_rank = suspect.ranked_count + 1
        if suspect_rank is not None:
            ratio = suspect_rank / target.rank
            if suspect.rank is None and ratio < POPULARITY_GAP:
                # Outside the ranking: its real rank may be far lower; the gap is not measurable.
                return Gap(None, round(ratio, 1), "rank")
            return Gap(ratio >= POPULARITY_GAP, round(ratio, 1), "rank")
    return Gap(None, None, "unknown")


YOUNG_DAYS: Final = 180
FEW_RELEASES: Final = 3


def young(release_count: int | None, first_release_days: int | None) -> bool | None:
    """True when the registry shows a young package with few releases (both facts, when both are
    known, must agree); None when neither is known."""
    facts = []
    if release_count is not None:
        facts.append(release_count <= FEW_RELEASES)
    if first_release_days is not None:
        facts.append(first_release_days <= YOUNG_DAYS)
    return all(facts) if facts else None


def suspected_by(
    technique: str,
    target_position: int,
    gap: Gap,
    *,
    established: bool = False,
    listed: bool = False,
    is_young: bool | None = None,
    typo_traffic: bool = True,
) -> bool:
    """
    Whether one variant makes its name a suspect, given the gap (see the module docstring).
    `typo_traffic`: users reach the name by a slip when they mean the target
    (`domain.names.typosquat.Variant.typo_traffic`). A name of another shape (an extra word, two edits)
    draws none of the target's traffic, so its own downloads say nothing: it is a suspect only when
    new (not listed, or young with few releases), never when established.
    `listed`: the name is in the index (it exists and has what evidence the index holds); when the
    gap is then not measurable, only a young package with few releases (`is_young`) is suspected.
    """
    if not typo_traffic:
        # Only a slip sends a target's users to a name; an extra word, a second edit or a version
        # number does not, so a listed name of such a shape owes its downloads to itself and a gap
        # says nothing (a plugin always has fewer users than its host). Such a name is judged by
        # its shape alone, and only when it is new: absent from the index, or young with few
        # releases.
        if established or (listed and not is_young) or gap.holds is False:
            return False
        return technique in TYPO_TECHNIQUES or target_position < COMBO_TOP
    if gap.holds is None:
        if established or (listed and not is_young):
            return False
        return technique in TYPO_TECHNIQUES or target_position < COMBO_TOP
    if gap.ratio is None:
        return bool(gap.holds) and not established
    return gap.ratio >= (ESTABLISHED_GAP if established else POPULARITY_GAP)

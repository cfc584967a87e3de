"""
How one imitated name is judged (the typosquat verdict on a single target), and the slopsquat rule.

`judge_entry` weighs a target of the same ecosystem by the popularity gap (`scoring.typosquat`),
`judge_variant` does so for a variant of a popular name, `judge_brand` for a brand borrowed from
the other ecosystem, `install_confusions` for files users type as a package name. Each returns a
`TyposquatTarget` that says in words why it is or is not a suspect. `slopsquat` and `with_slop` apply
the reports of names language models invent (`knowledge.slopsquats`). No I/O.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from rapidfuzz import fuzz

from pkgintel.domain.names.brands import BrandVariant
from pkgintel.domain.names.edits import install_confusion, skeleton
from pkgintel.domain.names.rules import NameEntry, NameIndexState
from pkgintel.domain.names.typosquat import Variant
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.install_confusion import install_files
from pkgintel.knowledge.slopsquats import hallucinated
from pkgintel.scoring.typosquat import (
    ESTABLISHED_GAP,
    Gap,
    Popularity,
    popularity_gap,
    suspected_by,
)
from pkgintel.services.names.hints import Slopsquat, TyposquatHint, TyposquatTarget
from pkgintel.services.names.pools import PopularPool


def judge_variant(
    pool: PopularPool,
    v: Variant,
    suspect: Popularity | None,
    why_established: str | None,
    *,
    listed: bool,
    is_young: bool | None,
) -> TyposquatTarget:
    """A variant of a popular name (`domain.names.typosquat.Variant`) judged as `judge_entry`."""
    return judge_entry(
        pool,
        pool.entries[v.index],
        v.index,
        v.technique,
        v.edit_distance,
        v.similarity,
        v.detail,
        suspect,
        why_established,
        listed=listed,
        is_young=is_young,
        typo_traffic=v.typo_traffic,
    )


def judge_entry(
    pool: PopularPool,
    target_entry: NameEntry,
    position: int,
    technique: str,
    edit_distance: int,
    similarity: float,
    detail: str,
    suspect: Popularity | None,
    why_established: str | None,
    *,
    listed: bool,
    is_young: bool | None,
    typo_traffic: bool = True,
) -> TyposquatTarget:
    """One target judged by the popularity gap (`scoring.typosquat.suspected_by`);
    `position` is its place among the popular names (`pool.limit` or more: outside);
    `typo_traffic` as `domain.names.typosquat.Variant.typo_traffic`."""
    target = Popularity(
        target_entry.monthly_downloads, target_entry.popularity_rank, pool.ranked_count or None
    )
    gap = popularity_gap(target, suspect)
    firm = why_established is not None
    suspected = suspected_by(
        technique,
        position,
        gap,
        established=firm,
        listed=listed,
        is_young=is_young,
        typo_traffic=typo_traffic,
    )
    if firm and not typo_traffic:
        why = (
            f"not a suspect: established ({why_established}), and nobody reaches this "
            "name by a slip when meaning the target, so its downloads are its own"
        )
    elif not typo_traffic and not suspected and listed and not is_young:
        why = (
            "not a suspect: nobody reaches this name by a slip when meaning the target, so "
            "its listed downloads are its own, and nothing shows it young with few releases"
        )
    elif firm and suspected:
        why = (
            f"the target is {gap.ratio:,g} times as popular: this name's own traffic "
            f"({why_established}) is what typos of it would draw"
        )
    elif firm:
        why = f"not a suspect: established ({why_established}) and the gap is under " + (
            f"{ESTABLISHED_GAP:,}x" if gap.ratio is not None else "measurable"
        )
    elif gap.holds is False:
        why = (
            f"not a suspect: the target is only {gap.ratio:g} times as popular"
            if gap.ratio is not None
            else "not a suspect: the target is not far more popular"
        )
    elif gap.holds is True:
        unit = "downloads" if gap.basis == "downloads" else "rank (as a stand-in for downloads)"
        why = f"the target is {gap.ratio:,g} times as popular by {unit}"
    elif suspected:
        why = f"target {target.describe()}; this name's popularity is not measurable" + (
            ", and it is young with few releases" if is_young else ""
        )
    elif listed and not is_young:
        why = (
            f"not a suspect: target {target.describe()}, this name {suspect.describe() if suspect else 'listed'}; "
            "the gap is not measurable and nothing shows it young with few releases"
        )
    else:
        why = (
            "not a suspect: an affix variant of a name outside the most popular "
            "(popularity gap not measurable)"
        )
    return TyposquatTarget(
        target_entry.display_name,
        technique,
        edit_distance,
        similarity,
        detail,
        target.describe(),
        target.monthly_downloads,
        target.rank,
        gap.ratio,
        gap.basis,
        suspected,
        why,
        outside_pool=position >= pool.limit,
    )


def install_confusions(
    ecosystem: Ecosystem, key: str, why_established: str | None
) -> tuple[TyposquatTarget, ...]:
    """Files users type as a package name (`knowledge.install_confusion`) that `key` is or
    misspells. A suspect unless the package is established: no legitimate project needs the
    name of a requirements file."""
    out = []
    for known in install_files(ecosystem):
        distance = install_confusion(key, known.file_name)
        if distance is None:
            continue
        suspected = why_established is None
        what = (
            f"named like the file {known.file_name}"
            if distance == 0
            else f"{distance} edit{'s' if distance > 1 else ''} from the file {known.file_name}"
        )
        out.append(
            TyposquatTarget(
                known.file_name,
                "install_confusion",
                distance,
                round(float(fuzz.ratio(skeleton(key), skeleton(known.file_name))), 1),
                f"{what}: a user who meant `{known.meant}` installs this package",
                "a file, not a package",
                None,
                None,
                None,
                "not_a_package",
                suspected,
                (
                    f"{what}, which users type as a package name when they mean "
                    f"`{known.meant}` ({known.source})"
                    if suspected
                    else f"not a suspect: established ({why_established})"
                ),
            )
        )
    return tuple(out)


def judge_brand(
    pool: PopularPool,
    b: BrandVariant,
    local: NameEntry | None,
    suspect: Popularity | None,
    why_established: str | None,
    *,
    listed: bool,
    is_young: bool | None,
) -> TyposquatTarget:
    """
    A cross-ecosystem brand. Popularity across registries is not comparable; when the brand is
    also a (less popular) name of this ecosystem (`local`), the gap is measured against that
    name, with the same thresholds as any variant. Otherwise only a name that is not in the
    index, or is young with few releases, and not established, is suspected
    (`scoring.typosquat.suspected_by`).
    """
    entry = pool.brand_entries[b.index]
    target = Popularity(entry.monthly_downloads, entry.popularity_rank, None)
    gap = Gap(None, None, "other_ecosystem")
    here = ""
    if local is not None:
        local_pop = Popularity(
            local.monthly_downloads, local.popularity_rank, pool.ranked_count or None
        )
        measured = popularity_gap(local_pop, suspect)
        if measured.ratio is not None and measured.holds is not None:
            gap = measured
            here = f"; here {local.display_name} has {local_pop.describe()}"
    suspected = suspected_by(
        "cross_ecosystem",
        b.index,
        gap,
        established=why_established is not None,
        listed=listed,
        is_young=is_young,
    )
    # One edit from a foreign brand is weak alone (`tslib` / PyPI's `tblib`): it needs an
    # ecosystem affix around it (`node-opensl`) or a gap measured against the name here.
    weak = b.edit_distance > 0 and not b.affixed and gap.ratio is None
    suspected = suspected and not weak
    where = f"{entry.ecosystem.value}'s {entry.display_name} ({target.describe()}){here}"
    if weak:
        why = (
            f"not a suspect: one edit from the brand {b.brand!r} of {entry.ecosystem.value}'s "
            f"{entry.display_name}, with no ecosystem affix and no measurable gap here"
        )
    elif gap.ratio is not None:
        why = (
            f"borrows the brand {b.brand!r} of {where}, {gap.ratio:,g} times as popular as this "
            "name"
            if suspected
            else f"not a suspect: shares the brand {b.brand!r} of {where}, only "
            f"{gap.ratio:,g} times as popular as this name"
            + (f" (established: {why_established})" if why_established else "")
        )
    elif why_established is not None:
        why = f"not a suspect: established ({why_established})"
    elif suspected:
        why = (
            f"borrows the brand {b.brand!r} of {where}, which is not a popular "
            f"{'package here' if not listed else 'name here'}; this name is "
            + ("young with few releases" if is_young else "not in the name index")
        )
    else:
        why = (
            f"not a suspect: shares the brand {b.brand!r} of {where}, but it is listed "
            "and nothing shows it young with few releases"
        )
    return TyposquatTarget(
        entry.display_name,
        "cross_ecosystem",
        b.edit_distance,
        round(float(fuzz.ratio(b.brand, skeleton(entry.name))), 1),
        b.detail,
        target.describe(),
        target.monthly_downloads,
        target.rank,
        gap.ratio,
        gap.basis,
        suspected,
        why,
        entry.ecosystem.value,
    )


def slopsquat(
    ecosystem: Ecosystem,
    name: str,
    entry: NameEntry | None,
    state: NameIndexState | None,
    first_release: datetime | None,
    first_asked: datetime | None = None,
) -> Slopsquat | None:
    """The evidence that `name` was invented before it existed, with whether it is registered
    (and since when, relative to the evidence); None when there is none.

    Evidence is a public report of LLM-invented names (`knowledge.slopsquats`), or else the first
    time our usage log recorded the name asked for while it did not exist (`first_asked`). The log
    alone counts only for a registered name whose first release, when known, came after that ask:
    a release before it means the name existed and only our index missed it."""
    report = hallucinated(ecosystem, name)
    if report is None and first_asked is None:
        return None
    registered: bool | None
    if entry is not None or first_release is not None:
        registered = True
    elif state is not None and not state.partial:
        registered = False
    else:
        registered = None
    on = first_release.date() if first_release is not None else None
    if report is None:
        if first_asked is None or registered is not True:
            return None
        if first_release is not None and first_release < first_asked:
            return None
        return Slopsquat(None, True, None if first_release is None else True, on, first_asked)
    after: bool | None = None
    if first_release is not None and report.reported_in:
        month = first_release.strftime("%Y-%m")
        after = None if month == report.reported_in else month > report.reported_in
    return Slopsquat(report, registered, after, on)


def with_slop(hint: TyposquatHint, slop: Slopsquat | None) -> TyposquatHint:
    """A registered name invented before it existed is a suspect whatever its popularity: its
    downloads come from the invented recommendations themselves."""
    if slop is None:
        return hint
    if slop.registered:
        registered_on = (
            f" (first release {slop.registered_on.isoformat()})" if slop.registered_on else ""
        )
        meant = slop.report.meant if slop.report is not None else None
        if slop.report is not None:
            why = (
                f"a name language models were reported to invent ({slop.report.source}), "
                "now registered"
            )
        else:
            why = f"a slopsquat: {slop.evidence}; now registered"
        why += (
            registered_on
            + (" after the report" if slop.registered_after_report and slop.report else "")
            + (f"; the real package is {meant}" if meant else "")
        )
        return replace(hint, is_suspected=True, slopsquat=slop, reason=why)
    return replace(
        hint,
        slopsquat=slop,
        reason=hint.reason
        + (
            "; language models were reported to invent this name and it is not registered"
            if slop.registered is False
            else ""
        ),
    )

"""
Who publishes a package: per-release publishers, bus factor, dominance, ownership changes, alerts.

Pure: `analyse_maintainers` takes the registry's current accounts (`PackageInfo.maintainers`), the
per-release history when the registry gives one (`PublisherHistory`) and `now`, and returns a
`MaintainerAnalysis`. Nothing here guesses: a figure the registry data cannot support is None with a
reason in `MaintainerAnalysis.unavailable`.

Definitions (also in docs/api.md):

- **bus factor**: the fewest publishers who together published at least half of the releases whose
  publisher is known (greedy over publishers by release count, which is optimal for this measure).
- **dominance**: the share of those releases the most active publisher published (0..1).
- **first seen**: the publish time of the first release (in time order) where the account appears
  as publisher or in that release's maintainer list — the registry's own record of the account on
  this package, not the account's creation date (`account_created_at`, when a registry says).
- **ownership change**: between two consecutive releases (in publish-time order) the maintainer list
  gained or lost an account, or a release was published by an account that had never published one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from pkgintel.domain.packages import Maintainer

DECLARED_ROLES: Final = frozenset({"author", "declared"})
"""Roles of people a package only *names* (metadata authors), as opposed to accounts with publish rights."""

BUS_FACTOR_SHARE: Final = 0.5
MAX_CHANGES_LISTED: Final = 20


@dataclass(frozen=True, slots=True)
class Publication:
    """One release as the registry records who published it."""

    version: str
    published_at: datetime | None
    publisher: str | None
    """The account that published it (npm `_npmUser.name`, crates.io `published_by.login`), None when unknown."""
    maintainers: tuple[str, ...] | None = None
    """The accounts with publish rights when it was published (npm per-version `maintainers`); None when not recorded."""
    attested: bool | None = None
    """The release carries a registry provenance attestation (npm `dist.attestations`); None when not recorded."""
    trusted_publisher: str | None = None
    """The OIDC trusted publisher that published it (npm `_npmUser.trustedPublisher.id`), when recorded."""


@dataclass(frozen=True, slots=True)
class PublisherHistory:
    """Per-release publisher data of one package, as one registry source gives it."""

    source: str
    publications: tuple[Publication, ...]
    account_created: dict[str, datetime] = field(default_factory=dict)
    """Account creation times the registry states (lower-cased account name → time)."""


@dataclass(frozen=True, slots=True)
class AccountFacts:
    name: str
    role: str | None
    current: bool
    """Listed by the registry today (False: only seen in the release history)."""
    releases_published: int | None
    share: float | None
    first_seen_at: datetime | None
    first_seen_version: str | None
    account_created_at: datetime | None


@dataclass(frozen=True, slots=True)
class OwnershipChange:
    version: str
    previous_version: str | None
    published_at: datetime | None
    added: tuple[str, ...]
    removed: tuple[str, ...]
    new_publisher: str | None


@dataclass(frozen=True, slots=True)
class Alert:
    code: str
    """`new_publisher_on_latest`, `maintainers_changed_on_latest`, `sole_maintainer`,
    `account_newer_than_package`."""
    severity: str
    """`info`, `warning` or `high`."""
    message: str


@dataclass(frozen=True, slots=True)
class MaintainerAnalysis:
    count: int | None
    """Accounts with publish rights the registry lists today (declared authors when that is all there is)."""
    count_basis: str
    """`accounts` (publish rights), `declared` (metadata authors only) or `none`."""
    accounts: tuple[AccountFacts, ...]
    releases_with_publisher: int
    releases_total: int
    bus_factor: int | None
    dominance: float | None
    primary_publisher: str | None
    ownership_changes: tuple[OwnershipChange, ...]
    """The most recent changes, newest first (at most `MAX_CHANGES_LISTED`)."""
    ownership_changes_total: int
    alerts: tuple[Alert, ...]
    unavailable: dict[str, str]
    """Figure → why it could not be computed from this registry's data."""
    trusted_publishing_latest: bool | None = None
    """The latest release was published through a trusted publisher / carries an attestation; None unknown."""


def _key(name: str) -> str:
    return name.strip().lower()


def bus_factor(counts: Counter[str], share: float = BUS_FACTOR_SHARE) -> int | None:
    """Fewest publishers covering at least `share` of the counted releases (None when none counted)."""
    total = sum(counts.values())
    if total == 0:
        return None
    covered = 0
    for n, (_, c) in enumerate(counts.most_common(), start=1):
        covered += c
        if covered >= share * total:
            return n
    return len(counts)  # pragma: no cover - the loop always reaches the share


def analyse_maintainers(
    maintainers: tuple[Maintainer, ...],
    history: PublisherHistory | None,
    *,
    latest_version: str,
    registry: str,
    history_unavailable: str | None = None,
) -> MaintainerAnalysis:
    """
    The maintainer picture of one package. `history_unavailable` says why there is no per-release
    history (the registry gives none, or its source failed); it is used when `history` is None.
    """
    accounts = [m for m in maintainers if (m.role or "") not in DECLARED_ROLES]
    declared = [m for m in maintainers if (m.role or "") in DECLARED_ROLES]
    basis = "accounts" if accounts else ("declared" if declared else "none")
    listed = accounts or declared
    count = len(listed) if listed else None
    unavailable: dict[str, str] = {}
    if count is None:
        unavailable["count"] = f"{registry} lists no maintainers or owners for this package"

    pubs = _ordered(history.publications) if history is not None else []
    created = {k.lower(): v for k, v in (history.account_created if history else {}).items()}
    counts: Counter[str] = Counter()
    display: dict[str, str] = {}
    first_seen: dict[str, tuple[datetime | None, str]] = {}
    for pub in pubs:
        names = ([pub.publisher] if pub.publisher else []) + list(pub.maintainers or ())
        for n in names:
            display.setdefault(_key(n), n)
            first_seen.setdefault(_key(n), (pub.published_at, pub.version))
        if pub.publisher:
            counts[_key(pub.publisher)] += 1
    with_publisher = sum(counts.values())
    why_no_history = history_unavailable or f"{registry} does not say who published each release"
    if history is None or with_publisher == 0:
        reason = (
            why_no_history
            if history is None
            else f"{history.source} names no publisher for any release of this package"
        )
        for key in ("bus_factor", "dominance", "publishers", "first_seen"):
            unavailable[key] = reason
    if history is None or not any(p.maintainers is not None for p in pubs):
        unavailable["ownership_changes"] = (
            why_no_history
            if history is None
            else f"{history.source} does not record the maintainer list of each release"
        )
        if history is not None and with_publisher:
            unavailable.pop("ownership_changes")  # publisher changes are still detectable

    facts: list[AccountFacts] = []
    seen: set[str] = set()
    for m in listed:
        k = _key(m.name)
        seen.add(k)
        facts.append(_facts(m.name, m.role, True, k, counts, with_publisher, first_seen, created))
    for k, _ in counts.most_common():
        if k not in seen:
            seen.add(k)
            facts.append(
                _facts(
                    display[k],
                    "former publisher",
                    False,
                    k,
                    counts,
                    with_publisher,
                    first_seen,
                    created,
                )
            )

    changes = _changes(pubs) if pubs else []
    bf = bus_factor(counts)
    primary = display[counts.most_common(1)[0][0]] if counts else None
    dominance = round(counts.most_common(1)[0][1] / with_publisher, 3) if counts else None
    alerts = _alerts(
        pubs,
        latest_version=latest_version,
        count=count,
        basis=basis,
        created=created,
        listed=listed,
        unavailable=unavailable,
    )
    latest = next((p for p in pubs if p.version == latest_version), None)
    trusted = None
    if latest is not None and (latest.attested is not None or latest.trusted_publisher):
        trusted = bool(latest.attested or latest.trusted_publisher)
    return MaintainerAnalysis(
        count=count,
        count_basis=basis,
        accounts=tuple(facts),
        releases_with_publisher=with_publisher,
        releases_total=len(pubs),
        bus_factor=bf,
        dominance=dominance,
        primary_publisher=primary,
        ownership_changes=tuple(reversed(changes[-MAX_CHANGES_LISTED:])),
        ownership_changes_total=len(changes),
        alerts=tuple(alerts),
        unavailable=unavailable,
        trusted_publishing_latest=trusted,
    )


def _ordered(pubs: tuple[Publication, ...]) -> list[Publication]:
    """Publications in publish-time order (undated ones keep their registry order, after the dated)."""
    dated = sorted((p for p in pubs if p.published_at is not None), key=lambda p: p.published_at)  # type: ignore[arg-type, return-value]
    return dated + [p for p in pubs if p.published_at is None]


def _facts(
    name: str,
    role: str | None,
    current: bool,
    k: str,
    counts: Counter[str],
    total: int,
    first_seen: dict[str, tuple[datetime | None, str]],
    created: dict[str, datetime],
) -> AccountFacts:
    seen = first_seen.get(k)
    return AccountFacts(
        name=name,
        role=role,
        current=current,
        releases_published=counts.get(k, 0) if total else None,
        share=round(counts.get(k, 0) / total, 3) if total else None,
        first_seen_at=seen[0] if seen else None,
        first_seen_version=seen[1] if seen else None,
        account_created_at=created.get(k),
    )


def _changes(pubs: list[Publication]) -> list[OwnershipChange]:
    out: list[OwnershipChange] = []
    publishers: set[str] = set()
    prev: Publication | None = None
    prev_map: dict[str, str] | None = None
    for pub in pubs:
        cur = {_key(n): n for n in pub.maintainers} if pub.maintainers is not None else None
        added: tuple[str, ...] = ()
        removed: tuple[str, ...] = ()
        if cur is not None and prev_map is not None:
            added = tuple(sorted(cur[k] for k in cur.keys() - prev_map.keys()))
            removed = tuple(sorted(prev_map[k] for k in prev_map.keys() - cur.keys()))
        new_pub = None
        if pub.publisher and _key(pub.publisher) not in publishers:
            new_pub = pub.publisher if publishers else None  # the first release has no "before"
            publishers.add(_key(pub.publisher))
        if added or removed or new_pub:
            out.append(
                OwnershipChange(
                    pub.version,
                    prev.version if prev else None,
                    pub.published_at,
                    added,
                    removed,
                    new_pub,
                )
            )
        if cur is not None:
            prev_map = cur
        prev = pub
    return out


def _alerts(
    pubs: list[Publication],
    *,
    latest_version: str,
    count: int | None,
    basis: str,
    created: dict[str, datetime],
    listed: list[Maintainer],
    unavailable: dict[str, str],
) -> list[Alert]:
    alerts: list[Alert] = []
    idx = next((i for i, p in enumerate(pubs) if p.version == latest_version), None)
    if idx is not None and idx > 0:
        latest = pubs[idx]
        earlier = {_key(p.publisher) for p in pubs[:idx] if p.publisher}
        if latest.publisher and earlier and _key(latest.publisher) not in earlier:
            alerts.append(
                Alert(
                    "new_publisher_on_latest",
                    "high",
                    f"The latest release {latest.version} was published by {latest.publisher!r}, "
                    "who had published no earlier release.",
                )
            )
        before = next((p for p in reversed(pubs[:idx]) if p.maintainers is not None), None)
        if latest.maintainers is not None and before is not None:
            a = {_key(n) for n in latest.maintainers}
            b = {_key(n) for n in before.maintainers or ()}
            if a - b:
                alerts.append(
                    Alert(
                        "maintainers_changed_on_latest",
                        "warning",
                        f"Release {latest.version} added maintainers "
                        f"{sorted(n for n in latest.maintainers if _key(n) in a - b)} "
                        f"since {before.version}.",
                    )
                )
    if count == 1 and basis == "accounts":
        alerts.append(
            Alert(
                "sole_maintainer",
                "info",
                f"One account ({listed[0].name}) can publish this package: a bus factor of one.",
            )
        )
    first_release = next((p.published_at for p in pubs if p.published_at is not None), None)
    if created and first_release is not None:
        for m in listed:
            when = created.get(_key(m.name))
            if when is not None and when > first_release:
                alerts.append(
                    Alert(
                        "account_newer_than_package",
                        "warning",
                        f"Account {m.name!r} was created after the package's first release.",
                    )
                )
    elif not created:
        unavailable.setdefault(
            "account_created_at", "the registry does not state when its accounts were created"
        )
    return alerts

"""
Release provenance values (npm attestations, PyPI PEP 740 attestations) and the pure rules over them.

A registry tells cheaply *whether* a version carries attestations (npm `dist.attestations` in the
packument, PyPI `provenance` per file in the PEP 691 JSON simple index); fetching an attestation
gives the Sigstore bundle whose certificate and statement say *who* built it (issuer, repository,
workflow, commit). We read those facts; we do not re-verify signatures (the registries verify an
attestation when it is uploaded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

PREDECESSORS: Final = 5
"""How many earlier releases are compared with the evaluated one."""


@dataclass(frozen=True, slots=True)
class VersionAttestations:
    """What the registry's index says about one version's attestations, without fetching them."""

    version: str
    attested: bool
    """True when the registry lists at least one attestation for the version (any of its files)."""
    urls: tuple[str, ...] = ()
    """Where to fetch them (npm: one URL; PyPI: one per attested file)."""
    files: int | None = None
    """PyPI: files of the version; None for npm (one tarball)."""
    attested_files: int | None = None
    predicate_types: tuple[str, ...] = ()
    """npm: the provenance predicate type the packument names (`dist.attestations.provenance`)."""
    registry_signed: bool | None = None
    """npm: the version carries the registry's ECDSA `dist.signatures`; None when not told."""


@dataclass(frozen=True, slots=True)
class ProvenanceIndex:
    """Per-version attestation flags of one package, as its registry lists them."""

    package: str
    versions: dict[str, VersionAttestations]
    source: str


@dataclass(frozen=True, slots=True)
class SigstoreFacts:
    """
    Facts read from one Sigstore bundle: the signing certificate's Fulcio extensions and the in-toto
    statement. Every field is None when the bundle does not carry it.
    """

    predicate_type: str | None = None
    issuer: str | None = None
    """OIDC issuer that vouched for the builder (e.g. `https://token.actions.githubusercontent.com`)."""
    identity: str | None = None
    """The certificate's subject alternative name: the workflow identity that signed."""
    repository: str | None = None
    workflow: str | None = None
    """The build configuration (workflow file path, with its ref when known)."""
    ref: str | None = None
    commit: str | None = None
    trigger: str | None = None
    runner: str | None = None
    run_url: str | None = None
    publisher_kind: str | None = None
    """PyPI Trusted Publisher kind (`GitHub`, `GitLab`, ...) from the integrity API."""
    environment: str | None = None
    signed_at: datetime | None = None
    """The transparency-log integration time."""
    log_index: int | None = None
    subjects: tuple[str, ...] = field(default_factory=tuple)


def predecessors(
    ordered_oldest_first: list[str], version: str, *, skip: frozenset[str] = frozenset()
) -> list[str]:
    """
    Up to `PREDECESSORS` releases before `version` in `ordered_oldest_first` (the ecosystem's version
    order), nearest first, leaving out `skip` (yanked, and pre-releases for a final release).
    Empty when `version` is not in the list.
    """
    if version not in ordered_oldest_first:
        return []
    idx = ordered_oldest_first.index(version)
    earlier = [v for v in reversed(ordered_oldest_first[:idx]) if v not in skip]
    return earlier[:PREDECESSORS]


@dataclass(frozen=True, slots=True)
class ProvenanceChange:
    """Verdict of the evaluated version against its predecessors (`compare_with_predecessors`)."""

    lost_provenance: bool
    """The version has no attestation while the release just before it had one."""
    last_attested: str | None
    """The nearest earlier release with an attestation (None when none of the compared had one)."""
    attested_predecessors: int
    compared: tuple[str, ...]
    reason: str


def compare_with_predecessors(
    version: VersionAttestations, earlier: list[VersionAttestations]
) -> ProvenanceChange:
    """
    The "lost provenance" rule: a version without attestations whose immediate predecessor (nearest
    earlier release compared) had them has lost provenance. When an older predecessor had them but
    the immediate one did not, the loss happened earlier: `lost_provenance` is False and
    `last_attested` names where provenance was last seen.
    """
    compared = tuple(v.version for v in earlier)
    attested = [v for v in earlier if v.attested]
    last = attested[0].version if attested else None
    if version.attested:
        why = f"{version.version} carries attestations"
        return ProvenanceChange(False, last, len(attested), compared, why)
    if earlier and earlier[0].attested:
        why = (
            f"{version.version} has no attestation, but the release before it "
            f"({earlier[0].version}) had one: the publishing path changed"
        )
        return ProvenanceChange(True, last, len(attested), compared, why)
    if last is not None:
        why = (
            f"{version.version} has no attestation; provenance was last seen on {last}, "
            f"and {earlier[0].version} already lacked it"
        )
        return ProvenanceChange(False, last, len(attested), compared, why)
    why = (
        f"neither {version.version} nor the {len(earlier)} release(s) before it carry attestations"
        if earlier
        else f"{version.version} has no attestation and no earlier release to compare"
    )
    return ProvenanceChange(False, None, 0, compared, why)


def publisher_changed(current: SigstoreFacts, previous: SigstoreFacts) -> str | None:
    """
    A sentence when two attested releases were built from a different repository or workflow
    (compared on what both bundles state), else None.
    """
    for label, a, b in (
        ("repository", current.repository, previous.repository),
        ("workflow", _workflow_path(current.workflow), _workflow_path(previous.workflow)),
        ("issuer", current.issuer, previous.issuer),
    ):
        if a and b and a.lower() != b.lower():
            return f"{label} changed from {b} to {a}"
    return None


def _workflow_path(workflow: str | None) -> str | None:
    """The workflow without its `@ref` (refs differ on every release)."""
    return workflow.split("@", 1)[0] if workflow else None

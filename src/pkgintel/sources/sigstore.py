"""
Facts from Sigstore bundles (pure): the Fulcio signing certificate's extensions and the in-toto
statement inside the DSSE envelope.

Certificate extensions (https://github.com/sigstore/fulcio/blob/main/docs/oid-info.md), under
`1.3.6.1.4.1.57264.1.`: `1`-`6` are the deprecated GitHub-only ones (issuer, trigger, SHA, workflow
name, repository, ref) stored as raw strings; `8` onwards are DER UTF8Strings (8 issuer, 9 build
signer URI, 11 runner environment, 12 source repository URI, 13 its digest, 14 its ref, 18 build
config URI, 20 build trigger, 21 run invocation URI). Newer certificates carry both sets.

The statement of npm's SLSA provenance names the repository, workflow and commit too (v0.2:
`invocation.configSource`; v1: `buildDefinition.externalParameters.workflow` and
`resolvedDependencies`), and is used where the certificate says nothing.

Nothing here verifies a signature or a chain: the registries verify attestations when they are
uploaded; these functions only read what the bundle states. A malformed part gives None fields,
never an exception (`RegistryResponseInvalid` is for bodies that are not attestations at all).
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final

import orjson
from cryptography import x509

from pkgintel.domain.signals.attestations import SigstoreFacts

logger = logging.getLogger(__name__)

_FULCIO: Final = "1.3.6.1.4.1.57264.1."
_LEGACY: Final = {"1": "issuer", "3": "commit", "5": "repository", "6": "ref", "2": "trigger"}
_V2: Final = {
    "8": "issuer",
    "9": "signer",
    "11": "runner",
    "12": "repository",
    "13": "commit",
    "14": "ref",
    "18": "workflow",
    "20": "trigger",
    "21": "run_url",
}


def _b64(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return base64.b64decode(value, validate=False)
    except (binascii.Error, ValueError):
        return None


def _der_utf8(raw: bytes) -> str | None:
    """The text of a DER UTF8String (tag 0x0C), or None when `raw` is not one."""
    if len(raw) < 2 or raw[0] != 0x0C:
        return None
    length, offset = raw[1], 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or len(raw) < 2 + count:
            return None
        length = int.from_bytes(raw[2 : 2 + count], "big")
        offset = 2 + count
    body = raw[offset : offset + length]
    return body.decode("utf-8", "replace") if len(body) == length else None


def certificate_facts(der: bytes) -> dict[str, str]:
    """
    `{issuer, identity, repository, workflow, ref, commit, trigger, runner, run_url}` (those present)
    from a Fulcio certificate in DER. The v2 extensions win over the deprecated ones; an
    unreadable certificate gives `{}`.
    """
    try:
        cert = x509.load_der_x509_certificate(der)
        extensions = list(cert.extensions)
    except ValueError as exc:
        logger.info("unreadable Sigstore certificate: %s", exc)
        return {}
    legacy: dict[str, str] = {}
    current: dict[str, str] = {}
    for ext in extensions:
        value = ext.value
        if isinstance(value, x509.SubjectAlternativeName):
            names = [str(n.value) for n in value]
            if names:
                current["identity"] = names[0]
            continue
        if not isinstance(value, x509.UnrecognizedExtension):
            continue
        oid = ext.oid.dotted_string
        if not oid.startswith(_FULCIO):
            continue
        arc = oid.removeprefix(_FULCIO)
        if arc in _LEGACY:
            legacy[_LEGACY[arc]] = value.value.decode("utf-8", "replace")
        elif arc in _V2 and (text := _der_utf8(value.value)) is not None:
            current[_V2[arc]] = text
    out = {**legacy, **current}
    if "repository" in out and not out["repository"].startswith("http"):
        out["repository"] = f"https://github.com/{out['repository']}"
    if "workflow" not in out and "signer" in out:
        out["workflow"] = out["signer"]
    out.pop("signer", None)
    return out


def _statement(payload: bytes | None) -> Mapping[str, Any]:
    if payload is None:
        return {}
    try:
        doc = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return {}
    return doc if isinstance(doc, Mapping) else {}


def _get(doc: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(doc, Mapping):
            return None
        doc = doc.get(key)
    return doc


def statement_facts(statement: Mapping[str, Any]) -> dict[str, str]:
    """Repository, workflow, ref and commit from an SLSA provenance statement (v0.2 or v1)."""
    out: dict[str, str] = {}
    predicate = statement.get("predicate")
    # SLSA v1 (npm since 2023): buildDefinition.externalParameters.workflow
    workflow = _get(predicate, "buildDefinition", "externalParameters", "workflow")
    if isinstance(workflow, Mapping):
        repo, path, ref = workflow.get("repository"), workflow.get("path"), workflow.get("ref")
        if isinstance(repo, str):
            out["repository"] = repo
            if isinstance(path, str):
                out["workflow"] = f"{repo}/{path}" + (f"@{ref}" if isinstance(ref, str) else "")
        if isinstance(ref, str):
            out["ref"] = ref
        deps = _get(predicate, "buildDefinition", "resolvedDependencies")
        if isinstance(deps, list) and deps and isinstance(deps[0], Mapping):
            commit = _get(deps[0], "digest", "gitCommit")
            if isinstance(commit, str):
                out["commit"] = commit
        run = _get(predicate, "runDetails", "metadata", "invocationId")
        if isinstance(run, str):
            out["run_url"] = run
    # SLSA v0.2 (early npm provenance): invocation.configSource
    source = _get(predicate, "invocation", "configSource")
    if isinstance(source, Mapping):
        uri, entry = source.get("uri"), source.get("entryPoint")
        if isinstance(uri, str):
            repo_uri, _, ref = uri.removeprefix("git+").partition("@")
            out.setdefault("repository", repo_uri)
            if ref:
                out.setdefault("ref", ref)
        commit = _get(source, "digest", "sha1")
        if isinstance(commit, str):
            out.setdefault("commit", commit)
        if isinstance(entry, str):
            out.setdefault("workflow", entry)
        trigger = _get(predicate, "invocation", "environment", "GITHUB_EVENT_NAME")
        if isinstance(trigger, str):
            out.setdefault("trigger", trigger)
    return out


def _subjects(statement: Mapping[str, Any]) -> tuple[str, ...]:
    subjects = statement.get("subject")
    if not isinstance(subjects, list):
        return ()
    return tuple(
        s["name"] for s in subjects if isinstance(s, Mapping) and isinstance(s.get("name"), str)
    )


def _tlog(entries: Any) -> tuple[datetime | None, int | None]:
    if not isinstance(entries, list) or not entries or not isinstance(entries[0], Mapping):
        return None, None
    entry: Mapping[str, Any] = entries[0]
    when: datetime | None = None
    index: int | None = None
    try:
        when = datetime.fromtimestamp(int(entry["integratedTime"]), UTC)
    except (KeyError, TypeError, ValueError, OverflowError, OSError):
        when = None
    try:
        index = int(entry["logIndex"])
    except (KeyError, TypeError, ValueError):
        index = None
    return when, index


def _facts(
    cert: dict[str, str],
    statement: Mapping[str, Any],
    tlog: tuple[datetime | None, int | None],
    **extra: Any,
) -> SigstoreFacts:
    from_statement = statement_facts(statement)
    merged = {**from_statement, **cert}
    predicate_type = statement.get("predicateType")
    return SigstoreFacts(
        predicate_type=predicate_type if isinstance(predicate_type, str) else None,
        issuer=merged.get("issuer"),
        identity=merged.get("identity"),
        repository=merged.get("repository"),
        workflow=merged.get("workflow"),
        ref=merged.get("ref"),
        commit=merged.get("commit"),
        trigger=merged.get("trigger"),
        runner=merged.get("runner"),
        run_url=merged.get("run_url"),
        signed_at=tlog[0],
        log_index=tlog[1],
        subjects=_subjects(statement),
        **extra,
    )


def npm_bundle_facts(bundle: Mapping[str, Any]) -> SigstoreFacts:
    """Facts of one bundle of an npm attestations answer (`attestations[].bundle`, bundle v0.1-v0.3)."""
    material = bundle.get("verificationMaterial")
    material = material if isinstance(material, Mapping) else {}
    der: bytes | None = None
    chain = _get(material, "x509CertificateChain", "certificates")
    if isinstance(chain, list) and chain and isinstance(chain[0], Mapping):
        der = _b64(chain[0].get("rawBytes"))
    elif isinstance(material.get("certificate"), Mapping):
        der = _b64(material["certificate"].get("rawBytes"))
    cert = certificate_facts(der) if der else {}
    payload = _b64(_get(bundle, "dsseEnvelope", "payload"))
    return _facts(cert, _statement(payload), _tlog(material.get("tlogEntries")))


def pypi_attestation_facts(
    attestation: Mapping[str, Any], publisher: Mapping[str, Any] | None
) -> SigstoreFacts:
    """Facts of one PEP 740 attestation object plus its bundle's Trusted Publisher block."""
    material = attestation.get("verification_material")
    material = material if isinstance(material, Mapping) else {}
    der = _b64(material.get("certificate"))
    cert = certificate_facts(der) if der else {}
    statement = _statement(_b64(_get(attestation, "envelope", "statement")))
    kind = publisher.get("kind") if publisher else None
    env = publisher.get("environment") if publisher else None
    facts = _facts(
        cert,
        statement,
        _tlog(material.get("transparency_entries")),
        publisher_kind=kind if isinstance(kind, str) else None,
        environment=env if isinstance(env, str) and env else None,
    )
    if publisher and facts.repository is None and isinstance(publisher.get("repository"), str):
        # The certificate is the better witness; the publisher block is what PyPI recorded.
        facts = replace(facts, repository=publisher["repository"])
    return facts

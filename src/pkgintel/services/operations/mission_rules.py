"""
What each mission profile does (`RULES`, keyed by the profile's `rule`, or `llm:<profile>`).

Rule profiles use only our own data and the registries; LLM profiles render their prompt (a data
file) and turn the model's JSON answer into proposals, each with the source the model cited —
the curator and people judge those, nothing is applied without a decision.

`MissionRun.tools` (wired in `runtime/operations.py`):
- `packages`: `PackageService`; `recent(limit)`: (ecosystem, name) of recently asked packages;
- `popular(ecosystem, limit)`: most popular names of the name index;
- `registry_url(ecosystem, name)`: the registry's machine-readable page (a primary source);
- `links`: a `LinkChecker`.
"""

from __future__ import annotations

import hashlib
import re
import string
from typing import Any
from urllib.parse import urlsplit

import orjson

from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.operations.ops import OpsUnavailable, ProposalStatus
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.operations.missions import MissionRun, Rule

_REPLACEMENT = re.compile(
    r"(?:please\s+use|use|switch\s+to|migrate\s+to|replaced\s+(?:by|with)|moved\s+to|renamed\s+to|"
    r"superseded\s+by|in\s+favou?r\s+of)\s+(?:the\s+)?[`'\"“]?(@?[A-Za-z0-9][\w.\-]*(?:/[\w.\-]+)?)",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset(
    {"the", "a", "an", "this", "it", "version", "latest", "npm", "pip", "instead"}
)


def replacement_in(message: str | None, ecosystem: Ecosystem, package: str) -> str | None:
    """
    The package a deprecation message points to ("use X instead", "moved to X", "renamed to X"),
    or None. The candidate must be a valid name of `ecosystem` other than `package` itself.
    """
    if not message:
        return None
    for match in _REPLACEMENT.finditer(message):
        candidate = match.group(1).rstrip(".,;:)")
        if candidate.lower() in _NOT_NAMES or "://" in candidate:
            continue
        try:
            name = validate_name(ecosystem, candidate)
        except InvalidInput:
            continue
        if normalise_name(ecosystem, name) != normalise_name(ecosystem, package):
            return name
    return None


async def deprecated_alternatives(run: MissionRun) -> dict[str, Any]:
    """Read recently asked packages; for each deprecated one whose message names a replacement,
    propose that alternative with the registry's own record as evidence."""
    packages = run.tools["packages"]
    recent = await run.tools["recent"](int(run.params["limit"]))
    read = deprecated = skipped = 0
    await run.log(f"reading {len(recent)} recently asked packages")
    for ecosystem_value, name in recent:
        try:
            ecosystem = Ecosystem(ecosystem_value)
            snap = await packages.get_snapshot(ecosystem, name)
        except (ValueError, PkgIntelError) as exc:
            skipped += 1
            await run.log(f"{ecosystem_value}/{name}: skipped ({getattr(exc, 'message', exc)})")
            continue
        read += 1
        info = snap.info
        if not info.deprecated:
            continue
        deprecated += 1
        alternative = replacement_in(info.deprecated_message, ecosystem, info.name)
        if alternative is None:
            await run.log(f"{ecosystem.value}/{info.name}: deprecated, no replacement named")
            continue
        await run.propose(
            kind="alternative",
            key=f"{ecosystem.value}/{normalise_name(ecosystem, info.name)}",
            payload={
                "ecosystem": ecosystem.value,
                "package": info.name,
                "alternative": alternative,
                "reason": f"deprecated by its maintainers: {info.deprecated_message}"[:500],
            },
            evidence=[
                {
                    "url": run.tools["registry_url"](ecosystem, info.name),
                    "primary": True,
                    "what": "the deprecation message published on the registry",
                }
            ],
        )
        await run.log(f"{ecosystem.value}/{info.name}: proposed {alternative}")
    return {"read": read, "deprecated": deprecated, "skipped": skipped}


async def builder(run: MissionRun) -> dict[str, Any]:
    """Re-check an approved proposal's evidence links, then apply it."""
    proposal = await run.proposals.get(str(run.params["proposal_id"]))
    if proposal.status is not ProposalStatus.APPROVED:
        raise OpsUnavailable(f"proposal {proposal.id} is {proposal.status.value}, not approved")
    dead = []
    for item in proposal.evidence:
        url = str(item.get("url", ""))
        verdict = await run.tools["links"].check(url)
        await run.log(f"evidence {url}: {verdict or 'answers'}")
        if verdict and verdict.startswith("dead"):
            dead.append(url)
    if dead and len(dead) == len(proposal.evidence):
        raise OpsUnavailable(f"every evidence link is dead: {', '.join(dead)}")
    applied = await run.proposals.apply(proposal)
    if applied.status is ProposalStatus.APPLIED:
        await run.log(f"applied as revision {applied.revision_id}")
    else:
        await run.log(f"no applier for kind {proposal.kind} in this build; left approved")
    return {"proposal_id": proposal.id, "status": applied.status.value}


def parse_items(text: str) -> list[dict[str, Any]]:
    """The JSON array in a model answer (fenced or bare); [] when there is none."""
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start:
        return []
    try:
        data = orjson.loads(text[start : end + 1])
    except orjson.JSONDecodeError:
        return []
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def _is_primary(url: str, repository: str | None) -> bool:
    """A page of the project's own repository counts as a primary source."""
    if not repository or not url.startswith(("http://", "https://")):
        return False
    repo = urlsplit(repository.removesuffix(".git"))
    page = urlsplit(url)
    return page.netloc.lower() == repo.netloc.lower() and page.path.lower().startswith(
        repo.path.lower().rstrip("/") + "/"
    )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


async def llm_breaking_changes(run: MissionRun) -> dict[str, Any]:
    ecosystem = Ecosystem(str(run.params["ecosystem"]))
    names = list(run.params["packages"]) or await run.tools["popular"](
        ecosystem, int(run.params["limit"])
    )
    template = string.Template(run.prompts["breaking-changes"])
    asked = 0
    for name in names:
        try:
            snap = await run.tools["packages"].get_snapshot(ecosystem, name)
        except PkgIntelError as exc:
            await run.log(f"{name}: skipped ({exc.message})")
            continue
        info = snap.info
        versions = ", ".join(r.version for r in list(reversed(info.releases))[:15])
        prompt = template.safe_substitute(
            package=info.name,
            ecosystem=ecosystem.value,
            repository=info.repository or "unknown",
            versions=versions or info.latest_version,
        )
        text = await run.ask(prompt)
        asked += 1
        for item in parse_items(text):
            url, change = str(item.get("source_url", "")), str(item.get("change", "")).strip()
            version = str(item.get("version", "")).strip()
            if not url or not change or not version:
                continue
            await run.propose(
                kind="breaking_change",
                key=f"{ecosystem.value}/{info.name}@{version}#{_digest(change)}",
                payload={
                    "ecosystem": ecosystem.value,
                    "package": info.name,
                    "version": version,
                    "change": change[:1000],
                    "migration": str(item.get("migration", ""))[:2000],
                },
                evidence=[{"url": url, "primary": _is_primary(url, info.repository)}],
            )
        await run.log(f"{info.name}: asked the model")
    return {"packages_asked": asked}


async def llm_error_fixes(run: MissionRun) -> dict[str, Any]:
    ecosystem = str(run.params["ecosystem"])
    template = string.Template(run.prompts["error-fixes"])
    for error in run.params["errors"]:
        text = await run.ask(template.safe_substitute(ecosystem=ecosystem, error=error))
        for item in parse_items(text):
            url, fix = str(item.get("source_url", "")), str(item.get("fix", "")).strip()
            pattern = str(item.get("pattern", "")).strip()
            if not url or not fix or not pattern:
                continue
            try:
                re.compile(pattern)
            except re.error:
                await run.log(f"model gave an invalid pattern {pattern!r}; skipped")
                continue
            await run.propose(
                kind="error_fix",
                key=f"{ecosystem}/{_digest(pattern)}",
                payload={
                    "ecosystem": ecosystem,
                    "pattern": pattern[:1000],
                    "cause": str(item.get("cause", ""))[:1000],
                    "fix": fix[:4000],
                    "package": str(item.get("package", ""))[:214] or None,
                    "example": error[:2000],
                },
                evidence=[{"url": url, "primary": False}],
            )
    return {"errors_asked": len(run.params["errors"])}


RULES: dict[str, Rule] = {
    "deprecated_alternatives": deprecated_alternatives,
    "builder": builder,
    "llm:breaking-changes": llm_breaking_changes,
    "llm:error-fixes": llm_error_fixes,
}

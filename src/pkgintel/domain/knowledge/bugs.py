"""
Known (non-CVE) bugs read from an issue tracker (pure: GitHub issue JSON in, values out).

- An issue is a bug when one of its labels says so (`bug`, `type: bug`, `kind/bug`, `defect`,
  `regression`, ...); pull requests in the issues list are skipped.
- Severity comes from labels only (`critical`, `severity: high`, `P0`/`P1`, `crash`, `data loss`,
  `regression`); no label → `unrated`, never a guess.
- Versions named: version numbers the title or body mentions next to a version marker
  (`v1.2.3`, `version 1.2`, `@1.2.3`, `==1.2.3`, `1.2.3 -> ...`).
- Fixed in: the oldest release whose notes reference the issue (`#123` or its URL), for closed issues.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pkgintel.domain.json_fields import as_datetime

BUG_LABEL = re.compile(
    r"(?:^|[\s:/_-])(?:bug|bugs|defect|regression|crash)(?:$|[\s:/_-])|^type[:/ -]*bug|^kind/bug",
    re.IGNORECASE,
)
_SEVERITY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("critical", re.compile(r"critical|blocker|\bp0\b|data[- ]loss|security", re.IGNORECASE)),
    ("high", re.compile(r"\bhigh\b|\bp1\b|\bmajor\b|crash|regression|severe", re.IGNORECASE)),
    ("medium", re.compile(r"\bmedium\b|\bp2\b|\bmoderate\b|\bnormal\b", re.IGNORECASE)),
    ("low", re.compile(r"\blow\b|\bp3\b|\bminor\b|\btrivial\b|cosmetic", re.IGNORECASE)),
)
SEVERITIES = ("critical", "high", "medium", "low", "unrated")
_VERSION_NAMED = re.compile(
    r"(?:\bversions?\s*[:=]?\s*|\bv|@|==|\bon\s+)(\d+\.\d+(?:\.\d+)?(?:[-.](?:alpha|beta|rc|dev)\.?\d*)?)\b",
    re.IGNORECASE,
)
EXCERPT_CHARS = 600


@dataclass(frozen=True, slots=True)
class BugReport:
    """One bug from an issue tracker."""

    number: int
    title: str
    state: str
    """`open` or `closed`."""
    labels: tuple[str, ...]
    severity: str
    """One of `SEVERITIES`."""
    versions: tuple[str, ...]
    url: str
    created_at: datetime | None
    closed_at: datetime | None
    excerpt: str
    comments: int = 0
    fixed_in: str | None = None


@dataclass(frozen=True, slots=True)
class KnownIssues:
    """The report's `known_issues` block."""

    bugs_count: int
    bugs_severity: dict[str, int]
    status_breakdown: dict[str, int]
    link: str | None
    scope: str
    available: bool


def is_bug_label(label: str) -> bool:
    return bool(BUG_LABEL.search(label.strip()))


def severity_from_labels(labels: Iterable[str]) -> str:
    """The highest severity any label names, else `unrated`."""
    found = [sev for sev, rule in _SEVERITY_RULES for lab in labels if rule.search(lab)]
    for sev in SEVERITIES:
        if sev in found:
            return sev
    return "unrated"


def versions_named(text: str) -> tuple[str, ...]:
    """Version numbers named with a marker, in first-seen order, at most 10."""
    seen = dict.fromkeys(m.group(1) for m in _VERSION_NAMED.finditer(text))
    return tuple(list(seen)[:10])


def parse_github_issues(body: Any, *, bugs_only: bool = True) -> list[BugReport]:
    """
    Bugs from a GitHub issues list (`/repos/{o}/{r}/issues`) or a search answer (`{"items": [...]}`).
    With `bugs_only`, issues without a bug label are left out. Raises `ValueError` on another shape.
    """
    items = body.get("items") if isinstance(body, dict) else body
    if not isinstance(items, list):
        raise ValueError("a GitHub issues response is a JSON array (or a search object with items)")
    out: list[BugReport] = []
    for item in items:
        if not isinstance(item, dict) or "pull_request" in item:
            continue
        number = item.get("number")
        if not isinstance(number, int):
            continue
        labels = tuple(
            str(lab.get("name") if isinstance(lab, dict) else lab)
            for lab in item.get("labels") or []
            if (isinstance(lab, dict) and lab.get("name")) or isinstance(lab, str)
        )
        if bugs_only and not any(is_bug_label(lab) for lab in labels):
            continue
        title = str(item.get("title") or "").strip()
        raw_body = item.get("body")
        text = raw_body if isinstance(raw_body, str) else ""
        out.append(
            BugReport(
                number=number,
                title=title,
                state="closed" if item.get("state") == "closed" else "open",
                labels=labels,
                severity=severity_from_labels(labels),
                versions=versions_named(f"{title}\n{text}"),
                url=str(item.get("html_url") or ""),
                created_at=as_datetime(item.get("created_at")),
                closed_at=as_datetime(item.get("closed_at")),
                excerpt=" ".join(text.split())[:EXCERPT_CHARS],
                comments=int(item.get("comments") or 0)
                if isinstance(item.get("comments"), int)
                else 0,
            )
        )
    return out


def issue_refs(text: str, repo_url: str | None = None) -> set[int]:
    """Issue numbers a release note references (`#123`, `fixes #12`, or `<repo>/issues/123`)."""
    refs = {int(n) for n in re.findall(r"(?<![\w/&])#(\d{1,7})\b", text)}
    if repo_url:
        pattern = re.escape(repo_url.rstrip("/")) + r"/(?:issues|pull)/(\d{1,7})"
        refs |= {int(n) for n in re.findall(pattern, text)}
    return refs


def link_fixes(
    bugs: Sequence[BugReport],
    notes: Sequence[tuple[str, str]],
    *,
    repo_url: str | None = None,
) -> list[BugReport]:
    """
    `notes` = (version, note text) ordered oldest → newest. A closed bug referenced by a note gets
    `fixed_in` = the first such version; open bugs and unreferenced ones are unchanged.
    """
    first: dict[int, str] = {}
    for version, text in notes:
        for ref in issue_refs(text, repo_url):
            first.setdefault(ref, version)
    return [
        replace(b, fixed_in=first[b.number])
        if b.state == "closed" and b.number in first and b.fixed_in is None
        else b
        for b in bugs
    ]


def summarise(
    bugs: Sequence[BugReport], *, link: str | None, scope: str, available: bool = True
) -> KnownIssues:
    """The `known_issues` block over `bugs` (already filtered to what `scope` says)."""
    severity = Counter(b.severity for b in bugs)
    status = Counter(b.state for b in bugs)
    return KnownIssues(
        bugs_count=len(bugs),
        bugs_severity={s: severity[s] for s in SEVERITIES if severity[s]},
        status_breakdown={s: status[s] for s in ("open", "closed") if status[s]},
        link=link,
        scope=scope,
        available=available,
    )

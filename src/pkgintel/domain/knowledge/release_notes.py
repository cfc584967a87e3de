"""
Release notes as per-version sections with their breaking changes (pure: text/JSON in, values out).

Two inputs are read:
- GitHub releases (`GET /repos/{o}/{r}/releases`): one section per non-draft release, the version
  taken from the tag (`v1.2.0`, `1.2.0`, `Flurl.Http.2.4.0` for a monorepo prefix), entries from the
  Markdown body.
- Changelog files: Markdown (`## 2.3.0 - Jan 31, 2022`, `## [1.2.0] - 2020-01-01`, `# v1.0.0`) and
  reStructuredText (a heading line holding a version underlined with `=`, `-`, `~`, `^` or `*`).

An entry is breaking when it says so (`BREAKING`, "backwards incompatible"), removes something
("Remove ...", "Removed ..."), drops support ("dropped support for Ruby < 2.4"), or renames
something; every entry of a section announced as breaking ("BREAKING CHANGES" as a paragraph or
sub-heading) counts as breaking too. Major version bumps are added by `mark_major_bumps` over an
ordered list of sections. Detection is a text heuristic: it can miss a breaking change described in
plain words, and the response says where each entry came from so a reader can check it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from pkgintel.domain.json_fields import as_datetime

ORIGIN_RELEASE = "github-release"
ORIGIN_CHANGELOG = "changelog"
ORIGIN_CURATED = "curated"

_VERSION_IN_TAG = re.compile(
    r"(?:^|[-_./@v])v?(\d+(?:\.\d+)+(?:[-.+]?[0-9A-Za-z][0-9A-Za-z.+-]*)?)$"
)
_VERSION_IN_HEADING = re.compile(
    r"(?<![\w.])\[?v?(\d+\.\d+(?:\.\d+)*(?:[-.]?(?:alpha|beta|rc|pre|post|dev|a|b)\.?\d*)?)\]?(?![\w.])",
    re.IGNORECASE,
)
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^*+#`'\"])\1{2,}\s*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_BREAKING_MARK = re.compile(
    r"(?-i:\bBREAKING\b)|\bbreaking[- ]changes?\b|backwards?[- ]incompatib|"
    r"\bnot backwards?[- ]compatible\b|\bincompatible change",
    re.IGNORECASE,
)
_DROPPED = re.compile(
    r"\b(?:drop(?:s|ped)?|remove[sd]?|end(?:s|ed)?|no longer)\b[^.]{0,30}\bsupport(?:ing|ed)?\b"
    r"|\bno longer supports?\b|\brequires? (?:python|node(?:\.js)?|ruby|php|java|go|rust|dotnet|\.net) \d",
    re.IGNORECASE,
)
_REMOVAL = re.compile(
    r"^(?:\W*)(?:remove[sd]?|removal of|delete[sd]?|drop(?:s|ped)?)\b", re.IGNORECASE
)
_RENAME = re.compile(r"\brenamed?\b", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`]+")

HINTS = {
    "explicit": "The release notes call this breaking: read the linked notes before upgrading.",
    "dropped_support": "Check that your runtime and platform versions are still supported.",
    "removal": "Find what replaces the removed part (the linked notes usually say) before upgrading.",
    "rename": "Update imports, calls and configuration keys to the new name.",
    "major_bump": "A new major version: the project may break its API here; read the linked notes.",
}


@dataclass(frozen=True, slots=True)
class BreakingChange:
    """One breaking change of one version, with where it was read."""

    version: str
    text: str
    kind: str
    """`explicit`, `dropped_support`, `removal`, `rename`, `major_bump` or `curated`."""
    source_url: str
    origin: str
    """`github-release`, `changelog` or `curated`."""
    hint: str | None = None
    published_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ReleaseSection:
    """The notes of one version from one origin."""

    version: str
    title: str
    url: str
    origin: str
    published_at: datetime | None
    entries: tuple[str, ...]
    breaking: tuple[BreakingChange, ...]
    prerelease: bool = False


def version_from_tag(tag: str, package: str | None = None) -> str | None:
    """
    The version in a release tag, or None when the tag names none (or, with `package`, when the tag's
    prefix names another package of a monorepo: `Flurl.Http.2.4.0` is not a tag of `Flurl`).
    """
    tag = tag.strip()
    m = _VERSION_IN_TAG.search(tag)
    if m is None:
        return None
    prefix = tag[: m.start(1)].rstrip("-_./@v")
    if package is not None and prefix:
        norm = re.sub(r"[-_.]+", "-", package.lower().split("/")[-1])
        if re.sub(r"[-_.]+", "-", prefix.lower().split("/")[-1]) != norm:
            return None
    return m.group(1)


def classify_entry(text: str) -> str | None:
    """The breaking kind of one entry (see the module docstring), or None."""
    plain = _MARKUP.sub("", text)
    if _BREAKING_MARK.search(plain):
        return "explicit"
    if _DROPPED.search(plain):
        return "dropped_support"
    if _REMOVAL.search(plain):
        return "removal"
    if _RENAME.search(plain):
        return "rename"
    return None


def _entries(lines: Sequence[str]) -> tuple[list[str], bool]:
    """Bullet entries (continuation lines joined), other paragraphs and sub-headings as entries; and
    whether the block announces breaking changes as a whole."""
    out: list[str] = []
    announced = False
    current: list[str] | None = None
    for raw in lines:
        line = raw.rstrip()
        if not line.strip() or _RST_UNDERLINE.match(line.strip()):
            current = None
            continue
        bullet = _BULLET.match(line)
        heading = _MD_HEADING.match(line)
        if bullet:
            current = [bullet.group(2).strip()]
            out.append(current[0])
            continue
        text = heading.group(2).strip() if heading else line.strip()
        if heading and _VERSION_IN_HEADING.fullmatch(text):
            current = None
            continue
        if current is not None and not heading:
            current.append(text)
            out[-1] = " ".join(current)
            continue
        current = None
        if _BREAKING_MARK.search(_MARKUP.sub("", text)) and len(text) < 60:
            announced = True
            continue
        out.append(text)
    return [e for e in out if e], announced


def build_section(
    version: str,
    title: str,
    lines: Sequence[str],
    *,
    url: str,
    origin: str,
    published_at: datetime | None = None,
    prerelease: bool = False,
) -> ReleaseSection:
    """A section from its body lines, breaking entries detected."""
    entries, announced = _entries(lines)
    breaking: list[BreakingChange] = []
    for entry in entries:
        kind = "explicit" if announced else classify_entry(entry)
        if kind is None and announced is False:
            continue
        kind = kind or "explicit"
        breaking.append(
            BreakingChange(version, entry, kind, url, origin, HINTS[kind], published_at)
        )
    return ReleaseSection(
        version, title, url, origin, published_at, tuple(entries), tuple(breaking), prerelease
    )


def parse_github_releases(body: Any, *, package: str | None = None) -> list[ReleaseSection]:
    """
    Sections from a GitHub releases list (newest first as GitHub returns it; order is kept).

    Drafts, entries that are not objects and tags without a version are skipped. Raises `ValueError`
    when `body` is not a JSON array.
    """
    if not isinstance(body, list):
        raise ValueError("a GitHub releases response is a JSON array")
    out: list[ReleaseSection] = []
    for item in body:
        if not isinstance(item, dict) or item.get("draft"):
            continue
        tag = item.get("tag_name")
        version = version_from_tag(tag, package) if isinstance(tag, str) else None
        if version is None:
            continue
        raw_body = item.get("body")
        text = raw_body if isinstance(raw_body, str) else ""
        out.append(
            build_section(
                version,
                str(item.get("name") or tag),
                text.splitlines(),
                url=str(item.get("html_url") or ""),
                origin=ORIGIN_RELEASE,
                published_at=as_datetime(item.get("published_at") or item.get("created_at")),
                prerelease=bool(item.get("prerelease")),
            )
        )
    return out


def _heading_version(text: str) -> str | None:
    m = _VERSION_IN_HEADING.search(text)
    return m.group(1) if m else None


def _date_in(text: str) -> datetime | None:
    iso = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", text)
    if iso:
        try:
            return datetime(int(iso[1]), int(iso[2]), int(iso[3]), tzinfo=UTC)
        except ValueError:
            return None
    for fmt in ("%B %d, %Y", "%b %d, %Y", "%d %B %Y"):
        m = re.search(r"[A-Z][a-z]+ \d{1,2}, \d{4}|\d{1,2} [A-Z][a-z]+ \d{4}", text)
        if m:
            try:
                return datetime.strptime(m.group(0), fmt).replace(tzinfo=UTC)
            except ValueError:
                continue
    return None


def parse_changelog(text: str, *, url: str) -> list[ReleaseSection]:
    """
    Sections of a Markdown or reStructuredText changelog, in file order. A heading is a version
    heading when it holds a version number; the shallowest level holding one is the section level,
    deeper headings belong to their section. `url` is where the file was read (each section links it).
    """
    lines = text.splitlines()
    heads: list[tuple[int, int, str, str]] = []  # (line index, level, version, title)
    for i, line in enumerate(lines):
        md = _MD_HEADING.match(line)
        if md:
            version = _heading_version(md.group(2))
            if version:
                heads.append((i, len(md.group(1)), version, md.group(2).strip()))
            continue
        underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if (
            line.strip()
            and _RST_UNDERLINE.match(underline)
            and len(underline) >= len(line.strip()) - 1
        ):
            version = _heading_version(line)
            if version:
                level = 10 + "=-~^*+#`'\"".index(underline[0])
                heads.append((i, level, version, line.strip()))
    if not heads:
        return []
    top = min(level for _, level, _, _ in heads)
    heads = [h for h in heads if h[1] == top]
    out: list[ReleaseSection] = []
    for n, (start, _, version, title) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        body = lines[start + 1 : end]
        if top >= 10 and body and _RST_UNDERLINE.match(body[0].strip()):
            body = body[1:]
        out.append(
            build_section(
                version,
                title,
                body,
                url=url,
                origin=ORIGIN_CHANGELOG,
                published_at=_date_in(title) or _date_in(" ".join(body[:3])),
            )
        )
    return out


def _major(version: str) -> int | None:
    m = re.match(r"v?(\d+)\.", version)
    return int(m.group(1)) if m else None


def mark_major_bumps(sections: Iterable[ReleaseSection]) -> list[ReleaseSection]:
    """
    `sections` ordered oldest → newest (by the ecosystem's ordering). A section that starts a new major
    version (≥ 1) and lists no breaking entry of its own gets one `major_bump` entry.
    """
    out: list[ReleaseSection] = []
    previous: int | None = None
    for sec in sections:
        major = _major(sec.version)
        if (
            major is not None
            and previous is not None
            and major > previous
            and major >= 1
            and not sec.breaking
            and not sec.prerelease
        ):
            bump = BreakingChange(
                sec.version,
                f"New major version {sec.version} (previous major {previous}).",
                "major_bump",
                sec.url,
                sec.origin,
                HINTS["major_bump"],
                sec.published_at,
            )
            sec = replace(sec, breaking=(bump,))
        if major is not None:
            previous = major if previous is None else max(previous, major)
        out.append(sec)
    return out

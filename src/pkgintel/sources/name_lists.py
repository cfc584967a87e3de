"""
Parsers for registry name lists (pure: lines or JSON in, `NameEntry` out).

Accepted formats:
- `pypi.tsv(.gz)`: header `name, version, month, rank_among_15000_most_downloaded, summary`.
- `npm.tsv(.gz)`: header `name, version, downloads_a_month, summary`.
- Any TSV with a `name` column (optional `version`, `downloads_a_month`/`downloads`, `rank...`, `summary`).
- PyPI simple index JSON (PEP 691: `{"meta": ..., "projects": [{"name": ...}, ...]}`).
- An npm name list: a JSON array of names, or `{"rows": [{"id"|"key": name}, ...]}` (the registry's
  `_all_docs` shape), or plain text with one name per line.
- Registry-specific lists in `REGISTRY_FORMATS`, tried first for their ecosystem:
  - cargo: a crates.io API listing (`{"crates": [{"name", "max_version", "recent_downloads"}]}`) or
    the db-dump `crates.csv` (comma-separated, header with `name`, `downloads`); ranked by the
    registry's download count (90-day in the API, all-time in the dump) for typosquat targets;
  - Go: `index.golang.org/index` JSON lines (`{"Path", "Version", "Timestamp"}`, one per version;
    the newest version per module is kept);
  - Maven: `archetype-catalog.xml` (`<archetype>` groupId/artifactId/version) or `group:artifact`
    lines;
  - NuGet: catalog pages (`{"items": [{"nuget:id", "nuget:version"}]}`) or search answers
    (`{"data": [{"id", "version", "totalDownloads"}]}`, ranked by total downloads).
- RubyGems `rubygems.org/names` (compact index: a `---` line, then one name per line), Packagist
  `packages/list.json` (`{"packageNames": [...]}`), pub.dev `api/package-names`
  (`{"packages": [...], "nextUrl": ...}`) and hex.pm `api/packages?page=N` pages (a JSON array of
  package objects with `name`; pages joined into one array, e.g. `jq -s add`).
- Swift Package Index `packages.json` (a JSON array of repository URLs, keyed by
  `normalise_name`), CocoaPods `all_pods.txt` (one pod a line) and MetaCPAN release search answers
  (`{"hits": {"hits": [{"fields": {"distribution": ...}}]}}`, one or an array of scroll pages).
- Hackage `packages/` as JSON (`[{"packageName": ...}]`), CRAN `src/contrib/PACKAGES`,
  `web/packages/available_packages_by_date.html` or cranlogs `top/last-month/<n>` (ranked), and a conda channel's `channeldata.json` or
  `repodata.json`.
- Homebrew `formulae.brew.sh/api/formula.json` and `api/cask.json` (casks as `cask:<token>`), the
  Julia General registry's `Registry.toml`, and api.jsr.io `packages` pages (`@scope/name`).
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any
from xml.etree.ElementTree import ParseError

import orjson
from defusedxml import DefusedXmlException  # type: ignore[import-untyped]

from pkgintel.domain.names.rules import MAX_NAME_LENGTH, NameEntry, normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import sort_key

logger = logging.getLogger(__name__)


def _int(value: str | None) -> int | None:
    if value is None or not value.strip():
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _entry(ecosystem: Ecosystem, name: str, **kw: Any) -> NameEntry | None:
    name = name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        return None
    return NameEntry(
        ecosystem=ecosystem, name=normalise_name(ecosystem, name), display_name=name, **kw
    )


def parse_tsv(ecosystem: Ecosystem, lines: Iterable[str]) -> Iterator[NameEntry]:
    """Entries from a tab-separated list with a header line naming the columns."""
    csv.field_size_limit(1 << 20)
    reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    header = [h.strip().lower() for h in next(reader, [])]
    if "name" not in header:
        raise ValueError("TSV name list needs a header line with a 'name' column")
    col = {h: i for i, h in enumerate(header)}
    rank_col = next((i for h, i in col.items() if h.startswith("rank")), None)
    dl_col = col.get("downloads_a_month", col.get("downloads"))
    for row in reader:
        if len(row) <= col["name"]:
            continue

        def cell(i: int | None, row: list[str] = row) -> str | None:
            return row[i] if i is not None and i < len(row) and row[i] != "" else None

        entry = _entry(
            ecosystem,
            row[col["name"]],
            latest_version=cell(col.get("version")),
            monthly_downloads=_int(cell(dl_col)),
            popularity_rank=_int(cell(rank_col)),
            summary=(cell(col.get("summary")) or None),
        )
        if entry is not None:
            yield entry


def parse_json_list(ecosystem: Ecosystem, raw: bytes) -> Iterator[NameEntry]:
    """Entries from the PyPI simple index JSON, a JSON array of names, or an `_all_docs`-style object."""
    data = orjson.loads(raw)
    items: Iterable[Any]
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict) and isinstance(data.get("projects"), list):
        items = data["projects"]
    elif isinstance(data, dict) and isinstance(data.get("rows"), list):
        items = data["rows"]
    # Packagist `packages/list.json`, pub.dev `api/package-names`
    elif isinstance(data, dict) and isinstance(data.get("packageNames"), list):
        items = data["packageNames"]
    elif isinstance(data, dict) and isinstance(data.get("packages"), list):
        items = data["packages"]
    else:
        raise ValueError(
            "JSON name list: expected an array, {'projects': [...]}, {'rows': [...]}, "
            "{'packageNames': [...]} or {'packages': [...]}"
        )
    if ecosystem is Ecosystem.HEX:
        yield from _hex_packages(items)
        return
    for item in items:
        name = (
            item
            if isinstance(item, str)
            else (item.get("name") or item.get("id") or item.get("key"))
            if isinstance(item, dict)
            else None
        )
        if isinstance(name, str):
            entry = _entry(ecosystem, name)
            if entry is not None:
                yield entry


# --- cargo, go, maven, nuget name lists ------------------------------------------------------


def _newest(ecosystem: Ecosystem, found: dict[str, NameEntry], entry: NameEntry | None) -> None:
    """Keep one entry per normalised name: the one with the highest version."""
    if entry is None:
        return
    held = found.get(entry.name)
    if held is None or (
        entry.latest_version is not None
        and (
            held.latest_version is None
            or sort_key(ecosystem, entry.latest_version) >= sort_key(ecosystem, held.latest_version)
        )
    ):
        found[entry.name] = entry


def _ranked(counted: list[tuple[NameEntry, int | None]]) -> Iterator[NameEntry]:
    """The entries with `popularity_rank` by the registry's own download count (1 = most), for lists
    that carry one; entries without a count keep no rank."""
    order = sorted((c, i) for i, (_, c) in enumerate(counted) if c is not None)
    ranks = {i: n for n, (_, i) in enumerate(sorted(order, key=lambda t: (-t[0], t[1])), start=1)}
    for i, (entry, _) in enumerate(counted):
        yield replace(entry, popularity_rank=ranks[i]) if i in ranks else entry


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return _int(value) if isinstance(value, str) else None


def _cargo_names(raw: bytes) -> Iterator[NameEntry] | None:
    head = raw[:4096].lstrip()
    eco = Ecosystem.CARGO
    if head.startswith(b"{"):
        data = orjson.loads(raw)
        if not isinstance(data, dict) or not isinstance(data.get("crates"), list):
            return None
        counted: list[tuple[NameEntry, int | None]] = []
        for c in data["crates"]:
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                continue
            entry = _entry(
                eco,
                c["name"],
                latest_version=c.get("max_stable_version") or c.get("max_version"),
                summary=(c.get("description") or "").strip() or None,
            )
            if entry is not None:
                counted.append((entry, _count(c.get("recent_downloads", c.get("downloads")))))
        return _ranked(counted)
    first = head.split(b"\n", 1)[0]
    if b"," in first and b"name" in first.split(b","):
        csv.field_size_limit(1 << 24)
        reader = csv.DictReader(io.StringIO(raw.decode("utf-8", errors="replace")))
        rows: list[tuple[NameEntry, int | None]] = []
        for row in reader:
            summary = (row.get("description") or "").strip() or None
            entry = _entry(eco, row.get("name") or "", summary=summary)
            if entry is not None:
                rows.append((entry, _count(row.get("downloads"))))
        return _ranked(rows)
    return None


def _go_names(raw: bytes) -> Iterator[NameEntry] | None:
    if not raw.lstrip().startswith(b'{"Path"'):
        return None
    found: dict[str, NameEntry] = {}
    for line in raw.splitlines():
        if not line.strip():
            continue
        item = orjson.loads(line)
        if isinstance(item, dict) and isinstance(item.get("Path"), str):
            version = item.get("Version") if isinstance(item.get("Version"), str) else None
            _newest(Ecosystem.GO, found, _entry(Ecosystem.GO, item["Path"], latest_version=version))
    return iter(found.values())


def _maven_names(raw: bytes) -> Iterator[NameEntry] | None:
    if b"<archetype-catalog" not in raw[:4096]:
        return None
    from defusedxml.ElementTree import fromstring  # type: ignore[import-untyped]

    root = fromstring(raw)
    found: dict[str, NameEntry] = {}
    for node in root.iter():
        if not str(node.tag).endswith("archetype"):
            continue
        parts = {str(c.tag).rsplit("}", 1)[-1]: (c.text or "").strip() for c in node}
        if parts.get("groupId") and parts.get("artifactId"):
            _newest(
                Ecosystem.MAVEN,
                found,
                _entry(
                    Ecosystem.MAVEN,
                    f"{parts['groupId']}:{parts['artifactId']}",
                    latest_version=parts.get("version") or None,
                    summary=parts.get("description") or None,
                ),
            )
    return iter(found.values())


def _nuget_names(raw: bytes) -> Iterator[NameEntry] | None:
    if not raw.lstrip().startswith(b"{"):
        return None
    data = orjson.loads(raw)
    if not isinstance(data, dict):
        return None
    found: dict[str, NameEntry] = {}
    eco = Ecosystem.NUGET
    if isinstance(data.get("items"), list) and any(
        isinstance(i, dict) and "nuget:id" in i for i in data["items"]
    ):
        for item in data["items"]:
            if isinstance(item, dict) and isinstance(item.get("nuget:id"), str):
                version = item.get("nuget:version")
                _newest(
                    eco,
                    found,
                    _entry(
                        eco,
                        item["nuget:id"],
                        latest_version=version if isinstance(version, str) else None,
                    ),
                )
        return iter(found.values())
    if isinstance(data.get("data"), list):
        counted: list[tuple[NameEntry, int | None]] = []
        for item in data["data"]:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                version = item.get("version")
                entry = _entry(
                    eco, item["id"], latest_version=version if isinstance(version, str) else None
                )
                if entry is not None:
                    counted.append((entry, _count(item.get("totalDownloads"))))
        return _ranked(counted)
    return None


# --- CPAN (MetaCPAN release search answers) ---------------------------------------------


def _cpan_names(raw: bytes) -> Iterator[NameEntry] | None:
    """
    MetaCPAN release search answers (`/v1/release/_search?fields=distribution&q=status:latest`,
    scrolled with `size=5000`): one answer, or several joined into a JSON array (`jq -s`). Each
    hit's `fields.distribution` (or `_source.distribution`) is a name; `version` when present.
    """
    if raw.lstrip()[:1] not in (b"{", b"["):
        return None
    data = orjson.loads(raw)
    answers = data if isinstance(data, list) else [data]
    if not answers or not all(
        isinstance(a, dict) and isinstance(a.get("hits"), dict) for a in answers
    ):
        return None
    found: dict[str, NameEntry] = {}
    for answer in answers:
        for hit in answer["hits"].get("hits") or ():
            if not isinstance(hit, dict):
                continue
            doc = hit.get("fields") if isinstance(hit.get("fields"), dict) else hit.get("_source")
            if not isinstance(doc, dict):
                continue
            dist, version = doc.get("distribution"), doc.get("version")
            dist = dist[0] if isinstance(dist, list) and dist else dist
            version = version[0] if isinstance(version, list) and version else version
            if isinstance(dist, str):
                _newest(
                    Ecosystem.CPAN,
                    found,
                    _entry(
                        Ecosystem.CPAN,
                        dist,
                        latest_version=version if isinstance(version, str) else None,
                    ),
                )
    return iter(found.values())


# --- Hackage, CRAN, Conda name lists -----------------------------------------------------------

_CRAN_BY_DATE = re.compile(r'<a href="[^"]*?/web/packages/([A-Za-z][A-Za-z0-9.]*)/index\.html">')


def _hackage_names(raw: bytes) -> Iterator[NameEntry] | None:
    """Hackage `GET /packages/` as JSON: `[{"packageName": "aeson"}, ...]`."""
    if not raw.lstrip().startswith(b"["):
        return None
    data = orjson.loads(raw)
    if not isinstance(data, list) or not any(
        isinstance(i, dict) and "packageName" in i for i in data[:10]
    ):
        return None
    entries = (
        _entry(Ecosystem.HACKAGE, i["packageName"])
        for i in data
        if isinstance(i, dict) and isinstance(i.get("packageName"), str)
    )
    return (e for e in entries if e is not None)


def _cran_names(raw: bytes) -> Iterator[NameEntry] | None:
    """CRAN `src/contrib/PACKAGES` (DCF stanzas with `Package:` and `Version:`), the page
    `web/packages/available_packages_by_date.html` (one linked name per table row), or cranlogs'
    `top/last-month/<n>` (`{"downloads": [{"package", "downloads"}]}`, ranked by that count, so
    typosquat hints have popular targets)."""
    if raw.lstrip().startswith(b"{"):
        data = orjson.loads(raw)
        top = data.get("downloads") if isinstance(data, dict) else None
        if not isinstance(top, list):
            return None
        counted: list[tuple[NameEntry, int | None]] = []
        for item in top:
            if isinstance(item, dict) and isinstance(item.get("package"), str):
                entry = _entry(Ecosystem.CRAN, item["package"])
                if entry is not None:
                    counted.append((entry, _count(item.get("downloads"))))
        return _ranked(counted)
    text = raw.decode("utf-8", errors="replace")
    if text.lstrip().startswith("Package:"):
        found: dict[str, NameEntry] = {}
        for stanza in re.split(r"\n\s*\n", text):
            fields = {
                k.strip(): v.strip()
                for k, _, v in (line.partition(":") for line in stanza.splitlines())
                if k and not k[0].isspace()
            }
            if fields.get("Package"):
                _newest(
                    Ecosystem.CRAN,
                    found,
                    _entry(Ecosystem.CRAN, fields["Package"], latest_version=fields.get("Version")),
                )
        return iter(found.values())
    if "<html" in text[:2048].lower() and "/web/packages/" in text:
        names = dict.fromkeys(_CRAN_BY_DATE.findall(text))
        entries = (_entry(Ecosystem.CRAN, n) for n in names)
        return (e for e in entries if e is not None)
    return None


def _conda_names(raw: bytes) -> Iterator[NameEntry] | None:
    """A conda channel's `channeldata.json` (`{"packages": {name: {"version", "summary"}}}`) or a
    `repodata.json` (`{"packages"|"packages.conda": {file: {"name", "version"}}}`); the newest
    version per name is kept."""
    if not raw.lstrip().startswith(b"{"):
        return None
    data = orjson.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("packages"), dict):
        return None
    found: dict[str, NameEntry] = {}
    eco = Ecosystem.CONDA
    if "channeldata_version" in data or "subdirs" in data:
        for name, item in data["packages"].items():
            if isinstance(name, str) and isinstance(item, dict):
                version, summary = item.get("version"), item.get("summary")
                _newest(
                    eco,
                    found,
                    _entry(
                        eco,
                        name,
                        latest_version=version if isinstance(version, str) else None,
                        summary=summary.strip()[:500] or None if isinstance(summary, str) else None,
                    ),
                )
        return iter(found.values())
    for key in ("packages", "packages.conda"):
        files = data.get(key)
        for item in files.values() if isinstance(files, dict) else ():
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                version = item.get("version")
                _newest(
                    eco,
                    found,
                    _entry(
                        eco,
                        item["name"],
                        latest_version=version if isinstance(version, str) else None,
                    ),
                )
    return iter(found.values())


# --- Homebrew, Julia, JSR name lists ---------------------------------------------------------


def _homebrew_names(raw: bytes) -> Iterator[NameEntry] | None:
    """formulae.brew.sh `api/formula.json` (objects with `name`, `desc`, `versions.stable`),
    `api/cask.json` (objects with `token`; stored as `cask:<token>`, the name the service uses), or
    an install-analytics list `api/analytics/install/30d.json` (`{"items": [{"number", "formula"
    or "cask", "count": "1,234"}]}`: the rank and the 30-day count, read as monthly downloads, give
    typosquat checks their popularity order)."""
    head = raw.lstrip()[:1]
    if head == b"{":
        return _homebrew_analytics(orjson.loads(raw))
    if head != b"[":
        return None
    data = orjson.loads(raw)
    if not isinstance(data, list) or not any(
        isinstance(i, dict) and ("token" in i or "versions" in i) for i in data[:10]
    ):
        return None

    def entries() -> Iterator[NameEntry]:
        for item in data:
            if not isinstance(item, dict):
                continue
            token = item.get("token")
            name = f"cask:{token}" if isinstance(token, str) else item.get("name")
            if not isinstance(name, str):
                continue
            versions = item.get("versions")
            latest = versions.get("stable") if isinstance(versions, dict) else item.get("version")
            desc = item.get("desc")
            entry = _entry(
                Ecosystem.HOMEBREW,
                name,
                latest_version=latest if isinstance(latest, str) else None,
                summary=desc.strip()[:500] or None if isinstance(desc, str) else None,
            )
            if entry is not None:
                yield entry

    return entries()


def _homebrew_analytics(data: Any) -> Iterator[NameEntry] | None:
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list) or not any(
        isinstance(i, dict) and ("formula" in i or "cask" in i) for i in items[:10]
    ):
        return None
    best: dict[str, NameEntry] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        cask = item.get("cask")
        name = f"cask:{cask}" if isinstance(cask, str) else item.get("formula")
        if not isinstance(name, str):
            continue
        # `formula` may carry install options (`node --HEAD`): the first word is the formula.
        name = name.split(" ", 1)[0]
        count = _int(str(item.get("count", "")).replace(",", ""))
        rank = item.get("number") if isinstance(item.get("number"), int) else None
        entry = _entry(Ecosystem.HOMEBREW, name, monthly_downloads=count, popularity_rank=rank)
        if entry is not None and entry.name not in best:
            best[entry.name] = entry
    return iter(best.values())


def _julia_names(raw: bytes) -> Iterator[NameEntry] | None:
    """The General registry's `Registry.toml` (`[packages]`: uuid = {name, path})."""
    if b"[packages]" not in raw:
        return None
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"unreadable Registry.toml: {exc}") from exc
    table = data.get("packages")
    if not isinstance(table, dict):
        return None
    return (
        entry
        for item in table.values()
        if isinstance(item, dict) and isinstance(item.get("name"), str)
        if (entry := _entry(Ecosystem.JULIA, item["name"])) is not None
    )


def _jsr_names(raw: bytes) -> Iterator[NameEntry] | None:
    """api.jsr.io `packages?limit=&page=` pages (`{"items": [{"scope", "name", "description",
    "latestVersion"}], "total"}`; pages joined, e.g. `jq -s 'map(.items) | add'`, also accepted
    as a plain array of those objects); names become `@scope/name`."""
    head = raw.lstrip()[:1]
    if head not in (b"{", b"["):
        return None
    data = orjson.loads(raw)
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list) or not any(
        isinstance(i, dict) and "scope" in i for i in items[:10]
    ):
        return None

    def entries() -> Iterator[NameEntry]:
        for item in items:
            if not isinstance(item, dict):
                continue
            scope, name = item.get("scope"), item.get("name")
            if not isinstance(scope, str) or not isinstance(name, str):
                continue
            latest, desc = item.get("latestVersion"), item.get("description")
            entry = _entry(
                Ecosystem.JSR,
                f"@{scope}/{name}",
                latest_version=latest if isinstance(latest, str) else None,
                summary=desc.strip()[:500] or None if isinstance(desc, str) else None,
            )
            if entry is not None:
                yield entry

    return entries()


REGISTRY_FORMATS: dict[Ecosystem, Callable[[bytes], Iterator[NameEntry] | None]] = {
    # Cargo, Go, Maven, NuGet
    Ecosystem.CARGO: _cargo_names,
    Ecosystem.GO: _go_names,
    Ecosystem.MAVEN: _maven_names,
    Ecosystem.NUGET: _nuget_names,
    Ecosystem.CPAN: _cpan_names,
    # Hackage, CRAN, Conda
    Ecosystem.HACKAGE: _hackage_names,
    Ecosystem.CRAN: _cran_names,
    Ecosystem.CONDA: _conda_names,
    # Homebrew, Julia, JSR
    Ecosystem.HOMEBREW: _homebrew_names,
    Ecosystem.JULIA: _julia_names,
    Ecosystem.JSR: _jsr_names,
}
"""Per-ecosystem readers of the registry's own name-list format: each returns None when `raw` is
not its format (then the generic formats are tried)."""


def _hex_packages(items: Iterable[Any]) -> Iterator[NameEntry]:
    """
    hex.pm `api/packages` page objects (`name`, `latest_version`, `meta.description`,
    `downloads.recent` = the last 90 days). Packages are ranked by their 90-day count within
    the list (1 = most downloaded), so typosquat hints have a popularity order to work with.
    """
    rows: list[tuple[str, dict[str, Any], int | None]] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        downloads = item.get("downloads")
        recent = downloads.get("recent") if isinstance(downloads, dict) else None
        count = recent if isinstance(recent, int) and not isinstance(recent, bool) else None
        rows.append((item["name"], item, count))
    order = sorted((c, n) for n, _, c in rows if c is not None)
    rank = {n: i + 1 for i, (_, n) in enumerate(reversed(order))}
    for name, item, _ in rows:
        meta = _v if isinstance(_v := item.get("meta"), dict) else {}
        summary = meta.get("description") if isinstance(meta, dict) else None
        latest = item.get("latest_stable_version") or item.get("latest_version")
        entry = _entry(
            Ecosystem.HEX,
            name,
            latest_version=latest if isinstance(latest, str) else None,
            popularity_rank=rank.get(name),
            summary=summary.strip()[:500] or None if isinstance(summary, str) else None,
        )
        if entry is not None:
            yield entry


def parse_name_list(ecosystem: Ecosystem, raw: bytes) -> Iterator[NameEntry]:
    """Detect the format of `raw` (already decompressed) and yield its entries; raises `ValueError`."""
    reader = REGISTRY_FORMATS.get(ecosystem)
    if reader is not None:
        try:
            specific = reader(raw)
        except (orjson.JSONDecodeError, ParseError, DefusedXmlException) as exc:
            raise ValueError(f"unreadable {ecosystem.value} name list: {exc}") from exc
        if specific is not None:
            yield from specific
            return
    head = raw[:4096].lstrip()
    if head.startswith((b"[", b"{")):
        yield from parse_json_list(ecosystem, raw)
        return
    text = io.StringIO(raw.decode("utf-8", errors="replace"))
    first = text.readline()
    text.seek(0)
    if "\t" in first:
        yield from parse_tsv(ecosystem, text)
        return
    if first.strip() == "---":  # the compact index's header line (rubygems.org/names)
        text.readline()
    for line in text:
        line = line.strip()
        if line and not line.startswith("#"):
            entry = _entry(ecosystem, line)
            if entry is not None:
                yield entry

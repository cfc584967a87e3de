"""Serialise `PackageInfo` (and a downloads figure) to compact bytes for the cache and snapshot store."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus

_FORMAT = 1


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def encode_snapshot(
    info: PackageInfo, weekly_downloads: int | None, downloads_status: str, fetched_at: datetime
) -> bytes:
    """Bytes holding `info`, the weekly downloads, the downloads source state and the fetch time."""
    doc: dict[str, Any] = {
        "f": _FORMAT,
        "eco": info.ecosystem.value,
        "name": info.name,
        "latest": info.latest_version,
        "desc": info.description,
        "lic": info.license,
        "home": info.homepage,
        "repo": info.repository,
        "rel": [
            [
                r.version,
                r.published_at.isoformat() if r.published_at else None,
                r.yanked,
                r.yanked_reason,
                r.prerelease,
                r.deprecated,
            ]
            for r in info.releases
        ],
        "mnt": [[m.name, m.email, m.role] for m in info.maintainers],
        "deps": [[d.name, d.requirement, d.kind, d.marker] for d in info.dependencies],
        "depv": info.dependencies_version,
        "dep": info.deprecated,
        "depm": info.deprecated_message,
        "cls": list(info.classifiers),
        "kw": list(info.keywords),
        "x": info.extra,
        "src": [[src.name, src.kind, src.status.value, src.detail] for src in info.sources],
        "dl": weekly_downloads,
        "dls": downloads_status,
        "at": fetched_at.isoformat(),
    }
    return orjson.dumps(doc)


def decode_snapshot(raw: bytes) -> tuple[PackageInfo, int | None, str, datetime]:
    """Inverse of `encode_snapshot`; raises `ValueError` on bytes of another format."""
    doc = orjson.loads(raw)
    if not isinstance(doc, dict) or doc.get("f") != _FORMAT:
        raise ValueError("unknown snapshot format")
    info = PackageInfo(
        ecosystem=Ecosystem(doc["eco"]),
        name=doc["name"],
        latest_version=doc["latest"],
        description=doc["desc"],
        license=doc["lic"],
        homepage=doc["home"],
        repository=doc["repo"],
        releases=tuple(
            Release(v, _dt(p), bool(y), yr, bool(pre), dm) for v, p, y, yr, pre, dm in doc["rel"]
        ),
        maintainers=tuple(Maintainer(n, e, r) for n, e, r in doc["mnt"]),
        dependencies=tuple(Dependency(n, q, k, m) for n, q, k, m in doc["deps"]),
        dependencies_version=doc["depv"],
        deprecated=bool(doc["dep"]),
        deprecated_message=doc["depm"],
        classifiers=tuple(doc["cls"]),
        keywords=tuple(doc["kw"]),
        extra=dict(doc["x"]),
        sources=tuple(
            SourceStatus(n, k, SourceState(st), None, d) for n, k, st, d in doc.get("src", ())
        ),
    )
    return info, doc["dl"], doc["dls"], datetime.fromisoformat(doc["at"])

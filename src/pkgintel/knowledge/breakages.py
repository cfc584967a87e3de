"""
Curated breakages: incompatibilities between packages (or a package and a runtime) that the
packages' metadata does not declare, as data (`compat/breakages.yaml`), each with a source URL.

Entry: `ecosystem`, `package`, `versions` (range in the ecosystem's syntax), `other`,
`other_versions`, `reason`, `fix`, `source` (https URL). Read once per process.
"""

from __future__ import annotations

import functools
from importlib import resources

import yaml

from pkgintel.domain.knowledge.compat import Breakage
from pkgintel.domain.packages import Ecosystem


class BreakageDataError(ValueError):
    """The data file breaks the format above."""


@functools.cache
def load_breakages() -> tuple[Breakage, ...]:
    raw = yaml.safe_load(
        resources.files("pkgintel.knowledge")
        .joinpath("compat", "breakages.yaml")
        .read_text("utf-8")
    )
    out: list[Breakage] = []
    for i, item in enumerate(raw.get("breakages", [])):
        try:
            b = Breakage(
                ecosystem=Ecosystem(item["ecosystem"]),
                package=str(item["package"]),
                versions=str(item["versions"]),
                other=str(item["other"]),
                other_versions=str(item["other_versions"]),
                reason=" ".join(str(item["reason"]).split()),
                fix=" ".join(str(item["fix"]).split()),
                source=str(item["source"]),
            )
        except (KeyError, ValueError) as exc:
            raise BreakageDataError(f"breakage {i + 1}: {exc}") from exc
        if not b.source.startswith("https://"):
            raise BreakageDataError(f"breakage {i + 1}: source must be an https URL")
        out.append(b)
    return tuple(out)

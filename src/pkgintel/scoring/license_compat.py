"""
Licence compatibility of a dependency with the licence a project is distributed under (pure).

Both sides are parsed with `license-expression` after the same normalisation as `classify_license`.
The verdict of one dependency licence `d` inside a project licensed `p`:

| `d` is | `p` permissive / weak / proprietary | `p` GPL family | `p` AGPL |
|---|---|---|---|
| permissive | compatible (Apache-2.0 into GPL-2.0-only: incompatible; into GPL-2.0-or-later: conditional, as GPL-3.0) | compatible | compatible |
| weak copyleft (LGPL, MPL, EPL...) | conditional: keep it a separate library, share changes to its files | conditional (EPL-1.0: incompatible with the GPL) | conditional |
| strong copyleft (GPL) | incompatible: the combined work would have to be GPL | same licence or an "or later" grant reaching `p`: compatible; GPL-2.0-only with GPL-3.0: incompatible; else review | GPL-3.0 dep in AGPL-3.0: compatible (GPLv3 §13); else review |
| network copyleft (AGPL...) | incompatible | GPL-3.0: conditional (GPLv3 §13: the AGPL part keeps its network terms); else incompatible | compatible when the same |
| proprietary | review (its own terms decide) | review | review |
| unknown / absent | unknown | unknown | unknown |

`A OR B` on the dependency side takes the best alternative (the user may choose); `A AND B` the worst.
On the project side, `A OR B` takes the best alternative too (the project may be distributed under
it), with the reason naming it. Never "compatible" for a licence we cannot read.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from license_expression import (
    LicenseSymbol,
    LicenseWithExceptionSymbol,
)

from pkgintel.scoring.licenses import _licensing, _normalise, _risk_of_id

VERDICTS: Final = ("compatible", "conditional", "review", "unknown", "incompatible")
"""Best first. `review`: our rules cannot decide (custom terms, an uncommon pair)."""
_ORDER: Final = {v: i for i, v in enumerate(VERDICTS)}

COPYLEFT_FAMILIES: Final = ("AGPL", "LGPL", "GPL")
"""Families flagged in a tree (checked in this order: `LGPL-2.1` is LGPL, not GPL)."""


@dataclass(frozen=True, slots=True)
class Compatibility:
    verdict: str
    """One of `VERDICTS`."""
    reason: str


@functools.lru_cache(maxsize=4096)
def copyleft_family(expression: str | None) -> str | None:
    """`AGPL`, `LGPL` or `GPL` when any licence of the expression belongs to that family."""
    if not expression:
        return None
    ids = _ids(expression)
    if ids is None:
        text = expression.upper()
        ids = {text}
    found = {fam for i in ids for fam in COPYLEFT_FAMILIES if _family(i) == fam}
    for fam in COPYLEFT_FAMILIES:
        if fam in found:
            return fam
    return None


@functools.lru_cache(maxsize=4096)
def compatibility(dependency: str | None, project: str | None) -> Compatibility:
    """The verdict for a dependency licensed `dependency` in a project licensed `project`
    (memoised: a tree repeats a handful of licences)."""
    if not dependency or not dependency.strip():
        return Compatibility("unknown", "the dependency declares no licence")
    if not project or not project.strip():
        return Compatibility("unknown", "the project licence is not known")
    dep_tree = _parse(dependency)
    proj_tree = _parse(project)
    if dep_tree is None:
        return Compatibility("unknown", f"the dependency licence {dependency!r} cannot be read")
    if proj_tree is None:
        return Compatibility("unknown", f"the project licence {project!r} cannot be read")
    best: Compatibility | None = None
    for alt in _alternatives(proj_tree):
        got = _dep_verdict(dep_tree, alt)
        if len(_alternatives(proj_tree)) > 1:
            got = Compatibility(got.verdict, f"{got.reason} (project licence taken as {alt})")
        if best is None or _ORDER[got.verdict] < _ORDER[best.verdict]:
            best = got
    assert best is not None
    return best


@functools.lru_cache(maxsize=4096)
def _parse(expression: str) -> object | None:
    try:
        parsed: object | None = _licensing().parse(_normalise(expression.strip()[:10_000]))
    except Exception:  # the library raises many types; unparseable is "unknown"
        return None
    return parsed


def _ids(expression: str) -> set[str] | None:
    tree = _parse(expression)
    if tree is None:
        return None
    return {_key(s) for s in _symbols(tree)}


def _symbols(node: object) -> list[object]:
    if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
        return [node]
    out: list[object] = []
    for arg in getattr(node, "args", ()):
        out.extend(_symbols(arg))
    return out


def _key(symbol: object) -> str:
    if isinstance(symbol, LicenseWithExceptionSymbol):
        return str(symbol.license_symbol.key)
    return str(getattr(symbol, "key", symbol))


def _family(identifier: str) -> str | None:
    up = identifier.upper()
    for fam in COPYLEFT_FAMILIES:
        if up.startswith(fam):
            return fam
    return None


def _alternatives(node: object) -> list[str]:
    """The project's licence options: OR alternatives, each rendered (an AND stays whole)."""
    if isinstance(node, _licensing().OR):
        return [str(a.render()) for a in node.args]
    return [str(node.render())]  # type: ignore[attr-defined]


def _dep_verdict(node: object, project: str) -> Compatibility:
    licensing = _licensing()
    if isinstance(node, (LicenseSymbol, LicenseWithExceptionSymbol)):
        return _pair(node, project)
    parts = [_dep_verdict(a, project) for a in getattr(node, "args", ())]
    if not parts:
        return Compatibility("unknown", "empty licence expression")
    pick = min if isinstance(node, licensing.OR) else max
    return pick(parts, key=lambda c: _ORDER[c.verdict])


def _pair(symbol: object, project: str) -> Compatibility:
    dep_id = _key(symbol)
    dep_risk = _risk_of_id(dep_id)
    if isinstance(symbol, LicenseWithExceptionSymbol) and dep_risk in (
        "strong_copyleft",
        "network_copyleft",
    ):
        dep_risk = "weak_copyleft"
    proj_ids = _ids(project) or set()
    proj_risks = {_risk_of_id(i) for i in proj_ids}
    if dep_risk == "unknown":
        return Compatibility("unknown", f"{dep_id} is not a licence we can classify")
    if not proj_risks or "unknown" in proj_risks:
        return Compatibility("unknown", f"the project licence {project} is not one we can classify")
    if dep_risk == "proprietary":
        return Compatibility("review", f"{dep_id} has custom or non-commercial terms: read them")
    proj_gpl = {i for i in proj_ids if _family(i) == "GPL"}
    proj_agpl = {i for i in proj_ids if _family(i) == "AGPL"}
    if dep_risk == "permissive":
        if dep_id == "Apache-2.0" and "GPL-2.0-only" in proj_ids:
            return Compatibility(
                "incompatible", "Apache-2.0 is incompatible with GPL-2.0-only (FSF licence list)"
            )
        if dep_id == "Apache-2.0" and "GPL-2.0-or-later" in proj_ids:
            return Compatibility(
                "conditional", "Apache-2.0 fits GPL-2.0-or-later only when distributed as GPL-3.0"
            )
        return Compatibility("compatible", f"{dep_id} is permissive: keep its notices")
    if dep_risk == "weak_copyleft":
        if dep_id == "EPL-1.0" and (proj_gpl or proj_agpl):
            return Compatibility("incompatible", "EPL-1.0 is incompatible with the GPL")
        if dep_id in proj_ids:
            return Compatibility("compatible", f"same licence ({dep_id})")
        return Compatibility(
            "conditional",
            f"{dep_id} is weak copyleft: use it as a separate library and share changes to its files",
        )
    if dep_risk == "strong_copyleft":
        if dep_id in proj_ids:
            return Compatibility("compatible", f"same licence ({dep_id})")
        if _family(dep_id) == "GPL":
            if (proj_agpl and dep_id.startswith("GPL-3.0")) or (
                dep_id == "GPL-2.0-or-later" and proj_agpl & {"AGPL-3.0-only", "AGPL-3.0-or-later"}
            ):
                return Compatibility(
                    "compatible", "GPLv3 §13 allows combining GPL-3.0 code with AGPL-3.0"
                )
            if proj_gpl:
                return _gpl_versions(dep_id, proj_gpl)
        if proj_risks <= {"permissive", "weak_copyleft", "proprietary"}:
            return Compatibility(
                "incompatible",
                f"{dep_id} is strong copyleft: the combined work would have to be under {dep_id}",
            )
        return Compatibility("review", f"{dep_id} with {project}: not decided by our rules")
    # network copyleft
    if dep_id in proj_ids:
        return Compatibility("compatible", f"same licence ({dep_id})")
    if dep_id.startswith("AGPL-3.0") and proj_agpl:
        return Compatibility("compatible", "both AGPL-3.0")
    if dep_id.startswith("AGPL-3.0") and proj_gpl & {"GPL-3.0-only", "GPL-3.0-or-later"}:
        return Compatibility(
            "conditional",
            "GPLv3 §13 allows the combination; the AGPL part keeps its network-use terms",
        )
    if proj_risks <= {"permissive", "weak_copyleft", "proprietary", "strong_copyleft"}:
        return Compatibility(
            "incompatible",
            f"{dep_id} is network copyleft: even network use obliges releasing the source",
        )
    return Compatibility("review", f"{dep_id} with {project}: not decided by our rules")


def _gpl_versions(dep_id: str, project_gpl: set[str]) -> Compatibility:
    """GPL dependency in a GPL project: compatible when the dependency's grant reaches the project's version."""
    dep_version = dep_id.removeprefix("GPL-").split("-", 1)[0]
    later = dep_id.endswith("-or-later")
    for proj in sorted(project_gpl):
        proj_version = proj.removeprefix("GPL-").split("-", 1)[0]
        if dep_version == proj_version or (later and float(proj_version) >= float(dep_version)):
            return Compatibility("compatible", f"{dep_id} can be distributed as {proj}")
        if proj.endswith("-or-later") and float(dep_version) > float(proj_version):
            return Compatibility(
                "conditional",
                f"{dep_id} requires distributing the {proj} project as GPL-{dep_version}",
            )
    return Compatibility(
        "incompatible", f"{dep_id} and {', '.join(sorted(project_gpl))} cannot be combined"
    )

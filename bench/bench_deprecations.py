"""
Deprecated, renamed and superseded packages: is a right replacement named? (issue 32, item 7)

The measure is `bench/data/deprecations.tsv`: well-known deprecated, renamed or superseded packages
across ecosystems, each with the replacements its maintainers or ecosystem accept and a source. Its
`blind` rows (chosen by a hash of the name when the list was written, before the curated base grew)
are never tuned on; dev and blind are reported apart. `bench/data/healthy_packages.tsv` lists
maintained popular packages: none may be called in need of replacement.

How: one process, a temporary SQLite database, the shipped curated knowledge ingested, and a registry
that cannot be reached (every request fails to connect, so nothing leaves the process). Each row asks
`application.knowledge.alternatives_answer`, the function behind `/api/alternatives` and the MCP tool
`find_alternatives`. With the registry unreachable only the curated knowledge can answer, which is the
case of a registry mirror that strips npm's deprecation notice (issue 32).

A row is answered right when `needs_replacement` is true and an accepted replacement is among the
named alternatives (names compared by the ecosystem's key; a built-in replacement by its text; an
accepted name ending in `*` matches any name with that prefix). A healthy package is a false alarm
when its answer says `needs_replacement: true`.

Run: `.venv/bin/python bench/bench_deprecations.py [--show-misses]`. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from pkgintel.application.knowledge import alternatives_answer
from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True, slots=True)
class Case:
    ecosystem: Ecosystem
    package: str
    accepted: tuple[str, ...]
    split: str


def read_cases(path: Path) -> list[Case]:
    rows = [
        line.rstrip("\n").split("\t")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [
        Case(Ecosystem(r[0]), r[1], tuple(r[2].split("|")), r[3])
        for r in rows[1:]  # the header
    ]


def read_healthy(path: Path) -> list[tuple[Ecosystem, str]]:
    rows = [
        line.split("\t")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [(Ecosystem(r[0]), r[1].strip()) for r in rows[1:]]


def _key(ecosystem: Ecosystem, name: str) -> str:
    try:
        return normalise_name(ecosystem, name)
    except Exception:  # pragma: no cover - a built-in name the rules do not fold
        return name.lower()


def named_right(case: Case, named: list[str]) -> bool:
    """Whether one of the named alternatives is an accepted replacement."""
    for acc in case.accepted:
        for name in named:
            if acc.endswith("*"):
                if name.lower().startswith(acc[:-1].lower()):
                    return True
            elif name.lower() == acc.lower() or _key(case.ecosystem, name) == _key(
                case.ecosystem, acc
            ):
                return True
    return False


def _unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("registry unreachable (bench)", request=request)


async def main(show_misses: bool) -> None:
    cases = read_cases(DATA / "deprecations.tsv")
    healthy = read_healthy(DATA / "healthy_packages.tsv")
    curated = load_curated()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp}/d.db")
        transport = httpx.MockTransport(_unreachable)
        async with build_runtime(settings, transport=transport) as rt:
            assert rt.knowledge is not None
            await ingest_curated(rt.knowledge.store, curated, datetime.now(UTC))
            right = {"dev": 0, "blind": 0}
            total = {"dev": 0, "blind": 0}
            flagged = {"dev": 0, "blind": 0}
            misses: list[str] = []
            started = time.perf_counter()
            for case in cases:
                total[case.split] += 1
                try:
                    body = (await alternatives_answer(rt, case.ecosystem, case.package)).wire()
                except PkgIntelError as exc:
                    misses.append(
                        f"{case.split}\t{case.ecosystem.value}\t{case.package}\t{type(exc).__name__}"
                    )
                    continue
                named = [str(a["name"]) for a in body["alternatives"]]
                flagged[case.split] += bool(body["needs_replacement"])
                if body["needs_replacement"] and named_right(case, named):
                    right[case.split] += 1
                else:
                    misses.append(
                        f"{case.split}\t{case.ecosystem.value}\t{case.package}\tnamed {named}"
                    )
            alarms = []
            for eco, name in healthy:
                try:
                    body = (await alternatives_answer(rt, eco, name)).wire()
                except PkgIntelError:
                    continue
                if body["needs_replacement"]:
                    alarms.append(f"{eco.value}/{name}")
            elapsed = time.perf_counter() - started
    ecosystems = {a.ecosystem for a in curated.alternatives}
    print(
        f"curated: {len(curated.alternatives)} alternatives entries "
        f"({sum(a.deprecated for a in curated.alternatives)} deprecated by their maintainers) "
        f"over {len(ecosystems)} ecosystems, {len(curated.migrations)} migration paths, "
        f"{len(curated.breaking)} breaking-change versions "
        f"({sum(len(b.changes) for b in curated.breaking)} changes)"
    )
    for split in ("dev", "blind"):
        n = total[split]
        print(
            f"{split}: {right[split]}/{n} answered right ({right[split] / n:.1%}); "
            f"needs_replacement true for {flagged[split]}/{n}"
        )
    all_right, all_n = right["dev"] + right["blind"], total["dev"] + total["blind"]
    print(f"all: {all_right}/{all_n} ({all_right / all_n:.1%})")
    print(f"false alarms on {len(healthy)} healthy packages: {len(alarms)} {alarms}")
    print(f"{all_n + len(healthy)} answers in {elapsed:.1f} s")
    if show_misses:
        print("\n".join(misses))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.show_misses))

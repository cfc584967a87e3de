"""
Typosquat detection: recall on confirmed typosquats, false alarms on established names, latency.

    .venv/bin/python bench/bench_typosquat.py                 # ~1-2 min; reads ../shared/data in place
    .venv/bin/python bench/bench_typosquat.py --db /tmp/typo.db   # keep the loaded database for reruns
    .venv/bin/python bench/bench_typosquat.py --json out.json

What it measures, through the real service (`NameService.typosquat` on SQLite, the full name lists
of `../shared/data/names` loaded with `pkgintel`'s own parser):

- **Recall** on `bench/data/confirmed_typosquats.tsv`: names from public reports of confirmed
  typosquats on npm and PyPI, one source URL each. A name counts as caught when `is_suspected` is
  true. The names were removed from their registries, so most are absent from the name index and are
  judged on their shape and the target's popularity alone, as a newly published squat would be.
  Some are listed today (npm security placeholders with the typo traffic they drew since, a real
  package that took the name later); recall is reported twice: as the service answers today, and
  with every name judged as when it was first published (`lookup=False`: not in the index).
- **Ablation** of the techniques of ADR 0029: how many caught names and how many alarms each of
  them alone accounts for (the name would not be flagged with the technique off).
- **False alarms** on established names: the 1,000 most popular of npm (by monthly downloads) and of
  PyPI (by rank), npm's 20,001st-21,000th by downloads and PyPI's last 1,000 ranked names. Each set
  is measured twice:
  - *deployed*: the service as it answers (`established` rule on: real downloads or a rank exempt);
  - *model only*: the established rule switched off (`use_established=False`), so only the variant
    model and the popularity gap (measured with each name's own downloads or rank) stand between a
    name and an alarm. No list of popular names exempts anything in either mode: a name is compared
    with every other popular name, itself excluded.
- **Latency**: `GET /api/typosquat/{ecosystem}/{package}` and `POST /api/check_bulk` with 100 names,
  in process through `httpx.ASGITransport` (p50/p99 over warm calls; the first call loads the pool).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pkgintel.domain.names import normalise_name  # noqa: E402
from pkgintel.domain.packages import Ecosystem  # noqa: E402

CONFIRMED = ROOT / "bench" / "data" / "confirmed_typosquats.tsv"
TARGET_RECALL = 0.90
TARGET_ALARMS = 0.01


def read_confirmed() -> list[dict[str, str]]:
    lines = [ln for ln in CONFIRMED.read_text().splitlines() if ln and not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def read_npm(shared: Path) -> list[tuple[str, int]]:
    """(name, monthly downloads), most downloaded first."""
    out = []
    with gzip.open(shared / "names" / "npm.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) > 2 and parts[2].isdigit():
                out.append((parts[0], int(parts[2])))
    out.sort(key=lambda x: -x[1])
    return out


def read_pypi_ranked(shared: Path) -> list[tuple[str, int]]:
    """(name, rank), best rank first."""
    out = []
    with gzip.open(shared / "names" / "pypi.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) > 3 and parts[3].isdigit():
                out.append((parts[0], int(parts[3])))
    out.sort(key=lambda x: x[1])
    return out


def read_pypi_recent_unranked(shared: Path, *, rng: random.Random, count: int) -> list[str]:
    """A seeded sample of PyPI projects outside the ranking with a release in 2026: the long tail,
    registered and mostly legitimate, where the popularity gap can rarely be measured."""
    names = []
    with gzip.open(shared / "names" / "pypi.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) > 3 and not parts[3] and parts[2].startswith("2026"):
                names.append(parts[0])
    return rng.sample(names, count)


async def load(names: Any, shared: Path) -> None:
    from pkgintel.sources.name_lists import parse_name_list

    for eco, file in ((Ecosystem.NPM, "npm.tsv.gz"), (Ecosystem.PYPI, "pypi.tsv.gz")):
        state = await names.index_state(eco)
        if state is not None:
            continue
        raw = gzip.decompress((shared / "names" / file).read_bytes())
        started = time.perf_counter()
        count = await names.ingest(eco, parse_name_list(eco, raw), source=file)
        print(f"loaded {count:,} {eco.value} names in {time.perf_counter() - started:.1f} s")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def alarms(
    names: Any, eco: Ecosystem, sample: list[str], *, use_established: bool
) -> dict[str, Any]:
    flagged = []
    for name in sample:
        hint = await names.typosquat(eco, name, use_established=use_established)
        if hint.is_suspected:
            flagged.append(
                {
                    "name": name,
                    "targets": [(m.name, m.technique) for m in hint.matches if m.suspected],
                }
            )
    # Stress test of the evidence rule: the same names judged as if first published (not in the
    # index), counting only the cross-ecosystem technique, which never fires on a listed name.
    as_new, as_new_any, as_new_examples = 0, 0, []
    if use_established:
        for name in sample:
            hint = await names.typosquat(eco, name, lookup=False)
            as_new_any += hint.is_suspected
            cross = [m for m in hint.matches if m.suspected and m.technique == "cross_ecosystem"]
            as_new += bool(cross)
            if cross and len(as_new_examples) < 8:
                as_new_examples.append(f"{name} -> {cross[0].ecosystem}:{cross[0].name}")
    return {
        "n": len(sample),
        "cross_ecosystem_if_new": as_new,
        "any_if_new": as_new_any,
        "cross_ecosystem_if_new_examples": as_new_examples,
        "alarms": len(flagged),
        "rate": len(flagged) / len(sample),
        "examples": flagged[:10],
        "only_by": only_by([{t for _, t in f["targets"]} for f in flagged]),
    }


NEW_TECHNIQUES = ("cross_ecosystem", "delimiter_typo")
"""The techniques of ADR 0029, reported in the ablation."""


def only_by(technique_sets: list[set[str]]) -> dict[str, int]:
    """Ablation: how many flagged names each new technique alone flags (they would not be
    flagged with it switched off: no other technique suspects them)."""
    return {t: sum(1 for s in technique_sets if s == {t}) for t in NEW_TECHNIQUES}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import httpx

    from pkgintel.app import create_app
    from pkgintel.bootstrap import build_runtime
    from pkgintel.config import Settings

    shared = Path(args.shared)
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "typosquat.db"
    settings = Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{db}",
        log_level="warning",
        initial_ingest=False,
        bulk_hint_threshold=1_000_000,
    )
    out: dict[str, Any] = {}
    async with build_runtime(settings) as rt:
        await load(rt.names, shared)
        cold = {}
        for eco, probe_name in ((Ecosystem.NPM, "lodahs"), (Ecosystem.PYPI, "reqeusts")):
            started = time.perf_counter()
            await rt.names.typosquat(eco, probe_name)
            cold[eco.value] = (time.perf_counter() - started) * 1000
        out["cold_first_call_ms"] = cold
        npm = read_npm(shared)
        pypi = read_pypi_ranked(shared)
        tail = read_pypi_recent_unranked(shared, rng=random.Random(3), count=1000)
        sets = {
            "npm top 1,000": (Ecosystem.NPM, [n for n, _ in npm[:1000]]),
            "npm 20,001st-21,000th": (Ecosystem.NPM, [n for n, _ in npm[20000:21000]]),
            "PyPI top 1,000": (Ecosystem.PYPI, [n for n, _ in pypi[:1000]]),
            "PyPI last 1,000 ranked": (Ecosystem.PYPI, [n for n, _ in pypi[-1000:]]),
            "PyPI 1,000 unranked, released 2026": (Ecosystem.PYPI, tail),
        }
        # Recall.
        confirmed = read_confirmed()
        caught: dict[str, list[int]] = {"npm": [0, 0], "pypi": [0, 0]}
        popular_caught: dict[str, list[int]] = {"npm": [0, 0], "pypi": [0, 0]}
        pools = {
            Ecosystem.NPM: {normalise_name(Ecosystem.NPM, n) for n, _ in npm[:20000]},
            Ecosystem.PYPI: {normalise_name(Ecosystem.PYPI, n) for n, _ in pypi},
        }
        missed = []
        techniques: dict[str, int] = {}
        caught_sets: list[set[str]] = []
        as_published: tuple[list[int], list[str]] = ([0], [])
        original = 0
        original_n = sum(1 for row in confirmed if row.get("added", "") != "yes")
        for row in confirmed:
            eco = Ecosystem(row["ecosystem"])
            hint = await rt.names.typosquat(eco, row["name"])
            caught[eco.value][1] += 1
            in_pool = normalise_name(eco, row["target"]) in pools[eco]
            popular_caught[eco.value][1] += in_pool
            popular_caught[eco.value][0] += in_pool and bool(hint.is_suspected)
            fresh = await rt.names.typosquat(eco, row["name"], lookup=False)
            as_published[0][0] += bool(fresh.is_suspected)
            if not fresh.is_suspected:
                as_published[1].append(f"{eco.value}:{row['name']}")
            if hint.is_suspected:
                caught[eco.value][0] += 1
                caught_sets.append({m.technique for m in hint.matches if m.suspected})
                original += row.get("added", "") != "yes"
                first = next((m for m in hint.matches if m.suspected), None)
                if first is not None:
                    techniques[first.technique] = techniques.get(first.technique, 0) + 1
            else:
                missed.append({"ecosystem": eco.value, "name": row["name"], "why": hint.reason})
        total = sum(c for c, _ in caught.values()), sum(n for _, n in caught.values())
        ptotal = (
            sum(c for c, _ in popular_caught.values()),
            sum(n for _, n in popular_caught.values()),
        )
        out["recall"] = {
            **{eco: {"caught": c, "n": n, "rate": c / n} for eco, (c, n) in caught.items()},
            "all": {"caught": total[0], "n": total[1], "rate": total[0] / total[1]},
            "popular_target": {
                **{
                    eco: {"caught": c, "n": n, "rate": c / n}
                    for eco, (c, n) in popular_caught.items()
                },
                "all": {"caught": ptotal[0], "n": ptotal[1], "rate": ptotal[0] / ptotal[1]},
            },
            "original": {"caught": original, "n": original_n, "rate": original / original_n},
            "as_published": {
                "caught": as_published[0][0],
                "n": len(confirmed),
                "rate": as_published[0][0] / len(confirmed),
                "missed": as_published[1],
            },
            "techniques": techniques,
            "only_by": only_by(caught_sets),
            "missed": missed,
        }
        # False alarms.
        out["alarms"] = {}
        for label, (eco, sample) in sets.items():
            out["alarms"][label] = {
                "deployed": await alarms(rt.names, eco, sample, use_established=True),
                "model_only": await alarms(rt.names, eco, sample, use_established=False),
            }
        # Latency, in process.
        app = create_app(settings, runtime=rt)
        rng = random.Random(7)
        probe = list(confirmed) + [
            {"ecosystem": "npm", "name": n} for n, _ in rng.sample(npm[:20000], 60)
        ]
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench"
        ) as client:
            for row in probe[:5]:  # warm-up: pools loaded, code paths hot
                await client.get(f"/api/typosquat/{row['ecosystem']}/{row['name']}")
            single = []
            for _ in range(args.rounds):
                for row in probe:
                    name = row["name"].replace("/", "%2F")
                    started = time.perf_counter()
                    resp = await client.get(f"/api/typosquat/{row['ecosystem']}/{name}")
                    single.append((time.perf_counter() - started) * 1000)
                    assert resp.status_code == 200, resp.text
            bulk_items = [
                {"ecosystem": row["ecosystem"], "package": row["name"]} for row in probe[:100]
            ]
            bulk = []
            for _ in range(args.rounds * 10):
                started = time.perf_counter()
                resp = await client.post("/api/check_bulk", json={"items": bulk_items})
                bulk.append((time.perf_counter() - started) * 1000)
                assert resp.status_code == 200, resp.text
        out["latency_ms"] = {
            "typosquat": {"n": len(single), "p50": pct(single, 0.5), "p99": pct(single, 0.99)},
            "check_bulk_100": {"n": len(bulk), "p50": pct(bulk, 0.5), "p99": pct(bulk, 0.99)},
        }
        out["mean_single_ms"] = statistics.fmean(single)
    return out


def report(out: dict[str, Any]) -> str:
    r = out["recall"]
    lines = ["## Recall on confirmed typosquats (target >= 90 %)", ""]
    lines.append("| set | caught | names | recall | target met |")
    lines.append("|---|---:|---:|---:|---|")
    for label, rows in (("", r), ("target among the popular names: ", r["popular_target"])):
        for key in ("npm", "pypi", "all"):
            row = rows[key]
            ok = "yes" if row["rate"] >= TARGET_RECALL else "NO"
            lines.append(
                f"| {label}{key} | {row['caught']} | {row['n']} | {row['rate']:.1%} | {ok} |"
            )
    o = r["original"]
    lines.append(f"| the original 79 names | {o['caught']} | {o['n']} | {o['rate']:.1%} | - |")
    a = r["as_published"]
    ok = "yes" if a["rate"] >= TARGET_RECALL else "NO"
    lines.append(
        f"| all, judged as first published (not in the index) | {a['caught']} | {a['n']} "
        f"| {a['rate']:.1%} | {ok} |"
    )
    lines += ["", f"techniques of the first suspected target: {r['techniques']}", ""]
    lines += ["", "## Ablation: names only the new techniques flag (lost with it off)", ""]
    lines.append("| technique | recall | " + " | ".join(out["alarms"]) + " |")
    lines.append("|---|---:|" + "---:|" * len(out["alarms"]))
    for t in NEW_TECHNIQUES:
        cells = [
            f"{m['deployed']['only_by'][t]} / {m['model_only']['only_by'][t]}"
            for m in out["alarms"].values()
        ]
        lines.append(f"| {t} | {r['only_by'][t]} | " + " | ".join(cells) + " |")
    lines.append("(alarm cells: deployed / model only)")
    lines.append(
        "\nIf each name were judged as first published (not in the index), alarms by any "
        "technique / by cross_ecosystem: "
        + "; ".join(
            f"{k} {m['deployed']['any_if_new']} / {m['deployed']['cross_ecosystem_if_new']}"
            for k, m in out["alarms"].items()
        )
    )
    for k, m in out["alarms"].items():
        if m["deployed"]["cross_ecosystem_if_new_examples"]:
            lines.append(f"  {k}: " + "; ".join(m["deployed"]["cross_ecosystem_if_new_examples"]))
    if r["missed"]:
        lines.append("missed: " + ", ".join(f"{m['ecosystem']}:{m['name']}" for m in r["missed"]))
        lines.append("missed as first published: " + ", ".join(a["missed"]))
    lines += ["", "## False alarms on established names (target <= 1 %)", ""]
    lines.append("| set | deployed | model only (established rule off) | target met (deployed) |")
    lines.append("|---|---:|---:|---|")
    for label, modes in out["alarms"].items():
        d, m = modes["deployed"], modes["model_only"]
        ok = "yes" if d["rate"] <= TARGET_ALARMS else "NO"
        lines.append(
            f"| {label} | {d['alarms']}/{d['n']} ({d['rate']:.1%}) | "
            f"{m['alarms']}/{m['n']} ({m['rate']:.1%}) | {ok} |"
        )
    lines.append("")
    for label, modes in out["alarms"].items():
        ex = modes["model_only"]["examples"]
        if ex:
            lines.append(
                f"model-only alarms, {label}: "
                + "; ".join(f"{e['name']} -> {e['targets'][:2]}" for e in ex)
            )
    lat = out["latency_ms"]
    cold = ", ".join(f"{k} {v:.0f} ms" for k, v in out["cold_first_call_ms"].items())
    lines += ["", f"first call per ecosystem (loads and indexes the 20,000 popular names): {cold}"]
    lines += ["", "## Latency (in process, ms)", ""]
    lines.append("| call | n | p50 | p99 |")
    lines.append("|---|---:|---:|---:|")
    for key, row in lat.items():
        lines.append(f"| {key} | {row['n']} | {row['p50']:.2f} | {row['p99']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument(
        "--db", help="SQLite file to keep the loaded names in (reused when present)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    if not (Path(args.shared) / "names").is_dir():
        print(f"shared data not found at {args.shared}", file=sys.stderr)
        return 2
    out = asyncio.run(run(args))
    print(report(out))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

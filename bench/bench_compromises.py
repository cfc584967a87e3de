"""
Past compromises: how many well-known incidents the curated knowledge base answers right, dev and
blind, and what the base holds.

    .venv/bin/python bench/bench_compromises.py              # < 1 s, no network, no database
    .venv/bin/python bench/bench_compromises.py --json out.json

What it measures, through the service's own answer functions (`bulk_status`, the function behind
`/api/check_bulk`'s `historical_incident`, and `compromises_for`, behind the report's
`historical_compromise` and `/api/malicious`):

- **Coverage** on `bench/data/compromise_checks.tsv`: a list of well-known incidents (ecosystem,
  package, one affected release, one clean release, source) written before the base was grown and
  frozen since. A row is right when the affected release is answered `malicious` and the clean
  release is not (`historical_incident` is the right answer for it: a warning, not a verdict).
  Half the rows are `blind`: they were never used to decide what to research or add. Reported per
  split, with the two halves of "right" apart (affected flagged; clean release wrongly flagged).
- **Holdings**: incidents, affected packages, ecosystems, kinds and years of the shipped base.
- **Lookup cost**: mean time of one `compromises_for` call over every row (the index by
  (ecosystem, normalised name) is built once).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pkgintel.domain.packages import Ecosystem  # noqa: E402
from pkgintel.knowledge.compromises import compromises_for, load_incidents  # noqa: E402
from pkgintel.services.advisories.compromises import bulk_status  # noqa: E402

CHECKS = ROOT / "bench" / "data" / "compromise_checks.tsv"
TARGET_INCIDENTS = 100


def read_checks() -> list[dict[str, str]]:
    lines = [ln for ln in CHECKS.read_text().splitlines() if ln and not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def judge(row: dict[str, str]) -> dict[str, Any]:
    eco = Ecosystem(row["ecosystem"])
    bad = bulk_status(eco, row["package"], row["affected"])
    good = bulk_status(eco, row["package"], row["clean"])
    flagged = bad is not None and bad[0] == "malicious"
    false_alarm = good is not None and good[0] == "malicious"
    return {
        **row,
        "affected_status": bad[0] if bad else "none",
        "clean_status": good[0] if good else "none",
        "right": flagged and not false_alarm,
        "flagged": flagged,
        "false_alarm": false_alarm,
    }


def holdings() -> dict[str, Any]:
    incidents = load_incidents()
    packages = {(p.ecosystem.value, p.package) for i in incidents for p in i.packages}
    return {
        "incidents": len(incidents),
        "packages": len(packages),
        "affected_versions": sum(len(p.versions) for i in incidents for p in i.packages),
        "all_versions_packages": sum(1 for i in incidents for p in i.packages if p.all_versions),
        "ecosystems": dict(collections.Counter(e for e, _ in sorted(packages))),
        "incidents_by_ecosystem": dict(
            collections.Counter(
                e for i in incidents for e in sorted({p.ecosystem.value for p in i.packages})
            )
        ),
        "kinds": dict(collections.Counter(i.kind for i in incidents)),
        "years": dict(sorted(collections.Counter(i.disclosed.year for i in incidents).items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--json", type=Path, help="write the figures and every row here")
    args = parser.parse_args()

    rows = read_checks()
    started = time.perf_counter()
    load_incidents()
    compromises_for(Ecosystem.NPM, "warm-up")
    load_ms = (time.perf_counter() - started) * 1000
    judged = [judge(r) for r in rows]
    started = time.perf_counter()
    for r in rows:
        compromises_for(Ecosystem(r["ecosystem"]), r["package"], r["affected"])
    lookup_us = (time.perf_counter() - started) / max(1, len(rows)) * 1e6

    figures: dict[str, Any] = {"holdings": holdings(), "load_ms": round(load_ms, 1)}
    figures["lookup_us"] = round(lookup_us, 1)
    print(f"{'split':<6} {'right':>9} {'flagged':>9} {'false alarms':>13}")
    for split in ("dev", "blind", "all"):
        part = [j for j in judged if split == "all" or j["split"] == split]
        right = sum(j["right"] for j in part)
        flagged = sum(j["flagged"] for j in part)
        alarms = sum(j["false_alarm"] for j in part)
        figures[split] = {"rows": len(part), "right": right, "flagged": flagged, "alarms": alarms}
        print(f"{split:<6} {right:>4}/{len(part):<4} {flagged:>4}/{len(part):<4} {alarms:>8}")
    for j in judged:
        if not j["right"]:
            print(
                f"  miss [{j['split']}] {j['ecosystem']}/{j['package']}: "
                f"{j['affected']} -> {j['affected_status']}, {j['clean']} -> {j['clean_status']}"
            )
    h = figures["holdings"]
    print(
        f"base: {h['incidents']} incidents (target {TARGET_INCIDENTS}), {h['packages']} packages, "
        f"{h['affected_versions']} listed releases, ecosystems {h['incidents_by_ecosystem']}"
    )
    print(f"kinds {h['kinds']}")
    print(f"load {figures['load_ms']} ms, lookup {figures['lookup_us']} µs")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "rows": judged}, indent=2))


if __name__ == "__main__":
    main()

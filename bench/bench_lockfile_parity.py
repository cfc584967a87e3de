"""
Lockfile parity with the peers (issue 32, item 5): every OSV-Scanner/OSV-SCALIBR fixture of
`../shared/data/peer-suites/osv-lockfiles` (read in place) parsed by pkgintel and compared with
the peer's expected packages — (ecosystem, name, version), plus the dev flag where both record it
(see `tests/peer/lockfile_parity.py`). Prints the exact matches, every difference per fixture
(marked `documented` when `tests/peer/choices.py` lists it with its reason), and the rejections.
Asserts nothing; `tests/peer/test_lockfile_parity.py` is the test.

    .venv/bin/python bench/bench_lockfile_parity.py [--all]   # --all: print agreeing fixtures too
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from _common import REPO, Row, machine_info, render_table

sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))

from tests.peer.choices import LOCKFILE_DEV_FLAGS, LOCKFILE_NAMES_FROM_UNSENT_FILES, LOCKFILES
from tests.peer.lockfile_parity import Parity, compare

SHARED = Path(os.environ.get("PKGINTEL_SHARED_DATA", REPO.parent / "shared" / "data"))
ROOT = SHARED / "peer-suites" / "osv-lockfiles"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--all", action="store_true", help="also list the agreeing fixtures")
    args = parser.parse_args()
    if not (ROOT / "expectations.json").is_file():
        print(f"skipped: {ROOT / 'expectations.json'} not found (set PKGINTEL_SHARED_DATA)")
        return
    cases = json.loads((ROOT / "expectations.json").read_text(encoding="utf-8"))["cases"]
    results: list[Parity] = [
        compare(c, (ROOT / c["file"]).read_text(encoding="utf-8", errors="replace")) for c in cases
    ]
    valid = [r for r in results if not r.peer_rejects]
    invalid = [r for r in results if r.peer_rejects]
    exact = [r for r in valid if r.agrees]
    differ = [r for r in valid if not r.agrees]
    listed = LOCKFILES.keys() | LOCKFILE_DEV_FLAGS.keys()
    documented = [r for r in differ if r.case_id in listed]
    same_packages = [
        r for r in valid if r.rejected is None and not (r.missing or r.extra or r.ecosystem_differs)
    ]
    rejected = [r for r in valid if r.rejected is not None]
    lost = [
        r
        for r in valid
        if r.rejected is None and r.lost and r.case_id not in LOCKFILE_NAMES_FROM_UNSENT_FILES
    ]
    lost_unsent = [r for r in valid if r.rejected is None and r.lost and r not in lost]
    dev = [r for r in valid if r.dev_differs]
    both_reject = [r for r in invalid if r.agrees]

    print("Differences per fixture (valid fixtures the peer reads):")
    for r in sorted(differ, key=lambda r: r.case_id):
        mark = "documented" if r.case_id in listed else "UNDOCUMENTED"
        print(f"  [{mark}] {r.case_id} ({r.kind}): {r.summary()}")
    if args.all:
        print("Agreeing fixtures:")
        for r in exact:
            print(f"  {r.case_id}")
    print("Files the peer rejects that we read:")
    for r in invalid:
        if not r.agrees:
            mark = "documented" if r.case_id in LOCKFILES else "UNDOCUMENTED"
            print(f"  [{mark}] {r.case_id} ({r.kind})")
    print()
    by_kind = Counter(r.kind for r in differ)
    rows = [
        Row(
            f"valid fixtures giving the peer's (ecosystem, name, version) set (of {len(valid)})",
            f"{len(same_packages)} ({len(same_packages) / len(valid):.1%})",
        ),
        Row(
            f"valid fixtures agreeing in full, dev flag included (of {len(valid)})",
            f"{len(exact)} ({len(exact) / len(valid):.1%})",
            "every other one documented",
            len(exact) + len(documented) == len(valid),
        ),
        Row(
            "valid fixtures that differ",
            f"{len(differ)}: {len(documented)} documented, {len(differ) - len(documented)} not"
            + (f" ({', '.join(f'{k} {n}' for k, n in sorted(by_kind.items()))})" if differ else ""),
            "0 undocumented",
            len(differ) == len(documented),
        ),
        Row("valid fixtures rejected", str(len(rejected)), "0", not rejected),
        Row(
            "valid fixtures losing a package the peer finds (by name)",
            f"{len(lost)}" + (f": {', '.join(r.case_id for r in lost)}" if lost else ""),
            "0",
            not lost,
        ),
        Row(
            "  ... names only in a `-r` file that was not sent (the peer reads it from disk)",
            f"{len(lost_unsent)} fixtures; all found when the files are sent together",
        ),
        Row(
            "valid fixtures whose dev flag differs",
            str(len(dev)),
            "0 undocumented",
            all(r.case_id in LOCKFILE_DEV_FLAGS for r in dev),
        ),
        Row(
            f"files the peer rejects (of {len(invalid)}) that we reject too",
            str(len(both_reject)),
        ),
    ]
    print(render_table(rows))
    info = machine_info()
    print(f"\nmachine: {info['cpu_model']}, python {info['python']}, commit {info['git_commit']}")


if __name__ == "__main__":
    main()

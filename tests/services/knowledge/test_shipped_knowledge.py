"""
`ShippedKnowledge` on a fresh database (SQLite always, PostgreSQL when configured): the curated
sets load once per shipped revision, a changed revision reloads them, and a hand-made popularity
snapshot fills an empty name index as a *partial* index, which a registry's own list replaces.
The real shipped snapshot is checked against its sidecar.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pkgintel.domain.names.rules import SNAPSHOT_ROW_SOURCE, NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.knowledge.error_fixes import load_error_knowledge
from pkgintel.knowledge.popularity import load_snapshot, snapshot_entries
from pkgintel.knowledge.popularity.derive import round_significant
from pkgintel.knowledge.revision import curated_revision
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.worker_host import database_is_empty
from pkgintel.services.knowledge.load_state import LoadState
from pkgintel.services.knowledge.shipped import PopularitySource, ShippedKnowledge, _Stopped
from pkgintel.storage.knowledge import SqlKnowledgeStore
from pkgintel.storage.locks import load_lock
from pkgintel.storage.ops import SqlOpsStore
from tests.conftest import NOW

LABEL = "shipped snapshot 2026-11"
POPULAR = {
    Ecosystem.NPM: [("lodash", 452_000_000), ("express", 160_000_000), ("react", 200_000_000)],
    Ecosystem.PYPI: [("requests", 6), ("boto3", 1), ("numpy", 12)],
}


def _entries(eco: Ecosystem) -> list[NameEntry]:
    out = []
    for name, value in POPULAR[eco]:
        downloads = value if eco is Ecosystem.NPM else None
        rank = value if eco is Ecosystem.PYPI else None
        out.append(NameEntry(eco, name, name, None, downloads, rank, source=SNAPSHOT_ROW_SOURCE))
    return out


def _shipped(
    runtime: Runtime,
    *,
    revision: str = "rev-1",
    label: str | None = LABEL,
    state: LoadState | None = None,
) -> ShippedKnowledge:
    """A loader on the runtime's database, as a (re)started process builds it."""
    assert runtime.errors is not None and runtime.knowledge is not None
    engine = runtime.knowledge.store._engine  # type: ignore[attr-defined]
    return ShippedKnowledge(
        errors=runtime.errors,
        knowledge_store=SqlKnowledgeStore(engine),
        settings=SqlOpsStore(engine),
        names=runtime.names,
        curated=load_curated,
        revision=lambda: revision,
        popularity=(
            (lambda: PopularitySource(label, (Ecosystem.NPM, Ecosystem.PYPI), _entries))
            if label is not None
            else None
        ),
        lock=lambda name: load_lock(engine, name),
        state=state or LoadState(),
        clock=lambda: NOW,
    )


async def test_a_first_start_loads_every_curated_set_and_a_restart_does_not_reload(
    runtime: Runtime,
) -> None:
    assert runtime.knowledge is not None and runtime.errors is not None
    assert await runtime.errors.count() == 0
    first = await _shipped(runtime, label=None).ensure()
    assert first.curated == "loaded"
    assert first.counts == {
        "errors": len(load_error_knowledge()),
        "alternatives": len(load_curated().alternatives),
        "migrations": len(load_curated().migrations),
        "breaking": len(load_curated().breaking),
    }
    assert await runtime.errors.count() == len(load_error_knowledge())
    assert await runtime.knowledge.store.curated("alternatives", Ecosystem.NPM, "request")
    # A restart (a new loader, same shipped revision): one query, nothing written.
    state = LoadState()
    again = await _shipped(runtime, label=None, state=state).ensure()
    assert again.curated == "current" and again.counts == {}
    assert state.status == "ok" and state.revision == "rev-1"


async def test_a_changed_revision_reloads(runtime: Runtime) -> None:
    assert (await _shipped(runtime, label=None).ensure()).curated == "loaded"
    upgraded = await _shipped(runtime, revision="rev-2", label=None).ensure()
    assert upgraded.curated == "loaded" and upgraded.errors is not None
    assert upgraded.errors.added == 0 and upgraded.errors.removed == 0  # same files, same rows
    assert (await _shipped(runtime, revision="rev-2", label=None).ensure()).curated == "current"


async def test_two_loaders_starting_together_leave_one_consistent_load(runtime: Runtime) -> None:
    a, b = _shipped(runtime, label=None), _shipped(runtime, label=None)
    outcomes = await asyncio.gather(a.ensure(), b.ensure())
    assert sorted(o.curated for o in outcomes) in (["current", "loaded"], ["loaded", "loaded"])
    assert a.state.status == b.state.status == "ok"
    assert runtime.errors is not None
    assert await runtime.errors.count() == len(load_error_knowledge())


async def test_the_revision_covers_the_loaded_files() -> None:
    revision = curated_revision()
    assert revision.startswith("v") and len(revision.split(":")[1]) == 64


async def test_error_answers_say_unavailable_until_the_knowledge_is_loaded(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    """A runtime whose shipped knowledge never loaded: no `ok`, no miss recorded; then loaded."""
    cv2 = "ModuleNotFoundError: No module named 'cv2'"
    body = (await client.post("/api/error/resolve", json={"error": cv2})).json()
    assert body["status"] == "no_match"
    (source,) = body["_meta"]["sources"]
    assert source["status"] == "unavailable" and "no error knowledge is loaded" in source["detail"]
    assert body["miss"] == {"recorded": False, "count": None}
    assert "no match possible" in body["message"]
    state = LoadState(status="loading")
    assert runtime.errors is not None
    runtime.errors._curated_state = state
    body = (await client.post("/api/error/resolve", json={"error": cv2})).json()
    assert body["_meta"]["sources"][0]["status"] == "unavailable"
    assert "being loaded" in body["_meta"]["sources"][0]["detail"]
    await _shipped(runtime, label=None, state=state).ensure()
    body = (await client.post("/api/error/resolve", json={"error": cv2})).json()
    assert body["status"] == "match", body
    assert body["_meta"]["sources"][0]["status"] == "ok"
    assert "opencv" in body["solutions"][0]["title"].lower()


async def test_the_snapshot_fills_an_empty_index_as_a_partial_one(runtime: Runtime) -> None:
    load = await _shipped(runtime).ensure()
    assert load.popularity == {"npm": "loaded", "pypi": "loaded"}
    state = await runtime.names.index_state(Ecosystem.NPM)
    assert state is not None and state.partial and state.source == LABEL
    # An absent name is unknown, never "does not exist": the snapshot holds only popular names.
    absent = await runtime.names.exists(Ecosystem.NPM, "left-pad")
    assert absent.exists is None and "absence proves nothing" in absent.reason
    found = await runtime.names.exists(Ecosystem.NPM, "lodash")
    assert found.exists is True and "popularity snapshot" in found.reason
    hint = await runtime.names.typosquat(Ecosystem.NPM, "lodahs")
    assert hint.is_suspected and hint.status == "ok", hint.reason
    assert [n for n, _ in hint.targets] == ["lodash"]
    assert "shipped snapshot" in (hint.suspect_popularity or "")
    # The first-start ingestion still runs: the snapshot is not the registries' own lists.
    assert await database_is_empty(runtime)
    # A restart keeps it; a newer shipped snapshot replaces an older one.
    assert (await _shipped(runtime).ensure()).popularity == {
        "npm": f"kept {LABEL}",
        "pypi": f"kept {LABEL}",
    }
    newer = await _shipped(runtime, label="shipped snapshot 2027-05").ensure()
    assert newer.popularity == {"npm": "loaded", "pypi": "loaded"}


async def test_a_registry_list_replaces_the_snapshot_and_is_never_overwritten(
    runtime: Runtime,
) -> None:
    await _shipped(runtime).ensure()
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, n, n, "1.0.0") for n in ("lodash", "left-pad")],
        source="/data/npm.tsv",
    )
    state = await runtime.names.index_state(Ecosystem.NPM)
    assert state is not None and not state.partial and state.source == "/data/npm.tsv"
    entry = (await runtime.names.exists(Ecosystem.NPM, "lodash")).entry
    assert entry is not None and entry.source == "ingest" and entry.latest_version == "1.0.0"
    assert entry.monthly_downloads == 452_000_000  # the snapshot's popularity is kept
    assert (await runtime.names.exists(Ecosystem.NPM, "not-a-real-name-xyz")).exists is False
    load = await _shipped(runtime, label="shipped snapshot 2027-05").ensure()
    assert load.popularity["npm"] == "kept /data/npm.tsv"
    assert not await database_is_empty(runtime)


async def test_check_bulk_flags_typosquats_from_the_snapshot_and_claims_no_absence(
    runtime: Runtime,
) -> None:
    await _shipped(runtime).ensure()
    rows = await runtime.bulk.check(
        [
            (Ecosystem.NPM, "lodahs", None),
            (Ecosystem.PYPI, "reqeusts", None),
            (Ecosystem.NPM, "left-pad", None),
        ]
    )
    assert [r["status"] for r in rows] == ["typosquat_suspect", "typosquat_suspect", "unknown"]
    assert "shipped snapshot" in rows[2]["reason"]


async def test_a_load_stopped_at_shutdown_leaves_no_index_marked_loaded(runtime: Runtime) -> None:
    loader = _shipped(runtime)
    loader.stop()
    assert (await loader.ensure()).curated == "stopped"
    assert await runtime.names.index_states() == []
    # Stopped between two batches of an index load: the rows written stay, the index is not
    # marked loaded, and the next start loads it again.
    second = _shipped(runtime)
    entries = second._until_stopped(_entries(Ecosystem.NPM))
    await runtime.names.ingest(Ecosystem.NPM, [next(entries)], source=LABEL)
    second.stop()
    with pytest.raises(_Stopped):
        await runtime.names.ingest(Ecosystem.NPM, entries, source="x", over_partial_only=True)
    state = await runtime.names.index_state(Ecosystem.NPM)
    assert state is not None and state.names_count == 1  # only the first, complete ingest
    assert (await _shipped(runtime).ensure()).popularity["npm"] == f"kept {LABEL}"


def test_the_shipped_snapshot_matches_its_sidecar() -> None:
    snapshot = load_snapshot()
    assert snapshot.date == "2026-11" and snapshot.label() == LABEL
    assert set(snapshot.ecosystems) == {Ecosystem.NPM, Ecosystem.PYPI}
    npm = list(snapshot_entries(Ecosystem.NPM))
    pypi = list(snapshot_entries(Ecosystem.PYPI))
    assert len(npm) == snapshot.file_for(Ecosystem.NPM).names >= 20_000  # type: ignore[union-attr]
    assert len(pypi) == snapshot.file_for(Ecosystem.PYPI).names >= 14_000  # type: ignore[union-attr]
    assert all(e.monthly_downloads and e.monthly_downloads >= 1000 for e in npm)
    by_name = {e.name: e for e in npm} | {e.name: e for e in pypi}
    assert by_name["lodash"].monthly_downloads and by_name["requests"].popularity_rank
    assert all(e.summary is None and e.latest_version is None for e in npm[:100])


def test_round_significant() -> None:
    assert round_significant(452_318_999) == 452_000_000
    assert round_significant(99_950) == 100_000
    assert round_significant(1234) == 1230
    assert round_significant(999) == 999

"""Missions end to end over the API: create, run on a worker, stream, proposals, kill, flags,
budget; proposals decide/apply/revert/launch; the curator's rules."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.jobs import Worker
from tests.ops.conftest import FakeModel, wait_for


def _events(text: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, event, data) of an SSE body."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        if "event" in fields:
            out.append((fields.get("id", ""), fields["event"], json.loads(fields["data"])))
    return out


async def _asked(runtime: Runtime) -> None:
    """An agent asked about a deprecated package: its snapshot is stored."""
    snap = await runtime.packages.get_snapshot(Ecosystem.NPM, "@acme/legacy-widget")
    assert snap.info.deprecated


async def test_rule_mission_runs_streams_and_proposes(
    admin: httpx.AsyncClient, ops_runtime: Runtime, worker: Worker
) -> None:
    await _asked(ops_runtime)
    created = await admin.post(
        "/api/admin/missions", json={"profile": "deprecated-alternatives", "params": {"limit": 10}}
    )
    assert created.status_code == 201
    mission = created.json()
    assert mission["status"] == "draft" and mission["params"] == {"limit": 10}
    mid = mission["id"]
    run = await admin.post(f"/api/admin/missions/{mid}/run")
    assert run.status_code == 202 and run.json()["status"] == "queued"
    again = await admin.post(f"/api/admin/missions/{mid}/run")
    assert again.status_code == 409 and again.json()["current"] == "queued"
    job = await worker.run_one()
    assert job is not None and job.status.value == "succeeded", job and job.error
    final = (await admin.get(f"/api/admin/missions/{mid}")).json()
    assert final["status"] == "succeeded" and final["summary"]["proposals"] == 1

    body = (await admin.get(f"/api/admin/missions/{mid}/stream")).text
    events = _events(body)
    kinds = [e[1] for e in events]
    assert kinds[0] == "status" and kinds[-1] == "done"
    assert [e[2]["status"] for e in events if e[1] == "status"] == [
        "draft",
        "queued",
        "running",
        "succeeded",
    ]
    proposal = next(e[2] for e in events if e[1] == "proposal")
    assert proposal["kind"] == "alternative"
    assert proposal["payload"]["alternative"] == "@acme/widget"
    assert proposal["evidence"][0]["primary"] is True
    ids = [int(e[0]) for e in events]
    assert ids == sorted(ids)
    # Resume after the proposal: only what follows comes back.
    resume_after = next(e[0] for e in events if e[1] == "proposal")
    resumed = _events(
        (
            await admin.get(
                f"/api/admin/missions/{mid}/stream", headers={"Last-Event-ID": resume_after}
            )
        ).text
    )
    assert resumed and all(int(e[0]) > int(resume_after) for e in resumed)
    assert resumed[-1][1] == "done"

    listed = (await admin.get("/api/admin/missions/proposals/list?status=pending")).json()
    assert [p["id"] for p in listed["proposals"]] == [proposal["id"]]


async def test_llm_mission_is_killed_mid_run_and_the_worker_is_free_again(
    admin: httpx.AsyncClient, running_worker: Worker, model: FakeModel
) -> None:
    model.delay_s = 30.0
    mid = (
        await admin.post(
            "/api/admin/missions",
            json={"profile": "error-fixes", "params": {"errors": ["ERESOLVE unable to resolve"]}},
        )
    ).json()["id"]
    assert (await admin.post(f"/api/admin/missions/{mid}/run")).status_code == 202
    await asyncio.wait_for(model.started.wait(), 10)
    assert (await admin.get(f"/api/admin/missions/{mid}")).json()["status"] == "running"
    killed = await admin.post(f"/api/admin/missions/{mid}/kill")
    assert killed.status_code == 200 and killed.json()["status"] == "killed"
    job = (await admin.get(f"/api/admin/jobs/{mid}")).json()
    assert job["status"] == "killed"
    events = _events((await admin.get(f"/api/admin/missions/{mid}/stream")).text)
    assert events[-1][1] == "done" and events[-1][2]["status"] == "killed"
    assert (await admin.post(f"/api/admin/missions/{mid}/kill")).status_code == 409
    # The worker takes the next job at once.
    model.delay_s = 0.0
    model.reply = []
    nxt = (
        await admin.post(
            "/api/admin/missions",
            json={"profile": "error-fixes", "params": {"errors": ["gyp ERR! build error"]}},
        )
    ).json()["id"]
    await admin.post(f"/api/admin/missions/{nxt}/run")

    async def done() -> bool:
        return (await admin.get(f"/api/admin/jobs/{nxt}")).json()["status"] == "succeeded"

    async def idle() -> bool:
        return not running_worker.running

    await wait_for(done)
    await wait_for(idle)
    assert (await admin.get(f"/api/admin/missions/{nxt}")).json()["status"] == "succeeded"


async def test_llm_mission_charges_the_budget_and_the_cap_stops_it(
    admin: httpx.AsyncClient, worker: Worker, model: FakeModel, ops_runtime: Runtime
) -> None:
    model.reply = [
        {
            "pattern": "ERESOLVE unable to resolve dependency tree",
            "cause": "peer dependency conflict",
            "fix": "align the peer versions or pass --legacy-peer-deps",
            "source_url": "https://docs.npmjs.com/cli/v10/commands/npm-install",
        }
    ]
    mid = (
        await admin.post(
            "/api/admin/missions",
            json={"profile": "error-fixes", "params": {"errors": ["npm ERR! ERESOLVE"]}},
        )
    ).json()["id"]
    await admin.post(f"/api/admin/missions/{mid}/run")
    job = await worker.run_one()
    assert job is not None and job.status.value == "succeeded", job and job.error
    assert (job.cost_tokens, job.cost_requests) == (120, 1)
    budget = (await admin.get("/api/admin/missions/budget")).json()
    assert budget["day"]["spent"] == {"tokens": 120, "requests": 1}
    assert budget["exhausted"] is None
    proposals = (await admin.get("/api/admin/missions/proposals/list")).json()["proposals"]
    assert proposals[0]["kind"] == "error_fix" and proposals[0]["mission_id"] == mid
    # A cap of 100 tokens a day is already spent: the profile says why, and run answers 409.
    assert ops_runtime.ops is not None
    ops_runtime.ops.missions.budget.caps["day"]["tokens"] = 100
    profiles = {
        p["name"]: p for p in (await admin.get("/api/admin/missions/profiles")).json()["profiles"]
    }
    assert profiles["error-fixes"]["runnable"] is False
    assert "budget" in profiles["error-fixes"]["reason"]
    assert profiles["deprecated-alternatives"]["runnable"] is True
    blocked = (
        await admin.post(
            "/api/admin/missions", json={"profile": "error-fixes", "params": {"errors": ["x"]}}
        )
    ).json()["id"]
    resp = await admin.post(f"/api/admin/missions/{blocked}/run")
    assert resp.status_code == 409 and "budget" in resp.json()["detail"]


async def test_flags_switch_profiles_off(admin: httpx.AsyncClient) -> None:
    resp = await admin.post(
        "/api/admin/missions/flags", json={"profile": "deprecated-alternatives", "enabled": False}
    )
    assert resp.json()["flags"]["deprecated-alternatives"] is False
    mid = (
        await admin.post("/api/admin/missions", json={"profile": "deprecated-alternatives"})
    ).json()["id"]
    blocked = await admin.post(f"/api/admin/missions/{mid}/run")
    assert blocked.status_code == 409 and "flag" in blocked.json()["detail"]
    missing = await admin.post(
        "/api/admin/missions/flags", json={"profile": "nope", "enabled": True}
    )
    assert missing.status_code == 404


async def test_prompts_are_listed_and_served_raw(admin: httpx.AsyncClient) -> None:
    names = [p["name"] for p in (await admin.get("/api/admin/missions/prompts")).json()["prompts"]]
    assert names == ["breaking-changes", "error-fixes"]
    raw = await admin.get("/api/admin/missions/prompts/error-fixes/raw")
    assert raw.headers["content-type"].startswith("text/plain") and "$error" in raw.text
    assert (await admin.get("/api/admin/missions/prompts/nope/raw")).status_code == 404


async def test_llm_profiles_say_why_they_cannot_run_without_a_model(
    settings: Any, runtime: Runtime
) -> None:
    assert runtime.ops is not None
    profiles = {p["name"]: p for p in await runtime.ops.missions.list_profiles()}
    assert profiles["breaking-changes"]["runnable"] is False
    assert "PKGINTEL_UPSTREAM_LLM_URL" in profiles["breaking-changes"]["reason"]
    assert profiles["deprecated-alternatives"]["runnable"] is True


async def _proposal(runtime: Runtime, **kw: Any) -> str:
    assert runtime.ops is not None
    fields: dict[str, Any] = {
        "kind": "alternative",
        "key": "npm/@acme/legacy-widget",
        "payload": {
            "ecosystem": "npm",
            "package": "@acme/legacy-widget",
            "alternative": "@acme/widget",
        },
        "evidence": [{"url": "http://registry.test/npm/@acme%2Flegacy-widget", "primary": True}],
    }
    fields.update(kw)
    return (await runtime.ops.proposals.create(**fields)).id


async def test_approve_applies_a_versioned_revertible_entry(
    admin: httpx.AsyncClient, ops_runtime: Runtime
) -> None:
    assert ops_runtime.ops is not None
    props = ops_runtime.ops.proposals
    first = await _proposal(ops_runtime)
    resp = await admin.post(
        f"/api/admin/missions/proposals/{first}/decide",
        json={"decision": "approve", "reason": "ok"},
    )
    assert resp.status_code == 200 and resp.json()["status"] == "applied"
    assert (await props.knowledge("alternative", "npm/@acme/legacy-widget"))[
        "alternative"
    ] == "@acme/widget"
    second = await _proposal(
        ops_runtime,
        payload={"ecosystem": "npm", "package": "@acme/legacy-widget", "alternative": "widget2"},
    )
    await admin.post(f"/api/admin/missions/proposals/{second}/decide", json={"decision": "approve"})
    assert (await props.knowledge("alternative", "npm/@acme/legacy-widget"))[
        "alternative"
    ] == "widget2"
    reverted = await admin.post(
        f"/api/admin/missions/proposals/{second}/decide", json={"decision": "revert"}
    )
    assert reverted.json()["status"] == "reverted"
    assert (await props.knowledge("alternative", "npm/@acme/legacy-widget"))[
        "alternative"
    ] == "@acme/widget"
    illegal = await admin.post(
        f"/api/admin/missions/proposals/{first}/decide", json={"decision": "reject"}
    )
    assert illegal.status_code == 409 and illegal.json()["current"] == "applied"
    unknown = await admin.post(
        "/api/admin/missions/proposals/123e4567-e89b-42d3-a456-426614174000/decide",
        json={"decision": "approve"},
    )
    assert unknown.status_code == 404


async def test_launch_approves_and_a_builder_mission_applies(
    admin: httpx.AsyncClient, ops_runtime: Runtime, worker: Worker
) -> None:
    pid = await _proposal(ops_runtime)
    launched = await admin.post(f"/api/admin/missions/proposals/{pid}/launch", json={})
    assert launched.status_code == 202
    body = launched.json()
    assert body["proposal"]["status"] == "approved"
    assert body["mission"]["profile"] == "builder" and body["mission"]["status"] == "queued"
    job = await worker.run_one()
    assert job is not None and job.status.value == "succeeded", job and job.error
    applied = (await admin.get("/api/admin/missions/proposals/list?status=applied")).json()
    assert [p["id"] for p in applied["proposals"]] == [pid]


async def test_curator_rejects_duplicates_and_dead_links_and_logs_why(
    admin: httpx.AsyncClient, ops_runtime: Runtime, worker: Worker
) -> None:
    original = await _proposal(ops_runtime)
    duplicate = await _proposal(ops_runtime)
    dead = await _proposal(
        ops_runtime,
        key="npm/other",
        evidence=[{"url": "http://registry.test/npm/no-such-page", "primary": True}],
    )
    llm_made = await _proposal(
        ops_runtime,
        kind="error_fix",
        key="npm/abc",
        payload={"pattern": "x"},
        evidence=[{"url": "http://registry.test/npm/@acme%2Flegacy-widget", "primary": False}],
    )
    status = (await admin.get("/api/admin/curator/status")).json()
    assert status["enabled"] is True and status["pending"] == 4
    trig = await admin.post("/api/admin/curator/trigger")
    assert trig.status_code == 202
    job = await worker.run_one()
    assert job is not None and job.status.value == "succeeded", job and job.error
    decisions = {
        d["proposal_id"]: d
        for d in (await admin.get("/api/admin/curator/decisions")).json()["decisions"]
    }
    assert decisions[duplicate]["decision"] == "rejected"
    assert original in decisions[duplicate]["reason"]
    assert decisions[dead]["decision"] == "rejected" and "404" in decisions[dead]["reason"]
    assert decisions[llm_made]["decision"] == "left"
    assert "primary" in decisions[llm_made]["reason"]
    assert decisions[original]["decision"] in ("approved", "left")
    assert decisions[original]["reason"]
    off = (await admin.post("/api/admin/curator/toggle", json={"enabled": False})).json()
    assert off["enabled"] is False and off["next_run"] is None
    interval = (await admin.post("/api/admin/curator/interval", json={"seconds": 60})).json()
    assert interval["interval_s"] == 60


async def test_a_stopping_worker_fails_a_running_mission_instead_of_leaving_it(
    admin: httpx.AsyncClient, worker: Worker, model: FakeModel
) -> None:
    model.delay_s = 30.0
    mid = (
        await admin.post(
            "/api/admin/missions", json={"profile": "error-fixes", "params": {"errors": ["E"]}}
        )
    ).json()["id"]
    await admin.post(f"/api/admin/missions/{mid}/run")
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    await asyncio.wait_for(model.started.wait(), 10)
    stop.set()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    job = (await admin.get(f"/api/admin/jobs/{mid}")).json()
    assert job["status"] == "failed" and "stopped" in job["error"]
    mission = (await admin.get(f"/api/admin/missions/{mid}")).json()
    assert mission["status"] == "failed"


async def test_curator_checks_the_suggested_package_through_our_own_report(
    admin: httpx.AsyncClient, ops_runtime: Runtime
) -> None:
    from pkgintel.services.operations.curator import Curator

    ops = ops_runtime.ops
    assert ops is not None
    ids = {
        alt: await _proposal(
            ops_runtime,
            key=f"npm/old-{alt}",
            payload={"ecosystem": "npm", "package": f"old-{alt}", "alternative": alt},
        )
        for alt in ("tiny-lib", "@acme/widget", "no-such-pkg-xyz")
    }
    # The bars sit just above and just below tiny-lib's own score in the replayed registry.
    from pkgintel.domain.packages import Ecosystem

    score = (await ops_runtime.reports.get_report(Ecosystem.NPM, "tiny-lib")).health.score
    base = ops.curator
    strict, lenient = (
        Curator(
            ops.store,
            ops.queue,
            ops.proposals,
            base._links,
            base._report,
            enabled=True,
            interval_s=60,
            min_health=bar,
        )
        for bar in (score + 1, score - 1)
    )
    assert await strict.run_once() == {"approved": 0, "rejected": 1, "left": 2}
    assert await lenient.run_once() == {"approved": 1, "rejected": 0, "left": 1}
    by_id = {}
    for d in (await admin.get("/api/admin/curator/decisions?limit=10")).json()["decisions"]:
        by_id.setdefault(d["proposal_id"], []).append(d)
    assert "does not exist" in by_id[ids["no-such-pkg-xyz"]][0]["reason"]
    assert "deprecated too" in by_id[ids["@acme/widget"]][0]["reason"]
    assert [d["decision"] for d in by_id[ids["tiny-lib"]]] == ["approved", "left"]
    assert f"health {score} < {score + 1}" in by_id[ids["tiny-lib"]][1]["reason"]
    applied = await ops.proposals.get(ids["tiny-lib"])
    assert applied.status.value == "applied" and applied.decided_by == "curator"

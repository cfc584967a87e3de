"""The admin surface: closed by default (404 everywhere), 401/403 problems, audit log, cron over HTTP."""

from __future__ import annotations

import re

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.jobs import Worker
from tests.ops.conftest import AUTH

UUID = "123e4567-e89b-42d3-a456-426614174000"


def _admin_calls(app_settings: Settings) -> list[tuple[str, str]]:
    """(method, concrete path) of every admin route in the OpenAPI description."""
    spec = create_app(app_settings).openapi()
    calls = []
    for path, methods in spec["paths"].items():
        if not path.startswith("/api/admin/"):
            continue
        concrete = re.sub(r"\{(mission_id|proposal_id)\}", UUID, path)
        concrete = re.sub(r"\{[a-z_]+\}", "warm-cache", concrete)
        calls.extend((m.upper(), concrete) for m in methods)
    return calls


async def test_every_admin_path_is_404_without_a_configured_token(
    settings: Settings, runtime: Runtime
) -> None:
    calls = _admin_calls(settings)
    assert len(calls) >= 25
    app = create_app(settings, runtime=runtime)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        for method, path in calls:
            for headers in ({}, AUTH):
                resp = await c.request(method, path, headers=headers, json={})
                assert resp.status_code == 404, (method, path, resp.text)
                assert resp.json() == {"detail": "Not Found"}  # same as a path that does not exist


async def test_token_configured_no_bearer_is_401_and_wrong_bearer_403(
    ops_settings: Settings, ops_runtime: Runtime
) -> None:
    app = create_app(ops_settings, runtime=ops_runtime)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        for method, path in _admin_calls(ops_settings):
            missing = await c.request(method, path, json={})
            assert missing.status_code == 401, (method, path)
            assert missing.headers["content-type"] == "application/problem+json"
            assert missing.headers["www-authenticate"].startswith("Bearer")
            wrong = await c.request(
                method, path, json={}, headers={"Authorization": "Bearer not-it"}
            )
            assert wrong.status_code == 403, (method, path)
            basic = await c.request(method, path, headers={"Authorization": "Basic eDp5"})
            assert basic.status_code == 401
        ok = await c.get("/api/admin/cron/list", headers=AUTH)
        assert ok.status_code == 200
        audit = (await c.get("/api/admin/audit", headers=AUTH)).json()["entries"]
    actors = {e["actor"] for e in audit}
    assert {"anonymous", "wrong-token", "admin-token"} <= actors
    assert audit[0]["path"] == "/api/admin/cron/list" and audit[0]["status"] == 200
    assert all("not-it" not in e["path"] for e in audit)


async def test_bad_input_is_422_never_500(admin: httpx.AsyncClient) -> None:
    assert (await admin.get("/api/admin/missions/not-a-uuid")).status_code == 422
    assert (await admin.get("/api/admin/missions?limit=0")).status_code == 422
    assert (await admin.post("/api/admin/missions", json={"profile": ""})).status_code == 422
    bad = await admin.post("/api/admin/missions", json={"profile": "nope"})
    assert bad.status_code == 422
    assert (await admin.get("/api/admin/cron/log/warm-cache?lines=0")).status_code == 422
    assert (await admin.get("/api/admin/agents-by-range?bucket=year")).status_code == 422
    early = await admin.get("/api/admin/agents-by-range?until=0001-01-02T00:00:00Z")
    assert early.status_code == 422
    backwards = "/api/admin/agents-by-range?since=2026-02-01T00:00:00&until=2026-01-01T00:00:00Z"
    assert (await admin.get(backwards)).status_code == 422
    assert (await admin.post("/api/admin/curator/interval", json={"seconds": 1})).status_code == 422


async def test_unknown_cron_slug_is_404(
    admin: httpx.AsyncClient,
) -> None:
    for slug in ("rm-rf",):
        for method, path in (
            ("POST", f"/api/admin/cron/run/{slug}"),
            ("GET", f"/api/admin/cron/log/{slug}"),
        ):
            resp = await admin.request(method, path)
            assert resp.status_code == 404, (method, path)
            assert resp.json()["type"].endswith("/not-found")


async def test_cron_run_from_the_api_shows_status_and_log(
    admin: httpx.AsyncClient, worker: Worker, tmp_path: object
) -> None:
    listed = (await admin.get("/api/admin/cron/list")).json()["jobs"]
    assert [j["slug"] for j in listed] == [
        "ingest-advisories",
        "ingest-kev-epss",
        "ingest-names",
        "warm-cache",
        "harvest-changelogs",
        "harvest-bugs",
        "usage-retention",
        "contact-retention",
        "health-snapshots",
        "job-retention",
    ]
    assert all(j["next_run"] and j["last_run"] is None for j in listed)
    started = await admin.post("/api/admin/cron/run/warm-cache")
    assert started.status_code == 202
    job_id = started.json()["job_id"]
    done = await worker.run_one()
    assert done is not None and done.id == job_id
    assert done.status.value == "succeeded", done.error
    log = (await admin.get("/api/admin/cron/log/warm-cache?lines=10")).json()
    assert log["job_id"] == job_id and log["status"] == "succeeded"
    assert any("started on" in line for line in log["lines"])
    assert log["lines"][-1].endswith("succeeded")
    warm = next(
        j
        for j in (await admin.get("/api/admin/cron/list")).json()["jobs"]
        if j["slug"] == "warm-cache"
    )
    assert warm["last_status"] == "succeeded" and warm["last_job_id"] == job_id
    assert warm["last_duration_s"] is not None


async def test_agents_by_range_counts_calls_from_the_usage_log(admin: httpx.AsyncClient) -> None:
    for agent in ("claude-code/1.0.3", "claude-code/1.0.3", "GitHub-Actions/2.3"):
        await admin.get("/api/exists/npm/tiny-lib", headers={"User-Agent": agent})
    resp = await admin.get("/api/admin/agents-by-range?bucket=hour")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    totals = {c: sum(b[c] for b in body["buckets"]) for c in body["classes"]}
    assert totals["ai_agent"] == 2 and totals["ci"] == 1
    week = (await admin.get("/api/admin/agents-by-range?bucket=week")).json()
    assert sum(b["ai_agent"] for b in week["buckets"]) == 2


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("claude-code/1.0.3", "ai_agent"),
        ("Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "ai_agent"),
        ("GitHub-Actions/2.3", "ci"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1)", "crawler"),
        ("Mozilla/5.0 (X11; Linux x86_64) Firefox/131.0", "browser"),
        ("python-httpx/0.28", "other"),
        (None, "other"),
    ],
)
def test_user_agent_classes(agent: str | None, expected: str) -> None:
    from pkgintel.domain.operations.ops import classify_user_agent

    assert classify_user_agent(agent) == expected


async def test_knowledge_cron_jobs_run_on_the_usage_log(
    admin: httpx.AsyncClient, worker: Worker
) -> None:
    """harvest-changelogs works from the packages asked about (none here: nothing to harvest), and
    usage-retention prunes the usage log; both report what they did."""
    await admin.get("/api/exists/npm/tiny-lib")
    for slug, key in (("harvest-changelogs", "packages"), ("usage-retention", "removed")):
        started = await admin.post(f"/api/admin/cron/run/{slug}")
        assert started.status_code == 202
        done = await worker.run_one()
        assert done is not None and done.id == started.json()["job_id"]
        assert done.status.value == "succeeded", done.error
        assert key in (done.result or {})


async def test_contact_requests_are_listed_for_the_admin_and_pruned_by_their_job(
    admin: httpx.AsyncClient, worker: Worker
) -> None:
    """The admin list is the one place the message and reply address are shown; the
    contact-retention job runs and reports what it removed."""
    sent = await admin.post(
        "/api/contact",
        json={"type": "security", "message": "An XSS in the badge label.", "email": "a@b.example"},
    )
    assert sent.status_code == 201
    assert "a@b.example" not in sent.text  # not echoed to the sender
    listed = (await admin.get("/api/admin/contact?type=security")).json()["requests"]
    assert [r["id"] for r in listed] == [sent.json()["id"]]
    assert listed[0]["email"] == "a@b.example" and listed[0]["source"] == "api"
    assert listed[0]["message"] == "An XSS in the badge label." and len(listed[0]["client"]) == 32
    assert (await admin.get("/api/admin/contact?type=feature")).json()["requests"] == []
    assert (await admin.get("/api/admin/contact?type=bogus")).status_code == 422
    started = await admin.post("/api/admin/cron/run/contact-retention")
    assert started.status_code == 202
    done = await worker.run_one()
    assert done is not None and done.status.value == "succeeded", done.error
    assert done.result == {"removed": 0}  # the request is younger than the retention period

"""`OsvApiClient` against `httpx.MockTransport`: querybatch paging, record fetches, error mapping."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid, RegistryUnavailable
from pkgintel.sources import osv_api
from pkgintel.sources.errors import AdvisoryNotFound
from pkgintel.sources.osv_api import OsvApiClient

BASE = "https://osv.example"
Handler = Callable[[httpx.Request], httpx.Response | Awaitable[httpx.Response]]


@pytest.fixture(autouse=True)
def no_retry_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(osv_api, "RETRY_WAIT_MIN_S", 0.0)
    monkeypatch.setattr(osv_api, "RETRY_WAIT_MAX_S", 0.0)


class Recorder:
    """Wraps a handler and keeps every request (with its JSON body, if any)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[httpx.Request] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = self.handler(request)
        return await response if isinstance(response, Awaitable) else response

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) for r in self.requests if r.method == "POST"]


async def run(handler: Handler, call: Callable[[OsvApiClient], Awaitable[Any]], **kw: Any) -> Any:
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        return await call(OsvApiClient(client, kw.pop("base_url", BASE), **kw))


def osv_record(vuln_id: str) -> dict[str, Any]:
    return {
        "schema_version": "1.6.0",
        "id": vuln_id,
        "modified": "2024-05-01T10:00:00Z",
        "aliases": ["CVE-2024-0001"],
        "summary": f"summary of {vuln_id}",
        "affected": [
            {
                "package": {"ecosystem": "PyPI", "name": "jinja2"},
                "ranges": [
                    {"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "3.0"}]}
                ],
            }
        ],
    }


def vulns(*ids: str) -> list[dict[str, str]]:
    return [{"id": vuln_id, "modified": "2024-05-01T10:00:00Z"} for vuln_id in ids]


# --- query_batch ------------------------------------------------------------------------------


async def test_query_batch_follows_each_querys_page_token() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url == f"{BASE}/v1/querybatch"
        queries = json.loads(request.content)["queries"]
        if all("page_token" not in q for q in queries):
            return httpx.Response(
                200,
                json={
                    "results": [
                        {"vulns": vulns("GHSA-a", "PYSEC-b"), "next_page_token": "t1"},
                        {},
                        {"vulns": vulns("RUSTSEC-c"), "next_page_token": "u1"},
                    ]
                },
            )
        tokens = [q["page_token"] for q in queries]
        if tokens == ["t1", "u1"]:
            return httpx.Response(
                200,
                json={
                    "results": [
                        {"vulns": vulns("PYSEC-b", "GHSA-d"), "next_page_token": "t2"},
                        {"vulns": []},
                    ]
                },
            )
        assert tokens == ["t2"]
        return httpx.Response(200, json={"results": [{"vulns": vulns("GHSA-e")}]})

    recorder = Recorder(handler)
    ids = await run(
        recorder,
        lambda osv: osv.query_batch(
            [
                ("PyPI", "jinja2", "2.4.1"),
                ("npm", "left-pad", None),
                ("crates.io", "smallvec", "1.0.0"),
            ]
        ),
    )
    assert ids == [["GHSA-a", "PYSEC-b", "GHSA-d", "GHSA-e"], [], ["RUSTSEC-c"]]
    first, second, third = recorder.bodies()
    assert first["queries"] == [
        {"package": {"ecosystem": "PyPI", "name": "jinja2"}, "version": "2.4.1"},
        {"package": {"ecosystem": "npm", "name": "left-pad"}},  # no version: every version
        {"package": {"ecosystem": "crates.io", "name": "smallvec"}, "version": "1.0.0"},
    ]
    assert second["queries"][0] == {
        "package": {"ecosystem": "PyPI", "name": "jinja2"},
        "version": "2.4.1",
        "page_token": "t1",
    }
    assert [q["package"]["name"] for q in third["queries"]] == ["jinja2"]
    assert recorder.requests[0].headers["content-type"] == "application/json"


async def test_query_batch_splits_at_the_api_limit() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        queries = json.loads(request.content)["queries"]
        return httpx.Response(
            200, json={"results": [{"vulns": vulns(f"ID-{q['package']['name']}")} for q in queries]}
        )

    recorder = Recorder(handler)
    queries = [("npm", f"p{i}", "1.0.0") for i in range(osv_api.MAX_BATCH + 1)]
    ids = await run(recorder, lambda osv: osv.query_batch(queries))
    assert [len(body["queries"]) for body in recorder.bodies()] == [osv_api.MAX_BATCH, 1]
    assert ids[0] == ["ID-p0"]
    assert ids[-1] == [f"ID-p{osv_api.MAX_BATCH}"]


async def test_query_batch_of_nothing_sends_nothing() -> None:
    recorder = Recorder(lambda _: httpx.Response(500))
    assert await run(recorder, lambda osv: osv.query_batch([])) == []
    assert recorder.requests == []


async def test_endless_pagination_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(osv_api, "MAX_PAGES", 3)
    recorder = Recorder(
        lambda _: httpx.Response(200, json={"results": [{"vulns": [], "next_page_token": "again"}]})
    )
    with pytest.raises(RegistryResponseInvalid) as caught:
        await run(recorder, lambda osv: osv.query_batch([("Go", "example.com/m", None)]))
    assert caught.value.reason == "pagination"
    assert caught.value.ecosystem == "Go"
    assert len(recorder.requests) == 3


# --- error mapping ----------------------------------------------------------------------------


async def test_503_is_retried_once_then_unavailable() -> None:
    recorder = Recorder(lambda _: httpx.Response(503, headers={"Retry-After": "30"}))
    with pytest.raises(RegistryUnavailable) as caught:
        await run(recorder, lambda osv: osv.query_batch([("PyPI", "jinja2", "2.4.1")]))
    error = caught.value
    assert (error.reason, error.retry_after, error.source, error.ecosystem) == (
        "status.503",
        30,
        "osv.example",
        "PyPI",
    )
    assert len(recorder.requests) == 2


async def test_503_then_success_recovers() -> None:
    answers = iter(
        [httpx.Response(503), httpx.Response(200, json={"results": [{"vulns": vulns("X-1")}]})]
    )
    recorder = Recorder(lambda _: next(answers))
    ids = await run(recorder, lambda osv: osv.query_batch([("PyPI", "jinja2", None)]))
    assert ids == [["X-1"]]


async def test_429_and_500_are_unavailable_without_retry() -> None:
    for status in (429, 500):
        recorder = Recorder(lambda _, status=status: httpx.Response(status))
        with pytest.raises(RegistryUnavailable, match=f"HTTP {status}"):
            await run(recorder, lambda osv: osv.get_vuln("GHSA-a"))
        assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    ("error", "reason", "attempts"),
    [
        (httpx.ConnectError("refused"), "connect", 2),
        (httpx.ReadTimeout("slow"), "timeout", 1),
        (httpx.ConnectTimeout("slow"), "timeout", 2),
    ],
)
async def test_transport_failures_are_unavailable(
    error: httpx.TransportError, reason: str, attempts: int
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    recorder = Recorder(handler)
    with pytest.raises(RegistryUnavailable) as caught:
        await run(recorder, lambda osv: osv.query_batch([("npm", "x", "1")]))
    assert caught.value.reason == reason
    assert len(recorder.requests) == attempts


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (httpx.Response(200, content=b"<html>oops</html>"), "invalid_json"),
        (httpx.Response(200, json=[{"vulns": []}]), "invalid_json"),
        (httpx.Response(200, json={"results": []}), "invalid_shape"),  # one query, no result
        (httpx.Response(200, json={}), "invalid_shape"),
        (httpx.Response(200, json={"results": ["GHSA-a"]}), "invalid_shape"),
        (httpx.Response(400, json={"code": 3, "message": "bad"}), "status.400"),
    ],
)
async def test_bad_querybatch_answers_are_invalid(response: httpx.Response, reason: str) -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await run(lambda _: response, lambda osv: osv.query_batch([("npm", "x", "1")]))
    assert caught.value.reason == reason


async def test_invalid_json_vuln_record() -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        await run(lambda _: httpx.Response(200, content=b"{not json"), lambda o: o.get_vuln("A-1"))
    assert caught.value.reason == "invalid_json"
    assert caught.value.ecosystem == "osv"


# --- get_vuln ---------------------------------------------------------------------------------


async def test_get_vuln_quotes_the_id_and_honours_a_mirror_prefix() -> None:
    recorder = Recorder(lambda _: httpx.Response(200, json=osv_record("GO-2024/1 x")))
    record = await run(
        recorder, lambda osv: osv.get_vuln("GO-2024/1 x"), base_url="http://mirror.local/osv/"
    )
    assert record["id"] == "GO-2024/1 x"
    (request,) = recorder.requests
    assert request.method == "GET"
    assert request.url.raw_path == b"/osv/v1/vulns/GO-2024%2F1%20x"
    assert request.url.host == "mirror.local"


async def test_get_vuln_404_is_advisory_not_found() -> None:
    with pytest.raises(AdvisoryNotFound) as caught:
        await run(lambda _: httpx.Response(404, json={"code": 5}), lambda o: o.get_vuln("GHSA-zz"))
    assert (caught.value.source, caught.value.advisory_id) == ("osv.example", "GHSA-zz")


# --- advisories_for ---------------------------------------------------------------------------


async def test_advisories_for_fetches_and_parses_each_id() -> None:
    ids = ["GHSA-a", "GONE-1", "PYSEC-b", "NOID-1"]

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, json={"results": [{"vulns": vulns(*ids)}]})
        vuln_id = request.url.path.rsplit("/", 1)[-1]
        if vuln_id == "GONE-1":
            return httpx.Response(404)
        if vuln_id == "NOID-1":
            return httpx.Response(200, json={"summary": "a record without an id"})
        return httpx.Response(200, json=osv_record(vuln_id))

    recorder = Recorder(handler)
    advisories = await run(recorder, lambda osv: osv.advisories_for("PyPI", "jinja2", "2.4.1"))
    assert [a.id for a in advisories] == ["GHSA-a", "PYSEC-b"]  # API order; unusable ids skipped
    assert {a.source for a in advisories} == {"api.osv.dev"}
    assert advisories[0].aliases == ("CVE-2024-0001",)
    assert advisories[0].affected[0].name == "jinja2"
    assert recorder.bodies() == [
        {"queries": [{"package": {"ecosystem": "PyPI", "name": "jinja2"}, "version": "2.4.1"}]}
    ]
    assert len(recorder.requests) == 1 + len(ids)


async def test_advisories_for_without_vulns_fetches_nothing() -> None:
    recorder = Recorder(lambda _: httpx.Response(200, json={"results": [{}]}))
    assert await run(recorder, lambda osv: osv.advisories_for("npm", "left-pad", "1.3.0")) == []
    assert len(recorder.requests) == 1


async def test_advisories_for_bounds_concurrency() -> None:
    ids = [f"GHSA-{i}" for i in range(20)]
    in_flight = peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        if request.method == "POST":
            return httpx.Response(200, json={"results": [{"vulns": vulns(*ids)}]})
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.005)
        in_flight -= 1
        return httpx.Response(200, json=osv_record(request.url.path.rsplit("/", 1)[-1]))

    advisories = await run(
        handler, lambda osv: osv.advisories_for("npm", "x", None), max_concurrency=3
    )
    assert [a.id for a in advisories] == ids
    assert peak == 3


async def test_advisories_for_propagates_an_unavailable_record_fetch() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, json={"results": [{"vulns": vulns("A-1", "A-2")}]})
        if request.url.path.endswith("A-2"):
            return httpx.Response(502)
        return httpx.Response(200, json=osv_record("A-1"))

    with pytest.raises(RegistryUnavailable) as caught:
        await run(handler, lambda osv: osv.advisories_for("npm", "x", "1.0.0"))
    assert caught.value.reason == "status.502"


def test_max_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        OsvApiClient(None, max_concurrency=0)  # type: ignore[arg-type]

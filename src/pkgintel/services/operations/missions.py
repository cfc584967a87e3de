"""
Missions: curation tasks run as jobs with a profile, streaming events and producing proposals.

Statuses `draft → queued → running → succeeded | failed | killed` (`domain/operations/ops.py`); any other move
is `IllegalTransition` (409). A mission's job has the mission's id, so its events (`status`, `log`,
`proposal`, `done`) are one stream with monotonic ids (`Last-Event-ID` resumes it).

Profiles are data (`knowledge/missions/profiles.yaml`): a `rule` profile runs a function of
`services/operations/mission_rules.py`; an `llm` profile needs the OpenAI-compatible model setting and
otherwise says why it cannot run. Flags switch profiles off; the budget caps tokens and model
requests per UTC day and month and stops missions that reach it.
"""

from __future__ import annotations

import asyncio
import builtins
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.operations.ops import (
    IllegalTransition,
    Job,
    JobEvent,
    JobStatus,
    Mission,
    MissionStatus,
    OpsNotFound,
    OpsUnavailable,
    Proposal,
    check_mission_move,
)
from pkgintel.services.operations.jobs import Clock, JobContext, JobKind, JobQueue, utcnow
from pkgintel.services.operations.proposals import ProposalService, proposal_wire
from pkgintel.storage.ops_base import OpsStore

MISSION_JOB = "mission"
STREAM_KINDS = ("status", "log", "proposal", "done")


class ChatReply(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def tokens(self) -> int: ...


class ChatModel(Protocol):
    """An LLM behind an OpenAI-compatible API (`sources/llm.py`)."""

    model: str

    async def complete(self, prompt: str) -> ChatReply: ...


class LinkChecker(Protocol):
    async def check(self, url: str) -> str | None:
        """None when alive, `dead: ...` when gone, `unknown: ...` when it cannot be told."""
        ...


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str
    engine: str
    produces: tuple[str, ...]
    params: dict[str, dict[str, Any]]
    rule: str | None = None
    prompt: str | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Profile:
        return cls(
            name=str(data["name"]),
            title=str(data["title"]),
            engine=str(data["engine"]),
            produces=tuple(data.get("produces") or ()),
            params=dict(data.get("params") or {}),
            rule=data.get("rule"),
            prompt=data.get("prompt"),
        )

    def clean_params(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Check `given` against the declared params; fill defaults. Raises `InvalidInput`."""
        unknown = set(given) - set(self.params)
        if unknown:
            raise InvalidInput("params", f"unknown params for {self.name}: {sorted(unknown)}")
        out: dict[str, Any] = {}
        for name, spec in self.params.items():
            if name not in given:
                if spec.get("required"):
                    raise InvalidInput("params", f"{self.name} needs params.{name}")
                out[name] = spec.get("default")
                continue
            value = given[name]
            kind = spec.get("type", "str")
            ok = (
                (kind == "int" and isinstance(value, int) and not isinstance(value, bool))
                or (kind == "str" and isinstance(value, str) and 0 < len(value) <= 512)
                or (
                    kind == "list"
                    and isinstance(value, list)
                    and len(value) <= 1000
                    and all(isinstance(v, str) and 0 < len(v) <= 4000 for v in value)
                )
            )
            if not ok:
                raise InvalidInput("params", f"params.{name} must be a {kind}")
            if kind == "int" and not (spec.get("min", value) <= value <= spec.get("max", value)):
                raise InvalidInput(
                    "params", f"params.{name} must be in {spec.get('min')}..{spec.get('max')}"
                )
            out[name] = value
        return out


@dataclass
class MissionRun:
    """What a rule or LLM profile gets while it runs."""

    mission: Mission
    ctx: JobContext
    proposals: ProposalService
    budget: Budget
    model: ChatModel | None
    prompts: Mapping[str, str]
    tools: Mapping[str, Any]
    produced: list[str] = field(default_factory=list)

    @property
    def params(self) -> dict[str, Any]:
        return self.mission.params

    async def log(self, line: str) -> None:
        await self.ctx.log(line)

    async def propose(
        self, *, kind: str, key: str, payload: dict[str, Any], evidence: list[dict[str, Any]]
    ) -> Proposal:
        p = await self.proposals.create(
            kind=kind, key=key, payload=payload, evidence=evidence, mission_id=self.mission.id
        )
        self.produced.append(p.id)
        await self.ctx.event("proposal", proposal_wire(p))
        return p

    async def ask(self, prompt: str) -> str:
        """One model call, charged to the job and the budget. Raises `OpsUnavailable` when the
        budget is spent or no model is configured."""
        if self.model is None:
            raise OpsUnavailable("no model configured (PKGINTEL_UPSTREAM_LLM_URL)")
        await self.budget.ensure()
        reply = await self.model.complete(prompt)
        await self.ctx.charge(tokens=reply.tokens, requests=1)
        return reply.text


Rule = Callable[[MissionRun], Awaitable[dict[str, Any]]]


class Budget:
    """Caps on model tokens and requests per UTC day and month (0 = no cap)."""

    def __init__(
        self,
        store: OpsStore,
        *,
        tokens_per_day: int,
        tokens_per_month: int,
        requests_per_day: int,
        requests_per_month: int,
        clock: Clock = utcnow,
    ) -> None:
        self._store = store
        self.caps = {
            "day": {"tokens": tokens_per_day, "requests": requests_per_day},
            "month": {"tokens": tokens_per_month, "requests": requests_per_month},
        }
        self._clock = clock

    async def state(self) -> dict[str, Any]:
        now = self._clock().astimezone(UTC)
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        month = day.replace(day=1)
        out: dict[str, Any] = {}
        for period, since in (("day", day), ("month", month)):
            tokens, requests = await self._store.spent(since)
            caps = self.caps[period]
            out[period] = {
                "since": since.isoformat(),
                "spent": {"tokens": tokens, "requests": requests},
                "cap": {k: v or None for k, v in caps.items()},
                "remaining": {
                    "tokens": max(caps["tokens"] - tokens, 0) if caps["tokens"] else None,
                    "requests": max(caps["requests"] - requests, 0) if caps["requests"] else None,
                },
            }
        out["exhausted"] = self.exhausted(out)
        return out

    @staticmethod
    def exhausted(state: Mapping[str, Any]) -> str | None:
        for period in ("day", "month"):
            for what, left in state[period]["remaining"].items():
                if left == 0:
                    return f"the {period}'s {what} cap ({state[period]['cap'][what]}) is reached"
        return None

    async def ensure(self) -> None:
        reason = self.exhausted(await self.state())
        if reason:
            raise OpsUnavailable(f"mission budget spent: {reason}")


class MissionService:
    """Create, run, kill, stream missions; list profiles, prompts, budget; set flags."""

    def __init__(
        self,
        store: OpsStore,
        queue: JobQueue,
        proposals: ProposalService,
        budget: Budget,
        *,
        profiles: Sequence[Profile],
        rules: Mapping[str, Rule],
        prompts: Mapping[str, str],
        model: ChatModel | None,
        tools: Mapping[str, Any],
        clock: Clock = utcnow,
        stream_poll_s: float = 0.25,
    ) -> None:
        self._store = store
        self._queue = queue
        self.proposals = proposals
        self.budget = budget
        self.profiles = {p.name: p for p in profiles}
        self._rules = rules
        self.prompts = dict(prompts)
        self._model = model
        self._tools = tools
        self._clock = clock
        self._poll = stream_poll_s
        for p in profiles:
            if p.engine == "rule" and p.rule not in rules:
                raise ValueError(f"profile {p.name}: no rule {p.rule!r}")
            if p.engine == "llm" and p.prompt not in self.prompts:
                raise ValueError(f"profile {p.name}: no prompt {p.prompt!r}")

    def job_kind(self) -> JobKind:
        return JobKind(run=self._run_job, on_end=self._job_ended, max_attempts=1)

    # -- profiles, flags, prompts ------------------------------------------------------------
    async def flags(self) -> dict[str, bool]:
        stored = await self._store.settings_with_prefix("flag:")
        return {name: bool(stored.get(name, True)) for name in self.profiles}

    async def set_flag(self, profile: str, enabled: bool) -> dict[str, bool]:
        if profile not in self.profiles:
            raise OpsNotFound("profile", profile)
        await self._store.set_setting(f"flag:{profile}", enabled, now=self._clock())
        return await self.flags()

    async def why_not(self, profile: Profile) -> str | None:
        """Why `profile` cannot run now, or None."""
        if not (await self.flags())[profile.name]:
            return "switched off by its flag"
        if profile.engine == "llm" and self._model is None:
            return "needs a language model: set PKGINTEL_UPSTREAM_LLM_URL and PKGINTEL_LLM_MODEL"
        if profile.engine == "llm":
            reason = Budget.exhausted(await self.budget.state())
            if reason:
                return f"mission budget spent: {reason}"
        return None

    async def list_profiles(self) -> builtins.list[dict[str, Any]]:
        flags = await self.flags()
        out = []
        for p in self.profiles.values():
            reason = await self.why_not(p)
            out.append(
                {
                    "name": p.name,
                    "title": p.title,
                    "engine": p.engine,
                    "needs_llm": p.engine == "llm",
                    "prompt": p.prompt,
                    "produces": list(p.produces),
                    "params": p.params,
                    "enabled": flags[p.name],
                    "runnable": reason is None,
                    "reason": reason,
                }
            )
        return out

    def prompt(self, name: str) -> str:
        if name not in self.prompts:
            raise OpsNotFound("prompt", name)
        return self.prompts[name]

    # -- lifecycle ---------------------------------------------------------------------------
    async def create(self, profile: str, params: Mapping[str, Any]) -> Mission:
        """A new `draft` mission. Raises `InvalidInput` for an unknown profile or bad params."""
        spec = self.profiles.get(profile)
        if spec is None:
            raise InvalidInput("profile", f"unknown profile {profile!r}")
        now = self._clock()
        m = Mission(
            id=str(uuid.uuid4()),
            profile=profile,
            params=spec.clean_params(params),
            status=MissionStatus.DRAFT,
            created_at=now,
            updated_at=now,
        )
        await self._store.insert_mission(m)
        await self._status_event(m.id, MissionStatus.DRAFT)
        return m

    async def get(self, mission_id: str) -> Mission:
        found = await self._store.get_mission(mission_id)
        if found is None:
            raise OpsNotFound("mission", mission_id)
        return found

    async def list(self, *, status: str | None, limit: int) -> list[Mission]:
        return await self._store.list_missions(status=status, limit=limit)

    async def _move(self, m: Mission, to: MissionStatus, **values: Any) -> Mission:
        check_mission_move(m.id, m.status, to)
        if not await self._store.move_mission(
            m.id, current=m.status, to=to, now=self._clock(), **values
        ):
            fresh = await self.get(m.id)
            raise IllegalTransition("mission", m.id, fresh.status.value, to.value)
        await self._status_event(m.id, to, error=values.get("error"))
        return await self.get(m.id)

    async def _status_event(
        self, mission_id: str, status: MissionStatus, *, error: str | None = None
    ) -> None:
        data: dict[str, Any] = {"status": status.value}
        if error:
            data["error"] = error
        await self._store.append_event(mission_id, "status", data, now=self._clock())

    async def run(self, mission_id: str) -> Mission:
        """`draft → queued` and enqueue its job. Raises `IllegalTransition` (not a draft) and
        `OpsUnavailable` (profile cannot run: flag off, no model, budget spent)."""
        m = await self.get(mission_id)
        check_mission_move(m.id, m.status, MissionStatus.QUEUED)
        reason = await self.why_not(self.profiles[m.profile])
        if reason:
            raise OpsUnavailable(f"profile {m.profile} cannot run: {reason}")
        m = await self._move(m, MissionStatus.QUEUED)
        await self._queue.enqueue(MISSION_JOB, {"mission_id": m.id}, job_id=m.id, max_attempts=1)
        return m

    async def kill(self, mission_id: str, *, wait_s: float = 5.0) -> Mission:
        """Kill a mission: a draft at once, a queued or running one through its job (the worker
        stops it within a heartbeat). Waits up to `wait_s` for the end; raises `IllegalTransition`
        for a mission already ended."""
        m = await self.get(mission_id)
        check_mission_move(m.id, m.status, MissionStatus.KILLED)
        if m.status is MissionStatus.DRAFT:
            m = await self._move(m, MissionStatus.KILLED, error="killed")
            await self._store.append_event(m.id, "done", {"status": "killed"}, now=self._clock())
            return m
        await self._queue.kill(m.id)
        deadline = asyncio.get_running_loop().time() + wait_s
        while asyncio.get_running_loop().time() < deadline:
            m = await self.get(mission_id)
            if m.status is MissionStatus.KILLED:
                break
            await asyncio.sleep(0.1)
        return m

    async def launch(
        self, proposal_id: str, *, actor: str, reason: str
    ) -> tuple[Proposal, Mission]:
        """Approve a pending proposal (without applying it) and queue a `builder` mission that
        re-checks its evidence and applies it."""
        p = await self.proposals.decide(
            proposal_id, approve=True, reason=reason, actor=actor, apply=False
        )
        m = await self.create("builder", {"proposal_id": p.id})
        return p, await self.run(m.id)

    # -- the job -----------------------------------------------------------------------------
    async def _run_job(self, ctx: JobContext) -> dict[str, Any]:
        m = await self.get(ctx.job.id)
        if m.status is not MissionStatus.QUEUED:
            raise IllegalTransition("mission", m.id, m.status.value, MissionStatus.RUNNING.value)
        m = await self._move(m, MissionStatus.RUNNING)
        profile = self.profiles[m.profile]
        run = MissionRun(
            mission=m,
            ctx=ctx,
            proposals=self.proposals,
            budget=self.budget,
            model=self._model,
            prompts=self.prompts,
            tools=self._tools,
        )
        await run.log(f"profile {profile.name} ({profile.engine}) with params {m.params}")
        rule = self._rules[profile.rule or f"llm:{profile.name}"]
        summary = await rule(run)
        summary = {**summary, "proposals": len(run.produced)}
        await self._move(m, MissionStatus.SUCCEEDED, summary=summary)
        await ctx.event("done", {"status": "succeeded", "summary": summary})
        return summary

    async def _job_ended(self, job: Job, status: JobStatus, error: str | None) -> None:
        if status is JobStatus.SUCCEEDED:
            return
        m = await self._store.get_mission(job.id)
        if m is None or m.status in (
            MissionStatus.SUCCEEDED,
            MissionStatus.FAILED,
            MissionStatus.KILLED,
        ):
            return
        to = MissionStatus.KILLED if status is JobStatus.KILLED else MissionStatus.FAILED
        try:
            await self._move(m, to, error=error or to.value)
        except PkgIntelError:
            return
        await self._store.append_event(
            m.id, "done", {"status": to.value, "error": error}, now=self._clock()
        )

    # -- the stream --------------------------------------------------------------------------
    async def stream(self, mission_id: str, *, after: int = 0) -> AsyncIterator[JobEvent]:
        """Events after `after` until (and including) `done`; polls the database, so it follows a
        mission run by any worker process."""
        await self.get(mission_id)
        while True:
            events = await self._store.events(mission_id, after=after, kinds=STREAM_KINDS)
            for event in events:
                after = event.id
                yield event
                if event.kind == "done":
                    return
            if not events:
                await asyncio.sleep(self._poll)


def mission_wire(m: Mission) -> dict[str, Any]:
    return {
        "id": m.id,
        "profile": m.profile,
        "params": m.params,
        "status": m.status.value,
        "created_at": m.created_at.isoformat(),
        "updated_at": m.updated_at.isoformat(),
        "error": m.error,
        "summary": m.summary,
    }


def start_of_day(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)

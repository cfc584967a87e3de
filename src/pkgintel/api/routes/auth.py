"""
Account endpoints (`/api/auth/*`, issue 30): magic-link sign-in, the session, usage and API keys.
The answers are `application/accounts.py`'s; this module reads the request (body, the `Principal`
the rate-limit layer set, the session cookie) and writes the response (status, cookie, redirect).

The session cookie `pkgintel_session` holds a random 256-bit id whose SHA-256 is in the `session`
table: HttpOnly, SameSite=Lax, Secure when served over HTTPS, 30 days, revoked at logout.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import NO_STORE, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.accounts import (
    SignIn,
    create_key_answer,
    keys_answer,
    logout_answer,
    magic_link_request_answer,
    magic_link_verify_answer,
    me_answer,
    revoke_key_answer,
    usage_answer,
)
from pkgintel.domain.accounts import (
    MAX_CREDENTIAL_CHARS,
    MAX_EMAIL_CHARS,
    MAX_KEY_NAME_CHARS,
    SESSION_COOKIE,
    SESSION_LIFETIME,
    Principal,
    anonymous,
)
from pkgintel.domain.operations.ops import OpsUnavailable
from pkgintel.runtime.container import Runtime
from pkgintel.services.accounts.service import Accounts

router = APIRouter(prefix="/api/auth", tags=["accounts"])
DASHBOARD = "/dashboard"


class MagicLinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(
        min_length=3, max_length=MAX_EMAIL_CHARS, description="Where to send the sign-in link."
    )


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(
        min_length=1,
        max_length=MAX_CREDENTIAL_CHARS,
        description="The token of the sign-in link (its `token` query parameter).",
    )


class KeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(
        default=None, max_length=MAX_KEY_NAME_CHARS, description="A label for the key."
    )


class LinkSentOut(BaseModel):
    status: str
    detail: str
    expires_in_s: int


class AccountOut(BaseModel):
    id: int
    email: str
    created_at: str
    last_login_at: str | None


class KeyOut(BaseModel):
    id: int
    name: str
    prefix: str = Field(description="The first characters of the key, to recognise it.")
    status: str = Field(description="`active` or `revoked`.")
    created_at: str
    revoked_at: str | None
    last_used_at: str | None
    month: str | None = Field(description="`YYYY-MM` of `month_count`.")
    month_count: int = Field(description="Calls made with the key in `month`.")


class NewKeyOut(KeyOut):
    key: str = Field(description="The key itself: shown in this answer only.")
    note: str


class KeysOut(BaseModel):
    keys: list[KeyOut]
    active: int


class SignedInOut(BaseModel):
    status: str
    account: AccountOut
    session: dict[str, Any]


class MeOut(BaseModel):
    account: AccountOut
    auth: dict[str, Any] = Field(description="`kind` (`session` or `key`) and `key_id`.")
    limits: dict[str, Any]


class UsageOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    account_id: int
    since: str
    days: int
    calls: list[dict[str, Any]] | None = Field(
        description="`{day, endpoint, calls}` rows; null when the usage log records no accounts."
    )
    keys: list[dict[str, Any]]
    limits: dict[str, Any]


def accounts_of(runtime: Runtime) -> Accounts:
    if runtime.accounts is None:
        raise OpsUnavailable("accounts are not wired in this installation")
    return runtime.accounts


def principal_of(request: Request) -> Principal:
    """The caller as the rate-limit layer identified it."""
    found = request.scope.get("state", {}).get("principal")
    return found if isinstance(found, Principal) else anonymous("")


def _secure(request: Request, runtime: Runtime) -> bool:
    return request.url.scheme == "https" or runtime.public_url.startswith("https://")


def _set_session(response: Response, request: Request, runtime: Runtime, sign_in: SignIn) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        sign_in.cookie,
        max_age=int(SESSION_LIFETIME.total_seconds()),
        path="/",
        httponly=True,
        secure=_secure(request, runtime),
        samesite="lax",
    )


async def _request_link(runtime: Runtime, body: MagicLinkIn) -> Response:
    answer = await magic_link_request_answer(accounts_of(runtime), body.email)
    return plain_json(answer, cache_control=NO_STORE, status_code=202)


@router.post(
    "/magic-link/request",
    summary="Request a sign-in link",
    status_code=202,
    response_model=LinkSentOut,
    responses=problem_responses(422, 429, 503),
)
async def request_link(runtime: RuntimeDep, body: Annotated[MagicLinkIn, Body()]) -> Response:
    """
    Mail a single-use sign-in link (15 minutes) to `email`. The answer is the same whether or not
    the address has an account. Limited per address and per client.
    """
    return await _request_link(runtime, body)


@router.post(
    "/magic-link",
    summary="Request a sign-in link (alias)",
    status_code=202,
    response_model=LinkSentOut,
    responses=problem_responses(422, 429, 503),
)
async def request_link_alias(runtime: RuntimeDep, body: Annotated[MagicLinkIn, Body()]) -> Response:
    """The same as `POST /api/auth/magic-link/request`."""
    return await _request_link(runtime, body)


@router.post(
    "/magic-link/verify",
    summary="Verify a sign-in link",
    response_model=SignedInOut,
    responses=problem_responses(400, 422, 429),
)
async def verify_link(
    runtime: RuntimeDep, request: Request, body: Annotated[TokenIn, Body()]
) -> Response:
    """Use the link's token (once) and start a 30-day session: the answer sets its cookie."""
    sign_in = await magic_link_verify_answer(accounts_of(runtime), body.token)
    response = plain_json(sign_in.body, cache_control=NO_STORE)
    _set_session(response, request, runtime, sign_in)
    return response


@router.get(
    "/verify",
    summary="Verify a sign-in link (legacy)",
    status_code=303,
    response_class=RedirectResponse,
    responses=problem_responses(400, 422, 429),
)
async def verify_link_legacy(
    runtime: RuntimeDep,
    request: Request,
    token: Annotated[str, Query(min_length=1, max_length=MAX_CREDENTIAL_CHARS)],
) -> Response:
    """The link mailed to the user: uses the token, sets the session cookie, redirects to
    `/dashboard`."""
    sign_in = await magic_link_verify_answer(accounts_of(runtime), token)
    response = RedirectResponse(DASHBOARD, status_code=303, headers={"Cache-Control": NO_STORE})
    _set_session(response, request, runtime, sign_in)
    return response


@router.get(
    "/me", summary="The signed-in account", response_model=MeOut, responses=problem_responses(401)
)
async def me(runtime: RuntimeDep, request: Request) -> Response:
    """The account of the session cookie or API key, how it is authenticated, and its limits."""
    answer = await me_answer(accounts_of(runtime), principal_of(request))
    return plain_json(answer, cache_control=NO_STORE)


@router.post("/logout", summary="Sign out", responses=problem_responses(401))
async def logout(runtime: RuntimeDep, request: Request) -> Response:
    """Revoke the session of the cookie and clear it."""
    answer = await logout_answer(accounts_of(runtime), request.cookies.get(SESSION_COOKIE))
    response = plain_json(answer, cache_control=NO_STORE)
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, secure=_secure(request, runtime), samesite="lax"
    )
    return response


@router.get(
    "/usage",
    summary="The account's usage",
    response_model=UsageOut,
    responses=problem_responses(401),
)
async def usage(runtime: RuntimeDep, request: Request) -> Response:
    """Calls per day and endpoint over 30 days, each key's use this month, the current limits."""
    answer = await usage_answer(accounts_of(runtime), principal_of(request), datetime.now(UTC))
    return plain_json(answer, cache_control=NO_STORE)


@router.get(
    "/keys",
    summary="The account's API keys",
    response_model=KeysOut,
    responses=problem_responses(401),
)
async def list_keys(runtime: RuntimeDep, request: Request) -> Response:
    """Every key of the account (never the key itself: its prefix), revoked ones included."""
    answer = await keys_answer(accounts_of(runtime), principal_of(request))
    return plain_json(answer, cache_control=NO_STORE)


@router.post(
    "/keys",
    summary="Create an API key",
    status_code=201,
    response_model=NewKeyOut,
    responses=problem_responses(401, 403, 409, 422),
)
async def create_key(
    runtime: RuntimeDep, request: Request, body: Annotated[KeyIn | None, Body()] = None
) -> Response:
    """A new key, shown in this answer only. Needs a signed-in session (a key cannot make keys)."""
    answer = await create_key_answer(
        accounts_of(runtime), principal_of(request), body.name if body else None
    )
    return plain_json(answer, cache_control=NO_STORE, status_code=201)


@router.delete(
    "/keys/{key_id}",
    summary="Revoke an API key",
    responses=problem_responses(401, 403, 404),
)
async def revoke_key(
    runtime: RuntimeDep,
    request: Request,
    key_id: Annotated[int, Path(ge=1, le=2**31 - 1, description="The key's id.")],
) -> Response:
    """Revoke one of the account's active keys; 404 for any other id. Needs a signed-in session."""
    answer = await revoke_key_answer(accounts_of(runtime), principal_of(request), key_id)
    return plain_json(answer, cache_control=NO_STORE)

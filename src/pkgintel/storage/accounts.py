"""
`SqlAccountStore`: accounts, magic-link tokens, sessions, API keys and the mail outbox on SQLite or
PostgreSQL. Secrets arrive here as SHA-256 digests only (`domain.accounts.digest`). Every
single-use step (using a token, revoking a session or a key) is one conditional UPDATE whose row
count says whether this call won, so two concurrent uses cannot both succeed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import and_, case, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.accounts import Account, ApiKey, OutboxMessage
from pkgintel.domain.errors import StorageError
from pkgintel.storage.tables import account, api_key, auth_token, outbox, session, usage_event


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _account(row: Any) -> Account:
    return Account(
        row.id, row.email, _utc(row.created_at) or row.created_at, _utc(row.last_login_at)
    )


def _key(row: Any) -> ApiKey:
    return ApiKey(
        id=row.id,
        account_id=row.account_id,
        name=row.name,
        prefix=row.prefix,
        created_at=_utc(row.created_at) or row.created_at,
        revoked_at=_utc(row.revoked_at),
        last_used_at=_utc(row.last_used_at),
        month=row.month,
        month_count=row.month_count,
    )


class SqlAccountStore:
    """See the module docstring; every database failure is a `StorageError`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def _write(self, what: str, stmt: Any, params: Any = None) -> Any:
        try:
            async with self._engine.begin() as conn:
                return (
                    await conn.execute(stmt, params)
                    if params is not None
                    else await conn.execute(stmt)
                )
        except SQLAlchemyError as exc:
            raise StorageError(f"could not {what}: {exc.__class__.__name__}") from exc

    async def _read(self, what: str, stmt: Any) -> list[Any]:
        try:
            async with self._engine.connect() as conn:
                return list((await conn.execute(stmt)).all())
        except SQLAlchemyError as exc:
            raise StorageError(f"could not {what}: {exc.__class__.__name__}") from exc

    # -- magic-link tokens --

    async def add_token(
        self, token_digest: str, email: str, now: datetime, expires: datetime
    ) -> None:
        """Store a new token's digest; tokens expired before `now` are removed on the way."""
        try:
            async with self._engine.begin() as conn:
                await conn.execute(delete(auth_token).where(auth_token.c.expires_at < now))
                await conn.execute(
                    insert(auth_token),
                    {
                        "digest": token_digest,
                        "email": email,
                        "created_at": now,
                        "expires_at": expires,
                    },
                )
        except SQLAlchemyError as exc:
            raise StorageError(
                f"could not store the sign-in link: {exc.__class__.__name__}"
            ) from exc

    async def use_token(self, token_digest: str, now: datetime) -> str | None:
        """Mark the token used; its e-mail address when it was unused and unexpired, else None."""
        t = auth_token.c
        try:
            async with self._engine.begin() as conn:
                row = (
                    await conn.execute(select(t.id, t.email).where(t.digest == token_digest))
                ).first()
                if row is None:
                    return None
                done = await conn.execute(
                    update(auth_token)
                    .where(t.id == row.id, t.used_at.is_(None), t.expires_at > now)
                    .values(used_at=now)
                )
        except SQLAlchemyError as exc:
            raise StorageError(
                f"could not verify the sign-in link: {exc.__class__.__name__}"
            ) from exc
        return str(row.email) if done.rowcount == 1 else None

    # -- accounts --

    async def account_for(self, email: str, now: datetime) -> Account:
        """The account of `email`, created on its first sign-in; `last_login_at` set to `now`."""
        a = account.c
        for _ in range(2):  # a concurrent first sign-in of the same address may insert first
            try:
                async with self._engine.begin() as conn:
                    done = await conn.execute(
                        update(account).where(a.email == email).values(last_login_at=now)
                    )
                    if done.rowcount == 0:
                        await conn.execute(
                            insert(account),
                            {"email": email, "created_at": now, "last_login_at": now},
                        )
                    row = (await conn.execute(select(account).where(a.email == email))).one()
                    return _account(row)
            except IntegrityError:
                continue
            except SQLAlchemyError as exc:
                raise StorageError(
                    f"could not store the account: {exc.__class__.__name__}"
                ) from exc
        raise StorageError("could not store the account: concurrent sign-ins")

    async def account(self, account_id: int) -> Account | None:
        rows = await self._read(
            "read the account", select(account).where(account.c.id == account_id)
        )
        return _account(rows[0]) if rows else None

    # -- sessions --

    async def add_session(
        self, session_digest: str, account_id: int, now: datetime, expires: datetime
    ) -> int:
        result = await self._write(
            "store the session",
            insert(session).returning(session.c.id),
            {
                "digest": session_digest,
                "account_id": account_id,
                "created_at": now,
                "expires_at": expires,
            },
        )
        return int(result.scalar_one())

    async def session_of(self, session_digest: str, now: datetime) -> tuple[int, int] | None:
        """`(session id, account id)` of a live (unrevoked, unexpired) session, else None."""
        s = session.c
        rows = await self._read(
            "read the session",
            select(s.id, s.account_id).where(
                s.digest == session_digest, s.revoked_at.is_(None), s.expires_at > now
            ),
        )
        return (int(rows[0].id), int(rows[0].account_id)) if rows else None

    async def revoke_session(self, session_id: int, now: datetime) -> bool:
        s = session.c
        result = await self._write(
            "revoke the session",
            update(session)
            .where(s.id == session_id, s.revoked_at.is_(None))
            .values(revoked_at=now),
        )
        return bool(result.rowcount == 1)

    # -- API keys --

    async def add_key(
        self,
        account_id: int,
        key_digest: str,
        prefix: str,
        name: str,
        now: datetime,
        max_active: int,
    ) -> ApiKey | None:
        """Store a key; None when the account already has `max_active` active keys."""
        k = api_key.c
        try:
            async with self._engine.begin() as conn:
                active = (
                    await conn.execute(
                        select(func.count())
                        .select_from(api_key)
                        .where(k.account_id == account_id, k.revoked_at.is_(None))
                    )
                ).scalar_one()
                if active >= max_active:
                    return None
                key_id = (
                    await conn.execute(
                        insert(api_key).returning(k.id),
                        {
                            "account_id": account_id,
                            "digest": key_digest,
                            "prefix": prefix,
                            "name": name,
                            "created_at": now,
                            "month_count": 0,
                        },
                    )
                ).scalar_one()
                row = (await conn.execute(select(api_key).where(k.id == key_id))).one()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not store the key: {exc.__class__.__name__}") from exc
        return _key(row)

    async def keys(self, account_id: int) -> list[ApiKey]:
        k = api_key.c
        rows = await self._read(
            "read the keys", select(api_key).where(k.account_id == account_id).order_by(k.id)
        )
        return [_key(r) for r in rows]

    async def key_of(self, key_digest: str) -> tuple[int, int] | None:
        """`(key id, account id)` of an active key, else None."""
        k = api_key.c
        rows = await self._read(
            "read the key",
            select(k.id, k.account_id).where(k.digest == key_digest, k.revoked_at.is_(None)),
        )
        return (int(rows[0].id), int(rows[0].account_id)) if rows else None

    async def revoke_key(self, account_id: int, key_id: int, now: datetime) -> bool:
        """Revoke an active key of `account_id`; False when there is none of that id."""
        k = api_key.c
        result = await self._write(
            "revoke the key",
            update(api_key)
            .where(k.id == key_id, k.account_id == account_id, k.revoked_at.is_(None))
            .values(revoked_at=now),
        )
        return bool(result.rowcount == 1)

    async def record_key_use(self, uses: Mapping[int, tuple[int, datetime]], month: str) -> None:
        """Add `count` calls to each key's count of `month` (restarting it in a new month) and
        set its last use: `uses` maps key id → (count, last use)."""
        k = api_key.c
        try:
            async with self._engine.begin() as conn:
                for key_id, (count, last) in sorted(uses.items()):
                    await conn.execute(
                        update(api_key)
                        .where(k.id == key_id)
                        .values(
                            month_count=case(
                                (k.month == month, k.month_count + count), else_=count
                            ),
                            month=month,
                            last_used_at=case(
                                (
                                    and_(k.last_used_at.is_not(None), k.last_used_at > last),
                                    k.last_used_at,
                                ),
                                else_=last,
                            ),
                        )
                    )
        except SQLAlchemyError as exc:
            raise StorageError(f"could not record key use: {exc.__class__.__name__}") from exc

    # -- the account's calls (the usage log) --

    async def calls_by_day(
        self, account_id: int, since: datetime
    ) -> list[tuple[date, str, int]] | None:
        """`(day, endpoint, calls)` of the account's calls (session or any of its keys) since
        `since`; None when the usage log does not record accounts (no `account_id` column)."""
        columns = usage_event.c
        if "account_id" not in columns:
            return None
        day = func.date(columns.at)
        stmt = (
            select(day.label("day"), columns.source, func.count().label("calls"))
            .where(columns["account_id"] == account_id, columns.at >= since)
            .group_by(day, columns.source)
            .order_by(day, columns.source)
        )
        rows = await self._read("read the account's calls", stmt)
        return [
            (
                r.day if isinstance(r.day, date) else date.fromisoformat(str(r.day)),
                r.source,
                int(r.calls),
            )
            for r in rows
        ]

    # -- outbox --

    async def add_mail(
        self, recipient: str, subject: str, body: str, now: datetime, prune_before: datetime
    ) -> None:
        """Queue a message; messages older than `prune_before` (their links expired) go."""
        try:
            async with self._engine.begin() as conn:
                await conn.execute(delete(outbox).where(outbox.c.created_at < prune_before))
                await conn.execute(
                    insert(outbox),
                    {"created_at": now, "recipient": recipient, "subject": subject, "body": body},
                )
        except SQLAlchemyError as exc:
            raise StorageError(f"could not queue the mail: {exc.__class__.__name__}") from exc

    async def take_mail(self, *, keep: bool, prune_before: datetime) -> list[OutboxMessage]:
        """The queued messages, oldest first; removed unless `keep`. Expired ones are pruned."""
        o = outbox.c
        try:
            async with self._engine.begin() as conn:
                await conn.execute(delete(outbox).where(o.created_at < prune_before))
                rows = (await conn.execute(select(outbox).order_by(o.id))).all()
                if rows and not keep:
                    await conn.execute(delete(outbox).where(o.id.in_([r.id for r in rows])))
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read the outbox: {exc.__class__.__name__}") from exc
        return [
            OutboxMessage(r.id, _utc(r.created_at) or r.created_at, r.recipient, r.subject, r.body)
            for r in rows
        ]

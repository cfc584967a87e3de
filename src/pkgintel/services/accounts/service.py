"""
`Accounts`: the account capability as one object on the runtime — the store, magic links,
sessions, keys, the mailer and the rate limiter — and `build_accounts`, which wires it from the
settings and logs how sign-in mail is delivered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.config import Settings
from pkgintel.domain.accounts import Principal, anonymous
from pkgintel.domain.rate_limits import build_policy
from pkgintel.services.accounts.keys import Keys
from pkgintel.services.accounts.limits import RateLimiter
from pkgintel.services.accounts.magic_links import MagicLinks
from pkgintel.services.accounts.mailer import Mailer, OutboxMailer, SmtpMailer
from pkgintel.services.accounts.sessions import Sessions
from pkgintel.storage.accounts import SqlAccountStore

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Accounts:
    """See the module docstring."""

    store: SqlAccountStore
    mailer: Mailer
    sessions: Sessions
    keys: Keys
    links: MagicLinks
    limiter: RateLimiter

    async def principal(
        self, client_hash: str, *, key: str | None, session: str | None
    ) -> Principal:
        """Who calls: the key's account when a key is presented (`InvalidKey` when it is not an
        active key), else the session's when its cookie is live, else anonymous."""
        if key is not None:
            key_id, account_id = await self.keys.resolve(key)
            return Principal(account_id, key_id, "key", client_hash)
        if session is not None:
            live = await self.sessions.resolve(session)
            if live is not None:
                return Principal(live[1], None, "session", client_hash)
        return anonymous(client_hash)

    async def close(self) -> None:
        await self.keys.close()
        await self.limiter.close()


def build_mailer(
    settings: Settings, store: SqlAccountStore, clock: Callable[[], datetime]
) -> Mailer:
    """SMTP when `PKGINTEL_SMTP_HOST` is set, else the outbox table."""
    if settings.smtp_host:
        return SmtpMailer(
            host=settings.smtp_host,
            port=settings.smtp_port,
            sender=settings.smtp_from,
            user=settings.smtp_user,
            password=settings.smtp_password,
            starttls=settings.smtp_starttls,
        )
    return OutboxMailer(store, clock)


def build_accounts(
    settings: Settings, engine: AsyncEngine, clock: Callable[[], datetime]
) -> Accounts:
    """The capability on the service's engine; the limiter on Redis when configured."""
    store = SqlAccountStore(engine)
    policy = build_policy(
        anonymous=settings.rate_limit_anonymous,
        key=settings.rate_limit_key,
        ai_agent=settings.rate_limit_ai_agent,
        gdpr=settings.rate_limit_gdpr,
        magic_link_address=settings.rate_limit_magic_link_address,
        magic_link_ip=settings.rate_limit_magic_link_client,
    )
    limiter = RateLimiter(policy, redis_url=settings.redis_url)
    mailer = build_mailer(settings, store, clock)
    sessions = Sessions(store, clock, cache_ttl_s=settings.credential_cache_ttl_s)
    keys = Keys(store, clock, cache_ttl_s=settings.credential_cache_ttl_s)
    links = MagicLinks(
        store, mailer, sessions, limiter, public_url=settings.public_url, clock=clock
    )
    log.info("sign-in links are delivered by %s", mailer.description)
    return Accounts(store, mailer, sessions, keys, links, limiter)

"""
`MagicLinks`: sign-in by e-mail. A request makes a random single-use token, stores its SHA-256 with
the address and a 15-minute expiry, and mails the link; the answer never says whether the address
has an account (every address gets a link; the account is made at the first verify). Requests are
limited per address (here, keyed by the address's SHA-256) and per client (the HTTP layer).
Verifying uses the token up (one conditional UPDATE) and starts a session.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from urllib.parse import quote

from pkgintel.domain.accounts import (
    MAGIC_LINK_LIFETIME,
    Account,
    InvalidMagicLink,
    digest,
    email_address,
    new_token,
    well_formed_token,
)
from pkgintel.domain.errors import RateLimited
from pkgintel.services.accounts.limits import RateLimiter
from pkgintel.services.accounts.mailer import Mailer
from pkgintel.services.accounts.sessions import Sessions
from pkgintel.storage.accounts import SqlAccountStore

SUBJECT = "Your pkgintel sign-in link"


def mail_body(link: str, token: str) -> str:
    minutes = int(MAGIC_LINK_LIFETIME.total_seconds() // 60)
    return (
        "Someone (hopefully you) asked to sign in to pkgintel with this address.\n\n"
        f"Open this link within {minutes} minutes to sign in:\n\n{link}\n\n"
        'Or send this token to POST /api/auth/magic-link/verify as {"token": "..."}:\n\n'
        f"{token}\n\n"
        "The link works once. If you did not ask for it, ignore this message.\n"
    )


class MagicLinks:
    """See the module docstring."""

    def __init__(
        self,
        store: SqlAccountStore,
        mailer: Mailer,
        sessions: Sessions,
        limiter: RateLimiter,
        *,
        public_url: str,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._mailer = mailer
        self._sessions = sessions
        self._limiter = limiter
        self._verify_url = public_url.rstrip("/") + "/api/auth/verify"
        self._clock = clock

    async def request(self, email: str) -> None:
        """Mail a sign-in link to `email`. `InvalidInput("email")` when it is no address,
        `RateLimited` past the per-address limit, `MailUnavailable` when SMTP fails."""
        address = email_address(email)
        rule = self._limiter.policy.named("magic-link-address")
        verdict = await self._limiter.hit(rule, digest(address.lower()))
        if not verdict.allowed:
            raise RateLimited(
                f"too many sign-in links for this address; try again in {verdict.reset_s} s",
                retry_after=verdict.reset_s,
                limit=verdict.window,
            )
        token = new_token()
        now = self._clock()
        await self._store.add_token(digest(token), address, now, now + MAGIC_LINK_LIFETIME)
        link = f"{self._verify_url}?token={quote(token)}"
        await self._mailer.send(address, SUBJECT, mail_body(link, token))

    async def verify(self, token: str) -> tuple[Account, str, datetime]:
        """Use the token up: `(account, session cookie value, session expiry)`;
        `InvalidMagicLink` when it is unknown, used or expired."""
        if not well_formed_token(token):
            raise InvalidMagicLink("the sign-in link is not valid")
        now = self._clock()
        address = await self._store.use_token(digest(token), now)
        if address is None:
            raise InvalidMagicLink("the sign-in link is unknown, used already or expired")
        account = await self._store.account_for(address, now)
        cookie, expires = await self._sessions.start(account.id)
        return account, cookie, expires

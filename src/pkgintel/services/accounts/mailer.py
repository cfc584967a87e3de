"""
Mail delivery for sign-in links: the `Mailer` Protocol, `SmtpMailer` (aiosmtplib; host, port, user,
password, sender and STARTTLS from the settings) and `OutboxMailer`, which queues the message in the
`outbox` table for `pkgintel outbox` when no SMTP server is configured. The outbox is the mail
spool: an unread message is the only place a sign-in link exists at rest, and it is removed when
read and pruned once the link has expired.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from typing import Protocol

from pkgintel.domain.accounts import MAGIC_LINK_LIFETIME, AccountProblem
from pkgintel.storage.accounts import SqlAccountStore

log = logging.getLogger(__name__)


class MailUnavailable(AccountProblem):
    """The SMTP server refused or could not be reached (→ 503: the link was not sent)."""

    status = 503
    title = "Mail delivery unavailable"
    kind = "mail-unavailable"


class Mailer(Protocol):
    @property
    def description(self) -> str:
        """How mail leaves, for the start-up log line (no password)."""
        ...

    async def send(self, recipient: str, subject: str, body: str) -> None: ...


class SmtpMailer:
    """Sends through an SMTP server; `MailUnavailable` when it fails."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        sender: str,
        user: str | None = None,
        password: str | None = None,
        starttls: bool = True,
        timeout_s: float = 10.0,
    ) -> None:
        self._host = host
        self._port = port
        self._sender = sender
        self._user = user
        self._password = password
        self._starttls = starttls
        self._timeout = timeout_s

    @property
    def description(self) -> str:
        tls = "STARTTLS" if self._starttls else "no STARTTLS"
        return f"SMTP {self._host}:{self._port} ({tls}) from {self._sender}"

    async def send(self, recipient: str, subject: str, body: str) -> None:
        import aiosmtplib  # only installations that send mail pay for the import

        message = EmailMessage()
        message["From"] = self._sender
        message["To"] = recipient
        message["Subject"] = subject
        message.set_content(body)
        try:
            await aiosmtplib.send(
                message,
                hostname=self._host,
                port=self._port,
                username=self._user,
                password=self._password,
                start_tls=self._starttls,
                timeout=self._timeout,
            )
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise MailUnavailable(f"the SMTP server failed: {exc.__class__.__name__}") from exc


class OutboxMailer:
    """Queues mail in the `outbox` table (read with `pkgintel outbox`)."""

    def __init__(self, store: SqlAccountStore, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._clock = clock

    @property
    def description(self) -> str:
        return "the outbox table (no SMTP server configured; read it with `pkgintel outbox`)"

    async def send(self, recipient: str, subject: str, body: str) -> None:
        now = self._clock()
        await self._store.add_mail(recipient, subject, body, now, now - MAGIC_LINK_LIFETIME)

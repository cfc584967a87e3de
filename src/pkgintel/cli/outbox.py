"""
`pkgintel outbox`: print the mail waiting in the outbox table (sign-in links, when no SMTP server
is configured) and remove what was printed (`--keep` leaves it). Messages whose links expired are
pruned on the way. Exit codes: 0 printed (or nothing waiting), 2 bad settings or database.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated

import orjson
import typer

from pkgintel.domain.accounts import MAGIC_LINK_LIFETIME, OutboxMessage


async def take_outbox(*, keep: bool) -> list[OutboxMessage]:
    """The waiting messages, oldest first; removed unless `keep`."""
    from pkgintel.runtime.bootstrap import prepare_database
    from pkgintel.settings_errors import load_settings
    from pkgintel.storage.accounts import SqlAccountStore

    settings = load_settings()
    engine, _ = await prepare_database(settings)
    try:
        store = SqlAccountStore(engine)
        return await store.take_mail(
            keep=keep, prune_before=datetime.now(UTC) - MAGIC_LINK_LIFETIME
        )
    finally:
        await engine.dispose()


def outbox(
    keep: Annotated[bool, typer.Option(help="Leave the messages in the outbox.")] = False,
    json: Annotated[bool, typer.Option("--json", help="One JSON object per message.")] = False,
) -> None:
    """Print the mail waiting in the outbox (sign-in links when no SMTP server is configured)."""
    from pkgintel.settings_errors import BadSetting, BadSettings

    try:
        messages = asyncio.run(take_outbox(keep=keep))
    except (BadSettings, BadSetting) as exc:
        lines = exc.lines if isinstance(exc, BadSettings) else [exc.line]
        typer.echo("\n".join(lines), err=True)
        raise typer.Exit(2) from exc
    for m in messages:
        if json:
            typer.echo(
                orjson.dumps(
                    {
                        "id": m.id,
                        "created_at": m.created_at.isoformat(),
                        "to": m.recipient,
                        "subject": m.subject,
                        "body": m.body,
                    }
                ).decode()
            )
        else:
            typer.echo(f"--- #{m.id} {m.created_at.isoformat()} to {m.recipient}\n")
            typer.echo(f"Subject: {m.subject}\n\n{m.body}")
    if not messages and not json:
        typer.echo("the outbox is empty", err=True)

"""`storage.outage`: which errors are a database outage, and one log line per outage start and end."""

from __future__ import annotations

import logging

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy.exc import IntegrityError, OperationalError

from pkgintel.domain.errors import DatabaseUnavailable, StorageError
from pkgintel.storage.outage import DatabaseOutage, is_outage


class CannotConnectNowError(Exception):
    """Named like asyncpg's error for a server that is starting or shutting down."""


def _raised_from(outer: Exception, inner: BaseException) -> Exception:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except Exception as caught:
        return caught


def test_connection_failures_are_outages_and_other_errors_are_not() -> None:
    assert is_outage(ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"))
    assert is_outage(OSError("Multiple exceptions: [Errno 111] Connect call failed"))
    assert is_outage(
        _raised_from(StorageError("could not read advisories: OSError"), OSError(111, "x"))
    )
    dropped = OperationalError("SELECT 1", {}, CannotConnectNowError("shutting down"))
    assert is_outage(dropped)
    invalidated = OperationalError("SELECT 1", {}, Exception("closed"), connection_invalidated=True)
    assert is_outage(invalidated)
    # A bad query, a constraint, or another server's failure is not a database outage.
    assert not is_outage(OperationalError("SELECT x", {}, Exception("no such table: x")))
    assert not is_outage(IntegrityError("INSERT", {}, Exception("duplicate key")))
    assert not is_outage(_raised_from(RedisConnectionError("Error 111"), ConnectionRefusedError()))
    assert not is_outage(StorageError("the database failed"))
    assert not is_outage(ValueError("bad"))


def test_one_warning_per_outage_and_one_info_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = [100.0]
    outage = DatabaseOutage(retry_after=7, clock=lambda: clock[0])
    caplog.set_level(logging.INFO, logger="pkgintel.storage.outage")
    for _ in range(500):
        error = outage.classify(ConnectionRefusedError(111, "refused"))
        assert isinstance(error, DatabaseUnavailable) and error.retry_after == 7
    assert outage.down and outage.failures == 500
    clock[0] = 120.0
    outage.recovered()
    outage.recovered()  # nothing more to say
    assert not outage.down
    records = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert len(records) == 2, records
    assert records[0][0] == "WARNING" and "ConnectionRefusedError" in records[0][1]
    assert records[1][0] == "INFO" and "20.0 s" in records[1][1] and "500" in records[1][1]
    assert outage.classify(ValueError("not an outage")) is None

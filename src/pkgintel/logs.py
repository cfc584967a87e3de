"""
The one logging setup of every process: `pkgintel serve` (and uvicorn's own loggers), its
workers, `pkgintel mcp` (stdio: stdout carries the protocol, so logs go to stderr only),
`pkgintel worker` and the other commands.

Every record is one line on stderr with its time (ISO 8601, UTC), level, logger and message:

- `text` (default): `2026-11-27T18:55:01.123Z WARNING pkgintel.services.packages.service: downloads ...`;
  fields passed with `extra=` follow as `key=value`.
- `json` (for log collectors): one object per line, `{"ts", "level", "logger", "msg", ...}` with the
  `extra=` fields as further keys and `exc` (the traceback as one string) when one is attached.

httpx logs every upstream request at INFO; that is kept for `debug` only (adapters log each request
at debug themselves), so an upstream failure reads as the one WARNING line the service writes.
"""

from __future__ import annotations

import logging
import logging.config
import sys
from datetime import UTC, datetime
from typing import Any, Final, Literal

import orjson

LogLevel = Literal["debug", "info", "warning", "error", "critical"]
LogFormat = Literal["text", "json"]

LOG_LEVELS: Final[tuple[str, ...]] = ("debug", "info", "warning", "error", "critical")
LOG_FORMATS: Final[tuple[str, ...]] = ("text", "json")

# Attributes every `LogRecord` has; anything else on a record came from `extra=`.
_STANDARD: Final[frozenset[str]] = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__
) | {"message", "asctime", "taskName", "color_message"}

# Loggers quieter than the rest unless the level is debug: one line per upstream request, and
# alembic announcing each of its plugins at every start.
_CHATTY: Final[tuple[str, ...]] = (
    "httpx",
    "httpcore",
    "hpack",
    "alembic.runtime.plugins",
    "alembic.runtime.migration",
)


def _timestamp(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _extra(record: logging.LogRecord) -> dict[str, Any]:
    return {
        k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")
    }


class TextFormatter(logging.Formatter):
    """`<ts> <LEVEL> <logger>: <message> [key=value ...]`; a traceback, when attached, follows."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().replace("\r", "\\r").replace("\n", "\\n")
        line = f"{_timestamp(record)} {record.levelname} {record.name}: {message}"
        extra = _extra(record)
        if extra:
            line += " " + " ".join(f"{k}={v}" for k, v in extra.items())
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        elif record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `ts`, `level`, `logger`, `msg`, the `extra=` fields, `exc`."""

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in _extra(record).items():
            body.setdefault(key, value)
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        elif record.stack_info:
            body["stack"] = self.formatStack(record.stack_info)
        return orjson.dumps(body, default=str).decode()


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that writes to whatever `sys.stderr` is when a record is emitted, not the
    stream it found when logging was configured: a command run inside another program (a test
    runner, a CLI runner that swaps the streams) never writes to a stream closed since."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        """Ignored: the stream is always the current `sys.stderr`."""


def logging_config(level: str = "info", fmt: str = "text") -> dict[str, Any]:
    """
    The `logging.config.dictConfig` dictionary of the setup: also what `pkgintel serve` passes to
    uvicorn as `log_config`, so uvicorn's loggers write the same lines. `level` and `fmt` are the
    validated `PKGINTEL_LOG_LEVEL` / `PKGINTEL_LOG_FORMAT` values.
    """
    formatter = JsonFormatter if fmt == "json" else TextFormatter
    root_level = level.upper()
    chatty = root_level if root_level == "DEBUG" else "WARNING"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"pkgintel": {"()": f"{formatter.__module__}.{formatter.__qualname__}"}},
        "handlers": {
            "stderr": {
                "class": f"{StderrHandler.__module__}.{StderrHandler.__qualname__}",
                "formatter": "pkgintel",
            }
        },
        "root": {"handlers": ["stderr"], "level": root_level},
        "loggers": {
            # uvicorn's own handlers are dropped: its records reach the root handler.
            "uvicorn": {"handlers": [], "propagate": True, "level": root_level},
            "uvicorn.error": {"handlers": [], "propagate": True, "level": root_level},
            "uvicorn.access": {"handlers": [], "propagate": True, "level": root_level},
            **{name: {"level": chatty} for name in _CHATTY},
        },
    }


def configure_logging(level: str = "info", fmt: str = "text") -> None:
    """Install the setup in this process (replacing any handler a library installed first)."""
    logging.config.dictConfig(logging_config(level, fmt))

"""
A bad setting is one line: the variable, the value given (secrets masked), what is wrong and an
example of a right value. `pkgintel` prints these lines on stderr and exits 2 (`entry.py`), and so
does the app factory under uvicorn (`app.app_from_env`).

Two kinds: values `Settings` refuses (`settings_problems` turns pydantic's errors into one
`BadSetting` per variable) and resources named by a setting that cannot be reached at start (the
database, Redis: `runtime/reachability.py` raises `BadSetting` for them).
"""

from __future__ import annotations

import os
import re
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic_settings import SettingsError

from pkgintel.config import Settings

ENV_PREFIX = "PKGINTEL_"

# Values never echoed back (a token pasted into the wrong variable is still a token).
_SECRET_FIELDS = frozenset({"admin_token", "github_token", "llm_api_key", "ip_hash_secret"})
_URL_PASSWORD = re.compile(
    r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<pw>[^@\s]*)(?P<at>@)", re.I
)


class BadSetting(Exception):
    """One setting that keeps the service from starting; `line` is what the user reads."""

    def __init__(self, field: str, given: object, problem: str) -> None:
        self.field = field
        self.variable = f"{ENV_PREFIX}{field.upper()}"
        self.given = shown_value(field, given)
        self.problem = problem
        self.example = example_value(field)
        super().__init__(self.line)

    @property
    def line(self) -> str:
        example = f"; for example {self.variable}={self.example}" if self.example else ""
        return f"error: bad setting {self.variable}={self.given}: {self.problem}{example}"


class BadSettings(Exception):
    """Every bad setting found at once (a user fixes them in one go)."""

    def __init__(self, problems: list[BadSetting]) -> None:
        self.problems = problems
        super().__init__("\n".join(p.line for p in problems))

    @property
    def lines(self) -> list[str]:
        return [p.line for p in self.problems]


def mask_url(value: str) -> str:
    """`scheme://user:password@host` with the password replaced by `***`."""
    return _URL_PASSWORD.sub(r"\g<head>***\g<at>", value)


def shown_value(field: str, value: object) -> str:
    """How a given value is echoed: secrets as `***`, URL passwords masked, long values cut."""
    if value is None:
        return ""
    if field in _SECRET_FIELDS:
        return "***"
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    text = mask_url(text)
    return text if len(text) <= 200 else text[:197] + "..."


def example_value(field: str) -> str:
    """A right value of `field` as it is written in the environment: its documented example, else
    its default (JSON for lists and objects)."""
    info = Settings.model_fields.get(field)
    if info is None:
        return ""
    value: Any = info.examples[0] if info.examples else info.get_default(call_default_factory=True)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return orjson.dumps(value).decode()
    return str(value)


def settings_problems(exc: ValidationError) -> list[BadSetting]:
    """One `BadSetting` per variable pydantic refused (its first message when several)."""
    found: dict[str, BadSetting] = {}
    for error in exc.errors(include_url=False):
        loc = error.get("loc") or ()
        field = str(loc[0]) if loc else "settings"
        if field in found:
            continue
        variable = f"{ENV_PREFIX}{field.upper()}"
        given = os.environ.get(variable, error.get("input"))
        message = str(error["msg"]).removeprefix("Value error, ")
        found[field] = BadSetting(field, given, message)
    return list(found.values())


def settings_error_problem(exc: SettingsError) -> BadSetting:
    """pydantic-settings could not even decode a variable (a list or object that is not JSON)."""
    named = re.search(r'field "(\w+)"', str(exc))
    field = named.group(1) if named else "settings"
    given = os.environ.get(f"{ENV_PREFIX}{field.upper()}", "")
    return BadSetting(field, given, "not valid JSON (this setting is a JSON list or object)")


def load_settings(**overrides: Any) -> Settings:
    """`Settings(**overrides)` from the environment; raises `BadSettings` listing every bad one."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise BadSettings(settings_problems(exc)) from None
    except SettingsError as exc:
        raise BadSettings([settings_error_problem(exc)]) from None

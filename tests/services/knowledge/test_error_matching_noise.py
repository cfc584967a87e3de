"""`ErrorService.resolve` (behind `/api/error/resolve`, MCP and CLI) finds an entry through the
noise of real pastes: other prefixes, localised wording, codes instead of messages; and refuses
look-alike entries about another name or another tool."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pytest

from pkgintel.domain.knowledge.errors import ErrorEntry, KnowledgeLoad
from pkgintel.knowledge.error_fixes import parse_error_file
from pkgintel.services.knowledge.error_resolver import ErrorService

SOURCE = "https://example.org/thread"


def _entry(pattern: str, tool: str, fix: str, form: str = "specific") -> dict[str, object]:
    return {
        "pattern": pattern,
        "form": form,
        "title": f"{tool}: {pattern[:40]}",
        "cause": "the cause",
        "fix": [fix],
        "source": SOURCE,
        "tool": tool,
    }


ENTRIES: list[ErrorEntry] = parse_error_file(
    {
        "tool": "pip",
        "ecosystem": "pypi",
        "entries": [
            _entry(
                "fatal error: Python.h: No such file or directory", "pip", "apt install python3-dev"
            ),
            _entry("Error: pg_config executable not found.", "pip", "apt install libpq-dev"),
            _entry("NU1101", "nuget", "add the feed to nuget.config", form="code"),
            _entry(
                'Bundler could not find compatible versions for gem "x":',
                "bundler",
                "bundle update",
                form="generic",
            ),
            _entry(
                "ModuleNotFoundError: No module named 'pkg_resources'",
                "pip",
                "pip install setuptools",
            ),
            _entry(
                "Unsupported class file major version 65", "gradle", "upgrade the Gradle wrapper"
            ),
            _entry("mysql_config: command not found", "pip", "apt install libmysqlclient-dev"),
            _entry("** (Mix) Hex dependency resolution failed", "mix", "mix deps.unlock --all"),
            _entry("error: linker `cc` not found", "cargo", "apt install build-essential"),
        ],
    },
    origin="test",
)


class MemoryErrorStore:
    """The part of `storage.base.ErrorStore` that resolving reads, in memory (the SQL store's own
    tests cover SQL; here the matcher is under test). Full-text: entries sharing a word."""

    def __init__(self) -> None:
        self.entries: dict[str, ErrorEntry] = {}

    @property
    def backend(self) -> str:
        return "memory"

    async def replace_curated(
        self, entries: Sequence[ErrorEntry], *, now: datetime
    ) -> KnowledgeLoad:
        self.entries = {e.error_hash: e for e in entries}
        return KnowledgeLoad(total=len(entries), added=len(entries), updated=0, removed=0)

    async def count(self) -> int:
        return len(self.entries)

    async def get_entries(self, hashes: Sequence[str]) -> dict[str, ErrorEntry]:
        return {h: self.entries[h] for h in hashes if h in self.entries}

    async def search_text(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        wanted = {t.lower() for t in terms}
        hits = [
            (h, float(len(wanted & set(e.pattern.lower().split()))))
            for h, e in self.entries.items()
        ]
        return sorted((x for x in hits if x[1] > 0), key=lambda x: -x[1])[:limit]

    async def patterns(self) -> list[tuple[str, str]]:
        return [(h, e.pattern) for h, e in self.entries.items()]

    async def record_hits(self, hashes: Sequence[str]) -> None:
        return None

    async def record_miss(self, *args: Any, **kwargs: Any) -> int:
        return 1


@pytest.fixture
async def service() -> ErrorService:
    svc = ErrorService(MemoryErrorStore(), knowledge=lambda: ENTRIES)  # type: ignore[arg-type]
    await svc.load_knowledge()
    return svc


async def _top_fix(svc: ErrorService, text: str) -> str | None:
    got = await svc.resolve(text, record=False)
    return got.matches[0].entry.fix[0] if got.matches else None


@pytest.mark.parametrize(
    "text",
    [
        # The compiler's location prefix, in a pip log.
        "    psutil/_psutil_linux.c:12:20: fatal error: Python.h: No such file or directory\n"
        "     #include <Python.h>\n    compilation terminated.\n"
        "    error: command 'x86_64-linux-gnu-gcc' failed with exit status 1",
        # German GCC.
        "psutil/_psutil_common.c:9:10: schwerwiegender Fehler: Python.h: Datei oder Verzeichnis "
        "nicht gefunden\ncompilation terminated.",
        # No level prefix at all.
        "Python.h: No such file or directory",
    ],
)
async def test_one_entry_answers_every_variant_of_its_line(
    service: ErrorService, text: str
) -> None:
    assert await _top_fix(service, text) == "apt install python3-dev"


async def test_pg_config_inside_a_pip_log(service: ErrorService) -> None:
    text = (
        "Collecting psycopg2==2.6.1 (from -r requirements.txt (line 3))\n"
        "    Complete output from command python setup.py egg_info:\n"
        "    pg_config executable not found.\n"
        "    Please add the directory containing pg_config to the PATH\n"
    )
    assert await _top_fix(service, text) == "apt install libpq-dev"


@pytest.mark.parametrize(
    "text",
    [
        "/src/App/App.csproj : error NU1101: Unable to find package Foo. No packages exist with "
        "this id in source(s): nuget.org",
        'Schweregrad\tCode\tBeschreibung\nFehler\tNU1101\tDas Paket "Foo" wurde nicht gefunden.',
    ],
)
async def test_code_matching_is_language_free(service: ErrorService, text: str) -> None:
    assert await _top_fix(service, text) == "add the feed to nuget.config"


async def test_localised_shell_message(service: ErrorService) -> None:
    assert (
        await _top_fix(
            service, "/bin/sh: mysql_config: orden no encontrada\nOSError: mysql_config not found"
        )
        == "apt install libmysqlclient-dev"
    )


async def test_a_version_number_in_the_message_still_finds_its_entry(service: ErrorService) -> None:
    text = (
        "java.lang.IllegalArgumentException: Unsupported class file major version 61\n"
        "        at groovyjarjarasm.asm.ClassReader.<init>(ClassReader.java:184)"
    )
    assert await _top_fix(service, text) == "upgrade the Gradle wrapper"


@pytest.mark.parametrize(
    "text",
    [
        # Same words, another tool: no Bundler advice for CocoaPods.
        '[!] CocoaPods could not find compatible versions for pod "VolumeBar":\n  In Podfile:\n'
        "    VolumeBar (~> 3.1)",
        # Same words, another module: no setuptools advice for setuptools_rust.
        '  File "/tmp/pip-build-x/cryptography/setup.py", line 13, in <module>\n'
        "ModuleNotFoundError: No module named 'setuptools_rust'",
    ],
)
async def test_look_alikes_about_something_else_are_no_answer(
    service: ErrorService, text: str
) -> None:
    assert await _top_fix(service, text) is None


async def test_a_line_that_goes_on_after_the_stored_message(service: ErrorService) -> None:
    text = (
        "Running dependency resolution\n\n"
        "** (Mix) Hex dependency resolution failed, relax the version requirements of your "
        "dependencies or unlock them (by using mix deps.update or mix deps.unlock)"
    )
    assert await _top_fix(service, text) == "mix deps.unlock --all"


async def test_an_entry_of_another_toolchain_is_no_answer(service: ErrorService) -> None:
    # Reads like the cargo entry, but the log is a Homebrew one.
    text = "==> brew install foo\nerror: linker `cc` not found, on this mac"
    assert await _top_fix(service, text) is None

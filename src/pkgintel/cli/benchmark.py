"""
`pkgintel benchmark load <file>`: load a hallucination-benchmark result file (format in
docs/api.md, "Hallucination benchmark") so `GET /api/benchmark/results` serves its hit rates.
Loading a run of the same name again replaces it. Exit codes: 0 loaded, 2 unreadable or invalid
file (the first bad field is named), 1 the database failed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import orjson
import typer

from pkgintel.config import Settings
from pkgintel.domain.errors import InvalidInput, PkgIntelError, StorageError
from pkgintel.domain.hallucinations import parse_results
from pkgintel.runtime.container import Runtime

benchmark_app = typer.Typer(
    help="Hallucination benchmark results (served by GET /api/benchmark/results).",
    no_args_is_help=True,
)
MAX_FILE_BYTES = 5 * 1024 * 1024


async def load_file(runtime: Runtime, path: Path) -> int:
    """Parse and store one result file; rows written. `InvalidInput` for a bad file."""
    try:
        raw = await asyncio.to_thread(path.read_bytes)
    except OSError as exc:
        raise InvalidInput("file", f"cannot read {path}: {exc.strerror}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise InvalidInput("file", f"a result file is at most {MAX_FILE_BYTES:,} bytes")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput("file", f"{path} is not JSON: {exc}") from exc
    run = parse_results(data)
    if runtime.usage_services is None:
        raise StorageError("the benchmark store is not wired in this installation")
    return await runtime.usage_services.benchmark.load(run)


@benchmark_app.command("load")
def load(
    file: Annotated[Path, typer.Argument(help="Result file (JSON; see docs/api.md).")],
) -> None:
    """Load a benchmark result file into the database."""
    from pkgintel.runtime.bootstrap import build_runtime

    async def _run() -> int:
        async with build_runtime(Settings()) as runtime:
            return await load_file(runtime, file)

    try:
        rows = asyncio.run(_run())
    except InvalidInput as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from exc
    except PkgIntelError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"loaded {rows} result rows from {file}")

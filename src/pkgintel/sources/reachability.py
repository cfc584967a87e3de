"""
Whether an upstream location answers: one request, timed, for `pkgintel doctor`.

`probe_location` sends one `GET` and reads only the status line and headers (the body is never
downloaded: a KEV catalog or an OSV bucket listing costs nothing), follows no redirect (a 3xx is an
answer) and never raises: a transport failure or timeout comes back as `Probe.error`. A local path
or `file://` URL (an air-gapped install's export folder, a KEV file) is checked for existence
instead, with no request.
"""

from __future__ import annotations

import asyncio
import time

import httpx

from pkgintel.domain.operations.doctor import Probe
from pkgintel.sources.fetch import is_url, local_path


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


async def probe_location(client: httpx.AsyncClient, location: str, *, timeout: float) -> Probe:
    """Ask `location` once (see the module docstring); never raises."""
    started = time.perf_counter()
    if not is_url(location):
        path = local_path(location)
        exists = await asyncio.to_thread(path.exists)
        return Probe(_ms(started), error=None if exists else "no such file or folder", local=True)
    try:
        # The timeout bounds every phase of the request; the outer one also bounds the wait for a
        # connection slot (the shared client caps connections per host).
        async with asyncio.timeout(timeout + 1):
            request = client.build_request("GET", location, timeout=timeout)
            response = await client.send(request, stream=True, follow_redirects=False)
            await response.aclose()
    except TimeoutError:
        return Probe(_ms(started), error=f"no answer within {timeout:g} s")
    except httpx.TimeoutException as exc:
        return Probe(
            _ms(started), error=f"{exc.__class__.__name__}: no answer within {timeout:g} s"
        )
    except httpx.HTTPError as exc:
        text = str(exc).strip()
        detail = f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__
        return Probe(_ms(started), error=detail[:200])
    return Probe(_ms(started), status_code=response.status_code)

"""Bulk ``$export`` of a loaded directory: wall time, resources per second and the service's
peak RSS while it streams every file, and the search bench's figures while the export runs,
beside the same search bench without it, against the same service process.

One service process is started (or ``--service-url``'s is used, RSS then unknown). First the
search bench (``bench.search_bench --service-url``) runs alone; then a system-level export is
kicked off and every file downloaded, one at a time, each line counted, while the search bench
runs again. The service's RSS is sampled every half second from /proc.

Usage (an index loaded under --prefix):
    python -m bench.export_bench --prefix PREFIX [--seconds 15] [--levels 1,16]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import aiohttp

from bench.harness import harness_parser, parse_harness_args, service_process
from service.web.auth import mint_token
from service.web.settings import Settings

POLL_S = 0.5
KICK_OFF_TRIES = 30


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def search_bench(args: argparse.Namespace, url: str) -> str:
    command = [sys.executable, "-m", "bench.search_bench", "--prefix", args.prefix]
    command += ["--service-url", url, "--seconds", str(args.seconds), "--levels", args.levels_text]
    process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    out, _ = await process.communicate()
    return out.decode()


async def export(http: aiohttp.ClientSession, url: str, headers: dict[str, str]) -> int:
    """Kick off, wait for the manifest, read every file; the resources read."""
    kick = {**headers, "Prefer": "respond-async"}
    for _ in range(KICK_OFF_TRIES):  # a 503 (Retry-After) while the node is busy: asked again
        async with http.get(f"{url}/fhir/$export", headers=kick) as response:
            if response.status == 202:
                status_url = response.headers["Content-Location"]
                break
            assert response.status == 503, await response.text()
            await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
    else:
        raise RuntimeError("the export was never accepted")
    while True:
        async with http.get(status_url, headers=headers) as response:
            if response.status == 200:
                manifest = await response.json(content_type=None)
                break
            await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
    resources = 0
    for output in manifest["output"]:
        async with http.get(output["url"], headers=headers) as response:
            async for line in response.content:
                resources += bool(line.strip())
    return resources


async def sample_rss(pid: int | None, peak: list[float], done: asyncio.Event) -> None:
    while pid is not None and not done.is_set():
        peak[0] = max(peak[0], rss_mb(pid))
        await asyncio.sleep(POLL_S)


async def main_async(args: argparse.Namespace) -> None:
    headers = {"Authorization": f"Bearer {mint_token(Settings())}"}
    async with (
        service_process(args.es_url, args.prefix, args.port) as (url, process),
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None)) as http,
    ):
        before = rss_mb(process.pid)
        print("== the search bench alone\n" + await search_bench(args, url))
        peak, done = [before], asyncio.Event()
        sampler = asyncio.create_task(sample_rss(process.pid, peak, done))
        started = time.monotonic()
        exported = asyncio.create_task(export(http, url, headers))
        searched = await search_bench(args, url)
        resources = await exported
        wall = time.monotonic() - started
        done.set()
        await sampler
        print("== the search bench while the export runs\n" + searched)
        print(f"export: {resources:,} resources in {wall:.1f} s ({resources / wall:,.0f}/s)")
        print(f"service RSS: {before:.0f} MB before, {peak[0]:.0f} MB at most during the export")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness_parser(__doc__, levels=[1, 16], port=8096)
    args = parse_harness_args(parser, argv)
    args.levels_text = ",".join(str(level) for level in args.levels)
    return args


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()

"""Two builds of the service and the indexer, compared on what they give back, byte for byte.

For a change that must not change behaviour (a restructuring):

- ``load --tree DIR --prefix P``: the bundled sample and its Plan-Net export loaded by the
  indexer of the source tree DIR (another checkout, e.g. ``git worktree add``).
- ``documents --prefix A --prefix B``: every document of every index of two loads, compared
  (the instants a load stamps, ``changedAt`` and a directory scorecard's ``loadedAt`` and
  ``updatedAt``, left out: two loads are two instants); an index kind one build does not
  write (a build before the directories index) is said, and counted as a difference.
- ``answers --log F --old-tree OLD --new-tree NEW --prefix P``: the requests the test suite sent
  (recorded by ``tests/request_log.py``: ``PD_REQUEST_LOG=F pytest -p tests.request_log``)
  asked of both builds serving the same load; status, type and body must be equal, but for
  what two servers differ in by design (a cursor's point-in-time id, the CapabilityStatement's
  start instant). Bulk export jobs (random ids) and the metrics page are not compared.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import glob
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from bench.harness import listening_socket, served_url, stop_service, wait_ready
from core.es_client import make_client
from core.index_contract import INDEX_KINDS, IndexNames
from devtools.settings import LauncherSettings
from service.search_kit.tokens import decode_token

LOAD_SCRIPT = """
import asyncio, sys
from dataclasses import replace
from pathlib import Path
from core.es_client import make_client
from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load

async def main() -> None:
    es = make_client(sys.argv[1], request_timeout=120)
    sample = Path("data/sample")
    sources = replace(
        SourceFiles.discover(sample), plan_net=sample / "plannet", plan_net_name="reference"
    )
    try:
        await load(es, sources, LoadOptions(names=IndexNames(sys.argv[2])))
    finally:
        await es.close()

asyncio.run(main())
"""
SKIPPED_PATHS = ("$export", "$bulk-publish", "/metrics")
# The instants of the load or update that wrote a document (core.changes, core.scorecards).
STAMPED = frozenset({"changedAt", "loadedAt", "updatedAt"})


def _tree_env(tree: Path, extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), **extra}


def load_with(tree: Path, es_url: str, prefix: str) -> None:
    subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT, es_url, prefix],
        cwd=tree,
        env=_tree_env(tree, {}),
        check=True,
    )


# ---- documents ----


async def _documents(es_url: str, index: str) -> dict[str, Any] | None:
    """Every document of ``index`` by id; None when no index answers to that name."""
    es = make_client(es_url, request_timeout=120)
    found: dict[str, Any] = {}
    try:
        if not await es.indices.exists(index=index):
            return None
        body: dict[str, Any] = {"query": {"match_all": {}}, "sort": ["_doc"], "size": 5000}
        response = await es.search(index=index, body=body, scroll="2m")
        while response["hits"]["hits"]:
            for hit in response["hits"]["hits"]:
                found[hit["_id"]] = hit["_source"]
            response = await es.scroll(scroll_id=response["_scroll_id"], scroll="2m")
        await es.clear_scroll(scroll_id=response["_scroll_id"])
    finally:
        await es.close()
    return found


def _unstamped(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unstamped(v) for k, v in value.items() if k not in STAMPED}
    if isinstance(value, list):
        return [_unstamped(v) for v in value]
    return value


async def compare_documents(es_url: str, first: str, second: str) -> int:
    differing = 0
    for kind in INDEX_KINDS:
        one = await _documents(es_url, IndexNames(first).alias(kind))
        other = await _documents(es_url, IndexNames(second).alias(kind))
        if one is None or other is None:
            differing += 1
            print(f"{kind}: written by one build only")
            continue
        if one.keys() != other.keys():
            differing += 1
            print(f"{kind}: ids differ ({len(one.keys() ^ other.keys())} in one load only)")
            continue
        unequal = [
            i for i in one if orjson.dumps(_unstamped(one[i])) != orjson.dumps(_unstamped(other[i]))
        ]
        differing += len(unequal)
        print(f"{kind}: {len(one)} documents, {len(unequal)} differ {unequal[:5]}")
    return differing


# ---- answers ----


def recorded_requests(pattern: str) -> Iterator[dict[str, Any]]:
    """Each distinct request of the logs, in the order first sent."""
    seen: set[bytes] = set()
    for path in sorted(glob.glob(f"{pattern}*")):
        for line in Path(path).read_bytes().splitlines():
            entry = orjson.loads(line)
            key = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
            if key in seen or any(part in entry["path"] for part in SKIPPED_PATHS):
                continue
            seen.add(key)
            yield entry


def _start(tree: Path, env: dict[str, str], fd: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--fd", str(fd)],
        cwd=tree,
        env=_tree_env(tree, env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(fd,),
    )


@asynccontextmanager
async def serving(tree: Path, es_url: str, prefix: str) -> AsyncIterator[str]:
    """The service of the source tree ``tree`` against ``prefix``, ready: its URL."""
    env = {
        "ELASTICSEARCH_URL": es_url,
        "PD_INDEX_PREFIX": prefix,
        "PD_ENVIRONMENT": "development",
        "PD_RATE_LIMIT_PER_S": "0",
        "PD_ES_REQUEST_TIMEOUT_S": "30",
        "PD_FHIR_BASE_URL": "http://replay.invalid/fhir",  # not each server's own port
    }
    with listening_socket(0) as sock:
        url = served_url(sock)
        process = _start(tree, env, sock.fileno())
    try:
        await wait_ready(url, process)
        yield url
    finally:
        stop_service(process)


def _token(tree: Path) -> str:
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "token"],
        cwd=tree,
        env=_tree_env(tree, {"PD_ENVIRONMENT": "development"}),
        check=True,
        capture_output=True,
        text=True,
    )
    return made.stdout.strip().splitlines()[-1]


async def _ask(
    http: aiohttp.ClientSession, base: str, entry: dict[str, Any], token: str
) -> tuple[int, str, bytes]:
    # The same request id for both builds: a problem names the request it answers.
    headers = {"x-request-id": "replay", **entry["headers"], "Authorization": f"Bearer {token}"}
    kwargs: dict[str, Any] = {"headers": headers, "params": entry["params"] or None}
    if "json" in entry:
        kwargs["json"] = entry["json"]
    elif "bytes" in entry:
        kwargs["data"] = base64.b64decode(entry["bytes"])
    elif "form" in entry:
        kwargs["data"] = entry["form"]
    async with http.request(entry["method"], base + entry["path"], **kwargs) as response:
        kept = response.headers.get("Content-Type", "")
        return response.status, kept, await response.read()


def _steady(value: Any) -> Any:
    """An answer without what differs between two servers by design: the point-in-time id a
    page cursor holds (Elasticsearch makes a new one per search) and the instant the server
    started, the CapabilityStatement's date."""
    if isinstance(value, dict):
        kept = {k: _steady(v) for k, v in value.items()}
        if kept.get("resourceType") == "CapabilityStatement":
            kept.pop("date", None)
        return kept
    if isinstance(value, list):
        return [_steady(v) for v in value]
    if isinstance(value, str) and len(value) > 40:
        try:
            decoded = decode_token(value)
        except ValueError:
            return value
        if isinstance(decoded, dict) and "pit" in decoded:
            return {**decoded, "pit": "<a point in time>"}
    return value


def _comparable(answer: tuple[int, str, bytes]) -> tuple[int, str, bytes]:
    status, kind, body = answer
    if "json" not in kind:
        return answer
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return answer
    return status, kind, orjson.dumps(_steady(parsed))


def _first_difference(one: bytes, other: bytes) -> int:
    return next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), 0)


async def compare_answers(args: argparse.Namespace) -> int:
    token = _token(args.new_tree)
    requests = list(recorded_requests(args.log))
    differing = 0
    async with AsyncExitStack() as stack:
        old = await stack.enter_async_context(serving(args.old_tree, args.es_url, args.prefix))
        new = await stack.enter_async_context(serving(args.new_tree, args.es_url, args.prefix))
        http = await stack.enter_async_context(aiohttp.ClientSession())
        for entry in requests:
            before = await _ask(http, old, entry, token)
            after = await _ask(http, new, entry, token)
            if before != after and _comparable(before) != _comparable(after):
                differing += 1
                if differing <= args.show:
                    print(f"DIFFERS {entry['method']} {entry['path']} {entry['params']}")
                    at = _first_difference(before[2], after[2])
                    print(f"  old: {before[0]} {before[1]} ...{before[2][at - 80 : at + 220]!r}")
                    print(f"  new: {after[0]} {after[1]} ...{after[2][at - 80 : at + 220]!r}")
    print(f"{len(requests)} distinct requests asked of both builds: {differing} answers differ")
    return differing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    commands = parser.add_subparsers(dest="command", required=True)
    loading = commands.add_parser("load")
    loading.add_argument("--tree", type=Path, required=True)
    loading.add_argument("--prefix", required=True)
    documents = commands.add_parser("documents")
    documents.add_argument("--prefix", action="append", required=True)
    answers = commands.add_parser("answers")
    answers.add_argument("--log", required=True, help="the request log's path (without .pid)")
    answers.add_argument("--old-tree", type=Path, required=True)
    answers.add_argument("--new-tree", type=Path, required=True)
    answers.add_argument("--prefix", required=True)
    answers.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    if args.command == "load":
        load_with(args.tree.resolve(), args.es_url, args.prefix)
        return 0
    if args.command == "documents":
        first, second = args.prefix
        return 1 if asyncio.run(compare_documents(args.es_url, first, second)) else 0
    args.old_tree, args.new_tree = args.old_tree.resolve(), args.new_tree.resolve()
    return 1 if asyncio.run(compare_answers(args)) else 0


if __name__ == "__main__":
    sys.exit(main())

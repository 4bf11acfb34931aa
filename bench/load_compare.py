"""The same load by two source trees, alternated: wall, indexer CPU, Elasticsearch CPU, bytes.

Usage:
    python -m bench.load_compare --source-dir DIR --tree before=PATH --tree after=PATH
        [--rounds 2] [--es-url URL] [--keep] [--reload] [--load-arg=--plan-net --load-arg=DIR ...]

Each round loads DIR once per tree, in the order given (before, after, before, after...), so a
shared box's other work falls on both alike. Each load is ``python -m indexer.cli --prefix P load
--source-dir DIR`` (and any ``--load-arg``) run with that tree first on ``PYTHONPATH``, under
``/usr/bin/time`` for its peak RSS, timed from process start to exit;
the indexer's CPU is the child's resource usage (user + system), Elasticsearch's is the node's
``process.cpu.total_in_millis`` delta, bytes are the store size of the load's indices (primaries).
The last round's indices of each tree are kept with ``--keep`` (for ``_disk_usage``), else deleted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import urllib.request
import uuid
from typing import Any

from devtools.settings import LauncherSettings


def _get(url: str) -> Any:
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def _delete(url: str) -> None:
    request = urllib.request.Request(url, method="DELETE")
    with urllib.request.urlopen(request):
        pass


def _es_cpu_s(es_url: str) -> float:
    stats = _get(f"{es_url}/_nodes/stats/process")
    return (
        float(sum(n["process"]["cpu"]["total_in_millis"] for n in stats["nodes"].values())) / 1000
    )


def _store(es_url: str, prefix: str) -> dict[str, int]:
    """Bytes of each index's live segments (the store size can still count the files of
    segments the final force merge replaced)."""
    sizes: dict[str, int] = {}
    for segment in _get(f"{es_url}/_cat/segments/{prefix}-*?format=json&bytes=b"):
        if segment["prirep"] == "p":
            sizes[segment["index"]] = sizes.get(segment["index"], 0) + int(segment["size"])
    return sizes


def load_once(
    es_url: str, tree: str, source_dir: str, prefix: str, load_args: list[str]
) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": tree, "ELASTICSEARCH_URL": es_url}
    report = f"/tmp/{prefix}-report.json"
    peak = f"/tmp/{prefix}-peak-kb"
    command = ["/usr/bin/time", "-f", "%M", "-o", peak, sys.executable, "-m", "indexer.cli"]
    command += ["--prefix", prefix, "load", "--source-dir", source_dir, "--report-json", report]
    command += load_args
    es_before, usage_before = _es_cpu_s(es_url), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    es_cpu = _es_cpu_s(es_url) - es_before
    with open(report) as file:
        told = json.load(file)
    providers = int(told["indexed"])
    # The new version's indices alone (a reload keeps the one before it beside it).
    store = {k: v for k, v in _store(es_url, prefix).items() if k.endswith(told["version"])}
    cpu = usage.ru_utime + usage.ru_stime - usage_before.ru_utime - usage_before.ru_stime
    with open(peak) as file:
        peak_mb = int(file.read().split()[-1]) / 1024
    return {
        "peak_rss_mb": peak_mb,
        "wall_s": wall,
        "indexer_cpu_s": cpu,
        "es_cpu_s": es_cpu,
        "providers": providers,
        "bytes": sum(store.values()),
        "store": store,
    }


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--tree", action="append", required=True, help="NAME=PATH")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--reload",
        action="store_true",
        help="each tree loads once unmeasured into a prefix of its own, then each round is a"
        " reload over what it serves (the weekly full reload)",
    )
    parser.add_argument(
        "--load-arg", action="append", default=[], help="passed on to load (repeat per word)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    trees = [tuple(tree.split("=", 1)) for tree in args.tree]
    run = uuid.uuid4().hex[:6]
    columns = "wall s | indexer CPU µs | ES CPU µs | bytes (per provider) | peak RSS MB"
    print(f"| round | tree | {columns} |")
    print("|---|---|---|---|---|---|---|")
    if args.reload:
        for name, tree in trees:
            load_once(args.es_url, tree, args.source_dir, f"lc{run}{name}".lower(), args.load_arg)
    for round_number in range(1, args.rounds + 1):
        for name, tree in trees:
            prefix = f"lc{run}{name}{'' if args.reload else round_number}".lower()
            row = load_once(args.es_url, tree, args.source_dir, prefix, args.load_arg)
            per = 1e6 / row["providers"]
            print(
                f"| {round_number} | {name} | {row['wall_s']:.1f}"
                f" | {row['indexer_cpu_s'] * per:.0f} | {row['es_cpu_s'] * per:.0f}"
                f" | {row['bytes'] / row['providers']:,.0f} | {row['peak_rss_mb']:,.0f} |",
                flush=True,
            )
            print(json.dumps({"prefix": prefix, **row}), file=sys.stderr, flush=True)
            last = round_number == args.rounds
            if not (args.keep and last) and (last or not args.reload):
                _delete(f"{args.es_url}/{prefix}-*")


if __name__ == "__main__":
    main()

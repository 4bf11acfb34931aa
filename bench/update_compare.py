"""The same weekly updates by two source trees, alternated: wall, indexer CPU, Elasticsearch CPU.

Usage:
    python -m bench.update_compare --source-dir DIR --tree before=PATH --tree after=PATH
        --update FILE [--update FILE ...] [--es-url URL] [--kind nppes]

Each tree loads DIR once (not measured) into a prefix of its own, with that tree first on
``PYTHONPATH``; then each ``--update`` file in turn is applied to every tree's prefix
(``python -m indexer.cli --prefix P update --nppes FILE``), so both apply the same files in the
same order to the same data, and a shared box's other work falls on both alike. Timed from
process start to exit; the indexer's CPU is the child's (user + system), Elasticsearch's the
node's ``process.cpu.total_in_millis`` delta. The prefixes are deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import uuid

from bench.load_compare import _delete, _es_cpu_s, load_once
from devtools.settings import LauncherSettings


def update_once(es_url: str, tree: str, prefix: str, kind: str, path: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": tree, "ELASTICSEARCH_URL": es_url}
    report = f"/tmp/{prefix}-update.json"
    command = [sys.executable, "-m", "indexer.cli", "--prefix", prefix, "update"]
    command += [f"--{kind}", path, "--report-json", report]
    es_before, usage_before = _es_cpu_s(es_url), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(report) as file:
        rows = int(json.load(file)["rows"])
    return {
        "wall_s": wall,
        "indexer_cpu_s": usage.ru_utime
        + usage.ru_stime
        - usage_before.ru_utime
        - usage_before.ru_stime,
        "es_cpu_s": _es_cpu_s(es_url) - es_before,
        "rows": rows,
    }


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--tree", action="append", required=True, help="NAME=PATH")
    parser.add_argument("--update", action="append", required=True, help="a file per round")
    parser.add_argument("--kind", default="nppes", choices=("nppes", "coverage"))
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    trees = [tuple(tree.split("=", 1)) for tree in args.tree]
    run = uuid.uuid4().hex[:6]
    prefixes = {name: f"uc{run}{name}".lower() for name, _ in trees}
    try:
        for name, tree in trees:
            load_once(args.es_url, tree, args.source_dir, prefixes[name], [])
        print("| round | tree | rows | wall s | indexer CPU s | ES CPU s |")
        print("|---|---|---|---|---|---|")
        for number, path in enumerate(args.update, 1):
            for name, tree in trees:
                row = update_once(args.es_url, tree, prefixes[name], args.kind, path)
                print(
                    f"| {number} | {name} | {row['rows']:,} | {row['wall_s']:.2f}"
                    f" | {row['indexer_cpu_s']:.2f} | {row['es_cpu_s']:.2f} |",
                    flush=True,
                )
    finally:
        for prefix in prefixes.values():
            _delete(f"{args.es_url}/{prefix}-*")


if __name__ == "__main__":
    main()

"""Node-loss figures for BENCHMARKS.md: the cluster test's scenario (tests/cluster/node_loss.py,
the one implementation) run ``--rounds`` times, each on a new three-node cluster, as
`make cluster-test` runs it, and its figures as a Markdown table.

Usage:
    python -m bench.node_loss [--rounds 3]         # runs tests/cluster/test_node_loss.py
    python -m bench.node_loss --figures a.json ... # tabulates figures kept by earlier runs
                                                   # (PD_NODE_LOSS_FIGURES=a.json make cluster-test)

Each round's pytest gets this process's environment plus the variables that switch the
cluster tests on, say where the figures go and leave the clients unpaced; nothing here is read
from the environment.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TEST = "tests/cluster/test_node_loss.py"
PHASES = ("before", "node down", "rejoining", "after green")


def run_round(figures: Path) -> bool:
    """One run of the test; True when it passed (its figures are written either way, unless it
    failed before the traffic)."""
    env = {**os.environ, "PD_CLUSTER_TESTS": "1", "PD_NODE_LOSS_FIGURES": str(figures)}
    env["PD_NODE_LOSS_PAUSE_S"] = "0"  # unpaced: every client as fast as it can
    test = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", TEST], cwd=REPO, env=env
    )
    return test.returncode == 0


def row(number: int, figures: dict[str, Any]) -> str:
    phases = figures["phases"]
    role = " (master)" if figures["victim_was_master"] else ""
    p99 = " | ".join(f"{phases[name]['p99_ms']:.0f}" for name in PHASES)
    return (
        f"| {number} | {figures['victim']}{role} | {figures['requests']} | "
        f"{phases['node down']['requests']} in {phases['node down']['seconds']:.0f} s | "
        f"{figures['failed']} | {figures['different']} | {p99} | "
        f"{figures['kill_to_yellow_s']:.1f} | {figures['restart_to_joined_s']:.1f} | "
        f"{figures['restart_to_green_s']:.1f} | {figures['health_at_end']} |"
    )


def table(runs: list[dict[str, Any]]) -> str:
    header = [
        "| round | node killed | requests | during the loss | failed | different | "
        "p99 before (ms) | p99 node down | p99 rejoining | p99 after green | "
        "kill to yellow (s) | restart to joined (s) | restart to green (s) | health |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    return "\n".join(header + [row(n, figures) for n, figures in enumerate(runs, 1)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--figures", type=Path, nargs="+", help="tabulate these, run nothing")
    args = parser.parse_args(argv)
    if args.figures:
        runs = [json.loads(path.read_text()) for path in args.figures]
        print(table(runs))
        return 0
    runs, passed = [], 0
    with tempfile.TemporaryDirectory() as folder:
        for number in range(1, args.rounds + 1):
            figures = Path(folder) / f"round-{number}.json"
            passed += run_round(figures)
            if figures.exists():
                runs.append(json.loads(figures.read_text()))
    print(table(runs))
    print(f"\n{passed} of {args.rounds} rounds passed")
    return 0 if passed == args.rounds else 1


if __name__ == "__main__":
    sys.exit(main())

"""Where the service's time goes while a bench runs: py-spy samples the service process (its
Python stacks, idle event-loop time left out) into collapsed stacks, summarised as the frames
that hold the most samples, by themselves ("self") and with what they call ("total").

    python -m bench.lookup_bench --prefix P --levels 16 --profile bench/results/lookup_profile
writes ``<path>.txt`` (py-spy's collapsed stacks) and ``<path>.md`` (the summary)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

TOP_FRAMES = 15
_SAMPLES_PER_S = 250
_OUR_CODE = ("(service/", "(core/")


@contextlib.contextmanager
def sampled(pid: int, path: Path | None) -> Iterator[None]:
    """py-spy recording ``pid`` for the duration (nothing when ``path`` is None), then the
    summary written beside the stacks."""
    if path is None:
        yield
        return
    # The virtualenv's own first (it is installed with the dev extras), else the PATH's.
    py_spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if py_spy is None:
        raise RuntimeError("py-spy is not installed (pip install -e '.[dev]')")
    stacks = path.with_suffix(".txt")
    command = [py_spy, "record", "--pid", str(pid), "--format", "raw", "--rate"]
    command += [str(_SAMPLES_PER_S), "--output", str(stacks)]
    recorder = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.wait(timeout=60)
    path.with_suffix(".md").write_text(summary(stacks.read_text()))


def _frame_name(frame: str) -> str:
    """``handler (service/web/middleware.py:42)`` -> ``handler (service/web/middleware.py)``:
    one row per function, whatever line was running."""
    name, _, place = frame.partition(" (")
    file = place.rsplit(":", 1)[0].rstrip(")")
    for marker in ("site-packages/", "/lib/python3", f"{Path.cwd()}/"):
        if marker in file:
            file = file.split(marker, 1)[1]
    return f"{name} ({file})" if file else name


def summary(collapsed: str) -> str:
    """A Markdown table of the frames with the most samples, from collapsed stacks (one
    ``frame;frame;... count`` per line, outermost first)."""
    self_samples: Counter[str] = Counter()
    total_samples: Counter[str] = Counter()
    all_samples = 0
    for line in collapsed.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = [_frame_name(frame) for frame in stack.split(";")]
        all_samples += count
        self_samples[frames[-1]] += count
        for frame in set(frames):
            total_samples[frame] += count

    def percent(count: int) -> str:
        return f"{100 * count / max(all_samples, 1):.1f}"

    lines = [f"{all_samples} samples of the service's busy threads.", ""]
    lines += ["| frame (most time in itself) | self % | total % |", "|---|---:|---:|"]
    for frame, count in self_samples.most_common(TOP_FRAMES):
        lines.append(f"| `{frame}` | {percent(count)} | {percent(total_samples[frame])} |")
    ours = [(f, n) for f, n in total_samples.most_common() if any(code in f for code in _OUR_CODE)]
    lines += ["", "| the project's frames (with what they call) | total % |", "|---|---:|"]
    lines += [f"| `{frame}` | {percent(count)} |" for frame, count in ours[:TOP_FRAMES]]
    return "\n".join(lines) + "\n"

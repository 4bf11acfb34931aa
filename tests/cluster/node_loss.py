"""Node loss under load, the one implementation: tests/cluster/test_node_loss.py asserts on its
figures, bench/node_loss.py tabulates them.

Every call of a fixed set is answered once before the kill (the expected answers). Then
``clients`` concurrent loops send those calls round and round while a controller kills the node
holding a primary of the search index (SIGKILL), lets the traffic run with the node gone,
starts it again with its data, waits for green and lets the traffic run a little longer. Each
answer is compared, parsed, with the expected one. The loops are bounded in count and in time,
and everything the scenario reaches listens on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from core.documents import Json
from devtools.cluster import Cluster
from tests.cluster.calls import Call
from tests.conftest import ApiClient

PHASES = ("warm-up", "before", "node down", "rejoining", "after green")
MAX_FAILURES_KEPT = 10


@dataclass(frozen=True)
class Timeline:
    clients: int = 16
    warmup_s: float = 3.0  # first traffic on fresh JVMs, apart so "before" is the steady state
    before_s: float = 5.0  # traffic before the kill
    down_s: float = 8.0  # traffic with the node gone (from the kill to its restart)
    after_s: float = 5.0  # traffic once the cluster is green again
    # Each client's rest between its requests: none sends as fast as it can (what the bench
    # measures, at 0), a paced test (the suite's) leaves the cores to the cluster it checks.
    pause_s: float = 0.0
    yellow_timeout_s: float = 60.0
    green_timeout_s: float = 120.0
    max_requests: int = 200_000

    @property
    def deadline_s(self) -> float:
        """No loop runs longer than this, whatever the cluster does."""
        waits = self.yellow_timeout_s + self.green_timeout_s
        return self.warmup_s + self.before_s + waits + self.after_s + 30


@dataclass(frozen=True)
class Outcome:
    at_s: float  # when the request was sent, from the start of the traffic
    latency_ms: float
    call: Call
    status: int  # -1: the request itself failed (no answer)
    same: bool  # the answer equals the expected one
    detail: str = ""  # when not the same: the answer's start, or the top-level fields that differ


@dataclass
class PhaseFigures:
    requests: int
    failed: int  # not 200
    different: int  # 200 but not the expected answer
    seconds: float
    p50_ms: float
    p99_ms: float


@dataclass
class Figures:
    nodes: int
    clients: int
    victim: str
    victim_was_master: bool
    requests: int
    failed: int
    different: int
    kill_to_yellow_s: float
    restart_to_joined_s: float  # the restarted node back in the cluster (its JVM started)
    restart_to_green_s: float
    health_at_end: str
    phases: dict[str, PhaseFigures]
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> Json:
        return asdict(self)

    def lines(self) -> list[str]:
        role = "the elected master" if self.victim_was_master else "not the master"
        lines = [
            f"node loss: {self.nodes} nodes, {self.clients} clients; killed {self.victim} "
            f"({role}); kill -> yellow {self.kill_to_yellow_s:.2f} s, restart -> joined "
            f"{self.restart_to_joined_s:.2f} s -> green {self.restart_to_green_s:.2f} s; "
            f"health at the end: {self.health_at_end}",
            f"requests {self.requests}, failed {self.failed}, different {self.different}",
        ]
        for name, phase in self.phases.items():
            lines.append(
                f"  {name:<12} {phase.requests:>6} requests in {phase.seconds:5.1f} s, "
                f"failed {phase.failed}, different {phase.different}, "
                f"p50 {phase.p50_ms:.1f} ms, p99 {phase.p99_ms:.1f} ms"
            )
        return lines + [f"  failure: {failure}" for failure in self.failures]


def _percentile(ordered: Sequence[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


async def _answer(api: ApiClient, call: Call, auth: dict[str, str]) -> tuple[int, object]:
    response = await api.request(call.method, call.path, json=call.body, headers=auth)
    return response.status, await response.json(content_type=None)


async def expected_answers(
    api: ApiClient, calls: Sequence[Call], auth: dict[str, str]
) -> dict[str, object]:
    """Each call answered once, before any node is lost; every one must be a 200."""
    answers = {}
    for call in calls:
        status, body = await _answer(api, call, auth)
        assert status == 200, f"{call.key}: {status} {body}"
        answers[call.key] = body
    return answers


async def run(
    api: ApiClient,
    cluster: Cluster,
    search_index: str,
    calls: Sequence[Call],
    auth: Sequence[dict[str, str]],
    timeline: Timeline = Timeline(),
) -> Figures:
    """``auth``: a header per client (each client is a user of its own, with its own rate
    limit)."""
    assert len(auth) == timeline.clients
    expected = await expected_answers(api, calls, auth[0])
    outcomes: list[Outcome] = []
    stop = asyncio.Event()
    answered_while_down = asyncio.Event()
    started = time.monotonic()
    marks: dict[str, float] = {}

    def now() -> float:
        return time.monotonic() - started

    async def client(number: int) -> None:
        turn = number
        while not stop.is_set() and len(outcomes) < timeline.max_requests:
            if now() > timeline.deadline_s:
                return
            call = calls[turn % len(calls)]
            turn += 1
            sent = now()
            try:
                status, body = await _answer(api, call, auth[number])
            except Exception:  # a request without an answer counts as failed
                status, body = -1, None
            latency_ms = (now() - sent) * 1000
            same = status == 200 and body == expected[call.key]
            detail = "" if same else _difference(status, body, expected[call.key])
            outcomes.append(Outcome(sent, latency_ms, call, status, same, detail))
            if "kill" in marks and sent >= marks["kill"]:
                answered_while_down.set()
            if timeline.pause_s:
                await asyncio.sleep(timeline.pause_s)

    async def controller() -> tuple[str, bool, str]:
        try:
            await asyncio.sleep(timeline.warmup_s)
            marks["before"] = now()
            await asyncio.sleep(timeline.before_s)
            victim = (await asyncio.to_thread(cluster.primaries, search_index))[0]
            was_master = await asyncio.to_thread(cluster.master) == victim
            marks["kill"] = now()
            await asyncio.to_thread(cluster.kill, victim)
            await asyncio.to_thread(
                cluster.wait_for,
                "yellow",
                nodes=len(cluster.nodes) - 1,
                timeout_s=timeline.yellow_timeout_s,
            )
            marks["yellow"] = now()
            await asyncio.sleep(max(0.0, marks["kill"] + timeline.down_s - now()))
            # However slow the machine, the node comes back only once a request sent while it
            # was gone has its answer (the phase the test is about is never empty).
            await asyncio.wait_for(answered_while_down.wait(), timeline.green_timeout_s)
            marks["restart"] = now()
            await asyncio.to_thread(cluster.restart, victim)
            await asyncio.to_thread(cluster.wait_for, "yellow", timeout_s=timeline.green_timeout_s)
            marks["joined"] = now()
            await asyncio.to_thread(cluster.wait_for, "green", timeout_s=timeline.green_timeout_s)
            marks["green"] = now()
            await asyncio.sleep(timeline.after_s)
            health = await asyncio.to_thread(cluster.health)
            return victim, was_master, str(health["status"])
        finally:
            stop.set()

    clients = [asyncio.create_task(client(number)) for number in range(timeline.clients)]
    try:
        victim, was_master, health = await controller()
    finally:
        stop.set()
        await asyncio.gather(*clients)
    marks["end"] = now()
    return _figures(outcomes, marks, cluster, timeline, victim, was_master, health)


def _difference(status: int, body: object, expected: object) -> str:
    if status != 200 or not isinstance(body, dict) or not isinstance(expected, dict):
        return str(body)[:300]
    fields = sorted(k for k in body.keys() | expected.keys() if body.get(k) != expected.get(k))
    return f"fields {fields} differ"


def _phase_of(at_s: float, marks: dict[str, float]) -> str:
    starts = [marks[mark] for mark in ("before", "kill", "restart", "green")]
    return PHASES[sum(at_s >= start for start in starts)]


def _figures(
    outcomes: list[Outcome],
    marks: dict[str, float],
    cluster: Cluster,
    timeline: Timeline,
    victim: str,
    was_master: bool,
    health: str,
) -> Figures:
    bounds = [0.0, *(marks[m] for m in ("before", "kill", "restart", "green", "end"))]
    phases = {}
    for number, name in enumerate(PHASES):
        within = [o for o in outcomes if _phase_of(o.at_s, marks) == name]
        latencies = sorted(o.latency_ms for o in within)
        phases[name] = PhaseFigures(
            requests=len(within),
            failed=sum(o.status != 200 for o in within),
            different=sum(o.status == 200 and not o.same for o in within),
            seconds=round(bounds[number + 1] - bounds[number], 2),
            p50_ms=round(_percentile(latencies, 0.50), 1),
            p99_ms=round(_percentile(latencies, 0.99), 1),
        )
    failures = [
        f"{_phase_of(o.at_s, marks)} at {o.at_s:.2f} s, {o.latency_ms:.0f} ms: {o.call.key} -> "
        f"{o.status} {o.detail}"
        for o in outcomes
        if not o.same
    ]
    return Figures(
        nodes=len(cluster.nodes),
        clients=timeline.clients,
        victim=victim,
        victim_was_master=was_master,
        requests=len(outcomes),
        failed=sum(o.status != 200 for o in outcomes),
        different=sum(o.status == 200 and not o.same for o in outcomes),
        kill_to_yellow_s=round(marks["yellow"] - marks["kill"], 2),
        restart_to_joined_s=round(marks["joined"] - marks["restart"], 2),
        restart_to_green_s=round(marks["green"] - marks["restart"], 2),
        health_at_end=health,
        phases=phases,
        failures=failures[:MAX_FAILURES_KEPT],
    )

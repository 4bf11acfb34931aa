"""Scoring and the Markdown report of the relevance harness (``bench/relevance.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bench.relevance_questions import (
    CLASSES,
    RADIUS_MILES,
    SPECIALTY_CLASSES,
    Entry,
    Question,
    name_key,
)

TOP = 10
# No one expected provider: precision only.
UNRANKED = ("specialty_lay", "specialty_misspelt", "condition")
Status = Literal["ok", "bad_request", "error"]

EQUIVALENCE = (
    "A hit is the expected NPI or any provider with the identical normalised full name (two "
    '"John Smith"s in one ZIP cannot be told apart by any system; no name is skipped for being '
    "common); for last_specialty, any provider with the same last name and a primary taxonomy "
    f"in the asked specialty. P@10: share of the top {TOP} whose primary taxonomy (by the "
    "NPPES file) is in the asked specialty, by the harness's own lay-term table; ceiling: "
    f"min(10, providers of that primary specialty within {RADIUS_MILES} mi by the file) / 10. "
    "Specialty words are only asked where the file has at least one. empty: no result "
    "(400s and failed requests included); 400: the service refused the question."
)


@dataclass(frozen=True, slots=True)
class Answer:
    status: Status
    results: tuple[tuple[str, ...], ...] = ()  # the NPIs of each result, best first
    point: tuple[float, float] | None = None  # where the service placed the location


@dataclass(frozen=True, slots=True)
class Score:
    answer: Answer
    rank: int | None  # 1-based rank of the first right provider; None: not in the top 10
    precision: float | None  # specialty questions: share of the top 10 in the specialty


def _same(question: Question, entry: Entry) -> bool:
    """Whether a result is as right as the expected provider (see EQUIVALENCE)."""
    expected = question.expected
    if expected is None:
        return False
    if entry.npi == expected.npi:
        return True
    if question.cls == "last_specialty":
        assert question.specialty is not None
        return (
            entry.individual
            and name_key(entry.last) == name_key(expected.last)
            and question.specialty.covers(entry.primary)
        )
    return entry.individual == expected.individual and entry.full_name_key == expected.full_name_key


def score(question: Question, answer: Answer, entries: dict[str, Entry]) -> Score:
    rank = None
    in_specialty = 0
    for position, npis in enumerate(answer.results[:TOP], start=1):
        found = [entries[n] for n in npis if n in entries]
        if rank is None and any(_same(question, e) for e in found):
            rank = position
        if question.specialty and any(question.specialty.covers(e.primary) for e in found):
            in_specialty += 1
    precision = in_specialty / TOP if question.cls in SPECIALTY_CLASSES else None
    return Score(answer, rank, precision)


def ceiling(question: Question) -> float:
    return min(TOP, question.in_radius) / TOP


def _mean(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.3f}" if values else "-"


def table(questions: Sequence[Question], scores: Sequence[Score]) -> list[str]:
    lines = [
        "| class | questions | hit@1 | hit@3 | MRR | P@10 | P@10 ceiling | empty | 400 | failed |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cls in CLASSES:
        rows = [(q, s) for q, s in zip(questions, scores, strict=True) if q.cls == cls]
        if not rows:
            continue
        ranks = [s.rank for _, s in rows]
        ranked = [
            _mean([r == 1 for r in ranks]),
            _mean([r is not None and r <= 3 for r in ranks]),
            _mean([1 / r if r else 0.0 for r in ranks]),
        ]
        specialty = [
            _mean([s.precision for _, s in rows if s.precision is not None]),
            _mean([ceiling(q) for q, _ in rows]),
        ]
        cells = [
            cls,
            str(len(rows)),
            *(["-"] * 3 if cls in UNRANKED else ranked),
            *(specialty if cls in SPECIALTY_CLASSES else ["-"] * 2),
            _mean([not s.answer.results for _, s in rows]),
            str(sum(s.answer.status == "bad_request" for _, s in rows)),
            str(sum(s.answer.status == "error" for _, s in rows)),
        ]
        lines.append(f"| {' | '.join(cells)} |")
    return lines


def _outcome(cls: str, s: Score) -> str:
    if s.answer.status != "ok":
        return "400" if s.answer.status == "bad_request" else "failed"
    if cls in UNRANKED:
        return f"P@10 {s.precision or 0:.1f}"
    return f"rank {s.rank}" if s.rank else "miss"


def _got(answer: Answer, entries: dict[str, Entry]) -> str:
    shown = [entries[n[0]].label if n[0] in entries else n[0] for n in answer.results[:3]]
    return "; ".join(shown) or "(nothing)"


def _order(cls: str, q: Question, s: Score, b: Score) -> tuple[float, float] | None:
    """Sort key of a service miss, worst first: empty answers, and answers the baseline beat
    by most; None: no miss."""
    if cls in UNRANKED:
        assert s.precision is not None and b.precision is not None
        if s.precision >= ceiling(q):
            return None
        return (-ceiling(q) if not s.answer.results else s.precision - b.precision, s.precision)
    if s.rank == 1:
        return None
    return (float(b.rank is None) - float(s.rank is None), -(s.rank or TOP + 1))


def weak_terms(questions: Sequence[Question], scores: Sequence[Score]) -> list[str]:
    """Specialty words the arm never answered, and those below half their ceiling."""
    by_term: dict[tuple[str, str], list[tuple[Question, Score]]] = {}
    for q, s in zip(questions, scores, strict=True):
        if q.cls in UNRANKED:
            by_term.setdefault((q.cls, q.query), []).append((q, s))
    never = sorted(
        f"`{term}`"
        for (_, term), rows in by_term.items()
        if all(not s.answer.results for _, s in rows)
    )
    weak = sorted(
        f"`{term}` {sum(s.precision or 0 for _, s in rows) / len(rows):.1f}/"
        f"{sum(ceiling(q) for q, _ in rows) / len(rows):.1f}"
        for (_, term), rows in by_term.items()
        if any(s.answer.results for _, s in rows)
        and sum(s.precision or 0 for _, s in rows) < 0.5 * sum(ceiling(q) for q, _ in rows)
    )
    return [
        f"Specialty words with no answer in any place asked: {', '.join(never) or 'none'}.",
        "",
        "Specialty words below half their ceiling (mean P@10/ceiling): "
        f"{', '.join(weak) or 'none'}.",
    ]


def misses(
    questions: Sequence[Question],
    service: Sequence[Score],
    baseline: Sequence[Score],
    entries: dict[str, Entry],
    count: int,
) -> list[str]:
    """Per class, up to ``count`` questions the service did not answer at rank 1 (or, for
    specialty words, below the ceiling), those the baseline answered better first."""
    lines: list[str] = []
    for cls in CLASSES:
        rows = []
        for q, s, b in zip(questions, service, baseline, strict=True):
            order = _order(cls, q, s, b) if q.cls == cls else None
            if order is not None:
                rows.append((order, q, s, b))
        if not rows or count <= 0:
            continue
        lines += ["", f"**{cls}**: {len(rows)} below rank 1 / below the ceiling", ""]
        for _, q, s, b in sorted(rows, key=lambda row: row[0])[:count]:
            if q.expected is not None:
                expected = q.expected.label
            else:
                assert q.specialty is not None
                expected = f"{q.specialty.key} ({q.in_radius} within {RADIUS_MILES} mi)"
            lines.append(
                f"- `{q.query}` @ `{q.location}`: expected {expected}; service "
                f"{_outcome(cls, s)}: {_got(s.answer, entries)}; baseline {_outcome(cls, b)}"
            )
    return lines

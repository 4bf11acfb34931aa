"""What an update did with every row of its file: the operator's proof, as ``LoadReport`` is
for a load, and the entry kept in the live version's list of updates (``status``)."""

from __future__ import annotations

import resource
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

from core import changes
from core.clock import today_utc
from indexer.sources.plan_net import normalised_text, warning_text

UpdateKind = Literal["nppes", "coverage", "plan-net", "plans"]
# Every row of a file ends as exactly one of these (or rejected with a reason).
NPPES_OUTCOMES = ("added", "changed", "reactivated", "deactivated", "unchanged", "stale")
COVERAGE_OUTCOMES = ("added", "changed", "removed", "unchanged")
# A Plan-Net export: outcomes per provider; every resource read is used or rejected.
PLAN_NET_OUTCOMES = COVERAGE_OUTCOMES


@dataclass
class UpdateReport:
    kind: UpdateKind
    file: str
    version: str = ""
    rows_read: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)  # by reason
    removed: int = 0  # NPPES: deactivated rows whose provider was indexed (now gone)
    search_rewritten: int = 0  # coverage: search documents given their new networks
    resources: dict[str, dict[str, int]] = field(default_factory=dict)  # Plan-Net, per type
    warnings: Counter[str] = field(default_factory=Counter)  # Plan-Net: used as published
    normalised: Counter[str] = field(default_factory=Counter)  # Plan-Net: changed, then used
    took_over_from: str | None = None  # the job whose stale lock this update took over
    reject_file: Path | None = None
    applied_at: str = ""
    # The changedAt of what the update adds or changes, and the removedAt of what it removes.
    changed_at: str = field(default_factory=changes.now)
    scored_on: date = field(default_factory=today_utc)  # the day confidence is scored for
    removals: int = 0  # FHIR resources the update removed (core.changes.Removal records)
    elapsed_s: float = 0.0
    peak_rss_mb: float = 0.0

    @property
    def accounted(self) -> bool:
        if self.kind == "plan-net":
            return all(c["read"] == c["used"] + c["rejected"] for c in self.resources.values())
        return self.rows_read == sum(self.outcomes.values()) + sum(self.rejected.values())

    @property
    def changed_anything(self) -> bool:
        unchanged = {"unchanged", "stale"}
        return self.removed > 0 or any(
            count for outcome, count in self.outcomes.items() if outcome not in unchanged
        )

    def finish(self, elapsed_s: float) -> None:
        self.applied_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.elapsed_s = elapsed_s
        self.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    def history_entry(self) -> dict[str, Any]:
        """What ``status`` lists (kept in the version's ``_meta``)."""
        return {
            "kind": self.kind,
            "file": self.file,
            "applied": self.applied_at,
            "changedAt": self.changed_at,
            "rows": self.rows_read,
            "outcomes": dict(self.outcomes),
            "rejected": sum(self.rejected.values()),
            "elapsed_s": round(self.elapsed_s, 1),
        }

    def as_json(self) -> dict[str, Any]:
        return {
            **self.history_entry(),
            "version": self.version,
            "rejected_by_reason": dict(self.rejected),
            "removed": self.removed,
            "search_rewritten": self.search_rewritten,
            "resources": self.resources,
            "warnings": dict(self.warnings),
            "normalised": dict(self.normalised),
            "took_over_from": self.took_over_from,
            "reject_file": str(self.reject_file) if self.reject_file else None,
            "accounted": self.accounted,
            "peak_rss_mb": self.peak_rss_mb,
        }


def format_update_report(report: UpdateReport) -> list[str]:
    names = NPPES_OUTCOMES if report.kind == "nppes" else COVERAGE_OUTCOMES
    rejected = ", ".join(f"{k}={v}" for k, v in sorted(report.rejected.items())) or "none"
    lines = [
        f"update             {report.kind} {report.file} -> version {report.version}",
        f"rows read          {report.rows_read:,}",
    ]
    if report.kind == "plan-net":
        return lines + _plan_net_lines(report)
    lines += [f"  {name:<16} {report.outcomes[name]:,}" for name in names]
    lines += [
        f"  rejected         {sum(report.rejected.values()):,} ({rejected})",
        f"  all accounted    {'yes' if report.accounted else 'NO'}",
    ]
    if report.kind == "nppes":
        lines.append(f"providers removed  {report.removed:,} (deactivated and indexed)")
    else:
        lines.append(f"search rewritten   {report.search_rewritten:,} providers' networks")
    return lines + _closing_lines(report)


def _closing_lines(report: UpdateReport) -> list[str]:
    lines = []
    if report.took_over_from:
        lines.append(f"took over from     {report.took_over_from} (it did not finish)")
    if report.reject_file is not None:
        lines.append(f"reject file        {report.reject_file}")
    lines += [
        f"elapsed            {report.elapsed_s:.1f} s",
        f"peak RSS           {report.peak_rss_mb:,.0f} MB",
    ]
    return lines


def _plan_net_lines(report: UpdateReport) -> list[str]:
    lines = [
        f"  {kind:<24} read {c['read']:>8,}  used {c['used']:>8,}  rejected {c['rejected']:>8,}"
        for kind, c in sorted(report.resources.items())
    ]
    lines.append(f"  all accounted    {'yes' if report.accounted else 'NO'}")
    lines.append(f"warnings           {warning_text(report.warnings)}")
    lines.append(f"normalised         {normalised_text(report.normalised)}")
    lines += [f"providers {name:<8} {report.outcomes[name]:,}" for name in PLAN_NET_OUTCOMES]
    return lines + _closing_lines(report)

"""What a load read, wrote and rejected: the operator's proof that every row is accounted for."""

from __future__ import annotations

import dataclasses
import resource
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from core.index_contract import version_started
from indexer.sources.plan_net import normalised_text, warning_text
from indexer.write.bulk_errors import BULK_ERROR


@dataclass
class LoadReport:
    version: str = ""
    scored_on: str = ""  # the day locations' confidence is scored for (ISO date)
    rows_read: int = 0  # NPPES rows
    deactivated: int = 0  # NPPES rows of deactivated NPIs (not indexed, by design)
    rejected: Counter[str] = field(default_factory=Counter)  # NPPES rows by reason
    source_rows: dict[str, int] = field(default_factory=dict)  # rows read per source file
    source_rejected: Counter[tuple[str, str]] = field(default_factory=Counter)  # (file, reason)
    expected: Counter[str] = field(default_factory=Counter)  # documents sent per index kind
    bulk_failed: Counter[str] = field(default_factory=Counter)
    documents: dict[str, int] = field(default_factory=dict)  # counted in the new indices
    locations: int = 0  # in the provider documents
    not_geocoded: int = 0  # locations without a point (kept for lookups, not in geo search)
    dac_npis_not_in_nppes: int = 0
    coverage_npis_not_in_nppes: int = 0
    # A Plan-Net directory: resources per type (read, used, rejected), its providers joined to
    # an NPPES one or served from it alone, the coverage rows its networks gave.
    plan_net: dict[str, dict[str, int]] = field(default_factory=dict)
    # Its resources used as published with a flag (core.npi.NpiIssue), by warning.
    plan_net_warnings: Counter[str] = field(default_factory=Counter)
    # Its resources the import changed before use (indexer.sources.plan_net_normalised), by kind.
    plan_net_normalised: Counter[str] = field(default_factory=Counter)
    plan_net_joined: int = 0
    plan_net_only: int = 0
    plan_net_coverage: int = 0
    orphans_removed: list[str] = field(default_factory=list)
    # The change feed's records of what it changed from the version served before, or why
    # none was compared (indexer.change_diff).
    changes_recorded: int = 0
    changes_skipped: str | None = None
    served_digests: str | None = None  # stored or scanned (indexer.change_diff.version_digests)
    changes_s: float = 0.0  # how long telling them took
    copies: str = (
        ""  # the new version's health when served: green, or yellow (indexer.load.replicas)
    )
    copies_wait_s: float = 0.0
    reject_file: Path | None = None
    elapsed_s: float = 0.0
    cpu_s: float = 0.0  # this process, user + system
    peak_rss_mb: float = 0.0

    def scoring_day(self) -> date:
        """The day locations' confidence is scored for: the one set, else the version's own."""
        if self.scored_on:
            return date.fromisoformat(self.scored_on)
        return version_started(self.version).date()

    @property
    def indexed(self) -> int:
        """NPPES rows whose documents (lookup and search) were all indexed."""
        return self.expected["providers"] - self.plan_net_only - self.rejected[BULK_ERROR]

    @property
    def accounted(self) -> bool:
        """Every NPPES row is indexed, deactivated or rejected with a reason, and every Plan-Net
        resource used or rejected."""
        resources = all(
            counts["read"] == counts["used"] + counts["rejected"]
            for counts in self.plan_net.values()
        )
        rows = self.indexed + self.deactivated + sum(self.rejected.values())
        return self.rows_read == rows and resources

    @property
    def providers_per_second(self) -> float:
        return self.indexed / self.elapsed_s if self.elapsed_s else 0.0

    def finish(self, elapsed_s: float) -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.elapsed_s = elapsed_s
        self.cpu_s = usage.ru_utime + usage.ru_stime
        self.peak_rss_mb = usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux

    def as_json(self) -> dict[str, Any]:
        """The report for machines (``--report-json``), derived figures included."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name, value in fields.items():
            if isinstance(value, Counter) and name != "source_rejected":
                fields[name] = dict(value)
        fields["source_rejected"] = [[s, r, n] for (s, r), n in self.source_rejected.items()]
        fields["reject_file"] = str(self.reject_file) if self.reject_file else None
        fields["indexed"] = self.indexed
        fields["accounted"] = self.accounted
        fields["providers_per_second"] = self.providers_per_second
        return fields


def format_report(report: LoadReport) -> list[str]:
    rejected = ", ".join(f"{k}={v}" for k, v in sorted(report.rejected.items())) or "none"
    check = "yes" if report.accounted else "NO"
    lines = [
        f"version            {report.version}",
        f"nppes rows read    {report.rows_read:,}",
        f"  indexed          {report.indexed:,}",
        f"  deactivated      {report.deactivated:,}",
        f"  rejected         {sum(report.rejected.values()):,} ({rejected})",
        f"  all accounted    {check}",
    ]
    for source, rows in report.source_rows.items():
        lines.append(f"rows read          {rows:>9,}  {source}")
    for (source, reason), count in sorted(report.source_rejected.items()):
        lines.append(f"rejected           {count:>9,}  {source}: {reason}")
    for kind, count in sorted(report.documents.items()):
        lines.append(f"docs {kind:<13} {count:>9,}")
    for kind, counts in sorted(report.plan_net.items()):
        lines.append(
            f"plan-net {kind:<24}read {counts['read']:>8,}  used {counts['used']:>8,}"
            f"  rejected {counts['rejected']:>8,}"
        )
    if report.plan_net:
        lines += [
            f"plan-net providers {report.plan_net_joined:,} joined to NPPES,"
            f" {report.plan_net_only:,} from the directory alone",
            f"plan-net coverage  {report.plan_net_coverage:,} in-network rows",
            f"plan-net warnings  {warning_text(report.plan_net_warnings)}",
            f"plan-net normalised {normalised_text(report.plan_net_normalised)}",
        ]
    lines += [
        f"locations          {report.locations:,} in the provider documents",
        f"not geocoded       {report.not_geocoded:,} locations (kept, not in geo search)",
        f"dac NPIs not in NPPES       {report.dac_npis_not_in_nppes:,}",
        f"coverage NPIs not in NPPES  {report.coverage_npis_not_in_nppes:,}",
    ]
    if report.copies == "yellow":
        lines.append(
            f"copies             yellow after {report.copies_wait_s:.0f} s: served with every"
            " primary active, replicas still being placed"
        )
    elif report.copies:
        lines.append(f"copies             {report.copies} after {report.copies_wait_s:.1f} s")
    if report.orphans_removed:
        lines.append(f"orphans removed    {', '.join(report.orphans_removed)}")
    lines.append(
        f"change feed        {report.changes_skipped}"
        if report.changes_skipped
        else f"change feed        {report.changes_recorded:,} changes from the version before"
        f" ({report.changes_s:.1f} s; its digests {report.served_digests})"
    )
    if report.reject_file is not None:
        lines.append(f"reject file        {report.reject_file}")
    rate = report.rows_read / report.elapsed_s if report.elapsed_s else 0.0
    lines += [
        f"elapsed            {report.elapsed_s:.1f} s ({rate:,.0f} NPPES rows/s,"
        f" {report.providers_per_second:,.0f} providers/s)",
        f"cpu                {report.cpu_s:.1f} s in this process",
        f"peak RSS           {report.peak_rss_mb:,.0f} MB",
    ]
    return lines

"""One load: read the sources, write a new version of every index, verify, swap the aliases.

Anything that fails before the swap (bad file, bulk errors over the threshold, Elasticsearch down,
Ctrl-C, SIGTERM) deletes the partial indices and leaves the aliases exactly as they were.
"""

from __future__ import annotations

import csv
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from elasticsearch import AsyncElasticsearch
from tqdm import tqdm

from core.index_contract import IndexKind, IndexNames
from indexer import versions
from indexer.bulk import Action, bulk_index
from indexer.documents import build_documents
from indexer.sources.nppes import Deactivated, Rejected, read_nppes
from indexer.sources.nucc import TaxonomyEntry, read_nucc


@dataclass(frozen=True)
class SourceFiles:
    nppes: Path
    nucc: Path

    @classmethod
    def discover(cls, directory: Path) -> SourceFiles:
        """Find the source files in a directory by their CMS/NUCC file names."""

        def one(pattern: str) -> Path:
            matches = sorted(directory.glob(pattern))
            if not matches:
                raise FileNotFoundError(f"no {pattern} in {directory}")
            return matches[-1]

        return cls(nppes=one("npidata_pfile*.csv*"), nucc=one("nucc_taxonomy*.csv"))


@dataclass(frozen=True)
class LoadOptions:
    names: IndexNames
    shards: int = 1
    replicas: int = 0
    keep_versions: int = 2
    max_bulk_errors: int = 0
    chunk_size: int = 1000
    concurrency: int = 2
    reject_file: Path | None = None
    progress: bool = False


@dataclass
class LoadReport:
    version: str = ""
    rows_read: int = 0
    deactivated: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    expected: Counter[str] = field(default_factory=Counter)
    bulk_failed: Counter[str] = field(default_factory=Counter)
    documents: dict[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def providers_per_second(self) -> float:
        return self.expected["providers"] / self.elapsed_s if self.elapsed_s else 0.0


class LoadError(RuntimeError):
    """The load was abandoned; the aliases were not touched."""


def _actions(
    sources: SourceFiles,
    nucc: dict[str, TaxonomyEntry],
    indices: dict[IndexKind, str],
    report: LoadReport,
    rejects: csv.DictWriter[str] | None,
    progress: bool,
) -> Iterator[Action]:
    rows = tqdm(read_nppes(sources.nppes), unit=" rows", disable=not progress, mininterval=0.5)
    for row in rows:
        report.rows_read += 1
        if isinstance(row, Deactivated):
            report.deactivated += 1
            continue
        if isinstance(row, Rejected):
            report.rejected[row.reason] += 1
            if rejects:
                rejects.writerow({"row": row.row_number, "npi": row.npi, "reason": row.reason})
            continue
        docs = build_documents(row, nucc)
        report.expected["providers"] += 1
        report.expected["search"] += 1
        yield {"_index": indices["providers"], "_id": row.npi, "_source": docs.provider}
        yield {"_index": indices["search"], "_id": row.npi, "_source": docs.search}
        for location in docs.locations:
            report.expected["locations"] += 1
            yield {"_index": indices["locations"], "_id": location["id"], "_source": location}


async def _write(
    es: AsyncElasticsearch,
    sources: SourceFiles,
    options: LoadOptions,
    indices: dict[IndexKind, str],
    report: LoadReport,
) -> None:
    nucc = read_nucc(sources.nucc)
    reject_path = options.reject_file
    # The indexer is a batch process: its file I/O on the loop is deliberate (it overlaps with
    # the bulk requests in flight), unlike the service's.
    with open(reject_path, "w", newline="") if reject_path else nullcontext() as handle:  # noqa: ASYNC230
        writer = csv.DictWriter(handle, ["row", "npi", "reason"]) if handle else None
        if writer:
            writer.writeheader()
        result = await bulk_index(
            es,
            _actions(sources, nucc, indices, report, writer, options.progress),
            chunk_size=options.chunk_size,
            concurrency=options.concurrency,
        )
        if writer:
            for _, doc_id, reason in result.failed:
                writer.writerow({"row": "", "npi": doc_id, "reason": f"bulk: {reason}"})
    kind_of = {index: kind for kind, index in indices.items()}
    for index, _, _ in result.failed:
        report.bulk_failed[kind_of.get(index, index)] += 1
    if len(result.failed) > options.max_bulk_errors:
        raise LoadError(
            f"{len(result.failed)} documents failed to index (allowed {options.max_bulk_errors});"
            f" first: {result.failed[0][2]}"
        )


async def load(es: AsyncElasticsearch, sources: SourceFiles, options: LoadOptions) -> LoadReport:
    """Build and publish a new version; returns the report. Raises with aliases untouched."""
    started = time.monotonic()
    report = LoadReport(version=versions.new_version())
    indices = await versions.create_version(es, options.names, report.version, options.shards)
    try:
        await _write(es, sources, options, indices, report)
        await versions.finish_version(es, list(indices.values()), options.replicas)
        report.documents = await versions.count_documents(es, indices)
        _verify(report)
        await versions.swap_aliases(es, options.names, report.version)
    except BaseException:
        await versions.delete_indices(es, list(indices.values()))
        raise
    await versions.prune(es, options.names, keep=options.keep_versions)
    report.elapsed_s = time.monotonic() - started
    return report


def _verify(report: LoadReport) -> None:
    wrong = {
        kind: (report.documents.get(kind, 0), expected)
        for kind, expected in report.expected.items()
        if report.documents.get(kind, 0) != expected - report.bulk_failed[kind]
    }
    if wrong:
        raise LoadError(f"document counts differ from rows read (indexed, expected): {wrong}")

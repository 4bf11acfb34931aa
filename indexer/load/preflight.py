"""Before a load writes anything: will the new version fit on Elasticsearch's disks?

A national load that fills the disk two thirds of the way through fails late and leaves
Elasticsearch refusing writes. The row count is estimated from the first rows of the NPPES file
(their share of the file's bytes on disk, gzip or not), and each provider's documents take
about ``BYTES_PER_PROVIDER`` on disk (measured at 1M and 9M, BENCHMARKS.md), once per copy.
The serving version stays until the swap, so it is not counted as free.
"""

from __future__ import annotations

from pathlib import Path

from elasticsearch import AsyncElasticsearch

from indexer.sources.csvfiles import ReadPosition
from indexer.sources.nppes import read_nppes

BYTES_PER_PROVIDER = 1_300  # lookup + search documents: 1.21 KB measured at 9M, rounded up
MERGE_HEADROOM = 1.25  # a merge writes its new segment before the old ones go
SAMPLE_ROWS = 20_000


class NotEnoughDisk(RuntimeError):
    pass


def estimated_rows(path: Path) -> int:
    """The NPPES file's row count: exact for a small file, else from its first rows' share."""
    position = ReadPosition()
    rejected = 0

    def count_rejected(source: str, row: int, npi: str, reason: str) -> None:
        nonlocal rejected
        rejected += 1

    rows = read_nppes(path, count_rejected, position)
    counted = 0
    for _ in rows:  # every row counts, rejected or not
        counted += 1
        if counted + rejected >= SAMPLE_ROWS:
            break
    counted += rejected
    read = position.bytes_read()  # 0 when the reader reached the end (it closes the file)
    del rows
    if counted < SAMPLE_ROWS or read == 0:
        return counted
    return int(counted * path.stat().st_size / read)


def needed_bytes(rows: int, replicas: int) -> int:
    return int(rows * BYTES_PER_PROVIDER * (1 + replicas) * MERGE_HEADROOM)


async def check_disk(es: AsyncElasticsearch, nppes: Path, replicas: int) -> None:
    """NotEnoughDisk, with the figures, when the cluster's data disks cannot hold the version."""
    stats = await es.nodes.stats(metric="fs")
    free = sum(
        int(node["fs"]["total"]["available_in_bytes"])
        for node in stats["nodes"].values()
        if "fs" in node and node["fs"].get("total")
    )
    rows = estimated_rows(nppes)
    need = needed_bytes(rows, replicas)
    if need > free:
        raise NotEnoughDisk(
            f"{nppes.name} has about {rows:,} rows: a version needs about {need / 2**30:.1f} GiB"
            f" on Elasticsearch's disks (with {replicas} replica(s) and merge headroom), and"
            f" {free / 2**30:.1f} GiB are free. Free space (e.g. --keep-versions 1 on the"
            " previous load, or `provider-indexer rollback` targets you no longer need) or add"
            " disk; nothing was written. --no-disk-check skips this estimate."
        )

"""Where a load's Elasticsearch work goes, per index: documents, Lucene documents (nested ones
included), time spent indexing, merging, refreshing and flushing, and size on disk.

Usage (after a load under --prefix; the figures are those of the version it serves):
    python -m bench.index_costs --prefix PREFIX [--es-url URL] [--providers N]

Indexing, merge, refresh and flush times are Elasticsearch's own per-index counters: thread
time, close to CPU time on a box whose cores are busy. ``--providers`` divides them into
microseconds per provider.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from core.es_client import make_client
from devtools.settings import LauncherSettings


async def index_costs(es_url: str, prefix: str) -> list[dict[str, Any]]:
    es = make_client(es_url)
    try:
        stats = await es.indices.stats(
            index=f"{prefix}-*", metric="docs,indexing,merge,refresh,flush,store,segments"
        )
        aliases = await es.indices.get_alias(index=f"{prefix}-*")
        served = [i for i in sorted(stats["indices"]) if aliases.get(i, {}).get("aliases")]
        docs = {i: int((await es.count(index=i))["count"]) for i in served}
    finally:
        await es.close()
    rows = []
    for index in served:
        total = stats["indices"][index]["primaries"]
        rows.append(
            {
                "index": next(iter(aliases[index]["aliases"])),
                "docs": docs[index],
                "lucene_docs": total["docs"]["count"],
                "index_s": total["indexing"]["index_time_in_millis"] / 1000,
                "merge_s": total["merges"]["total_time_in_millis"] / 1000,
                "refresh_s": total["refresh"]["total_time_in_millis"] / 1000,
                "flush_s": total["flush"]["total_time_in_millis"] / 1000,
                "size_mb": total["store"]["size_in_bytes"] / 2**20,
                "segments": total["segments"]["count"],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], providers: int | None) -> str:
    per = " | µs/provider (index+merge+refresh+flush)" if providers else ""
    lines = [
        "| index | docs | Lucene docs | index s | merge s | refresh s | flush s | MB | segments"
        + per
        + " |",
        "|---" * (9 + bool(providers)) + "|",
    ]
    for row in rows:
        work = row["index_s"] + row["merge_s"] + row["refresh_s"] + row["flush_s"]
        cost = f" | {work / providers * 1e6:.0f}" if providers else ""
        lines.append(
            f"| {row['index']} | {row['docs']:,} | {row['lucene_docs']:,} | {row['index_s']:.1f}"
            f" | {row['merge_s']:.1f} | {row['refresh_s']:.1f} | {row['flush_s']:.1f}"
            f" | {row['size_mb']:,.0f} | {row['segments']}{cost} |"
        )
    return "\n".join(lines)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--providers", type=int, help="divide the times per provider")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    print(table(asyncio.run(index_costs(args.es_url, args.prefix)), args.providers))


if __name__ == "__main__":
    main()

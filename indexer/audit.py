"""``provider-indexer audit --plan-net DIR [--name NAME] [--json]``: a payer's Plan-Net export
scored before it is published, without loading it into what is served.

The export is read as a load reads it (its rejects counted, not written), each provider it lists
is rebuilt against what the live version serves for its NPI as ``update --plan-net`` would
rebuild it (indexer.update.plan_net_rebuild: one rule), and the scorecard is counted by the
rule every load and update counts by (indexer.assembly.scorecard). A directory whose name is a
loaded one's is scored as if it replaced it. Nothing is written: no index, no version, no lock.

What the live version cannot know it does not claim: an NPI it holds nothing of is taken for
one NPPES does not hold (``npi_not_in_nppes``), even if the NPPES file deactivated it, since
deactivated NPIs are not kept; a provider a load found deactivated keeps that note.
"""

from __future__ import annotations

import asyncio
from itertools import islice
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.changes import now
from core.clock import today_utc
from core.index_contract import IndexNames
from core.scorecards import CHECK_BASES, CHECK_MEANINGS, DirectoryDoc
from indexer.assembly.scorecard import ListingTally, directory_facts, scorecard
from indexer.provenance import JoinFiles, recorded_join_files
from indexer.sources.nucc import read_nucc
from indexer.sources.plan_net import read_plan_net
from indexer.sources.rejects import ignore_rejects
from indexer.update import indexed as current
from indexer.update.live_version import live_version
from indexer.update.plan_net_rebuild import Rebuilder
from indexer.update.scorecards import stored_scorecard

BATCH = 2000  # providers read from the live version per round trip


async def audit_plan_net(
    es: AsyncElasticsearch,
    names: IndexNames,
    path: Path,
    name: str | None = None,
    join_files: JoinFiles | None = None,
) -> DirectoryDoc:
    """The scorecard the export in ``path`` would have if it were loaded as ``name`` (default:
    the directory's name) into the live version under ``names``."""
    live = await live_version(es, names)
    files = join_files or recorded_join_files(live.record.get("sources"))
    nucc = await asyncio.to_thread(read_nucc, files.nucc)
    directory = await asyncio.to_thread(read_plan_net, path, ignore_rejects, name)
    try:
        rebuilder = Rebuilder(directory, nucc, today_utc())
        tally = ListingTally(directory.source)
        npis = iter(directory.providers)
        while batch := list(islice(npis, BATCH)):
            # Coverage rows are not read: they change a provider's networks, which no check asks.
            lookups = await current.documents(es, live.indices["providers"], batch)
            for npi in batch:
                docs, _ = rebuilder.rebuild(npi, lookups.get(npi), {})
                if docs is not None:
                    tally.add(docs.provider, docs.locations)
        facts = directory_facts(directory)
        stored = await stored_scorecard(es, live.indices["directories"], directory.source)
        return scorecard(directory.name, facts, tally, now(), stored)
    finally:
        directory.spill.close()


def scorecard_lines(card: DirectoryDoc) -> list[str]:
    """The scorecard as a table for a person: what it holds, then each check."""
    holds, fresh = card["holds"], card["freshness"]
    lines = [
        f"directory   {card['name']} ({card['source']})",
        f"holds       {holds['providers']:,} providers, {holds['locations']:,} locations,"
        f" {holds['plans']:,} plans, {holds['networks']:,} networks",
        f"freshness   oldest {fresh['oldest'] or '-'}, median {fresh['median'] or '-'},"
        f" newest {fresh['newest'] or '-'}",
        "",
        f"{'check':<26}{'count':>8}{'rate':>9}  {'of':<10} examples",
    ]
    for code, check in card["checks"].items():
        lines.append(
            f"{code:<26}{check['count']:>8,}{check['rate']:>9.2%}  {CHECK_BASES[code]:<10}"
            f" {', '.join(check['examples'])}"
        )
    lines += ["", *(f"{code:<26}{CHECK_MEANINGS[code]}" for code in card["checks"])]
    return lines

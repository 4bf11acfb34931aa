"""The Plan Finder files in the plans index: every plan with its facts, every county row placed
or rejected with its reason, star ratings of the plan year (expectations from the files, with
the Census county list of ``addfips`` and state names of ``us``, never the indexer's code)."""

from __future__ import annotations

import csv
from collections import Counter

import addfips
import us
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.plans import plan_doc_id
from indexer.load.run import LoadReport, SourceFiles
from tests.service.plans import plan_files

Loaded = tuple[IndexNames, LoadReport]


def _state_code(name: str) -> str:
    found = us.states.lookup(name.replace("_", " ").strip())
    return found.abbr if found else name


def unplaced_county_rows() -> list[int]:
    """Row numbers of county rows whose state is not given (the "SC_dir" scrape) and whose
    county is in none of the plan's states."""
    finder = addfips.AddFIPS()
    states = {
        b: [_state_code(s) for s in r["states"].split(";") if s.strip()]
        for b, r in plan_files.plans().items()
    }
    unplaced = []
    for number, row in enumerate(plan_files.county_rows(), start=1):
        if len(row["state_dir"]) == 2:
            continue
        candidates = states.get(plan_files.bid(row["bid_id"]), [])
        county = row["county"].replace("_", " ")
        if not any(finder.get_county_fips(county, state=s) for s in candidates):
            unplaced.append(number)
    return unplaced


async def test_every_plan_file_row_is_placed_or_rejected(loaded_sample: Loaded) -> None:
    _, report = loaded_sample
    rejected = {
        (source, reason): count for (source, reason), count in report.source_rejected.items()
    }
    assert rejected == {
        ("medicare_plan_finder_2026_plan_county.csv", "county_not_in_plan_states"): len(
            unplaced_county_rows()
        )
    }
    assert report.reject_file is not None
    lines = report.reject_file.read_text(encoding="utf-8").splitlines()
    rows = list(csv.reader(lines))[1:]
    assert sorted(int(r[1]) for r in rows) == unplaced_county_rows()


async def test_every_plan_is_stored_with_its_rating(
    es: AsyncElasticsearch, loaded_sample: Loaded, sample_sources: SourceFiles
) -> None:
    names, _ = loaded_sample
    assert sample_sources.star_ratings and sample_sources.plan_details
    ids = [plan_doc_id(2026, b) for b in plan_files.plans()]
    found = await es.mget(index=names.alias("plans"), ids=ids)
    docs = [d["_source"] for d in found["docs"] if d["found"]]
    assert len(docs) == len(ids)
    rated = Counter(d["starRating"] is not None for d in docs)
    expected = Counter(
        (r["contract_id"], 2026) in plan_files.star_rows() for r in plan_files.plans().values()
    )
    assert rated == expected
    assert all(d["starRating"]["year"] == 2026 for d in docs if d["starRating"])

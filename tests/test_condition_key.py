"""The relevance bench's condition answer key (bench/condition_key.json) is well formed: NUCC
codes only, every query answerable, none twice."""

from __future__ import annotations

import csv
import json

from bench.relevance_conditions import CONDITION_KEY, condition_terms
from tests.conftest import SAMPLE_DIR


def test_the_condition_key_is_well_formed() -> None:
    data = json.loads(CONDITION_KEY.read_text(encoding="utf-8"))
    assert data["provenance"] and data["review"]
    with (SAMPLE_DIR / "nucc_taxonomy_251.csv").open(encoding="utf-8-sig") as handle:
        nucc = {row["Code"] for row in csv.DictReader(handle)}
    queries = [entry["query"] for entry in data["queries"]]
    assert len(queries) >= 100 and len(set(queries)) == len(queries)
    for entry in data["queries"]:
        assert entry["accepted"] and set(entry["accepted"]) <= nucc, entry["query"]
    assert [query for query, _ in condition_terms()] == queries

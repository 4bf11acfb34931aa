"""The condition class of the relevance harness: queries about what is wrong, from the answer
key ``bench/condition_key.json`` (written from NUCC's definitions, independently of the
service's concept list; its provenance and review are in the file)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.relevance_specialties import Specialty

CONDITION_KEY = Path(__file__).with_name("condition_key.json")


def condition_terms() -> list[tuple[str, Specialty]]:
    """(query, the specialties that fit it) for every query of the key."""
    entries = json.loads(CONDITION_KEY.read_text(encoding="utf-8"))["queries"]
    return [
        (e["query"], Specialty(e["query"], tuple(e["accepted"]), None, (e["query"],), ()))
        for e in entries
    ]

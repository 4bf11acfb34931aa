"""The fixed requests of the node-loss scenario, taken from the sample's NPPES file (read with
tests/source_rows.py, not by the indexer): lookups of providers spread over the file, and
searches of several kinds (names, an organisation, a taxonomy near a ZIP, a city, coordinates by
distance, filters on a second page, a query the rescue path answers, one that matches nothing)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from core.documents import Json
from tests.source_rows import active_rows

LOWER_MANHATTAN = {"lat": 40.7128, "lng": -74.0060}
LOOKUPS_PER_KIND = 3
CITY = "Provider Business Practice Location Address City Name"
STATE = "Provider Business Practice Location Address State Name"
ZIP = "Provider Business Practice Location Address Postal Code"


@dataclass(frozen=True)
class Call:
    label: str  # the kind of request, for figures
    method: str
    path: str
    body: Json | None = None

    @property
    def key(self) -> str:
        body = orjson.dumps(self.body, option=orjson.OPT_SORT_KEYS).decode() if self.body else ""
        return f"{self.method} {self.path} {body}"


def _spread(rows: list[dict[str, str]], count: int) -> list[dict[str, str]]:
    """``count`` rows evenly spaced over the file, so their NPIs fall on both shards."""
    step = max(1, len(rows) // count)
    return rows[::step][:count]


def _search(label: str, **body: Any) -> Call:
    return Call(f"search: {label}", "POST", "/v2/providers/search", body)


def sample_calls(nppes: Path) -> list[Call]:
    rows = active_rows(nppes)
    people = [row for row in rows if row["Entity Type Code"] == "1"]
    organisations = [row for row in rows if row["Entity Type Code"] == "2"]
    chosen = _spread(people, LOOKUPS_PER_KIND) + _spread(organisations, LOOKUPS_PER_KIND)
    lookups = [
        Call(label, "GET", path.format(npi=row["NPI"]))
        for row in chosen
        for label, path in (
            ("provider", "/v2/providers/{npi}"),
            ("locations", "/v2/providers/{npi}/locations"),
        )
    ]
    person, organisation = people[len(people) // 2], organisations[len(organisations) // 3]
    chicago = next(row for row in people if row[CITY] == "CHICAGO" and row[STATE] == "IL")
    last = person["Provider Last Name (Legal Name)"]
    searches = [
        _search("name", query=f"{person['Provider First Name']} {last}"),
        _search(
            "organization", query=organisation["Provider Organization Name (Legal Business Name)"]
        ),
        _search(
            "taxonomy near a ZIP",
            taxonomyCode=person["Healthcare Provider Taxonomy Code_1"],
            location={"zip": person[ZIP][:5]},
            radius=10,
        ),
        _search(
            "name in a city",
            query=chicago["Provider Last Name (Legal Name)"],
            location={"city": chicago[CITY].title(), "state": chicago[STATE]},
        ),
        _search("coordinates by distance", location=LOWER_MANHATTAN, radius=2, pageSize=20),
        _search(
            "filters, second page",
            location={"zip": chicago[ZIP][:5]},
            gender=chicago["Provider Sex Code"],
            entityType="individual",
            pageSize=10,
            offset=10,
        ),
        _search("a word dropped", query=f"{last} qqzzyx"),
        _search("no match", query="zzqqxxyy"),
    ]
    return lookups + searches

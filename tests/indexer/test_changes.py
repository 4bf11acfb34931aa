"""When each resource last changed, and what an update removed (core.changes): a load stamps
everything with its start, an NPPES update stamps exactly what its file adds or changes and
records the FHIR resources it removes: an individual's roles (one per network, its one role in
none), an organisation's affiliation only when it was in a network."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

import tests.conftest as shared
from core.index_contract import IndexKind, IndexNames
from indexer.generate.weekly import UpdateCounts, UpdateStats, generate_update
from indexer.load.run import SourceFiles
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.source_rows import canonical_bid, coverage_rows, nppes_rows

WEEK = UpdateCounts(new=20, changed=60, deactivated=15, reactivated=5, stale=5, invalid=2)
_OWN = {"1": ("Practitioner", "PractitionerRole"), "2": ("Organization", "OrganizationAffiliation")}


@pytest.fixture
def week(tmp_path: Path, sample_sources: SourceFiles) -> UpdateStats:
    return generate_update(sample_sources.nppes_file, tmp_path / "week.csv", WEEK, seed=11)


async def _sources(es: AsyncElasticsearch, names: IndexNames, kind: IndexKind) -> dict[str, Any]:
    await es.indices.refresh(index=names.alias(kind))
    query: dict[str, Any] = {"query": {"match_all": {}}}
    return {
        hit["_id"]: hit["_source"]
        async for hit in async_scan(es, index=names.alias(kind), query=query)
    }


def _networks() -> defaultdict[str, set[tuple[str, str]]]:
    """NPI -> the plan years (contract year, bid id) of its in-network rows in the sample's
    coverage file, in force or not: a search document keeps every period."""
    found: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in coverage_rows(shared.SAMPLE_DIR):
        if row["network_status"] == "in_network":
            found[row["npi"]].add((row["contract_year"], canonical_bid(row["bid_id"])))
    return found


def _location_ids(search: dict[str, Any]) -> list[str]:
    return [place["id"] for place in search["locations"]]


def _version_instant(version: str) -> str:
    """The version's name is when its load began: ``YYYYmmddtHHMMSS`` and microseconds."""
    day, time = version[:8], version[9:15]
    return f"{day[:4]}-{day[4:6]}-{day[6:]}T{time[:2]}:{time[2:4]}:{time[4:]}Z"


async def test_a_load_stamps_every_resource_with_its_start(
    es: AsyncElasticsearch, sample_copy: shared.SampleCopy
) -> None:
    loaded = _version_instant(sample_copy.report.version)
    for kind in ("search", "plans"):
        docs = await _sources(es, sample_copy.names, kind)
        assert docs and {doc["changedAt"] for doc in docs.values()} == {loaded}, kind
    assert await _sources(es, sample_copy.names, "removals") == {}


async def test_an_nppes_update_stamps_what_changed_and_records_what_it_removed(
    es: AsyncElasticsearch,
    sample_sources: SourceFiles,
    sample_copy: shared.SampleCopy,
    week: UpdateStats,
    tmp_path: Path,
) -> None:
    names = sample_copy.names
    before = await _sources(es, names, "search")
    started = datetime.now(UTC).replace(microsecond=0)

    report = await update_nppes(
        es, week.out, UpdateOptions(names=names, reject_file=tmp_path / "r.csv")
    )

    after = await _sources(es, names, "search")
    stamped = {
        npi
        for npi, doc in after.items()
        if doc["changedAt"] != before.get(npi, {}).get("changedAt")
    }
    npis = week.npis
    assert stamped == {*npis.new, *npis.reactivated, *npis.changed}
    assert {after[npi]["changedAt"] for npi in stamped} == {report.changed_at}
    assert datetime.fromisoformat(report.changed_at) >= started

    entity = {row["NPI"]: row["Entity Type Code"] for row in nppes_rows(sample_sources.nppes_file)}
    networks = _networks()
    expected = set()
    roles: dict[str, int] = {}  # NPI -> its roles in networks (<npi>-<plan year> each)
    for npi in npis.deactivated:
        own, in_network = _OWN[entity[npi]]
        expected.add(f"{own}/{npi}")
        if own == "Organization" and networks[npi]:
            expected.add(f"{in_network}/{npi}")
        elif own == "Practitioner" and not networks[npi]:
            expected.add(f"{in_network}/{npi}")  # its one role, in no network
        elif own == "Practitioner":
            roles[npi] = len(networks[npi])
        expected |= {f"Location/{place}" for place in _location_ids(before[npi])}
    for npi in npis.changed:  # a changed address is a Location gone and another one new
        gone = set(_location_ids(before[npi])) - set(_location_ids(after[npi]))
        expected |= {f"Location/{place}" for place in gone}
    removals = await _sources(es, names, "removals")
    in_networks = {
        npi: {r for r in removals if r.startswith(f"PractitionerRole/{npi}-")} for npi in roles
    }
    assert {npi: len(found) for npi, found in in_networks.items()} == roles
    expected |= {role for found in in_networks.values() for role in found}
    assert set(removals) == expected and report.removals == len(expected)
    assert {r["removedAt"] for r in removals.values()} == {report.changed_at}
    assert all(f"{r['resourceType']}/{r['id']}" == key for key, r in removals.items())

"""An incremental ``$export``: after an ``update --nppes`` whose file adds, changes and
deactivates known NPIs, ``_since`` the previous export's ``transactionTime`` gives exactly the
resources of the NPIs it added or changed, and lists exactly those it removed. Expected from the
update's input (the generated file: which NPIs, of which kind), the sample's coverage file (the
networks a provider's roles are in today), and the search documents (the locations an NPI has,
before and after); what was removed, from the export the client had before."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan
from yarl import URL

from core.plan_net_codes import NETWORK_REFERENCE
from indexer.generate.weekly import UpdateCounts, generate_update
from indexer.load.run import SourceFiles
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, ApiClient, SampleCopy, Serve, settings_for
from tests.source_rows import canonical_bid, coverage_rows, in_force, nppes_rows

ASYNC = {"Prefer": "respond-async"}
PROVIDER_TYPES = "Practitioner,PractitionerRole,Organization,OrganizationAffiliation,Location"
WEEK = UpdateCounts(new=20, changed=60, deactivated=15, reactivated=5, stale=5, invalid=2)
OWN = {"1": "Practitioner", "2": "Organization"}


async def _export(api: ApiClient, query: str) -> dict[str, Any]:
    kick_off = await api.get(f"/fhir/$export?_type={PROVIDER_TYPES}{query}", headers=ASYNC)
    assert kick_off.status == 202, await kick_off.text()
    status = await api.get(URL(kick_off.headers["Content-Location"]).path)
    assert status.status == 200, await status.text()
    return dict(await status.json())


async def _lines(api: ApiClient, entries: list[dict[str, str]]) -> list[dict[str, Any]]:
    found = []
    for entry in entries:
        response = await api.get(URL(entry["url"]).path)
        assert response.status == 200, await response.text()
        found += [orjson.loads(line) for line in (await response.read()).splitlines()]
    return found


def _roles_in(ids: set[str], npi: str) -> set[str]:
    """A provider's roles (``PractitionerRole/<npi>``, or one ``<npi>-<plan year>`` per network)
    and its affiliation among ``ids``."""
    alone = {f"PractitionerRole/{npi}", f"OrganizationAffiliation/{npi}"}
    return {i for i in ids if i in alone or i.startswith(f"PractitionerRole/{npi}-")}


async def _exported(api: ApiClient, manifest: dict[str, Any]) -> set[str]:
    return {f"{r['resourceType']}/{r['id']}" for r in await _lines(api, manifest["output"])}


async def _deleted(api: ApiClient, manifest: dict[str, Any]) -> set[str]:
    bundles = await _lines(api, manifest.get("deleted", []))
    assert all(b["resourceType"] == "Bundle" and b["type"] == "transaction" for b in bundles)
    requests = [entry["request"] for bundle in bundles for entry in bundle["entry"]]
    assert {request["method"] for request in requests} <= {"DELETE"}
    return {request["url"] for request in requests}


def _location_ids(search: dict[str, Any]) -> list[str]:
    return [place["id"] for place in search["locations"]]


async def _search_docs(es: AsyncElasticsearch, alias: str) -> dict[str, Any]:
    await es.indices.refresh(index=alias)
    query: dict[str, Any] = {"query": {"match_all": {}}}
    return {hit["_id"]: hit["_source"] async for hit in async_scan(es, index=alias, query=query)}


async def test_since_the_last_export_gives_exactly_what_an_nppes_update_changed_and_removed(
    serve: Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
    tmp_path: Path,
) -> None:
    names = sample_copy.names
    api = await serve(settings_for(es_url, names))
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", WEEK, seed=11)
    before = await _search_docs(es, names.alias("search"))
    previous = await _export(api, "")

    await update_nppes(es, week.out, UpdateOptions(names=names, reject_file=tmp_path / "r.csv"))

    after = await _search_docs(es, names.alias("search"))
    incremental = await _export(api, f"&_since={previous['transactionTime']}")
    exported = await _lines(api, incremental["output"])
    npis = week.npis
    touched = {*npis.new, *npis.reactivated, *npis.changed}
    entity = {r["NPI"]: r["Entity Type Code"] for r in nppes_rows(sample_sources.nppes_file)}
    entity |= {r["NPI"]: r["Entity Type Code"] for r in nppes_rows(week.out) if r["NPI"] in touched}
    individuals = {npi for npi in touched if entity[npi] == "1"}
    organizations = touched - individuals
    in_network = _networks_today()
    # Each NPI the file adds or changes: its own resource; an individual's role in each network
    # the coverage file has it in today (one without any: its one role); an organisation's
    # affiliation when it is in one; the locations the provider has now.
    expected = Counter(
        {f"Practitioner/{npi}": 1 for npi in individuals}
        | {f"Organization/{npi}": 1 for npi in organizations}
        | {f"OrganizationAffiliation/{npi}": 1 for npi in organizations if in_network[npi]}
        | {f"Location/{place}": 1 for npi in touched for place in _location_ids(after[npi])}
        | {f"PractitionerRole of {npi}": max(1, len(in_network[npi])) for npi in individuals}
    )
    assert expected and Counter(_named(r) for r in exported) == expected
    roles = [r for r in exported if r["resourceType"] == "PractitionerRole"]
    networks = {(r["practitioner"]["reference"], *_network_references(r)) for r in roles}
    assert len(networks) == len(roles)  # each role of a provider in another network

    exported_before = await _exported(api, previous)
    removed: set[str] = set()
    for npi in npis.deactivated:
        removed.add(f"{OWN[entity[npi]]}/{npi}")
        removed |= _roles_in(exported_before, npi)  # what the client had of it
        removed |= {f"Location/{place}" for place in _location_ids(before[npi])}
    for npi in npis.changed:
        removed |= {
            f"Location/{p}"
            for p in set(_location_ids(before[npi])) - set(_location_ids(after[npi]))
        }
    deleted = await _deleted(api, incremental)
    assert deleted and deleted == removed
    assert not deleted & {f"{r['resourceType']}/{r['id']}" for r in exported}


def _networks_today() -> defaultdict[str, set[tuple[str, str]]]:
    """NPI -> the plan years (contract year, bid id) the sample's coverage file has it in
    network on the day the service is pinned to."""
    found: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in coverage_rows(SAMPLE_DIR):
        if row["network_status"] == "in_network" and in_force(row, SAMPLE_TODAY):
            found[row["npi"]].add((row["contract_year"], canonical_bid(row["bid_id"])))
    return found


def _named(resource: dict[str, Any]) -> str:
    """A resource as the expectations name it: its type and id; a role by its practitioner."""
    if resource["resourceType"] == "PractitionerRole":
        practitioner = resource["practitioner"]["reference"].removeprefix("Practitioner/")
        return f"PractitionerRole of {practitioner}"
    return f"{resource['resourceType']}/{resource['id']}"


def _network_references(role: dict[str, Any]) -> list[str]:
    return [
        e["valueReference"]["reference"]
        for e in role.get("extension", [])
        if e["url"] == NETWORK_REFERENCE
    ]

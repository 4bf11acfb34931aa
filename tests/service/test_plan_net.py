"""A payer's Plan-Net directory loaded beside the NPPES sample, then updated, on a real
Elasticsearch: languages found by search, coverage of the directory's plans, exact points,
providers joined to NPPES by NPI or served from the directory alone. Expectations come from the
export's files (tests.plan_net_rows), never from the indexer's reading of them."""

from __future__ import annotations

import gzip
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.update.options import UpdateOptions
from indexer.update.plan_net import update_plan_net
from tests.conftest import ApiClient, Serve, bearer, settings_for
from tests.plan_net_rows import (
    NEW_HAVEN,
    PLAN_NET_DIR,
    languages,
    npi_of,
    positions,
    practitioner_of,
    resources,
    role_networks,
    usable_practitioners,
)
from tests.source_rows import active_rows, miles

SOURCE = "plan-net:payer"
GREEN_CIRCLE_CT = "Organization/plannet-network-HPID050000"  # plan HPID280000 uses it
ACME_MA = "Organization/plannet-network-HPID070000"  # plan H1234-001-001 uses it
NEVER_ISSUED = "1234567893"  # a valid NPI nobody in the sample or the export has


def _joined_export(sample: Path, npi: str, row: dict[str, str], spoken: list[str]) -> list[Any]:
    """A practitioner of the NPPES sample in the Green Circle network at its NPPES address."""
    address = {
        "line": [row["Provider First Line Business Practice Location Address"]],
        "city": row["Provider Business Practice Location Address City Name"],
        "state": row["Provider Business Practice Location Address State Name"],
        "postalCode": row["Provider Business Practice Location Address Postal Code"],
    }
    network = "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/network-reference"
    return [
        {
            "resourceType": "Practitioner",
            "id": f"joined-{npi}",
            "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi", "value": npi}],
            "communication": [
                {"coding": [{"system": "urn:ietf:bcp:47", "code": code}]} for code in spoken
            ],
        },
        {
            "resourceType": "Location",
            "id": f"joined-{npi}",
            "address": address,
            "position": {"latitude": 40.7, "longitude": -74.0},
        },
        {
            "resourceType": "PractitionerRole",
            "id": f"joined-{npi}",
            "practitioner": {"reference": f"Practitioner/joined-{npi}"},
            "location": [{"reference": f"Location/joined-{npi}"}],
            "extension": [{"url": network, "valueReference": {"reference": GREEN_CIRCLE_CT}}],
        },
    ]


def _export(directory: Path, joined: list[Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for path in PLAN_NET_DIR.glob("*.ndjson.gz"):  # plain, so a test can edit them
        (directory / path.stem).write_bytes(gzip.decompress(path.read_bytes()))
    for kind in ("Practitioner", "Location", "PractitionerRole"):
        lines = [json.dumps(r) for r in joined if r["resourceType"] == kind]
        (directory / f"joined_{kind}.ndjson").write_text("\n".join(lines) + "\n")
    return directory


@pytest.fixture(scope="module")
def sample_individual(sample_sources: SourceFiles) -> tuple[str, dict[str, str]]:
    assert sample_sources.nppes_file is not None
    row = next(
        r
        for r in active_rows(sample_sources.nppes_file)
        if r["Entity Type Code"] == "1"
        and r["Provider Business Practice Location Address Country Code (If outside U.S.)"]
        in ("", "US")
    )
    return row["NPI"], row


@pytest.fixture(scope="module")
async def directory_loaded(
    es: AsyncElasticsearch,
    sample_sources: SourceFiles,
    sample_individual: tuple[str, dict[str, str]],
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[IndexNames, Path]]:
    npi, row = sample_individual
    export = _export(
        tmp_path_factory.mktemp("exports") / "payer",
        _joined_export(sample_sources.nppes_file or Path(), npi, row, ["es", "vi"]),
    )
    names = IndexNames(f"test-plannet-{uuid.uuid4().hex[:8]}")
    sources = SourceFiles(**{**sample_sources.__dict__, "plan_net": export})
    report = await load(es, sources, LoadOptions(names=names))
    assert report.accounted and report.plan_net_joined == 1
    yield names, export
    await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)


@pytest.fixture
def served_names(directory_loaded: tuple[IndexNames, Path]) -> IndexNames:
    """This module's ``api`` serves the sample with the payer's directory."""
    return directory_loaded[0]


async def _post(api: ApiClient, auth: dict[str, str], path: str, body: Any) -> Any:
    response = await api.post(path, json=body, headers=auth)
    assert response.status == 200, await response.text()
    return await response.json()


async def test_spanish_near_new_haven_finds_who_the_directory_says_speaks_it(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    practitioners = usable_practitioners()
    points = positions()
    expected = {
        npi_of(practitioners[practitioner_of(role)])
        for role in resources("PractitionerRole")
        if practitioner_of(role) in practitioners
        and "es" in languages(practitioners[practitioner_of(role)])
        and any(
            miles(points[loc["reference"]], (NEW_HAVEN["lat"], NEW_HAVEN["lng"])) <= 25
            for loc in role.get("location", [])
            if loc["reference"] in points
        )
    }
    answer = await _post(
        api,
        auth_header,
        "/v2/providers/search",
        {"query": "spanish", "location": NEW_HAVEN, "radius": 25, "pageSize": 100},
    )
    found = {result["npis"][0] for result in answer["results"]}
    assert expected and found == expected
    for result in answer["results"]:
        assert "Spanish" in result["languages"]
        assert result["languageSources"] == [SOURCE]
        assert result["sources"] == [SOURCE]  # the directory alone lists them


async def load_with_week1(
    es: AsyncElasticsearch,
    names: IndexNames,
    sample_sources: SourceFiles,
    individual: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    """The sample loaded under ``names`` with a payer's first export (``payer``): the reference
    export, the sample individual joined to it and speaking Spanish."""
    npi, row = individual
    week1 = _export(tmp_path / "week1", _joined_export(Path(), npi, row, ["es"]))
    sources = SourceFiles(
        **{**sample_sources.__dict__, "plan_net": week1, "plan_net_name": "payer"}
    )
    await load(es, sources, LoadOptions(names=names))


def _unlist(directory: Path, npi: str) -> None:
    """The export in ``directory`` without the practitioner ``npi`` and its roles."""
    gone = {f"Practitioner/{r['id']}" for r in resources("Practitioner") if npi_of(r) == npi}
    for kind, key in (("Practitioner", None), ("PractitionerRole", "practitioner")):
        path = next(directory.glob(f"*nppes-data_{kind}.ndjson"))
        kept = [
            line
            for line in path.read_text().splitlines()
            if (
                f"Practitioner/{json.loads(line)['id']}"
                if key is None
                else json.loads(line)[key]["reference"]
            )
            not in gone
        ]
        path.write_text("\n".join(kept) + "\n")


def _in_network(network: str) -> tuple[set[str], set[str]]:
    """NPIs with a role in ``network``, and the directory's other practitioners."""
    practitioners = usable_practitioners()
    members: set[str] = set()
    for role in resources("PractitionerRole"):
        ref = practitioner_of(role)
        if ref in practitioners and network in role_networks(role):
            members.add(npi_of(practitioners[ref]) or "")
    others = {npi_of(p) or "" for p in practitioners.values()} - members
    return members, others


@pytest.mark.parametrize(
    ("plans", "network"),
    [({"payerPlanIds": ["HPID280000"]}, GREEN_CIRCLE_CT), ({"bidIds": ["H1234-001-001"]}, ACME_MA)],
)
async def test_coverage_of_a_directory_plan(
    api: ApiClient, auth_header: dict[str, str], plans: dict[str, list[str]], network: str
) -> None:
    members, others = _in_network(network)
    member, other = sorted(members)[0], sorted(others)[0]
    body = {
        "contractYear": 2026,
        **plans,
        "npis": [{"npi": n} for n in (member, other, NEVER_ISSUED)],
    }
    [plan] = await _post(api, auth_header, "/v2/providers/coverage", body)
    statuses = {p["npi"]: (p["networkStatus"], p["reason"]) for p in plan["providers"]}
    assert statuses == {
        member: ("in_network", None),
        other: ("out_of_network", "no_participation_record"),
        NEVER_ISSUED: ("unknown", "provider_not_found"),
    }
    assert plan["plan"]["source"] == SOURCE
    in_force = [
        loc
        for p in plan["providers"]
        for loc in p["locations"]
        if loc["networkStatus"] == "in_network"
    ]
    assert in_force and all(loc["participationSource"] == SOURCE for loc in in_force)


async def test_a_plan_the_directory_does_not_have_is_unknown(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    member = sorted(_in_network(GREEN_CIRCLE_CT)[0])[0]
    body = {"contractYear": 2026, "payerPlanIds": ["NO-SUCH-PLAN"], "npis": [{"npi": member}]}
    [plan] = await _post(api, auth_header, "/v2/providers/coverage", body)
    assert plan["payerPlanId"] == "NO-SUCH-PLAN" and plan["bidId"] is None
    assert plan["providers"][0]["reason"] == "plan_not_found"


async def test_the_in_network_filter_takes_a_payer_plan(
    api: ApiClient, auth_header: dict[str, str], sample_individual: tuple[str, dict[str, str]]
) -> None:
    members, _ = _in_network(GREEN_CIRCLE_CT)
    members.add(sample_individual[0])
    body = {
        "location": NEW_HAVEN,
        "radius": 100,
        "payerPlanId": "HPID280000",
        "contractYear": 2026,
        "pageSize": 100,
    }
    answer = await _post(api, auth_header, "/v2/providers/search", body)
    found = {r["npis"][0] for r in answer["results"]}
    assert found and found <= members


async def test_a_location_with_a_position_answers_its_exact_point_and_distance(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    practitioners, points = usable_practitioners(), positions()
    role = next(
        r
        for r in resources("PractitionerRole")
        if practitioner_of(r) in practitioners
        and r.get("location")
        and r["location"][0]["reference"] in points
    )
    npi = npi_of(practitioners[practitioner_of(role)])
    lat, lng = points[role["location"][0]["reference"]]
    response = await api.get(f"/v2/providers/{npi}/locations", headers=auth_header)
    located = [loc for loc in await response.json() if loc["geocodePrecision"] == "exact"]
    assert {(loc["address"]["lat"], loc["address"]["lng"]) for loc in located} >= {(lat, lng)}
    near = {"lat": lat + 0.05, "lng": lng}
    answer = await _post(
        api,
        auth_header,
        "/v2/providers/search",
        {"location": near, "radius": 10, "pageSize": 100, "sort": "distance"},
    )
    result = next(r for r in answer["results"] if r["npis"][:1] == [npi])
    at_point = [loc for loc in result["locations"] if loc["address"]["lat"] == lat]
    assert at_point
    expected = miles((near["lat"], near["lng"]), (lat, lng))
    assert at_point[0]["distance"] == pytest.approx(expected, abs=0.05)


async def test_a_directory_adds_to_the_nppes_provider_of_its_npi(
    api: ApiClient, auth_header: dict[str, str], sample_individual: tuple[str, dict[str, str]]
) -> None:
    npi, row = sample_individual
    provider = await (await api.get(f"/v2/providers/{npi}", headers=auth_header)).json()
    assert provider["sources"][0] == "nppes" and SOURCE in provider["sources"]
    assert {"Spanish", "Vietnamese"} <= set(provider["languages"])
    assert SOURCE in provider["languageSources"]
    assert provider["lastName"] == (row["Provider Last Name (Legal Name)"] or None)
    locations = await (await api.get(f"/v2/providers/{npi}/locations", headers=auth_header)).json()
    practice = locations[0]  # the NPPES practice address, now with the directory's point
    assert practice["source"] == "nppes" and SOURCE in practice["sources"]
    assert (practice["address"]["lat"], practice["address"]["lng"]) == (40.7, -74.0)
    assert practice["geocodePrecision"] == "exact"
    body = {"contractYear": 2026, "payerPlanIds": ["HPID280000"], "npis": [{"npi": npi}]}
    [plan] = await _post(api, auth_header, "/v2/providers/coverage", body)
    assert plan["providers"][0]["networkStatus"] == "in_network"


async def test_a_newer_export_replaces_what_the_directory_said(
    es: AsyncElasticsearch,
    serve: Serve,
    es_url: str,
    sample_sources: SourceFiles,
    sample_individual: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    names = IndexNames(f"test-plannet-up-{uuid.uuid4().hex[:8]}")
    npi, row = sample_individual
    try:
        await load_with_week1(es, names, sample_sources, sample_individual, tmp_path)
        # Week 2: the sample provider speaks Portuguese and left the network; one listed-only
        # practitioner is gone with its role.
        joined = _joined_export(Path(), npi, row, ["pt"])
        joined = [r for r in joined if r["resourceType"] != "PractitionerRole"]
        after = _export(tmp_path / "week2", joined)
        members, _ = _in_network(GREEN_CIRCLE_CT)
        gone = sorted(members)[0]
        _unlist(after, gone)
        # ... and the payer no longer publishes one of its endpoints.
        endpoints = next(after.glob("*nppes-data_Endpoint.ndjson"))
        dropped, *published = endpoints.read_text().splitlines()
        endpoints.write_text("\n".join(published) + "\n")
        options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
        report = await update_plan_net(es, after, options, "payer")
        assert report.accounted
        assert report.outcomes["removed"] == 1 and report.outcomes["changed"] >= 1
        again = await update_plan_net(es, after, options, "payer")
        assert set(again.outcomes) == {"unchanged"} and again.removals == 0
        # What the export no longer has is recorded as removed, at the update's instant.
        await es.indices.refresh(index=names.alias("removals"))
        found = await es.search(index=names.alias("removals"), size=1000)
        removed = {hit["_id"]: hit["_source"]["removedAt"] for hit in found["hits"]["hits"]}
        expected = {f"Endpoint/payer-{json.loads(dropped)['id']}", f"Practitioner/{gone}"}
        assert expected <= set(removed) and f"Practitioner/{npi}" not in removed
        assert set(removed.values()) == {report.changed_at} and report.removals == len(removed)
        settings = settings_for(es_url, names)
        api = await serve(settings)
        auth = bearer(settings)
        assert (await api.get(f"/v2/providers/{gone}", headers=auth)).status == 404
        for line, status in ((dropped, 404), (published[0], 200)):
            endpoint = f"/fhir/Endpoint/payer-{json.loads(line)['id']}"
            assert (await api.get(endpoint)).status == status
        provider = await (await api.get(f"/v2/providers/{npi}", headers=auth)).json()
        assert "Portuguese" in provider["languages"] and "Spanish" not in provider["languages"]
        body = {"contractYear": 2026, "payerPlanIds": ["HPID280000"], "npis": [{"npi": npi}]}
        [plan] = await _post(api, auth, "/v2/providers/coverage", body)
        assert plan["providers"][0]["networkStatus"] == "out_of_network"
        # The rewritten search document keeps the FHIR terms of the NPPES provider.
        zip5 = row["Provider Business Practice Location Address Postal Code"][:5]
        for kind, term in (
            ("Practitioner", ("family", row["Provider Last Name (Legal Name)"])),
            ("PractitionerRole", ("location.address-postalcode", zip5)),
        ):
            found = await (await api.get(f"/fhir/{kind}", params=[("_id", npi), term])).json()
            assert [entry["resource"]["id"] for entry in found.get("entry", [])] == [npi]
    finally:
        await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)

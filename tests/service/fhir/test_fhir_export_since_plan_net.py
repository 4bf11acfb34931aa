"""An incremental ``$export`` across an ``update --plan-net`` (the setup of
tests/service/test_plan_net.py's newer-export test): ``_since`` the export before it, the
practitioner whose languages changed is in the output, the endpoint the payer dropped and the
practitioner it no longer lists are in ``deleted``, an endpoint it still publishes unchanged is
not exported again; and ``$bulk-publish`` names new files after the update. An update that
renames one practitioner exports exactly what it changed: that practitioner, its roles and its
locations (all named by it), no plan, network or payer (expected from the export's files)."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import SourceFiles
from indexer.update.options import UpdateOptions
from indexer.update.plan_net import update_plan_net
from tests.conftest import Serve, settings_for
from tests.plan_net_rows import (
    npi_of,
    practitioner_of,
    resources,
    role_networks,
    usable_practitioners,
)
from tests.service.fhir.test_fhir_export_since import _deleted, _exported, _lines
from tests.service.fhir.test_fhir_export_since import _export as _manifest
from tests.service.test_plan_net import (
    GREEN_CIRCLE_CT,
    _export,
    _in_network,
    _joined_export,
    _unlist,
    load_with_week1,
)
from tests.service.test_plan_net import sample_individual as sample_individual  # the fixture
from tests.source_rows import active_rows

EVERY_TYPE = ",Endpoint"  # after the provider types _manifest asks for
ALL_TYPES = ",InsurancePlan,HealthcareService,Endpoint"


async def test_since_an_export_gives_what_a_plan_net_update_changed_and_removed(
    es: AsyncElasticsearch,
    serve: Serve,
    es_url: str,
    sample_sources: SourceFiles,
    sample_individual: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    names = IndexNames(f"test-since-plannet-{uuid.uuid4().hex[:8]}")
    npi, row = sample_individual
    try:
        await load_with_week1(es, names, sample_sources, sample_individual, tmp_path)
        api = await serve(settings_for(es_url, names))
        published_before = await api.get("/fhir/$bulk-publish")
        before = await _manifest(api, EVERY_TYPE)
        # Week 2: the joined practitioner speaks Portuguese; the first listed-only practitioner
        # is gone (with its roles); the payer drops its first endpoint.
        week2 = _export(tmp_path / "week2", _joined_export(Path(), npi, row, ["pt"]))
        gone = sorted(_in_network(GREEN_CIRCLE_CT)[0])[0]  # a practitioner only the export lists
        _unlist(week2, gone)
        endpoints = next(week2.glob("*nppes-data_Endpoint.ndjson"))
        dropped, unchanged, *rest = endpoints.read_text().splitlines()
        endpoints.write_text("\n".join([unchanged, *rest]) + "\n")
        options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
        assert (await update_plan_net(es, week2, options, "payer")).accounted

        since = await _manifest(api, f"{EVERY_TYPE}&_since={before['transactionTime']}")
        exported, deleted = await _exported(api, since), await _deleted(api, since)
        assert f"Practitioner/{npi}" in exported
        dropped_id = f"Endpoint/payer-{json.loads(dropped)['id']}"
        assert {dropped_id, f"Practitioner/{gone}"} <= deleted
        assert not {dropped_id, f"Practitioner/{gone}"} & exported
        assert f"Endpoint/payer-{json.loads(unchanged)['id']}" not in exported
        published_after = await api.get("/fhir/$bulk-publish")
        assert published_before.headers["ETag"] != published_after.headers["ETag"]
    finally:
        await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)


def _listed_only(sample_npis: set[str]) -> tuple[str, dict[str, object]]:
    """A practitioner only the export lists (its name is the export's), by reference."""
    return next(
        (ref, p)
        for ref, p in sorted(usable_practitioners().items())
        if npi_of(p) not in sample_npis and p.get("name")
    )


def _renamed(directory: Path, reference: str, family: str) -> None:
    for path in directory.glob("*_Practitioner.ndjson"):
        lines = path.read_text().splitlines()
        for n, line in enumerate(lines):
            practitioner = json.loads(line)
            if f"Practitioner/{practitioner['id']}" == reference:
                practitioner["name"][0]["family"] = family
                lines[n] = json.dumps(practitioner)
        path.write_text("\n".join(lines) + "\n")


async def test_since_a_rename_gives_exactly_the_renamed_practitioners_resources(
    es: AsyncElasticsearch,
    serve: Serve,
    es_url: str,
    sample_sources: SourceFiles,
    sample_individual: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    names = IndexNames(f"test-since-rename-{uuid.uuid4().hex[:8]}")
    npi, row = sample_individual
    sample_npis = {r["NPI"] for r in active_rows(sample_sources.nppes_file)}
    reference, practitioner = _listed_only(sample_npis)
    renamed = npi_of(practitioner)
    roles = [r for r in resources("PractitionerRole") if practitioner_of(r) == reference]
    networks = set().union(*(role_networks(r) for r in roles))
    in_networks = [  # a served role per plan year of a network it is in
        plan
        for plan in resources("InsurancePlan")
        if networks & {n["reference"] for n in plan.get("network", [])}
    ]
    places = {place["reference"] for r in roles for place in r.get("location", [])}
    assert in_networks and places
    try:
        await load_with_week1(es, names, sample_sources, sample_individual, tmp_path)
        api = await serve(settings_for(es_url, names))
        before = await _manifest(api, ALL_TYPES)
        week2 = _export(tmp_path / "week2", _joined_export(Path(), npi, row, ["es"]))
        _renamed(week2, reference, "Renamedson")
        options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
        assert (await update_plan_net(es, week2, options, "payer")).accounted

        since = await _manifest(api, f"{ALL_TYPES}&_since={before['transactionTime']}")
        exported = await _lines(api, since["output"])
        kinds = Counter(r["resourceType"] for r in exported)
        assert kinds == {
            "Practitioner": 1,
            "PractitionerRole": len(in_networks),
            "Location": len(places),
        }
        by_kind = {r["resourceType"]: r for r in exported}
        assert by_kind["Practitioner"]["id"] == renamed
        assert by_kind["Practitioner"]["name"][0]["family"] == "Renamedson"
        served_roles = [r for r in exported if r["resourceType"] == "PractitionerRole"]
        assert {r["practitioner"]["reference"] for r in served_roles} == {f"Practitioner/{renamed}"}
        role_places = {p["reference"] for r in served_roles for p in r.get("location", [])}
        locations = [r for r in exported if r["resourceType"] == "Location"]
        assert {f"Location/{r['id']}" for r in locations} == role_places
        assert all("Renamedson" in r["name"] for r in locations)
        assert await _deleted(api, since) == set()
    finally:
        await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)

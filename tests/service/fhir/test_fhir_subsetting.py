"""``_summary`` and ``_elements`` on reads and searches, on a real Elasticsearch: the resources
of the NPPES sample and the Plan-Net export, reduced as FHIR R4 (3.1.1.5.8-9) says. The summary
elements expected are R4's (the base StructureDefinitions' isSummary), written out here."""

from __future__ import annotations

from typing import Any

from tests.conftest import ApiClient
from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.test_fhir_published import _served_id as served_id

SUBSETTED = {
    "system": "http://terminology.hl7.org/CodeSystem/v3-ObservationValue",
    "code": "SUBSETTED",
}
ALWAYS = {"resourceType", "id", "meta"}
# FHIR R4 Practitioner: the elements marked isSummary.
PRACTITIONER_SUMMARY = {
    "implicitRules",
    "identifier",
    "active",
    "name",
    "telecom",
    "address",
    "gender",
    "birthDate",
}
# FHIR R4 Endpoint: the elements of minimum cardinality 1.
ENDPOINT_MANDATORY = {"status", "connectionType", "payloadType", "address"}


async def _get(api: ApiClient, path: str, params: list[tuple[str, str]]) -> Any:
    response = await api.get(path, params=params)
    body = await response.json(content_type=None)
    assert response.status == 200, body
    return body


def _subsetted(resource: dict[str, Any]) -> bool:
    return SUBSETTED in resource.get("meta", {}).get("tag", [])


def _without_tag(resource: dict[str, Any]) -> dict[str, Any]:
    meta = {**resource["meta"], "tag": [t for t in resource["meta"]["tag"] if t != SUBSETTED]}
    return {**resource, "meta": {k: v for k, v in meta.items() if v}}


async def test_a_practitioner_read_as_its_summary(api: ApiClient) -> None:
    npi = F.individuals()[5]["NPI"]
    whole = await F.fetch(api, f"/fhir/Practitioner/{npi}")
    assert not _subsetted(whole)
    summary = await _get(api, f"/fhir/Practitioner/{npi}", [("_summary", "true")])
    assert _subsetted(summary) and summary["id"] == npi
    kept = set(whole) & (PRACTITIONER_SUMMARY | ALWAYS)
    assert set(summary) == kept and "name" in kept
    assert set(whole) - kept, "the sample's practitioner has elements outside the summary"
    assert {k: summary[k] for k in kept - {"meta"}} == {k: whole[k] for k in kept - {"meta"}}
    assert await _get(api, f"/fhir/Practitioner/{npi}", [("_summary", "false")]) == whole


async def test_data_drops_the_text_and_text_keeps_only_it(api: ApiClient) -> None:
    service = next(iter(resources("HealthcareService")))
    path = f"/fhir/HealthcareService/{served_id(service['id'])}"
    found = await F.fetch(api, path)
    data = await _get(api, path, [("_summary", "data")])
    assert _without_tag(data) == {k: v for k, v in found.items() if k != "text"}
    text = await _get(api, path, [("_summary", "text")])
    assert _subsetted(text) and set(text) == ALWAYS | ({"text"} & set(found))
    assert text.get("text") == found.get("text")


async def test_elements_keep_the_named_and_the_mandatory(api: ApiClient) -> None:
    endpoint = next(iter(resources("Endpoint")))
    reduced = await _get(
        api, f"/fhir/Endpoint/{served_id(endpoint['id'])}", [("_elements", "name")]
    )
    assert set(reduced) == ALWAYS | ENDPOINT_MANDATORY | {"name"}
    assert reduced["name"] == endpoint["name"] and _subsetted(reduced)


async def test_a_search_reduces_its_matches_and_summarises_what_it_includes(
    api: ApiClient,
) -> None:
    npi = F.individuals()[5]["NPI"]
    asked = [("_id", npi), ("_include", "PractitionerRole:practitioner")]
    elements = await _get(api, "/fhir/PractitionerRole", [*asked, ("_elements", "specialty")])
    [role] = F.entries([elements])
    assert set(role) <= ALWAYS | {"specialty"} and role["id"] == npi and _subsetted(role)
    [person] = F.entries([elements], "include")
    assert person == await F.fetch(api, f"/fhir/Practitioner/{npi}")  # included whole
    summary = await _get(api, "/fhir/PractitionerRole", [*asked, ("_summary", "true")])
    [person] = F.entries([summary], "include")
    assert _subsetted(person) and set(person) <= PRACTITIONER_SUMMARY | ALWAYS
    assert ("_elements", "specialty") in [
        tuple(p.split("=", 1)) for p in elements["link"][0]["url"].split("?")[1].split("&")
    ]


async def test_a_malformed_subset_is_refused(api: ApiClient) -> None:
    npi = F.individuals()[5]["NPI"]
    for asked in (
        [("_summary", "everything")],
        [("_elements", "name.family")],
        [("_summary", "true"), ("_elements", "name")],
    ):
        await F.fetch(api, "/fhir/Practitioner", [("_id", npi), *asked], status=400)
        await F.fetch(api, f"/fhir/Practitioner/{npi}", asked, status=400)

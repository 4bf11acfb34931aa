"""What the directory says against a listing, as FHIR ``meta.tag``s (issue 47, DESIGN 5.9): a
practice Location carries its stored confidence (its score, and a tag per reason), and every
resource rendered from a provider a source flagged carries the provider's data-quality codes,
alike in searches, reads, includes, subsets and the ``$export``.

The expectations are read from the stored search documents with the Elasticsearch client (the
indexer's confidence and notes, never the FHIR renderers), and for the reference export's
practitioners from its file and the NPPES sample (the check digit computed here); the systems
and displays as README's "FHIR Plan-Net API" publishes them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan
from yarl import URL

from core.index_contract import IndexNames
from core.lookup_answers import stored_locations, stored_provider
from core.quality import MEANINGS
from tests.conftest import SAMPLE_DIR, ApiClient
from tests.plan_net_rows import npi_of, resources
from tests.service.fhir import fhir_rows as F
from tests.source_rows import nppes_rows

Json = dict[str, Any]
Tag = tuple[str, str, str]  # system, code, display
QUALITY = F.QUALITY_SYSTEM
CONFIDENCE = "urn:provider-directory:confidence"
REASON = "urn:provider-directory:confidence-reason"
SUBSETTED = ("http://terminology.hl7.org/CodeSystem/v3-ObservationValue", "SUBSETTED")
PROVIDER_TYPES = ("Practitioner", "PractitionerRole", "Organization", "OrganizationAffiliation")
_stored: dict[str, Stored] = {}
_exported: dict[str, dict[tuple[str, str], Json]] = {}


class Stored:
    """The lookup documents of a prefix (which store each location whole): each location's
    confidence and provider, each provider's data-quality codes (in the order stored)."""

    def __init__(self, documents: Iterable[tuple[str, Json]]) -> None:
        self.confidence: dict[str, Json] = {}
        self.owner: dict[str, str] = {}
        self.codes: dict[str, list[str]] = {}
        self.places: dict[str, list[str]] = {}
        for key, doc in documents:
            provider, locations = stored_provider(doc), stored_locations(doc)  # type: ignore[arg-type]
            self.codes[key] = [n["code"] for n in provider.get("dataQuality", [])]
            self.places[key] = [place["id"] for place in locations]
            for place in locations:
                assert place["id"] not in self.owner, place["id"]
                self.confidence[place["id"]] = dict(place["confidence"])
                self.owner[place["id"]] = key

    def location_tags(self, location_id: str) -> list[Tag]:
        """A Location's tags as README says: the provider's codes, its score, its reasons."""
        confidence = self.confidence[location_id]
        score = confidence["score"]
        return [
            *quality_tags(self.codes[self.owner[location_id]]),
            (CONFIDENCE, str(score), f"Confidence {score} of 5"),
            *((REASON, code, MEANINGS[code]) for code in confidence["reasons"]),
        ]


def quality_tags(codes: Iterable[str]) -> list[Tag]:
    return [(QUALITY, code, MEANINGS[code]) for code in dict.fromkeys(codes)]


def tags_of(resource: Json) -> list[Tag]:
    return [(t["system"], t["code"], t["display"]) for t in resource["meta"].get("tag", [])]


@pytest.fixture
async def stored(es: AsyncElasticsearch, served_names: IndexNames) -> Stored:
    if served_names.prefix not in _stored:
        every: Json = {"query": {"match_all": {}}}
        scan = async_scan(es, index=served_names.alias("providers"), query=every)
        _stored[served_names.prefix] = Stored([(hit["_id"], hit["_source"]) async for hit in scan])
    return _stored[served_names.prefix]


@pytest.fixture
async def exported(api: ApiClient, served_names: IndexNames) -> dict[tuple[str, str], Json]:
    """Every resource of one whole ``$export``, by type and id."""
    if served_names.prefix not in _exported:
        kick_off = await api.get("/fhir/$export", headers={"Prefer": "respond-async"})
        assert kick_off.status == 202, await kick_off.text()
        manifest = await (await api.get(URL(kick_off.headers["Content-Location"]).path)).json()
        found: dict[tuple[str, str], Json] = {}
        for entry in manifest["output"]:
            response = await api.get(URL(entry["url"]).path)
            assert response.status == 200, await response.text()
            for line in (await response.read()).splitlines():
                resource = orjson.loads(line)
                found[resource["resourceType"], resource["id"]] = resource
        _exported[served_names.prefix] = found
    return _exported[served_names.prefix]


def _strata(stored: Stored, per: int = 5) -> list[str]:
    """``per`` locations of each distinct set of expected tags: every score and reason the
    sample has."""
    seen: dict[tuple[Tag, ...], list[str]] = {}
    for location_id in sorted(stored.confidence):
        seen.setdefault(tuple(stored.location_tags(location_id)), []).append(location_id)
    assert len(seen) >= 5, seen.keys()
    return sorted(location_id for ids in seen.values() for location_id in ids[:per])


def _provider_of(resource: Json) -> str | None:
    """The provider key a provider's resource is rendered from (None: a plan's, a county)."""
    kind = resource["resourceType"]
    if kind == "PractitionerRole":
        return F.practitioner_of(resource)
    if kind == "OrganizationAffiliation":
        reference = str(resource["participatingOrganization"]["reference"])
        return reference.removeprefix("Organization/")
    if kind == "Practitioner" or (kind == "Organization" and F.is_provider(resource)):
        return str(resource["id"])
    return None


# ---- a Location's confidence ----


async def test_the_sample_has_the_scores_and_reasons_worth_testing(stored: Stored) -> None:
    scores = {c["score"] for c in stored.confidence.values()}
    reasons = {code for c in stored.confidence.values() for code in c["reasons"]}
    assert len(scores) >= 3, scores
    assert {"confirmed", "single_source", "address_unconfirmed"} <= reasons, reasons
    assert {"npi_check_digit_invalid", "npi_not_in_nppes"} <= reasons, reasons


async def test_every_exported_location_carries_its_stored_confidence(
    stored: Stored, exported: dict[tuple[str, str], Json]
) -> None:
    sites = {rid: r for (kind, rid), r in exported.items() if kind == "Location"}
    practice = {rid: r for rid, r in sites.items() if not rid.startswith("county-")}
    assert set(practice) == set(stored.confidence)
    for location_id, resource in practice.items():
        assert tags_of(resource) == stored.location_tags(location_id), location_id
    counties = [r for rid, r in sites.items() if rid.startswith("county-")]
    assert counties and all("tag" not in r["meta"] for r in counties)


async def test_a_location_searched_and_read_carries_the_same_tags_as_exported(
    api: ApiClient, stored: Stored, exported: dict[tuple[str, str], Json]
) -> None:
    chosen = _strata(stored)
    for start in range(0, len(chosen), 50):
        batch = chosen[start : start + 50]
        pages = await F.walk(api, "Location", [("_id", ",".join(batch))])
        found = {r["id"]: r for r in F.entries(pages)}
        assert set(found) == set(batch)
        for location_id in batch:
            read = await F.fetch(api, f"/fhir/Location/{location_id}")
            expected = stored.location_tags(location_id)
            assert tags_of(read) == tags_of(found[location_id]) == expected, location_id
            assert read["meta"] == exported["Location", location_id]["meta"]


@pytest.mark.parametrize("subset", [("_summary", "true"), ("_elements", "address")])
async def test_a_subsetted_location_keeps_its_tags(
    api: ApiClient, stored: Stored, subset: tuple[str, str]
) -> None:
    """meta is mandatory in every summary (R4 3.1.1.5.8): the tags stay, SUBSETTED after them."""
    chosen = _strata(stored, per=2)
    bundle = await _get(
        api, "/fhir/Location", [("_id", ",".join(chosen)), subset, ("_count", "100")]
    )
    found = {e["resource"]["id"]: e["resource"] for e in bundle["entry"]}
    assert set(found) == set(chosen)
    for location_id in chosen:
        read = await _get(api, f"/fhir/Location/{location_id}", [subset])
        for served in (read, found[location_id]):
            tags = served["meta"]["tag"]
            assert (tags[-1]["system"], tags[-1]["code"]) == SUBSETTED
            assert [(t["system"], t["code"], t["display"]) for t in tags[:-1]] == (
                stored.location_tags(location_id)
            )


async def test_an_included_location_carries_its_tags(api: ApiClient, stored: Stored) -> None:
    confirmed = sorted(
        key
        for key, places in stored.places.items()
        if any("confirmed" in stored.confidence[p]["reasons"] for p in places)
    )
    flagged = sorted(key for key, codes in stored.codes.items() if codes)
    for key in [*confirmed[:3], *flagged[:3]]:
        kind = "Organization" if (await _is_organization(api, key)) else "Practitioner"
        asked = "PractitionerRole" if kind == "Practitioner" else "Location"
        params = (
            [("practitioner", f"Practitioner/{key}"), ("_include", "PractitionerRole:location")]
            if kind == "Practitioner"
            else [("organization", f"Organization/{key}")]
        )
        pages = await F.walk(api, asked, params)
        mode = "include" if asked == "PractitionerRole" else "match"
        locations = [r for r in F.entries(pages, mode) if r["resourceType"] == "Location"]
        assert {r["id"] for r in locations} == set(stored.places[key]), key
        for location in locations:
            assert tags_of(location) == stored.location_tags(location["id"])


async def _get(api: ApiClient, path: str, params: list[tuple[str, str]]) -> Json:
    """A subset, which F.fetch would not take for a whole resource."""
    response = await api.get(path, params=params)
    body: Json = await response.json(content_type=None)
    assert response.status == 200, body
    return body


async def _is_organization(api: ApiClient, key: str) -> bool:
    return bool(F.entries(await F.walk(api, "Organization", [("_id", key)])))


# ---- a flagged provider: every resource rendered from it says it ----


async def test_every_exported_provider_resource_carries_its_providers_notes(
    stored: Stored, exported: dict[tuple[str, str], Json]
) -> None:
    seen: dict[str, set[str]] = {}
    for (kind, rid), resource in exported.items():
        key = _provider_of(resource) if kind != "Location" else stored.owner.get(rid)
        if key is None:
            continue
        quality = [t for t in tags_of(resource) if t[0] == QUALITY]
        assert quality == quality_tags(stored.codes[key]), (kind, rid)
        seen.setdefault(key, set()).add(kind)
    flagged = {key for key, codes in stored.codes.items() if codes}
    kinds = {kind for key in flagged for kind in seen[key]}
    assert kinds == {"Location", *PROVIDER_TYPES}, kinds
    individuals = [key for key in flagged if "Practitioner" in seen[key]]
    assert all({"PractitionerRole", "Location"} <= seen[key] for key in individuals)


def _reference_flags() -> dict[str, str]:
    """The reference export's practitioners -> the one flag each must carry: a wrong check
    digit, else an NPI the NPPES sample does not hold (computed here, from the files)."""
    sample = SAMPLE_DIR / "npidata_pfile_sample.csv.gz"
    held = {row["NPI"] for row in nppes_rows(sample)}
    found: dict[str, str] = {}
    for resource in resources("nppes-data_Practitioner"):
        npi = npi_of(resource)
        assert npi is not None and npi not in held
        found[npi] = "npi_check_digit_invalid" if not F.luhn_ok(npi) else "npi_not_in_nppes"
    return found


async def test_a_flagged_practitioner_is_flagged_wherever_it_is_served(
    api: ApiClient, exported: dict[tuple[str, str], Json]
) -> None:
    flags = _reference_flags()
    chosen = {
        flag: sorted(npi for npi, f in flags.items() if f == flag)[:3]
        for flag in ("npi_check_digit_invalid", "npi_not_in_nppes")
    }
    for flag, npis in chosen.items():
        assert len(npis) == 3, flag
        expected = quality_tags([flag])
        for npi in npis:
            served = [await F.fetch(api, f"/fhir/Practitioner/{npi}")]
            served += F.entries(await F.walk(api, "Practitioner", [("_id", npi)]))
            roles = await F.roles_of(api, npi)
            served += roles
            role_pages = await F.walk(api, "PractitionerRole", [("practitioner", npi)])
            served += F.entries(role_pages)
            places = {
                ref["reference"].removeprefix("Location/") for r in roles for ref in r["location"]
            }
            assert places, npi
            for place in sorted(places):
                location = await F.fetch(api, f"/fhir/Location/{place}")
                served.append(location)
                assert (REASON, flag, MEANINGS[flag]) in tags_of(location)  # a payer-only site
            for resource in served:
                quality = [t for t in tags_of(resource) if t[0] == QUALITY]
                assert quality == expected, (npi, resource["resourceType"], resource["id"])
                again = exported[resource["resourceType"], resource["id"]]
                assert tags_of(again) == tags_of(resource)


async def test_the_capability_statement_names_the_tag_systems(api: ApiClient) -> None:
    said = (await F.fetch(api, "/fhir/metadata"))["rest"][0]["documentation"]
    assert all(system in said for system in (QUALITY, CONFIDENCE, REASON)), said

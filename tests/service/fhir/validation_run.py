"""How tests/service/fhir/test_fhir_validator.py gathers what it validates: a ``$export`` of the
served index, the counties (the export lists none), the picks (validation_strata),
the canaries (validation_data), each picked resource searched again by ``_id``, and what the
data-quality export's index serves; all fed to ONE validator run as they are picked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp.test_utils import TestClient, TestServer
from yarl import URL

from core.index_contract import IndexNames
from service.web.app import create_app
from tests import fhir_validator
from tests.conftest import SAMPLE_TODAY, ApiClient, settings_for
from tests.service.fhir.validation_data import (
    DATA_QUALITY_SOURCE,
    Canary,
    DataQualityExport,
    canaries,
    reference_providers,
)
from tests.service.fhir.validation_strata import (
    Origins,
    ReferenceServed,
    canonical,
    reference_as_served,
    strata,
)
from tests.source_rows import active_rows

Json = dict[str, Any]

ASYNC = {"Prefer": "respond-async"}
BATCH = 100  # ids per search (the largest _count)


@dataclass(frozen=True)
class Fed:
    why: str  # canary, capability, reference, stratum, data-quality
    where: str  # how it was served: export, search, include (a county), metadata; made
    resource: Json


@dataclass
class Served:
    """What the module validates, gathered while the JVM starts (``run``: None when the
    validator cannot run here)."""

    run: fhir_validator.Validation | None
    fed: list[Fed]
    pool: list[Json]  # everything exported, and the counties
    origins: Origins
    reference: ReferenceServed
    canaries: list[Canary]
    searched_as_exported: int
    data_quality: list[Json]
    data_quality_origins: Origins


@dataclass(frozen=True)
class Validated:
    served: Served
    verdicts: list[tuple[Fed, fhir_validator.Verdict]]

    def of(self, *why: str) -> list[tuple[Fed, fhir_validator.Verdict]]:
        return [(fed, verdict) for fed, verdict in self.verdicts if fed.why in why]


def client(es_url: str, names: IndexNames) -> ApiClient:
    app = create_app(settings_for(es_url, names), today=lambda: SAMPLE_TODAY)
    return TestClient(TestServer(app))


async def json_of(api: ApiClient, path: str, **kwargs: Any) -> Json:
    response = await api.get(path, **kwargs)
    assert response.status == 200, await response.text()
    found: Json = await response.json(content_type=None)
    return found


async def pages(api: ApiClient, path: str, params: dict[str, str]) -> AsyncIterator[Json]:
    page = await json_of(api, path, params=params)
    while True:
        yield page
        following = [link["url"] for link in page["link"] if link["relation"] == "next"]
        if not following:
            return
        page = await json_of(api, URL(following[0]).path_qs)


async def exported(api: ApiClient) -> list[Json]:
    """Every line of a ``$export`` of every type."""
    response = await api.get("/fhir/$export", headers=ASYNC)
    assert response.status == 202, await response.text()
    manifest = await json_of(api, URL(response.headers["Content-Location"]).path)
    lines: list[Json] = []
    for entry in manifest["output"]:
        response = await api.get(URL(entry["url"]).path)
        assert response.status == 200, await response.text()
        for line in (await response.read()).splitlines():
            lines.append(orjson.loads(line))
            assert lines[-1]["resourceType"] == entry["type"]
    return lines


async def matched(api: ApiClient, kind: str, params: dict[str, str], mode: str) -> list[Json]:
    return [
        entry["resource"]
        async for page in pages(api, f"/fhir/{kind}", params)
        for entry in page.get("entry", [])
        if entry["search"]["mode"] == mode
    ]


async def counties_of(api: ApiClient) -> list[Json]:
    """The counties plans are sold in (Locations served by read, by a Location search after the
    practice sites, and as the InsurancePlans' ``coverage-area`` includes)."""
    params = {"_include": "InsurancePlan:coverage-area", "_count": str(BATCH)}
    found = await matched(api, "InsurancePlan", params, "include")
    return list({r["id"]: r for r in found if r["resourceType"] == "Location"}.values())


async def searched_again(
    api: ApiClient, picked: list[tuple[str, Json]], feed: Callable[[str, str, Json], None]
) -> int:
    """Each picked resource a search lists searched by ``_id``: fed again only where it
    differs from what was exported; how many did not."""
    same = 0
    by_kind: dict[str, dict[str, tuple[str, Json]]] = {}
    for why, resource in picked:
        by_kind.setdefault(resource["resourceType"], {})[resource["id"]] = (why, resource)
    for kind, wanted in by_kind.items():
        ids = sorted(wanted)
        for start in range(0, len(ids), BATCH):
            params = {"_id": ",".join(ids[start : start + BATCH]), "_count": str(BATCH)}
            for found in await matched(api, kind, params, "match"):
                why, exported = wanted.pop(found["id"])
                if canonical(found) == canonical(exported):
                    same += 1
                else:
                    feed(why, "search", found)
        assert not wanted, f"{kind}: not found by _id: {sorted(wanted)[:5]}"
    return same


def bases(picked: list[Json]) -> tuple[Json, Json, Json]:
    """What the canaries are made from: the first picked Practitioner, PractitionerRole with a
    specialty and network Organization (by id)."""

    def first(wanted: Callable[[Json], bool]) -> Json:
        return min((r for r in picked if wanted(r)), key=lambda r: str(r["id"]))

    return (
        first(lambda r: r["resourceType"] == "Practitioner"),
        first(lambda r: r["resourceType"] == "PractitionerRole" and "specialty" in r),
        first(lambda r: r["meta"]["profile"][0].endswith("plannet-Network")),
    )


async def gather(
    es_url: str, names: IndexNames, quality: tuple[IndexNames, DataQualityExport]
) -> Served:
    """Everything the module validates, fed to the JVM (started first, when it can run) as it
    is picked: the CapabilityStatement, the canaries, the reference export as served, the
    strata (from a ``$export`` of ``names``), each searched again; every resource ``quality``'s
    index serves."""
    run = fhir_validator.Validation() if fhir_validator.available() is None else None
    fed: list[Fed] = []

    def feed(why: str, where: str, resource: Json) -> None:
        fed.append(Fed(why, where, resource))
        if run is not None:
            run.feed(resource)

    try:
        async with client(es_url, names) as api:
            feed("capability", "metadata", await json_of(api, "/fhir/metadata"))
            pool = await exported(api)
            listed = {(r["resourceType"], r["id"]) for r in pool}
            counties = [r for r in await counties_of(api) if ("Location", r["id"]) not in listed]
            pool += counties
            included = {id(r) for r in counties}
            origins = Origins()
            origins.learn(pool)
            reference = reference_as_served(pool, origins)
            made = canaries(*bases(reference.picked))
            for canary in made:
                feed("canary", "made", canary.resource)
            picked = [("reference", r) for r in reference.picked]
            for why, resource in picked:  # validated while the strata are picked
                feed(why, "include" if id(resource) in included else "export", resource)
            stratified = [("stratum", r) for r in strata(pool, origins, reference.picked)]
            for why, resource in stratified:
                feed(why, "include" if id(resource) in included else "export", resource)
            picked += stratified
            searchable = [(why, r) for why, r in picked if id(r) not in included]
            same = await searched_again(api, searchable, feed)
        quality_names, export = quality
        async with client(es_url, quality_names) as api:
            metadata = await json_of(api, "/fhir/metadata")
            kinds = [entry["type"] for entry in metadata["rest"][0]["resource"]]
            found = [r for kind in kinds for r in await matched(api, kind, {}, "match")]
            for resource in found:
                feed("data-quality", "search", resource)
        quality_origins = Origins(
            {row["NPI"]: row for row in active_rows(export.nppes)},
            reference_providers(DATA_QUALITY_SOURCE, export.directory),
        )
        quality_origins.learn(found)
    except BaseException:
        if run is not None:
            run.close()
        raise
    return Served(run, fed, pool, origins, reference, made, same, found, quality_origins)

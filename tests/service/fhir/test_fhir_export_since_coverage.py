"""An incremental ``$export`` across an ``update --coverage``: a provider joining or leaving its
networks is served as other roles or affiliations, and ``_since`` lists the ones it no longer
is in ``deleted`` (an individual's one role once it is in a network, its roles in the networks
it left, an organisation's affiliation once in none), the provider's resources in the output.
Who is changed, and how, is the delta file the test writes from the sample's coverage file."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

from core.plan_net_codes import NETWORK_REFERENCE
from indexer.update.coverage import update_coverage
from indexer.update.options import UpdateOptions
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, SampleCopy, Serve, settings_for
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.test_fhir_export_since import _deleted, _export, _lines
from tests.source_rows import canonical_bid, coverage_rows, in_force

Row = dict[str, str]
ROWS = [{**r, "bid_id": canonical_bid(r["bid_id"])} for r in coverage_rows(SAMPLE_DIR)]


def _in_network_today(row: Row) -> bool:
    return row["network_status"] == "in_network" and in_force(row, SAMPLE_TODAY)


def _rows_by_npi() -> defaultdict[str, list[Row]]:
    found: defaultdict[str, list[Row]] = defaultdict(list)
    for row in ROWS:
        found[row["npi"]].append(row)
    return found


def _in_networks(entity: str) -> tuple[str, list[Row]]:
    """A sample provider of this kind in a network today, and all its coverage rows."""
    by_npi = _rows_by_npi()
    return next(
        (row["NPI"], by_npi[row["NPI"]])
        for row in F.rows()
        if row["Entity Type Code"] == entity and any(map(_in_network_today, by_npi[row["NPI"]]))
    )


def _write(path: Path, rows: list[Row]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, [*ROWS[0], "action"], restval="")
        writer.writeheader()
        writer.writerows(rows)
    return path


def _owners(exported: list[dict[str, Any]]) -> set[str]:
    """The providers the served resources belong to (a location: the one whose role is there,
    or the organisation managing it)."""
    owners: set[str] = set()
    placed: set[str] = set()
    for resource in exported:
        kind = resource["resourceType"]
        if kind == "PractitionerRole":
            owners.add(resource["practitioner"]["reference"].removeprefix("Practitioner/"))
            placed |= {place["reference"] for place in resource.get("location", [])}
        elif kind == "Location" and "managingOrganization" in resource:
            owners.add(resource["managingOrganization"]["reference"].split("/")[1])
            placed.add(f"Location/{resource['id']}")
        elif kind != "Location":
            owners.add(resource["id"])
    locations = {f"Location/{r['id']}" for r in exported if r["resourceType"] == "Location"}
    assert locations == placed
    return owners


async def test_since_lists_the_roles_and_affiliations_a_coverage_update_ended(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy, tmp_path: Path
) -> None:
    api = await serve(settings_for(es_url, sample_copy.names))
    by_npi = _rows_by_npi()
    joining = next(r["NPI"] for r in F.individuals() if r["NPI"] not in by_npi)
    plan = next(row for row in ROWS if _in_network_today(row))
    leaving, left = _in_networks("1")
    closing, closed = _in_networks("2")
    delta = [
        {
            **plan,
            "npi": joining,
            "location_id": "",
            "effective_date": "",
            "termination_date": "",
            "source": "delta-test",
        },
        *({**row, "action": "delete"} for row in [*left, *closed]),
    ]
    before = await _export(api, "")

    options = UpdateOptions(names=sample_copy.names, reject_file=tmp_path / "rejects.csv")
    assert (await update_coverage(es, _write(tmp_path / "delta.csv", delta), options)).accounted

    since = await _export(api, f"&_since={before['transactionTime']}")
    exported = await _lines(api, since["output"])
    assert _owners(exported) == {joining, leaving, closing}
    roles = {r["id"]: r for r in exported if r["resourceType"] == "PractitionerRole"}
    [joined] = [r for r in roles.values() if r["practitioner"]["reference"].endswith(joining)]
    assert [e["url"] for e in joined["extension"] if e["url"] == NETWORK_REFERENCE]
    assert leaving in roles  # its one role, in no network now
    assert not any(r["resourceType"] == "OrganizationAffiliation" for r in exported)
    deleted = await _deleted(api, since)
    networks_left = {
        (r["contract_year"], r["bid_id"]) for r in left if r["network_status"] == "in_network"
    }
    left_roles = {d for d in deleted if d.startswith(f"PractitionerRole/{leaving}-")}
    assert len(left_roles) == len(networks_left)
    expected = {f"PractitionerRole/{joining}", f"OrganizationAffiliation/{closing}", *left_roles}
    assert deleted == expected

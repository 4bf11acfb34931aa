"""A directory's scorecard on a real Elasticsearch: written by the load of the sample with a faulty
export (``generate-plan-net --faults default``), its counts those of the truth file and of the
export's files (tests.faulty_plan_net); ``audit`` of the same export scores the same and writes
nothing; ``update --plan-net`` of a changed export rewrites it; ``refresh_scorecards`` recounts
it from what the search index holds."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from indexer.load.run import LoadReport
from indexer.update.live_version import live_version
from indexer.update.options import UpdateOptions
from indexer.update.plan_net import update_plan_net
from indexer.update.scorecards import refresh_scorecards
from tests.conftest import FaultySample
from tests.faulty_plan_net import (
    CHECKS,
    NAME,
    Export,
    entries,
    expected_counts,
    expected_freshness,
    expected_holds,
    read_export,
    write_export,
)
from tests.indexer.conftest import indexer_process

SOURCE = f"plan-net:{NAME}"


@dataclass(frozen=True)
class Loaded:
    names: IndexNames
    report: LoadReport
    export: Path
    truth: dict[str, Any]


@pytest.fixture(scope="module")
def loaded(faulty_sample: FaultySample) -> Loaded:
    """The sample and the faulty export, loaded once per session and write-blocked
    (tests/conftest.py; a test that writes takes a ``copy_of`` it)."""
    truth = orjson.loads(faulty_sample.truth.read_bytes())
    return Loaded(faulty_sample.names, faulty_sample.report, faulty_sample.export, truth)


async def copy_of(es: AsyncElasticsearch, loaded: Loaded, names: IndexNames) -> None:
    """The loaded version cloned under ``names`` (tests.conftest.sample_copy's way)."""
    version = loaded.report.version
    await asyncio.gather(
        *(
            es.indices.clone(
                index=loaded.names.versioned(kind, version),
                target=names.versioned(kind, version),
                settings={"index.blocks.write": None, "index.number_of_replicas": 0},
                aliases={names.alias(kind): {}},
                wait_for_active_shards="all",
            )
            for kind in INDEX_KINDS
        )
    )


async def scorecard(es: AsyncElasticsearch, names: IndexNames) -> dict[str, Any]:
    found = await es.get(index=names.alias("directories"), id=SOURCE)
    card: dict[str, Any] = found["_source"]
    return card


def _counts(card: dict[str, Any]) -> dict[str, int]:
    return {code: check["count"] for code, check in card["checks"].items()}


async def test_the_load_writes_the_scorecard_the_truth_file_and_the_export_say(
    es: AsyncElasticsearch, loaded: Loaded
) -> None:
    card = await scorecard(es, loaded.names)
    export = read_export(loaded.export)
    assert list(card["checks"]) == list(CHECKS)
    assert _counts(card) == expected_counts(export, loaded.truth)
    assert card["checks"]["npi_deactivated"]["count"] > 0  # the faults are there to be found
    for code in ("npi_deactivated", "name_differs_from_nppes", "many_locations"):
        check, truth_npis = card["checks"][code], {e["npi"] for e in entries(loaded.truth, code)}
        assert check["examples"] == sorted(truth_npis)[:5]  # the smallest ids found
        assert check["outOf"] == card["holds"]["providers"]
        assert check["rate"] == round(check["count"] / check["outOf"], 4)
    no_phone = card["checks"]["no_phone"]
    assert no_phone["outOf"] == len(export["Location"])
    assert set(no_phone["examples"]) <= {e["location"] for e in entries(loaded.truth, "no_phone")}
    holds = card["holds"]
    expected = expected_holds(export)
    assert {kind: counts["read"] for kind, counts in holds["resources"].items()} == {
        **dict.fromkeys(holds["resources"], 0),
        **expected["resources"],
    }
    assert all(c["read"] == c["used"] for c in holds["resources"].values())  # nothing rejected
    assert {k: holds[k] for k in ("locations", "plans", "networks")} == {
        k: expected[k] for k in ("locations", "plans", "networks")
    }
    assert card["freshness"] == expected_freshness(export)
    assert card["name"] == NAME and card["source"] == SOURCE
    assert card["loadedAt"] == card["updatedAt"]
    assert loaded.report.documents["directories"] == 1


def _audit(es_url: str, names: IndexNames, export: Path, *flags: str) -> tuple[int, str, str]:
    process = indexer_process(es_url, names, "audit", "--plan-net", str(export), *flags)
    stdout, stderr = process.communicate(timeout=300)
    return process.returncode, stdout, stderr


async def _state(es: AsyncElasticsearch, names: IndexNames) -> Any:
    """Every index under the prefix with its document count and sequence numbers, and the
    aliases: what a job that wrote anything would change."""
    indices = await es.cat.indices(index=f"{names.prefix}-*", format="json", h="index,docs.count")
    stats = await es.indices.stats(index=f"{names.prefix}-*", metric="indexing")
    writes = {name: s["total"]["indexing"]["index_total"] for name, s in stats["indices"].items()}
    aliases = await es.indices.get_alias(index=f"{names.prefix}-*")
    counts = cast(list[dict[str, str]], indices.body)
    return sorted((i["index"], i["docs.count"]) for i in counts), writes, aliases.body


async def test_an_audit_of_the_same_export_scores_what_is_served_and_writes_nothing(
    es: AsyncElasticsearch, es_url: str, loaded: Loaded
) -> None:
    before = await _state(es, loaded.names)
    code, stdout, stderr = await asyncio.to_thread(
        _audit, es_url, loaded.names, loaded.export, "--name", NAME, "--json"
    )
    assert code == 0, stderr
    audited = orjson.loads(stdout)
    served = await scorecard(es, loaded.names)
    assert audited["checks"] == served["checks"]
    assert (audited["holds"], audited["freshness"]) == (served["holds"], served["freshness"])
    assert audited["loadedAt"] == served["loadedAt"]  # as if it replaced the loaded one
    assert await _state(es, loaded.names) == before

    code, table, stderr = await asyncio.to_thread(_audit, es_url, loaded.names, loaded.export)
    assert code == 0, stderr
    cells = [line.split() for line in table.splitlines()]
    rows = {c[0]: c[1:3] for c in cells if len(c) > 2 and c[1].replace(",", "").isdigit()}
    for check, found in served["checks"].items():
        assert rows[check] == [f"{found['count']:,}", f"{found['rate']:.2%}"]


def _changed(export: Export, truth: dict[str, Any]) -> tuple[Export, dict[str, Any]]:
    """The export a week later: a deactivated NPI's practitioner gone with its role, five more
    Locations without a phone, a role pointing at a Location the export lacks, a plan naming
    no network; and the truth file that says so."""
    changed, truth = copy.deepcopy(export), copy.deepcopy(truth)
    gone = entries(truth, "npi_deactivated")[0]
    practitioner = f"practitioner-{gone['npi']}"
    changed["Practitioner"] = [p for p in changed["Practitioner"] if p["id"] != practitioner]
    changed["PractitionerRole"] = [
        r
        for r in changed["PractitionerRole"]
        if r["practitioner"]["reference"] != f"Practitioner/{practitioner}"
    ]
    truth["faults"] = [e for e in truth["faults"] if e != gone]
    phoned = [loc for loc in changed["Location"] if "telecom" in loc]
    for location in phoned[:5]:
        del location["telecom"]
    dangling = copy.deepcopy(changed["PractitionerRole"][0])
    dangling["id"] = "role-dangling"
    dangling["location"] = [{"reference": "Location/not-in-the-export"}]
    changed["PractitionerRole"].append(dangling)
    plan = copy.deepcopy(changed["InsurancePlan"][0])
    plan["id"] = "plan-without-network"
    plan["identifier"] = [{"system": "https://example.org/plan-id", "value": "no-network"}]
    plan.pop("network", None)
    for coverage in plan.get("plan", []):
        coverage.pop("network", None)
    changed["InsurancePlan"].append(plan)
    return changed, truth


async def test_an_update_of_the_directory_rewrites_its_scorecard(
    es: AsyncElasticsearch, loaded: Loaded, index_names: IndexNames, tmp_path: Path
) -> None:
    await copy_of(es, loaded, index_names)
    loaded_card = await scorecard(es, index_names)
    changed, truth = _changed(read_export(loaded.export), loaded.truth)
    week2 = tmp_path / NAME
    write_export(changed, week2)
    options = UpdateOptions(names=index_names, reject_file=tmp_path / "rejects.csv")
    report = await update_plan_net(es, week2, options, NAME)
    card = await scorecard(es, index_names)
    expected = expected_counts(changed, truth)
    expected["unresolved_references"] = 1  # the role pointing at nothing
    assert _counts(card) == expected
    assert card["checks"]["unresolved_references"]["examples"] == ["PractitionerRole/role-dangling"]
    assert card["checks"]["plans_without_network"]["examples"] == [
        "InsurancePlan/plan-without-network"
    ]
    assert card["checks"]["no_phone"]["count"] == loaded_card["checks"]["no_phone"]["count"] + 5
    assert card["loadedAt"] == loaded_card["loadedAt"]
    assert card["updatedAt"] == report.changed_at > loaded_card["updatedAt"]
    assert card["holds"]["resources"]["PractitionerRole"]["rejected"] == 1

    again = await update_plan_net(es, week2, options, NAME)
    assert again.outcomes["changed"] == 0
    assert await scorecard(es, index_names) == card  # nothing changed: not even updatedAt


async def test_refresh_recounts_from_the_search_index_and_keeps_the_directorys_own_facts(
    es: AsyncElasticsearch, loaded: Loaded, index_names: IndexNames
) -> None:
    await copy_of(es, loaded, index_names)
    indices = (await live_version(es, index_names)).indices
    before = await scorecard(es, index_names)
    assert await refresh_scorecards(es, indices, [SOURCE, "plan-net:nobody"]) == []
    assert await scorecard(es, index_names) == before  # the stored documents count the same

    # Two providers the name check flagged are gone from the search index (as an NPPES
    # update that deactivates them would leave them).
    flagged = sorted(e["npi"] for e in entries(loaded.truth, "name_differs_from_nppes"))[:2]
    for npi in flagged:
        await es.delete(index=indices["search"], id=npi, refresh=True)
    at = "2030-01-01T00:00:00Z"
    [written] = await refresh_scorecards(es, indices, None, at)
    after = await scorecard(es, index_names)
    assert dict(written) == after and after["updatedAt"] == at
    counts = _counts(before)
    counts["name_differs_from_nppes"] -= 2
    listings = before["checks"]["address_unconfirmed"]["outOf"]
    assert _counts(after) == counts
    assert after["checks"]["name_differs_from_nppes"]["outOf"] == before["holds"]["providers"] - 2
    assert after["checks"]["address_unconfirmed"]["outOf"] < listings
    assert (after["holds"], after["freshness"], after["loadedAt"]) == (
        before["holds"],
        before["freshness"],
        before["loadedAt"],
    )

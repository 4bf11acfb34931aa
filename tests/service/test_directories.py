"""GET /v2/directories and GET /v2/directories/{name} on the sample loaded with a faulty payer
export (``generate-plan-net --faults default``): the served scorecard's counts are those its
truth file and its files say (tests.faulty_plan_net, never the indexer's reading of them), every
answer is the one the OpenAPI document describes; an unknown name is a 404, a token without the
scope a 403, none a 401, Elasticsearch unavailable a 503."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from core.index_contract import IndexNames
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import Settings
from tests.conftest import SAMPLE_TODAY, ApiClient, ClientFactory, FaultySample
from tests.faulty_plan_net import (
    CHECKS,
    NAME,
    expected_counts,
    expected_freshness,
    expected_holds,
    read_export,
)
from tests.service.test_contract import Contract, contract_of

LIST, ONE = "/v2/directories", "/v2/directories/{name}"


@dataclass(frozen=True)
class Directory:
    names: IndexNames
    counts: dict[str, int]  # what each check must find
    export: Path


@pytest.fixture(scope="module")
def directory(faulty_sample: FaultySample) -> Directory:
    """The sample with its faulty export (tests/conftest.py), and what each check must find."""
    export = faulty_sample.export
    truth = orjson.loads(faulty_sample.truth.read_bytes())
    return Directory(faulty_sample.names, expected_counts(read_export(export), truth), export)


@pytest.fixture
def served_names(directory: Directory) -> IndexNames:
    """This module's ``api`` serves the sample with the faulty directory."""
    return directory.names


@pytest.fixture
async def contract(api: ApiClient) -> Contract:
    return await contract_of(api)


async def _get(
    api: ApiClient, contract: Contract, path: str, headers: dict[str, str], status: int
) -> Any:
    template = LIST if path == LIST else ONE
    response = await api.get(path, headers=headers)
    assert response.status == status, await response.text()
    return await contract.check(template, "get", response)


async def test_the_list_names_the_loaded_directory_with_what_its_checks_found(
    api: ApiClient, auth_header: dict[str, str], contract: Contract, directory: Directory
) -> None:
    answer = await _get(api, contract, LIST, auth_header, 200)
    [entry] = answer["directories"]
    assert (entry["name"], entry["source"]) == (NAME, f"plan-net:{NAME}")
    assert entry["summary"] == {code: n for code, n in directory.counts.items() if n}
    assert {"npi_deactivated", "name_differs_from_nppes", "many_locations"} <= set(entry["summary"])
    assert entry["loadedAt"] == entry["updatedAt"]


async def test_the_scorecard_says_what_the_truth_file_and_the_export_say(
    api: ApiClient, auth_header: dict[str, str], contract: Contract, directory: Directory
) -> None:
    card = await _get(api, contract, f"/v2/directories/{NAME}", auth_header, 200)
    assert list(card["checks"]) == list(CHECKS)
    assert {code: check["count"] for code, check in card["checks"].items()} == directory.counts
    for check in card["checks"].values():
        assert len(check["examples"]) == min(check["count"], 5)
        assert check["rate"] == (round(check["count"] / check["outOf"], 4) if check["outOf"] else 0)
    export = read_export(directory.export)
    holds = expected_holds(export)
    assert card["holds"]["locations"] == holds["locations"]
    assert {k: v["read"] for k, v in card["holds"]["resources"].items() if v["read"]} == (
        holds["resources"]
    )
    assert card["freshness"] == expected_freshness(export)
    listed = await _get(api, contract, LIST, auth_header, 200)
    assert listed["directories"][0]["holds"] == card["holds"]


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [("nobody", 404, "directory_not_found"), ("x" * 101, 400, "validation_error")],
)
async def test_a_name_no_directory_has_is_a_404_and_one_too_long_a_400(
    api: ApiClient,
    auth_header: dict[str, str],
    contract: Contract,
    name: str,
    status: int,
    code: str,
) -> None:
    problem = await _get(api, contract, f"/v2/directories/{name}", auth_header, status)
    assert problem["code"] == code and problem["status"] == status


async def test_a_token_is_needed_and_its_providers_scope(
    api: ApiClient, contract: Contract, sample_settings: Settings
) -> None:
    for path in (LIST, f"/v2/directories/{NAME}"):
        anonymous = await api.get(path)
        assert anonymous.status == 401 and "Bearer" in anonymous.headers["WWW-Authenticate"]
        await contract.check(LIST if path == LIST else ONE, "get", anonymous)
        coverage_only = mint_token(sample_settings, scopes=["coverage:read"])
        problem = await _get(api, contract, path, {"Authorization": f"Bearer {coverage_only}"}, 403)
        assert problem["code"] == "insufficient_scope"


@pytest.mark.parametrize(
    "change",
    [{"index_prefix": "nothing-loaded-here"}, {"elasticsearch_url": "http://127.0.0.1:9"}],
    ids=["not loaded", "unreachable"],
)
async def test_elasticsearch_unavailable_is_a_503(
    aiohttp_client: ClientFactory, sample_settings: Settings, change: dict[str, str]
) -> None:
    settings = sample_settings.model_copy(update=change)
    client = await aiohttp_client(create_app(settings, today=lambda: SAMPLE_TODAY))
    contract = await contract_of(client)
    auth = {"Authorization": f"Bearer {mint_token(settings)}"}
    for path in (LIST, f"/v2/directories/{NAME}"):
        response = await client.get(path, headers=auth)
        assert response.status == 503 and int(response.headers["Retry-After"]) >= 1
        problem = await contract.check(LIST if path == LIST else ONE, "get", response)
        assert problem["code"] == "backend_unavailable"

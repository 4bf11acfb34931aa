"""A client generated from the served document (openapi-python-client) calls every /v2
operation of the live service and gets typed answers: what an integrator would do first."""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from service.web.auth import mint_token
from service.web.settings import Settings
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY
from tests.source_rows import in_network_pair

PACKAGE = "pd_generated_client"
NPI = "1003000100"


@pytest.fixture
async def client_package(live_service: str, tmp_path: Path) -> Any:
    """The generated package, imported (its code is typed by the generator, not by us: Any)."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{live_service}/v2/openapi.json") as response,
    ):
        (tmp_path / "openapi.json").write_bytes(await response.read())
    generator = Path(sys.executable).parent / "openapi-python-client"
    arguments = ["--path", "openapi.json", "--output-path", PACKAGE, "--meta", "none"]
    process = await asyncio.create_subprocess_exec(
        *(str(generator), "generate", *arguments),
        cwd=tmp_path,
        env=os.environ | {"PATH": f"{generator.parent}:{os.environ.get('PATH', '')}"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output = (await asyncio.wait_for(process.communicate(), timeout=300))[0].decode()
    assert process.returncode == 0, output
    assert "Warning" not in output, output  # nothing the generator had to skip
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


async def test_every_operation_through_the_generated_client(
    client_package: Any, live_service: str, sample_settings: Settings
) -> None:
    package = client_package
    models = importlib.import_module(f"{PACKAGE}.models")
    api = {
        name: importlib.import_module(f"{PACKAGE}.api.{group}.{name}")
        for group, name in (
            ("providers", "search"),
            ("providers", "provider"),
            ("providers", "locations"),
            ("coverage", "coverage"),
            ("plans", "plan_search"),
            ("plans", "plan"),
            ("directories", "directories"),
            ("directories", "directory"),
        )
    }
    client = package.AuthenticatedClient(base_url=live_service, token=mint_token(sample_settings))
    async with client as session:
        body = models.SearchRequest(query="cardiology", location="10013", radius=10.0, page_size=5)
        found = (await api["search"].asyncio_detailed(client=session, body=body)).parsed
        assert isinstance(found, models.SearchResponse)
        assert found.results and all(isinstance(r, models.SearchResult) for r in found.results)
        assert found.results[0].locations[0].distance <= 10

        provider = await api["provider"].asyncio(npi=NPI, client=session)
        assert isinstance(provider, models.Provider) and provider.npis == [NPI]
        locations = await api["locations"].asyncio(npi=NPI, client=session)
        assert locations and all(isinstance(loc, models.Location) for loc in locations)

        bid, npi = in_network_pair(SAMPLE_DIR)
        request = models.CoverageRequest(
            contract_year=2026,
            bid_ids=[bid],
            npis=[models.NpiRequest(npi=npi)],
            as_of=SAMPLE_TODAY,
        )
        plans = await api["coverage"].asyncio(client=session, body=request)
        assert isinstance(plans, list) and isinstance(plans[0], models.CoveragePlan)
        assert isinstance(plans[0].as_of, date) and plans[0].as_of == SAMPLE_TODAY
        assert plans[0].providers[0].npi == npi

        asked = models.PlanSearchRequest.from_dict(
            {"zip": "03031", "npis": [{"npi": npi}], "planTypes": ["H", "R", "E", "S"]}
        )
        offered = await api["plan_search"].asyncio(client=session, body=asked)
        assert isinstance(offered, models.PlanSearchResponse) and offered.total_count > 0
        assert all(isinstance(p, models.PlanMatch) for p in offered.results)
        assert offered.results[0].providers[0].npi == npi
        plan = await api["plan"].asyncio(bid_id=bid, client=session)
        assert isinstance(plan, models.PlanDetail) and plan.bid_id == bid
        unknown = await api["plan"].asyncio(bid_id="H9999_999_000", client=session)
        assert isinstance(unknown, models.Problem) and unknown.code == "plan_not_found"

        directories = await api["directories"].asyncio(client=session)
        assert isinstance(directories, models.DirectoryList)  # the sample loads no directory
        nobody = await api["directory"].asyncio(name="nobody", client=session)
        assert isinstance(nobody, models.Problem) and nobody.code == "directory_not_found"

        invalid = await api["provider"].asyncio(npi="100300010X", client=session)
        assert isinstance(invalid, models.Problem) and invalid.code == "invalid_npi"

"""The Plan-Net reference data's practitioners (its nppes-data file: 2,000, most of them with an
NPI whose check digit is wrong) are every one served, on /fhir and on /v2, as published: read
from the file with plain JSON, the check digit computed here. None of them is in the NPPES
sample (read here with csv), so those with a valid NPI are flagged as NPIs NPPES does not hold."""

from __future__ import annotations

import asyncio
from functools import cache

from tests.conftest import ApiClient
from tests.plan_net_rows import PLAN_NET_DIR, npi_of, resources
from tests.service.fhir import fhir_rows as F
from tests.source_rows import nppes_rows

REFERENCE_FILE = "nppes-data"
NPPES_SAMPLE = PLAN_NET_DIR.parent / "npidata_pfile_sample.csv.gz"


@cache
def _nppes_npis() -> frozenset[str]:
    return frozenset(row["NPI"] for row in nppes_rows(NPPES_SAMPLE))


def _expected_flags(npi: str) -> list[str]:
    if not F.luhn_ok(npi):
        return ["npi_check_digit_invalid"]
    assert npi not in _nppes_npis()
    return ["npi_not_in_nppes"]


def _reference_practitioners() -> dict[str, str]:
    """NPI -> family name of every practitioner of the reference file."""
    found = {}
    for resource in resources(f"{REFERENCE_FILE}_Practitioner"):
        npi = npi_of(resource)
        assert npi is not None
        found[npi] = resource["name"][0]["family"]
    return found


async def test_all_two_thousand_are_served_on_fhir(api: ApiClient) -> None:
    practitioners = _reference_practitioners()
    wrong = {npi for npi in practitioners if not F.luhn_ok(npi)}
    assert len(practitioners) == 2000 and len(wrong) == 1785
    served = {r["id"]: r for r in F.entries(await F.walk(api, "Practitioner", []))}
    assert set(practitioners) <= set(served)
    for npi, family in practitioners.items():
        assert served[npi]["name"][0]["family"] == family
        assert F.tags(served[npi]) == set(_expected_flags(npi))


async def test_all_two_thousand_are_served_on_v2(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    practitioners = sorted(_reference_practitioners().items())

    async def served(npi: str) -> tuple[str, int, object]:
        response = await api.get(f"/v2/providers/{npi}", headers=auth_header)
        body = await response.json()
        return npi, response.status, body

    for start in range(0, len(practitioners), 100):
        batch = practitioners[start : start + 100]
        answers = await asyncio.gather(*(served(npi) for npi, _ in batch))
        for (npi, family), (_, status, body) in zip(batch, answers, strict=True):
            assert status == 200, (npi, body)
            assert isinstance(body, dict) and body["lastName"] == family
            flagged = [n["code"] for n in body.get("dataQuality", [])]
            assert flagged == _expected_flags(npi)

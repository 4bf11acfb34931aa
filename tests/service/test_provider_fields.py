"""GET /v2/providers/{npi} and /locations field by field against the sample's NPPES rows, read
here with the csv module (names, gender, specialties with the primary flag, dates, the practice
address beyond its first line, phones and faxes), and a deactivated NPI is a 404."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.conftest import SAMPLE_DIR, ApiClient
from tests.source_rows import active_rows, is_active, nppes_rows, taxonomies

NPPES = next(SAMPLE_DIR.glob("npidata_pfile*"))
ROWS = active_rows(NPPES)
PRACTICE = "Business Practice Location Address"
SAMPLED = ROWS[:: max(1, len(ROWS) // 40)]  # about 40 providers spread over the file


def text(value: str) -> str | None:
    return value or None


def zip_code(value: str) -> str:
    return f"{value[:5]}-{value[5:]}" if len(value) == 9 else value


def iso(value: str) -> str | None:
    return datetime.strptime(value, "%m/%d/%Y").date().isoformat() if value else None


@pytest.mark.parametrize("row", SAMPLED, ids=lambda row: row["NPI"])
async def test_provider_and_its_practice_address_match_the_nppes_row(
    api: ApiClient, auth_header: dict[str, str], row: dict[str, str]
) -> None:
    npi = row["NPI"]
    provider = await (await api.get(f"/v2/providers/{npi}", headers=auth_header)).json()
    individual = row["Entity Type Code"] == "1"
    assert provider["entityType"] == ("individual" if individual else "organization")
    if individual:
        assert provider["lastName"] == text(row["Provider Last Name (Legal Name)"])
        assert provider["firstName"] == text(row["Provider First Name"])
        assert provider["middleName"] == text(row["Provider Middle Name"])
        assert provider["gender"] == text(row["Provider Sex Code"])
    else:
        legal_name = row["Provider Organization Name (Legal Business Name)"]
        assert provider["organizationName"] == legal_name
    listed = [(s["code"], s["primary"]) for s in provider["specialties"]]
    assert listed == list(taxonomies(row).items())
    assert provider["enumerationDate"] == iso(row["Provider Enumeration Date"])
    assert provider["lastUpdated"] == iso(row["Last Update Date"])

    locations = await (await api.get(f"/v2/providers/{npi}/locations", headers=auth_header)).json()
    first = locations[0]
    assert first["source"] == "nppes"  # the NPPES practice address comes first
    assert first["address"]["line1"] == row[f"Provider First Line {PRACTICE}"]
    assert first["address"]["line2"] == text(row[f"Provider Second Line {PRACTICE}"])
    assert first["address"]["city"] == row[f"Provider {PRACTICE} City Name"]
    assert first["address"]["state"] == row[f"Provider {PRACTICE} State Name"]
    assert first["address"]["zip"] == zip_code(row[f"Provider {PRACTICE} Postal Code"])
    phone = row[f"Provider {PRACTICE} Telephone Number"]
    fax = row[f"Provider {PRACTICE} Fax Number"]
    assert first["phoneNumbers"] == ([phone] if phone else [])
    assert first["faxNumbers"] == ([fax] if fax else [])


async def test_a_deactivated_npi_is_not_found(api: ApiClient, auth_header: dict[str, str]) -> None:
    gone = [row["NPI"] for row in nppes_rows(NPPES) if not is_active(row)]
    assert gone, "the sample carries deactivated NPIs"
    for npi in gone[:5]:
        for path in (f"/v2/providers/{npi}", f"/v2/providers/{npi}/locations"):
            response = await api.get(path, headers=auth_header)
            assert response.status == 404
            assert (await response.json())["code"] == "provider_not_found"

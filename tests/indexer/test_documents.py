"""Mapping of real NPPES rows to documents, checked field by field against the source row."""

from __future__ import annotations

import re
import uuid
from datetime import date

import pytest

from core.confidence import Ages
from core.npi import ID_NAMESPACE, listed_id, location_id, provider_id
from core.search_fields import locations_of, provider_of, provider_source
from indexer.assembly.documents import build_documents, normalize_credentials
from indexer.assembly.locations import format_zip
from indexer.load.run import SourceFiles
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.nucc import read_nucc
from indexer.sources.rejects import ignore_rejects
from tests.source_rows import active_rows
from tests.source_rows import words as normalize

_AGES = Ages.on(date(2026, 1, 1))

PRACTICE = "Provider Business Practice Location Address"


def _credentials(text: str) -> list[str]:
    """The documented rule, written here: periods dropped, upper case, split on "," ";" "/",
    spaces collapsed, each credential once in the order written."""
    found: list[str] = []
    for part in re.split("[,;/]", text.upper().replace(".", "")):
        credential = " ".join(part.split())
        if credential and credential not in found:
            found.append(credential)
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("M.D.", ["MD"]),
        ("M.D., Ph.D.", ["MD", "PHD"]),
        ("md; mph / facp", ["MD", "MPH", "FACP"]),
        ("", []),
        ("D.O.,  D.O.", ["DO"]),
        ("NURSE  PRACTITIONER", ["NURSE PRACTITIONER"]),
    ],
)
def test_normalize_credentials(text: str, expected: list[str]) -> None:
    assert normalize_credentials(text) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("902483523", "90248-3523"), ("10013", "10013"), ("", None), ("C1C 1", "C1C 1")],
)
def test_format_zip(raw: str, expected: str | None) -> None:
    assert format_zip(raw) == expected


def test_fast_ids_are_uuid5_in_the_contract_namespace() -> None:
    for npi in ("1003000100", "1234567893", "2000000002"):
        assert provider_id(npi) == str(uuid.uuid5(ID_NAMESPACE, f"provider:{npi}"))
        key = f"22 BRAMHALL ST||PORTLAND|ME|{npi[:5]}"
        assert location_id(npi, key) == str(uuid.uuid5(ID_NAMESPACE, f"location:{npi}:{key}"))


def _or_none(value: str) -> str | None:
    return value or None


def test_every_sample_row_maps_field_by_field(sample_sources: SourceFiles) -> None:
    nucc = read_nucc(sample_sources.nucc)
    records = {
        r.npi: r
        for r in read_nppes(sample_sources.nppes_file, ignore_rejects)
        if isinstance(r, NppesRecord)
    }
    rows = active_rows(sample_sources.nppes_file)
    assert len(rows) == len(records)
    slots = range(1, 16)
    for row in rows:
        docs = build_documents(records[row["NPI"]], nucc, _AGES)
        provider, [location], search = docs.provider, docs.locations, docs.search
        individual = row["Entity Type Code"] == "1"
        dba = row["Provider Other Organization Name Type Code"] == "3"
        assert provider["id"] == provider_id(row["NPI"])
        # The search source leaves out the id the NPI gives; its readers put it back.
        assert "id" not in search["provider"]
        assert provider_of(search) == provider
        # It leaves out the confidence of a location NPPES alone lists, as of the provider's
        # last update and not stale (no signal lowers an NPPES-only provider); readers put it
        # back.
        confidence = location["confidence"]
        alone = [{"source": "nppes", "asOf": provider["lastUpdated"]}]
        plain = confidence["evidence"] == alone and "stale" not in confidence["reasons"]
        assert ("confidence" not in search["locations"][0]) == plain
        assert locations_of(search) == [location]
        assert provider["entityType"] == ("individual" if individual else "organization")
        assert provider["lastName"] == _or_none(row["Provider Last Name (Legal Name)"])
        assert provider["firstName"] == _or_none(row["Provider First Name"])
        assert provider["organizationName"] == _or_none(
            row["Provider Organization Name (Legal Business Name)"]
        )
        assert provider["doingBusinessAs"] == (
            _or_none(row["Provider Other Organization Name"]) if dba else None
        )
        assert provider["gender"] == (_or_none(row["Provider Sex Code"]) if individual else None)
        assert provider["credentials"] == _credentials(row["Provider Credential Text"])
        assert "." not in "".join(provider["credentials"])
        # each code once (NPPES repeats it per licence state): first licence, primary if any
        taxonomy: dict[str, tuple[str, bool, str | None, str | None]] = {}
        for i in slots:
            code = row[f"Healthcare Provider Taxonomy Code_{i}"]
            if not code:
                continue
            primary = row[f"Healthcare Provider Primary Taxonomy Switch_{i}"] == "Y"
            if code in taxonomy:
                first = taxonomy[code]
                taxonomy[code] = (code, first[1] or primary, first[2], first[3])
                continue
            license_number = _or_none(row[f"Provider License Number_{i}"])
            license_state = _or_none(row[f"Provider License Number State Code_{i}"])
            taxonomy[code] = (code, primary, license_number, license_state)
        assert [
            (s["code"], s["primary"], s["licenseNumber"], s["licenseState"])
            for s in provider["specialties"]
        ] == list(taxonomy.values())
        for specialty in provider["specialties"]:
            assert specialty["displayName"] == nucc[specialty["code"]].display_name
        assert location["phoneNumbers"] == [p for p in [row[f"{PRACTICE} Telephone Number"]] if p]
        assert location["faxNumbers"] == [p for p in [row[f"{PRACTICE} Fax Number"]] if p]
        assert location["source"] == "nppes"
        assert search["npi"] == row["NPI"]
        assert search["taxonomyCodes"] == list(taxonomy)
        assert search["networks"] == []
        if dba:
            # Held in its own case; the mapping lower-cases it (core.text.indexed_form).
            organizations = [name.lower() for name in search["organizations"]]
            assert normalize(row["Provider Other Organization Name"]) in organizations


def test_a_provider_whose_id_no_npi_gives_keeps_it_in_the_search_source(
    sample_sources: SourceFiles,
) -> None:
    record = next(
        r
        for r in read_nppes(sample_sources.nppes_file, ignore_rejects)
        if isinstance(r, NppesRecord)
    )
    provider = build_documents(record, read_nucc(sample_sources.nucc), _AGES).provider
    listed = {**provider, "id": listed_id("plan-net:acme", "Practitioner/p1"), "npis": []}
    with_other_id = {**provider, "id": listed_id("plan-net:acme", "Practitioner/p2")}
    for kept in (listed, with_other_id):
        assert provider_source(kept) == kept  # type: ignore[arg-type]
        assert provider_of({"provider": provider_source(kept)}) == kept

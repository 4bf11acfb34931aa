from __future__ import annotations

import pytest

from core.npi import is_valid_npi, location_id, provider_id, with_check_digit


@pytest.mark.parametrize("npi", ["1003000100", "1003002106", "1215911011", "1538149216"])
def test_real_npis_are_valid(npi: str) -> None:
    assert is_valid_npi(npi)


@pytest.mark.parametrize(
    "value",
    [
        "1003000101",
        "100300010",
        "10030001000",
        "abcdefghij",
        "",
        "1003000\uff1100",
        " 1003000100",
        "1003000100\n",
    ],
)
def test_malformed_npis_are_rejected(value: str) -> None:
    assert not is_valid_npi(value)


def test_check_digit_round_trip() -> None:
    assert with_check_digit("100300010") == "1003000100"


def test_ids_differ_between_providers_and_between_addresses() -> None:
    # That they equal uuid5 in the contract namespace (so stable) is tests/indexer/test_documents.
    assert provider_id("1003000100") != provider_id("1003002106")
    assert location_id("1003000100", "A") != location_id("1003000100", "B")
    assert location_id("1003000100", "A") != location_id("1003002106", "A")

from __future__ import annotations

import uuid

import pytest

from core.npi import (
    ID_NAMESPACE,
    is_provider_key,
    is_valid_npi,
    listed_id,
    location_id,
    npi_issue,
    provider_id,
    provider_key,
    with_check_digit,
)


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


@pytest.mark.parametrize(
    ("value", "issue"),
    [
        ("1003000100", None),
        ("1003000101", "npi_check_digit_invalid"),  # 0 is its check digit
        ("100300010", "npi_malformed"),
        ("1003000100 ", "npi_malformed"),  # as published: not trimmed
        ("10030-00100", "npi_malformed"),
        ("1003000\uff1100", "npi_malformed"),
        ("", "npi_missing"),
        (None, "npi_missing"),
    ],
)
def test_what_is_wrong_with_a_published_npi(value: str | None, issue: str | None) -> None:
    assert npi_issue(value) == issue


def test_a_provider_is_keyed_by_its_ten_digits_else_by_its_id() -> None:
    own = listed_id("plan-net:acme", "Practitioner/p1")
    assert own == str(uuid.uuid5(ID_NAMESPACE, "provider:plan-net:acme:Practitioner/p1"))
    assert own != listed_id("plan-net:other", "Practitioner/p1")  # per directory
    assert provider_key(["1003000101"], own) == "1003000101"  # a wrong check digit keys too
    assert provider_key(["10030-00100"], own) == own == provider_key([], own)
    assert is_provider_key("1003000101") and is_provider_key(own)
    assert not is_provider_key("payer-H1234") and not is_provider_key("10030-00100")

"""Plan Finder money strings -> dollars, worked by hand."""

from __future__ import annotations

import pytest

from core.money import Amounts, parse_money


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1,234.00", Amounts(plain=1234.0)),
        ("$0.00", Amounts(plain=0.0)),
        ("$285 Annual deductible", Amounts(plain=285.0)),
        ("$283 per year for in-network services", Amounts(in_network=283.0)),
        ("$250 In-network", Amounts(in_network=250.0)),
        (
            "$10,000 In and Out-of-network | $6,150 In-network",
            Amounts(in_network=6150.0, combined=10000.0),
        ),
        ("$13,900 In and Out-of-network\n$9,250 In-network", Amounts(None, 9250.0, 13900.0)),
        ("$10,100 In and Out-of-network", Amounts(combined=10100.0)),
        ("", Amounts()),
        ("Not offered", Amounts()),
        (None, Amounts()),
    ],
)
def test_amounts(text: str | None, expected: Amounts) -> None:
    assert parse_money(text) == expected


def test_the_one_amount_of_a_field() -> None:
    assert parse_money("$285 Annual deductible").amount == 285.0
    assert parse_money("$250 In-network").amount == 250.0
    assert parse_money("$10,000 In and Out-of-network | $6,150 In-network").amount == 6150.0
    assert parse_money("N/A").amount is None

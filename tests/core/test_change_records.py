"""The change records of a provider and of a plan, worked out by hand (core.change_records)."""

from __future__ import annotations

from typing import Any

from core.change_records import Listing, accepting_changes, plan_changes, provider_changes

NPI = "1234567893"


def _provider(**fields: Any) -> Any:
    provider = {
        "id": "p",
        "npis": [NPI],
        "entityType": "individual",
        "organizationName": None,
        "doingBusinessAs": None,
        "firstName": "ANN",
        "lastName": "LEE",
        "middleName": None,
        "prefix": "DR.",
        "suffix": None,
        "specialties": [
            {"code": "207Q00000X", "displayName": "Family Medicine", "primary": True},
        ],
    }
    return {**provider, **fields}


def _location(
    location_id: str, line1: str, phone: str = "2075550100", source: str = "nppes"
) -> Any:
    return {
        "id": location_id,
        "address": {"line1": line1, "city": "PORTLAND", "state": "ME", "zip": "04101"},
        "phoneNumbers": [phone],
        "source": source,
    }


def _network(key: str, gte: str | None = None, lt: str | None = None) -> Any:
    period = {name: day for name, day in (("gte", gte), ("lt", lt)) if day}
    return {"key": key, "period": period}


def _kinds(changes: list[Any]) -> list[tuple[str, str | None, int | None]]:
    return [(c["kind"], c["bidId"], c["contractYear"]) for c in changes]


def test_nothing_changed_records_nothing() -> None:
    listing = Listing(_provider(), [_location("a", "1 MAIN ST")], [_network("2026:H1_001_000")])
    assert provider_changes(NPI, listing, listing, "nppes") == []


def test_a_moved_provider_is_one_location_change() -> None:
    before = Listing(_provider(), [_location("a", "1 MAIN ST")], [])
    after = Listing(_provider(), [_location("b", "9 ELM ST")], [])
    [change] = provider_changes(NPI, before, after, "npidata_pfile_weekly.csv")
    assert change["kind"] == "location_changed"
    assert change["before"]["address"]["line1"] == "1 MAIN ST"
    assert change["after"]["address"]["line1"] == "9 ELM ST"
    assert (change["npi"], change["source"]) == (NPI, "npidata_pfile_weekly.csv")


def test_a_new_phone_at_the_same_address_is_a_location_change() -> None:
    before = Listing(_provider(), [_location("a", "1 MAIN ST")], [])
    after = Listing(_provider(), [_location("a", "1 MAIN ST", phone="2075550199")], [])
    [change] = provider_changes(NPI, before, after, "nppes")
    assert change["kind"] == "location_changed"
    assert (change["before"]["phoneNumbers"], change["after"]["phoneNumbers"]) == (
        ["2075550100"],
        ["2075550199"],
    )


def test_another_source_adding_an_address_is_an_added_location() -> None:
    kept = _location("a", "1 MAIN ST")
    before = Listing(_provider(), [kept], [])
    after = Listing(_provider(), [kept, _location("b", "9 ELM ST", source="plan-net:acme")], [])
    assert _kinds(provider_changes(NPI, before, after, "plan-net:acme")) == [
        ("location_added", None, None)
    ]
    assert _kinds(provider_changes(NPI, after, before, "plan-net:acme")) == [
        ("location_removed", None, None)
    ]


def test_networks_joined_left_and_ending_sooner() -> None:
    before = Listing(
        _provider(), [], [_network("2026:H1_001_000"), _network("2026:H2_002_000", "2026-01-01")]
    )
    after = Listing(
        _provider(),
        [],
        [_network("2026:H2_002_000", "2026-01-01", "2026-07-01"), _network("2027:payer:gold")],
    )
    changes = provider_changes(NPI, before, after, "coverage.csv")
    assert _kinds(changes) == [
        ("network_left", "H1_001_000", 2026),
        ("network_left", "H2_002_000", 2026),
        ("network_joined", "payer:gold", 2027),
    ]
    assert changes[1]["after"] == [{"gte": "2026-01-01", "lt": "2026-07-01"}]
    extended = Listing(_provider(), [], [_network("2026:H2_002_000", "2026-01-01", "2027-01-01")])
    shorter = Listing(_provider(), [], [_network("2026:H2_002_000", "2026-01-01", "2026-07-01")])
    assert _kinds(provider_changes(NPI, shorter, extended, "c")) == [
        ("network_joined", "H2_002_000", 2026)
    ]


def test_name_specialty_and_a_raised_flag() -> None:
    note = {"code": "name_differs_from_nppes", "source": "plan-net:acme", "value": "Anne Lee"}
    before = Listing(_provider(), [], [])
    after = Listing(
        _provider(
            lastName="LEE-SMITH",
            prefix="DR",  # a title alone is no other name
            specialties=[
                {"code": "208D00000X", "displayName": "General Practice", "primary": True}
            ],
            dataQuality=[note, {**note, "source": "plan-net:other"}],
        ),
        [],
        [],
    )
    changes = provider_changes(NPI, before, after, "plan-net:acme")
    assert _kinds(changes) == [
        ("name_changed", None, None),
        ("specialty_changed", None, None),
        ("flag_raised", None, None),
    ]
    assert (changes[0]["before"], changes[0]["after"]) == ("ANN LEE", "ANN LEE-SMITH")
    assert changes[2]["after"] == note
    assert provider_changes(NPI, after, after, "plan-net:acme") == []


def test_deactivation_and_reactivation() -> None:
    listing = Listing(_provider(), [_location("a", "1 MAIN ST")], [_network("2026:H1_001_000")])
    gone = provider_changes(NPI, listing, None, "weekly.csv", "deactivated")
    assert _kinds(gone) == [
        ("deactivated", None, None),
        ("location_removed", None, None),
        ("network_left", "H1_001_000", 2026),
    ]
    back = provider_changes(NPI, None, listing, "weekly.csv", "reactivated")
    assert [c["kind"] for c in back] == ["reactivated", "location_added", "network_joined"]
    # A payer's listing kept after NPPES deactivated the NPI: the flag says it.
    flag = {"code": "npi_deactivated", "source": "plan-net:acme", "value": NPI}
    flagged = Listing(_provider(dataQuality=[flag]), listing.locations, listing.networks)
    assert [c["kind"] for c in provider_changes(NPI, listing, flagged, "w")] == [
        "deactivated",
        "flag_raised",
    ]
    assert [c["kind"] for c in provider_changes(NPI, flagged, listing, "w")] == ["reactivated"]


def test_plan_terms() -> None:
    plan = {"monthlyPremium": 0.0, "healthDeductible": 250.0, "starRating": {"overall": 4.0}}
    dearer = {**plan, "monthlyPremium": 19.5, "planName": "renamed: not a member's term"}
    [change] = plan_changes("2027:H1_001_000", plan, dearer, "plan-finder")
    assert (change["kind"], change["bidId"], change["contractYear"]) == (
        "plan_changed",
        "H1_001_000",
        2027,
    )
    assert (change["before"], change["after"]) == (
        {"monthlyPremium": 0.0},
        {"monthlyPremium": 19.5},
    )
    assert plan_changes("2027:H1_001_000", plan, {**plan, "planName": "x"}, "plan-finder") == []
    assert [c["kind"] for c in plan_changes("2027:H1_001_000", None, plan, "p")] == ["plan_added"]
    assert [c["kind"] for c in plan_changes("2027:H1_001_000", plan, None, "p")] == ["plan_removed"]


def test_accepting_new_patients() -> None:
    row = {
        "contractYear": 2026,
        "bidId": "H1_001_000",
        "npi": NPI,
        "locationId": None,
        "acceptingNewPatients": True,
    }
    before: Any = {"r1": row, "r2": {**row, "bidId": "H2_002_000"}}
    after: Any = {"r1": {**row, "acceptingNewPatients": False}, "r2": before["r2"]}
    [change] = accepting_changes(before, after, "coverage.csv")
    assert change["kind"] == "accepting_new_patients_changed"
    assert (change["npi"], change["bidId"], change["contractYear"]) == (NPI, "H1_001_000", 2026)
    assert change["after"] == {"locationId": None, "acceptingNewPatients": False}

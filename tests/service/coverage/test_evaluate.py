"""Coverage request validation and the pure in-network evaluation."""

from __future__ import annotations

import json
from datetime import date
from typing import Any, cast

import pytest
from pydantic import ValidationError

from core.documents import CoverageDoc, Location, NetworkStatus, Plan, Provider
from core.npi import with_check_digit
from service.coverage.evaluate import evaluate
from service.coverage.models import MAX_BID_IDS, MAX_NPIS, CoverageRequest
from service.network_kit.evaluate import StoredFacts

NPI_A, NPI_B = "1003000100", "1003002106"
BID = "H1234_001_000"


def _request(**fields: Any) -> CoverageRequest:
    body = {"contractYear": 2026, "bidIds": [BID], "npis": [{"npi": NPI_A}], **fields}
    return CoverageRequest.model_validate_json(json.dumps(body))


def test_bid_ids_are_canonicalised_and_deduplicated() -> None:
    request = _request(bidIds=["h1234-001", "H1234_001_000", "R5678-002-001"])
    assert request.bidIds == ["H1234_001_000", "R5678_002_001"]


def test_payer_plan_ids_alone_or_beside_bid_ids_in_request_order() -> None:
    body = {"contractYear": 2026, "payerPlanIds": ["HPID1", "HPID1", "B"], "npis": [{"npi": NPI_A}]}
    alone = CoverageRequest.model_validate_json(json.dumps(body))
    assert [key for key, _, _ in alone.plans] == ["payer:HPID1", "payer:B"]
    both = _request(payerPlanIds=["HPID1"])
    assert both.plans == [(BID, BID, None), ("payer:HPID1", None, "HPID1")]


def test_a_request_without_plans_is_refused() -> None:
    body = {"contractYear": 2026, "npis": [{"npi": NPI_A}]}
    with pytest.raises(ValidationError, match="bidIds"):
        CoverageRequest.model_validate_json(json.dumps(body))


def _valid_npis(count: int) -> list[dict[str, str]]:
    return [{"npi": with_check_digit(str(100_000_000 + n))} for n in range(count)]


@pytest.mark.parametrize(
    "fields",
    [
        {"bidIds": ["H123_001"]},
        {"bidIds": ["H1234_01"]},
        {"bidIds": []},
        {"bidIds": [f"H{n:04d}_001" for n in range(MAX_BID_IDS + 1)]},
        {"npis": [{"npi": "100300010"}]},
        {"npis": []},
        {"npis": _valid_npis(MAX_NPIS + 1)},
        {"contractYear": "2026"},
        {"asOf": "yesterday"},
        {"bidIds": None},
        {"payerPlanIds": []},
        {"payerPlanIds": ["has space"]},
        {"extra": 1},
    ],
)
def test_invalid_requests(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        _request(**fields)


def test_the_limits_themselves_are_accepted() -> None:
    bids = [f"H{n:04d}_001" for n in range(MAX_BID_IDS)]
    request = _request(bidIds=bids, npis=_valid_npis(MAX_NPIS))
    assert (len(request.bidIds or []), len(request.npis)) == (MAX_BID_IDS, MAX_NPIS)


def _row(
    npi: str,
    status: NetworkStatus = "in_network",
    location: str | None = None,
    start: str | None = None,
    end: str | None = None,
) -> CoverageDoc:
    return CoverageDoc(
        contractYear=2026,
        bidId=BID,
        npi=npi,
        locationId=location,
        networkStatus=status,
        acceptingNewPatients=True,
        effectiveDate=start,
        terminationDate=end,
        source="test",
    )


CONFIDENCE = {"score": 3, "evidence": [{"source": "nppes", "asOf": None}], "reasons": []}


def _facts(rows: list[CoverageDoc], plans: bool = True) -> StoredFacts:
    # Only the fields the evaluation reads; the rest of the documents does not matter here.
    return StoredFacts(
        plans={BID: cast(Plan, {"bidId": BID, "contractYear": 2026})} if plans else {},
        providers={NPI_A: cast(Provider, {"id": "p", "npis": [NPI_A]})},
        locations={
            NPI_A: [cast(Location, {"id": "loc-1", "npi": NPI_A, "confidence": CONFIDENCE})]
        },
        coverage=rows,
    )


def test_dates_bound_the_status() -> None:
    row = _row(NPI_A, start="2026-01-01", end="2026-07-01")
    facts = _facts([row])
    inside = evaluate(_request(asOf="2026-03-01"), facts, today=date(2026, 1, 1))
    after = evaluate(_request(asOf="2026-08-01"), facts, today=date(2026, 1, 1))
    assert inside[0]["providers"][0]["networkStatus"] == "in_network"
    assert after[0]["providers"][0]["networkStatus"] == "out_of_network"


def test_unknown_reasons() -> None:
    no_plan = evaluate(_request(), _facts([], plans=False), today=date(2026, 3, 1))
    assert no_plan[0]["providers"][0]["reason"] == "plan_not_found"
    no_npi = evaluate(_request(npis=[{"npi": NPI_B}]), _facts([]), today=date(2026, 3, 1))
    assert no_npi[0]["providers"][0]["reason"] == "provider_not_found"
    bad_loc = evaluate(
        _request(npis=[{"npi": NPI_A, "locationIds": ["nope"]}]),
        _facts([_row(NPI_A)]),
        today=date(2026, 3, 1),
    )
    entry = bad_loc[0]["providers"][0]
    assert (entry["networkStatus"], entry["reason"]) == ("unknown", "location_not_found")
    assert entry["locations"][0]["reason"] == "location_not_found"


def test_location_rows_and_provider_wide_rows() -> None:
    facts = _facts(
        [_row(NPI_A, status="out_of_network"), _row(NPI_A, location="loc-1", status="in_network")]
    )
    [group] = evaluate(
        _request(npis=[{"npi": NPI_A, "locationIds": ["loc-1"]}]), facts, today=date(2026, 3, 1)
    )
    [entry] = group["providers"]
    assert entry["networkStatus"] == "in_network"
    assert entry["locations"][0]["networkStatus"] == "in_network"
    assert entry["locations"][0]["acceptingNewPatients"] is True

"""What the Plan-Net import changes before it uses a resource is counted by kind, for the used
resources only, and the change is what the directory keeps and serves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.sources.plan_net import read_plan_net
from tests.indexer.test_plan_net_reader import (
    OTHER_NPI,
    VALID_NPI,
    _collect,
    _location,
    _network,
    _practitioner,
    _write,
)

UPDATED = {"meta": {"lastUpdated": "2025-01-02T03:04:05Z"}}


def _numeric_npi(practitioner: dict[str, Any]) -> dict[str, Any]:
    identifier = practitioner["identifier"][0]
    return {**practitioner, "identifier": [{**identifier, "value": int(identifier["value"])}]}


def test_each_normalisation_is_counted_once_per_used_resource(tmp_path: Path) -> None:
    _write(tmp_path / "Organization.ndjson", [{**_network("net"), **UPDATED}])
    _write(tmp_path / "Location.ndjson", [_location("here")])  # no meta
    licensed = {
        **_practitioner(OTHER_NPI, "licensed"),
        "qualification": [{"identifier": [{"value": 12345}], "code": {"text": "MD"}}],
    }
    unreadable_language = _practitioner("1245319581", "rejected", language="zz-not-a-language")
    _write(
        tmp_path / "Practitioner.ndjson",
        [
            {**_numeric_npi(_practitioner(VALID_NPI, "numbered")), **UPDATED},
            licensed,  # a numeric licence number, no meta
            _numeric_npi(unreadable_language),  # rejected: not counted
        ],
    )
    endpoint = {"resourceType": "Endpoint", "id": "e1", "identifier": [{"value": 7}], **UPDATED}
    _write(tmp_path / "Endpoint.ndjson", [endpoint])
    rejected, reject = _collect()
    directory = read_plan_net(tmp_path, reject)
    assert [reason for *_, reason in rejected] == ["bad_code: language zz-not-a-language"]
    assert directory.normalised == {"identifier_value_as_number": 3, "missing_last_updated": 2}
    assert VALID_NPI in directory.providers
    assert directory.published["Endpoint/e1"]["identifier"] == [{"value": "7"}]


def test_a_service_specialty_its_binding_refuses_is_left_out_and_counted(tmp_path: Path) -> None:
    _write(tmp_path / "Organization.ndjson", [{**_network("net"), **UPDATED}])
    nucc = "http://nucc.org/provider-taxonomy"
    student = {"coding": [{"system": nucc, "code": "390200000X"}]}  # NUCC: Student
    mixed = {
        "coding": [
            {"system": nucc, "code": "207R00000X"},  # Internal Medicine: in SpecialtiesVS
            {"system": nucc, "code": "390200000X"},
        ]
    }
    service = {
        "resourceType": "HealthcareService",
        "id": "s1",
        "specialty": [student, mixed],
        **UPDATED,
    }
    _write(tmp_path / "HealthcareService.ndjson", [service])
    _, reject = _collect()
    directory = read_plan_net(tmp_path, reject)
    assert directory.normalised == {"specialty_not_in_value_set": 1}
    served = directory.published["HealthcareService/s1"]
    assert served["specialty"] == [{"coding": [{"system": nucc, "code": "207R00000X"}]}]

"""What a published resource's ``identifier`` matches: FHIR token search on the identifiers the
export gives (``system|value``, ``|value`` for one without a system, the value alone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.assembly.plan_net_published import published_documents
from indexer.sources.plan_net import read_plan_net

SYSTEM = "http://example.org/directory-ids"


@pytest.mark.parametrize("kind", ["HealthcareService", "Endpoint"])
def test_identifier_terms(tmp_path: Path, kind: str) -> None:
    body = {
        "resourceType": kind,
        "id": "one",
        "identifier": [{"system": SYSTEM, "value": "A-1"}, {"value": "B-2"}, {"system": SYSTEM}],
    }
    (tmp_path / f"{kind}.ndjson").write_text(json.dumps(body) + "\n")
    [(_, document)] = list(published_documents(read_plan_net(tmp_path, lambda *_: None)))
    identifiers = [t for t in document["terms"] if t.startswith("identifier=")]
    assert identifiers == [
        f"identifier={SYSTEM}|A-1",
        "identifier=A-1",
        "identifier=|B-2",
        "identifier=B-2",
    ]
    assert document["resource"]["identifier"] == body["identifier"]

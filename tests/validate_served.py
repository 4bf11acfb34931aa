"""Every resource /fhir serves for an index prefix, through the HAPI validator: run by the test
session in a process of its own as soon as the sample is loaded, so the JVM works while the other
tests run (tests/service/fhir/test_fhir_validator.py asserts on what it writes).

Usage: python -m tests.validate_served --es-url URL --prefix PREFIX --out FILE
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from yarl import URL

from core.index_contract import IndexNames
from service.web.app import create_app
from tests import fhir_validator
from tests.conftest import SAMPLE_TODAY, settings_for


async def served(es_url: str, prefix: str) -> dict[str, list[Any]]:
    """``{"kinds": [...], "served": [...], "verdicts": [...]}``: the types the CapabilityStatement
    lists, the resources served (``Type/id``) and their verdicts, in that order."""
    app = create_app(settings_for(es_url, IndexNames(prefix)), today=lambda: SAMPLE_TODAY)
    seen: list[str] = []
    run = fhir_validator.Validation()  # validating while the rest is fetched
    async with TestClient(TestServer(app)) as client:
        metadata = await (await client.get("/fhir/metadata")).json(content_type=None)
        kinds = [entry["type"] for entry in metadata["rest"][0]["resource"]]
        known: set[str] = set()
        for kind in kinds:
            path: str | None = f"/fhir/{kind}?_count=500"
            while path is not None:
                response = await client.get(path)
                assert response.status == 200, await response.text()
                page = await response.json(content_type=None)
                for entry in page.get("entry", []):
                    resource = entry["resource"]
                    key = f"{resource['resourceType']}/{resource['id']}"
                    if key not in known:
                        known.add(key)
                        seen.append(key)
                        run.feed(resource)
                nxt = [link["url"] for link in page["link"] if link["relation"] == "next"]
                path = URL(nxt[0]).path_qs if nxt else None
    verdicts = [
        {"resource": v.resource, "profile": v.profile, "errors": list(v.errors)}
        for v in run.verdicts()
    ]
    return {"kinds": kinds, "served": seen, "verdicts": verdicts}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.validate_served")
    parser.add_argument("--es-url", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.write_text(json.dumps(asyncio.run(served(args.es_url, args.prefix))))


if __name__ == "__main__":
    main()

"""The exhaustive sweep: EVERY resource /fhir serves for an index prefix through the HAPI
validator (tests/fhir_validator.py), in one JVM run: the CapabilityStatement, each type's search
paged to its end, the counties plans are sold in (no search lists them: the InsurancePlans'
``coverage-area`` includes), and each ``$export`` line that search did not serve as it is.

Run by ``make fhir-validate`` (tests/service/fhir/test_fhir_sweep.py, on the sample with its
Plan-Net reference export), or against any loaded prefix:

    python -m tests.validate_served --es-url URL --prefix PREFIX [--out FILE]

which prints each resource with an error and exits 1 if there is any (FILE: every verdict, JSON).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp.test_utils import TestClient, TestServer
from yarl import URL

from core.index_contract import IndexNames
from service.web.app import create_app
from tests import fhir_validator
from tests.conftest import SAMPLE_TODAY, ApiClient, settings_for

Json = dict[str, Any]
PAGE = 100  # the largest _count


@dataclass
class Swept:
    kinds: list[str] = field(default_factory=list)  # what the CapabilityStatement lists
    fed: list[tuple[str, Json]] = field(default_factory=list)  # (how it was served, resource)
    verdicts: list[fhir_validator.Verdict] = field(default_factory=list)
    exported_only: list[str] = field(default_factory=list)  # Type/id no search served

    def failing(self) -> dict[str, list[str]]:
        """``how Type/id`` -> its errors, of every resource with an error or no profile (but
        the CapabilityStatement, which declares none)."""
        return {
            f"{how} {verdict.resource}": [str(e) for e in verdict.errors] or ["no profile"]
            for (how, resource), verdict in zip(self.fed, self.verdicts, strict=True)
            if verdict.errors
            or (verdict.profile is None and resource["resourceType"] != "CapabilityStatement")
        }

    def counted(self) -> Counter[str]:
        return Counter(f"{how} {resource['resourceType']}" for how, resource in self.fed)


async def _json(client: ApiClient, path: str) -> Json:
    response = await client.get(path)
    assert response.status == 200, await response.text()
    found: Json = await response.json(content_type=None)
    return found


def _key(resource: Json) -> str:
    return f"{resource['resourceType']}/{resource.get('id', '')}"


async def _searched(client: ApiClient, path: str, mode: str) -> list[Json]:
    """Every resource of a search's ``mode`` entries (match, include), page after page."""
    found: list[Json] = []
    next_page: str | None = path
    while next_page is not None:
        page = await _json(client, next_page)
        found += [e["resource"] for e in page.get("entry", []) if e["search"]["mode"] == mode]
        following = [link["url"] for link in page["link"] if link["relation"] == "next"]
        next_page = URL(following[0]).path_qs if following else None
    return found


async def _exported(client: ApiClient) -> list[Json]:
    response = await client.get("/fhir/$export", headers={"Prefer": "respond-async"})
    assert response.status == 202, await response.text()
    manifest = await _json(client, URL(response.headers["Content-Location"]).path)
    lines: list[Json] = []
    for entry in manifest["output"]:
        response = await client.get(URL(entry["url"]).path)
        assert response.status == 200, await response.text()
        lines += [orjson.loads(line) for line in (await response.read()).splitlines()]
    return lines


async def sweep(client: ApiClient) -> Swept:
    """Everything ``client``'s /fhir serves, validated (fed as it is fetched)."""
    swept = Swept()
    served: dict[str, bytes] = {}
    run = fhir_validator.Validation()

    def feed(how: str, resource: Json) -> None:
        swept.fed.append((how, resource))
        run.feed(resource)

    try:
        metadata = await _json(client, "/fhir/metadata")
        feed("metadata", metadata)
        swept.kinds = [entry["type"] for entry in metadata["rest"][0]["resource"]]
        for kind in swept.kinds:
            for resource in await _searched(client, f"/fhir/{kind}?_count={PAGE}", "match"):
                if _key(resource) not in served:
                    served[_key(resource)] = orjson.dumps(resource, option=orjson.OPT_SORT_KEYS)
                    feed("search", resource)
        areas = f"/fhir/InsurancePlan?_include=InsurancePlan:coverage-area&_count={PAGE}"
        for resource in await _searched(client, areas, "include"):
            if _key(resource) not in served:
                served[_key(resource)] = orjson.dumps(resource, option=orjson.OPT_SORT_KEYS)
                feed("include", resource)
        for resource in await _exported(client):
            searched = served.get(_key(resource))
            if searched is None:
                swept.exported_only.append(_key(resource))
            if searched != orjson.dumps(resource, option=orjson.OPT_SORT_KEYS):
                feed("export", resource)
        swept.verdicts = await asyncio.to_thread(run.verdicts)
    finally:
        run.close()
    return swept


async def sweep_prefix(es_url: str, prefix: str) -> Swept:
    app = create_app(settings_for(es_url, IndexNames(prefix)), today=lambda: SAMPLE_TODAY)
    async with TestClient(TestServer(app)) as client:
        return await sweep(client)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.validate_served")
    parser.add_argument("--es-url", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    problem = fhir_validator.available()
    if problem is not None:
        sys.exit(f"cannot validate: {problem}")
    swept = asyncio.run(sweep_prefix(args.es_url, args.prefix))
    if args.out is not None:
        verdicts = [
            {"resource": v.resource, "profile": v.profile, "errors": [str(e) for e in v.errors]}
            for v in swept.verdicts
        ]
        args.out.write_text(json.dumps(verdicts))
    failing = swept.failing()
    for resource, errors in failing.items():
        print(resource, *errors, sep="\n  ")
    print(f"{len(swept.verdicts)} validated ({dict(swept.counted())}), {len(failing)} invalid")
    sys.exit(1 if failing else 0)


if __name__ == "__main__":
    main()

"""`make run`: Elasticsearch (local node unless ELASTICSEARCH_URL is set) + the bundled sample
loaded through the indexer + the API on 127.0.0.1:${PORT:-8080}, until Ctrl-C or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from dataclasses import replace
from pathlib import Path

from aiohttp import web

from core.es_client import make_client
from core.index_contract import IndexNames
from devtools import es_launcher
from devtools.settings import DevServerSettings
from indexer.load.report import format_report
from indexer.load.run import LoadOptions, SourceFiles, load
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.logs import configure_logging
from service.web.settings import Settings

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "sample"
PLAN_NET_DIR = SAMPLE_DIR / "plannet"
EXAMPLE_NPI = "1003000100"  # an individual in the bundled sample (Gardena, CA)
EXAMPLE_SEARCH = '{"query": "heart doctor", "location": "10013", "radius": 5, "pageSize": 3}'
# a (synthetic) in-network pair of the bundled coverage file
EXAMPLE_COVERAGE = (
    '{"contractYear": 2026, "bidIds": ["H2001-076"], "npis": [{"npi": "1003403668"}]}'
)
# plans sold in an NH ZIP, with two doctors of the bundled coverage file (README "Plans for my
# doctors")
EXAMPLE_PLANS = '{"zip": "03031", "npis": [{"npi": "1003677832"}, {"npi": "1023466729"}]}'
EXAMPLE_BID = "H5216_059_000"


async def _load_sample(url: str, names: IndexNames) -> None:
    es = make_client(url, request_timeout=120)
    try:
        # The bundled Plan-Net reference export too, so /fhir serves a payer's directory.
        sources = replace(
            SourceFiles.discover(SAMPLE_DIR), plan_net=PLAN_NET_DIR, plan_net_name="reference"
        )
        report = await load(es, sources, LoadOptions(names=names, progress=True))
        print("\n".join(format_report(report)))
    finally:
        await es.close()


def _print_examples(base: str, token: str) -> None:
    auth = f'-H "Authorization: Bearer {token}"'
    print(f"\nDevelopment token (all scopes, 1 day):\n{token}\n")
    print("Examples:")
    print(f"  curl -s {auth} {base}/v2/providers/{EXAMPLE_NPI}")
    print(f"  curl -s {auth} {base}/v2/providers/{EXAMPLE_NPI}/locations")
    json_auth = f"{auth} -H 'Content-Type: application/json'"
    print(f"  curl -s {json_auth} {base}/v2/providers/search \\\n       -d '{EXAMPLE_SEARCH}'")
    print(f"  curl -s {json_auth} {base}/v2/providers/coverage \\\n       -d '{EXAMPLE_COVERAGE}'")
    print(f"  curl -s {json_auth} {base}/v2/plans/search \\\n       -d '{EXAMPLE_PLANS}'")
    print(f"  curl -s {auth} {base}/v2/plans/{EXAMPLE_BID}")
    print(f"  curl -s '{base}/fhir/PractitionerRole?location.address-city=Hartford&_count=5'")
    print(f"  curl -s '{base}/fhir/PractitionerRole?_text=kardiologist&near=41.76|-72.68|10|mi'")
    print(f"  curl -s {base}/fhir/metadata   (FHIR Plan-Net API: no token needed)")
    print(f"  curl -s {base}/readyz")
    print(f"  open {base}/v2/docs   (API description: {base}/v2/openapi.json)\n")


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> int:
    signal.signal(signal.SIGTERM, _interrupt)  # until run_app installs its own handlers
    node = es_launcher.start()
    print(f"Elasticsearch ({node.kind}) at {node.url}")
    try:
        settings = Settings(elasticsearch_url=node.url, port=DevServerSettings().port)
        asyncio.run(_load_sample(node.url, IndexNames(settings.index_prefix)))
        token = mint_token(settings, ttl_s=86400)
        _print_examples(f"http://{settings.host}:{settings.port}", token)
        configure_logging(logging.INFO)
        # run_app turns SIGINT and SIGTERM into a graceful shutdown and returns. access_log=None:
        # the service writes its own JSON access lines (aiohttp's would include query strings).
        web.run_app(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            print=print,
            access_log=None,
        )
    except KeyboardInterrupt:
        pass
    finally:
        if node.started_here:
            print("Stopping the Elasticsearch node started for this run ...")
            es_launcher.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An incremental ``$export`` across an ``update --plan-net`` (the setup of
tests/service/test_plan_net.py's newer-export test): ``_since`` the export before it, the
practitioner whose languages changed is in the output, the endpoint the payer dropped and the
practitioner it no longer lists are in ``deleted``, an endpoint it still publishes unchanged is
not exported again; and ``$bulk-publish`` names new files after the update."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import SourceFiles
from indexer.update.options import UpdateOptions
from indexer.update.plan_net import update_plan_net
from tests.conftest import Serve, settings_for
from tests.service.fhir.test_fhir_export_since import _deleted, _exported
from tests.service.fhir.test_fhir_export_since import _export as _manifest
from tests.service.test_plan_net import (
    GREEN_CIRCLE_CT,
    _export,
    _in_network,
    _joined_export,
    _unlist,
    load_with_week1,
)
from tests.service.test_plan_net import sample_individual as sample_individual  # the fixture

EVERY_TYPE = ",Endpoint"  # after the provider types _manifest asks for


async def test_since_an_export_gives_what_a_plan_net_update_changed_and_removed(
    es: AsyncElasticsearch,
    serve: Serve,
    es_url: str,
    sample_sources: SourceFiles,
    sample_individual: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    names = IndexNames(f"test-since-plannet-{uuid.uuid4().hex[:8]}")
    npi, row = sample_individual
    try:
        await load_with_week1(es, names, sample_sources, sample_individual, tmp_path)
        api = await serve(settings_for(es_url, names))
        published_before = await api.get("/fhir/$bulk-publish")
        before = await _manifest(api, EVERY_TYPE)
        # Week 2: the joined practitioner speaks Portuguese; the first listed-only practitioner
        # is gone (with its roles); the payer drops its first endpoint.
        week2 = _export(tmp_path / "week2", _joined_export(Path(), npi, row, ["pt"]))
        gone = sorted(_in_network(GREEN_CIRCLE_CT)[0])[0]  # a practitioner only the export lists
        _unlist(week2, gone)
        endpoints = next(week2.glob("*nppes-data_Endpoint.ndjson"))
        dropped, unchanged, *rest = endpoints.read_text().splitlines()
        endpoints.write_text("\n".join([unchanged, *rest]) + "\n")
        options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
        assert (await update_plan_net(es, week2, options, "payer")).accounted

        since = await _manifest(api, f"{EVERY_TYPE}&_since={before['transactionTime']}")
        exported, deleted = await _exported(api, since), await _deleted(api, since)
        assert f"Practitioner/{npi}" in exported
        dropped_id = f"Endpoint/payer-{json.loads(dropped)['id']}"
        assert {dropped_id, f"Practitioner/{gone}"} <= deleted
        assert not {dropped_id, f"Practitioner/{gone}"} & exported
        assert f"Endpoint/payer-{json.loads(unchanged)['id']}" not in exported
        published_after = await api.get("/fhir/$bulk-publish")
        assert published_before.headers["ETag"] != published_after.headers["ETag"]
    finally:
        await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)

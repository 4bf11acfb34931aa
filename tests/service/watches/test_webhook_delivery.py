"""Webhook delivery to a receiver on loopback: every matching change, signed, in order; retried
after a 500 and after silence on the documented schedule; marked failing after a day; refused
targets never reached. The changes are the ones the test records (indexer.change_log), so the
expectations are the test's own. Rounds run at instants the test gives (``run_once(now)``): the
schedule is checked without waiting for it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from elasticsearch import AsyncElasticsearch
from standardwebhooks import Webhook

import tests.conftest as shared
from core.change_log import Change
from core.index_contract import IndexNames
from indexer.change_log import ChangeLog
from indexer.cli.status import status_lines
from indexer.publication import publish
from service.watches.delivery import Deliverer
from service.web.auth import mint_token
from service.web.settings import Settings
from tests.service.watches.receiver import HANG, Receiver, receiving

A, B, C = "1003000126", "1003000134", "1003000142"
PLAN = "H1234_001_000"
SOURCE = "test.csv"


def change(kind: str, npi: str | None, bid: str | None = None) -> Change:
    return Change(
        kind=kind,  # type: ignore[typeddict-item]
        npi=npi,
        bidId=bid,
        contractYear=2026 if bid else None,
        before={"was": kind},
        after={"is": kind},
        source=SOURCE,
    )


async def record(es: AsyncElasticsearch, names: IndexNames, changes: Sequence[Change]) -> None:
    """An update's records, committed and published as an update does."""
    log = await ChangeLog.begin(es, names, "update")
    await log.record(changes, "2026-12-01T00:00:00Z")
    marks = await log.commit(400)
    await publish(es, names, "v1", "update", marks)


class Client:
    def __init__(self, api: shared.ApiClient, settings: Settings, subject: str = "advisor") -> None:
        token = mint_token(settings, subject=subject, scopes=["watches:write"])
        self.api, self.headers = api, {"Authorization": f"Bearer {token}"}

    async def watch(self, url: str, **asked: Any) -> dict[str, Any]:
        answer = await self.api.post(
            "/v2/watches", json={"url": url, **asked}, headers=self.headers
        )
        made: dict[str, Any] = await answer.json()
        assert answer.status == 201, made
        return made

    async def get(self, path: str) -> Any:
        answer = await self.api.get(path, headers=self.headers)
        assert answer.status == 200
        return await answer.json()


def verified(secret: str, got: Any) -> Any:
    """The webhook's payload once its signature checks out (standardwebhooks, the receiver's
    side of the library)."""
    return Webhook(secret).verify(got.body, got.headers)


def told(payload: Any) -> list[tuple[Any, ...]]:
    return [(c["kind"], c["npi"], c["bidId"]) for c in payload["data"]["changes"]]


async def test_matching_changes_arrive_signed_in_order_once(
    serve: shared.Serve, es: AsyncElasticsearch, settings: Settings, index_names: IndexNames
) -> None:
    client = Client(await serve(settings), settings)
    async with receiving(Receiver()) as receiver:
        mine = await client.watch(f"{receiver.base}/mine", npis=[A, B], bidIds=[PLAN])
        moves = await client.watch(f"{receiver.base}/moves", npis=[A], kinds=["location_changed"])
        await record(es, index_names, [
            change("location_changed", A),
            change("name_changed", C),
            change("plan_changed", None, PLAN),
            change("network_left", B, "H9999_001_000"),
            change("network_joined", C, "H9999_001_000"),
            change("deactivated", A),
        ])  # fmt: skip
        lines, _ = await status_lines(es, index_names)
        assert (
            "webhooks           2 watches: 2 behind the feed (deliveries pending), 0 failing"
            in lines
        )
        deliverer = Deliverer(es, index_names, settings)
        try:
            done = await deliverer.run_once()
            assert done.sent == 2
            again = await deliverer.run_once()
            assert again.sent == 0
        finally:
            await deliverer.close()
    by_path = {got.path: got for got in receiver.got}
    assert sorted(by_path) == ["/mine", "/moves"] and len(receiver.got) == 2
    payload = verified(mine["secret"], by_path["/mine"])
    assert told(payload) == [
        ("location_changed", A, None),
        ("plan_changed", None, PLAN),
        ("network_left", B, "H9999_001_000"),
        ("deactivated", A, None),
    ]
    assert payload["data"]["watchId"] == mine["id"]
    assert told(verified(moves["secret"], by_path["/moves"])) == [("location_changed", A, None)]
    # Signed with another secret, it does not verify.
    with pytest.raises(Exception, match="signature"):
        verified(moves["secret"], by_path["/mine"])
    status = await client.get(f"/v2/watches/{mine['id']}/deliveries")
    assert [(d["attempt"], d["outcome"], d["changes"]) for d in status["deliveries"]] == [
        (1, "delivered", 4)
    ]
    assert status["deliveries"][0]["webhookId"] == by_path["/mine"].headers["webhook-id"]
    # The payload's cursor is the watch's mark: the feed after it holds nothing of the watch's.
    assert status["status"]["deliveredThrough"] == payload["data"]["nextCursor"]


async def test_a_500_and_silence_are_retried_on_the_schedule_with_the_same_id(
    serve: shared.Serve, es: AsyncElasticsearch, settings: Settings, index_names: IndexNames
) -> None:
    client = Client(await serve(settings), settings)
    async with receiving(Receiver(script=[500, HANG], otherwise=200)) as receiver:
        made = await client.watch(receiver.base, npis=[A])
        await record(es, index_names, [change("location_changed", A)])
        deliverer = Deliverer(es, index_names, settings)
        start = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=1)
        try:
            assert (await deliverer.run_once(start)).sent == 1  # answered 500
            first = (await client.get(f"/v2/watches/{made['id']}"))["status"]
            retry_at = datetime.fromisoformat(first["nextTryAt"])
            assert timedelta(0) < retry_at - start <= timedelta(seconds=10)
            assert (await deliverer.run_once(retry_at - timedelta(seconds=1))).sent == 0
            assert (await deliverer.run_once(retry_at)).sent == 1  # no answer: timed out
            second = (await client.get(f"/v2/watches/{made['id']}"))["status"]
            later = datetime.fromisoformat(second["nextTryAt"])
            assert later - retry_at > retry_at - start  # backing off
            assert (await deliverer.run_once(later)).sent == 1  # answered 200
            assert (await deliverer.run_once(later + timedelta(days=2))).sent == 0
        finally:
            await deliverer.close()
    assert len(receiver.got) == 3
    assert len({got.headers["webhook-id"] for got in receiver.got}) == 1
    assert all(told(verified(made["secret"], got)) == [("location_changed", A, None)]
               for got in receiver.got)  # fmt: skip
    deliveries = await client.get(f"/v2/watches/{made['id']}/deliveries")
    attempts = sorted(deliveries["deliveries"], key=lambda d: d["attempt"])
    assert [(d["outcome"], d["httpStatus"]) for d in attempts] == [
        ("failed", 500), ("failed", None), ("delivered", 200),
    ]  # fmt: skip
    assert "no answer" in attempts[1]["error"]
    assert deliveries["status"] == {**deliveries["status"], "state": "active", "failures": 0}


async def test_a_day_of_failures_marks_the_watch_failing(
    serve: shared.Serve, es: AsyncElasticsearch, settings: Settings, index_names: IndexNames
) -> None:
    client = Client(await serve(settings), settings)
    async with receiving(Receiver(otherwise=503)) as receiver:
        made = await client.watch(receiver.base, npis=[A])
        await record(es, index_names, [change("deactivated", A)])
        deliverer = Deliverer(es, index_names, settings)
        start = datetime.now(UTC).replace(microsecond=0)
        try:
            moment, rounds = start, 0
            while (await client.get(f"/v2/watches/{made['id']}"))["status"]["state"] == "active":
                assert (await deliverer.run_once(moment)).sent == 1
                moment += timedelta(hours=2)
                rounds += 1
                assert rounds <= 20, "still retrying after 40 hours"
            assert moment - start > timedelta(days=1)
            assert (await deliverer.run_once(moment + timedelta(days=1))).sent == 0
        finally:
            await deliverer.close()
    watch = await client.get(f"/v2/watches/{made['id']}")
    assert watch["status"]["state"] == "failing"
    lines, _ = await status_lines(es, index_names)
    assert (
        "webhooks           1 watches: 1 behind the feed (deliveries pending), 1 failing" in lines
    )
    assert "answered 503" in watch["status"]["reason"]
    assert len(receiver.got) == rounds


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_target_no_longer_allowed_is_refused_at_delivery_without_a_request(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    settings: Settings,
    index_names: IndexNames,
    host: str,
) -> None:
    allowing = settings.model_copy(update={"webhook_allow": [host]})
    client = Client(await serve(allowing), allowing)
    async with receiving(Receiver()) as receiver:
        port = receiver.base.rsplit(":", 1)[1]
        made = await client.watch(f"http://{host}:{port}/hook", npis=[A])
        await record(es, index_names, [change("deactivated", A)])
        strict = settings.model_copy(update={"webhook_allow": []})
        deliverer = Deliverer(es, index_names, strict)
        try:
            assert (await deliverer.run_once()).sent == 1
        finally:
            await deliverer.close()
    assert receiver.got == []
    attempt = (await client.get(f"/v2/watches/{made['id']}/deliveries"))["deliveries"][0]
    assert attempt["outcome"] == "failed" and "loopback" in attempt["error"], attempt


async def test_a_redirect_is_not_followed(
    serve: shared.Serve, es: AsyncElasticsearch, settings: Settings, index_names: IndexNames
) -> None:
    client = Client(await serve(settings), settings)
    async with receiving(Receiver(otherwise=307)) as receiver:
        made = await client.watch(f"{receiver.base}/hook", npis=[A])
        await record(es, index_names, [change("deactivated", A)])
        deliverer = Deliverer(es, index_names, settings)
        try:
            await deliverer.run_once()
        finally:
            await deliverer.close()
    assert [got.path for got in receiver.got] == ["/hook"]
    attempt = (await client.get(f"/v2/watches/{made['id']}/deliveries"))["deliveries"][0]
    assert (attempt["outcome"], attempt["httpStatus"]) == ("failed", 307)


async def test_a_large_backlog_is_sent_in_bounded_batches_in_order(
    serve: shared.Serve, es: AsyncElasticsearch, settings: Settings, index_names: IndexNames
) -> None:
    client = Client(await serve(settings), settings)
    count = 250
    async with receiving(Receiver()) as receiver:
        made = await client.watch(receiver.base, npis=[A])
        await record(es, index_names, [change("location_changed", A)] * count)
        deliverer = Deliverer(es, index_names, settings)
        try:
            for _ in range(10):
                if (await deliverer.run_once()).sent == 0:
                    break
        finally:
            await deliverer.close()
    payloads = [verified(made["secret"], got) for got in receiver.got]
    ids = [int(c["id"]) for p in payloads for c in p["data"]["changes"]]
    assert ids == sorted(ids) and len(ids) == len(set(ids)) == count
    assert all(len(p["data"]["changes"]) <= 100 for p in payloads)
    assert all(len(orjson.dumps(p)) <= 256 * 1024 for p in payloads)

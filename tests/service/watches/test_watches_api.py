"""/v2/watches: a subject's own watches, made, listed, read and deleted; what is refused and why
(bad input, another subject's watch, URLs a webhook may not reach). No request leaves the
machine: refused URLs are refused before any connection, and nothing here delivers."""

from __future__ import annotations

import base64
from typing import Any

import pytest

import tests.conftest as shared
from core.index_contract import IndexNames
from core.watches import MAX_WATCHES_PER_SUBJECT
from service.web.auth import mint_token
from service.web.settings import Settings

NPIS = ["1003000126", "1003000134"]
URL = "http://127.0.0.1:9/hooks"


def _auth(settings: Settings, subject: str, scopes: tuple[str, ...] = ("watches:write",)) -> Any:
    token = mint_token(settings, subject=subject, scopes=scopes)
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def settings(es_url: str, index_names: IndexNames) -> Settings:
    return shared.settings_for(es_url, index_names).model_copy(
        update={"webhook_allow": ["127.0.0.1"]}
    )


async def test_a_watch_is_made_read_listed_and_deleted_by_its_subject_alone(
    serve: shared.Serve, settings: Settings
) -> None:
    api = await serve(settings)
    alice, bob = _auth(settings, "alice"), _auth(settings, "bob")
    asked = {"npis": [NPIS[1], NPIS[0], NPIS[1]], "bidIds": ["H1234-001"], "url": URL}
    made = await api.post("/v2/watches", json=asked, headers=alice)
    created = await made.json()
    assert made.status == 201, created
    assert made.headers["Location"] == f"/v2/watches/{created['id']}"
    assert created["npis"] == sorted(set(asked["npis"]))
    assert created["bidIds"] == ["H1234_001_000"]
    assert created["url"] == URL
    assert created["status"]["state"] == "active"
    secret = created["secret"]
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) >= 24
    path = f"/v2/watches/{created['id']}"

    read = await (await api.get(path, headers=alice)).json()
    assert read == {k: v for k, v in created.items() if k != "secret"}
    listed = await (await api.get("/v2/watches", headers=alice)).json()
    assert listed == {"watches": [read]}
    # Another subject neither sees nor deletes it, and is not told it exists.
    assert await (await api.get("/v2/watches", headers=bob)).json() == {"watches": []}
    for method in ("GET", "DELETE"):
        answer = await api.request(method, path, headers=bob)
        assert (answer.status, (await answer.json())["code"]) == (404, "watch_not_found")
    theirs = await api.get(f"{path}/deliveries", headers=bob)
    assert theirs.status == 404
    deliveries = await (await api.get(f"{path}/deliveries", headers=alice)).json()
    assert deliveries == {"status": read["status"], "deliveries": []}

    gone = await api.delete(path, headers=alice)
    assert gone.status == 204
    assert (await api.get(path, headers=alice)).status == 404
    assert (await api.delete(path, headers=alice)).status == 404
    assert await (await api.get("/v2/watches", headers=alice)).json() == {"watches": []}


async def test_a_given_secret_is_kept_and_never_answered_again(
    serve: shared.Serve, settings: Settings
) -> None:
    api = await serve(settings)
    alice = _auth(settings, "alice")
    secret = "whsec_" + base64.b64encode(bytes(range(32))).decode()
    made = await api.post(
        "/v2/watches", json={"npis": NPIS, "url": URL, "secret": secret}, headers=alice
    )
    created = await made.json()
    assert created["secret"] == secret
    read = await (await api.get(f"/v2/watches/{created['id']}", headers=alice)).json()
    assert "secret" not in read


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"npis": ["12345"], "url": URL}, "npis.0"),
        ({"npis": [f"{n:010d}" for n in range(1001)], "url": URL}, "npis"),
        ({"npis": NPIS, "bidIds": ["nope"], "url": URL}, "bidIds.0"),
        ({"npis": NPIS, "kinds": ["moved_house"], "url": URL}, "kinds.0"),
        ({"npis": [], "url": URL}, "npis"),
        ({"npis": NPIS}, "url"),
        ({"npis": NPIS, "url": "ftp://127.0.0.1/x"}, "url"),
        ({"npis": NPIS, "url": "http:///no-host"}, "url"),
        ({"npis": NPIS, "url": "http://[::1]/"}, "url"),  # IPv6 by a name
        ({"npis": NPIS, "url": URL, "secret": "plain-text"}, "secret"),
        ({"npis": NPIS, "url": URL, "secret": "whsec_c2hvcnQ="}, "secret"),
        ({"npis": NPIS, "url": URL, "extra": 1}, "extra"),
    ],
)
async def test_bad_watches_are_refused_naming_the_field(
    serve: shared.Serve, settings: Settings, body: dict[str, Any], field: str
) -> None:
    api = await serve(settings)
    answer = await api.post("/v2/watches", json=body, headers=_auth(settings, "alice"))
    problem = await answer.json()
    assert answer.status == 400, problem
    assert field in [error["field"] for error in problem["errors"]], problem


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://127.1.2.3/",
        "http://localhost:8080/hook",
        "http://2130706433/",  # 127.0.0.1 as one number
        "http://10.1.2.3/",
        "https://172.16.0.1/",
        "http://192.168.1.10/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
    ],
)
async def test_urls_reaching_non_public_addresses_are_refused(
    serve: shared.Serve, es_url: str, index_names: IndexNames, url: str
) -> None:
    settings = shared.settings_for(es_url, index_names)  # nothing allowed
    api = await serve(settings)
    answer = await api.post(
        "/v2/watches", json={"npis": NPIS, "url": url}, headers=_auth(settings, "alice")
    )
    problem = await answer.json()
    assert (answer.status, problem["code"]) == (400, "webhook_target_refused"), problem
    assert problem["errors"][0]["field"] == "url"


async def test_the_operator_allows_hosts_and_networks(
    serve: shared.Serve, es_url: str, index_names: IndexNames
) -> None:
    allowed = shared.settings_for(es_url, index_names).model_copy(
        update={"webhook_allow": ["localhost", "10.0.0.0/8"]}
    )
    api = await serve(allowed)
    alice = _auth(allowed, "alice")
    for url in ("http://localhost:8080/hook", "http://10.9.8.7/hook"):
        answer = await api.post("/v2/watches", json={"npis": NPIS, "url": url}, headers=alice)
        assert answer.status == 201, await answer.json()
    refused = await api.post(
        "/v2/watches", json={"npis": NPIS, "url": "http://192.168.0.1/"}, headers=alice
    )
    assert refused.status == 400
    # Public addresses need no allowing (a watch is made; nothing is sent here).
    public = await api.post(
        "/v2/watches", json={"npis": NPIS, "url": "https://93.184.215.14/hook"}, headers=alice
    )
    assert public.status == 201, await public.json()


async def test_unknown_or_malformed_ids_and_missing_scope(
    serve: shared.Serve, settings: Settings
) -> None:
    api = await serve(settings)
    alice = _auth(settings, "alice")
    unknown = await api.get(f"/v2/watches/{'0' * 32}", headers=alice)
    assert (unknown.status, (await unknown.json())["code"]) == (404, "watch_not_found")
    malformed = await api.get("/v2/watches/not-an-id", headers=alice)
    assert malformed.status == 400
    reader = _auth(settings, "alice", scopes=("providers:read",))
    refused = await api.get("/v2/watches", headers=reader)
    assert (refused.status, (await refused.json())["code"]) == (403, "insufficient_scope")
    anonymous = await api.get("/v2/watches")
    assert anonymous.status == 401


async def test_a_subject_holds_a_bounded_number_of_watches(
    serve: shared.Serve, settings: Settings
) -> None:
    api = await serve(settings)
    alice = _auth(settings, "alice")
    for _ in range(MAX_WATCHES_PER_SUBJECT):
        made = await api.post("/v2/watches", json={"npis": NPIS, "url": URL}, headers=alice)
        assert made.status == 201
    over = await api.post("/v2/watches", json={"npis": NPIS, "url": URL}, headers=alice)
    assert (over.status, (await over.json())["code"]) == (409, "too_many_watches")
    other = await api.post(
        "/v2/watches", json={"npis": NPIS, "url": URL}, headers=_auth(settings, "bob")
    )
    assert other.status == 201

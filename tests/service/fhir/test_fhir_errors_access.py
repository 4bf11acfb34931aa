"""How the FHIR API refuses: unknown parameters (lenient by default, refused with ``Prefer:
handling=strict``), malformed values (refused either way), unknown types and ids, and who may
read (anonymous by default, a valid bearer token, never an invalid one; with anonymous reads off,
Bulk Data's kick-off, status, files and publication too). Every refusal is an OperationOutcome."""

from __future__ import annotations

import base64
import json

import pytest
from fhir.resources.R4B.operationoutcome import OperationOutcome
from yarl import URL

from service.web.auth import mint_token
from service.web.settings import Settings
from tests.conftest import ApiClient, Serve
from tests.service.bulk_calls import ASYNC, BULK_PUBLISH, KICK_OFF, kick_off, outcome
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.fhir_rows import Json, Pairs

STRICT = {"Prefer": "handling=strict"}


async def _outcome(
    api: ApiClient, path: str, params: Pairs, status: int, headers: dict[str, str] | None = None
) -> Json:
    outcome = await F.fetch(api, path, params, status=status, headers=headers)
    OperationOutcome.model_validate(outcome)
    [issue] = outcome["issue"]
    assert issue["severity"] == "error" and issue["details"]["coding"][0]["code"]
    return outcome


def _self(bundle: Json) -> URL:
    [link] = [link["url"] for link in bundle["link"] if link["relation"] == "self"]
    return URL(link)


UNSUPPORTED: list[tuple[str, Pairs]] = [
    ("Practitioner", [("birthdate", "1970")]),  # not a parameter here
    ("Practitioner", [("family:missing", "true")]),  # not a modifier served
    ("PractitionerRole", [("specialty:text", "heart")]),
    ("Practitioner", [("_include", "PractitionerRole:location")]),  # not an include of this type
    ("Location", [("_revinclude", "PractitionerRole:practitioner")]),
    ("Location", [("_text", "heart")]),  # _text is not a Location parameter
]


@pytest.mark.parametrize(("kind", "extra"), UNSUPPORTED)
async def test_unsupported_parameters_are_left_out_unless_strict(
    api: ApiClient, kind: str, extra: Pairs
) -> None:
    plain = await F.fetch(api, f"/fhir/{kind}", [("_count", "3")])
    lenient = await F.fetch(api, f"/fhir/{kind}", [*extra, ("_count", "3")])
    *found, said = lenient["entry"]
    assert found == plain["entry"]
    assert dict(_self(lenient).query) == {"_count": "3"}
    # The OperationOutcome entry names what was left out.
    assert said["search"]["mode"] == "outcome"
    [issue] = OperationOutcome.model_validate(said["resource"]).issue
    assert issue.severity == "warning" and extra[0][0] in (issue.diagnostics or "")
    for prefer in ("handling=strict", "return=minimal; handling=strict", "HANDLING=STRICT"):
        outcome = await _outcome(
            api, f"/fhir/{kind}", [*extra, ("_count", "3")], 400, {"Prefer": prefer}
        )
        assert extra[0][0] in outcome["issue"][0]["diagnostics"]
    explicit = await F.fetch(
        api, f"/fhir/{kind}", [*extra, ("_count", "3")], headers={"Prefer": "handling=lenient"}
    )
    assert explicit["entry"] == lenient["entry"]


async def test_strict_post_search_refuses_too(api: ApiClient) -> None:
    response = await api.post(
        "/fhir/Practitioner/_search", data={"birthdate": "1970"}, headers=STRICT
    )
    assert response.status == 400 and response.content_type == F.FHIR_CONTENT_TYPE
    OperationOutcome.model_validate(await response.json(content_type=None))


MALFORMED: list[tuple[str, Pairs]] = [
    ("Practitioner", [("_lastUpdated", "yesterday")]),
    ("Practitioner", [("_lastUpdated", "ge2024-13-01")]),
    ("Practitioner", [("_lastUpdated", "2024-02-30")]),
    ("Practitioner", [("_count", "many")]),
    ("Practitioner", [("_count", "-1")]),
    ("Practitioner", [("family", "")]),
    ("Practitioner", [("_format", "xml")]),
    ("Practitioner", [("_cursor", "not-a-page")]),
    ("Practitioner", [("_text", "heart"), ("family", "smith")]),
    ("Practitioner", [("_text", "x" * 300)]),
    ("Location", [("near", "north|west")]),
    ("Location", [("near", "40.7|-74.0|0|mi")]),
    ("Location", [("near", "91|-74.0")]),
    ("Location", [("near", "40.7|-74.0|5|furlong")]),
    ("PractitionerRole", [("near", "40.7|-74.0|500|mi")]),
]


@pytest.mark.parametrize(("kind", "params"), MALFORMED)
async def test_malformed_values_are_refused_even_when_lenient(
    api: ApiClient, kind: str, params: Pairs
) -> None:
    outcome = await _outcome(api, f"/fhir/{kind}", params, 400)
    assert outcome["issue"][0]["code"] == "invalid"
    name = params[-1][0] if params[0][0] != "_text" or len(params) == 1 else "_text"
    assert name in outcome["issue"][0]["diagnostics"]
    await _outcome(api, f"/fhir/{kind}", params, 400, STRICT)


async def test_count_defaults_to_20_and_is_capped_at_100(api: ApiClient) -> None:
    for kind in ("Practitioner", "Location"):
        plain = await F.fetch(api, f"/fhir/{kind}")
        assert len(plain["entry"]) == 20
        many = await F.fetch(api, f"/fhir/{kind}", [("_count", "500")])
        assert len(many["entry"]) == 100
        none = await F.fetch(api, f"/fhir/{kind}", [("_count", "0")])
        assert "entry" not in none
        assert not [link for link in none["link"] if link["relation"] == "next"]


def _tampered(cursor: str, after: object) -> str:
    decoded = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    decoded["after"] = after
    return base64.urlsafe_b64encode(json.dumps(decoded).encode()).decode().rstrip("=")


@pytest.mark.parametrize("kind", ["Practitioner", "Location"])
async def test_a_tampered_page_cursor_is_refused(api: ApiClient, kind: str) -> None:
    first = await F.fetch(api, f"/fhir/{kind}", [("_count", "1")])
    [nxt] = [URL(link["url"]) for link in first["link"] if link["relation"] == "next"]
    cursor = _tampered(nxt.query["_cursor"], [{"npi": "1"}])
    await _outcome(api, f"/fhir/{kind}", [("_count", "1"), ("_cursor", cursor)], 400)


@pytest.mark.parametrize(
    "path",
    [
        "/fhir/Patient",
        "/fhir/Patient/1234567893",
        "/fhir/Practitioner/1234567893",
        "/fhir/Organization/not-an-npi",
        "/fhir/Location/not-a-location",
        "/fhir/SearchParameter/other",
    ],
)
async def test_unknown_types_and_ids_are_not_found(api: ApiClient, path: str) -> None:
    outcome = await _outcome(api, path, [], 404)
    assert outcome["issue"][0]["code"] == "not-found"


async def test_a_valid_token_reads_as_anonymous_does(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    npi = F.individuals()[0]["NPI"]
    anonymous = await F.fetch(api, f"/fhir/Practitioner/{npi}")
    assert await F.fetch(api, f"/fhir/Practitioner/{npi}", headers=auth_header) == anonymous
    found = await F.fetch(api, "/fhir/Practitioner", [("_id", npi)], headers=auth_header)
    assert [e["resource"] for e in found["entry"]] == [anonymous]
    await F.fetch(api, "/fhir/metadata", headers=auth_header)


@pytest.mark.parametrize(
    "authorization",
    ["Bearer not-a-token", "Basic dXNlcjpwYXNz", "Bearer ", "bearer x.y.z"],
)
async def test_an_invalid_token_is_refused(api: ApiClient, authorization: str) -> None:
    for path in ("/fhir/metadata", "/fhir/Practitioner", "/fhir/Location/x"):
        response = await api.get(path, headers={"Authorization": authorization})
        assert response.status == 401, path
        assert response.content_type == F.FHIR_CONTENT_TYPE
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        outcome = await response.json(content_type=None)
        OperationOutcome.model_validate(outcome)
        assert outcome["issue"][0]["code"] == "login"


async def test_an_expired_or_foreign_token_is_refused(
    api: ApiClient, sample_settings: Settings
) -> None:
    expired = mint_token(sample_settings, ttl_s=-60)
    other = sample_settings.model_copy(update={"jwt_secret": "another-secret-" + "x" * 32})
    for token in (expired, mint_token(other)):
        headers = {"Authorization": f"Bearer {token}"}
        await _outcome(api, "/fhir/Practitioner", [], 401, headers)


async def test_without_anonymous_reads_a_token_is_needed(
    serve: Serve, sample_settings: Settings
) -> None:
    settings = sample_settings.model_copy(update={"fhir_anonymous": False})
    closed = await serve(settings)
    npi = F.organizations()[0]["NPI"]
    for path in ("/fhir/metadata", "/fhir/Organization", f"/fhir/Organization/{npi}"):
        outcome = await _outcome(closed, path, [], 401)
        assert outcome["issue"][0]["code"] == "login"
    headers = {"Authorization": f"Bearer {mint_token(settings)}"}
    organization = await F.fetch(closed, f"/fhir/Organization/{npi}", headers=headers)
    assert organization["id"] == npi
    response = await closed.post("/fhir/Organization/_search", data={"_id": npi}, headers=headers)
    assert response.status == 200
    assert (await closed.post("/fhir/Organization/_search", data={"_id": npi})).status == 401


async def test_without_anonymous_reads_bulk_data_needs_a_token_with_its_scope(
    serve: Serve, sample_settings: Settings
) -> None:
    settings = sample_settings.model_copy(update={"fhir_anonymous": False})
    closed = await serve(settings)
    token = {"Authorization": f"Bearer {mint_token(settings)}"}
    job = await kick_off(closed, token)
    coverage_only = {"Authorization": f"Bearer {mint_token(settings, scopes=['coverage:read'])}"}
    paths = [KICK_OFF, job.status, job.file, BULK_PUBLISH]
    for path in paths:
        refused = await closed.get(path, headers=ASYNC)
        assert refused.status == 401, path
        assert refused.headers["WWW-Authenticate"].startswith("Bearer"), path
        assert (await outcome(refused))["issue"][0]["code"] == "login", path
        wrong_scope = await closed.get(path, headers=ASYNC | coverage_only)
        assert wrong_scope.status == 403, path
        assert "insufficient_scope" in wrong_scope.headers["WWW-Authenticate"], path
        await outcome(wrong_scope)
    assert (await closed.delete(job.status)).status == 401  # nor cancelled without one
    for path in paths:
        answered = await closed.get(path, headers=ASYNC | token)
        assert answered.status in (200, 202), (path, await answered.text())
    # The manifests say a token is needed for their files (Bulk Data: requiresAccessToken).
    for path in (job.status, BULK_PUBLISH):
        manifest = await (await closed.get(path, headers=token)).json()
        assert manifest["requiresAccessToken"] is True, path

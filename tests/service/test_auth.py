"""Bearer JWT: the 401/403 paths on a real route of the running service."""

from __future__ import annotations

import base64
import time
from typing import Any

import orjson
import pytest
import time_machine
from jose import jwt

from service.web.auth import InvalidToken, Verifier, mint_token
from service.web.settings import Settings
from tests.conftest import ApiClient

PATH = "/v2/providers/1003000100"
# Attack cases: the parametrized tests below plus test_auth_keys.py (asymmetric keys, JWKS).


def _claims(settings: Settings, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {
        "sub": "tester",
        "scope": "providers:read",
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + 600,
    }
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


def _sign(settings: Settings, claims: dict[str, Any]) -> str:
    assert settings.jwt_secret
    return str(jwt.encode(claims, settings.jwt_secret, algorithm="HS256"))


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(data)).rstrip(b"=").decode()


async def _status(api: ApiClient, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    response = await api.get(PATH, headers=headers)
    return response.status, dict(response.headers)


async def test_valid_token_is_accepted(api: ApiClient, sample_settings: Settings) -> None:
    token = mint_token(sample_settings, scopes=["providers:read"])
    status, _ = await _status(api, {"Authorization": f"Bearer {token}"})
    assert status == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer not.a.jwt"},
    ],
)
async def test_missing_or_malformed_credentials_are_401(
    api: ApiClient, headers: dict[str, str]
) -> None:
    status, response_headers = await _status(api, headers)
    assert status == 401
    assert response_headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "changes",
    [
        {"exp": int(time.time()) - 3600},
        {"aud": "someone-else"},
        {"iss": "evil"},
        {"exp": None},
        {"aud": None},
        {"iss": None},
        {"iat": None},
        {"iat": int(time.time()) + 3600},
        {"nbf": int(time.time()) + 3600},
    ],
)
async def test_bad_claims_are_401(
    api: ApiClient, sample_settings: Settings, changes: dict[str, Any]
) -> None:
    token = _sign(sample_settings, _claims(sample_settings, **changes))
    status, _ = await _status(api, {"Authorization": f"Bearer {token}"})
    assert status == 401


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
async def test_alg_none_is_401(api: ApiClient, sample_settings: Settings, alg: str) -> None:
    token = f"{_b64({'alg': alg, 'typ': 'JWT'})}.{_b64(_claims(sample_settings))}."
    status, _ = await _status(api, {"Authorization": f"Bearer {token}"})
    assert status == 401


async def test_tampered_payload_and_signature_are_401(
    api: ApiClient, sample_settings: Settings
) -> None:
    header, _, signature = _sign(sample_settings, _claims(sample_settings)).split(".")
    forged = _b64(_claims(sample_settings, scope="providers:read coverage:read", sub="admin"))
    for token in (
        f"{header}.{forged}.{signature}",
        f"{header}.{_b64(_claims(sample_settings))}.{signature[:-2]}AA",
    ):
        status, _ = await _status(api, {"Authorization": f"Bearer {token}"})
        assert status == 401


async def test_token_signed_with_another_secret_is_401(
    api: ApiClient, sample_settings: Settings
) -> None:
    token = jwt.encode(_claims(sample_settings), "another-secret-entirely", algorithm="HS256")
    status, _ = await _status(api, {"Authorization": f"Bearer {token}"})
    assert status == 401


async def test_missing_scope_is_403(api: ApiClient, sample_settings: Settings) -> None:
    token = mint_token(sample_settings, scopes=["coverage:read"])
    response = await api.get(PATH, headers={"Authorization": f"Bearer {token}"})
    assert response.status == 403
    body = await response.json()
    assert body["code"] == "insufficient_scope"
    assert "providers:read" in body["detail"]


def test_development_secret_is_refused_outside_development() -> None:
    with pytest.raises(ValueError, match="development secret"):
        Settings(environment="production")
    with pytest.raises(ValueError, match="none"):
        Settings(environment="development", jwt_algorithms=["HS256", "none"])


@pytest.mark.parametrize("scheme", ["Basic", "Token", "JWT", "Bearer:", "Digest"])
async def test_other_schemes_are_401_even_with_a_valid_token(
    api: ApiClient, sample_settings: Settings, scheme: str
) -> None:
    token = mint_token(sample_settings)
    status, headers = await _status(api, {"Authorization": f"{scheme} {token}"})
    assert status == 401
    assert headers["WWW-Authenticate"].startswith("Bearer")


async def test_scheme_name_is_case_insensitive(api: ApiClient, sample_settings: Settings) -> None:
    status, _ = await _status(api, {"Authorization": f"bearer {mint_token(sample_settings)}"})
    assert status == 200


async def test_token_only_in_the_url_is_401(api: ApiClient, sample_settings: Settings) -> None:
    token = mint_token(sample_settings)
    for query in ("access_token", "token", "jwt", "authorization"):
        response = await api.get(f"{PATH}?{query}={token}")
        assert response.status == 401
        assert (await response.json())["code"] == "unauthorized"


async def test_unauthorized_is_a_problem_with_a_bearer_challenge(api: ApiClient) -> None:
    for path, method in (
        (PATH, "GET"),
        ("/v2/providers/search", "POST"),
        ("/v2/providers/coverage", "POST"),
        ("/v2/plans/search", "POST"),
        ("/v2/plans/H0104_016_000", "GET"),
    ):
        response = await api.request(method, path)
        assert response.status == 401
        assert response.content_type == "application/problem+json"
        assert response.headers["WWW-Authenticate"].startswith('Bearer realm="provider-directory"')
        assert (await response.json())["requestId"] == response.headers["X-Request-ID"]


@pytest.mark.parametrize(
    ("path", "method", "scope"),
    [
        ("/v2/providers/search", "POST", "coverage:read"),
        ("/v2/providers/coverage", "POST", "providers:read"),
        (f"{PATH}/locations", "GET", "coverage:read"),
        ("/v2/plans/search", "POST", "providers:read"),
        ("/v2/plans/H0104_016_000", "GET", "providers:read"),
    ],
)
async def test_each_endpoint_needs_its_scope(
    api: ApiClient, sample_settings: Settings, path: str, method: str, scope: str
) -> None:
    token = mint_token(sample_settings, scopes=[scope])
    response = await api.request(method, path, headers={"Authorization": f"Bearer {token}"})
    assert response.status == 403
    assert "insufficient_scope" in response.headers["WWW-Authenticate"]


async def test_expiry_within_the_leeway_is_accepted(
    api: ApiClient, sample_settings: Settings
) -> None:
    now = int(time.time())
    token = _sign(sample_settings, _claims(sample_settings, iat=now - 60, exp=now - 5))
    status, _ = await _status(api, {"Authorization": f"Bearer {token}"})
    assert status == 200


def test_a_cached_verification_never_outlives_the_token() -> None:
    settings = Settings(environment="test", jwt_secret="s" * 40, jwt_leeway_s=0)
    verifier = Verifier(settings)
    with time_machine.travel(time.time(), tick=False) as clock:
        token = mint_token(settings, ttl_s=10)
        assert verifier.verify(token).subject == "developer"
        clock.shift(9)
        assert verifier.verify(token).subject == "developer"  # answered from the cache
        clock.shift(2)  # past exp: the cache must not answer, the signature check refuses
        with pytest.raises(InvalidToken):
            verifier.verify(token)

"""Asymmetric tokens: RS256/ES256 with a public key file or a JWKS (key chosen by ``kid``), and the
attacks on them: HS256 signed with the public key, unknown or absent kid, keys offered in the
token's own headers (jku, x5u, jwk), an algorithm that does not match the key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jose import jwk, jwt

from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import ApiClient, ClientFactory

PATH = "/v2/providers/1003000100"


class KeyPair:
    def __init__(self, private: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey, alg: str) -> None:
        self.alg = alg
        self.private_pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        self.public_pem = (
            private.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )

    def public_jwk(self, kid: str) -> dict[str, Any]:
        return {**jwk.construct(self.public_pem, self.alg).to_dict(), "kid": kid, "use": "sig"}

    def sign(self, claims: dict[str, Any], **headers: Any) -> str:
        return str(jwt.encode(claims, self.private_pem, algorithm=self.alg, headers=headers))


@pytest.fixture(scope="module")
def rsa_key() -> KeyPair:
    return KeyPair(rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256")


@pytest.fixture(scope="module")
def attacker_rsa_key() -> KeyPair:
    return KeyPair(rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256")


@pytest.fixture(scope="module")
def ec_key() -> KeyPair:
    return KeyPair(ec.generate_private_key(ec.SECP256R1()), "ES256")


def claims(settings: Settings) -> dict[str, Any]:
    now = int(time.time())
    return {
        "sub": "partner-app",
        "scope": "providers:read",
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + 300,
    }


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256_with(secret: str, payload: dict[str, Any], **headers: Any) -> str:
    """Signed by hand: python-jose (rightly) refuses a PEM public key as an HMAC secret."""
    head = _b64(orjson.dumps({"alg": "HS256", "typ": "JWT", **headers}))
    body = _b64(orjson.dumps(payload))
    signature = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(signature)}"


async def status_of(client: ApiClient, token: str) -> int:
    response = await client.get(PATH, headers={"Authorization": f"Bearer {token}"})
    return response.status


async def test_rs256_public_key_file(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    rsa_key: KeyPair,
    attacker_rsa_key: KeyPair,
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "public.pem"
    key_file.write_text(rsa_key.public_pem)
    settings = sample_settings.model_copy(
        update={"jwt_algorithms": ["RS256"], "jwt_secret": None, "jwt_public_key_file": key_file}
    )
    client = await aiohttp_client(create_app(settings))
    assert await status_of(client, rsa_key.sign(claims(settings))) == 200
    assert await status_of(client, attacker_rsa_key.sign(claims(settings))) == 401
    # The classic confusion: HS256 with the (public) RSA key as the HMAC secret.
    assert await status_of(client, hs256_with(rsa_key.public_pem, claims(settings))) == 401


async def test_hs256_with_the_public_key_fails_even_when_hs256_is_allowed(
    aiohttp_client: ClientFactory, sample_settings: Settings, rsa_key: KeyPair, tmp_path: Path
) -> None:
    key_file = tmp_path / "public.pem"
    key_file.write_text(rsa_key.public_pem)
    settings = sample_settings.model_copy(
        update={"jwt_algorithms": ["HS256", "RS256"], "jwt_public_key_file": key_file}
    )
    client = await aiohttp_client(create_app(settings))
    assert await status_of(client, rsa_key.sign(claims(settings))) == 200
    assert await status_of(client, hs256_with(rsa_key.public_pem, claims(settings))) == 401


@pytest.fixture
async def jwks_client(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    rsa_key: KeyPair,
    ec_key: KeyPair,
    tmp_path: Path,
) -> tuple[ApiClient, Settings]:
    jwks = {"keys": [rsa_key.public_jwk("rsa-1"), ec_key.public_jwk("ec-1")]}
    jwks_file = tmp_path / "jwks.json"
    jwks_file.write_text(json.dumps(jwks))
    settings = sample_settings.model_copy(
        update={
            "jwt_algorithms": ["RS256", "ES256"],
            "jwt_secret": None,
            "jwt_jwks_file": jwks_file,
        }
    )
    return await aiohttp_client(create_app(settings)), settings


async def test_jwks_selects_the_key_by_kid(
    jwks_client: tuple[ApiClient, Settings], rsa_key: KeyPair, ec_key: KeyPair
) -> None:
    client, settings = jwks_client
    assert await status_of(client, rsa_key.sign(claims(settings), kid="rsa-1")) == 200
    assert await status_of(client, ec_key.sign(claims(settings), kid="ec-1")) == 200
    # Right key material, wrong kid: the kid picks the other key, which does not verify.
    assert await status_of(client, rsa_key.sign(claims(settings), kid="ec-1")) == 401
    assert await status_of(client, ec_key.sign(claims(settings), kid="rsa-1")) == 401


async def test_jwks_attacks_are_401(
    jwks_client: tuple[ApiClient, Settings],
    rsa_key: KeyPair,
    attacker_rsa_key: KeyPair,
) -> None:
    client, settings = jwks_client
    payload = claims(settings)
    attacker_jwk = attacker_rsa_key.public_jwk("rsa-1")
    tokens = {
        "unknown kid": rsa_key.sign(payload, kid="rsa-2"),
        "no kid": rsa_key.sign(payload),
        "attacker key, known kid": attacker_rsa_key.sign(payload, kid="rsa-1"),
        "embedded jwk": attacker_rsa_key.sign(payload, kid="rsa-1", jwk=attacker_jwk),
        "embedded jwk, no kid": attacker_rsa_key.sign(payload, jwk=attacker_jwk),
        "jku": attacker_rsa_key.sign(payload, kid="evil", jku="http://127.0.0.1:9/jwks.json"),
        "x5u": attacker_rsa_key.sign(payload, kid="evil", x5u="http://127.0.0.1:9/cert.pem"),
        "hs256 with public key as secret": hs256_with(rsa_key.public_pem, payload, kid="rsa-1"),
        "hs256 not allowed": hs256_with("guess", payload, kid="rsa-1"),
    }
    for case, token in tokens.items():
        assert await status_of(client, token) == 401, case


def test_none_can_never_be_configured() -> None:
    for spelling in ("none", "None", "NONE"):
        with pytest.raises(ValueError, match="none"):
            Settings(jwt_algorithms=["RS256", spelling])

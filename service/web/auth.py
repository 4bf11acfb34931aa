"""Bearer JWT verification and minting (DESIGN 5.6).

Only algorithms on the allow-list are accepted, and each algorithm family is checked with its own
kind of key: HS* only with the shared secret, RS*/ES* only with public keys. So ``alg: none`` and
"HS256 signed with the RSA public key" can never verify. Keys come from configuration only: the
``jku``, ``x5u`` and ``jwk`` headers are never read.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from jose import JWTError, jwt

from service.web.settings import ALL_SCOPES, Settings

REQUIRED_CLAIMS = ("exp", "iat", "iss", "aud")
VERIFIED_CACHE_SIZE = 10_000
VERIFIED_CACHE_TTL_S = 60.0
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC"}


class InvalidToken(Exception):
    """The token is not acceptable; the message is safe to show (never contains the token)."""


@dataclass(frozen=True)
class Claims:
    subject: str
    scopes: frozenset[str]


def _scopes(payload: dict[str, Any]) -> frozenset[str]:
    scope = payload.get("scope", payload.get("scp", ""))
    if isinstance(scope, str):
        return frozenset(scope.split())
    if isinstance(scope, list):
        return frozenset(str(s) for s in scope)
    return frozenset()


class Verifier:
    def __init__(self, settings: Settings) -> None:
        self._algorithms = frozenset(settings.jwt_algorithms)
        self._verified: dict[str, tuple[Claims, float]] = {}  # token -> (claims, good until)
        self._secret = settings.jwt_secret
        self._public_key = (
            settings.jwt_public_key_file.read_text() if settings.jwt_public_key_file else None
        )
        self._jwks: dict[str, dict[str, Any]] = {}
        if settings.jwt_jwks_file:
            for key in json.loads(settings.jwt_jwks_file.read_text()).get("keys", []):
                if "kid" in key:
                    self._jwks[str(key["kid"])] = key
        self._issuer = settings.jwt_issuer
        self._audience = settings.jwt_audience
        self._leeway = settings.jwt_leeway_s

    def _key_for(self, header: dict[str, Any]) -> str | dict[str, Any]:
        algorithm = str(header.get("alg", ""))
        if algorithm not in self._algorithms:
            raise InvalidToken("token algorithm not allowed")
        if algorithm.startswith("HS"):
            if not self._secret:
                raise InvalidToken("token algorithm not allowed")
            return self._secret
        if self._jwks:
            kid = header.get("kid")
            if not isinstance(kid, str) or kid not in self._jwks:
                raise InvalidToken("unknown signing key")
            key = self._jwks[kid]
            # A key serves one algorithm family (and its own "alg" when it names one).
            family_ok = key.get("kty") == _KEY_TYPES.get(algorithm[:2])
            if not family_ok or key.get("alg", algorithm) != algorithm:
                raise InvalidToken("token algorithm does not match its key")
            return key
        if self._public_key:
            return self._public_key
        raise InvalidToken("token algorithm not allowed")

    def verify(self, token: str) -> Claims:
        """Claims of a valid token; a token verified recently is answered from a small cache
        (never past its ``exp``, at most VERIFIED_CACHE_TTL_S) to keep signature checks and
        JSON decoding off the hot path of repeated calls with the same token."""
        now = time.time()
        cached = self._verified.get(token)
        if cached is not None and now < cached[1]:
            return cached[0]
        claims, expires = self._verify_signed(token)
        if len(self._verified) >= VERIFIED_CACHE_SIZE:
            self._verified.clear()
        self._verified[token] = (claims, min(expires + self._leeway, now + VERIFIED_CACHE_TTL_S))
        return claims

    def _verify_signed(self, token: str) -> tuple[Claims, float]:
        try:
            header = jwt.get_unverified_header(token)
            key = self._key_for(header)
            payload = jwt.decode(
                token,
                key,
                algorithms=[str(header["alg"])],
                audience=self._audience,
                issuer=self._issuer,
                options={f"require_{claim}": True for claim in REQUIRED_CLAIMS}
                | {"leeway": self._leeway},
            )
        except (JWTError, KeyError, ValueError, TypeError) as error:
            raise InvalidToken("token is invalid or expired") from error
        issued_at = payload.get("iat")
        if not isinstance(issued_at, int | float) or issued_at > time.time() + self._leeway:
            raise InvalidToken("token issued in the future")
        claims = Claims(subject=str(payload.get("sub", "")), scopes=_scopes(payload))
        return claims, float(payload["exp"])


def mint_token(
    settings: Settings,
    *,
    subject: str = "developer",
    scopes: Iterable[str] = ALL_SCOPES,
    ttl_s: int | None = None,
) -> str:
    """An HS256 token signed with the configured secret (development and operators' tools)."""
    if not settings.jwt_secret:
        raise ValueError("minting needs PD_JWT_SECRET")
    now = int(time.time())
    claims = {
        "sub": subject,
        "scope": " ".join(scopes),
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "iat": now,
        "nbf": now,
        "exp": now + (ttl_s or settings.token_ttl_s),
        "jti": uuid.uuid4().hex,
    }
    return str(jwt.encode(claims, settings.jwt_secret, algorithm="HS256"))

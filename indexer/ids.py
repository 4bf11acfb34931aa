"""``core.npi.provider_id`` and ``location_id`` without ``uuid.UUID`` objects.

Same values (uuid5 in ``core.npi.ID_NAMESPACE``; a test holds them equal), at a third of the cost:
two ids per NPPES row made ``uuid.uuid5`` a tenth of the load's CPU time.
"""

from __future__ import annotations

from hashlib import sha1

from core.npi import ID_NAMESPACE

_NAMESPACE = ID_NAMESPACE.bytes


def _uuid5(name: str) -> str:
    digest = bytearray(sha1(_NAMESPACE + name.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def provider_id(npi: str) -> str:
    return _uuid5(f"provider:{npi}")


def location_id(npi: str, address_key: str) -> str:
    return _uuid5(f"location:{npi}:{address_key}")

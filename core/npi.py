"""NPI validation and the stable identifiers derived from NPIs."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from functools import lru_cache
from hashlib import sha1
from typing import Literal

NPI_DIGITS = "[0-9]{10}"
_NPI_PATTERN = re.compile(NPI_DIGITS)
_UUID_PATTERN = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Namespace for uuid5 ids: fixed forever so ids stay stable across reindexes.
ID_NAMESPACE = uuid.UUID("6f1c1f0e-3a52-5b8e-9a34-4f1d2c8b7e10")
_NAMESPACE_BYTES = ID_NAMESPACE.bytes


_DOUBLED = str.maketrans("0123456789", "0246813579")  # 2d, minus 9 when over 9


def luhn_check_digit(payload: str) -> int:
    """Check digit of the Luhn scheme for ``payload`` (digits without the check digit)."""
    backwards = payload[::-1]
    doubled = backwards[0::2].translate(_DOUBLED)
    total = sum(map(int, doubled)) + sum(map(int, backwards[1::2]))
    return (10 - total % 10) % 10


def is_npi_shaped(value: str) -> bool:
    """Ten digits: what a request may send as an NPI."""
    return _NPI_PATTERN.fullmatch(value) is not None


def is_valid_npi(value: str) -> bool:
    """Ten digits whose last is the Luhn check digit over the prefix "80840" + first nine: an
    NPI that can have been issued."""
    return is_npi_shaped(value) and luhn_check_digit("80840" + value[:9]) == int(value[9])


# What can be wrong with the NPI a payer's directory publishes: the load report's warnings and
# the ``dataQuality`` notes (/v2) and ``meta.tag`` codes (/fhir) of the providers that carry one.
NpiIssue = Literal["npi_check_digit_invalid", "npi_malformed", "npi_missing"]
# A provider with one of these is keyed by an id of its own (``listed_id``), not by its NPI.
KEYED_BY_ID: tuple[NpiIssue, ...] = ("npi_malformed", "npi_missing")


def npi_issue(value: str | None) -> NpiIssue | None:
    """What is wrong with ``value`` as an NPI (None: nothing, the case asked first)."""
    if value and is_valid_npi(value):
        return None
    if not value:
        return "npi_missing"
    return "npi_check_digit_invalid" if is_npi_shaped(value) else "npi_malformed"


def with_check_digit(first_nine: str) -> str:
    """A valid NPI from its first nine digits."""
    return first_nine + str(luhn_check_digit("80840" + first_nine))


def _uuid5(name: str) -> str:
    """``str(uuid.uuid5(ID_NAMESPACE, name))`` without UUID objects: a third of the cost, which
    matters at two ids per row of a 9M-row load (a test holds the two equal)."""
    digest = bytearray(sha1(_NAMESPACE_BYTES + name.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


# The search document asks again for the id of the provider just built (whether its NPI gives
# it: core.search_fields.provider_source); a hit costs a tenth of the hash.
@lru_cache(maxsize=256)
def provider_id(npi: str) -> str:
    return _uuid5(f"provider:{npi}")


def listed_id(source: str, reference: str) -> str:
    """The id of a provider a payer's directory lists without a usable NPI (none, or not ten
    digits): stable across reloads of that directory, made from its source name and the
    resource's ``Type/id``."""
    return _uuid5(f"provider:{source}:{reference}")


def provider_key(npis: Sequence[str], provider_uuid: str) -> str:
    """What a provider's documents are keyed by (lookup and search ids, coverage rows, FHIR
    ids): its NPI when it is ten digits, check digit right or wrong, else its id."""
    return npis[0] if npis and is_npi_shaped(npis[0]) else provider_uuid


def is_provider_key(value: str) -> bool:
    """Whether ``value`` has the shape of a ``provider_key``: ten digits, or an id."""
    return is_npi_shaped(value) or _UUID_PATTERN.fullmatch(value) is not None


def location_id(npi: str, address_key: str) -> str:
    return _uuid5(f"location:{npi}:{address_key}")

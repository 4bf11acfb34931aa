"""The search document's fields made from its provider and locations alone: one rule for the
load, which writes them, and for every update that rewrites a search document from its stored
source. Whatever rewrites a search document makes them again from the stored provider and
locations (``with_derived_fields``) and compares documents without them
(``without_derived_fields``): they are stored, but never read back.

The stored provider leaves out the id its NPI gives (``provider_source``): 36 hexadecimal
digits per provider that compress to nothing less, ~40 bytes of the search index per provider;
every reader of a search document's provider takes it through ``provider_of``. Its locations
leave out the confidence the rule gives a location NPPES alone lists (``locations_source``):
~36 bytes per provider; every reader of them takes them through ``locations_of``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

import orjson
from xxhash import xxh3_64_intdigest

from core.changes import CHANGED_AT, unstamped
from core.confidence import is_nppes_alone, nppes_alone
from core.documents import ConfidentPoints, DerivedFields, GeoPoint, Location, Provider
from core.fhir_terms import (
    family_terms,
    given_terms,
    indexed,
    location_terms,
    role_codes,
    unique,
)
from core.index_contract import SEARCH_FIELDS as F
from core.npi import provider_id
from core.provider_names import provider_name
from core.text import indexed_form

DERIVED_FIELDS: Final = tuple(DerivedFields.__annotations__)


# ConfidentPoints' field for each score a search may ask at least (1: every point, ``points``).
CONFIDENT_POINTS: Final = {2: "atLeast2", 3: "atLeast3", 4: "atLeast4", 5: "atLeast5"}
# The fields a location of each score is a point of.
_AT_LEAST: Final = {
    score: tuple(CONFIDENT_POINTS[least] for least in range(2, score + 1)) for score in range(1, 6)
}


def derived_fields(provider: Provider, locations: Sequence[Location]) -> DerivedFields:
    points: list[GeoPoint] = []
    scores: list[int] = []
    for location in locations:
        score = location["confidence"]["score"]
        address = location["address"]
        lat, lng = address["lat"], address["lng"]
        if lat is not None and lng is not None:
            points.append({"lat": lat, "lon": lng})
            scores.append(score)
        else:
            scores.append(-score)  # not a point of any field
    # The same objects as ``points``': the stored source compresses their repeats.
    confident: dict[str, list[GeoPoint]]
    first = scores[0] if scores else 0
    if first > 0 and scores.count(first) == len(scores):  # most: every point in one score
        confident = dict.fromkeys(_AT_LEAST[first], points)
        best = first
    else:
        confident = {}
        placed = (score for score in scores if score > 0)
        for score, point in zip(placed, points, strict=True):
            for field in _AT_LEAST[score]:
                confident.setdefault(field, []).append(point)
        best = max(map(abs, scores), default=1)
    codes: list[str] = []
    primary: list[str] = []
    names: list[str | None] = []
    texts: list[str | None] = []
    for s in provider["specialties"]:
        codes.append(s["code"])
        if s["primary"]:
            primary.append(s["code"])
        names.append(s["displayName"])
        texts += (s["displayName"], s["classification"], s["specialization"])
    name = provider_name(provider, titles=False)
    places = location_terms(locations)
    return {
        "entityType": provider["entityType"],
        "gender": provider["gender"],
        "taxonomyCodes": codes,
        # NPPES marks one taxonomy primary; a lone unmarked taxonomy is the primary one too.
        "primaryTaxonomyCodes": primary or (codes if len(codes) == 1 else []),
        "specialtyNames": unique(names),
        "languages": provider["languages"],
        "pcpEligible": provider["pcpEligible"],
        "sources": provider["sources"],
        "fullName": indexed_form(name),
        # Whole names as people type them: "first last", "first middle last", legal and
        # doing-business-as organisation names.
        "exactNames": indexed(
            [
                name,
                f"{provider['firstName'] or ''} {provider['lastName'] or ''}",
                provider["doingBusinessAs"],
            ]
        ),
        "organizations": indexed(
            [
                provider["organizationName"],
                provider["doingBusinessAs"],
                *(g["name"] for g in provider["groupAffiliations"]),
                *(h["name"] for h in provider["hospitalAffiliations"]),
            ]
        ),
        "specialtyText": indexed(texts),
        "credentials": indexed(provider["credentials"]),
        "points": points,
        "confidentPoints": cast(ConfidentPoints, confident),
        "bestConfidence": best,
        "roleCodes": role_codes(provider),
        "familyNames": family_terms(provider),
        "givenNames": given_terms(provider),
        "locationIds": [location["id"] for location in locations],
        "cities": places["cities"],
        "states": places["states"],
        "postalCodes": places["postalCodes"],
        "addressParts": places["addressParts"],
    }


def with_derived_fields(stored: dict[str, Any]) -> dict[str, Any]:
    """A search document read back from its stored source, whole again."""
    provider, locations = stored["provider"], locations_of(stored)
    return {
        **stored,
        **derived_fields(provider, locations),
        "locations": locations_source(provider, locations),
    }


def listing_digest(search: Mapping[str, Any]) -> int:
    """64 bits of what a search document (or its source) serves a provider as: all of it but
    its ``changedAt`` stamp. Two versions' documents with another digest may serve it otherwise
    (a full load's or a rollback's change records, indexer.change_diff), equal ones never do.
    The hash of its orjson form without the closing brace (``stamped_digest``)."""
    return _hash(memoryview(orjson.dumps(unstamped(search)))[:-1])


def stamp_length(changed_at: str) -> int:
    """The bytes a search document's ``changedAt`` stamp adds when it is its last key (a
    comma, the key and the instant) and the closing brace after it."""
    return len(orjson.dumps({CHANGED_AT: changed_at}))


def stamped_digest(body: bytes, stamp: int) -> int:
    """``listing_digest`` of a search document serialised (orjson) with its stamp, ``stamp``
    bytes (``stamp_length``), last: a load hashes each body it sends, not a second form."""
    return _hash(memoryview(body)[:-stamp])


def _hash(serialised: memoryview) -> int:
    return xxh3_64_intdigest(serialised) - (1 << 63)  # as a signed 64-bit number


def without_derived_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """A search document as its stored source holds it."""
    return {key: value for key, value in doc.items() if key not in DERIVED_FIELDS}


def provider_source(provider: Provider) -> Provider:
    """The provider as a search document stores it: without its id when its first NPI gives
    it (core.npi.provider_id), as it does for every NPPES provider."""
    npis = provider["npis"]
    if npis and provider["id"] == provider_id(npis[0]):
        stored = dict(provider)
        del stored["id"]
        return cast(Provider, stored)
    return provider


def provider_of(source: Mapping[str, Any]) -> Provider:
    """The provider of a search document's stored source, its id put back."""
    stored = source["provider"]
    if "id" in stored:
        return cast(Provider, stored)
    return cast(Provider, {"id": provider_id(stored["npis"][0]), **stored})


# What a reader of a search document's locations alone asks its source for (``locations_of``).
LOCATIONS_SOURCE: Final = (F.locations, f"{F.provider}.lastUpdated")


def locations_source(provider: Provider, locations: Sequence[Location]) -> list[Location]:
    """The locations as a search document stores them: each without its confidence when it is
    the one NPPES alone gives it on the provider's last update (core.confidence.nppes_alone)."""
    as_of = provider["lastUpdated"]
    stored: list[Location] = []
    for location in locations:
        if is_nppes_alone(location["confidence"], location, as_of):
            location = cast(Location, dict(location))
            del location["confidence"]  # type: ignore[misc]
        stored.append(location)
    return stored


def locations_of(source: Mapping[str, Any]) -> list[Location]:
    """The locations of a search document's stored source, each with its confidence (its
    provider's ``lastUpdated`` read with them)."""
    as_of = source["provider"]["lastUpdated"]
    return [
        location
        if "confidence" in location
        else cast(Location, {**location, "confidence": nppes_alone(location, as_of)})
        for location in source["locations"]
    ]

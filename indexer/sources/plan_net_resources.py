"""One Plan-Net resource -> what the directory keeps of it (pure; no references resolved here).

Each reader returns its record, or raises ``Invalid`` with the reason the resource goes to the
reject file: a code outside its value set, a practitioner with neither NPI nor name. An NPI that
fails its check digit, is not ten digits or is missing is no reason: the record says so
(``Person.issue``). Elements the directory does not use are not checked.
"""

from __future__ import annotations

import functools
import re
from datetime import date
from typing import Any

import langcodes

from core.npi import NpiIssue, npi_issue
from core.plan_net_codes import (
    ACCEPTING_SYSTEM,
    BID_ID_SYSTEM,
    GEOLOCATION,
    LANGUAGE_SYSTEM,
    NETWORK_REFERENCE,
    NEW_PATIENT_CODES,
    NEW_PATIENTS,
    NPI_SYSTEM,
    NUCC_SYSTEM,
    ORG_TYPE_SYSTEM,
)
from core.plans import canonical_bid_id
from indexer.sources.plan_net_records import (
    Hours,
    Invalid,
    Org,
    Person,
    Plan,
    Site,
)

_GENDERS = {"female": "F", "male": "M", "other": "X", "unknown": None}
_TAXONOMY = re.compile(r"[0-9]{3}[0-9A-Z]{6}X")
_PROVIDER_KINDS = {"prov", "fac", "prvgrp", "atyprv"}  # OrgTypeCS codes of providers
_ORG_TYPES = {"prov", "payer", "ntwk", "fac", "prvgrp", "bus", "atyprv", "dept", "team", "other"}


def reference(value: Any) -> str | None:
    """``Type/id`` of a Reference (absolute URLs too); None when it holds no literal one."""
    text = value.get("reference") if isinstance(value, dict) else None
    if not isinstance(text, str) or "/" not in text:
        return None
    kind, _, ident = text.rstrip("/").rpartition("/")
    return f"{kind.rpartition('/')[2]}/{ident}"


def _codes(concept: Any, system: str) -> list[tuple[str, str | None]]:
    codings = concept.get("coding") if isinstance(concept, dict) else None
    return [
        (str(c["code"]), c.get("display"))
        for c in codings or []
        if isinstance(c, dict) and c.get("system") == system and c.get("code")
    ]


def _extensions(body: dict[str, Any], url: str) -> list[dict[str, Any]]:
    return [e for e in body.get("extension") or [] if isinstance(e, dict) and e.get("url") == url]


def new_patients(body: dict[str, Any]) -> str | None:
    """The newpatients extension's acceptingPatients, in the directory's words."""
    for extension in _extensions(body, NEW_PATIENTS):
        for part in _extensions(extension, "acceptingPatients"):
            for code, _ in _codes(part.get("valueCodeableConcept"), ACCEPTING_SYSTEM):
                if code not in NEW_PATIENT_CODES:
                    raise Invalid(f"bad_code: acceptingPatients {code}")
                return NEW_PATIENT_CODES[code]
    return None


def network_references(body: dict[str, Any]) -> list[str | None]:
    return [reference(e.get("valueReference")) for e in _extensions(body, NETWORK_REFERENCE)]


def _npi(body: dict[str, Any]) -> tuple[str, NpiIssue | None]:
    """The NPI as published ("" when there is none) and what is wrong with it: an NPI that fails
    its check digit or is not ten digits is kept as published, never rejected for it."""
    values = [
        str(i.get("value"))
        for i in body.get("identifier") or []
        if isinstance(i, dict) and i.get("system") == NPI_SYSTEM and i.get("value") is not None
    ]
    value = values[0] if values else ""
    return value, npi_issue(value)


def taxonomies(concepts: Any) -> tuple[tuple[str, str | None], ...]:
    found: list[tuple[str, str | None]] = []
    for concept in concepts or []:
        for code, display in _codes(concept, NUCC_SYSTEM):
            if not _TAXONOMY.fullmatch(code):
                raise Invalid(f"bad_code: taxonomy {code}"[:60])
            if all(code != known for known, _ in found):
                found.append((code, display))
    return tuple(found)


@functools.lru_cache(maxsize=4096)  # a few hundred languages; langcodes' parse is slow
def _language(code: str) -> str:
    try:
        language = langcodes.Language.get(code)
    except (ValueError, LookupError):
        language = None
    if language is None or not language.is_valid() or not language.language:
        raise Invalid(f"bad_code: language {code}"[:60])
    return str(language.display_name())


def updated_day(body: dict[str, Any]) -> str | None:
    """The day of a resource's ``meta.lastUpdated``, when it has a valid one."""
    meta = body.get("meta")
    updated = meta.get("lastUpdated") if isinstance(meta, dict) else None
    try:
        return date.fromisoformat(updated[:10]).isoformat() if isinstance(updated, str) else None
    except ValueError:
        return None


def _first(values: Any) -> str | None:
    return str(values[0]) if isinstance(values, list) and values else None


def _name(body: dict[str, Any]) -> dict[str, Any]:
    names = [n for n in body.get("name") or [] if isinstance(n, dict)]
    official = [n for n in names if n.get("use") == "official"]
    return (official or names or [{}])[0]


def practitioner(body: dict[str, Any]) -> Person:
    """A practitioner without an NPI is kept (keyed by its resource id) when it has a name to be
    found by; with neither it is of no use to anyone looking for a provider."""
    npi, issue = _npi(body)
    name = _name(body)
    if not npi and not (name.get("family") or name.get("given")):
        raise Invalid("missing_npi_and_name")
    gender = body.get("gender")
    if gender is not None and gender not in _GENDERS:
        raise Invalid(f"bad_code: gender {gender}"[:60])
    given = [str(g) for g in name.get("given") or []]
    languages: list[str] = []
    for item in body.get("communication") or []:
        for code, _ in _codes(item, LANGUAGE_SYSTEM):
            spoken = _language(code)
            if spoken not in languages:
                languages.append(spoken)
    qualifications = [q.get("code") for q in body.get("qualification") or [] if isinstance(q, dict)]
    return Person(
        npi=npi,
        individual=True,
        organization_name=None,
        first=given[0] if given else None,
        middle=" ".join(given[1:]) or None,
        last=name.get("family"),
        prefix=_first(name.get("prefix")),
        suffix=_first(name.get("suffix")),
        gender=_GENDERS.get(gender) if gender else None,
        languages=tuple(languages),
        taxonomies=taxonomies(qualifications),
        updated=updated_day(body),
        issue=issue,
    )


def organization(body: dict[str, Any]) -> Org:
    kinds = [code for t in body.get("type") or [] for code, _ in _codes(t, ORG_TYPE_SYSTEM)]
    if any(kind not in _ORG_TYPES for kind in kinds):
        raise Invalid(f"bad_code: organization type {kinds[0]}"[:60])
    kind = kinds[0] if kinds else None
    name = body.get("name") if isinstance(body.get("name"), str) else None
    npi, issue = _npi(body) if kind not in ("ntwk", "payer") else ("", None)
    person = None
    # A provider: one with an NPI, or named and typed as one (a pharmacy published without an
    # NPI is still in the network); otherwise an organisation the other resources name.
    if npi or (name and kind in _PROVIDER_KINDS):
        person = Person(npi, False, name, *(None,) * 6, (), (), updated_day(body), issue)
    return Org(kind, name, person)


def _telecom(body: dict[str, Any], system: str) -> tuple[str, ...]:
    return tuple(
        str(t["value"])
        for t in body.get("telecom") or []
        if isinstance(t, dict) and t.get("system") == system and t.get("value")
    )


def _position(body: dict[str, Any], address: dict[str, Any]) -> tuple[float | None, float | None]:
    position = body.get("position")
    if isinstance(position, dict):
        lat, lng = position.get("latitude"), position.get("longitude")
    else:
        parts = {
            e.get("url"): e.get("valueDecimal")
            for geo in _extensions(address, GEOLOCATION)
            for e in geo.get("extension") or []
        }
        lat, lng = parts.get("latitude"), parts.get("longitude")
    if lat is None and lng is None:
        return None, None
    if not (isinstance(lat, int | float) and isinstance(lng, int | float)):
        raise Invalid("bad_position")
    if not (-90 <= lat <= 90 and -180 <= lng <= 180):
        raise Invalid("bad_position")
    return float(lat), float(lng)


def _hours(body: dict[str, Any]) -> tuple[Hours, ...]:
    return tuple(
        Hours(
            tuple(str(d) for d in h.get("daysOfWeek") or []),
            bool(h.get("allDay")),
            h.get("openingTime") or h.get("availableStartTime"),
            h.get("closingTime") or h.get("availableEndTime"),
        )
        for h in body.get("hoursOfOperation") or body.get("availableTime") or []
        if isinstance(h, dict)
    )


def location(body: dict[str, Any]) -> Site:
    address = body.get("address")
    if not isinstance(address, dict):
        raise Invalid("missing_address")
    lines = [str(line) for line in address.get("line") or []]
    lat, lng = _position(body, address)
    return Site(
        name=body.get("name"),
        line1=lines[0] if lines else "",
        line2=" ".join(lines[1:]),
        city=str(address.get("city") or ""),
        state=str(address.get("state") or ""),
        zip=str(address.get("postalCode") or "").replace("-", ""),
        lat=lat,
        lng=lng,
        phones=_telecom(body, "phone"),
        faxes=_telecom(body, "fax"),
        updated=updated_day(body),
        hours=_hours(body),
        new_patients=new_patients(body),
    )


def insurance_plan(body: dict[str, Any]) -> Plan:
    identifiers = [i for i in body.get("identifier") or [] if isinstance(i, dict)]
    bid_ids = [
        canonical_bid_id(str(i.get("value")))
        for i in identifiers
        if i.get("system") == BID_ID_SYSTEM
    ]
    if any(bid is None for bid in bid_ids):
        raise Invalid("bad_code: bid id")
    others = [str(i["value"]) for i in identifiers if i.get("system") != BID_ID_SYSTEM]
    networks = [reference(n) for n in body.get("network") or []]
    networks += [reference(n) for p in body.get("plan") or [] for n in p.get("network") or []]
    if None in networks:
        raise Invalid("bad_reference: network")
    period: dict[str, Any] = body["period"] if isinstance(body.get("period"), dict) else {}
    return Plan(
        bid_id=bid_ids[0] if bid_ids else None,
        payer_plan_id=others[0] if others else str(body["id"]),
        name=body.get("name"),
        owner=(body.get("ownedBy") or {}).get("display"),
        networks=tuple(dict.fromkeys(n for n in networks if n)),
        start=period.get("start"),
        end=period.get("end"),
    )

"""Plan-Net resource builders for ``indexer.generate.plan_net``: the shared pieces (codings,
references, contact points, hours, the seeded ``Draws`` every choice comes from), the payer's own
resources (the payer, its networks and plans) and an individual's Practitioner and role."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import TypeVar

from core.documents import Json
from core.fhir_json import without_empty
from core.plan_net_codes import (
    BID_ID_SYSTEM,
    NETWORK_REFERENCE,
    NEW_PATIENTS,
    NPI_SYSTEM,
    NUCC_SYSTEM,
    PLAN_NET_IG,
    provider_role,
)
from indexer.sources.nppes import NppesRecord

Resource = Json  # a FHIR resource (or element) as JSON
Write = Callable[[Resource], None]
_T = TypeVar("_T")

PLAN_NET = PLAN_NET_IG
NEWPATIENTS = NEW_PATIENTS
MA_PLAN_SYSTEM = BID_ID_SYSTEM

# (BCP-47 code, display, share per mille): English for all, others at about US rates.
LANGUAGES = (
    ("es", "Spanish", 130), ("zh", "Chinese", 20), ("vi", "Vietnamese", 10),
    ("tl", "Tagalog", 10), ("ko", "Korean", 10), ("ru", "Russian", 10), ("ar", "Arabic", 10),
    ("fr", "French", 10), ("pt", "Portuguese", 10), ("ht", "Haitian Creole", 10),
)  # fmt: skip
NO_NETWORK_PER_MILLE = 150
# AcceptingPatientsCS, cumulative per mille: mostly accepting new patients.
_ACCEPTING = (
    (720, "newpt", "Accepting"), (860, "existptonly", "Accepting existing patients"),
    (920, "existptfam", "Accepting existing patients and their families"),
    (1000, "nopt", "Not Accepting"),
)  # fmt: skip
# ProviderRoleCS by NUCC taxonomy prefix (the longest prefix that matches wins).
_MA_TYPES = {
    "HMO": ("mediadvhmo", "Medicare Advantage HMO"),
    "PPO": ("mediadv", "Medicare Advantage"),
}
_NETWORKS = (("hmo", "HMO"), ("ppo", "PPO"), ("epo", "EPO"), ("medicare", "Medicare Advantage"))
# (tier, product, InsuranceProductTypeCS code and display, networks): the commercial plans.
_COMMERCIAL = (
    ("Gold", "PPO", "commppo", "Commercial PPO", ("ppo",)),
    ("Silver", "HMO", "commhmo", "Commercial HMO", ("hmo",)),
    ("Bronze", "EPO", "commepo", "Commercial EPO", ("epo", "ppo")),
)
# Office hours (days, opening, closing).
_HOURS = (
    ((("mon", "tue", "wed", "thu", "fri"), "08:00:00", "17:00:00"),),
    ((("mon", "tue", "wed", "thu"), "09:00:00", "17:00:00"), (("fri",), "09:00:00", "13:00:00")),
    ((("mon", "wed", "fri"), "08:30:00", "16:30:00"),),
    ((("tue", "wed", "thu", "fri", "sat"), "09:00:00", "18:00:00"),),
)
_GENDERS = {"M": "male", "F": "female", "X": "other"}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
# Draws slots: each choice reads its own 16 bits of the digest.
_SLOTS = struct.Struct(">32H")
LANGUAGE_SLOT, NETWORK_SLOT, ACCEPT_SLOT, HOURS_SLOT = 0, 10, 14, 15


@dataclass(frozen=True, slots=True)
class Payer:
    """What the rows' resources point at: the payer, its networks; and the NUCC code names."""

    ref: Resource
    networks: Sequence[Resource]
    names: Mapping[str, str]


class Draws:
    """The choices of one row: 16-bit slices of a seeded blake2b digest of its key."""

    __slots__ = ("_values",)

    def __init__(self, seed: int, key: str) -> None:
        digest = blake2b(f"{seed}:{key}".encode(), digest_size=64).digest()
        self._values: tuple[int, ...] = _SLOTS.unpack(digest)

    def value(self, slot: int) -> int:
        return self._values[slot]

    def per_mille(self, slot: int) -> int:
        return self._values[slot] * 1000 >> 16


def slug(text: str) -> str:
    return _NON_ALNUM.sub("-", text.lower()).strip("-")[:40].strip("-")


def base(kind: str, id_: str, updated: str, profile: str | None = None) -> Resource:
    """resourceType, id and meta (with the Plan-Net profile) of a resource."""
    url = f"{PLAN_NET}/StructureDefinition/plannet-{profile or kind}"
    return {"resourceType": kind, "id": id_, "meta": {"lastUpdated": updated, "profile": [url]}}


def coding(system: str, code: str, display: str) -> Resource:
    return {"coding": [{"system": system, "code": code, "display": display}], "text": display}


def plan_net_concept(code_system: str, code: str, display: str) -> Resource:
    return coding(f"{PLAN_NET}/CodeSystem/{code_system}", code, display)


def ref(kind: str, id_: str, display: str | None = None) -> Resource:
    return {"reference": f"{kind}/{id_}", **({"display": display} if display else {})}


def nucc(code: str, names: Mapping[str, str]) -> Resource:
    """A NUCC taxonomy concept, named when the code set names the code."""
    name = names.get(code)
    if name:
        return coding(NUCC_SYSTEM, code, name)
    return {"coding": [{"system": NUCC_SYSTEM, "code": code}]}


def specialties(record: NppesRecord, names: Mapping[str, str]) -> list[Resource]:
    ordered = sorted(record.taxonomies, key=lambda taxonomy: not taxonomy.primary)
    return [nucc(code, names) for code in dict.fromkeys(t.code for t in ordered)]


def primary_taxonomy(record: NppesRecord) -> str:
    primary = next((t.code for t in record.taxonomies if t.primary), "")
    return primary or next((t.code for t in record.taxonomies), "")


def longest_prefix(table: Mapping[str, _T], code: str, default: _T) -> _T:
    found = (table.get(code[:length]) for length in range(len(code), 1, -1))
    return next((value for value in found if value is not None), default)


def newpatients(draws: Draws, slot: int = ACCEPT_SLOT) -> Resource:
    draw = draws.per_mille(slot)
    code, display = next((c, d) for limit, c, d in _ACCEPTING if draw < limit)
    concept = plan_net_concept("AcceptingPatientsCS", code, display)
    accepting = {"url": "acceptingPatients", "valueCodeableConcept": concept}
    return {"url": NEWPATIENTS, "extension": [accepting]}


def networks(draws: Draws, refs: Sequence[Resource]) -> list[Resource]:
    """None for about 15%, else one or two of the payer's networks."""
    if draws.per_mille(NETWORK_SLOT) < NO_NETWORK_PER_MILLE:
        return []
    first = draws.value(NETWORK_SLOT + 1) % len(refs)
    if draws.per_mille(NETWORK_SLOT + 2) >= 350:
        return [refs[first]]
    return [refs[first], refs[(first + 1 + draws.value(NETWORK_SLOT + 3) % 3) % len(refs)]]


def telecom(record: NppesRecord) -> list[Resource]:
    found = (("phone", record.phone), ("fax", record.fax))
    return [{"system": system, "value": _phone(v), "use": "work"} for system, v in found if v]


def _phone(number: str) -> str:
    return f"({number[:3]}) {number[3:6]}-{number[6:]}" if len(number) == 10 else number


def hours(draws: Draws, opens: str, closes: str) -> list[Resource]:
    """One of the office-hour patterns, as availableTime or hoursOfOperation entries."""
    pattern = _HOURS[draws.value(HOURS_SLOT) % len(_HOURS)]
    return [{"daysOfWeek": list(days), opens: start, closes: end} for days, start, end in pattern]


def person_name(record: NppesRecord) -> str:
    name = " ".join(part for part in (record.first_name, record.last_name) if part)
    return f"{name}, {record.credential}" if record.credential else name


def practitioner(record: NppesRecord, draws: Draws, payer: Payer, updated: str) -> Resource:
    name = {
        "use": "official",
        "text": person_name(record),
        "family": record.last_name,
        "given": [part for part in (record.first_name, record.middle_name) if part],
        "prefix": [record.prefix] if record.prefix else [],
        "suffix": [part for part in (record.suffix, record.credential) if part],
    }
    spoken = [("en", "English")] + [
        (code, display)
        for slot, (code, display, rate) in enumerate(LANGUAGES, LANGUAGE_SLOT)
        if draws.per_mille(slot) < rate
    ]
    licensed = [(t.license_number, nucc(t.code, payer.names)) for t in record.taxonomies]
    qualifications = [
        without_empty({"identifier": [{"value": n}] if n else [], "code": c}) for n, c in licensed
    ]
    resource = base("Practitioner", f"practitioner-{record.npi}", updated) | {
        "identifier": [{"use": "official", "system": NPI_SYSTEM, "value": record.npi}],
        "active": True,
        "name": [without_empty(name)],
        "gender": _GENDERS.get(record.sex, "unknown"),
        "qualification": qualifications,
        "communication": [coding("urn:ietf:bcp:47", code, display) for code, display in spoken],
    }
    return without_empty(resource)


def practitioner_role(
    record: NppesRecord, draws: Draws, payer: Payer, updated: str, locations: Sequence[Resource]
) -> Resource:
    code, display = provider_role(primary_taxonomy(record))
    member_of = networks(draws, payer.networks)
    resource = base("PractitionerRole", f"role-{record.npi}", updated) | {
        "extension": [
            *({"url": NETWORK_REFERENCE, "valueReference": network} for network in member_of),
            newpatients(draws),
        ],
        "active": True,
        "practitioner": ref("Practitioner", f"practitioner-{record.npi}", person_name(record)),
        "code": [plan_net_concept("ProviderRoleCS", code, display)],
        "specialty": specialties(record, payer.names),
        "location": list(locations),
        "telecom": telecom(record),
        "availableTime": hours(draws, "availableStartTime", "availableEndTime"),
    }
    return without_empty(resource)


def payer_resources(
    name: str, bids: Sequence[tuple[str, str, str]], names: Mapping[str, str], updated: str
) -> tuple[Payer, list[Resource]]:
    """The payer Organization, its four networks and six InsurancePlans: three Medicare Advantage
    plans (``bids``: bid id, plan name, "HMO" or "PPO") and three commercial ones."""
    key = slug(name) or "payer"
    initials = "".join(word[0] for word in name.upper().split() if word[0].isalnum()) or "P"
    owner = ref("Organization", f"payer-{key}", name)
    made = [
        base("Organization", f"payer-{key}", updated)
        | {
            "identifier": [{"system": f"https://{key}.example/payer-id", "value": initials}],
            "active": True,
            "type": [plan_net_concept("OrgTypeCS", "payer", "Payer")],
            "name": name,
        }
    ]
    networks: dict[str, Resource] = {}
    for code, label in _NETWORKS:
        networks[code] = ref("Organization", f"network-{code}", f"{name} {label} Network")
        made.append(
            base("Organization", f"network-{code}", updated, "Network")
            | {
                "active": True,
                "type": [plan_net_concept("OrgTypeCS", "ntwk", "Network")],
                "name": networks[code]["display"],
                "partOf": owner,
            }
        )
    plans: list[tuple[str, str, str, str, str, tuple[str, ...]]] = [
        (bid, MA_PLAN_SYSTEM, plan, *_MA_TYPES[product], ("medicare", product.lower()))
        for bid, plan, product in bids
    ]
    for tier, product, code, display, keys in _COMMERCIAL:
        value, system = f"{initials}-{tier.upper()}-01", f"https://{key}.example/plan-id"
        plans.append((value, system, f"{name} {tier} {product}", code, display, keys))
    for value, system, plan, code, display, members in plans:
        made.append(
            base("InsurancePlan", f"plan-{value.lower()}", updated)
            | {
                "identifier": [{"use": "official", "system": system, "value": value}],
                "status": "active",
                "type": [plan_net_concept("InsuranceProductTypeCS", code, display)],
                "name": plan,
                "ownedBy": owner,
                "administeredBy": owner,
                "network": [networks[member] for member in members],
            }
        )
    return Payer(owner, list(networks.values()), names), made

"""The Locations of ``indexer.generate.plan_net``: one per practice address (normalised line 1 +
ZIP5), shared by the providers there and written when first seen, near its ZIP centroid; and
the extra Locations fault injection gives a practitioner (``plan_net_faults``)."""

from __future__ import annotations

from hashlib import blake2b

from core.fhir_json import without_empty
from core.geo import ZipPlace, lookup_zip, zip5
from indexer.assembly.locations import format_zip, match_key
from indexer.generate import plan_net_resources as fhir
from indexer.generate.plan_net_faults import PlanNetFaults
from indexer.generate.plan_net_resources import Draws, Resource, base, ref
from indexer.sources.nppes import NppesRecord

# Draws slots of a location (drawn from its id).
_LAT_SLOT, _LNG_SLOT, _PATIENTS_SLOT, _ACCEPT_SLOT = 20, 21, 22, 23


class Locations:
    """Writes the Locations; only the 8-byte keys of the addresses seen are kept."""

    def __init__(self, seed: int, write: fhir.Write, faults: PlanNetFaults) -> None:
        self._seed = seed
        self._write = write
        self._faults = faults
        self._seen: set[int] = set()

    def reference(self, record: NppesRecord, updated: str) -> Resource:
        """The shared Location of the record's practice address."""
        us = record.country in ("", "US")
        code = zip5(record.postal_code) if us else None
        key = match_key(record.line1, "", "" if us else record.country, code or record.postal_code)
        digest = blake2b(key.encode(), digest_size=8).digest()
        location_id = f"location-{digest.hex()}"
        number = int.from_bytes(digest, "big")
        if number not in self._seen:
            self._seen.add(number)
            self._write_location(record, location_id, updated, shared=True)
        return ref("Location", location_id)

    def new(self, record: NppesRecord, location_id: str, updated: str) -> Resource:
        """A Location of its own (``location_id``) at the record's practice address."""
        self._write_location(record, location_id, updated, shared=False)
        return ref("Location", location_id)

    def _write_location(
        self, record: NppesRecord, location_id: str, updated: str, *, shared: bool
    ) -> None:
        code = zip5(record.postal_code) if record.country in ("", "US") else None
        place = lookup_zip(code) if code else None
        made = _location(record, Draws(self._seed, location_id), location_id, updated, place)
        self._write(self._faults.published_location(made, shared=shared))


def _location(
    record: NppesRecord, draws: Draws, location_id: str, updated: str, place: ZipPlace | None
) -> Resource:
    org = record.entity_type == "2"
    name = organization_name(record) if org else f"{record.line1}, {record.city}".strip(", ")
    location = base("Location", location_id, updated)
    if draws.per_mille(_PATIENTS_SLOT) < 500:
        location["extension"] = [fhir.newpatients(draws, _ACCEPT_SLOT)]
    location |= {"status": "active", "name": name, "telecom": fhir.telecom(record)[:1]}
    location["address"] = address(record)
    if place is not None:
        # Street-level-looking points: the ZIP centroid moved by up to 0.01 degrees each way.
        lng = place.lng + (draws.value(_LNG_SLOT) / 32767.5 - 1) * 0.01
        lat = place.lat + (draws.value(_LAT_SLOT) / 32767.5 - 1) * 0.01
        location["position"] = {"longitude": round(lng, 6), "latitude": round(lat, 6)}
    if org:
        location["managingOrganization"] = ref("Organization", f"organization-{record.npi}")
    location["hoursOfOperation"] = fhir.hours(draws, "openingTime", "closingTime")
    return without_empty(location)


def address(record: NppesRecord) -> Resource:
    us = record.country in ("", "US")
    fields = {
        "line": [line for line in (record.line1, record.line2) if line],
        "city": record.city,
        "state": record.state,
        "postalCode": format_zip(record.postal_code) if us else record.postal_code,
        "country": "USA" if us else record.country,
    }
    return without_empty({"use": "work", **fields})


def organization_name(record: NppesRecord) -> str:
    return record.organization_name or record.doing_business_as or f"NPI {record.npi}"

"""A provider's practice locations: the NPPES practice address plus every other address the
Doctors & Clinicians files give, de-duplicated as equivalent addresses (core.addresses: street
and number, ZIP5); each location's evidence is every source that lists it, with that source's
date (core.confidence)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.addresses import address_key
from core.confidence import NPPES, add_evidence, evidence_of
from core.documents import Address, GroupAffiliation, HospitalAffiliation, Location
from core.geo import lookup_zip
from core.npi import location_id
from indexer.sources.dac import DacAddress, DacRow
from indexer.sources.nppes import NppesRecord

_PUNCTUATION = re.compile(r"[^A-Z0-9 ]+")


def format_zip(postal_code: str) -> str | None:
    """US ZIP as "12345" or "12345-6789"; a foreign postal code unchanged."""
    digits = postal_code.replace("-", "")
    if len(digits) == 9 and digits.isdigit():
        return f"{digits[:5]}-{digits[5:]}"
    return postal_code or None


def match_key(line: str, city: str, state: str, postal_code: str) -> str:
    """Two spellings of one address compare equal: case, punctuation and spacing ignored."""
    text = f"{line}|{city}|{state}".upper()
    return " ".join(_PUNCTUATION.sub(" ", text).split()) + "|" + postal_code[:5]


def match_keys(line1: str, line2: str, city: str, state: str, postal_code: str) -> set[str]:
    """The keys an address is found by among a provider's locations: its equivalence key (a
    suite, given in line 1 or 2, or the city's spelling make no other address)."""
    return {address_key(line1, postal_code)}


def _location(
    npi: str,
    fields: tuple[str, str, str, str, str],
    us: bool,
    phones: list[str],
    faxes: list[str],
    pcp_eligible: bool,
    source: str,
    as_of: str | None,
) -> Location:
    line1, line2, city, state, postal_code = fields
    place = lookup_zip(postal_code) if us else None
    address: Address = {
        "line1": line1 or None,
        "line2": line2 or None,
        "city": city or None,
        "state": state or None,
        "zip": format_zip(postal_code),
        "county": place.county if place else None,
        "lat": place.lat if place else None,
        "lng": place.lng if place else None,
    }
    location: Location = {
        "id": location_id(npi, "|".join((*fields[:4], postal_code[:5])).upper()),
        "npi": npi,
        "address": address,
        "phoneNumbers": phones,
        "faxNumbers": faxes,
        "website": None,
        "email": None,
        "groupAffiliations": [],
        "hospitalAffiliations": [],
        "pcpEligible": pcp_eligible,
        "source": source,
        "sources": [source],
        "geocodePrecision": "zip5" if place else None,
        "newPatients": None,
        "hoursOfOperation": [],
        "confidence": evidence_of(source, as_of),
    }
    return location


def practice_location(record: NppesRecord, pcp_eligible: bool) -> Location:
    """The NPPES practice address, geocoded from its ZIP centroid when it is a US ZIP."""
    return _location(
        record.npi,
        (record.line1, record.line2, record.city, record.state, record.postal_code),
        record.country in ("", "US"),
        [record.phone] if record.phone else [],
        [record.fax] if record.fax else [],
        pcp_eligible,
        NPPES,
        record.last_update.isoformat() if record.last_update else None,
    )


def _add_affiliations(location: Location, row: DacRow) -> None:
    if row.group is not None:
        group = GroupAffiliation(name=row.group[0], pacId=row.group[1])
        if group not in location["groupAffiliations"]:
            location["groupAffiliations"].append(group)
    for ccn, name in row.hospitals:
        if all(h["ccn"] != ccn for h in location["hospitalAffiliations"]):
            location["hospitalAffiliations"].append(HospitalAffiliation(ccn=ccn, name=name))


def listed_location(
    npi: str,
    fields: tuple[str, str, str, str, str],
    pcp_eligible: bool,
    source: str,
    as_of: str | None,
) -> Location:
    """An address another source lists (line 1, line 2, city, state, ZIP), placed at its ZIP
    code's centre as any other."""
    return _location(npi, fields, True, [], [], pcp_eligible, source, as_of)


def _dac_location(npi: str, address: DacAddress, pcp_eligible: bool, loaded: str) -> Location:
    fields = (address.line1, address.line2, address.city, address.state, address.zip)
    phones = [address.phone] if address.phone else []
    return _location(npi, fields, True, phones, [], pcp_eligible, "dac", loaded)


def all_locations(
    record: NppesRecord, dac_rows: Sequence[DacRow], pcp_eligible: bool, loaded: str
) -> list[Location]:
    """NPPES location first, then DAC addresses it does not already have, with the groups and
    hospitals of the DAC rows at each address (``loaded``: the day the Doctors & Clinicians
    file, which gives no date of its own, was loaded)."""
    nppes = practice_location(record, pcp_eligible)
    if not dac_rows:
        return [nppes]
    locations = [nppes]
    by_key = dict.fromkeys(
        match_keys(record.line1, record.line2, record.city, record.state, record.postal_code),
        nppes,
    )
    for row in dac_rows:
        address = row.address
        if address is None:
            continue
        keys = match_keys(address.line1, address.line2, address.city, address.state, address.zip)
        location = next((by_key[key] for key in keys if key in by_key), None)
        if location is None:
            location = _dac_location(record.npi, address, pcp_eligible, loaded)
            locations.append(location)
            by_key.update(dict.fromkeys(keys, location))
        elif "dac" not in location["sources"]:
            location["sources"] = [*location["sources"], "dac"]
            add_evidence(location, "dac", loaded)
        _add_affiliations(location, row)
    return locations

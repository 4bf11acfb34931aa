"""What the directory says against a listing: the ghost signals a provider carries (its
``dataQuality`` notes, FHIR ``meta.tag`` codes) and the reasons a location's confidence gives
(core.confidence). Defined once, for the indexer that finds them, the generator that injects
them (``generate-plan-net --faults``), the scorecards that count them and the API that says them.

A signal is about what a source published, never a verdict on a person (README "Trust").
"""

from __future__ import annotations

from typing import Literal, get_args

from core.npi import NpiIssue

GhostSignal = Literal[
    "npi_deactivated",  # a payer lists an NPI NPPES deactivated (and did not reactivate)
    "npi_not_in_nppes",  # a payer lists a valid NPI the NPPES file does not hold
    "name_differs_from_nppes",  # a payer's name for an NPI is not NPPES's, as people compare
    "many_locations",  # one directory lists a practitioner at more than MANY_LOCATIONS addresses
]
QualityCode = NpiIssue | GhostSignal  # a provider's dataQuality note
QUALITY_CODES: tuple[str, ...] = (*get_args(NpiIssue), *get_args(GhostSignal))

LocationReason = Literal[
    "confirmed",  # independent sources list the same address
    "single_source",  # one source lists it, nothing confirms or contradicts it
    "address_unconfirmed",  # only a payer's directory lists it: no other source confirms it
    "stale",  # the newest evidence is older than STALE_DAYS
    "no_phone",  # no phone there: no source gives one, or a directory lists it without one
    "zip_only_geocode",  # placed at its ZIP code's centre, not at the address
    "not_geocoded",  # not placed at all (never inside a radius)
    "po_box",  # a post-office box given as a practice address
]
# The reasons a location takes from its provider: a ghost signal lowers every listing.
Reason = LocationReason | QualityCode
REASONS: tuple[str, ...] = (*get_args(LocationReason), *QUALITY_CODES)

# A directory listing a practitioner at more distinct practice addresses than this is flagged.
# Medicare's own enrollment records (Physician Compare 2017 in ../shared/data/raw/dac) put 10
# of 2,672 clinicians (0.37 %) at more than 12 addresses, hospital-based specialists mostly;
# a payer's directory listing someone at more than that is far more often stale than busy.
MANY_LOCATIONS = 12

# What each code says, in a sentence: FHIR tags' displays, scorecards and the README's table.
MEANINGS: dict[str, str] = {
    "npi_check_digit_invalid": "NPI as published: its check digit is wrong",
    "npi_malformed": "NPI as published: not 10 digits",
    "npi_missing": "No NPI published",
    "npi_deactivated": "A payer lists an NPI that NPPES deactivated",
    "npi_not_in_nppes": "A payer lists a valid NPI that NPPES does not hold",
    "name_differs_from_nppes": "A payer's name for the NPI is not NPPES's",
    "many_locations": f"A payer lists the practitioner at more than {MANY_LOCATIONS} addresses",
    "confirmed": "Independent sources list the same address",
    "single_source": "One source lists the address, nothing confirms or contradicts it",
    "address_unconfirmed": "Only a payer's directory lists the address",
    "stale": "The newest evidence for the address is more than five years old",
    "no_phone": "No phone for the address, or a payer lists it without one",
    "zip_only_geocode": "Placed at its ZIP code's centre, not at the address",
    "not_geocoded": "Not placed on the map",
    "po_box": "A post-office box given as a practice address",
}

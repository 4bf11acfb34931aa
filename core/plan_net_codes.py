"""The systems, profiles and codes of the HL7 Da Vinci PDex Plan-Net guide (STU 1.1) that the
indexer reads from payers' exports and the FHIR API writes: defined once."""

from __future__ import annotations

from typing import Final

from core.documents import NewPatients

NPI_SYSTEM: Final = "http://hl7.org/fhir/sid/us-npi"
BID_ID_SYSTEM: Final = "https://www.cms.gov/medicare/ma-plan-id"
NUCC_SYSTEM: Final = "http://nucc.org/provider-taxonomy"
LANGUAGE_SYSTEM: Final = "urn:ietf:bcp:47"
PLAN_NET_IG: Final = "http://hl7.org/fhir/us/davinci-pdex-plan-net"
PLAN_NET: Final = PLAN_NET_IG + "/StructureDefinition/"
CODE_SYSTEMS: Final = PLAN_NET_IG + "/CodeSystem/"
NETWORK_REFERENCE: Final = PLAN_NET + "network-reference"
NEW_PATIENTS: Final = PLAN_NET + "newpatients"
GEOLOCATION: Final = "http://hl7.org/fhir/StructureDefinition/geolocation"
ACCEPTING_SYSTEM: Final = CODE_SYSTEMS + "AcceptingPatientsCS"
ORG_TYPE_SYSTEM: Final = CODE_SYSTEMS + "OrgTypeCS"
# AcceptingPatientsCS -> the directory's words for it (core.documents.NewPatients).
NEW_PATIENT_CODES: Final[dict[str, NewPatients]] = {
    "newpt": "accepting",
    "existptonly": "existing_patients_only",
    "existptfam": "existing_patients_and_family",
    "nopt": "not_accepting",
}

PROVIDER_ROLE_SYSTEM: Final = CODE_SYSTEMS + "ProviderRoleCS"
# ProviderRoleCS by NUCC taxonomy prefix (the longest prefix that matches wins).
PROVIDER_ROLES: Final[dict[str, tuple[str, str]]] = {
    "20": ("ph", "Physician"), "363A": ("pa", "Physician Assistant"), "1223": ("de", "Dentist"),
    "36": ("apn", "Advanced Practice Nursing Providers"), "213E": ("po", "Podiatrist"),
    "363L": ("crnp", "Certified Registered Nurse Practitioner"), "111N": ("ch", "Chiropractor"),
    "367A": ("cnw", "Certified Nurse Midwife"), "163W": ("rn", "Registered Nurse"),
    "164": ("lpn", "Licensed Practical Nurse"), "12": ("dp", "Dental Provider"),
    "10": ("bh", "Behavioral Health & Social Service Providers"), "1041": ("sw", "Social Worker"),
    "103K": ("ba", "Board Certified Behavior Analyst"), "103T": ("py", "Psychologist"),
    "106H": ("mt", "Marriage/Family Therapist"), "101Y": ("co", "Counselor"),
    "22": ("drr", "Developmental, Rehabilitative and Restorative Service Providers"),
    "2251": ("pt", "Physical Therapist"), "225X": ("ot", "Occupational Therapist"),
    "235Z": ("sp", "Speech Language Pathologist"), "231H": ("au", "Audiologist"),
    "152W": ("oo", "Optometrist"), "156F": ("op", "Optician"),
    "183": ("rx", "Pharmacy Service Providers"),
    "133": ("dn", "Dietary and Nutritional Service Provider"),
    "24": ("te", "Technologists, Technicians and Other Technical Service Providers"),
}  # fmt: skip
OTHER_ROLE: Final = ("os", "Other Service Provider")


def provider_role(taxonomy_code: str) -> tuple[str, str]:
    """The ProviderRoleCS code and display of a NUCC taxonomy code."""
    for length in range(len(taxonomy_code), 1, -1):
        role = PROVIDER_ROLES.get(taxonomy_code[:length])
        if role is not None:
            return role
    return OTHER_ROLE


def profile(name: str) -> str:
    """A Plan-Net profile's canonical URL: ``profile("Practitioner")``."""
    return f"{PLAN_NET}plannet-{name}"

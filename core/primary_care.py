"""Which NUCC taxonomy codes make a provider eligible to be a primary care provider (PCP).

This is the one place the list lives. It follows the usual Medicare Advantage directory practice:
family medicine, internal medicine, pediatrics, general practice and geriatric medicine physicians,
plus nurse practitioners and physician assistants in primary-care specialisations, and primary care
clinics. Sub-specialists (e.g. pediatric cardiology) are not PCPs.
"""

from __future__ import annotations

PCP_TAXONOMY_CODES: frozenset[str] = frozenset(
    {
        "207Q00000X",  # Family Medicine
        "207QA0505X",  # Family Medicine, Adult Medicine
        "207QG0300X",  # Family Medicine, Geriatric Medicine
        "207R00000X",  # Internal Medicine
        "207RG0300X",  # Internal Medicine, Geriatric Medicine
        "208000000X",  # Pediatrics
        "2080A0000X",  # Pediatrics, Adolescent Medicine
        "208D00000X",  # General Practice
        "363L00000X",  # Nurse Practitioner
        "363LA2200X",  # Nurse Practitioner, Adult Health
        "363LF0000X",  # Nurse Practitioner, Family
        "363LG0600X",  # Nurse Practitioner, Gerontology
        "363LP0200X",  # Nurse Practitioner, Pediatrics
        "363LP2300X",  # Nurse Practitioner, Primary Care
        "363LW0102X",  # Nurse Practitioner, Women's Health
        "363A00000X",  # Physician Assistant
        "363AM0700X",  # Physician Assistant, Medical
        "261QP2300X",  # Clinic/Center, Primary Care
    }
)


def is_pcp_eligible(taxonomy_codes: list[str] | tuple[str, ...]) -> bool:
    return any(code in PCP_TAXONOMY_CODES for code in taxonomy_codes)

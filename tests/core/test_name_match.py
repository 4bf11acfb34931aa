"""Names compared as people compare them, and addresses as the USPS writes them: hand-worked
cases of what is and is not a difference."""

from __future__ import annotations

import pytest

from core.addresses import address_key, is_po_box
from core.name_match import same_organization, same_person

# (payer's given, payer's family, NPPES given, middle, family, other names) -> same person
PEOPLE = [
    ("Bob", "Smith", "ROBERT", "J", "SMITH", (), True),
    ("Robert", "Smith", "BOB", None, "SMITH", (), True),
    ("Bill", "Lee", "WILLIAM", None, "LEE", (), True),
    ("J", "Smith", "JOHN", None, "SMITH", (), True),
    ("John", "Smith", "J", None, "SMITH", (), True),
    ("Chris", "Ng", "CHRISTOPHER", None, "NG", (), True),
    ("Ann", "Lee", "MARY", "ANN", "LEE", (), True),  # goes by her middle name
    ("María", "Peña", "MARIA", None, "PENA", (), True),  # accents
    ("Mary", "Garcia", "MARY", None, "GARCIA-LOPEZ", (), True),  # part of a double surname
    ("Mary", "Garcia Lopez", "MARY", None, "GARCIA", (), True),
    ("Jonathan", "Smithson", "JONATHON", None, "SMITHSON", (), True),  # one letter, long name
    ("Kate", "O'Brien", "KATHERINE", None, "OBRIEN", (), True),
    ("Anne", "Miller", "ANNE", None, "JONES", ("ANNE MILLER",), True),  # a former surname
    (None, "Smith", "ROBERT", None, "SMITH", (), True),  # a family name alone
    ("Robert", "Jones", "ROBERT", None, "SMITH", (), False),
    ("Alice", "Smith", "ROBERT", None, "SMITH", (), False),
    ("Alan", "Lee", "ALEX", None, "LEE", (), False),  # one letter, but a short name
    ("Maria", "Garcia", "MARIA", None, "LOPEZ", (), False),
    ("Sam", "Ng", "SAMUEL", None, "WONG", (), False),
]


@pytest.mark.parametrize(
    ("given", "family", "n_given", "n_middle", "n_family", "other", "same"), PEOPLE
)
def test_people(
    given: str | None,
    family: str,
    n_given: str,
    n_middle: str | None,
    n_family: str,
    other: tuple[str, ...],
    same: bool,
) -> None:
    assert same_person(given, family, n_given, n_middle, n_family, other) is same


ORGANIZATIONS = [
    ("Acme Medical Group, LLC", ["ACME MEDICAL GROUP INC"], True),
    ("The Acme Medical Group", ["ACME MEDICAL GROUP, P.C."], True),
    ("Smith & Jones Pediatrics", ["SMITH AND JONES PEDIATRICS PA"], True),
    ("Pediatrics Smith Jones", ["SMITH AND JONES PEDIATRICS PA"], True),  # word order
    ("Riverside Clinic", [None, "RIVERSIDE FAMILY CLINIC"], True),  # a DBA, a word added
    ("Beta Orthopedics", ["ACME MEDICAL GROUP INC"], False),
    ("Northside Dental", ["SOUTHSIDE PHYSICAL THERAPY LLC"], False),
]


@pytest.mark.parametrize(("listed", "known", "same"), ORGANIZATIONS)
def test_organizations(listed: str, known: list[str | None], same: bool) -> None:
    assert same_organization(listed, known) is same


ADDRESSES = [
    (("123 Main Street", "02139"), ("123 MAIN ST", "02139-4307"), True),
    (("123 Main St Suite 200", "02139"), ("123 MAIN ST", "02139"), True),
    (("123 Main St #4", "02139"), ("123 Main St, Ste. 4B", "02139"), True),
    (("10 North Elm Avenue", "04101"), ("10 N ELM AVE", "04101"), True),
    (("1 Medical Center Drive Bldg 3", "03756"), ("1 MEDICAL CTR DR", "03756"), True),
    (("123 Main St", "02139"), ("125 MAIN ST", "02139"), False),  # another number
    (("123 Main St", "02139"), ("123 MAIN ST", "02140"), False),  # another ZIP
    (("123 Main St", "02139"), ("123 ELM ST", "02139"), False),
]


@pytest.mark.parametrize(("a", "b", "same"), ADDRESSES)
def test_addresses(a: tuple[str, str], b: tuple[str, str], same: bool) -> None:
    assert (address_key(*a) == address_key(*b)) is same


@pytest.mark.parametrize(
    ("line", "box"),
    [("PO Box 12", True), ("P.O. BOX 5", True), ("POB 77", True), ("Post Office Box 9", True),
     ("Box 3", True), ("100 Boxwood Ln", False), ("12 Post Rd", False), ("", False)],
)  # fmt: skip
def test_po_boxes(line: str, box: bool) -> None:
    assert is_po_box(line) is box

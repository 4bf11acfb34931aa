"""What the directory keeps of each Plan-Net resource (systems and codes: core.plan_net_codes).

The reading's spill (indexer.sources.spill) keeps a Person, a Site and an Org as a marshalled
tuple of its fields (the ``*_ROWS`` codecs below); the others are pickled, so they have no
slots: a frozen dataclass with slots pickles through Python code, 2.5 times slower."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from core.npi import KEYED_BY_ID, NpiIssue
from indexer.sources.spill import RowCodec

R = TypeVar("R")


class Invalid(ValueError):
    """The resource cannot be used; the message is the reject file's reason."""


@dataclass(frozen=True)
class Hours:
    days: tuple[str, ...]
    all_day: bool
    opens: str | None
    closes: str | None


@dataclass(frozen=True)
class Site:
    """A Location resource."""

    name: str | None
    line1: str
    line2: str
    city: str
    state: str
    zip: str
    lat: float | None
    lng: float | None
    phones: tuple[str, ...]
    faxes: tuple[str, ...]
    updated: str | None  # the day of its meta.lastUpdated
    hours: tuple[Hours, ...]
    new_patients: str | None


@dataclass(frozen=True)
class Person:
    """A Practitioner, or an Organization that is a provider (it has an NPI)."""

    # The key the directory keeps it by: its NPI as published when that is ten digits (check
    # digit right or wrong), else the id core.npi.listed_id made from the resource.
    npi: str
    individual: bool
    organization_name: str | None
    first: str | None
    middle: str | None
    last: str | None
    prefix: str | None
    suffix: str | None
    gender: str | None
    languages: tuple[str, ...]
    taxonomies: tuple[tuple[str, str | None], ...]  # (NUCC code, display)
    updated: str | None = None  # the day of the resource's meta.lastUpdated
    issue: NpiIssue | None = None  # what is wrong with its NPI (core.npi.npi_issue)
    published_npi: str | None = None  # the NPI as published, when it is not the key

    @property
    def npis(self) -> list[str]:
        """The NPIs the provider is served with: as the payer published them."""
        if self.issue in KEYED_BY_ID:
            return [self.published_npi] if self.published_npi else []
        return [self.npi]


@dataclass(frozen=True)
class Org:
    kind: str | None  # OrgTypeCS code
    name: str | None
    person: Person | None  # a provider organisation (an NPI)


@dataclass(frozen=True)
class Plan:
    bid_id: str | None
    payer_plan_id: str
    name: str | None
    owner: str | None  # the ownedBy reference's display, else the name of what it names
    networks: tuple[str, ...]  # references
    start: str | None
    end: str | None


def _from_fields(kind: type[R]) -> Callable[[tuple[Any, ...]], R]:
    """Builds a ``kind`` from its fields' values in order, as unpickling does: its attributes
    set at once, not one frozen ``__setattr__`` at a time."""
    names = [f.name for f in fields(kind)]  # type: ignore[arg-type]
    new = object.__new__

    def build(row: tuple[Any, ...]) -> R:
        record = new(kind)
        record.__dict__.update(zip(names, row, strict=True))
        return record

    return build


def _values(record: object) -> tuple[Any, ...]:
    return tuple(record.__dict__.values())  # a dataclass's fields, in order


_person = _from_fields(Person)
_hours = _from_fields(Hours)
_site = _from_fields(Site)
_org = _from_fields(Org)

PERSON_ROWS = RowCodec[Person](_values, _person)


def _site_row(site: Site) -> tuple[Any, ...]:
    *head, hours, new_patients = _values(site)
    return (*head, tuple(_values(h) for h in hours), new_patients)


def _site_from_row(row: tuple[Any, ...]) -> Site:
    *head, hours, new_patients = row
    return _site((*head, tuple(_hours(h) for h in hours), new_patients))


SITE_ROWS = RowCodec[Site](_site_row, _site_from_row)


def _org_row(org: Org) -> tuple[Any, ...]:
    return (org.kind, org.name, None if org.person is None else _values(org.person))


def _org_from_row(row: tuple[Any, ...]) -> Org:
    kind, name, person = row
    return _org((kind, name, None if person is None else _person(person)))


ORG_ROWS = RowCodec[Org](_org_row, _org_from_row)

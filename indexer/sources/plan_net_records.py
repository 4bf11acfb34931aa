"""What the directory keeps of each Plan-Net resource (systems and codes: core.plan_net_codes).

These records are pickled into the reading's spill (indexer.sources.spill), so they have no
slots: a frozen dataclass with slots pickles through Python code, 2.5 times slower."""

from __future__ import annotations

from dataclasses import dataclass


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
    hours: tuple[Hours, ...]
    new_patients: str | None


@dataclass(frozen=True)
class Person:
    """A Practitioner, or an Organization that is a provider (it has an NPI)."""

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
    owner: str | None  # the ownedBy reference's display
    networks: tuple[str, ...]  # references
    start: str | None
    end: str | None

"""What the directory keeps of each Plan-Net resource (systems and codes: core.plan_net_codes).

These records are pickled into the reading's spill (indexer.sources.spill), so they have no
slots: a frozen dataclass with slots pickles through Python code, 2.5 times slower."""

from __future__ import annotations

from dataclasses import dataclass

from core.npi import KEYED_BY_ID, NpiIssue


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
    owner: str | None  # the ownedBy reference's display
    networks: tuple[str, ...]  # references
    start: str | None
    end: str | None

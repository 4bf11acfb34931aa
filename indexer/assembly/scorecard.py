"""A payer directory's scorecard (core.scorecards), the one rule (pure): counted from the
documents the indexer builds for the providers the directory lists (``ListingTally``, fed one
provider at a time, so memory holds counts and a few examples) and from the directory's own
facts (``directory_facts``: what its reader counted). A load, an update of the directory, the
refresh after an NPPES update and an audit all count through it.

Examples are the smallest ids found, not the first: the same directory scores the same whatever
order its providers are met in (a load meets them in NPPES order, an audit by NPI).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from core.documents import Location, Provider
from core.npi import provider_key
from core.scorecards import (
    CHECKS,
    EXAMPLES,
    LISTING_CHECKS,
    LOCATION_CHECKS,
    PROVIDER_CHECKS,
    Check,
    CheckCode,
    DirectoryDoc,
    Freshness,
    Holds,
    ResourceCounts,
    directory_source,
)
from indexer.sources.plan_net import PlanNetDirectory

(UNCONFIRMED,) = LISTING_CHECKS  # a location's reason, counted per listing
Checks = dict[CheckCode, Check]


@dataclass(slots=True)
class Found:
    """How many were found, and the smallest ids among them."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, example: str) -> None:
        self.count += 1
        if example in self.examples:
            return
        if len(self.examples) < EXAMPLES or example < self.examples[-1]:
            bisect.insort(self.examples, example)
            del self.examples[EXAMPLES:]

    def check(self, out_of: int) -> Check:
        rate = round(self.count / out_of, 4) if out_of else 0.0
        return {"count": self.count, "outOf": out_of, "rate": rate, "examples": self.examples}


def found_in(examples: Iterable[str]) -> Found:
    found = Found()
    for example in examples:
        found.add(example)
    return found


class ListingTally:
    """The provider and listing checks of one directory (``source``), provider by provider:
    each provider the directory lists (its documents name it among their sources) with its
    notes of that source, and each of its locations the directory lists (a listing) with
    whether only payers list it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.providers = 0
        self.listings = 0
        self._found: dict[str, Found] = {c: Found() for c in (*PROVIDER_CHECKS, *LISTING_CHECKS)}

    def add(self, provider: Provider, locations: Sequence[Location]) -> None:
        source = self.source
        if source not in provider["sources"]:
            return
        self.providers += 1
        key = provider_key(provider["npis"], provider["id"])
        notes = provider.get("dataQuality", ())
        for code in dict.fromkeys(n["code"] for n in notes if n["source"] == source):
            self._found[code].add(key)
        for location in locations:
            if source in location["sources"]:
                self.listings += 1
                if UNCONFIRMED in location["confidence"]["reasons"]:
                    self._found[UNCONFIRMED].add(key)

    def checks(self) -> Checks:
        checks: Checks = {code: self._found[code].check(self.providers) for code in PROVIDER_CHECKS}
        checks[UNCONFIRMED] = self._found[UNCONFIRMED].check(self.listings)
        return checks


@dataclass(frozen=True)
class DirectoryFacts:
    """What the directory says of itself: what it holds, how fresh, its Location and export
    checks. A refresh from the search index keeps them (``facts_of`` a stored scorecard)."""

    holds: Holds
    freshness: Freshness
    checks: Checks


def freshness(days: Mapping[str, int]) -> Freshness:
    """The oldest, median (the lower one) and newest of a histogram of days."""
    ordered = sorted(day for day, count in days.items() if count > 0)
    if not ordered:
        return {"oldest": None, "median": None, "newest": None}
    middle, running, median = (sum(days[day] for day in ordered) + 1) // 2, 0, ordered[0]
    for day in ordered:
        running += days[day]
        if running >= middle:
            median = day
            break
    return {"oldest": ordered[0], "median": median, "newest": ordered[-1]}


def directory_facts(directory: PlanNetDirectory) -> DirectoryFacts:
    """Read off the directory before its scratch file is closed (its sites are spilled)."""
    no_phone, unplaced = Found(), Found()
    for ref, site in directory.sites.items():
        if not site.phones:
            no_phone.add(ref)
        if site.lat is None or site.lng is None:
            unplaced.add(ref)
    plans = directory.plans
    used = {network for plan in plans.values() for network in plan.networks}
    locations = directory.used["Location"]
    no_phone_code, unplaced_code = LOCATION_CHECKS
    checks: Checks = {
        no_phone_code: no_phone.check(locations),
        unplaced_code: unplaced.check(locations),
        "unresolved_references": Found(directory.unresolved, sorted(directory.unresolved_in)).check(
            sum(directory.read.values())
        ),
        "plans_without_network": found_in(r for r, p in plans.items() if not p.networks).check(
            len(plans)
        ),
        "networks_without_plan": found_in(n for n in directory.networks if n not in used).check(
            len(directory.networks)
        ),
    }
    holds: Holds = {
        "resources": cast(dict[str, ResourceCounts], directory.counts()),
        "providers": len(directory.providers),
        "locations": locations,
        "plans": len(plans),
        "networks": len(directory.networks),
    }
    return DirectoryFacts(holds, freshness(directory.updated_days), checks)


def facts_of(stored: DirectoryDoc) -> DirectoryFacts:
    """The directory's own facts as its stored scorecard keeps them."""
    own = {c: v for c, v in stored["checks"].items() if c not in (*PROVIDER_CHECKS, UNCONFIRMED)}
    return DirectoryFacts(stored["holds"], stored["freshness"], own)


def scorecard(
    name: str, facts: DirectoryFacts, tally: ListingTally, at: str, stored: DirectoryDoc | None
) -> DirectoryDoc:
    """The scorecard as counted now (``at``: the instant of the job). A directory loaded before
    (``stored``) keeps when it was loaded, and when it last changed if nothing has since."""
    checks = {**tally.checks(), **facts.checks}
    card: DirectoryDoc = {
        "name": name,
        "source": directory_source(name),
        "loadedAt": stored["loadedAt"] if stored else at,
        "updatedAt": at,
        "holds": facts.holds,
        "freshness": facts.freshness,
        "checks": {code: checks[code] for code in CHECKS},
    }
    if stored is not None and {**stored, "updatedAt": at} == card:
        card["updatedAt"] = stored["updatedAt"]
    return card

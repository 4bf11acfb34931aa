"""A Plan-Net directory's providers by NPI, spilled so that each role or affiliation read costs
one appended row: the provider's Person is written once, what each role or affiliation says is
a row of plain values under its NPI, and its sites are kept by reference. A provider read back
is put together from them (``PlanNetProvider``), as the roles and affiliations said, in order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from indexer.sources.plan_net_records import PERSON_ROWS, Person, Site
from indexer.sources.spill import Spill, SpilledMap

# Many providers practise at each site: the sites last read are kept (frozen records, about a
# kilobyte each with their hours: tens of MB at most), so most are read from the file once.
_SITES_KEPT = 32_768


@dataclass(frozen=True)  # no slots, as plan_net_records says
class Membership:
    """The provider is in ``network`` at ``site`` (None: wherever it practises)."""

    network: str
    site: str | None
    new_patients: str | None
    start: str | None
    end: str | None


@dataclass
class PlanNetProvider:
    person: Person
    sites: dict[str, Site] = field(default_factory=dict)  # by reference, first named first
    new_patients: dict[str, str] = field(default_factory=dict)  # per site, from roles/services
    taxonomies: list[tuple[str, str | None]] = field(default_factory=list)
    memberships: list[Membership] = field(default_factory=list)


@dataclass(frozen=True)
class Joined:
    """What one role or affiliation says: the provider practises at ``sites``, accepting new
    patients as ``said`` there, with ``taxonomies``, and is in ``networks`` there from ``start``
    to ``end``."""

    sites: tuple[str, ...]
    said: str | None
    taxonomies: tuple[tuple[str, str | None], ...]
    networks: tuple[str, ...]
    start: str | None
    end: str | None


class SpilledProviders(Mapping[str, PlanNetProvider]):
    """The providers by NPI, in the order they were added; a value read back is a copy."""

    def __init__(self, spill: Spill, sites: SpilledMap[Site]) -> None:
        self._people = spill.table(Person, codec=PERSON_ROWS)
        self._joined = spill.rows()
        # Sites are all read (Locations come first, indexer.sources.plan_net_files.TURNS)
        # before any provider is read back.
        self._site = lru_cache(maxsize=_SITES_KEPT)(sites.__getitem__)

    def add(self, person: Person) -> bool:
        """Keep ``person`` unless its NPI is there already; whether it was kept."""
        return self._people.add(person.npi, person)

    def join(self, npi: str, joined: Joined) -> None:
        self._joined.append(
            npi,
            (
                joined.sites,
                joined.said,
                joined.taxonomies,
                joined.networks,
                joined.start,
                joined.end,
            ),
        )

    def __getitem__(self, npi: str) -> PlanNetProvider:
        provider = PlanNetProvider(self._people[npi])
        for row in self._joined.get(npi):
            self._replay(provider, Joined(*row))
        return provider

    def _replay(self, provider: PlanNetProvider, joined: Joined) -> None:
        for site in joined.sites:
            if site not in provider.sites:
                provider.sites[site] = self._site(site)
            if joined.said is not None:
                provider.new_patients[site] = joined.said
        provider.taxonomies += [t for t in joined.taxonomies if t not in provider.taxonomies]
        for network in joined.networks:
            where: list[str | None] = [*joined.sites] or [None]
            for at in where:
                accepting = joined.said
                if accepting is None and at is not None:
                    accepting = provider.sites[at].new_patients
                provider.memberships.append(
                    Membership(network, at, accepting, joined.start, joined.end)
                )

    def __contains__(self, npi: object) -> bool:
        return npi in self._people

    def __iter__(self) -> Iterator[str]:
        return iter(self._people)

    def __len__(self) -> int:
        return len(self._people)

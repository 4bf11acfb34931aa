"""``--plan-net DIR``: a payer's Plan-Net export -> its providers by NPI, its plans and who is in
which network where (indexer.sources.plan_net_files reads the files in reference order).

Every resource is accounted for: ``read`` = ``used`` + ``rejected`` per type. A resource is
rejected (into the reject file, with its reason) when it is not valid JSON or not a Plan-Net
type, repeats an id or NPI, has no NPI nor name, has a code outside its value set, or points
at a resource the export lacks or rejected; nothing stops the load. A wrong NPI is a warning.

Memory stays flat whatever the export's size: it is read line by line, and what is kept per
resource (providers with their sites and memberships, organisations, sites, services, the
published resources, every reference seen) is spilled to a scratch SQLite file
(``indexer.sources.spill``, in ``TMPDIR``); only the plans and networks stay in memory.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.npi import KEYED_BY_ID, listed_id
from core.plan_net_codes import NPI_SYSTEM
from core.scorecards import EXAMPLES, directory_source
from indexer.sources import plan_net_resources as read
from indexer.sources.plan_net_files import RESOURCE_TYPES, Place, Resource, Unreadable, read_export
from indexer.sources.plan_net_normalised import normalised
from indexer.sources.plan_net_providers import Joined, SpilledProviders
from indexer.sources.plan_net_records import ORG_ROWS, SITE_ROWS, Invalid, Org, Person, Plan, Site
from indexer.sources.rejects import Reject
from indexer.sources.spill import Spill, SpilledMap

_ACCEPTED_KEPT = 10_000


class DuplicateId(Invalid):
    """A second resource of a type and id already read."""


@dataclass(frozen=True)
class Service:
    sites: tuple[str, ...]
    new_patients: str | None


@dataclass
class PlanNetDirectory:
    name: str  # the source name every value from this export carries ("plan-net:<name>")
    spill: Spill = field(default_factory=Spill, repr=False)
    providers: SpilledProviders = field(init=False)  # by NPI
    plans: dict[str, Plan] = field(default_factory=dict)  # by reference
    networks: dict[str, str | None] = field(default_factory=dict)  # reference -> name
    # What the export publishes besides providers and plans (HealthcareService, Endpoint),
    # as given, by reference, and the organisations and sites their references name.
    published: SpilledMap[dict[str, Any]] = field(init=False)
    organizations: SpilledMap[Org] = field(init=False)  # by reference
    sites: SpilledMap[Site] = field(init=False)  # by reference
    read: Counter[str] = field(default_factory=Counter)  # per resource type
    used: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)  # used as published: NpiIssue
    normalised: Counter[str] = field(default_factory=Counter)  # used, changed: by kind
    updated_days: Counter[str] = field(default_factory=Counter)  # used, by meta.lastUpdated
    # References to nothing usable (one per resource: rejected for it, a plan's owner unnamed).
    unresolved: int = 0
    unresolved_in: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.published = self.spill.table(dict)
        self.organizations = self.spill.table(Org, ordered=False, codec=ORG_ROWS)
        self.sites = self.spill.table(Site, ordered=False, codec=SITE_ROWS)
        self.providers = SpilledProviders(self.spill, self.sites)

    @property
    def source(self) -> str:
        return directory_source(self.name)

    def counts(self) -> dict[str, dict[str, int]]:
        """What the reports of a load and of an update give, per resource type."""
        return {
            kind: {"read": n, "used": self.used[kind], "rejected": self.rejected[kind]}
            for kind, n in self.read.items()
        }

    def unresolved_reference(self, holder: str) -> None:
        self.unresolved += 1
        self.unresolved_in = [*self.unresolved_in, holder][:EXAMPLES]

    @property
    def accounted(self) -> bool:
        kinds = set(self.read) | set(self.rejected)
        return all(self.read[k] == self.used[k] + self.rejected[k] for k in kinds)


class _Builder:
    def __init__(self, directory: PlanNetDirectory, reject: Reject) -> None:
        self.directory = directory
        self._reject = reject
        self._orgs = directory.organizations
        self._sites = directory.sites
        spill = directory.spill
        self._people = spill.table(str, ordered=False)  # Practitioner reference -> NPI
        self._services = spill.table(Service, ordered=False)
        # Every reference read -> "" when accepted, else why it was rejected.
        self._seen = spill.table(str, ordered=False)
        self._accepted: set[str] = set()  # a few recently resolved ones, kept in memory

    def refuse(self, kind: str, place: Place, npi: str, reason: str, ref: str | None) -> None:
        self.directory.rejected[kind] += 1
        if ref is not None:
            self._seen[ref] = reason
        self._reject(place.file, place.line, npi, reason)

    def resolve(self, ref: str | None, wanted: Iterable[str] = ()) -> str:
        """``ref`` when the export holds it (and it is one of ``wanted`` types, if given)."""
        if ref is None:
            raise Invalid("bad_reference")
        if ref not in self._accepted:
            why = self._seen.get(ref)
            if why is None or why:
                # The kind, not the id, so the report counts alike reasons together; the reject
                # file's line says which resource it is.
                kind = ref.partition("/")[0]
                raise Invalid(f"dangling_reference: {kind}" + (f" ({why})" if why else ""))
            if len(self._accepted) >= _ACCEPTED_KEPT:
                self._accepted.clear()
            self._accepted.add(ref)
        if wanted and ref.partition("/")[0] not in wanted:
            raise Invalid(f"wrong_reference: {ref.partition('/')[0]}")
        return sys.intern(ref)

    def present(self, ref: str | None) -> None:
        """The export holds ``ref``, whether it was used or rejected."""
        if ref is None or ref not in self._seen:
            raise Invalid(
                f"dangling_reference: {ref.partition('/')[0]}" if ref else "bad_reference"
            )

    def _add_person(self, person: Person, ref: str) -> Person:
        """``person`` as the directory keeps it: by its NPI, or by an id of its own when it has
        no ten-digit one (never joined to an NPPES record by it: indexer.load.pipeline)."""
        if person.issue in KEYED_BY_ID:
            key = listed_id(self.directory.source, ref)
            person = replace(person, npi=key, published_npi=person.npi or None)
        if not self.directory.providers.add(person):
            raise Invalid("duplicate_npi")
        if person.issue is not None:
            self.directory.warnings[person.issue] += 1
        return person

    def take(self, resource: Resource) -> None:
        body, kind = resource.body, resource.type
        ref = f"{kind}/{body['id']}"
        if not self._seen.add(ref, ""):  # claimed: a failure below records why instead
            raise DuplicateId("duplicate_id")
        if kind == "Organization":
            org = read.organization(body)
            if org.person is not None:
                org = replace(org, person=self._add_person(org.person, ref))
            if org.kind == "ntwk":
                self.directory.networks[ref] = org.name
            self._orgs[ref] = org
        elif kind == "Location":
            self._sites[ref] = read.location(body)
        elif kind == "Practitioner":
            self._people[ref] = self._add_person(read.practitioner(body), ref).npi
        elif kind == "HealthcareService":
            sites = self._references(_list(body, "location"), "Location")
            self._services[ref] = Service(tuple(sites), read.new_patients(body))
            self.directory.published[ref] = body
        elif kind == "Endpoint":
            self.directory.published[ref] = body
        elif kind == "InsurancePlan":
            plan = read.insurance_plan(body)
            for network in plan.networks:
                self.resolve(network, ["Organization"])
            owner = self._orgs.get(owned := read.reference(body.get("ownedBy")) or "")
            if owned and owner is None:
                self.directory.unresolved_reference(ref)
            if plan.owner is None:  # no display: the name of the organisation it names
                plan = replace(plan, owner=owner.name if owner else None)
            self.directory.plans[ref] = plan
        elif kind == "PractitionerRole":
            self._role(body)
        elif kind == "OrganizationAffiliation":
            self._affiliation(body)

    def _join(
        self,
        npi: str,
        body: dict[str, Any],
        networks: list[str],
        sites: list[str],
        services: list[str],
    ) -> None:
        """What a role or affiliation says: the provider practises at ``sites`` (and where its
        ``services`` are offered) and is in ``networks`` there."""
        for network in networks:
            if network not in self.directory.networks:
                raise Invalid("not_a_network")
        own = read.new_patients(body)
        offered = [self._services[s] for s in services]
        for service in offered:
            sites += [s for s in service.sites if s not in sites]
        said = own or next((s.new_patients for s in offered if s.new_patients), None)
        period: dict[str, Any] = body["period"] if isinstance(body.get("period"), dict) else {}
        joined = Joined(
            tuple(sites),
            said,
            tuple(read.taxonomies(body.get("specialty"))),
            tuple(networks),
            period.get("start"),
            period.get("end"),
        )
        self.directory.providers.join(npi, joined)

    def _references(self, values: list[Any], wanted: str) -> list[str]:
        return [self.resolve(read.reference(v), [wanted]) for v in values]

    def _role(self, body: dict[str, Any]) -> None:
        practitioner = self.resolve(read.reference(body.get("practitioner")), ["Practitioner"])
        organization = body.get("organization")
        if organization is not None:  # not used, so one the export rejected will do
            self.present(read.reference(organization))
        self._join(
            self._people[practitioner],
            body,
            [self.resolve(n, ["Organization"]) for n in read.network_references(body)],
            self._references(_list(body, "location"), "Location"),
            self._references(_list(body, "healthcareService"), "HealthcareService"),
        )

    def _affiliation(self, body: dict[str, Any]) -> None:
        participant = body.get("participatingOrganization")
        person = self._orgs[self.resolve(read.reference(participant), ["Organization"])].person
        if person is None:
            raise Invalid("participant_without_npi")
        self._join(
            person.npi,
            body,
            self._references(_list(body, "network"), "Organization"),
            self._references(_list(body, "location"), "Location"),
            self._references(_list(body, "healthcareService"), "HealthcareService"),
        )


def _list(body: dict[str, Any], key: str) -> list[Any]:
    value = body.get(key)
    return value if isinstance(value, list) else []


def _npi_of(resource: Resource) -> str:
    for identifier in resource.body.get("identifier") or []:
        if isinstance(identifier, dict) and identifier.get("system") == NPI_SYSTEM:
            return str(identifier.get("value") or "")
    return ""


def warning_text(warnings: Counter[str]) -> str:
    """Resources used as published, flagged, by warning (a load's and an update's report)."""
    counts = ", ".join(f"{k}={v:,}" for k, v in sorted(warnings.items()))
    return f"{counts} (served as published, flagged)" if counts else "none"


def normalised_text(changes: Counter[str]) -> str:
    """Resources the import changed before use, by kind (a load's and an update's report)."""
    counts = ", ".join(f"{k}={v:,}" for k, v in sorted(changes.items()))
    return f"{counts} (changed, then used)" if counts else "none"


def read_plan_net(path: Path, reject: Reject, name: str | None = None) -> PlanNetDirectory:
    """The export in ``path`` (a directory); ``name`` defaults to the directory's name."""
    directory = PlanNetDirectory(name or path.resolve().name)
    builder = _Builder(directory, reject)
    for item in read_export(path):
        if isinstance(item, Unreadable):
            directory.read["(unreadable)"] += 1
            builder.refuse("(unreadable)", item.place, "", item.reason, None)
            continue
        directory.read[item.type] += 1
        body, changes = normalised(item.body)
        item = replace(item, body=body)
        try:
            builder.take(item)
        except Invalid as invalid:
            # A duplicate's reference is the first resource's, whose state stays.
            ref = None if isinstance(invalid, DuplicateId) else f"{item.type}/{item.body['id']}"
            if str(invalid).startswith("dangling_reference"):
                directory.unresolved_reference(f"{item.type}/{item.body['id']}")
            builder.refuse(item.type, item.place, _npi_of(item), str(invalid), ref)
            continue
        directory.used[item.type] += 1
        directory.normalised.update(changes)
        if (day := read.updated_day(body)) is not None:
            directory.updated_days[day] += 1
    for kind in RESOURCE_TYPES:
        directory.read.setdefault(kind, 0)
    return directory

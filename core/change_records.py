"""What a load, an update or a rollback changed, per provider and per plan: the records of the
change feed (``GET /v2/changes``) and of watches (DESIGN 5.10). Pure: each job hands over what a
provider or plan was served as before and after it, and gets the records back.

A provider is compared as it is served: its name, specialties, trust flags, locations (by id;
an address or phone that changes at one id, or the one address a source gives replaced by
another, is ``location_changed``) and in-network periods (per plan year: a plan year it enters
is ``network_joined``, one it leaves, or whose period now ends sooner, ``network_left``). A plan
is compared on what a member pays and gets: premium, deductibles, out-of-pocket limit, stars,
service area.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.change_log import Change, ChangeKind
from core.documents import CoverageDoc, Location, NetworkPeriod, Provider
from core.index_contract import SEARCH_FIELDS
from core.provider_names import provider_name
from core.search_fields import locations_of, provider_of

DEACTIVATED_FLAG = "npi_deactivated"  # core.quality: a payer lists an NPI NPPES deactivated
# What a plan's member pays and gets: a change of any of them is ``plan_changed``.
PLAN_TERMS = (
    "monthlyPremium",
    "healthDeductible",
    "drugDeductible",
    "maxOutOfPocket",
    "starRating",
    "serviceArea",
)


@dataclass(frozen=True)
class Listing:
    """A provider as it is served: what its changes are told from."""

    provider: Provider
    locations: Sequence[Location]
    networks: Sequence[NetworkPeriod]

    @property
    def flags(self) -> list[str]:
        return list(dict.fromkeys(note["code"] for note in self.provider.get("dataQuality", ())))


def listed(search: Mapping[str, Any] | None) -> Listing | None:
    """A provider as its search document (a stored source, or one being written) serves it."""
    if search is None:
        return None
    return Listing(
        provider_of(search), locations_of(search), search.get(SEARCH_FIELDS.networks, [])
    )


Event = Literal["deactivated", "reactivated"]


def provider_changes(
    key: str, before: Listing | None, after: Listing | None, source: str, event: Event | None = None
) -> list[Change]:
    """What changed of the provider keyed ``key``; ``event``: NPPES deactivated or reactivated
    the NPI (a provider that leaves or enters the directory otherwise just loses or gains its
    locations and networks)."""
    changes: list[Change] = []

    def add(kind: ChangeKind, old: Any, new: Any, plan: str | None = None) -> None:
        bid, year = _plan_year(plan) if plan else (None, None)
        changes.append(
            Change(
                kind=kind,
                npi=key,
                bidId=bid,
                contractYear=year,
                before=old,
                after=new,
                source=source,
            )
        )

    old_flags = before.flags if before else []
    new_flags = after.flags if after else []
    deactivated = event == "deactivated" or (
        DEACTIVATED_FLAG in new_flags and before is not None and DEACTIVATED_FLAG not in old_flags
    )
    reactivated = event == "reactivated" or (
        DEACTIVATED_FLAG in old_flags and after is not None and DEACTIVATED_FLAG not in new_flags
    )
    if deactivated:
        add("deactivated", None, None)
    if reactivated:
        add("reactivated", None, None)
    if before and after:
        if (name := _name(before.provider)) != (new_name := _name(after.provider)):
            add("name_changed", name, new_name)
        if (held := _specialties(before.provider)) != (now := _specialties(after.provider)):
            add("specialty_changed", held, now)
    raised = set(old_flags)
    for note in after.provider.get("dataQuality", ()) if after else ():
        if note["code"] not in raised:  # the first note of each code: who published it
            raised.add(note["code"])
            add("flag_raised", None, dict(note))
    for kind, old, new in _location_changes(
        before.locations if before else (), after.locations if after else ()
    ):
        add(kind, old, new)
    for kind, plan, old, new in _network_changes(
        before.networks if before else (), after.networks if after else ()
    ):
        add(kind, old, new, plan)
    return changes


def accepting_changes(
    before: Mapping[str, CoverageDoc], after: Mapping[str, CoverageDoc], source: str
) -> list[Change]:
    """A plan's coverage rows (by document id) that stay and now say otherwise of new
    patients."""
    changes: list[Change] = []
    for doc_id in sorted(before.keys() & after.keys()):
        old, new = before[doc_id], after[doc_id]
        if old["acceptingNewPatients"] == new["acceptingNewPatients"]:
            continue
        place = {"locationId": new["locationId"]}
        changes.append(
            Change(
                kind="accepting_new_patients_changed",
                npi=new["npi"],
                bidId=new["bidId"],
                contractYear=new["contractYear"],
                before={**place, "acceptingNewPatients": old["acceptingNewPatients"]},
                after={**place, "acceptingNewPatients": new["acceptingNewPatients"]},
                source=source,
            )
        )
    return changes


def _name(provider: Provider) -> str:
    return provider_name(provider, titles=False)


def _specialties(provider: Provider) -> list[dict[str, Any]]:
    return [
        {"code": s["code"], "displayName": s["displayName"], "primary": s["primary"]}
        for s in provider["specialties"]
    ]


def _place(location: Location) -> dict[str, Any]:
    """What ``location_*`` records tell of a location: where it is and how to call it."""
    return {
        "id": location["id"],
        "address": dict(location["address"]),
        "phoneNumbers": list(location["phoneNumbers"]),
    }


def _location_changes(
    before: Iterable[Location], after: Iterable[Location]
) -> list[tuple[ChangeKind, Any, Any]]:
    old = {location["id"]: location for location in before}
    new = {location["id"]: location for location in after}
    found: list[tuple[ChangeKind, Any, Any]] = []
    for location_id in old.keys() & new.keys():
        was, now = _place(old[location_id]), _place(new[location_id])
        if was != now:
            found.append(("location_changed", was, now))
    gone = [old[i] for i in old if i not in new]
    came = [new[i] for i in new if i not in old]
    # One source's one address replaced by another: the provider moved.
    for source in {location["source"] for location in gone}:
        left = [location for location in gone if location["source"] == source]
        arrived = [location for location in came if location["source"] == source]
        if len(left) == len(arrived) == 1:
            found.append(("location_changed", _place(left[0]), _place(arrived[0])))
            gone.remove(left[0])
            came.remove(arrived[0])
    found += [("location_removed", _place(location), None) for location in gone]
    found += [("location_added", None, _place(location)) for location in came]
    return sorted(found, key=lambda change: _location_id(change))


def _location_id(change: tuple[ChangeKind, Any, Any]) -> str:
    _, old, new = change
    return str((new or old)["id"])


def _network_changes(
    before: Iterable[NetworkPeriod], after: Iterable[NetworkPeriod]
) -> list[tuple[ChangeKind, str, Any, Any]]:
    old, new = _periods_by_plan(before), _periods_by_plan(after)
    found: list[tuple[ChangeKind, str, Any, Any]] = []
    for plan in sorted(old.keys() | new.keys()):
        was, now = old.get(plan), new.get(plan)
        if was == now:
            continue
        if now is None:
            found.append(("network_left", plan, was, None))
        elif was is None or not _ends_sooner(was, now):
            found.append(("network_joined", plan, was, now))
        else:
            found.append(("network_left", plan, was, now))
    return found


def _periods_by_plan(periods: Iterable[NetworkPeriod]) -> dict[str, list[dict[str, Any]]]:
    by_plan: dict[str, list[dict[str, Any]]] = {}
    for period in periods:
        by_plan.setdefault(period["key"], []).append(dict(period["period"]))
    return {plan: sorted(spans, key=_span_order) for plan, spans in by_plan.items()}


def _span_order(span: Mapping[str, Any]) -> tuple[str, str]:
    return span.get("gte") or "", span.get("lt") or "~"


def _ends_sooner(was: list[dict[str, Any]], now: list[dict[str, Any]]) -> bool:
    """Whether the membership now ends before it did (an end date set or brought forward)."""
    return max(_span_order(s)[1] for s in now) < max(_span_order(s)[1] for s in was)


def _plan_year(plan: str) -> tuple[str, int]:
    """A network period's key (core.plans.plan_doc_id: ``<year>:<plan key>``) split."""
    year, _, key = plan.partition(":")
    return key, int(year)


def plan_changes(
    plan_id: str, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, source: str
) -> list[Change]:
    """What changed of the plan year ``plan_id`` (core.plans.plan_doc_id) for its members."""
    key, year = _plan_year(plan_id)

    def change(kind: ChangeKind, old: Any, new: Any) -> Change:
        return Change(
            kind=kind,
            npi=None,
            bidId=key,
            contractYear=year,
            before=old,
            after=new,
            source=source,
        )

    if before is None and after is None:
        return []
    if before is None:
        return [change("plan_added", None, _terms(after or {}))]
    if after is None:
        return [change("plan_removed", _terms(before), None)]
    old, new = _terms(before), _terms(after)
    changed = [term for term in PLAN_TERMS if old.get(term) != new.get(term)]
    if not changed:
        return []
    return [change("plan_changed", {t: old[t] for t in changed}, {t: new[t] for t in changed})]


def _terms(plan: Mapping[str, Any]) -> dict[str, Any]:
    return {term: plan.get(term) for term in PLAN_TERMS}

"""When each resource the FHIR API serves last changed, and the resources removed: what
``_lastUpdated`` and an incremental (``_since``) export stand on.

Every document a FHIR resource is built from (search documents, plans and published Plan-Net
documents in the plans index) carries ``changedAt``: the instant, to the second, of the load
that wrote it or of the last update that added or changed it. An update that removes a resource
leaves a removal record in the ``removals`` index; a load starts that index empty (every
resource is then stamped with the load's instant, so a client syncing across it gets all).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Final

from core.index_contract import SEARCH_FIELDS
from core.network import role_id
from core.published_documents import Removal

INSTANT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # FHIR instant, to the second, UTC
# The stamp as a key of the documents' TypedDicts: a literal, which mypy checks against each
# document's type (tests/core checks it against the declarations). Query bodies name it through
# the declarations (SEARCH_FIELDS.changedAt, PLAN_FIELDS.changedAt).
CHANGED_AT: Final = "changedAt"


def instant(moment: datetime) -> str:
    """A moment as ``changedAt`` and ``meta.lastUpdated`` hold it (UTC, to the second)."""
    return moment.astimezone(UTC).strftime(INSTANT_FORMAT)


def now() -> str:
    return instant(datetime.now(UTC))


def unstamped(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A document without its ``changedAt``: what an update compares to tell a change."""
    return {key: value for key, value in doc.items() if key != CHANGED_AT}


def removal(resource_type: str, resource_id: str, removed_at: str) -> tuple[str, Removal]:
    """A removal record and its document id."""
    record = Removal(resourceType=resource_type, id=resource_id, removedAt=removed_at)
    return f"{resource_type}/{resource_id}", record


def provider_removals(search: dict[str, Any], removed_at: str) -> list[tuple[str, Removal]]:
    """The FHIR resources a provider's search document is served as, as removal records: what
    disappears when the provider is removed. An individual: its Practitioner and a role per
    network it is in (core.network.role_id), its one role without any; an organisation: its
    Organization and, in a network, its OrganizationAffiliation; and its locations."""
    npi = search[SEARCH_FIELDS.npi]
    periods = search.get(SEARCH_FIELDS.networks, [])
    networks = list(dict.fromkeys(period["key"] for period in periods))
    entity = search[SEARCH_FIELDS.provider]["entityType"]
    records: list[tuple[str, Removal]] = []
    if entity == "individual":
        records.append(removal("Practitioner", npi, removed_at))
        records += [removal("PractitionerRole", role_id(npi, k), removed_at) for k in networks]
        if not networks:
            records.append(removal("PractitionerRole", role_id(npi, None), removed_at))
    elif entity == "organization":
        records.append(removal("Organization", npi, removed_at))
        if networks:
            records.append(removal("OrganizationAffiliation", npi, removed_at))
    places = search[SEARCH_FIELDS.locations]
    records += [removal("Location", place["id"], removed_at) for place in places]
    return records


SearchPair = tuple[dict[str, Any] | None, dict[str, Any] | None]  # (before, after); None: absent


def resources_gone(written: Iterable[SearchPair], at: str) -> tuple[dict[str, Removal], list[str]]:
    """What rewriting providers' search documents removed: the FHIR resources a provider was
    served as and is no more (all of them when it is gone, a location it lost), by id; and the
    ids of those it is served as and was not (a removal record of them no longer holds)."""
    removed: dict[str, Removal] = {}
    present: list[str] = []
    for old, new in written:
        before = dict(provider_removals(old, at)) if old else {}
        after = dict(provider_removals(new, at)) if new else {}
        removed.update((doc_id, before[doc_id]) for doc_id in before.keys() - after.keys())
        present += after.keys() - before.keys()
    return removed, present

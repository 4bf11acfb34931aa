"""The search documents as a source of resources one provider at a time (a Practitioner, a
provider Organization, an OrganizationAffiliation: a page is a page of hits), and a provider's
resources read by their id (the document its NPI or key names)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from core.npi import is_provider_key
from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.hits import Hit, hit_of
from service.fhir.render.includes import brought_along
from service.fhir.render.resources import ProviderResources
from service.fhir.search.paging import decode_cursor, encode_cursor
from service.fhir.search.query import build_query
from service.fhir.sources import store
from service.fhir.sources.source import Reading
from service.search_kit import store as search_index
from service.search_kit.geo import sorted_miles


def role_networks(search: Search, networks: Sequence[str]) -> list[str]:
    """The networks a role search gives roles in: those every ``network`` clause names."""
    return [key for key in networks if all(key in keys for keys in search.network_keys)]


def _same(resource_id: str) -> str | None:
    return resource_id


@dataclass(frozen=True)
class ProviderDocuments:
    """``resources``: what a hit gives; ``key_of_id``: the provider key a resource's id names;
    ``asked_networks_only``: a resource per network, only the asked networks' (a role)."""

    resources: ProviderResources
    key_of_id: Callable[[str], str | None] = _same
    asked_networks_only: bool = False

    async def page(self, reading: Reading, search: Search) -> Page:
        return (await self.page_of_hits(reading, search))[0]

    async def page_of_hits(self, reading: Reading, search: Search) -> tuple[Page, int]:
        """The page, and how many hits the search index gave for it (one past the page's)."""
        after, _, _ = decode_cursor(search.cursor)
        body = build_query(search, search.count + 1, after, reading.today)
        response = await search_index.search(reading.es, reading.names, body)
        hits = response["hits"]["hits"]
        page = Page(total=int(response["hits"]["total"]["value"]))
        for raw in hits[: search.count]:
            self.add_match(page, search, hit_of(raw, reading.today), reading.plan_index)
            if search.near is not None:  # sorted nearest first: the first sort value's distance
                page.miles[(search.kind, page.matches[-1]["id"])] = sorted_miles(raw["sort"][0])
        if len(hits) > search.count > 0:
            page.next_cursor = encode_cursor(hits[search.count - 1]["sort"])
        return page, len(hits)

    def add_match(
        self, page: Page, search: Search, hit: Hit, plans: Mapping[str, Resource] | None
    ) -> None:
        """A hit's resources as matches, and what they bring along (``plans``: the payers and
        networks by reference, when read)."""
        if self.asked_networks_only:
            hit = replace(hit, networks=role_networks(search, hit.networks))
        page.matches += self.resources.of(hit)
        page.included += brought_along(
            search, hit.provider, hit.locations, hit.locations, hit.networks, plans
        )

    async def read(self, reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
        key = self.key_of_id(resource_id)
        key = key if key and is_provider_key(key) else None
        found = await store.providers(reading.es, reading.names, [key]) if key else []
        hit = hit_of(found[0], reading.today) if found else None
        if hit is None or not self.resources.serves(hit):
            return None
        return next((r for r in self.resources.of(hit) if r["id"] == resource_id), None)

    async def count(self, reading: Reading, search: Search) -> int:
        body = build_query(search, 0, None, reading.today)
        counted = await search_index.search(reading.es, reading.names, body)
        return int(counted["hits"]["total"]["value"])

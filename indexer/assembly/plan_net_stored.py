"""What a provider's lookup document keeps of each Plan-Net directory that lists it (its
overlay), so an update of either source rebuilds the provider without the other's file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from indexer.assembly.plan_net import Overlay
from indexer.sources.plan_net_providers import PlanNetProvider
from indexer.sources.plan_net_records import Hours, Person, Site


def _site_fields(site: Site) -> dict[str, Any]:
    # As dataclasses.asdict gives them (orjson sorts the keys), without its deep copy per value.
    return {**vars(site), "hours": [vars(hours) for hours in site.hours]}


def _stored(overlay: Overlay) -> dict[str, Any]:
    listed = overlay.provider
    return {
        "person": vars(listed.person),  # plain values only
        "sites": {ref: _site_fields(site) for ref, site in listed.sites.items()},
        "newPatients": listed.new_patients,
        "taxonomies": listed.taxonomies,
    }


def stored_overlays(overlays: Sequence[Overlay]) -> str:
    """What each directory said of the provider, by source (its memberships live in the
    coverage index)."""
    return orjson.dumps(
        {o.source: _stored(o) for o in overlays}, option=orjson.OPT_SORT_KEYS
    ).decode()


def _site(fields: dict[str, Any]) -> Site:
    hours = tuple(
        Hours(tuple(h["days"]), h["all_day"], h["opens"], h["closes"]) for h in fields["hours"]
    )
    return Site(
        **{
            **fields,
            "phones": tuple(fields["phones"]),
            "faxes": tuple(fields["faxes"]),
            "hours": hours,
        }
    )


def _overlay(source: str, fields: dict[str, Any]) -> Overlay:
    person = fields["person"]
    listed = PlanNetProvider(
        Person(
            **{
                **person,
                "languages": tuple(person["languages"]),
                "taxonomies": tuple((code, name) for code, name in person["taxonomies"]),
            }
        ),
        {ref: _site(site) for ref, site in fields["sites"].items()},
        dict(fields["newPatients"]),
        [(code, display) for code, display in fields["taxonomies"]],
    )
    return Overlay(source, listed, {})  # no links: the rows it gave are in the coverage index


def overlays_of(text: str | None) -> dict[str, Overlay]:
    """The overlays ``stored_overlays`` kept, by source."""
    if not text:
        return {}
    return {source: _overlay(source, fields) for source, fields in orjson.loads(text).items()}

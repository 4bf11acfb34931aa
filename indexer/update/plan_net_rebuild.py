"""A provider's documents as a newer export of a payer's Plan-Net directory makes them (pure):
rebuilt from what was there before any directory added to it (kept in its lookup document) with
every directory's overlay, the newer one for this directory. The one rule ``update --plan-net``
writes by and ``audit`` scores by, so an audit says what the update would serve.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any, cast

import orjson

from core.confidence import Ages, score_all, unscored
from core.documents import CoverageDoc, Json, Location, Provider
from core.lookup_answers import stored_flags, stored_locations, stored_provider
from indexer.assembly import plan_net, plan_net_stored
from indexer.assembly.documents import (
    ProviderDocuments,
    listed_documents,
    overlaid,
    search_document,
    stored_base,
)
from indexer.assembly.plan_net import Overlay, PlanLink
from indexer.sources.nucc import TaxonomyEntry
from indexer.sources.plan_net import PlanNetDirectory
from indexer.update import indexed as current

Doc = Json


def _base(lookup: Doc) -> tuple[Provider, list[Location], list[str]] | None:
    """The provider before any directory added to it; None when directories alone list it."""
    if "planNet" not in lookup:
        locations = unscored(stored_locations(cast(Any, lookup)))
        return stored_provider(cast(Any, lookup)), locations, []
    if lookup.get("base") is None:
        return None
    fields = orjson.loads(lookup["base"])
    return fields["provider"], fields["locations"], fields["otherNames"]


def _deactivated(lookup: Doc | None) -> bool:
    """Whether NPPES had deactivated the NPI of a provider only directories list, as its
    documents said (the NPPES file, and its weekly updates, decide it)."""
    return lookup is not None and "npi_deactivated" in stored_flags(cast(Any, lookup))


def _stored_base(lookup: Doc | None) -> str | None:
    """The base of a provider NPPES lists, as the lookup document keeps it under an overlay."""
    if lookup is None:
        return None
    if "planNet" in lookup:
        return cast(str | None, lookup.get("base"))
    provider = stored_provider(cast(Any, lookup))
    return stored_base(provider, unscored(stored_locations(cast(Any, lookup))), [])


class Rebuilder:
    """The documents of the providers ``directory`` lists or listed, scored on ``day``."""

    def __init__(
        self, directory: PlanNetDirectory, nucc: Mapping[str, TaxonomyEntry], day: date
    ) -> None:
        self.directory = directory
        self.source = directory.source
        self.links: dict[str, list[PlanLink]] = plan_net.plan_links(directory)
        self._nucc = nucc
        self._ages = Ages.on(day)

    def _overlays(self, lookup: Doc | None, npi: str) -> list[Overlay]:
        kept = plan_net_stored.overlays_of(lookup.get("planNet") if lookup else None)
        kept.pop(self.source, None)
        listed = self.directory.providers.get(npi)
        if listed is not None:
            kept[self.source] = Overlay(self.source, listed, self.links)
        return list(kept.values())

    def rebuild(
        self, npi: str, lookup: Doc | None, rows: Mapping[str, CoverageDoc]
    ) -> tuple[ProviderDocuments | None, bool]:
        """The provider's documents now (None: nobody lists it any more), and whether the
        NPPES file lists it. ``lookup``: its lookup document, ``rows``: its coverage rows."""
        overlays = self._overlays(lookup, npi)
        base = _base(lookup) if lookup else None
        networks = current.networks(r for r in rows.values() if r["source"] != self.source)
        if base is not None:
            provider, locations, other_names = base
            if not overlays:
                score_all(provider, locations, self._ages)
                search = search_document(provider, locations, tuple(other_names), networks)
                return ProviderDocuments(provider, locations, search), True
            stored = _stored_base(lookup)
            docs = overlaid(
                provider, locations, other_names, networks, overlays, stored, self._ages
            )
            return docs, True
        if not overlays:
            return None, False
        # Its record is what this directory says of it, else what another says.
        first = next((o for o in overlays if o.source == self.source), overlays[0])
        ordered = [first, *(o for o in overlays if o is not first)]
        deactivated = _deactivated(lookup)
        return listed_documents(ordered, self._nucc, networks, self._ages, deactivated), False

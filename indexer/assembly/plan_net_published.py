"""What a payer's Plan-Net export publishes besides providers and plans (its HealthcareServices
and Endpoints) -> the documents the FHIR API serves them from (core.documents.PublishedDoc).

The resources are kept as the payer wrote them, with their ids made the directory's own
(``<directory>-<id>``, so two payers' ids never meet) and their references rewritten to what the
directory serves: an organisation with an NPI is ``Organization/<npi>``, a published resource
its new id. What the directory does not serve as a resource of that id (a payer's own
organisations, a site, which became a location of each provider practising there) is kept as a
reference by display only. ``terms`` say what each search parameter of the type matches,
chains included (``location.address-city``: the site's city), in core.fhir_terms' forms.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from core.documents import Address
from core.fhir_terms import address_terms, city_terms, fhir_id, postal_terms, state_terms, term
from core.plan_net_codes import profile
from core.published_documents import PublishedDoc
from core.text import normalize
from indexer.sources.plan_net import PlanNetDirectory
from indexer.sources.plan_net_records import Site
from indexer.sources.plan_net_resources import updated_day

PUBLISHED_TYPES = ("HealthcareService", "Endpoint")


def published_id(directory: str, resource_id: str) -> str:
    return fhir_id(f"{directory}-{resource_id}")


def _site_address(site: Site) -> Address:
    return {
        "line1": site.line1, "line2": site.line2, "city": site.city, "state": site.state,
        "zip": site.zip, "county": None, "lat": site.lat, "lng": site.lng,
    }  # fmt: skip


def _site_text(site: Site) -> str:
    street = ", ".join(p for p in (site.line1, site.line2) if p)
    return f"{site.name + ', ' if site.name else ''}{street}, {site.city}, {site.state} {site.zip}"


class _Rewriter:
    def __init__(self, directory: PlanNetDirectory) -> None:
        self.directory = directory
        # Services and endpoints name the same organisations and sites over and over: each
        # reference is worked out once (the directory is read whole, nothing changes it now).
        self.reference = lru_cache(maxsize=32_768)(self._reference)

    def _reference(self, ref: str) -> dict[str, str] | str:
        """The reference as the directory serves it: a new reference, or the display only."""
        kind, _, target = ref.partition("/")
        directory = self.directory
        if kind in PUBLISHED_TYPES:
            return f"{kind}/{published_id(directory.name, target)}"
        if kind == "Organization":
            org = directory.organizations.get(ref)
            if org is not None and org.person is not None:
                return f"Organization/{org.person.npi}"
            return {"display": (org.name if org else None) or target}
        site = directory.sites.get(ref) if kind == "Location" else None
        if site is not None:
            return {"display": _site_text(site)}
        return {"display": target}

    def rewrite(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.rewrite(item) for item in value]
        if not isinstance(value, dict):
            return value
        found = {key: self.rewrite(item) for key, item in value.items()}
        ref = value.get("reference")
        if isinstance(ref, str):
            served = self.reference(ref)
            if isinstance(served, str):
                found["reference"] = served
            else:
                del found["reference"]
                found.setdefault("display", served["display"])
        return found


def _codes(param: str, concepts: Iterable[Any]) -> list[str]:
    found = []
    for concept in concepts:
        codings = concept.get("coding", []) if isinstance(concept, dict) else []
        for coding in codings:
            if isinstance(coding, dict) and coding.get("code"):
                found.append(term(param, f"{coding.get('system', '')}|{coding['code']}"))
                found.append(term(param, str(coding["code"])))
    return found


def _identifiers(body: dict[str, Any]) -> list[str]:
    """``identifier`` as FHIR token search reads it: ``system|value`` (``|value`` without a
    system) and the value alone."""
    found = []
    for identifier in _list(body, "identifier"):
        value = identifier.get("value") if isinstance(identifier, dict) else None
        if isinstance(value, str) and value:
            found.append(term("identifier", f"{identifier.get('system', '')}|{value}"))
            found.append(term("identifier", value))
    return found


def _list(body: dict[str, Any], key: str) -> list[Any]:
    value = body.get(key)
    return value if isinstance(value, list) else []


def _organization_terms(body: dict[str, Any], key: str, rewriter: _Rewriter) -> list[str]:
    found: list[str] = []
    reference = body.get(key)
    ref = reference.get("reference") if isinstance(reference, dict) else None
    if not isinstance(ref, str):
        return found
    served = rewriter.reference(ref)
    if isinstance(served, str):
        found.append(term("organization", served))
    org = rewriter.directory.organizations.get(ref)
    if org is not None and org.name:
        found.append(term("organization.name", normalize(org.name)))
    return found


def _site_terms(body: dict[str, Any], sites: Mapping[str, Site]) -> list[str]:
    found: list[str] = []
    for reference in _list(body, "location"):
        site = sites.get(reference.get("reference", "")) if isinstance(reference, dict) else None
        if site is None:
            continue
        address = _site_address(site)
        for param, values in (
            ("location.address", address_terms(address)),
            ("location.address-city", city_terms(address)),
            ("location.address-state", state_terms(address)),
            ("location.address-postalcode", postal_terms(address["zip"])),
        ):
            found += [term(param, value) for value in values]
    return found


def _terms(kind: str, body: dict[str, Any], rewriter: _Rewriter) -> list[str]:
    found = [term("_id", published_id(rewriter.directory.name, str(body["id"])))]
    found += _identifiers(body)
    if kind == "Endpoint":
        return found + _organization_terms(body, "managingOrganization", rewriter)
    if body.get("name"):
        found.append(term("name", normalize(str(body["name"]))))
    found += _codes("service-category", _list(body, "category"))
    found += _codes("service-type", _list(body, "type"))
    found += _codes("specialty", _list(body, "specialty"))
    found += _organization_terms(body, "providedBy", rewriter)
    found += _site_terms(body, rewriter.directory.sites)
    for endpoint in _list(body, "endpoint"):
        ref = endpoint.get("reference") if isinstance(endpoint, dict) else None
        if isinstance(ref, str):
            found.append(term("endpoint", str(rewriter.reference(ref))))
    return list(dict.fromkeys(found))


def published_documents(directory: PlanNetDirectory) -> Iterator[tuple[str, PublishedDoc]]:
    """Each published resource's document and its ``_id``, one at a time."""
    rewriter = _Rewriter(directory)
    for body in directory.published.values():
        kind = str(body["resourceType"])
        updated = updated_day(body)
        meta = {
            **({"lastUpdated": f"{updated}T00:00:00Z"} if updated else {}),
            "profile": [profile(kind)],
        }
        given = {k: v for k, v in body.items() if k not in ("resourceType", "id", "meta", "text")}
        resource = {
            "resourceType": kind,
            "id": published_id(directory.name, str(body["id"])),
            "meta": meta,
            **rewriter.rewrite(given),
        }
        document: PublishedDoc = {
            "resourceType": kind,
            "id": resource["id"],
            "source": directory.source,
            "terms": _terms(kind, body, rewriter),
            "resource": resource,
        }
        yield f"{kind}/{resource['id']}", document

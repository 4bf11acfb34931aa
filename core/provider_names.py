"""A provider's name as people write it: the one rule for the search index's name field and the
FHIR API's displays (pure)."""

from __future__ import annotations

from core.documents import Provider


def provider_name(provider: Provider, *, titles: bool = True) -> str:
    """An organisation's legal name, else the name it does business as; a person's given, middle
    and family names, with the prefix and suffix when ``titles`` ("Dr. Ann B Lee, MD"). Empty
    when the record names nobody."""
    if provider["entityType"] == "organization":
        return provider["organizationName"] or provider["doingBusinessAs"] or ""
    given = (provider["firstName"], provider["middleName"], provider["lastName"])
    if not titles:
        return " ".join(p for p in given if p)
    person = " ".join(p for p in (provider["prefix"], *given) if p)
    return f"{person}, {provider['suffix']}" if provider["suffix"] else person

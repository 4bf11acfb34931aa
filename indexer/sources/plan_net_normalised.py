"""What the import changes in a payer's Plan-Net resource before the directory uses or serves it,
each kind named for the load and update reports (PlanNetDirectory.normalised).

- ``identifier_value_as_number``: an ``identifier.value`` published as a JSON number (anywhere in
  the resource) is read and served as its string: FHIR's ``value`` is a string.
- ``missing_last_updated``: a resource without ``meta.lastUpdated`` is served with the time the
  directory last saw it change (service.fhir.render.elements), not with none.
- ``specialty_not_in_value_set``: a HealthcareService's ``specialty`` coding of a NUCC code that
  Plan-Net's required binding (SpecialtiesVS) lacks is left out, as served and as searched; a
  specialty left without codings is left out whole.

What the import does not pass on is not a normalisation: ``InsurancePlan.type`` is not read (the
served type is the directory's own, service.fhir.render.plans), so a code Plan-Net 1.1.0 lacks there
(``InsuranceProductTypeCS#medicare``) never reaches ``/fhir``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from core.plan_net_codes import NUCC_SYSTEM, any_specialty

IDENTIFIER_AS_NUMBER = "identifier_value_as_number"
MISSING_LAST_UPDATED = "missing_last_updated"
SPECIALTY_NOT_IN_VALUE_SET = "specialty_not_in_value_set"
# A "value" that is a JSON number, somewhere in a resource (orjson writes no spaces): nearly
# no resource has one, and this one C-speed search spares them the walk that rebuilds it.
_NUMERIC_VALUE = re.compile(rb'"value":-?[0-9]')


def _string_identifiers(value: Any, changed: list[bool], identifier: bool = False) -> Any:
    """``value`` with every identifier's numeric ``value`` as a string; ``identifier``: value is
    an Identifier (an item of an ``identifier`` element)."""
    if isinstance(value, list):
        return [_string_identifiers(item, changed, identifier) for item in value]
    if not isinstance(value, dict):
        return value
    found = {
        key: _string_identifiers(item, changed, key == "identifier") for key, item in value.items()
    }
    number = found.get("value")
    if identifier and isinstance(number, int | float) and not isinstance(number, bool):
        found["value"] = str(number)
        changed.append(True)
    return found


def _allowed(coding: Any) -> bool:
    if not isinstance(coding, dict) or coding.get("system") != NUCC_SYSTEM:
        return True  # not a NUCC code: left as published
    return any_specialty(str(coding.get("code")))


def _bound_specialties(service: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """A HealthcareService without the specialty codings its required binding refuses."""
    concepts = service.get("specialty")
    if not isinstance(concepts, list):
        return service, False
    kept: list[Any] = []
    dropped = False
    for concept in concepts:
        codings = concept.get("coding") if isinstance(concept, dict) else None
        if not isinstance(codings, list):
            kept.append(concept)
            continue
        allowed = [coding for coding in codings if _allowed(coding)]
        dropped |= len(allowed) < len(codings)
        if allowed:
            kept.append({**concept, "coding": allowed})
    if not dropped:
        return service, False
    rest = {key: value for key, value in service.items() if key != "specialty"}
    return ({**rest, "specialty": kept} if kept else rest), True


def normalised(body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The resource as the directory reads it, and the kinds of change made to it (each once)."""
    changed: list[bool] = []
    result = body
    if _NUMERIC_VALUE.search(orjson.dumps(body)):
        result = _string_identifiers(body, changed)
    kinds = [IDENTIFIER_AS_NUMBER] if changed else []
    if result.get("resourceType") == "HealthcareService":
        result, refused = _bound_specialties(result)
        kinds += [SPECIALTY_NOT_IN_VALUE_SET] if refused else []
    meta = body.get("meta")
    if not (isinstance(meta, dict) and meta.get("lastUpdated")):
        kinds.append(MISSING_LAST_UPDATED)
    return result, kinds

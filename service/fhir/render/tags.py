"""What the directory says against a listing, as FHIR ``meta.tag``s (pure; DESIGN 5.9): the
provider's data-quality notes on every resource rendered from it, and a practice Location's
confidence, its score and its reasons. The codes and their meanings are core.quality's; the
three code systems are defined here, once. The Plan-Net profiles leave ``meta.tag`` open (its
binding is an example), so every resource stays valid against its profile.

- ``urn:provider-directory:data-quality``: a code of core.quality.QUALITY_CODES per note of the
  provider's ``dataQuality`` (what a payer published wrong, a ghost signal), on each of its
  Practitioner, PractitionerRole, Organization, OrganizationAffiliation and Location;
- ``urn:provider-directory:confidence``: a Location's score, ``1`` to ``5``;
- ``urn:provider-directory:confidence-reason``: a code of core.quality.REASONS per reason its
  score gives (a provider's signal among them where a source that lists the address raised it).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.confidence import SCORES
from core.documents import Confidence, Provider
from core.quality import MEANINGS

DATA_QUALITY_SYSTEM = "urn:provider-directory:data-quality"
CONFIDENCE_SYSTEM = "urn:provider-directory:confidence"
CONFIDENCE_REASON_SYSTEM = "urn:provider-directory:confidence-reason"


def _coded(system: str, codes: Iterable[str]) -> list[dict[str, str]]:
    """A tag per code, each once, in the order first given."""
    return [
        {"system": system, "code": code, "display": MEANINGS[code]} for code in dict.fromkeys(codes)
    ]


def quality_tags(provider: Provider) -> list[dict[str, str]]:
    """The provider's data-quality notes (two sources saying the same code: one tag)."""
    return _coded(DATA_QUALITY_SYSTEM, (note["code"] for note in provider.get("dataQuality", ())))


def confidence_tags(confidence: Confidence) -> list[dict[str, str]]:
    """A location's score, then a tag per reason in the order the rule gives them."""
    score = str(confidence["score"])
    shown = f"Confidence {score} of {SCORES[-1]}"
    return [
        {"system": CONFIDENCE_SYSTEM, "code": score, "display": shown},
        *_coded(CONFIDENCE_REASON_SYSTEM, confidence["reasons"]),
    ]

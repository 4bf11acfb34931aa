"""How far to believe a listed location: the one rule (README "Trust", a table of it), applied
when the indexer writes a location (a load, every update), so a search costs nothing more.

A location's score starts from how many independent sources list an equivalent address
(core.addresses): one source 3, two or more 4, and 5 when they agree and the newest of them is
recent. Each reason below then lowers it by its penalty, to no less than 1. NPPES alone is one
source, not a signal against it: a provider only NPPES lists scores 3 while its record is not
stale.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from core.addresses import is_po_box
from core.documents import Confidence, Evidence, Location, Provider
from core.quality import Reason

SCORES = range(1, 6)
RECENT_DAYS = 365  # 5 needs agreeing sources, the newest of them this recent
STALE_DAYS = 1826  # five years: longer than Medicare's revalidation cycle, with no update at all
PAYER_PREFIX = "plan-net:"  # a payer's directory (core.documents.SOURCES_DESCRIPTION)
NPPES = "nppes"

# What each reason takes off. Reasons worth 0 explain the score without lowering it.
PENALTIES: Mapping[Reason, int] = {
    "confirmed": 0,
    "single_source": 0,
    "zip_only_geocode": 0,
    "not_geocoded": 0,
    "address_unconfirmed": 1,
    "stale": 1,
    "no_phone": 1,
    "po_box": 2,
    "npi_check_digit_invalid": 1,
    "npi_malformed": 1,
    "npi_missing": 1,
    "npi_not_in_nppes": 1,
    "name_differs_from_nppes": 1,
    "many_locations": 1,
    "npi_deactivated": 4,  # likely wrong whatever else agrees: 1
}
# Carried from assembly to the score: a payer listed the address without a phone.
LISTED_WITHOUT_PHONE: Reason = "no_phone"


@dataclass(frozen=True, slots=True)
class Ages:
    """The day a score is made for, and the ISO dates its evidence compares with."""

    day: str
    recent_from: str
    stale_before: str

    @classmethod
    def on(cls, day: date) -> Ages:
        return cls(
            day.isoformat(),
            (day - timedelta(days=RECENT_DAYS)).isoformat(),
            (day - timedelta(days=STALE_DAYS)).isoformat(),
        )


def evidence_of(source: str, as_of: str | None) -> Confidence:
    """A location's confidence as its first source lists it (scored by ``rescored``)."""
    return {"score": 3, "evidence": [{"source": source, "asOf": as_of}], "reasons": []}


def add_evidence(location: Location, source: str, as_of: str | None) -> None:
    """Another source lists the address (its first date kept when it lists it twice)."""
    known = location["confidence"]
    if all(item["source"] != source for item in known["evidence"]):
        evidence: Evidence = {"source": source, "asOf": as_of}
        location["confidence"] = {**known, "evidence": [*known["evidence"], evidence]}


def unscored(locations: list[Location]) -> list[Location]:
    """Stored locations as assembly first makes them: their evidence kept, their reasons (made
    by a score, or carried from a listing) dropped, so adding sources to them and scoring again
    gives what a load gives."""
    return [
        {**location, "confidence": {**location["confidence"], "reasons": []}}
        for location in locations
    ]


def mark(location: Location, reason: Reason) -> None:
    known = location["confidence"]
    if reason not in known["reasons"]:
        location["confidence"] = {**known, "reasons": [*known["reasons"], reason]}


# (start, first reason, stale, no phone, precision, PO box) -> (score, reasons): the few
# combinations there are, each worked out once (a load scores millions of locations).
_Facts = tuple[int, Reason, bool, bool, str | None, bool]
_RULED: dict[_Facts, tuple[int, tuple[Reason, ...]]] = {}


def _ruled(facts: _Facts) -> tuple[int, tuple[Reason, ...]]:
    ruled = _RULED.get(facts)
    if ruled is None:
        ruled = _RULED[facts] = _rule(facts)
    return ruled


def _rule(facts: _Facts) -> tuple[int, tuple[Reason, ...]]:
    base, first, stale, no_phone, precision, po_box = facts
    reasons: list[Reason] = [first]
    if stale:
        reasons.append("stale")
    if no_phone:
        reasons.append("no_phone")
    if precision != "exact":
        reasons.append("zip_only_geocode" if precision == "zip5" else "not_geocoded")
    if po_box:
        reasons.append("po_box")
    return max(1, min(5, base - sum(PENALTIES[reason] for reason in reasons))), tuple(reasons)


def rescored(location: Location, signals: Sequence[tuple[str, Reason]], ages: Ages) -> Confidence:
    """The location's confidence by the rule: its evidence, its own reasons and the provider's
    ``signals`` (source, code) of the sources that list it."""
    known = location["confidence"]
    return _scored(known["evidence"], known["reasons"], location, signals, ages)


def nppes_alone(location: Location, as_of: str | None) -> Confidence:
    """What the rule gives the location when NPPES alone lists it, as of ``as_of`` (the
    provider's last update), and neither its age nor a signal lowers it: most locations, whose
    confidence a search document's source leaves out (core.search_fields.locations_source)."""
    score, reasons = _ruled(_facts(*_NPPES_START, False, (), location))
    evidence: list[Evidence] = [{"source": NPPES, "asOf": as_of}]
    return {"score": score, "evidence": evidence, "reasons": list(reasons)}


# The reasons the rule gives a location NPPES alone lists from the location's own facts.
_OWN_REASONS = frozenset(
    ("single_source", "no_phone", "zip_only_geocode", "not_geocoded", "po_box")
)


def is_nppes_alone(confidence: Confidence, location: Location, as_of: str | None) -> bool:
    """Whether ``confidence``, which the rule gave ``location``, is what ``nppes_alone`` gives
    it: NPPES alone lists it as of ``as_of``, and neither its age, a listing without a phone nor
    a signal lowered it. Told from its reasons, without scoring again: this runs for every
    location a load writes."""
    evidence = confidence["evidence"]
    if len(evidence) != 1 or evidence[0]["source"] != NPPES or evidence[0]["asOf"] != as_of:
        return False
    reasons = confidence["reasons"]
    no_phone = not location["phoneNumbers"]
    return _OWN_REASONS.issuperset(reasons) and ("no_phone" in reasons) == no_phone


def _one_source(source: str) -> tuple[int, Reason]:
    """The start of an address one source lists: a payer's alone is unconfirmed."""
    return 3, "address_unconfirmed" if source.startswith(PAYER_PREFIX) else "single_source"


_NPPES_START = _one_source(NPPES)


def _facts(
    base: int, first: Reason, stale: bool, carried: Collection[Reason], location: Location
) -> _Facts:
    return (
        base,
        first,
        stale,
        not location["phoneNumbers"] or LISTED_WITHOUT_PHONE in carried,
        location["geocodePrecision"],
        is_po_box(location["address"]["line1"]),
    )


def _scored(
    evidence: list[Evidence],
    carried: Collection[Reason],
    location: Location,
    signals: Sequence[tuple[str, Reason]],
    ages: Ages,
) -> Confidence:
    if len(evidence) == 1:  # most locations: no set, no max
        only = evidence[0]
        sources: Collection[str] = (only["source"],)
        newest = only["asOf"]
        base, first = _NPPES_START if only["source"] == NPPES else _one_source(only["source"])
    else:
        sources = {item["source"] for item in evidence}
        newest = max((item["asOf"] for item in evidence if item["asOf"]), default=None)
        if len(sources) > 1:
            recent = newest is not None and newest >= ages.recent_from
            base, first = (5 if recent else 4), "confirmed"
        else:
            base, first = _one_source(next(iter(sources)))
    stale = newest is not None and newest < ages.stale_before
    score, reasons = _ruled(_facts(base, first, stale, carried, location))
    if signals:
        raised = [code for source, code in signals if source in sources and code not in reasons]
        if raised:
            raised = list(dict.fromkeys(raised))
            score = max(1, score - sum(PENALTIES[code] for code in raised))
            return {"score": score, "evidence": evidence, "reasons": [*reasons, *raised]}
    return {"score": score, "evidence": evidence, "reasons": list(reasons)}


def signals_of(provider: Provider) -> list[tuple[str, Reason]]:
    """The provider's notes as (the source that published it, its code)."""
    return [(note["source"], note["code"]) for note in provider.get("dataQuality", ())]


def score_all(provider: Provider, locations: list[Location], ages: Ages) -> None:
    """Every location of the provider scored, in place."""
    signals = signals_of(provider) if "dataQuality" in provider else ()
    for location in locations:
        location["confidence"] = rescored(location, signals, ages)

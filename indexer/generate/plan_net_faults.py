"""Fault injection for ``provider-indexer generate-plan-net --faults SPEC``: known defects
published at given rates, and the truth file that lists every defect published, so tests and
benches can measure how well the directory's trust signals find them (precision and recall).

The fault kinds ARE the signal codes of core.quality. Each active individual (entity type 1)
gets at most one of the four practitioner faults, picked by one seeded draw (one per
practitioner keeps the truth simple; their rates add up to 1 at most):

- ``npi_deactivated``: its Practitioner and role are published under an NPI the file
  deactivated (and did not reactivate), the oldest of a bounded queue of those read so far (the
  file is in NPI order); its own NPI is not listed. None queued: no fault.
- ``name_differs_from_nppes``: published under another recent individual's first AND last
  names, both different from its own (never a nickname or a dropped middle name).
- ``address_unconfirmed``: its role lists, instead of its practice address, a new Location at
  another recent record's address (another street, another ZIP).
- ``many_locations``: its role lists its own Location and MANY_LOCATIONS + 3 to + 8 new ones,
  at distinct recent addresses.

``no_phone`` is drawn per shared practice-address Location: published without ``telecom``.

The truth file (JSON): ``seed``, ``rates`` (every kind), ``faults``, then ``counts`` and
``injected`` (entries per code). Every entry has ``code`` and ``injected`` (false: a defect
the file has anyway, a Location with no phone because NPPES gives none). ``npi`` is the NPI as
published; ``published`` and ``nppes`` the values that differ (the NPIs, the names, the moved
address); ``location`` (address_unconfirmed, no_phone) or ``locations`` (many_locations) the
Location references; a no_phone entry's ``npis`` are the providers whose resources list it (a
practitioner's role, an organisation's affiliation: where a directory lists a provider).
Memory: bounded queues (RECENT names and addresses, QUEUED_DEACTIVATED NPIs), and the ids of
phone-less Locations with those NPIs until the truth is written (a few per cent of the rows).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, TypeVar

import orjson

from core.geo import zip5
from core.quality import MANY_LOCATIONS, GhostSignal, LocationReason
from indexer.assembly.locations import format_zip, match_key
from indexer.generate.plan_net_resources import Draws, Resource
from indexer.sources.nppes import NppesRecord

FaultCode = GhostSignal | LocationReason
PRACTITIONER_FAULTS: tuple[FaultCode, ...] = (
    "npi_deactivated", "name_differs_from_nppes", "address_unconfirmed", "many_locations",
)  # fmt: skip
LOCATION_FAULTS: tuple[FaultCode, ...] = ("no_phone",)
FAULT_CODES = (*PRACTITIONER_FAULTS, *LOCATION_FAULTS)
DEFAULT_RATES: Mapping[str, float] = {
    "npi_deactivated": 0.01, "name_differs_from_nppes": 0.02, "address_unconfirmed": 0.02,
    "many_locations": 0.005, "no_phone": 0.02,
}  # fmt: skip
RECENT = 64  # the names and addresses of the latest records, which a fault borrows
QUEUED_DEACTIVATED = 256
_DRAW_RANGE = 1 << 16  # a Draws value is 16 bits
_KIND_SLOT, _PICK_SLOT, _COUNT_SLOT = 0, 1, 2
_T = TypeVar("_T")
# (record at the address, Location id, lastUpdated) -> the new Location's reference
NewLocation = Callable[[NppesRecord, str, str], Resource]


def parse_fault_rates(spec: str) -> dict[str, float]:
    """``--faults``'s SPEC: ``default`` (DEFAULT_RATES), or KIND=RATE pairs, comma-separated,
    each rate in [0, 1] per eligible record; a kind left out is not injected."""
    if spec.strip() in ("", "default"):
        return dict(DEFAULT_RATES)
    rates: dict[str, float] = dict.fromkeys(FAULT_CODES, 0.0)
    given: set[str] = set()
    for item in spec.split(","):
        code, equals, value = (part.strip() for part in item.partition("="))
        if code not in rates:
            raise ValueError(f"unknown fault kind {code!r} (known: {', '.join(FAULT_CODES)})")
        if not equals or code in given:
            raise ValueError(f"{item.strip()!r}: expected KIND=RATE, each kind once")
        try:
            rate = float(value)
        except ValueError:
            raise ValueError(f"{code}: rate {value!r} is not a number") from None
        if not 0 <= rate <= 1:
            raise ValueError(f"{code}: rate {value} is not in [0, 1]")
        rates[code] = rate
        given.add(code)
    if sum(rates[code] for code in PRACTITIONER_FAULTS) > 1:
        raise ValueError("the practitioner fault rates add up to more than 1 (one fault each)")
    return rates


def default_truth_path(out_dir: Path) -> Path:
    """Beside the export, not in it: a reader takes every .json there for a Bundle."""
    return out_dir.with_name(f"{out_dir.name}.truth.json")


@dataclasses.dataclass(frozen=True, slots=True)
class _Address:
    street: str  # line 1, normalised
    zip5: str
    record: NppesRecord  # the fields an address is written from

    @classmethod
    def of(cls, record: NppesRecord) -> _Address | None:
        code = zip5(record.postal_code) if record.country in ("", "US") else None
        if code is None or not record.line1:
            return None
        return cls(match_key(record.line1, "", "", ""), code, record)

    def given_to(self, record: NppesRecord) -> NppesRecord:
        found = self.record
        return dataclasses.replace(
            record, line1=found.line1, line2=found.line2, city=found.city, state=found.state,
            postal_code=found.postal_code, country=found.country,
        )  # fmt: skip

    def __str__(self) -> str:
        found = self.record
        line = ", ".join(part for part in (found.line1, found.line2, found.city) if part)
        return f"{line}, {found.state} {format_zip(found.postal_code)}"


class PlanNetFaults:
    """The faults of one export and its truth file (None: nothing drawn, nothing recorded)."""

    def __init__(self, rates: Mapping[str, float] | None, seed: int, truth: Path | None) -> None:
        self.rates = dict.fromkeys(FAULT_CODES, 0.0) | dict(rates or {})
        self.truth = truth
        self._seed = seed
        limits = [round(self.rates[code] * _DRAW_RANGE) for code in PRACTITIONER_FAULTS]
        self._limits = [(sum(limits[: n + 1]), code) for n, code in enumerate(PRACTITIONER_FAULTS)]
        self._no_phone_limit = round(self.rates["no_phone"] * _DRAW_RANGE)
        self._deactivated: deque[str] = deque(maxlen=QUEUED_DEACTIVATED)
        self._names: deque[tuple[str, str]] = deque(maxlen=RECENT)
        self._addresses: OrderedDict[tuple[str, str], _Address] = OrderedDict()
        self._no_phone: dict[str, tuple[bool, list[str]]] = {}  # Location ref -> (injected, NPIs)
        self._counts: Counter[str] = Counter()
        self._injected: Counter[str] = Counter()
        self._file: IO[bytes] | None = None

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Writes the truth file as the export is written; complete (renamed) when it is."""
        if self.truth is None:
            yield
            return
        self.truth.parent.mkdir(parents=True, exist_ok=True)
        partial = self.truth.with_name(f"{self.truth.name}.partial")
        with open(partial, "wb") as self._file:
            self._file.write(orjson.dumps({"seed": self._seed, "rates": self.rates})[:-1])
            self._file.write(b',"faults":[')
            yield
            for location, (was_injected, npis) in self._no_phone.items():
                self._record("no_phone", was_injected, location=location, npis=npis)
            counts = {code: self._counts[code] for code in FAULT_CODES}
            tail = {"counts": counts, "injected": self.injected()}
            self._file.write(b"\n]," + orjson.dumps(tail)[1:])
        partial.replace(self.truth)

    def injected(self) -> dict[str, int]:
        """The faults injected so far per code (not the defects the file has anyway)."""
        return {code: self._injected[code] for code in FAULT_CODES}

    def deactivated(self, npi: str) -> None:
        self._deactivated.append(npi)

    def remember(self, record: NppesRecord) -> None:
        """Keeps the record's name and address among the recent ones a fault may borrow."""
        if record.entity_type == "1" and record.first_name and record.last_name:
            self._names.append((record.first_name, record.last_name))
        found = _Address.of(record)
        if found is not None:
            self._addresses[found.street, found.zip5] = found
            self._addresses.move_to_end((found.street, found.zip5))
            if len(self._addresses) > RECENT:
                self._addresses.popitem(last=False)

    def published_location(self, location: Resource, *, shared: bool) -> Resource:
        """The Location as published: without telecom when the draw says so (a shared one)."""
        if self.truth is None:
            return location
        reference = f"Location/{location['id']}"
        if "telecom" not in location:
            self._no_phone[reference] = (False, [])
        elif shared and self._draw(location["id"]).value(_KIND_SLOT) < self._no_phone_limit:
            location = {key: value for key, value in location.items() if key != "telecom"}
            self._no_phone[reference] = (True, [])
        return location

    def practitioner(
        self, record: NppesRecord, where: Resource, updated: str, new_location: NewLocation
    ) -> tuple[NppesRecord, list[Resource]]:
        """The individual as the payer publishes it, and the Locations its role lists (``where``:
        its practice address's)."""
        published, places = record, [where]
        if self.truth is not None:
            draws = self._draw(record.npi)
            drawn = draws.value(_KIND_SLOT)
            code = next((code for limit, code in self._limits if drawn < limit), None)
            if code is not None:
                published, places = self._inject(code, record, draws, where, updated, new_location)
            for place in places:
                if place["reference"] in self._no_phone:
                    self._no_phone[place["reference"]][1].append(published.npi)
        return published, places

    def organization(self, npi: str, where: Resource) -> None:
        """An organisation its affiliation lists at ``where``."""
        if self.truth is not None and where["reference"] in self._no_phone:
            self._no_phone[where["reference"]][1].append(npi)

    def _inject(
        self,
        code: FaultCode,
        record: NppesRecord,
        draws: Draws,
        where: Resource,
        updated: str,
        new_location: NewLocation,
    ) -> tuple[NppesRecord, list[Resource]]:
        npi, pick = record.npi, draws.value(_PICK_SLOT)
        if code == "npi_deactivated" and self._deactivated:
            published = dataclasses.replace(record, npi=self._deactivated.popleft())
            self._record(code, True, npi=published.npi, published=published.npi, nppes=npi)
            return published, [where]
        if code == "name_differs_from_nppes" and (name := self._other_name(record, pick)):
            first, last = name
            published = dataclasses.replace(
                record, first_name=first, last_name=last, middle_name="", other_person_names=()
            )
            nppes = " ".join(
                p for p in (record.first_name, record.middle_name, record.last_name) if p
            )
            self._record(code, True, npi=npi, published=f"{first} {last}", nppes=nppes)
            return published, [where]
        if code == "address_unconfirmed" and (moved := self._other_addresses(record, pick, 1)):
            place = new_location(moved[0].given_to(record), f"location-moved-{npi}", updated)
            own = _Address.of(record)
            self._record(
                code, True, npi=npi, location=place["reference"], published=str(moved[0]),
                nppes=str(own) if own else "",
            )  # fmt: skip
            return record, [place]
        many = MANY_LOCATIONS + 3 + draws.value(_COUNT_SLOT) % 6
        if code == "many_locations" and (found := self._other_addresses(record, pick, many)):
            places = [where] + [
                new_location(other.given_to(record), f"location-many-{npi}-{n}", updated)
                for n, other in enumerate(found, 1)
            ]
            self._record(code, True, npi=npi, locations=[p["reference"] for p in places])
            return record, places
        return record, [where]

    def _other_name(self, record: NppesRecord, pick: int) -> tuple[str, str] | None:
        """A recent individual's first and last names, both unlike the record's (or any other
        name NPPES gives it)."""
        own = (record.first_name.casefold(), record.last_name.casefold())
        others = {name.casefold() for name in record.other_person_names}
        for first, last in _turned(list(self._names), pick):
            if (
                first.casefold() != own[0]
                and last.casefold() != own[1]
                and f"{first} {last}".casefold() not in others
            ):
                return first, last
        return None

    def _other_addresses(self, record: NppesRecord, pick: int, count: int) -> list[_Address]:
        """``count`` distinct recent addresses, none the record's street or ZIP; fewer: none."""
        own = _Address.of(record)
        found = [
            other
            for other in _turned(list(self._addresses.values()), pick)
            if own is None or (other.street != own.street and other.zip5 != own.zip5)
        ]
        return found[:count] if len(found) >= count else []

    def _draw(self, key: str) -> Draws:
        """The fault draws of an NPI or a Location id, apart from those of what is written."""
        return Draws(self._seed, f"fault:{key}")

    def _record(self, code: FaultCode, injected: bool, **fields: object) -> None:
        assert self._file is not None, "faults are recorded inside recording()"
        entry = {"code": code, "injected": injected, **fields}
        self._file.write(b"\n" if not self._counts.total() else b",\n")
        self._file.write(orjson.dumps(entry))
        self._counts[code] += 1
        self._injected[code] += injected


def _turned(items: list[_T], start: int) -> list[_T]:
    """``items`` from position ``start`` (modulo their number) round to the one before it."""
    if not items:
        return []
    start %= len(items)
    return items[start:] + items[:start]

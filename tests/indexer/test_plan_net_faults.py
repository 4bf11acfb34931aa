"""``generate-plan-net --faults``: every defect the truth file lists is in the written export as
it says, read here with plain JSON and the NPPES file with csv (tests.source_rows), never through
the generator; the export without faults is unchanged; it still loads. The trust signals that
find these faults are tested with them, not here."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from fhir.resources.R4B import get_fhir_model_class

from core.quality import MANY_LOCATIONS
from indexer.generate.plan_net import RESOURCE_TYPES, PlanNetStats, generate_plan_net
from tests.conftest import SAMPLE_DIR
from tests.indexer.conftest import REPO
from tests.source_rows import is_active, nppes_rows

Resource = dict[str, Any]
Export = dict[str, list[Resource]]
NPPES = SAMPLE_DIR / "npidata_pfile_sample.csv.gz"
PLANS = SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv"
NUCC = SAMPLE_DIR / "nucc_taxonomy_251.csv"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
LINE1 = "Provider First Line Business Practice Location Address"
POSTAL = "Provider Business Practice Location Address Postal Code"
PHONE = "Provider Business Practice Location Address Telephone Number"
FIRST, LAST = "Provider First Name", "Provider Last Name (Legal Name)"
SEED = 7
RATES = {
    "npi_deactivated": 0.02,
    "name_differs_from_nppes": 0.04,
    "address_unconfirmed": 0.04,
    "many_locations": 0.01,
    "no_phone": 0.03,
}
PRACTITIONER_CODES = ("npi_deactivated", "name_differs_from_nppes", "address_unconfirmed")


def _generate(out: Path, **options: Any) -> PlanNetStats:
    return generate_plan_net(NPPES, out, seed=SEED, plans=PLANS, nucc=NUCC, **options)


def _read(out: Path) -> Export:
    return {
        kind: [orjson.loads(line) for line in (out / f"{kind}.ndjson").read_bytes().splitlines()]
        for kind in RESOURCE_TYPES
    }


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plain") / "payer"
    _generate(out)
    return out


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PlanNetStats]:
    out = tmp_path_factory.mktemp("faulty") / "payer"
    return out, _generate(out, faults=RATES)


@pytest.fixture(scope="module")
def export(faulty: tuple[Path, PlanNetStats]) -> Export:
    return _read(faulty[0])


@pytest.fixture(scope="module")
def truth(faulty: tuple[Path, PlanNetStats]) -> dict[str, Any]:
    out, _ = faulty
    found: dict[str, Any] = orjson.loads(out.with_name("payer.truth.json").read_bytes())
    return found


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, str]]:
    return {row["NPI"]: row for row in nppes_rows(NPPES)}


def _entries(truth: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [entry for entry in truth["faults"] if entry["code"] == code]


def _npi(resource: Resource) -> str:
    [value] = [i["value"] for i in resource["identifier"] if i["system"] == NPI_SYSTEM]
    return str(value)


def _practitioners(export: Export) -> dict[str, Resource]:
    return {_npi(practitioner): practitioner for practitioner in export["Practitioner"]}


def _roles(export: Export) -> dict[str, Resource]:
    """NPI -> its role, through the Practitioner the role references."""
    npis = {f"Practitioner/{p['id']}": _npi(p) for p in export["Practitioner"]}
    return {npis[role["practitioner"]["reference"]]: role for role in export["PractitionerRole"]}


def _locations(export: Export) -> dict[str, Resource]:
    return {f"Location/{location['id']}": location for location in export["Location"]}


def _deactivated(row: dict[str, str]) -> bool:
    """Deactivated, and not reactivated since (tests.source_rows's reading of the dates)."""
    return bool(row["NPI Deactivation Date"]) and not is_active(row)


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^A-Z0-9 ]+", " ", text.upper()).split())


def _street_and_zip(location: Resource) -> tuple[str, str]:
    return _words(location["address"]["line"][0]), location["address"]["postalCode"][:5]


def _nppes_street_and_zip(row: dict[str, str]) -> tuple[str, str]:
    return _words(row[LINE1]), row[POSTAL][:5]


def test_the_truth_file_sits_beside_the_export_and_counts_its_entries(
    faulty: tuple[Path, PlanNetStats], truth: dict[str, Any]
) -> None:
    out, stats = faulty
    assert sorted(path.name for path in out.iterdir()) == sorted(
        f"{kind}.ndjson" for kind in RESOURCE_TYPES
    )  # nothing but the NDJSON in the export: a reader takes any .json there for a Bundle
    assert truth["seed"] == SEED and truth["rates"] == RATES
    codes = Counter(entry["code"] for entry in truth["faults"])
    assert truth["counts"] == {code: codes[code] for code in RATES}
    injected = Counter(entry["code"] for entry in truth["faults"] if entry["injected"])
    assert truth["injected"] == {code: injected[code] for code in RATES}
    assert all(injected[code] > 0 for code in RATES)
    assert stats.truth == out.with_name("payer.truth.json")
    for code in RATES:
        assert f"{injected[code]:,} {code}" in str(stats)


def test_at_most_one_fault_per_practitioner(truth: dict[str, Any]) -> None:
    npis = [e["npi"] for e in truth["faults"] if e["code"] != "no_phone"]
    assert len(npis) == len(set(npis))
    assert all(e["injected"] for e in truth["faults"] if e["code"] != "no_phone")


def test_a_deactivated_npi_is_published_instead_of_the_practitioners_own(
    export: Export, truth: dict[str, Any], rows: dict[str, dict[str, str]]
) -> None:
    practitioners, roles = _practitioners(export), _roles(export)
    entries = _entries(truth, "npi_deactivated")
    assert entries
    for entry in entries:
        published, original = rows[entry["npi"]], rows[entry["nppes"]]
        assert entry["published"] == entry["npi"]
        assert _deactivated(published)
        assert is_active(original) and original["Entity Type Code"] == "1"
        practitioner = practitioners[entry["npi"]]
        assert practitioner["id"] == f"practitioner-{entry['npi']}"
        assert practitioner["name"][0]["family"] == original[LAST]  # the practitioner, renumbered
        assert roles[entry["npi"]]["id"] == f"role-{entry['npi']}"
        assert entry["nppes"] not in practitioners
    deactivated = {npi for npi, row in rows.items() if _deactivated(row)}
    # No deactivated NPI is published but those the truth names.
    organizations = {
        i["value"] for o in export["Organization"] for i in o.get("identifier", [])
        if i["system"] == NPI_SYSTEM
    }  # fmt: skip
    listed = set(practitioners) | organizations
    assert listed & deactivated == {entry["npi"] for entry in entries}


def test_another_persons_name_is_published(
    export: Export, truth: dict[str, Any], rows: dict[str, dict[str, str]]
) -> None:
    practitioners = _practitioners(export)
    people = {(row[FIRST], row[LAST]) for row in rows.values() if row["Entity Type Code"] == "1"}
    entries = _entries(truth, "name_differs_from_nppes")
    assert entries
    for entry in entries:
        row = rows[entry["npi"]]
        [name] = practitioners[entry["npi"]]["name"]
        first, last = name["given"][0], name["family"]
        assert name["given"] == [first]  # no middle name of someone else's
        assert f"{first} {last}" == entry["published"]
        assert first.casefold() != row[FIRST].casefold()
        assert last.casefold() != row[LAST].casefold()
        assert (first, last) in people  # a real person's name, of another row
        assert row[FIRST] in entry["nppes"] and row[LAST] in entry["nppes"]
    named = {npi for npi in practitioners if npi in rows and rows[npi]["Entity Type Code"] == "1"}
    renumbered = {entry["nppes"] for entry in _entries(truth, "npi_deactivated")}
    untouched = named - {entry["npi"] for entry in entries} - renumbered
    for npi in untouched:
        assert practitioners[npi]["name"][0]["family"] == rows[npi][LAST]


def test_a_moved_practitioner_is_listed_at_another_address_only(
    export: Export, truth: dict[str, Any], plain: Path, rows: dict[str, dict[str, str]]
) -> None:
    roles, locations = _roles(export), _locations(export)
    shared = set(_locations(_read(plain)))
    entries = _entries(truth, "address_unconfirmed")
    assert entries
    for entry in entries:
        [where] = roles[entry["npi"]]["location"]
        assert where["reference"] == entry["location"]
        street, zip5 = _street_and_zip(locations[entry["location"]])
        own_street, own_zip5 = _nppes_street_and_zip(rows[entry["npi"]])
        assert street != own_street and zip5 != own_zip5
        assert entry["location"] not in shared  # a Location of its own, not that address's


def test_many_locations_are_distinct_addresses(
    export: Export, truth: dict[str, Any], rows: dict[str, dict[str, str]]
) -> None:
    roles, locations = _roles(export), _locations(export)
    entries = _entries(truth, "many_locations")
    assert entries
    for entry in entries:
        listed = [where["reference"] for where in roles[entry["npi"]]["location"]]
        assert listed == entry["locations"]
        addresses = {_street_and_zip(locations[reference]) for reference in listed}
        assert len(addresses) == len(listed) > MANY_LOCATIONS  # distinct street + ZIP5
        assert _nppes_street_and_zip(rows[entry["npi"]]) in addresses  # its own, and the others
    many = {entry["npi"] for entry in entries}
    others = [role for npi, role in roles.items() if npi not in many]
    assert all(len(role["location"]) == 1 for role in others)


def test_every_location_without_a_phone_is_listed_with_its_providers(
    export: Export, truth: dict[str, Any], plain: Path, rows: dict[str, dict[str, str]]
) -> None:
    locations = _locations(export)
    entries = {entry["location"]: entry for entry in _entries(truth, "no_phone")}
    assert set(entries) == {ref for ref, location in locations.items() if "telecom" not in location}
    using: dict[str, set[str]] = {}
    for npi, role in _roles(export).items():
        for where in role["location"]:
            using.setdefault(where["reference"], set()).add(npi)
    for affiliation in export["OrganizationAffiliation"]:  # an organisation listed there
        npi = affiliation["participatingOrganization"]["reference"].rsplit("-", 1)[-1]
        for where in affiliation["location"]:
            using.setdefault(where["reference"], set()).add(npi)
    before = _locations(_read(plain))
    for reference, entry in entries.items():
        assert set(entry["npis"]) == using.get(reference, set())
        if reference in before:  # a shared practice-address Location: it had a phone unless NPPES
            assert entry["injected"] == ("telecom" in before[reference])
            assert {k: v for k, v in before[reference].items() if k != "telecom"} == (
                locations[reference]
            )  # the phone is all that changed
        else:  # a faulty practitioner's own Location: no phone in its NPPES row
            assert not entry["injected"]
            assert all(not rows[npi][PHONE] for npi in entry["npis"])


def test_counts_follow_the_rates(
    export: Export, truth: dict[str, Any], plain: Path, rows: dict[str, dict[str, str]]
) -> None:
    individuals = sum(
        is_active(row) and row["Entity Type Code"] == "1" for row in rows.values()
    )  # every active individual may take one practitioner fault
    deactivated = sum(_deactivated(row) for row in rows.values())
    shared_locations = len(_read(plain)["Location"])
    injected = truth["injected"]
    for code in (*PRACTITIONER_CODES, "many_locations"):
        expected = RATES[code] * individuals
        assert 0.5 * expected <= injected[code] <= 1.5 * expected, code
    assert injected["npi_deactivated"] <= deactivated  # each published once at most
    expected = RATES["no_phone"] * shared_locations
    assert 0.5 * expected <= injected["no_phone"] <= 1.5 * expected


def test_faulty_resources_are_still_valid_fhir(export: Export, truth: dict[str, Any]) -> None:
    faulty_npis = {e["npi"] for e in truth["faults"] if "npi" in e}
    roles, practitioners, locations = _roles(export), _practitioners(export), _locations(export)
    for npi in faulty_npis:
        get_fhir_model_class("Practitioner").model_validate(practitioners[npi])
        get_fhir_model_class("PractitionerRole").model_validate(roles[npi])
        for where in roles[npi]["location"]:
            get_fhir_model_class("Location").model_validate(locations[where["reference"]])
    written = {f"{kind}/{r['id']}" for kind, found in export.items() for r in found}
    for role in export["PractitionerRole"]:
        assert role["practitioner"]["reference"] in written
        assert {where["reference"] for where in role["location"]} <= written


def test_without_faults_the_export_is_unchanged_and_the_same_seed_repeats(
    tmp_path: Path, plain: Path, faulty: tuple[Path, PlanNetStats]
) -> None:
    zero = tmp_path / "zero"
    stats = _generate(zero, faults=dict.fromkeys(RATES, 0.0))
    again = tmp_path / "again"
    _generate(again, faults=RATES)
    out, _ = faulty
    for kind in RESOURCE_TYPES:
        assert (zero / f"{kind}.ndjson").read_bytes() == (plain / f"{kind}.ndjson").read_bytes()
        assert (again / f"{kind}.ndjson").read_bytes() == (out / f"{kind}.ndjson").read_bytes()
    assert (tmp_path / "again.truth.json").read_bytes() == (
        out.with_name("payer.truth.json").read_bytes()
    )
    nothing = orjson.loads((tmp_path / "zero.truth.json").read_bytes())
    assert not any(entry["injected"] for entry in nothing["faults"])
    assert {entry["code"] for entry in nothing["faults"]} <= {"no_phone"}
    assert stats.faults == dict.fromkeys(RATES, 0)
    assert not plain.with_name("payer.truth.json").exists()  # none asked for, none written


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "indexer.cli", "generate-plan-net", "--nppes", str(NPPES)]
    return subprocess.run([*command, *args], cwd=REPO, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("npi_deactivated=0.01,ghost=0.1", "unknown fault kind 'ghost'"),
        ("no_phone=1.5", "not in [0, 1]"),
        ("no_phone=-0.1", "not in [0, 1]"),
        ("no_phone=lots", "not a number"),
        ("no_phone", "expected KIND=RATE"),
        ("name_differs_from_nppes=0.6,address_unconfirmed=0.6", "add up to more than 1"),
    ],
)
def test_the_command_line_rejects_a_bad_spec(tmp_path: Path, spec: str, reason: str) -> None:
    done = _cli("--out", str(tmp_path / "payer"), "--faults", spec)
    assert done.returncode == 2 and "argument --faults" in done.stderr and reason in done.stderr
    assert not list(tmp_path.iterdir())


async def test_the_command_line_injects_faults_and_writes_the_truth(tmp_path: Path) -> None:
    """A bare ``--faults`` is the default mix (the faulty export's load: tests/conftest.py
    ``faulty_sample``, which every trust test reads)."""
    out = tmp_path / "payer"
    done = await asyncio.to_thread(
        _cli, "--out", str(out), "--faults", "--truth", str(tmp_path / "t.json")
    )
    assert done.returncode == 0, done.stderr
    assert "faults injected: " in done.stdout
    assert orjson.loads((tmp_path / "t.json").read_bytes())["faults"]

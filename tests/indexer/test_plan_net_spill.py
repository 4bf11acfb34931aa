"""Reading a Plan-Net export holds memory flat: what it keeps per resource is on disk
(``indexer.sources.spill``), so a bigger export leaves no more objects in memory."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.generate.plan_net import generate_plan_net
from indexer.sources.plan_net_records import (
    ORG_ROWS,
    PERSON_ROWS,
    SITE_ROWS,
    Hours,
    Org,
    Person,
    Site,
)
from indexer.sources.spill import Spill
from tests.conftest import SAMPLE_DIR

NPPES = SAMPLE_DIR / "npidata_pfile_sample.csv.gz"
PLANS = SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv"
NUCC = SAMPLE_DIR / "nucc_taxonomy_251.csv"


@pytest.mark.parametrize(("ordered", "order"), [(True, ["b", "a", "c"]), (False, ["a", "b", "c"])])
def test_a_spilled_map_answers_as_a_dict_does(ordered: bool, order: list[str]) -> None:
    spill = Spill()
    table = spill.table(list, ordered=ordered)
    expected: dict[str, list[int]] = {}
    for key, value in (("b", [1]), ("a", [2]), ("c", [3]), ("a", [4])):
        table[key] = value
        expected[key] = value
    # Ordered: as a dict (a rewrite keeps its place); otherwise by key.
    assert list(table) == order and set(order) == set(expected)
    assert dict(table.items()) == expected and len(table) == 3
    assert "a" in table and "z" not in table
    assert table.pop("b") == [1] and table.pop("b", None) is None
    with pytest.raises(KeyError):
        table["b"]
    with pytest.raises(KeyError):
        del table["b"]
    read = table["a"]
    read.append(5)  # a copy: the stored value changes only when written back
    assert table["a"] == [4]
    table["a"] = read
    assert table["a"] == [4, 5]


@pytest.mark.parametrize("ordered", [True, False])
def test_keys_can_be_removed_while_iterating(ordered: bool) -> None:
    table = Spill().table(int, ordered=ordered)
    for number in range(2500):  # more than one page of keys
        table[f"k{number}"] = number
    seen = []
    for key in table:
        seen.append(key)
        del table[key]
    assert len(seen) == 2500 and len(table) == 0


def test_rows_appended_under_a_key_come_back_in_order() -> None:
    rows = Spill().rows()
    for key, row in (("b", ("x", None)), ("a", (1, ("y",))), ("b", ("z", 2))):
        rows.append(key, row)
    assert rows.get("b") == [("x", None), ("z", 2)]
    assert rows.get("a") == [(1, ("y",))] and rows.get("c") == []


def test_records_kept_as_rows_come_back_equal() -> None:
    person = Person(
        "1234567893", True, None, "Ann", None, "Lee", "Dr", None, "F", ("es", "fr"),
        (("207Q00000X", "Family Medicine"), ("208D00000X", None)), "2026-01-02",
        "npi_check_digit_invalid", None,
    )  # fmt: skip
    hours = (Hours(("mon", "tue"), False, "08:00", "17:00"), Hours(("sat",), True, None, None))
    site = Site(
        "Clinic", "1 Main St", "", "Boston", "MA", "02110", 42.36, -71.05, ("617-555-0100",), (),
        "2026-01-03", hours, "accepting",
    )  # fmt: skip
    orgs = [Org("prvgrp", "Group", person), Org(None, None, None)]
    spill = Spill()
    people = spill.table(Person, codec=PERSON_ROWS)
    sites = spill.table(Site, ordered=False, codec=SITE_ROWS)
    by_ref = spill.table(Org, ordered=False, codec=ORG_ROWS)
    people[person.npi] = person
    sites["Location/1"] = site
    for number, org in enumerate(orgs):
        by_ref[f"Organization/{number}"] = org
    assert people[person.npi] == person and people[person.npi].npis == [person.npi]
    assert sites["Location/1"] == site and sites["Location/1"].hours[1].all_day
    assert [by_ref[f"Organization/{n}"] for n in range(2)] == orgs


def test_the_scratch_file_goes_with_its_spill() -> None:
    spill = Spill()
    spill.table(str)["x"] = "y"
    files = list(Path(spill._directory.name).iterdir())
    assert files
    spill.close()
    assert not any(path.exists() for path in files)


def _first_rows(source: Path, target: Path, rows: int) -> Path:
    with gzip.open(source, "rt", newline="") as read, gzip.open(target, "wt", newline="") as out:
        for number, line in enumerate(read):
            if number > rows:
                break
            out.write(line)
    return target


# Run in a fresh interpreter, after one warm-up read: in the test process, other tests' garbage
# and first-use caches (language names, codes) move the count by hundreds either way.
_COUNT_OBJECTS = """
import gc, sys
from pathlib import Path
from indexer.sources.plan_net import read_plan_net

def kept(export):
    gc.collect()
    before = len(gc.get_objects())
    directory = read_plan_net(Path(export), lambda *_: None)
    gc.collect()
    kept = len(gc.get_objects()) - before
    providers = len(directory.providers)
    directory.spill.close()
    return kept, providers

kept(sys.argv[1])
print(*kept(sys.argv[1]), *kept(sys.argv[2]))
"""


def test_a_bigger_export_keeps_no_more_in_memory(tmp_path: Path) -> None:
    small, big = tmp_path / "small", tmp_path / "big"
    generate_plan_net(
        _first_rows(NPPES, tmp_path / "small.csv.gz", 800), small, seed=3, plans=PLANS, nucc=NUCC
    )
    generate_plan_net(NPPES, big, seed=3, plans=PLANS, nucc=NUCC)
    counted = subprocess.run(
        [sys.executable, "-c", _COUNT_OBJECTS, str(small), str(big)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    small_kept, small_providers, big_kept, big_providers = (int(n) for n in counted.split())
    assert big_providers > 3 * small_providers
    # Held in memory, the directory took ~14 objects per provider; spilled, the plans and
    # networks (the same in both) and the counters are all that stay.
    assert big_kept - small_kept < (big_providers - small_providers) / 20

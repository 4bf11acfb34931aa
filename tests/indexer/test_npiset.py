"""The constant-memory NPI set (pure): what goes in is there until it is discarded."""

from __future__ import annotations

from indexer.assembly.npiset import NpiSet

IN_RANGE = ("1234567893", "1245319599", "2000000008")
OUT_OF_RANGE = "3000000006"  # a valid shape outside the bitmap's first digits


def test_added_npis_are_there_until_discarded() -> None:
    npis = NpiSet([*IN_RANGE, OUT_OF_RANGE])
    assert all(npi in npis for npi in (*IN_RANGE, OUT_OF_RANGE))
    assert not npis.add(IN_RANGE[0]) and "1234567801" not in npis
    assert npis.discard(IN_RANGE[0]) and npis.discard(OUT_OF_RANGE)
    assert IN_RANGE[0] not in npis and OUT_OF_RANGE not in npis
    assert not npis.discard(IN_RANGE[0]) and not npis.discard(OUT_OF_RANGE)
    assert all(npi in npis for npi in IN_RANGE[1:])  # its neighbours' bits untouched

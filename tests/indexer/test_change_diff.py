"""indexer.digests: the comparison of two versions' digests, on hand-made digests (pure)."""

from __future__ import annotations

from indexer.digests import Digests, differing

UUID = "6f1c1f0e-3a52-5b8e-9a34-4f1d2c8b7e10"


def _digests(pairs: dict[str, int]) -> Digests:
    found = Digests()
    for key, digest in pairs.items():
        found.add(key, digest)
    return found


def test_the_keys_that_differ_appear_or_go_and_nothing_else() -> None:
    before = _digests({"1000000004": 1, "0000000019": -2, "1999999992": 3, UUID: 7})
    after = _digests({"1999999992": 3, "1000000004": 9, "1234567893": 4, UUID: 7})
    # 1000000004 changed, 0000000019 went, 1234567893 came; the rest are alike.
    assert differing(before, after) == ["0000000019", "1000000004", "1234567893"]


def test_keys_that_are_no_npi_are_told_back_as_given() -> None:
    before = _digests({UUID: 1})
    other = "a-payer's-own-key"
    after = _digests({UUID: 2, other: 5})
    assert differing(before, after) == sorted([UUID, other])
    assert differing(after, after) == []
    assert differing(Digests(), after) == sorted([UUID, other])
    assert differing(after, Digests()) == sorted([UUID, other])


def test_a_leading_zero_npi_keeps_its_ten_digits() -> None:
    assert differing(_digests({"0000000019": 1}), Digests()) == ["0000000019"]


def _extended(*pages: dict[str, int]) -> Digests:
    found = Digests()
    for page in pages:
        found.extend(list(page), list(page.values()))
    return found


def test_a_page_at_once_holds_what_one_at_a_time_holds() -> None:
    npis = {"1000000004": 1, "0000000019": -2}
    mixed = {"1999999992": 3, UUID: 7}  # a payer's own id among NPIs: taken one by one
    before = _digests({**npis, **mixed})
    assert differing(before, _extended(npis, mixed)) == []
    assert differing(_extended(npis, mixed), _digests({**npis, "1999999992": 4})) == sorted(
        ["1999999992", UUID]
    )


def test_digests_without_some_keys_and_again_from_their_pairs() -> None:
    both = _digests({"1000000004": 1, UUID: 7, "0000000019": -2})
    rest = both.without([UUID, "0000000019"])
    assert differing(rest, _digests({"1000000004": 1})) == []
    again = Digests()
    again.extend_codes(both.pairs(), both.named)
    assert differing(again, both) == []
    assert differing(again, rest) == sorted(["0000000019", UUID])

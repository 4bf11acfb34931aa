"""A set of NPIs in constant memory: one bit per possible NPI.

An NPI is 9 digits plus a check digit, and every NPI issued so far starts with 1 (2 is the
reserved next range), so a 200M-bit (25 MB) bitmap over the first nine digits covers them. A
Python set of 9M NPIs would cost about 700 MB.
"""

from __future__ import annotations

from collections.abc import Iterable

_LOW = 100_000_000  # first nine digits of the smallest NPI
_HIGH = 300_000_000  # exclusive: NPIs starting with 1 or 2


class NpiSet:
    def __init__(self, npis: Iterable[str] = ()) -> None:
        self._bits = bytearray((_HIGH - _LOW) // 8)
        self._others: set[str] = set()  # valid NPIs outside the range (none are issued today)
        for npi in npis:
            self.add(npi)

    def _position(self, npi: str) -> int | None:
        payload = int(npi[:9])
        return payload - _LOW if _LOW <= payload < _HIGH else None

    def add(self, npi: str) -> bool:
        """Add ``npi``; False when it was already there."""
        position = self._position(npi)
        if position is None:
            if npi in self._others:
                return False
            self._others.add(npi)
            return True
        byte, bit = divmod(position, 8)
        mask = 1 << bit
        if self._bits[byte] & mask:
            return False
        self._bits[byte] |= mask
        return True

    def discard(self, npi: str) -> bool:
        """Remove ``npi``; False when it was not there."""
        position = self._position(npi)
        if position is None:
            if npi not in self._others:
                return False
            self._others.discard(npi)
            return True
        byte, bit = divmod(position, 8)
        mask = 1 << bit
        if not self._bits[byte] & mask:
            return False
        self._bits[byte] &= ~mask
        return True

    def __contains__(self, npi: object) -> bool:
        if not isinstance(npi, str):
            return False
        position = self._position(npi)
        if position is None:
            return npi in self._others
        byte, bit = divmod(position, 8)
        return bool(self._bits[byte] & (1 << bit))

    def count_missing_from(self, other: NpiSet) -> int:
        """How many NPIs of this set are not in ``other``."""
        mine = int.from_bytes(self._bits, "little")
        theirs = int.from_bytes(other._bits, "little")
        return (mine & ~theirs).bit_count() + len(self._others - other._others)

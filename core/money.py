"""Dollar amounts as the Plan Finder files write them (pure).

``"$1,234.00"``, ``"$285 Annual deductible"``, ``"$283 per year for in-network services"``,
``"$10,000 In and Out-of-network | $6,150 In-network"`` (or the two on separate lines): each
part is an amount with what it applies to. Anything without a dollar amount ("", "Not offered",
"N/A") is no amount: a missing fact stays missing, never 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_AMOUNT = re.compile(r"\$\s*([0-9][0-9,]*(?:\.[0-9]+)?)")
_PARTS = re.compile(r"\s*[|\n]\s*")
_COMBINED = re.compile(r"in\s+and\s+out", re.IGNORECASE)
_IN_NETWORK = re.compile(r"in[-\s]network", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Amounts:
    """One money field: the amount it states without a network qualifier, in network, and in
    and out of network combined (None where the text does not say)."""

    plain: float | None = None
    in_network: float | None = None
    combined: float | None = None

    @property
    def amount(self) -> float | None:
        """The one amount of a field that states one (a premium, a deductible): the plain
        amount, else the in-network one, else the combined one."""
        for value in (self.plain, self.in_network, self.combined):
            if value is not None:
                return value
        return None


def parse_money(text: str | None) -> Amounts:
    """The amounts of one money field; ``Amounts()`` when it states none."""
    found: dict[str, float] = {}
    for part in _PARTS.split(text or ""):
        match = _AMOUNT.search(part)
        if match is None:
            continue
        value = float(match.group(1).replace(",", ""))
        rest = part[match.end() :]
        kind = (
            "combined"
            if _COMBINED.search(rest)
            else "in_network"
            if _IN_NETWORK.search(rest)
            else "plain"
        )
        found.setdefault(kind, value)  # the first amount of each kind
    return Amounts(**found)

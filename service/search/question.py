"""What one search asks, once read: the request, how its words were understood, the place they
resolved to and the day of the question (for coverage in force). Every pure step of a search
(query, follow-ups, answer) takes it whole."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from service.search.interpret import Interpretation, interpret
from service.search.models import SearchRequest
from service.search.places import ResolvedPlace, resolve


@dataclass(frozen=True, slots=True)
class Question:
    request: SearchRequest
    interpretation: Interpretation
    place: ResolvedPlace | None
    today: date

    def without_words(self, dropped: list[str]) -> Question:
        return replace(self, interpretation=self.interpretation.without(dropped))

    def read_by_definitions(self) -> Question:
        return replace(self, interpretation=self.interpretation.read_by_definitions())

    def anywhere(self) -> Question:
        """The same question without its place: no radius, no closeness."""
        return replace(self, place=None)

    def any_confidence(self) -> Question:
        """The same question with every location counting, whatever its confidence."""
        return replace(self, request=self.request.model_copy(update={"minConfidence": None}))


def read_question(request: SearchRequest, today: date) -> Question:
    """Interpret the words and resolve the place (InvalidInput for an unknown one)."""
    place = resolve(request.location) if request.location is not None else None
    reading = interpret(request.query or "", concepts=request.concepts)
    return Question(request, reading, place, today)

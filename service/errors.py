"""The service's own errors: what the read side and the pure logic raise, free of HTTP.

Stores and feature logic raise these; ``service/web/problems.py`` is the one place that turns each
into its problem+json answer (status, stable code, ``Retry-After``), so a new endpoint translates
errors the same way without thinking about it.
"""

from __future__ import annotations

from collections.abc import Sequence


class DirectoryError(Exception):
    """Base of every error the service answers on purpose; the message is safe to show."""


class BackendUnavailable(DirectoryError):
    """Elasticsearch did not answer in time, refused the connection, or is overloaded."""


class IndexNotLoaded(BackendUnavailable):
    """An alias the service reads does not exist (nothing loaded under this prefix yet)."""


class ProviderNotFound(DirectoryError):
    def __init__(self, npi: str, why: str = "") -> None:
        super().__init__(f"no active provider with NPI {npi}{why}")
        self.npi = npi


class InvalidInput(DirectoryError):
    """Input that is well-formed JSON but not acceptable (an unknown place, a bad cursor, an NPI
    with a wrong check digit); ``code`` is the stable code the client sees, ``suggestions`` the
    closest acceptable values when there are some (the known places nearest an unknown one)."""

    def __init__(
        self,
        field: str,
        message: str,
        code: str = "validation_error",
        suggestions: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.field = field
        self.code = code
        self.suggestions = tuple(suggestions)


class NotFoundInput(InvalidInput):
    """Well-formed input that names something the directory does not have: a place nobody
    knows, a cursor it did not issue or no longer holds. Like an NPI nobody has, nothing is
    wrong with the request's shape; there is nothing to find."""


class PlaceNotFound(NotFoundInput):
    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__("location", message, code="place_not_found", suggestions=suggestions)


class CursorNotFound(NotFoundInput):
    def __init__(self, message: str, code: str = "cursor_not_found") -> None:
        super().__init__("cursor", f"{message}; start again without it", code=code)


class CursorExpired(CursorNotFound):
    def __init__(self, life_minutes: int) -> None:
        super().__init__(
            f"the cursor has expired ({life_minutes} minutes without use)", "cursor_expired"
        )


class ResourceNotFound(NotFoundInput):
    """A FHIR read of an id the directory does not have (as that resource type)."""

    def __init__(self, kind: str, resource_id: str) -> None:
        super().__init__("id", f"{kind}/{resource_id} is not known", code="resource_not_found")


class AreaNotFound(NotFoundInput):
    """A well-formed ZIP or county FIPS code of no place the directory knows."""

    def __init__(self, field: str, value: str) -> None:
        kind = "ZIP" if field == "zip" else "county FIPS code"
        super().__init__(field, f"no known {kind} {value}", code="area_not_found")


class PlanNotFound(NotFoundInput):
    """A well-formed bid id of no plan of that contract year."""

    def __init__(self, bid_id: str, year: int) -> None:
        super().__init__("bidId", f"no plan {bid_id} in {year}", code="plan_not_found")


class DirectoryNotFound(NotFoundInput):
    """A name no loaded payer directory has."""

    def __init__(self, name: str) -> None:
        super().__init__(
            "name", f"no payer directory {name!r} is loaded", code="directory_not_found"
        )


class ChangesGone(InvalidInput):
    """A change feed cursor from before the oldest change kept (the retention removed what
    followed it): answered 410."""

    def __init__(self, after: int, pruned: int) -> None:
        super().__init__(
            "since",
            "the changes after this cursor are older than the feed keeps (PD_CHANGES_RETENTION"
            "_DAYS): read the providers you follow again, then follow the feed without `since`",
            code="cursor_too_old",
        )
        self.after, self.pruned = after, pruned


class WatchNotFound(NotFoundInput):
    """A watch id nobody made, or one another subject made (its existence is not told)."""

    def __init__(self, watch_id: str) -> None:
        super().__init__("id", f"no watch {watch_id} of yours", code="watch_not_found")


class TooManyWatches(DirectoryError):
    """A subject that holds as many watches as one may: answered 409 until one is deleted."""

    def __init__(self, most: int) -> None:
        super().__init__(f"a subject holds at most {most} watches: delete one first")

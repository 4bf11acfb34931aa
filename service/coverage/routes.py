"""POST /v2/providers/coverage (DESIGN 5.4)."""

from __future__ import annotations

from aiohttp import web

from service.coverage.check import check_coverage
from service.coverage.models import CompactCoverage, CoveragePlan, CoverageRequest
from service.web.contract import JSON, POST_ERRORS, Feature, Operation, Route, schema_ref
from service.web.middleware import requires_scope
from service.web.validation import answer_body


@requires_scope("coverage:read")
async def coverage(http_request: web.Request) -> web.Response:
    return await answer_body(http_request, CoverageRequest, check_coverage)


FEATURE = Feature(
    routes=(
        Route(
            "coverage",
            "POST",
            "/providers/coverage",
            coverage,
            Operation(
                "Check plan coverage",
                "Medicare Advantage network participation, grouped by bid id, then NPI. The default"
                " view is an array of plans with every provider whole under each; `view: compact`"
                " answers an object with each provider once.",
                "coverage",
                {
                    200: (
                        JSON,
                        {
                            "oneOf": [
                                {"type": "array", "items": schema_ref("CoveragePlan")},
                                schema_ref("CompactCoverage"),
                            ]
                        },
                    )
                },
                POST_ERRORS,
                request="CoverageRequest",
                examples={
                    "one plan, one provider": {
                        "contractYear": 2026,
                        "bidIds": ["H1234_001_000"],
                        "npis": [{"npi": "1003000100"}],
                    }
                },
            ),
        ),
    ),
    requests=(CoverageRequest,),
    answers=(CoveragePlan, CompactCoverage),
)

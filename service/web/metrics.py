"""Prometheus metrics: requests by route and status, latency histograms, Elasticsearch calls.

Each app owns its registry (tests build many apps in one process). Routes are labelled by their
template (``/v2/providers/{npi}``), never by the raw path, so the label set stays bounded.
"""

from __future__ import annotations

import time

from aiohttp import web
from elastic_transport import AiohttpHttpNode, HttpHeaders
from elastic_transport._models import DEFAULT, DefaultType
from elastic_transport._node import NodeApiResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import generate_latest

CLIENT_CLOSED_REQUEST = 499  # the client went away before the answer (nginx's convention)
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "pd_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "pd_http_request_duration_seconds",
            "Time to answer an HTTP request, by method, route template and status",
            ["method", "route", "status"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.es_latency = Histogram(
            "pd_elasticsearch_request_duration_seconds",
            "Time of one call to an Elasticsearch node, by API and outcome (HTTP status or error)",
            ["operation", "outcome"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        labels = (method, route, str(status))
        self.requests.labels(*labels).inc()
        self.latency.labels(*labels).observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def route_label(request: web.Request) -> str:
    """The matched route's template; one label for everything that matched no route."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "(unmatched)"


def es_operation(target: str) -> str:
    """``/idx/_search?x`` -> ``_search``; ``/idx/_source/1`` -> ``_source``; otherwise ``other``."""
    path = target.split("?", 1)[0]
    return next((part for part in path.split("/") if part.startswith("_")), "other")


def timed_node_class(histogram: Histogram) -> type[AiohttpHttpNode]:
    """An Elasticsearch node class that records every call's latency in ``histogram``."""

    class TimedNode(AiohttpHttpNode):
        async def perform_request(  # type: ignore[override]
            self,
            method: str,
            target: str,
            body: bytes | None = None,
            headers: HttpHeaders | None = None,
            request_timeout: DefaultType | float | None = DEFAULT,
        ) -> NodeApiResponse:
            started = time.perf_counter()
            outcome = "error"
            try:
                response = await super().perform_request(
                    method, target, body, headers, request_timeout
                )
                outcome = str(response.meta.status)
                return response
            finally:
                histogram.labels(es_operation(target), outcome).observe(
                    time.perf_counter() - started
                )

    return TimedNode


METRICS = web.AppKey("metrics", Metrics)


async def metrics_handler(request: web.Request) -> web.Response:
    """GET /metrics: the Prometheus text exposition (no auth, on PD_METRICS_ENABLED)."""
    return web.Response(
        body=request.app[METRICS].exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST}
    )

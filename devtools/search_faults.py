"""A loopback relay in front of an Elasticsearch node that fails reads on demand (tests).

``fail_requests(status, error_type)``: every search, multi-search and document read is answered
with that status and an Elasticsearch-shaped error, without reaching the node.
``fail_items(status, error_type, times)``: multi-searches reach the node, then every item of the
answer is replaced by an error item of that status, as a node reports one failed part of a
multi-search; for the next ``times`` multi-searches only, when given. ``heal()`` relays
everything again. ``multi_searches`` counts the multi-searches relayed. Bulk requests behave as
in ``BulkRelay``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import orjson
from aiohttp import web

from devtools.bulk_relay import BulkRelay

_READS = ("/_search", "/_msearch")
_BY_ID = ("/_doc/", "/_source/")  # a document read by id


@dataclass(frozen=True)
class _Fault:
    scope: Literal["request", "item"]
    status: int
    error_type: str

    def error(self) -> dict[str, object]:
        cause = {"type": self.error_type, "reason": f"played by the fault relay ({self.status})"}
        return {"error": {"root_cause": [cause], **cause}, "status": self.status}


class SearchFaultRelay(BulkRelay):
    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self._fault: _Fault | None = None
        self._faults_left: int | None = None  # None: until healed
        self.multi_searches = 0

    def fail_requests(self, status: int, error_type: str) -> None:
        self._fault = _Fault("request", status, error_type)

    def fail_items(self, status: int, error_type: str, times: int | None = None) -> None:
        self._fault = _Fault("item", status, error_type)
        self._faults_left = times

    def heal(self) -> None:
        self._fault = None
        self._faults_left = None

    async def _handle(self, request: web.Request) -> web.Response:
        if request.path.endswith("/_msearch"):
            self.multi_searches += 1
        fault = self._fault
        is_read = request.path.endswith(_READS) or any(by_id in request.path for by_id in _BY_ID)
        if fault is None or not is_read:
            return await super()._handle(request)
        if fault.scope == "request":
            return web.json_response(fault.error(), status=fault.status, dumps=_dumps)
        answer = await self._forward(request, await request.read())
        if not request.path.endswith("/_msearch") or answer.status != 200:
            return answer.response()
        parsed = orjson.loads(answer.body)
        parsed["responses"] = [fault.error() for _ in parsed["responses"]]
        if self._faults_left is not None:
            self._faults_left -= 1
            if self._faults_left == 0:
                self.heal()
        return answer._replace(body=orjson.dumps(parsed)).response()


def _dumps(value: object) -> str:
    return orjson.dumps(value).decode()

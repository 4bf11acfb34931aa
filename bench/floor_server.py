"""The floor of a lookup through Python: the service's lookup (the same Elasticsearch client and
read) on a bare aiohttp app, with no auth, request id, access log, metrics or problem mapping.
``lookup_bench --floor`` runs it as a third arm, so the service's cost splits into what any
Python hop costs (floor against direct) and what the service's edge adds (service against floor).

Usage: python -m bench.floor_server ES_URL PREFIX (PORT | --fd FD) [--es-timeout S]
(``--fd``: serve on an inherited listening socket, as bench.harness.listening_socket binds it)
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvloop
from aiohttp import web

from core.es_client import make_client
from core.index_contract import IndexNames
from service.providers.lookup import lookup
from service.providers.models import Part
from service.web.keys import ES, INDEX_NAMES
from service.web.types import Handler

DEFAULT_TIMEOUT_S = 30.0  # core.es_client.make_client's


def _handler(part: Part) -> Handler:
    async def answer(request: web.Request) -> web.Response:
        app = request.app
        body, tag = await lookup(app[ES], app[INDEX_NAMES], request.match_info["npi"], part)
        return web.Response(body=body, content_type="application/json", headers={"ETag": tag})

    return answer


async def _ready(_: web.Request) -> web.Response:
    return web.Response(text="ready")


def floor_app(es_url: str, prefix: str, es_timeout_s: float = DEFAULT_TIMEOUT_S) -> web.Application:
    app = web.Application()
    app[INDEX_NAMES] = IndexNames(prefix)

    async def elasticsearch(app: web.Application) -> AsyncIterator[None]:
        app[ES] = make_client(es_url, request_timeout=es_timeout_s)
        yield
        await app[ES].close()

    app.cleanup_ctx.append(elasticsearch)
    app.router.add_get("/readyz", _ready)
    app.router.add_get("/v2/providers/{npi}", _handler("provider"))
    app.router.add_get("/v2/providers/{npi}/locations", _handler("locations"))
    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("es_url")
    parser.add_argument("prefix")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("port", type=int, nargs="?")
    where.add_argument("--fd", type=int, help="an inherited listening socket to serve on")
    parser.add_argument(
        "--es-timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help="Elasticsearch request timeout, s",
    )
    args = parser.parse_args(argv)
    listen: dict[str, Any] = (
        {"sock": socket.socket(fileno=args.fd)}
        if args.fd is not None
        else {"host": "127.0.0.1", "port": args.port}
    )
    web.run_app(
        floor_app(args.es_url, args.prefix, args.es_timeout),
        **listen,
        access_log=None,
        print=None,
        loop=uvloop.new_event_loop(),
    )


if __name__ == "__main__":
    main()

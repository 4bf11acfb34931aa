"""``provider-directory``: run the service, mint and inspect tokens."""

from __future__ import annotations

import argparse
import json
import logging
import socket
import sys
from typing import Any

import uvloop
from aiohttp import web
from jose import JWTError, jwt

from service.web.app import create_app
from service.web.auth import InvalidToken, Verifier, mint_token
from service.web.logs import configure_logging
from service.web.settings import ALL_SCOPES, Settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="provider-directory", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the API (settings from PD_* variables)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument(
        "--fd",
        type=int,
        help="serve on this inherited, already bound socket (socket activation, tests)",
    )
    token = commands.add_parser("token", help="mint an HS256 token signed with PD_JWT_SECRET")
    token.add_argument("--subject", default="developer")
    token.add_argument(
        "--scope",
        action="append",
        choices=ALL_SCOPES,
        help="repeat for several; default: every scope",
    )
    token.add_argument("--ttl", type=int, help="lifetime in seconds")
    inspect = commands.add_parser(
        "inspect-token",
        help="print a token's header and claims, and whether it verifies with these settings",
    )
    inspect.add_argument("token")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings()
    if args.command == "serve":
        configure_logging(logging.INFO)
        # access_log=None: the JSON access log middleware replaces aiohttp's, whose request line
        # would carry query strings (and so any token someone put in a URL).
        listen: dict[str, Any] = (
            {"sock": socket.socket(fileno=args.fd)}
            if args.fd is not None
            else {"host": args.host or settings.host, "port": args.port or settings.port}
        )
        web.run_app(
            create_app(settings),
            **listen,
            access_log=None,
            print=None,
            loop=uvloop.new_event_loop(),  # less CPU per request than asyncio's default loop
        )
    elif args.command == "token":
        print(
            mint_token(
                settings, subject=args.subject, scopes=args.scope or ALL_SCOPES, ttl_s=args.ttl
            )
        )
    else:
        return _inspect(settings, args.token)
    return 0


def _inspect(settings: Settings, token: str) -> int:
    """Exit status 0 when the token verifies with the configured keys, 1 otherwise."""
    try:
        header, claims = jwt.get_unverified_header(token), jwt.get_unverified_claims(token)
    except JWTError as error:
        print(f"not a JWT: {error}", file=sys.stderr)
        return 2
    try:
        verified = Verifier(settings).verify(token)
        verdict = {"valid": True, "subject": verified.subject, "scopes": sorted(verified.scopes)}
    except InvalidToken as error:
        verdict = {"valid": False, "reason": str(error)}
    print(json.dumps({"header": header, "claims": claims, "verification": verdict}, indent=2))
    return 0 if verdict["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""``provider-directory``: run the service, mint and inspect tokens."""

from __future__ import annotations

import argparse
import logging
import sys

from aiohttp import web
from jose import jwt

from service.app import create_app
from service.auth import mint_token
from service.settings import ALL_SCOPES, Settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="provider-directory", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the API (settings from PD_* variables)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    token = commands.add_parser("token", help="mint an HS256 token signed with PD_JWT_SECRET")
    token.add_argument("--subject", default="developer")
    token.add_argument(
        "--scope",
        action="append",
        choices=ALL_SCOPES,
        help="repeat for several; default: every scope",
    )
    token.add_argument("--ttl", type=int, help="lifetime in seconds")
    inspect = commands.add_parser("inspect-token", help="print a token's header and claims")
    inspect.add_argument("token")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings()
    if args.command == "serve":
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        logging.getLogger("elastic_transport").setLevel(logging.WARNING)
        web.run_app(
            create_app(settings),
            host=args.host or settings.host,
            port=args.port or settings.port,
            access_log=None,
            print=None,
        )
    elif args.command == "token":
        print(
            mint_token(
                settings, subject=args.subject, scopes=args.scope or ALL_SCOPES, ttl_s=args.ttl
            )
        )
    else:
        print(
            {
                "header": jwt.get_unverified_header(args.token),
                "claims": jwt.get_unverified_claims(args.token),
            }
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

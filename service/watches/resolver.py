"""The resolver webhook deliveries connect through: the target rules checked on the very
addresses a connection is made to (service.watches.targets)."""

from __future__ import annotations

import errno
import ipaddress
import socket

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from service.watches.targets import TargetRules


class GuardedResolver(AbstractResolver):
    """aiohttp's resolver that refuses a name resolving to an address the rules forbid: the
    addresses checked are the ones connected to."""

    def __init__(self, rules: TargetRules) -> None:
        self._rules = rules
        self._inner = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if not self._rules.resolve_names and not self._rules.host_allowed(host):
            raise OSError(errno.EACCES, f"{host}: host names are not looked up here")
        found = await self._inner.resolve(host, port, family)
        for entry in found:
            refusal = self._rules.refusal(host, ipaddress.ip_address(entry["host"]))
            if refusal is not None:
                raise OSError(errno.EACCES, f"refused: {refusal}")
        return found

    async def close(self) -> None:
        await self._inner.close()

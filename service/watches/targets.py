"""Where a webhook may go: an http(s) URL whose host reaches only public addresses, unless the
operator allows it (``PD_WEBHOOK_ALLOW``). Checked when a watch is made and again on every
delivery, on the addresses the connection is made to (service.watches.resolver), so a name
that resolves elsewhere later (DNS rebinding) is refused too."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from yarl import URL

from core.watches import MAX_URL_LENGTH

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
ANYWHERE = "*"


class RefusedTarget(ValueError):
    """A URL a webhook may not be sent to; the message says why."""


def _kind(address: Address) -> str | None:
    """What makes an address one a webhook may not reach; None: a public address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for kind, test in (
        ("loopback", address.is_loopback),
        ("link-local (cloud metadata among them)", address.is_link_local),
        ("private", address.is_private),
        ("unspecified", address.is_unspecified),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
    ):
        if test:
            return kind
    return None if address.is_global else "not public"


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


@dataclass(frozen=True)
class TargetRules:
    """The operator's exceptions (``PD_WEBHOOK_ALLOW``) and whether names are looked up."""

    names: frozenset[str]
    networks: tuple[Network, ...]
    resolve_names: bool = True
    anywhere: bool = False  # "*": every host allowed, none looked up (a private deployment)

    @classmethod
    def of(cls, allow: Sequence[str], resolve_names: bool = True) -> TargetRules:
        names: set[str] = set()
        networks: list[Network] = []
        for entry in allow:
            if entry == ANYWHERE:
                return cls(frozenset(), (), resolve_names, anywhere=True)
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                names.add(entry.lower().rstrip("."))
        return cls(frozenset(names), tuple(networks), resolve_names)

    def host_allowed(self, host: str) -> bool:
        return self.anywhere or host.lower().rstrip(".") in self.names

    def refusal(self, host: str, address: Address) -> str | None:
        """Why ``host`` may not be reached at ``address``; None: it may."""
        if self.host_allowed(host) or any(address in network for network in self.networks):
            return None
        kind = _kind(address)
        if kind is None:
            return None
        return f"{host} resolves to {address}, a {kind} address (PD_WEBHOOK_ALLOW lists exceptions)"


def parsed_url(url: str) -> URL:
    """The URL when its form is one a webhook can go to (http or https, with a host)."""
    if len(url) > MAX_URL_LENGTH:
        raise RefusedTarget(f"a URL of at most {MAX_URL_LENGTH} characters")
    try:
        parsed = URL(url)
    except (ValueError, TypeError):
        raise RefusedTarget("not a URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.host or not parsed.is_absolute():
        raise RefusedTarget("an absolute http:// or https:// URL with a host")
    if parsed.fragment:
        raise RefusedTarget("a URL without a fragment (#...)")
    return parsed


async def check_url(url: str, rules: TargetRules) -> None:
    """Refuses (RefusedTarget) a URL a webhook may not be sent to, looking its host up."""
    host = parsed_url(url).host or ""
    literal = _literal(host)
    if literal is not None:
        addresses: list[Address] = [literal]
    elif rules.host_allowed(host):
        return
    elif not rules.resolve_names:
        raise RefusedTarget(f"{host}: host names are not looked up here; give an address")
    else:
        addresses = await _looked_up(host)
    for address in addresses:
        refusal = rules.refusal(host, address)
        if refusal is not None:
            raise RefusedTarget(refusal)


async def _looked_up(host: str) -> list[Address]:
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise RefusedTarget(f"{host}: the host name does not resolve") from None
    return [ipaddress.ip_address(str(entry[4][0]).split("%")[0]) for entry in found]


def refusal_of_literal(url: URL, rules: TargetRules) -> str | None:
    """An address URL's refusal (aiohttp connects to an address without resolving it)."""
    literal = _literal(url.host or "")
    return None if literal is None else rules.refusal(url.host or "", literal)

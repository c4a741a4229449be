"""Which addresses: this machine's IPv4 addresses, the ones a zeroconf instance binds to
(every interface, or only those given with ``--interface``), and the order a client tries a
table's advertised addresses in (its own subnet first).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

import ifaddr  # a dependency of zeroconf, used to list this machine's addresses
from zeroconf import InterfaceChoice, IPVersion
from zeroconf.asyncio import AsyncZeroconf


def local_ipv4_addresses(*, include_loopback: bool = False) -> list[str]:
    """This machine's IPv4 addresses (without 127.0.0.0/8 unless asked), in adapter order."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # IPv6: a (address, flowinfo, scope) tuple
            addr = ipaddress.IPv4Address(ip.ip)
            if addr.is_loopback and not include_loopback:
                continue
            if addr.is_link_local or str(addr) in found:
                continue
            found.append(str(addr))
    return found


def _check_addresses(addresses: Sequence[str] | None) -> list[str] | None:
    """The given interface addresses as IPv4 strings; ValueError names a bad one."""
    if addresses is None:
        return None
    if isinstance(addresses, str):
        raise TypeError("interfaces must be a list of addresses, not one string")
    checked: list[str] = []
    for addr in addresses:
        try:
            checked.append(str(ipaddress.IPv4Address(addr)))
        except ValueError:
            raise ValueError(
                f"--interface wants an IPv4 address of this machine, e.g. 192.168.1.20; "
                f"not {addr!r}"
            ) from None
    if not checked:
        raise ValueError("no interface address given")
    return checked


def preferred_order(addresses: Sequence[str], local: Sequence[str] | None = None) -> list[str]:
    """``addresses`` to try in order: those on a /24 of ``local`` (default: this machine's
    IPv4 addresses) first, then the other private ones, then the rest; stable otherwise.

    A host with several interfaces (a docker bridge, a VPN) advertises all of them, in no
    particular order; most are unreachable from a given client.
    """
    mine = local_ipv4_addresses(include_loopback=True) if local is None else list(local)
    nets = {ipaddress.IPv4Network(f"{a}/24", strict=False) for a in mine}

    def rank(addr: str) -> int:
        try:
            ip = ipaddress.IPv4Address(addr)
        except ValueError:  # a host name (or IPv6) given to join: tried after the rest
            return 3
        if any(ip in n for n in nets):
            return 0
        return 1 if ip.is_private else 2

    return sorted(addresses, key=rank)


def _interfaces(addresses: Sequence[str] | None) -> InterfaceChoice | list[str]:
    return InterfaceChoice.All if addresses is None else list(addresses)


def _zeroconf(addresses: Sequence[str] | None) -> AsyncZeroconf:
    return AsyncZeroconf(interfaces=_interfaces(addresses), ip_version=IPVersion.V4Only)

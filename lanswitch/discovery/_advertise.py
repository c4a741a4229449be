"""The host's side: :class:`TableAdvertiser` publishes one table (its TXT record updated live
as seats fill) until it is closed, which sends the goodbye.

Before it probes for its name it listens briefly for the tables already on the LAN
(``WARMUP_S``), so a clash is seen and zeroconf renames it ("Kitchen-2"); a changed TXT record
is announced a second time (``REANNOUNCE_S``), as one multicast packet may be lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Sequence
from types import TracebackType

from zeroconf._dns import (  # re-exported by zeroconf, but not in its __all__
    DNSQuestion,
)
from zeroconf._protocol.outgoing import DNSOutgoing
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from ._addresses import _check_addresses, _zeroconf, local_ipv4_addresses
from ._records import _CLASS_IN, _FLAGS_QUERY, _TYPE_PTR, SERVICE_TYPE, _dns_label, _instance_label

#: How long a host listens for the tables already on the LAN before it probes for its name.
WARMUP_S = 0.25

#: When a host announces a changed TXT record a second time (see ``_announce_again``).
REANNOUNCE_S = 2.5


class TableAdvertiser:
    """Advertises one table on the LAN until :meth:`close` (which sends the goodbye).

    ``interfaces`` are the IPv4 addresses to serve and advertise on; by default every
    interface, advertising every non-loopback IPv4 address of this machine (loopback only if
    it has no other). Use as ``async with TableAdvertiser(...) as adv:`` or call
    :meth:`start` and :meth:`close`.
    """

    def __init__(
        self,
        *,
        name: str,
        port: int,
        rules: str,
        seats_total: int,
        seats_free: int,
        fingerprint: str,
        version: int,
        host: str | None = None,
        interfaces: Sequence[str] | None = None,
        warmup: float = WARMUP_S,
        blind: bool = False,
        locked: bool = False,
    ) -> None:
        self._requested = _instance_label(name)
        self.blind = blind
        self.locked = locked
        self.warmup = warmup
        self.port = port
        self.rules = rules
        self.seats_total = seats_total
        self.seats_free = seats_free
        self.fingerprint = fingerprint.lower()
        self.version = version
        self.host = host or socket.gethostname().split(".")[0]
        self.interfaces = _check_addresses(interfaces)
        if self.interfaces is not None:
            self.addresses = list(self.interfaces)
        else:
            self.addresses = local_ipv4_addresses() or local_ipv4_addresses(include_loopback=True)
        # A host name of our own for the A records, unique per host identity and port.
        fp_tag = self.fingerprint[:8] or "0"
        self.server = f"{_dns_label(self.host, 'host')}-{fp_tag}-{port}.local."
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._again: asyncio.Task[None] | None = None
        self._name = self._requested

    @property
    def name(self) -> str:
        """The table's name on the LAN (after any renaming on a clash)."""
        return self._name

    def _properties(self) -> dict[str, str]:
        props = {
            "v": str(self.version),
            "name": self._name,
            "rules": self.rules,
            "free": str(self.seats_free),
            "seats": str(self.seats_total),
            "fp": self.fingerprint,
            "host": self.host,
        }
        if self.blind:
            props["blind"] = "1"
        if self.locked:
            props["pw"] = "1"
        return props

    def _service_info(self, name: str) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE,
            f"{name}.{SERVICE_TYPE}",
            port=self.port,
            properties=self._properties(),
            server=self.server,
            parsed_addresses=self.addresses,
        )

    async def start(self) -> str:
        """Probe for the name (~1.2 s), rename on a clash, announce; returns the name."""
        if self._zc is not None:
            raise RuntimeError("already started")
        self._zc = _zeroconf(self.interfaces)
        info = self._service_info(self._requested)
        try:
            await self._warm_up(self._zc)
            announced = await self._zc.async_register_service(info, allow_name_change=True)
            await announced
        except BaseException:
            await self._zc.async_close()
            self._zc = None
            raise
        self._info = info
        renamed = info.name.removesuffix("." + SERVICE_TYPE)
        if renamed != self._name:
            self._name = renamed
            await self._republish()  # the TXT "name" follows the new instance name
        return self._name

    async def _warm_up(self, zc: AsyncZeroconf) -> None:
        """Ask (by multicast) for the tables already here, so a name clash is seen.

        Zeroconf's probe looks for a clash in its cache, filled by the answers to its probes.
        Those are sent by unicast to port 5353 on the prober's address, and where several
        mDNS responders share that port on one machine (two hosts on one laptop, or one
        beside avahi) the kernel hands the answer to only one of them. Multicast answers
        reach every socket, so a plain query first makes the rename reliable there too.
        """
        if self.warmup <= 0:
            return
        await zc.zeroconf.async_wait_for_start()
        out = DNSOutgoing(_FLAGS_QUERY)
        out.add_question(DNSQuestion(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN))
        zc.zeroconf.async_send(out)
        await asyncio.sleep(self.warmup)

    async def _republish(self) -> None:
        if self._zc is None or self._info is None:
            return
        info = self._service_info(self._name)
        await self._zc.async_update_service(info)  # announcements go on in the background
        self._info = info
        if self._again is not None:
            self._again.cancel()
        self._again = asyncio.get_running_loop().create_task(self._announce_again())

    async def _announce_again(self) -> None:
        """Announce the current records once more, later, to flush a stale TXT record.

        Zeroconf builds an answer when a query arrives and may send it up to ~1.2 s later
        (RFC 6762 §14), so a browser's query just before a change can put the old TXT record
        back on the wire after the new one. A cache keeps both when they arrive within a
        second of each other (the cache-flush rule only evicts records over 1 s old) and a
        resolver may then read either: seen on loopback with several browsers, a listing
        right after a seat was taken showed the old count. Announcing again after both have
        aged past a second evicts the stale one.
        """
        await asyncio.sleep(REANNOUNCE_S)
        if self._zc is not None and self._info is not None:
            await self._zc.async_update_service(self._info)

    async def update(
        self,
        *,
        seats_free: int | None = None,
        seats_total: int | None = None,
        rules: str | None = None,
        blind: bool | None = None,
    ) -> None:
        """Change the TXT record (e.g. when a seat is taken or freed, or the host switches
        the table to or from dealer-blind) and announce it. If the announcement fails, the
        advertiser keeps what it announced before (so a later update tries again)."""
        before = (self.seats_free, self.seats_total, self.rules, self.blind)
        changed = False
        for attr, value in (
            ("seats_free", seats_free),
            ("seats_total", seats_total),
            ("rules", rules),
            ("blind", blind),
        ):
            if value is not None and getattr(self, attr) != value:
                setattr(self, attr, value)
                changed = True
        if changed:
            try:
                await self._republish()
            except BaseException:
                self.seats_free, self.seats_total, self.rules, self.blind = before
                raise

    async def close(self) -> None:
        """Send the goodbye and stop. Idempotent."""
        zc, info, again = self._zc, self._info, self._again
        self._zc = self._info = self._again = None
        if again is not None:
            again.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await again
        if zc is None:
            return
        try:
            if info is not None:
                goodbye = await zc.async_unregister_service(info)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(2.0):
                        await goodbye
        finally:
            await zc.async_close()

    async def __aenter__(self) -> TableAdvertiser:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


#: Called with the table's name and its new state (None: it is gone).

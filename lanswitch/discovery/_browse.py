"""Finding tables on the LAN with multicast DNS (a shell: zeroconf, asyncio, the clock).

A host advertises its table as a DNS-SD service of type ``_lanswitch._tcp.local.``
(:class:`TableAdvertiser`); the instance name is the table's name, made unique on the LAN by
zeroconf (a second "Kitchen" becomes "Kitchen-2"). The TXT record carries what a client needs
before it connects:

- ``v``: the wire protocol version (decimal)
- ``name``: the table's name (the instance name, after any renaming)
- ``rules``: the rule set's name
- ``free``: free seats (updated live as players come and go)
- ``seats``: seats in all
- ``fp``: the SHA-256 fingerprint of the host's TLS certificate (64 hex digits)
- ``host``: the host machine's name
- ``blind``: ``1`` at a table that deals every hand dealer-blind (the host cannot see a card
  it is not dealt); absent otherwise, so a table as it always was advertises as it did
- ``pw``: ``1`` at a table that needs a password to join (never the password itself: only
  that a browser should ask for one before joining); absent otherwise

Only IPv4 is used (a v4-only host and a v6-only browser never meet; dual stack sometimes
resolves only a link-local address). Both sides use every interface by default, or only the
addresses given (``--interface ADDR``; the tests use ``["127.0.0.1"]``). On shutdown the host
sends a goodbye, so browsers drop the table at once; after a crash there is none, and the
record lingers until it expires (up to 75 min for the TXT record, 2 min for the address):
clients must treat a failed connect as the table being gone (:meth:`TableBrowser.forget`).

:class:`TableBrowser` keeps a live map of tables; :func:`list_tables` is the one-shot form for
``lanswitch tables --timeout S``.

**A name is not an identity.** Multicast DNS compares names without regard to case, and
nothing stops a second machine from answering for a name already taken (a responder may skip
the probe that would make it rename itself). Two answers for one name then share every cache
slot: a resolver reads one server (SRV) record and one TXT record for the name, perhaps one
responder's SRV beside the other's TXT, and which one flips as each evicts the other. So the
browser also keeps every responder's answer apart (:class:`_Answers`): the records of one mDNS
response come from one responder, and a response holding a table's SRV and TXT records is one
whole answer. :meth:`TableBrowser.answers` lists them all, two for a name when two
fingerprints answer for it, and :func:`pick_table` refuses to guess between them: the
fingerprint, checked in the TLS handshake, is the table's identity; the name only finds it.
Names are compared as people read them (:func:`lanswitch.textsafe.fold_name`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import shlex
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import ifaddr  # a dependency of zeroconf, used to list this machine's addresses
from zeroconf import (
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    RecordUpdate,
    RecordUpdateListener,
    ServiceStateChange,
    Zeroconf,
    current_time_millis,
)
from zeroconf._dns import (  # re-exported by zeroconf, but not in its __all__
    DNSAddress,
    DNSQuestion,
    DNSService,
    DNSText,
)
from zeroconf._protocol.outgoing import DNSOutgoing
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from .textsafe import escape, fold_name
from .tls import FingerprintChoice, Pin, fingerprint_words

__all__ = [
    "DEFAULT_LIST_TIMEOUT",
    "SERVICE_TYPE",
    "Table",
    "TableAdvertiser",
    "TableBrowser",
    "TableChoiceError",
    "answers",
    "conflicts",
    "list_tables",
    "local_ipv4_addresses",
    "pick_table",
    "preferred_order",
    "same_name",
]

SERVICE_TYPE = "_lanswitch._tcp.local."
#: How long ``lanswitch tables`` listens by default: the browser's first query leaves after
#: 20–120 ms and answers on a LAN take tens of ms; the second query goes out after ~1 s.
DEFAULT_LIST_TIMEOUT = 2.0
#: How long one table's records may take to resolve after it is first heard of.
RESOLVE_TIMEOUT_MS = 3000

#: How long a host listens for the tables already on the LAN before it probes for its name.
WARMUP_S = 0.25

#: When a host announces a changed TXT record a second time (see ``_announce_again``).
REANNOUNCE_S = 2.5

_MAX_LABEL = 63  # bytes in one DNS label
_FLAGS_QUERY = 0x0000
_TYPE_A = 1
_TYPE_PTR = 12
_CLASS_IN = 1
_TYPE_SUFFIX = "." + SERVICE_TYPE.lower()

#: Bounds on the answers kept apart (:class:`_Answers`): a LAN where someone advertises
#: thousands of fake tables must not grow a browser without end. Beyond them, new answers
#: are ignored until old ones expire or say goodbye.
MAX_TABLES = 256
MAX_ANSWERS_PER_TABLE = 8


PROBE_TIMEOUT = 1.0
"""Seconds to wait for a table's host to accept a TCP connection (:func:`answers`)."""


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


def _dns_label(text: str, fallback: str) -> str:
    """A host-name label: lowercase letters, digits and hyphens only."""
    label = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:40].strip("-")
    return label or fallback


def _instance_label(name: str) -> str:
    """The table name as a DNS-SD instance label: no dots or control characters, ≤ 63 bytes."""
    cleaned = "".join(ch if ch.isprintable() and ch != "." else " " for ch in name)
    cleaned = " ".join(cleaned.split()) or "lanswitch"
    raw = cleaned.encode()[: _MAX_LABEL - 4]  # room for a "-NN" suffix on a name clash
    return raw.decode(errors="ignore").rstrip() or "lanswitch"


@dataclass(frozen=True, slots=True)
class Table:
    """One advertised table as a browser sees it."""

    name: str  # the instance name: unique on the LAN, what `lanswitch join NAME` takes
    addresses: tuple[str, ...]  # IPv4, as advertised (try them all)
    port: int
    rules: str
    seats_free: int | None
    seats_total: int | None
    version: int | None  # the wire protocol version; None if unreadable
    fingerprint: str  # 64 hex digits, "" if missing
    host: str  # the host machine's name
    server: str  # the mDNS host name the addresses belong to
    blind: bool = False  # every hand dealt dealer-blind (TXT ``blind=1``)
    locked: bool = False  # joining needs the table's password (TXT ``pw=1``)

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "addresses": list(self.addresses),
            "port": self.port,
            "rules": self.rules,
            "free_seats": self.seats_free,
            "seats": self.seats_total,
            "version": self.version,
            "fingerprint": self.fingerprint,
            "host": self.host,
            "dealer_blind": self.blind,
            "password": self.locked,
        }


def _int_or_none(text: str | None) -> int | None:
    if text is None or not text.isdigit():
        return None
    return int(text)


def _table_from_props(
    name: str, addresses: Sequence[str], port: int, props: dict[str, str], server: str
) -> Table:
    fp = props.get("fp", "").lower()
    if not re.fullmatch(r"[0-9a-f]{64}", fp):
        fp = ""
    return Table(
        name=name,
        addresses=tuple(addresses),
        port=port,
        rules=props.get("rules", ""),
        seats_free=_int_or_none(props.get("free")),
        seats_total=_int_or_none(props.get("seats")),
        version=_int_or_none(props.get("v")),
        fingerprint=fp,
        host=props.get("host", ""),
        server=server,
        # Only "1" says so: a record from before the key existed, or garbled, reads as a
        # table like any other (its hands' own messages say dealer-blind or not anyway).
        blind=props.get("blind") == "1",
        locked=props.get("pw") == "1",
    )


def _table_from_info(info: AsyncServiceInfo) -> Table:
    props: dict[str, str] = {}
    for k, v in info.properties.items():
        if isinstance(k, bytes):
            props[k.decode(errors="replace")] = (
                v.decode(errors="replace") if isinstance(v, bytes) else ""
            )
    return _table_from_props(
        info.name.removesuffix("." + SERVICE_TYPE),
        info.parsed_addresses(IPVersion.V4Only),
        info.port or 0,
        props,
        info.server or "",
    )


def _txt_properties(text: bytes) -> dict[str, str]:
    """A TXT record's ``key=value`` strings (RFC 6763 §6: each string after its length byte;
    the first of a repeated key counts, a key without ``=`` has the value "")."""
    props: dict[str, str] = {}
    i = 0
    while i < len(text):
        n = text[i]
        item = text[i + 1 : i + 1 + n]
        i += 1 + n
        key, sep, value = item.partition(b"=")
        k = key.decode(errors="replace")
        if k and k not in props:
            props[k] = value.decode(errors="replace") if sep else ""
    return props


def _instance_of(record_name: str) -> str:
    """The instance name of a record of our service type, as the responder spelled it."""
    return record_name[: -len(_TYPE_SUFFIX)]


@dataclass(frozen=True, slots=True)
class _Answer:
    """One responder's answer for one table: its SRV and TXT records, and the addresses it
    gave with them."""

    srv: DNSService
    txt: DNSText
    addresses: tuple[str, ...]

    def table(self, zc: Zeroconf) -> Table:
        addresses = self.addresses
        if not addresses:  # sent in a response of their own: take them from the cache
            now = current_time_millis()
            addresses = tuple(
                socket.inet_ntoa(r.address)
                for r in zc.cache.async_all_by_details(self.srv.server_key, _TYPE_A, _CLASS_IN)
                if isinstance(r, DNSAddress) and len(r.address) == 4 and not r.is_expired(now)
            )
        return _table_from_props(
            _instance_of(self.srv.name),
            addresses,
            self.srv.port,
            _txt_properties(self.txt.text),
            self.srv.server,
        )


class _Answers(RecordUpdateListener):
    """Every responder's answer for every table of our service type, kept apart.

    Zeroconf passes the records of one incoming mDNS message together
    (``async_update_records``), and one message comes from one responder: where it holds
    one SRV and one TXT record for a table, they belong together. Answers are kept by table
    (the instance name in lower case, as DNS compares names) and by server and port; a
    goodbye (an SRV record with TTL 0) removes one, and an answer is left out once its SRV
    record has expired. A message with the TXT record alone refreshes the one answer it can
    belong to (the only one, with the same fingerprint), one with an SRV alone the answer of
    that server and port; anything else is ignored: whose it is cannot be told. At most
    :data:`MAX_TABLES` tables and :data:`MAX_ANSWERS_PER_TABLE` answers each are kept.
    """

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__()
        self.by_table: dict[str, dict[tuple[str, int], _Answer]] = {}
        self._changed = changed

    def async_update_records(self, zc: Zeroconf, now: float, records: list[RecordUpdate]) -> None:
        srvs: dict[str, list[DNSService]] = {}
        txts: dict[str, list[DNSText]] = {}
        addresses: dict[str, list[str]] = {}
        for update in records:
            r = update.new
            if isinstance(r, DNSService) and r.key.endswith(_TYPE_SUFFIX):
                srvs.setdefault(r.key, []).append(r)
            elif isinstance(r, DNSText) and r.key.endswith(_TYPE_SUFFIX):
                txts.setdefault(r.key, []).append(r)
            elif (
                isinstance(r, DNSAddress)
                and r.type == _TYPE_A
                and len(r.address) == 4
                and not r.is_expired(now)
            ):
                addresses.setdefault(r.key, []).append(socket.inet_ntoa(r.address))
        changed = False
        if len(self.by_table) >= MAX_TABLES:
            self._prune(now)
        for key in srvs.keys() | txts.keys():
            if key not in self.by_table and len(self.by_table) >= MAX_TABLES:
                continue
            known = self.by_table.setdefault(key, {})
            ss, ts = srvs.get(key, []), [t for t in txts.get(key, []) if not t.is_expired(now)]
            if not ss and len(ts) == 1 and len(known) == 1:
                # A TXT record alone (free seats changed): the one answer's, if there is one
                # and the fingerprint is the same — another fingerprint is another responder.
                ident, old = next(iter(known.items()))
                fp = _txt_properties(ts[0].text).get("fp")
                if fp == _txt_properties(old.txt.text).get("fp") and old.txt.text != ts[0].text:
                    known[ident] = _Answer(old.srv, ts[0], old.addresses)
                    changed = True
            for srv in ss:
                ident = (srv.server_key, srv.port)
                old_answer = known.get(ident)
                if srv.is_expired(now):  # a goodbye
                    if known.pop(ident, None) is not None:
                        changed = True
                    continue
                if len(ss) == 1 and len(ts) == 1:
                    txt = ts[0]
                elif old_answer is not None:
                    txt = old_answer.txt
                else:
                    continue  # whose TXT record goes with it cannot be told: wait for more
                if old_answer is None and len(known) >= MAX_ANSWERS_PER_TABLE:
                    continue
                got = tuple(dict.fromkeys(addresses.get(srv.server_key, ())))
                if not got and old_answer is not None:
                    got = old_answer.addresses
                known[ident] = _Answer(srv, txt, got)
                changed = changed or (
                    old_answer is None
                    or old_answer.txt.text != txt.text
                    or old_answer.addresses != got
                    or old_answer.srv.name != srv.name
                )
            if not known:
                del self.by_table[key]
        if changed:
            self._changed()

    def _prune(self, now: float) -> None:
        """Drop the answers whose SRV record has expired."""
        for key in list(self.by_table):
            known = self.by_table[key]
            for ident in [i for i, a in known.items() if a.srv.is_expired(now)]:
                del known[ident]
            if not known:
                del self.by_table[key]

    def tables(self, zc: Zeroconf, key: str) -> list[Table]:
        """The live answers for the table ``key`` (an instance name in lower case)."""
        now = current_time_millis()
        return [
            a.table(zc) for a in self.by_table.get(key, {}).values() if not a.srv.is_expired(now)
        ]

    def forget(self, key: str) -> bool:
        return self.by_table.pop(key, None) is not None


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
ChangeCallback = Callable[[str, Table | None], None]


class TableBrowser:
    """A live map of the tables on the LAN, by name, and every answer for each name.

    Tables appear once resolved (addresses, port and TXT), change when their TXT record does
    (free seats) and disappear on the host's goodbye. ``on_change`` is called on every change
    of :attr:`tables` in the event loop. ``interfaces`` as for :class:`TableAdvertiser`.

    :attr:`tables` has one table per name, as a resolver reads it; :meth:`answers` has every
    responder's answer apart (see the module docstring) and is what a choice must be made
    from.
    """

    def __init__(
        self,
        *,
        interfaces: Sequence[str] | None = None,
        on_change: ChangeCallback | None = None,
    ) -> None:
        self.interfaces = _check_addresses(interfaces)
        self.on_change = on_change
        self._tables: dict[str, Table] = {}
        self._zc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._resolving: dict[str, asyncio.Task[None]] = {}
        self._changed = asyncio.Event()
        self._answers = _Answers(self._notify)

    @property
    def tables(self) -> dict[str, Table]:
        """A snapshot of the tables seen, by name."""
        return dict(self._tables)

    async def start(self) -> None:
        if self._zc is not None:
            raise RuntimeError("already started")
        self._zc = _zeroconf(self.interfaces)
        self._zc.zeroconf.async_add_listener(self._answers, None)
        # Every query asks for a multicast answer (QM). Zeroconf's default first query asks
        # for a unicast one (QU), sent to port 5353 on our address; where several mDNS
        # sockets share that port (avahi beside us, or a host on the same machine) the
        # kernel gives it to only one of them, and we would wait ~1 s for the next query.
        self._browser = AsyncServiceBrowser(
            self._zc.zeroconf,
            SERVICE_TYPE,
            handlers=[self._on_service_state_change],
            question_type=DNSQuestionType.QM,
        )

    def _on_service_state_change(self, **kwargs: Any) -> None:
        name: str = kwargs["name"]
        state: ServiceStateChange = kwargs["state_change"]
        old = self._resolving.pop(name, None)
        if old is not None:
            old.cancel()
        if state is ServiceStateChange.Removed:
            self._set(name, None)
            return
        task = asyncio.get_running_loop().create_task(self._resolve(name))
        self._resolving[name] = task
        task.add_done_callback(lambda t: self._resolved(name, t))

    def _resolved(self, name: str, task: asyncio.Task[None]) -> None:
        if self._resolving.get(name) is task:
            del self._resolving[name]

    async def _resolve(self, name: str) -> None:
        zc = self._zc
        if zc is None:
            return
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if await info.async_request(zc.zeroconf, RESOLVE_TIMEOUT_MS):
            self._set(name, _table_from_info(info))

    def _set(self, service_name: str, table: Table | None) -> None:
        name = service_name.removesuffix("." + SERVICE_TYPE)
        if table is None:
            if self._tables.pop(name, None) is None:
                return
        elif self._tables.get(name) == table:
            return
        else:
            self._tables[name] = table
        self._notify()
        if self.on_change is not None:
            self.on_change(name, table)

    def _notify(self) -> None:
        """Wake every :meth:`wait_for`."""
        self._changed.set()
        self._changed = asyncio.Event()

    def answers(self) -> list[Table]:
        """Every answer heard, sorted by name (as people read it) and fingerprint: one per
        responder, so two for one name when two machines answer for it. A table whose
        responses never held its SRV and TXT records together is taken as resolved."""
        found: list[Table] = []
        whole: set[str] = set()
        if self._zc is not None:
            for key in list(self._answers.by_table):
                tables = self._answers.tables(self._zc.zeroconf, key)
                if tables:
                    whole.add(key)
                    found += tables
        found += [t for n, t in self._tables.items() if (n + _TYPE_SUFFIX).lower() not in whole]
        return sorted(found, key=lambda t: (fold_name(t.name), t.name, t.fingerprint, t.port))

    def forget(self, name: str) -> None:
        """Drop a table that is known to be gone (a failed connect after a host crash)."""
        if self._answers.forget((name + _TYPE_SUFFIX).lower()):
            self._notify()
        self._set(f"{name}.{SERVICE_TYPE}", None)

    async def wait_for(self, predicate: Callable[[dict[str, Table]], bool], timeout: float) -> bool:
        """Wait until ``predicate(tables)`` holds (True) or ``timeout`` seconds pass (False)."""
        deadline = time.monotonic() + timeout
        while not predicate(self._tables):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await self._changed.wait()
        return True

    async def close(self) -> None:
        """Stop browsing. Idempotent."""
        for task in self._resolving.values():
            task.cancel()
        pending = list(self._resolving.values())
        self._resolving.clear()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        browser, zc = self._browser, self._zc
        self._browser = self._zc = None
        if zc is not None:
            zc.zeroconf.async_remove_listener(self._answers)
        try:
            if browser is not None:
                await browser.async_cancel()
        finally:
            if zc is not None:
                await zc.async_close()

    async def __aenter__(self) -> TableBrowser:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


async def answers(table: Table, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether the table's host accepts a TCP connection on any advertised address.

    A host that crashed sent no goodbye, and its records live on in every cache for up to
    two minutes; a refused or unanswered connect tells at once that nobody is there.
    """
    for address in preferred_order(table.addresses):
        try:
            async with asyncio.timeout(timeout):
                _, writer = await asyncio.open_connection(address, table.port)
        except (OSError, TimeoutError):
            continue
        writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(timeout):
                await writer.wait_closed()
        return True
    return False


async def list_tables(
    timeout: float = DEFAULT_LIST_TIMEOUT,
    *,
    interfaces: Sequence[str] | None = None,
    probe: bool = False,
) -> list[Table]:
    """The tables heard within ``timeout`` seconds, every answer apart
    (:meth:`TableBrowser.answers`), sorted by name. With ``probe``, only those whose host
    answers (:func:`answers`): a crashed host's table is left out."""
    async with TableBrowser(interfaces=interfaces) as browser:
        await asyncio.sleep(timeout)
        tables = browser.answers()
    if probe and tables:
        alive = await asyncio.gather(*(answers(t) for t in tables))
        tables = [t for t, ok in zip(tables, alive, strict=True) if ok]
    return tables


# -- which table a name means ---------------------------------------------------------------


class TableChoiceError(ValueError):
    """Which table is meant cannot be told (two fingerprints answer for the name), or the
    fingerprint chosen is not among the answers. The message says how to choose."""


def same_name(a: str, b: str) -> bool:
    """Whether two table names read the same (:func:`lanswitch.textsafe.fold_name`)."""
    return fold_name(a) == fold_name(b)


def _words(table: Table) -> str:
    try:
        return fingerprint_words(bytes.fromhex(table.fingerprint))
    except ValueError:
        return "(no fingerprint)"


def _where(table: Table) -> str:
    return ", ".join(f"{a}:{table.port}" for a in table.addresses) or f"port {table.port}"


def conflicts(tables: Sequence[Table]) -> dict[str, list[Table]]:
    """The names (as people read them) answered with more than one fingerprint, each with
    its answers."""
    by_name: dict[str, list[Table]] = {}
    for t in tables:
        by_name.setdefault(fold_name(t.name), []).append(t)
    return {n: ts for n, ts in by_name.items() if len({t.fingerprint or None for t in ts}) > 1}


def _join_command(table: Table, words: str | None = None) -> str:
    """The command that joins ``table`` and no other answer for its name."""
    name = shlex.quote(escape(table.name))
    return f'lanswitch join {name} --fingerprint "{words or _words(table)}"'


def pick_table(
    tables: Sequence[Table],
    name: str | None,
    *,
    choice: FingerprintChoice | None = None,
    pinned: Pin | None = None,
) -> Table | None:
    """The table ``name`` means among the answers heard (None: every answer is a candidate;
    the caller has checked they share a name): None if no answer has the name, else the one
    answer. TableChoiceError if answers with different fingerprints have it and ``choice``
    does not pick one of them, or ``choice`` matches none of them.

    ``pinned`` is the pin the user keeps for the name: the message then says which answer
    matches it and how to join that one.
    """
    candidates = [t for t in tables if name is None or same_name(t.name, name)]
    if not candidates:
        return None
    shown = escape(name if name is not None else candidates[0].name)
    if choice is not None:
        chosen = [
            t for t in candidates if t.fingerprint and choice.matches(bytes.fromhex(t.fingerprint))
        ]
        if not chosen:
            raise TableChoiceError(
                f'no table called "{shown}" has the fingerprint {choice.text}; '
                + _list_answers(candidates, pinned)
            )
        candidates = chosen
    if len({t.fingerprint or None for t in candidates}) == 1:
        return candidates[0]
    raise TableChoiceError(
        f"{len({t.fingerprint or None for t in candidates})} different tables answer to the "
        f'name "{shown}", so one may be pretending to be another; '
        + _list_answers(candidates, pinned)
    )


def _list_answers(candidates: Sequence[Table], pinned: Pin | None) -> str:
    """The answers, one a line with their fingerprint words, which one matches the pin, and
    how to join one."""
    lines = ["the answers:"]
    matching: Table | None = None
    for t in candidates:
        mark = ""
        if pinned is not None and t.fingerprint == pinned.fingerprint.hex():
            mark = f"  <- the fingerprint you pinned for this name on {pinned.first_seen[:10]}"
            matching = matching or t
        blind = " (dealer-blind)" if t.blind else ""
        blind += " (password)" if t.locked else ""
        lines.append(f'  "{escape(t.name)}" at {_where(t)}: {_words(t)}{blind}{mark}')
    if matching is not None:
        lines.append(f"To join the table you joined before: {_join_command(matching)}")
    else:
        lines.append(
            "Ask the host which words its screen shows, and join that table with: "
            + _join_command(candidates[0], "WORDS")
        )
    return "\n".join(lines)

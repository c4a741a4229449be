"""The client's side: :class:`TableBrowser` keeps a live map of the tables heard, one per
name as a resolver reads it, and beside it every responder's answer apart (:class:`_Answers`:
two machines answering for one name are two answers, not one table flipping between them);
:func:`list_tables` is the one-shot form, and :func:`answers` tells whether a table's host is
still there (a crashed host sends no goodbye).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from zeroconf import (
    DNSQuestionType,
    RecordUpdate,
    RecordUpdateListener,
    ServiceStateChange,
    Zeroconf,
    current_time_millis,
)
from zeroconf._dns import (  # re-exported by zeroconf, but not in its __all__
    DNSAddress,
    DNSService,
    DNSText,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from ..textsafe import fold_name
from ._addresses import _check_addresses, _zeroconf, preferred_order
from ._records import (
    _CLASS_IN,
    _TYPE_A,
    _TYPE_SUFFIX,
    SERVICE_TYPE,
    Table,
    _instance_of,
    _table_from_info,
    _table_from_props,
    _txt_properties,
)

#: How long ``lanswitch tables`` listens by default: the browser's first query leaves after
#: 20–120 ms and answers on a LAN take tens of ms; the second query goes out after ~1 s.
DEFAULT_LIST_TIMEOUT = 2.0
#: How long one table's records may take to resolve after it is first heard of.
RESOLVE_TIMEOUT_MS = 3000

#: Bounds on the answers kept apart (:class:`_Answers`): a LAN where someone advertises
#: thousands of fake tables must not grow a browser without end. Beyond them, new answers
#: are ignored until old ones expire or say goodbye.
MAX_TABLES = 256
MAX_ANSWERS_PER_TABLE = 8


PROBE_TIMEOUT = 1.0
"""Seconds to wait for a table's host to accept a TCP connection (:func:`answers`)."""


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

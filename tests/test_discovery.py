"""Table discovery over real multicast DNS, bound to loopback only (never the real LAN).

Every zeroconf instance here is made with ``interfaces=["127.0.0.1"]``; every wait is bounded.
Registration probes for ~1.2 s before it announces, so each test takes a few seconds.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import struct
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from zeroconf.asyncio import AsyncServiceInfo

from lanswitch.discovery import (
    SERVICE_TYPE,
    Table,
    TableAdvertiser,
    TableBrowser,
    list_tables,
    local_ipv4_addresses,
    preferred_order,
)
from lanswitch.discovery._records import _instance_label, _table_from_info
from lanswitch.host import HostConfig
from lanswitch.hosting import advertiser_for, follow_open_seats, new_table
from lanswitch.tls import load_or_create_identity

LOOPBACK = ["127.0.0.1"]
WAIT = 10.0  # the longest any single wait may take
# Unique per run: a test run elsewhere on this machine (another checkout's `make test`) shares
# loopback multicast with this one, and its tables must not be taken for ours.
K = f"Kitchen {os.getpid()}-{secrets.token_hex(3)}"
K2 = f"{K}-2"
FP = secrets.token_hex(32)  # also makes the advertised host names unique per run
FP2 = secrets.token_hex(32)
T = TypeVar("T")


def _multicast_on_loopback_works() -> str | None:
    """None if a multicast datagram sent on 127.0.0.1 comes back to a member; else why not."""
    group = "224.0.0.251"
    try:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    except OSError as e:
        return f"no UDP sockets: {e}"
    with rx, tx:
        try:
            rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            rx.bind(("", 0))
            port = rx.getsockname()[1]
            mreq = struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("127.0.0.1"))
            rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
            rx.settimeout(1.0)
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            tx.sendto(b"lanswitch-probe", (group, port))
            data = rx.recv(100)
        except OSError as e:
            return f"multicast on loopback does not work here: {e}"
    return None if data == b"lanswitch-probe" else "multicast on loopback returned garbage"


_WHY_NOT = _multicast_on_loopback_works()
needs_multicast = pytest.mark.skipif(_WHY_NOT is not None, reason=_WHY_NOT or "")


def run(make: Callable[[], Coroutine[Any, Any, T]], limit: float = 20.0) -> T:
    """Run a test coroutine with a hard time limit."""

    async def bounded() -> T:
        async with asyncio.timeout(limit):
            return await make()

    return asyncio.run(bounded())


def advertiser(name: str = K, port: int = 40001, **kw: Any) -> TableAdvertiser:
    args: dict[str, Any] = {
        "name": name,
        "port": port,
        "rules": "switch",
        "seats_total": 4,
        "seats_free": 3,
        "fingerprint": FP,
        "version": 1,
        "host": "laptop-a",
        "interfaces": LOOPBACK,
    }
    return TableAdvertiser(**(args | kw))


@needs_multicast
def test_table_is_found_updated_listed_and_removed_on_goodbye() -> None:
    async def scenario() -> dict[str, float]:
        times: dict[str, float] = {}
        changes: list[tuple[str, int | None]] = []
        adv = advertiser()

        def record(name: str, table: Table | None) -> None:
            if name == K:
                changes.append((name, None if table is None else table.seats_free))

        browser = TableBrowser(interfaces=LOOPBACK, on_change=record)
        async with browser:
            try:
                # a client is already looking when the host starts
                t0 = time.monotonic()
                assert await adv.start() == K
                times["start"] = time.monotonic() - t0
                assert await browser.wait_for(lambda ts: K in ts, timeout=WAIT)
                times["host start -> seen"] = time.monotonic() - t0
                table = browser.tables[K]
                assert table == Table(
                    name=K,
                    addresses=("127.0.0.1",),
                    port=40001,
                    rules="switch",
                    seats_free=3,
                    seats_total=4,
                    version=1,
                    fingerprint=FP,
                    host="laptop-a",
                    server=adv.server,
                )
                # the one-shot listing, as `lanswitch tables` uses it
                t0 = time.monotonic()
                listed = await list_tables(1.5, interfaces=LOOPBACK)
                times["list_tables(1.5)"] = time.monotonic() - t0
                assert [t.name for t in listed if t.name.startswith(K)] == [K]
                assert next(t for t in listed if t.name == K).as_json() == {
                    "name": K,
                    "addresses": ["127.0.0.1"],
                    "port": 40001,
                    "rules": "switch",
                    "free_seats": 3,
                    "seats": 4,
                    "version": 1,
                    "fingerprint": FP,
                    "host": "laptop-a",
                    "dealer_blind": False,
                    "password": False,
                }
                # a seat is taken: the TXT record changes and the browser sees it
                t0 = time.monotonic()
                await adv.update(seats_free=2)
                assert await browser.wait_for(lambda ts: ts[K].seats_free == 2, timeout=WAIT)
                times["update -> seen"] = time.monotonic() - t0
                # a client that failed to connect drops the table until it is heard again
                browser.forget(K)
                assert K not in browser.tables
                await adv.update(seats_free=1)
                assert await browser.wait_for(lambda ts: K in ts, timeout=WAIT)
                # the host shuts down: its goodbye removes the table at once
                t0 = time.monotonic()
                await adv.close()
                assert await browser.wait_for(lambda ts: K not in ts, timeout=WAIT)
                times["close -> gone"] = time.monotonic() - t0
            finally:
                await adv.close()
        # In order; a stale answer queued before an update may briefly repeat an old value
        # (see TableAdvertiser._announce_again), so only the order of first sightings counts.
        firsts = [c for i, c in enumerate(changes) if c not in changes[:i]]
        assert firsts == [(K, 3), (K, 2), (K, None), (K, 1)]
        assert changes[-1] == (K, None)  # goodbye
        return times

    times = run(scenario)
    print("discovery on loopback, seconds:", {k: round(v, 3) for k, v in times.items()})
    assert times["close -> gone"] < 3.0  # the goodbye, not the 2-minute record expiry


@needs_multicast
def test_two_tables_with_the_same_name_get_distinct_names() -> None:
    async def scenario() -> tuple[str, str, dict[str, Table]]:
        first = advertiser(K, 40001)
        second = advertiser(K, 40002, fingerprint=FP2, host="laptop-b", seats_free=1)
        # the second host probes right after the first announced: the clash is still seen
        async with first, TableBrowser(interfaces=LOOPBACK) as browser, second:
            assert await browser.wait_for(lambda ts: {K, K2} <= ts.keys(), timeout=WAIT)
            return first.name, second.name, browser.tables

    a, b, tables = run(scenario)
    assert a == K
    assert b == K2
    assert tables[K].fingerprint == FP
    assert tables[K].port == 40001
    assert tables[K2].fingerprint == FP2
    assert tables[K2].port == 40002
    assert tables[K2].seats_free == 1


@needs_multicast
def test_a_dealer_blind_table_says_so_in_its_txt_record_and_a_plain_one_does_not() -> None:
    """``blind=1`` in the TXT record of a ``--blind`` table reaches the browser's Table and
    ``lanswitch tables --json``; a plain table's record has no ``blind`` key at all (as it
    was before there were blind tables), and reads as not blind."""
    blind_name, plain_name = f"{K} blind", f"{K} plain"

    async def scenario() -> tuple[dict[str, Table], list[Table]]:
        blind = advertiser(blind_name, 40011, blind=True)
        plain = advertiser(plain_name, 40012, fingerprint=FP2, host="laptop-b")
        async with TableBrowser(interfaces=LOOPBACK) as browser, blind, plain:
            assert await browser.wait_for(
                lambda ts: {blind_name, plain_name} <= ts.keys(), timeout=WAIT
            )
            tables = browser.tables
            # The raw TXT record as it went out, through zeroconf's own parser.
            info = AsyncServiceInfo(SERVICE_TYPE, f"{plain_name}.{SERVICE_TYPE}")
            assert browser._zc is not None
            assert await info.async_request(browser._zc.zeroconf, 3000)
            assert b"blind" not in info.properties
            listed = await list_tables(1.5, interfaces=LOOPBACK)
        return tables, listed

    tables, listed = run(scenario)
    assert tables[blind_name].blind
    assert not tables[plain_name].blind
    assert tables[blind_name].seats_free == 3  # the rest of the record as ever
    by_name = {t.name: t.as_json() for t in listed}
    assert by_name[blind_name]["dealer_blind"] is True
    assert by_name[plain_name]["dealer_blind"] is False


def test_only_blind_1_means_dealer_blind() -> None:
    assert advertiser(blind=True)._properties()["blind"] == "1"
    assert "blind" not in advertiser()._properties()

    def parsed(**props: str) -> bool:
        base = {"v": "3", "rules": "switch", "fp": FP}
        info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"Odd.{SERVICE_TYPE}",
            port=7,
            properties=base | props,
            server="odd.local.",
            parsed_addresses=["10.0.0.5"],
        )
        return _table_from_info(info).blind

    assert parsed(blind="1")
    assert not parsed()
    for odd in ("0", "", "yes", "true", "11"):
        assert not parsed(blind=odd), odd


def test_txt_record_parsing_is_lenient() -> None:
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        f"Odd.{SERVICE_TYPE}",
        port=7,
        properties={"v": "x", "free": "-1", "fp": "nothex", "rules": "irish"},
        server="odd.local.",
        parsed_addresses=["10.0.0.5", "192.168.1.9"],
    )
    table = _table_from_info(info)
    assert table.name == "Odd"
    assert table.addresses == ("10.0.0.5", "192.168.1.9")
    assert table.version is None
    assert table.seats_free is None
    assert table.seats_total is None
    assert table.fingerprint == ""
    assert table.rules == "irish"
    assert table.host == ""


def test_instance_labels() -> None:
    assert _instance_label("Kitchen table") == "Kitchen table"
    assert _instance_label("  a.b\tc\n ") == "a b c"
    assert _instance_label("") == "lanswitch"
    long = _instance_label("é" * 100)
    assert len(long.encode()) <= 59
    assert long == "é" * 29


def test_local_addresses_are_ipv4() -> None:
    for addr in local_ipv4_addresses(include_loopback=True):
        socket.inet_aton(addr)
    assert "127.0.0.1" not in local_ipv4_addresses()


def test_interfaces_must_be_ipv4_addresses() -> None:
    with pytest.raises(ValueError, match="IPv4 address of this machine"):
        advertiser(interfaces=["eth0"])
    with pytest.raises(ValueError, match="IPv4"):
        TableBrowser(interfaces=["::1"])
    with pytest.raises(TypeError):
        TableBrowser(interfaces="127.0.0.1")
    assert advertiser(interfaces=["127.0.0.1"]).addresses == ["127.0.0.1"]


def test_preferred_order_tries_the_own_subnet_first() -> None:
    advertised = ["172.17.0.1", "8.8.8.8", "192.168.1.20", "10.0.0.7"]
    assert preferred_order(advertised, local=["192.168.1.33"]) == [
        "192.168.1.20",
        "172.17.0.1",
        "10.0.0.7",
        "8.8.8.8",
    ]
    assert preferred_order(advertised, local=["10.0.0.9"])[0] == "10.0.0.7"
    assert preferred_order([], local=[]) == []


@needs_multicast
def test_the_txt_record_follows_the_hosts_switch_to_and_from_dealer_blind(tmp_path: Path) -> None:
    """The host's player switches the table's deal in the lobby (``Host.set_blind``): the
    shell's loop (``follow_open_seats``) puts ``blind=1`` in the TXT record, and takes it out
    again, and a browser's answers (what the table browser and ``join`` choose from) show
    each change."""
    name = f"{K} toggled"
    config = HostConfig(name=name, seats=3, bots=1, bot_delay=0.0)
    table = new_table(config, tmp_path, address="127.0.0.1", port=0, journal=False)
    adv = advertiser_for(table, 40021, load_or_create_identity(tmp_path))
    assert not adv.blind

    def blind(browser: TableBrowser) -> bool | None:
        return next((t.blind for t in browser.answers() if t.name == name), None)

    async def scenario() -> list[bool | None]:
        seen: list[bool | None] = []
        async with TableBrowser(interfaces=LOOPBACK) as browser, adv:
            assert await browser.wait_for(lambda _: blind(browser) is not None, timeout=WAIT)
            seen.append(blind(browser))
            for on in (True, False):
                table.host.set_blind(on)
                await follow_open_seats(adv, table)
                assert adv.blind is on
                assert ("blind" in adv._properties()) is on

                def shows(_: dict[str, Table], on: bool = on) -> bool:
                    return blind(browser) is on

                ok = await browser.wait_for(shows, timeout=WAIT)
                assert ok, (on, browser.answers())
                seen.append(blind(browser))
        return seen

    assert run(scenario, limit=40.0) == [False, True, False]


def test_a_password_table_says_it_needs_one_and_never_says_the_password(tmp_path: Path) -> None:
    """Issue 26, item 2: ``pw=1`` in the TXT record of a table hosted with ``--password``
    (the advertisement a host makes: ``advertiser_for``) reaches the browser's Table and
    ``lanswitch tables --json``; the password itself is nowhere in the record; a table
    without one has no ``pw`` key."""
    name = f"{K} locked"
    identity = load_or_create_identity(tmp_path / "id")
    config = HostConfig(name=name, seats=3, bots=1, password="hunter2-secret")
    table = new_table(config, tmp_path, address="127.0.0.1", port=0, journal=False)

    async def scenario() -> tuple[Table, dict[bytes, bytes | None], list[Table]]:
        locked = advertiser_for(table, 40013, identity)
        async with TableBrowser(interfaces=LOOPBACK) as browser, locked:
            assert await browser.wait_for(lambda ts: name in ts, timeout=WAIT)
            found = browser.tables[name]
            info = AsyncServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}")
            assert browser._zc is not None
            assert await info.async_request(browser._zc.zeroconf, 3000)
            listed = await list_tables(1.5, interfaces=LOOPBACK)
        return found, dict(info.properties), listed

    found, props, listed = run(scenario)
    assert found.locked
    assert props[b"pw"] == b"1"
    assert not any(b"hunter2" in (v or b"") or b"hunter2" in k for k, v in props.items())
    (shown,) = [t.as_json() for t in listed if t.name == name]
    assert shown["password"] is True
    assert "pw" not in advertiser()._properties()


def test_joins_listing_of_several_tables_marks_the_one_that_needs_a_password(
    tmp_path: Path,
) -> None:
    """``lanswitch join`` with no name, when several tables answer, lists them: a table with
    a password is marked, so the player knows to bring it."""
    from lanswitch.client import JoinError, find_target
    from lanswitch.settings import Join

    locked, plain = f"{K} lockedlist", f"{K} plainlist"

    async def scenario() -> str:
        # Two ports that answer (join's listing leaves out a table whose host does not).
        servers = [await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0) for _ in "ab"]
        ports = [srv.sockets[0].getsockname()[1] for srv in servers]
        one = advertiser(locked, ports[0], locked=True)
        two = advertiser(plain, ports[1], fingerprint=FP2, host="laptop-b")
        async with servers[0], servers[1], one, two:
            join = Join(name="bob", data=tmp_path, interface="127.0.0.1", timeout=3.0)
            try:
                await find_target(join)
            except JoinError as e:
                return str(e)
        return ""

    said = run(scenario)
    assert said.startswith("several tables answered"), said
    assert f"{locked!r} (needs a password)" in said, said
    assert f"{plain!r} (needs a password)" not in said, said

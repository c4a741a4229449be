"""Nothing of a hand travels in the clear (issue #6): a whole match on the simulated LAN is
captured on the wire — every Ethernet frame through the host's port of the bridge, with a raw
``AF_PACKET`` socket inside the bridge's own namespace, as tcpdump would — and the capture is
searched: no player name anywhere, and in the game's TCP stream only TLS records — no msgpack
field name, so no message type, no hand, no card list.

Needs root and ``ip`` (the simulated LAN, ``tests/netns.py``); skipped with the reason otherwise.
"""

from __future__ import annotations

import re
import struct
import subprocess
import time
from pathlib import Path

from tests.netns import Lan
from tests.scenarios.test_lan import (
    LAPTOPS,
    MATCH_LIMIT,
    PY,
    _check_hands,
    _everyone_exits_0,
    _host,
    _join,
)
from tests.scenarios.test_lan import lan as lan

MARKERS = (
    b"\xa4type",
    b"\xa4hand",
    b"\xa6counts",
    b"\xa5legal",
    b"\xa6events",
    b"\xa5hello",
    b"\xa7welcome",
)
"""msgpack's spelling of field names and message types the game sends (see below)."""

CAPTURE = r"""
import os, socket, struct, sys, time
port, path, stop = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0003))
s.bind((port, 0))
s.settimeout(0.2)
with open(path, "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # pcap, Ethernet
    out.flush()
    print("capturing", flush=True)
    deadline = time.time() + 300
    while time.time() < deadline and not os.path.exists(stop):
        try:
            frame = s.recv(65535)
        except socket.timeout:
            continue
        t = time.time()
        out.write(struct.pack("<IIII", int(t), int((t % 1) * 1e6), len(frame), len(frame)))
        out.write(frame)
"""


def frames(path: Path) -> list[bytes]:
    """The Ethernet frames of a pcap file written by CAPTURE."""
    data = path.read_bytes()
    out, i = [], 24
    while i + 16 <= len(data):
        _, _, n, _ = struct.unpack_from("<IIII", data, i)
        out.append(data[i + 16 : i + 16 + n])
        i += 16 + n
    return out


def tcp_payloads(raw: list[bytes], port: int) -> list[bytes]:
    """The TCP payloads to or from ``port`` (IPv4 over Ethernet)."""
    out = []
    for f in raw:
        if len(f) < 34 or f[12:14] != b"\x08\x00" or f[23] != 6:
            continue
        ihl = (f[14] & 0x0F) * 4
        tcp = f[14 + ihl :]
        sport, dport = struct.unpack_from("!HH", tcp, 0)
        if port not in (sport, dport):
            continue
        payload = tcp[(tcp[12] >> 4) * 4 :]
        total = struct.unpack_from("!H", f, 16)[0]  # the IP length: no Ethernet padding
        payload = payload[: max(0, total - ihl - (tcp[12] >> 4) * 4)]
        if payload:
            out.append(payload)
    return out


def test_a_match_on_the_lan_shows_nothing_in_the_clear(lan: Lan, tmp_path: Path) -> None:
    pcap, stop = tmp_path / "hand.pcap", tmp_path / "stop"
    capture = subprocess.Popen(
        [
            "ip",
            "netns",
            "exec",
            lan.bridge_netns,
            PY,
            "-c",
            CAPTURE,
            lan.node("host").port,
            str(pcap),
            str(stop),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert capture.stdout is not None
        assert capture.stdout.readline().strip() == "capturing", capture.stderr
        deadline = time.monotonic() + MATCH_LIMIT
        match = _host(lan, bot_delay=0)
        for laptop in LAPTOPS:
            _join(match, laptop, think=0)
        _everyone_exits_0(match, deadline)
        _check_hands(match)
    finally:
        stop.touch()
        try:
            capture.wait(10)
        except subprocess.TimeoutExpired:
            capture.kill()  # our own child, by its handle
            capture.wait(10)
    raw = frames(pcap)
    game = tcp_payloads(raw, match.port)
    stream = b"".join(game)
    assert len(stream) > 20_000, "the capture saw too little of the game"
    # Only TLS: every record the host and the players exchanged, first byte a TLS content type.
    assert re.search(rb"\x17\x03\x03", stream), "no TLS application data records"
    everything = b"".join(raw)
    for laptop in LAPTOPS:
        name = f"player-{laptop}".encode()
        assert name not in everything, f"{name!r} went over the wire in the clear"
    # msgpack's own spelling of our field names (``fixstr`` length byte, then the name): a
    # view's hand, counts and legal moves, an events list, a message type. Five bytes or more,
    # so ciphertext matches one by chance about once in a terabyte; the card ids would sit
    # right after them.
    for marker in MARKERS:
        assert marker not in stream, f"{marker!r} in the game's TCP stream"


def test_the_markers_are_what_plaintext_messages_would_show() -> None:
    """The search can fail: every marker is in the plaintext frames the game sends."""
    from lanswitch import protocol as p
    from lanswitch.game import Game
    from lanswitch.rules import PRESETS

    game = Game(PRESETS["switch"], 4)
    request = game.chance_request()
    assert request is not None
    game.apply_chance(request[1])
    plain = b"".join(
        (
            p.encode_frame(p.SeatView.from_view(game.view(0), 1)),
            p.encode_frame(p.Events(seq=1, events=(("deal", 0, 5),), log=())),
            p.encode_frame(p.Hello(version=p.PROTOCOL_VERSION, name="player-l1", key=bytes(32))),
            p.encode_frame(
                p.Welcome(version=p.PROTOCOL_VERSION, table="t", seat=0, token=bytes(16))
            ),
        )
    )
    for marker in MARKERS:
        assert marker in plain

"""Issue #4, "the spec is enough": a client written from ``protocol/SPEC.md`` alone plays a hand.

:mod:`tests.rawclient` rebuilds the wire and the fair deal from the spec's text with the standard
library, ``msgpack`` and ``cryptography`` only (no :mod:`lanswitch` import). Two kinds of test
use it:

* The known-answer vectors in ``protocol/vectors/`` (frames, contexts, commitments, deck key,
  keystream, shuffle, rejection, log chain, signatures, and a whole hand's transcript) must come
  out of the spec-only code byte for byte: if they do not, the spec and the reference disagree.
* A real ``lanswitch host`` subprocess (headless, one bot, one hand, loopback) is joined over TLS
  1.3 with its printed fingerprint pinned; the raw client takes part in every fair-deal round,
  plays legal moves, signs its log head and checks what the spec promises on the way (seq
  numbers, redaction, view vs counts, signatures, the whole deal replayed from the seeds). A
  second host is sent a ``hello`` of another version, a frame of length 0, one above 64 KiB
  and a second ``hello``, and must answer each with the spec's ``error``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests import rawclient as rc

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
REPO = VECTORS.parent.parent

#: Whole-test budget: each host test stays well under a minute.
STARTUP_S = 20.0
SESSION_S = 30.0
EXIT_S = 8.0


def load(name: str) -> Any:
    """One vector file."""
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def unhex(x: str) -> bytes:
    """Vector bytes are lowercase hex."""
    return bytes.fromhex(x)


def from_json(v: Any) -> Any:
    """A frames.json payload as the decoder returns it: ``{"bin": hex}`` becomes bytes."""
    if isinstance(v, dict):
        if set(v) == {"bin"}:
            return unhex(v["bin"])
        return {k: from_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_json(x) for x in v]
    return v


# --------------------------------------------------------------------------------------------
# Wire vectors


FRAMES = load("frames.json")


@pytest.mark.parametrize("vector", FRAMES["frames"], ids=lambda v: v["name"])
def test_frame_vectors_decode_and_reencode(vector: dict[str, Any]) -> None:
    """Each vector frame passes the spec's checks and re-encodes to the same bytes.

    Re-encoding writes ``type`` first and the fields in the order the spec lists them, so
    this also checks that the message reference lists every field, in lanswitch's order.
    """
    raw = unhex(vector["hex"])
    msg = rc.classify_frame(raw)
    expected = from_json(vector["payload"])
    assert msg == expected
    assert list(expected)[1:] == list(rc.FIELDS[expected["type"]])
    if expected["type"] == "lobby":
        for entry in expected["seats"]:
            assert tuple(entry) == rc.SEAT_ENTRY_FIELDS
    assert rc.frame(rc.encode_message(expected)) == raw


def test_every_message_type_has_a_frame_vector() -> None:
    """The spec's message list and the vectors' agree."""
    assert {v["type"] for v in FRAMES["frames"]} == set(rc.FIELDS)
    assert FRAMES["protocol_version"] == rc.PROTOCOL_VERSION
    assert FRAMES["max_frame"] == rc.MAX_PAYLOAD


@pytest.mark.parametrize("vector", FRAMES["rejects"], ids=lambda v: v["name"])
def test_frame_rejects(vector: dict[str, Any]) -> None:
    """A receiver written from § Framing / § Messages gives each reject its code."""
    with pytest.raises(rc.WireError) as caught:
        rc.classify_frame(unhex(vector["hex"]))
    assert caught.value.code == vector["code"]


# --------------------------------------------------------------------------------------------
# Fair-deal vectors


FAIR = load("fair-deal.json")


@pytest.mark.parametrize("name", ["hand_52", "hand_104"])
def test_round_zero_vectors(name: str) -> None:
    """ctx_0, commitments, ikm, deck key, keystream and the whole order from the spec."""
    v = FAIR[name]
    parts = rc.participants(v["seats"])
    assert parts == v["participants"]
    game_id = unhex(v["game_id"])
    preimage = (
        game_id
        + rc.u32(v["hand_no"])
        + rc.u8(v["decks"])
        + rc.u8(v["jokers"])
        + rc.u8(len(parts))
        + b"".join(rc.enc(p) for p in parts)
    )
    assert rc.enc(rc.label("hand")) + preimage == unhex(v["context_preimage"])
    ctx = rc.context0(game_id, v["hand_no"], v["decks"], v["jokers"], parts)
    assert ctx.hex() == v["context"]
    seeds = {p: unhex(s) for p, s in v["seeds"].items()}
    for p in parts:
        pre = rc.enc(rc.label("commit")) + ctx + rc.enc(p) + seeds[p]
        assert pre.hex() == v["commitment_preimages"][p]
        assert rc.commitment(ctx, p, seeds[p]).hex() == v["commitments"][p]
    if "ikm_order" in v:
        assert sorted(parts, key=lambda p: p.encode("ascii")) == v["ikm_order"]
        ikm = b"".join(rc.enc(p) + seeds[p] for p in v["ikm_order"])
        assert ikm.hex() == v["ikm"]
        assert rc.enc(rc.label("deck-key")).hex() == v["deck_key_info"]
    key = rc.deck_key(ctx, seeds)
    assert key.hex() == v["deck_key"]
    if "stream_block_0" in v:
        assert rc.stream_block(key, 0).hex() == v["stream_block_0"]
        assert rc.stream_block(key, 1).hex() == v["stream_block_1"]
        words = rc.stream_words(key)
        assert [next(words) for _ in range(8)] == v["stream_words_0"]
    cards = rc.setup_cards(v["decks"], v["jokers"])
    if "cards" in v:
        assert cards == v["cards"]
    assert rc.round_order(ctx, seeds, cards) == v["order"]


def test_reshuffle_vector() -> None:
    """A reshuffle round's context, commitments, key and order."""
    v = FAIR["reshuffle"]
    ctx0 = unhex(v["context_0"])
    head = unhex(v["log_head"])
    d = v["discard"]
    pre = (
        rc.enc(rc.label("reshuffle"))
        + ctx0
        + rc.u32(v["round"])
        + head
        + rc.u16(len(d))
        + bytes(sorted(d))
    )
    assert pre.hex() == v["context_preimage"]
    ctx = rc.reshuffle_context(ctx0, v["round"], head, d)
    assert ctx.hex() == v["context"]
    seeds = {p: unhex(s) for p, s in v["seeds"].items()}
    for p, c in v["commitments"].items():
        assert rc.commitment(ctx, p, seeds[p]).hex() == c
    assert rc.deck_key(ctx, seeds).hex() == v["deck_key"]
    assert rc.round_order(ctx, seeds, d) == v["order"]


def test_rejection_vector() -> None:
    """uniform() skips words at or above the limit; the limits themselves."""
    v = FAIR["rejection"]
    assert rc.shuffle(v["cards"], iter(v["words"])) == v["order"]
    for n, limit in v["limits"].items():
        assert 2**32 - (2**32 % int(n)) == limit


def test_log_vector() -> None:
    """Every event kind's encoding decodes, and the hash chain gives every head."""
    v = FAIR["log"]
    ctx = unhex(v["context"])
    head = rc.log_head0(ctx)
    assert head.hex() == v["head_0"]
    for item in v["events"]:
        raw = unhex(item["encoding"])
        ev = rc.decode_event(raw)
        want = item["event"]
        assert ev.kind == want["kind"]
        for k, x in want.items():
            if k != "kind":
                got = getattr(ev, k)
                assert (got.hex() if isinstance(got, bytes) else got) == x, (k, item)
        head = rc.log_next(head, raw)
        assert head.hex() == item["head"]
    assert head.hex() == v["final_head"]
    assert len(v["events"]) == v["count"]
    # The spec's own examples (§ Public log).
    assert rc.decode_event(unhex("010307")) == rc.Event("draw", seat=3, n=7)
    assert rc.decode_event(unhex("0268")) == rc.Event("turnup", card=104)
    assert rc.decode_event(unhex("040000000228")) == rc.Event("reshuffle", round=2, n=40)
    assert rc.decode_event(unhex("0602000100c8")) == rc.Event("action", seat=2, move=0x100C8)


def test_signature_vector() -> None:
    """The four signed messages and their deterministic Ed25519 signatures."""
    v = FAIR["signature"]
    key = Ed25519PrivateKey.from_private_bytes(unhex(v["private_key"]))
    public = key.public_key().public_bytes_raw()
    assert public.hex() == v["public_key"]
    ctx, c, seed = unhex(v["context"]), unhex(v["commitment"]), unhex(v["seed"])
    head, signer = unhex(v["head"]), v["signer"]
    messages = {
        "commitment": rc.sign_commit_msg(ctx, signer, c),
        "reveal": rc.sign_reveal_msg(ctx, signer, c, seed),
        "log_head": rc.sign_log_msg(ctx, signer, v["count"], head),
        "cards": rc.sign_cards_msg(ctx, v["cards_seat"], v["cards"]),
    }
    for name, message in messages.items():
        assert message.hex() == v["messages"][name], name
        assert key.sign(message).hex() == v["signatures"][name], name
        assert rc.verify(public, unhex(v["signatures"][name]), message)


def test_hand_transcript_vector_verifies_from_the_spec() -> None:
    """§ Verification steps 1–4 (all but the rules replay) on the vector hand, spec-only.

    The rules' ``decks = { 2 = 1, 6 = 2 }`` has to be read for ctx_0: the reading in
    :data:`tests.rawclient.INTERPRETATIONS` is the one that reproduces the vector.
    """
    t = load("hand-transcript.json")
    want = FAIR["hand"]
    seats = t["seats"]
    parts = rc.participants(seats)
    keys = {p: unhex(k) for p, k in t["public_keys"].items()}
    assert set(keys) == set(parts)
    for p, private in want["private_keys"].items():
        pk = Ed25519PrivateKey.from_private_bytes(unhex(private)).public_key()
        assert pk.public_bytes_raw() == keys[p]
    decks, jokers = rc.deck_setup(t["rules"], len(seats) - len(t["out"]))
    deck = rc.setup_cards(decks, jokers)
    ctx0 = rc.context0(unhex(t["game_id"]), t["hand_no"], decks, jokers, parts)
    log = [unhex(e) for e in t["log"]]
    assert log[0] == rc.setup_note(t["rules"], t["dealer"], t["out"])
    assert log[0].hex() == want["setup_note"]
    rounds = {r["round"]: r for r in t["rounds"]}
    me = seats[t["seat"]]
    orders: list[list[int]] = []

    def order_for(r: int, ctx: bytes, cards: list[int]) -> list[int]:
        rnd = rounds[r]
        assert cards == rnd["cards"]
        seeds = {p: unhex(x["seed"]) for p, x in rnd["reveals"].items()}
        assert set(seeds) == set(parts)
        assert seeds[me] == unhex(rnd["own_seed"])
        for p, seed in seeds.items():
            c = unhex(rnd["commitments"][p]["commitment"])
            assert rc.commitment(ctx, p, seed) == c, (r, p)
            assert rc.verify(
                keys[p],
                unhex(rnd["commitments"][p]["signature"]),
                rc.sign_commit_msg(ctx, p, c),
            )
            assert rc.verify(
                keys[p],
                unhex(rnd["reveals"][p]["signature"]),
                rc.sign_reveal_msg(ctx, p, c, seed),
            )
        order = rc.round_order(ctx, seeds, cards)
        orders.append(order)
        return order

    result = rc.replay(ctx0, log, deck, order_for)
    assert orders == want["orders"]
    assert result.rounds == len(t["rounds"])
    assert result.cards[t["seat"]] == t["cards"] == want["seat_cards"]
    assert result.count == want["count"]
    assert result.head.hex() == want["final_head"]
    for p, lh in t["log_heads"].items():
        assert (lh["count"], lh["head"]) == (result.count, result.head.hex())
        assert rc.verify(
            keys[p],
            unhex(lh["signature"]),
            rc.sign_log_msg(ctx0, p, lh["count"], unhex(lh["head"])),
        )
    assert rc.verify(
        keys[rc.DEALER],
        unhex(t["cards_signature"]),
        rc.sign_cards_msg(ctx0, me, t["cards"]),
    )


def _transcript_replay(log: list[bytes]) -> rc.Replay:
    """Replay the vector hand's log (possibly tampered with) with its revealed seeds."""
    t = load("hand-transcript.json")
    parts = rc.participants(t["seats"])
    decks, jokers = rc.deck_setup(t["rules"], len(t["seats"]))
    ctx0 = rc.context0(unhex(t["game_id"]), t["hand_no"], decks, jokers, parts)
    rounds = {r["round"]: r for r in t["rounds"]}

    def order_for(r: int, ctx: bytes, cards: list[int]) -> list[int]:
        seeds = {p: unhex(x["seed"]) for p, x in rounds[r]["reveals"].items()}
        return rc.round_order(ctx, seeds, cards)

    return rc.replay(ctx0, log, rc.setup_cards(decks, jokers), order_for)


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("020f", "0210", "not the stock's top"),  # the starter turned up is another card
        ("030117", "030017", "lacks"),  # seat 0 plays a card seat 1 holds
        ("040000000128", "040000000228", "Reshuffle"),  # round 2 before round 1
    ],
)
def test_stock_model_catches_a_tampered_log(old: str, new: str, why: str) -> None:
    """The spec-only stock model is not vacuous: one changed event fails the replay."""
    log = [unhex(e) for e in load("hand-transcript.json")["log"]]
    _transcript_replay(log)  # the untouched log replays
    i = log.index(unhex(old))
    log[i] = unhex(new)
    with pytest.raises(rc.SpecViolationError, match=why):
        _transcript_replay(log)


def test_deck_setup_reading() -> None:
    """The per-player deck table read as thresholds ("from that many players up")."""
    rules = "[deal]\ndecks = { 2 = 1, 6 = 2 }\njokers = 2\n"
    assert rc.deck_setup(rules, 2) == (1, 2)
    assert rc.deck_setup(rules, 5) == (1, 2)
    assert rc.deck_setup(rules, 6) == (2, 2)
    assert rc.deck_setup(rules, 8) == (2, 2)
    assert rc.deck_setup("[deal]\ndecks = 2\n", 3) == (2, 0)


def test_no_lanswitch_import() -> None:
    """The raw client is the spec's: it imports nothing of lanswitch."""
    source = Path(rc.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+lanswitch\b", source, re.MULTILINE)


# --------------------------------------------------------------------------------------------
# Against a real host


@dataclass
class Host:
    """A ``lanswitch host --headless`` subprocess and what it printed."""

    proc: subprocess.Popen[str]
    name: str
    address: str
    port: int
    fingerprint: str
    lines: list[str]
    errors: list[str]

    def output(self) -> str:
        """Everything the host printed so far, for failure messages."""
        return "stdout:\n" + "".join(self.lines) + "\nstderr:\n" + "".join(self.errors)


def _pump(stream: IO[str], sink: list[str], q: queue.Queue[str | None] | None) -> None:
    """Drain a pipe (so the host never blocks on it), optionally feeding lines to a queue."""
    for line in stream:
        sink.append(line)
        if q is not None:
            q.put(line)
    if q is not None:
        q.put(None)


LISTEN = re.compile(r'^table "(?P<name>.*)" listening on (?P<addr>[0-9.]+):(?P<port>\d+)\s*$')
PIN = re.compile(r"^fingerprint: (?P<hex>[0-9a-fA-F]{64}) \((?P<words>.*)\)\s*$")


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    """Start a one-hand, one-bot host on loopback; stop it by its pid when the test ends."""
    name = f"raw-{os.getpid()}-{secrets.token_hex(3)}"
    cmd = [
        sys.executable,
        "-m",
        "lanswitch",
        "--data-dir",
        str(tmp_path / "data"),
        "host",
        "--headless",
        "--name",
        name,
        "--seats",
        "2",
        "--bots",
        "1",
        "--hands",
        "1",
        "--interface",
        "127.0.0.1",
        "--port",
        "0",
        "--bot-delay",
        "0",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    lines: list[str] = []
    errors: list[str] = []
    q: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines, q), daemon=True).start()
    threading.Thread(target=_pump, args=(proc.stderr, errors, None), daemon=True).start()
    try:
        listen: re.Match[str] | None = None
        pin: re.Match[str] | None = None
        deadline = time.monotonic() + STARTUP_S
        while listen is None or pin is None:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail("host printed no listen/fingerprint lines in time:\n" + "".join(errors))
            try:
                line = q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                proc.wait(timeout=EXIT_S)
                pytest.fail(
                    f"host exited ({proc.returncode}) before listening:\n" + "".join(errors)
                )
            if listen is None:
                listen = LISTEN.match(line)
                assert listen is not None, f"first line is not the listen line: {line!r}"
                assert listen["name"] == name
            elif pin is None:
                pin = PIN.match(line)
        yield Host(
            proc, name, listen["addr"], int(listen["port"]), pin["hex"].lower(), lines, errors
        )
    finally:
        if proc.poll() is None:
            proc.kill()  # its own pid only
        proc.wait(timeout=EXIT_S)


def test_raw_client_plays_a_hand(host: Host) -> None:
    """The spec-only client plays one whole hand against a bot and every promise holds."""
    started = time.monotonic()
    client = rc.RawClient(host.address, host.port, host.fingerprint, name="Raw")
    try:
        report = client.run(SESSION_S)
    except Exception as exc:
        raise AssertionError(f"{exc!r}\n{host.output()}") from exc
    note = (
        f"violations: {report.violations}\nrejects: {report.rejects}\n"
        f"error: {report.error}\nreceived: {report.received[:12]}…{report.received[-12:]}\n"
        f"{host.output()}"
    )
    assert report.tls_version == "TLSv1.3"
    assert report.welcome is not None, note
    assert report.welcome["table"] == host.name, note
    assert report.received[:2] == ["welcome", "lobby"], note  # § Handshake 4
    assert report.error is None, note
    assert report.hand is not None, note
    assert report.rounds, note
    assert report.steps > 0, note
    assert report.views > 0, note
    assert report.moves > 0, note
    assert report.hand_over is not None, note
    assert report.reveals == len(report.rounds), note
    assert report.log_heads is not None, note
    assert report.bye is not None, note
    assert not report.violations, note
    assert report.count == len(client.log) > 0
    host.proc.wait(timeout=EXIT_S)
    assert host.proc.returncode == 0, host.output()
    assert time.monotonic() - started < 55


def _hello(version: int = rc.PROTOCOL_VERSION) -> dict[str, Any]:
    """A new player's ``hello`` with a fresh session key."""
    return {
        "type": "hello",
        "version": version,
        "name": "Probe",
        "key": Ed25519PrivateKey.generate().public_key().public_bytes_raw(),
        "spectate": True,
        "password": None,
        "token": None,
    }


def _error_for(host: Host, data: bytes, *, after_hello: bool = False) -> dict[str, Any]:
    """Open a pinned connection, (say hello,) write ``data``: the ``error`` it earns.

    After a hello the host's ``welcome``, ``lobby`` and any ``ping`` come first; the error
    must follow before the connection ends.
    """
    conn = rc.Connection(host.address, host.port, host.fingerprint, timeout=10.0)
    deadline = time.monotonic() + 10.0
    try:
        if after_hello:
            conn.send(_hello())
            welcome = conn.recv(deadline)
            assert welcome is not None, host.output()
            assert welcome["type"] == "welcome", welcome
        conn.send_raw(data)
        while True:
            answer = conn.recv(deadline)
            assert answer is not None, f"the host closed without an error\n{host.output()}"
            if answer["type"] not in ("lobby", "ping", "chat"):
                assert answer["type"] == "error", answer
                return answer
    finally:
        conn.close()


def test_host_refuses_bad_frames_and_messages(host: Host) -> None:
    """``hello`` of version 2: ``version_mismatch``; a 0-length frame: ``bad_frame``.

    Also a frame above 64 KiB (``too_big``, judged on its length alone) and a second
    ``hello`` (``unexpected``), from § Framing, § Connection states and § Error codes.
    """
    answer = _error_for(host, rc.frame(rc.encode_message(_hello(version=2))))
    assert answer["code"] == "version_mismatch", answer
    assert "1" in answer["text"], answer  # the text names both versions
    assert "2" in answer["text"], answer

    answer = _error_for(host, b"\x00\x00\x00\x00")
    assert answer["code"] == "bad_frame", answer

    answer = _error_for(host, rc.u32(rc.MAX_PAYLOAD + 1))
    assert answer["code"] == "too_big", answer

    answer = _error_for(host, rc.frame(rc.encode_message(_hello())), after_hello=True)
    assert answer["code"] == "unexpected", answer

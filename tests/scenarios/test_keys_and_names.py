"""Issue #15 over real TLS on loopback: a session key is one person's, and names are fit to
print (items 2, 7 and the combining-marks half of 8).

* A raw client reads a player's session key off the lobby — where every seat's key is public
  — and says ``hello`` with it. Before, the host seated it with that key, and the victim's
  client, which took the first lobby seat showing its key for its own, could take the
  attacker's seat for its own: its commitments failed, and its hands were void with it
  blamed. Now the host refuses the ``hello`` (``bad_token``) and the victim, which knows its
  seat by the host's word (``lobby.you``), plays on: its seat, its fair verdicts.
* ``lanswitch host --name`` with a tab: before, the name went out raw, every ``welcome``
  failed the host's own check of what it sends, and nobody could join. Now the host cleans
  its own name as it cleans a joiner's.

Everything binds 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.client import Client
from lanswitch.fairdeal.primitives import public_bytes
from lanswitch.tls import client_context
from tests.cheats import LOOPBACK, Person, all_fair, make_host, play_over_tls
from tests.scenarios.test_cli_net import Host, env, lanswitch


async def _say_hello(port: int, hello: p.Hello, *, until: type[p.Message]) -> list[p.Message]:
    """Connect over TLS (no pin: an attacker trusts whatever answers), send ``hello`` and
    read until a message of type ``until`` or the end of the connection (at most 10 s)."""
    reader, writer = await asyncio.open_connection(
        LOOPBACK, port, ssl=client_context(), server_hostname=""
    )
    conn = p.Connection(p.Role.CLIENT)
    got: list[p.Message] = []
    try:
        writer.write(conn.send(hello))
        async with asyncio.timeout(10):
            for _ in range(1000):
                data = await reader.read(65536)
                got += conn.receive_data(data)
                if not data or conn.closed or any(isinstance(m, until) for m in got):
                    break
    finally:
        writer.close()
    return got


def test_a_session_key_read_off_the_lobby_is_refused_and_its_owner_plays_on(
    tmp_path: Path,
) -> None:
    host = make_host(hands=2)
    answers: dict[str, list[p.Message]] = {}

    async def attack(clients: dict[str, Client]) -> None:
        ann = clients["ann"]
        for _ in range(500):  # up to 5 s for ann to be seated
            if ann.session.lobby is not None and ann.session.seat is not None:
                break
            await asyncio.sleep(0.01)
        port = ann.target.port
        own = public_bytes(Ed25519PrivateKey.generate())
        # Watch with a key of our own, and read ann's off the lobby as anyone can.
        spy = p.Hello(version=p.PROTOCOL_VERSION, name="eve", key=own, spectate=True)
        seen = await _say_hello(port, spy, until=p.LobbyState)
        lobby = next(m for m in seen if isinstance(m, p.LobbyState))
        stolen = next(s.key for s in lobby.seats if s.name == "ann")
        assert stolen == ann.session.public_key
        for name, spectate in (("mallory", False), ("mal", True)):
            hello = p.Hello(version=p.PROTOCOL_VERSION, name=name, key=stolen, spectate=spectate)
            answers[name] = await _say_hello(port, hello, until=p.LobbyState)

    out = play_over_tls(host, [Person("ann"), Person("bob")], tmp_path, limit=60, during=attack)
    for name in ("mallory", "mal"):
        first = answers[name][0]
        assert isinstance(first, p.Error), answers[name]
        assert first.code is p.ErrorCode.BAD_TOKEN
        assert "session key is already at this table" in first.text
    # The victim is unharmed: the seat it was welcomed to is its seat by the host's word,
    # the host never let a second holder of its key in, and every hand verified fair.
    ann = out.sessions["ann"]
    welcome = next(n.data for n in ann.news if n.kind == "welcome")
    assert isinstance(welcome, p.Welcome)
    assert ann.seat == welcome.seat is not None
    assert ann.lobby is not None
    assert [s.key for s in ann.lobby.seats].count(ann.public_key) == 1
    assert not any("mal" in s.name for s in ann.lobby.seats)
    assert len(out.statuses("ann")) == 2
    all_fair(out)


def test_a_tab_in_the_hosts_own_name_is_cleaned_and_the_table_is_joinable(
    tmp_path: Path,
) -> None:
    host = Host(
        tmp_path,
        "--name",
        "Kitchen\ttable",
        "--seats",
        "2",
        "--bots",
        "1",
        "--hands",
        "1",
        "--bot-delay",
        "0",
    )
    try:
        join = subprocess.run(
            lanswitch(
                tmp_path / "ann",
                "join",
                f"{LOOPBACK}:{host.port}",
                "--bot",
                "heuristic",
                "--name",
                "ann",
                "--interface",
                LOOPBACK,
            ),
            capture_output=True,
            text=True,
            timeout=45,
            env=env(),
        )
        assert join.returncode == 0, (join.stdout, join.stderr, host.err_path.read_text())
        assert re.search(r"^hand 1 verified fair", join.stdout, re.M), join.stdout
        assert "Kitchen table" in join.stdout
        assert host.proc.wait(30) == 0
    finally:
        host.stop()
    assert "not sent" not in host.err_path.read_text()

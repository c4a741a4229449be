"""``lanswitch host`` and ``lanswitch join`` as a user runs them, on loopback: real processes,
real TLS, zeroconf bound to 127.0.0.1 (never the machine's real interfaces)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

LOOPBACK = "127.0.0.1"


def lanswitch(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "lanswitch", "--data-dir", str(data), *args]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


class Host:
    """A ``lanswitch host`` process; its first lines tell where it listens."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.out_path = tmp / "host.out"
        self.err_path = tmp / "host.err"
        self.proc = subprocess.Popen(
            lanswitch(tmp / "host-data", "host", "--headless", "--interface", LOOPBACK, *args),
            stdout=self.out_path.open("w"),
            stderr=self.err_path.open("w"),
            env=env(),
        )
        self.port = 0
        self.fingerprint = ""
        for _ in range(200):  # up to 20 s for the advertiser's probing and the first lines
            text = self.out_path.read_text()
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", text)
            f = re.search(r"fingerprint: ([0-9a-f]{64})", text)
            if m and f:
                self.port, self.fingerprint = int(m.group(1)), f.group(1)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise AssertionError(f"host did not start: {text!r} {self.err_path.read_text()!r}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # our own child, by its handle
        self.proc.wait(10)


@pytest.fixture
def host_factory(tmp_path: Path):  # type: ignore[no-untyped-def]
    started: list[Host] = []

    def make(*args: str) -> Host:
        h = Host(tmp_path, *args)
        started.append(h)
        return h

    yield make
    for h in started:
        h.stop()


def test_a_match_hosted_and_joined_by_name_and_by_address(tmp_path: Path, host_factory) -> None:  # type: ignore[no-untyped-def]
    name = f"Loop {uuid.uuid4().hex[:6]}"
    host = host_factory(
        "--name", name, "--seats", "3", "--bots", "1", "--hands", "2", "--bot-delay", "0"
    )
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    joins = [
        subprocess.Popen(
            lanswitch(
                tmp_path / f"d{i}",
                "join",
                where,
                "--bot",
                "heuristic",
                "--name",
                who,
                "--transcripts",
                str(transcripts),
                "--interface",
                LOOPBACK,
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for i, (where, who) in enumerate(((name, "ann"), (f"{LOOPBACK}:{host.port}", "bob")))
    ]
    outs = []
    for j in joins:
        out, err = j.communicate(timeout=60)
        outs.append(out)
        assert j.returncode == 0, (out, err)
    assert host.proc.wait(30) == 0
    for out in outs:
        assert len(re.findall(r"^hand \d verified fair", out, re.M)) == 2, out
        assert "the host ended the match" in out
    files = sorted(transcripts.glob("*.json"))
    assert len(files) == 4
    verify = subprocess.run(
        lanswitch(tmp_path / "v", "verify", *map(str, files)),
        capture_output=True,
        text=True,
        timeout=60,
        env=env(),
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    host_out = host.out_path.read_text()
    assert "match over after 2 hands" in host_out
    assert "ann joined" in host_out
    # The joins pinned the host's certificate by what they were told.
    pins = (tmp_path / "d1" / "pins.json").read_text()
    assert host.fingerprint in pins


def test_join_errors_are_clear(tmp_path: Path) -> None:
    def join(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            lanswitch(tmp_path / "d", "join", *args),
            capture_output=True,
            text=True,
            timeout=60,
            env=env(),
        )

    missing = join("No Such Table", "--bot", "random", "--interface", LOOPBACK, "--timeout", "0.5")
    assert missing.returncode == 1
    assert "no table called 'No Such Table'" in missing.stderr
    assert "HOST:PORT" in missing.stderr
    hand = join(f"{LOOPBACK}:1", "--headless")
    assert hand.returncode == 2
    assert "--bot" in hand.stderr
    closed = join(f"{LOOPBACK}:9", "--bot", "random")
    assert closed.returncode == 1
    assert "could not reach" in closed.stderr


def test_host_option_errors_are_usage_errors(tmp_path: Path) -> None:
    def host(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            lanswitch(tmp_path / "d", "host", "--headless", "--interface", LOOPBACK, *args),
            capture_output=True,
            text=True,
            timeout=60,
            env=env(),
        )

    for args, text in (
        (("--seats", "9"), "2..8"),
        (("--bots", "5", "--seats", "4"), "more than --seats"),
        (("--rules", "nonesuch"), "no such preset"),
        (("--port", "70000"), "0..65535"),
    ):
        result = host(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert text in result.stderr


def test_join_shows_the_certificate_words_it_trusts(tmp_path: Path, host_factory) -> None:  # type: ignore[no-untyped-def]
    from lanswitch.tls import fingerprint_words

    host = host_factory("--seats", "2", "--bots", "1", "--hands", "1", "--bot-delay", "0")
    result = subprocess.run(
        lanswitch(tmp_path / "j", "join", f"{LOOPBACK}:{host.port}", "--bot", "random"),
        capture_output=True,
        text=True,
        timeout=60,
        env=env(),
    )
    assert result.returncode == 0, result.stderr
    words = fingerprint_words(bytes.fromhex(host.fingerprint))
    assert f"host certificate: {words} (new, pinned)" in result.stdout
    assert "joined seat 1 at" in result.stdout


def test_play_and_host_on_a_taken_port_say_so_and_name_a_free_one(tmp_path: Path) -> None:
    """Issue 26, item 6: a busy port printed asyncio's Python tuple ("error while attempting
    to bind on address ('127.0.0.1', 47123): address already in use")."""
    import pty
    import socket

    with socket.socket() as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = []
        for command in ("play", "host"):
            # play reads keys from a terminal: its input is one (a pseudo-terminal's end)
            keys, terminal = pty.openpty()
            try:
                result = subprocess.run(
                    lanswitch(
                        tmp_path / "d", command, "--interface", LOOPBACK, "--port", str(port)
                    ),
                    capture_output=True,
                    text=True,
                    timeout=60,
                    env=env(),
                    stdin=terminal,
                )
            finally:
                os.close(keys)
                os.close(terminal)
            assert result.returncode == 1, result.stderr
            said.append(result.stderr)
    for text in said:
        found = re.fullmatch(
            rf"lanswitch: port {port} is in use — another lanswitch\? try --port (\d+)\n", text
        )
        assert found is not None, text
        assert int(found.group(1)) != port


def test_play_and_join_without_a_terminal_say_so_in_one_line(tmp_path: Path) -> None:
    """``play </dev/null`` printed prompt_toolkit's traceback (EOFError)."""
    for args in (("play", "--interface", LOOPBACK), ("join", f"{LOOPBACK}:9")):
        result = subprocess.run(
            lanswitch(tmp_path / "d", *args),
            capture_output=True,
            text=True,
            timeout=60,
            env=env(),
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"lanswitch: error: lanswitch {args[0]} needs a terminal"), line


def test_a_password_table_asks_for_its_password_or_says_to_give_it(  # type: ignore[no-untyped-def]
    tmp_path: Path, host_factory
) -> None:
    """Issue 26, item 2: joining a table with a password without one said "the host closed the
    connection: bad_password: wrong table password". By name, the advertisement says a
    password is needed, so nothing is sent without one; by address, the host's refusal says
    so. Without a terminal to ask on, each is one line saying to use --password; with the
    right one, the seat is taken."""
    name = f"Locked {uuid.uuid4().hex[:6]}"
    host = host_factory(
        *("--table", name, "--password", "s3cret", "--seats", "2", "--bots", "1"),
        *("--hands", "1", "--bot-delay", "0"),
    )

    def join(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            lanswitch(tmp_path / "j", "join", *args, "--bot", "heuristic", "--name", "bob"),
            capture_output=True,
            text=True,
            timeout=90,
            env=env(),
            stdin=subprocess.DEVNULL,
        )

    by_name = ("--interface", LOOPBACK, name)
    by_address = (f"{LOOPBACK}:{host.port}",)
    for where in (by_name, by_address):
        result = join(*where)
        assert result.returncode == 1, result.stdout + result.stderr
        assert result.stderr.splitlines()[-1] == (
            f'lanswitch: table "{name if where is by_name else where[0]}" needs a password: '
            "ask its host for it, and give it with --password PW"
        ), result.stderr
        wrong = join(*where, "--password", "guess")
        assert wrong.returncode == 1
        assert "is not table" in wrong.stderr.splitlines()[-1], wrong.stderr
        assert "bad_password" not in result.stderr + wrong.stderr
    listed = subprocess.run(
        lanswitch(tmp_path / "j", "tables", "--interface", LOOPBACK, "--timeout", "2"),
        capture_output=True,
        text=True,
        timeout=60,
        env=env(),
        check=False,
    )
    (row,) = [line for line in listed.stdout.splitlines() if line.startswith(name)]
    assert "needs a password" in row, listed.stdout
    assert "s3cret" not in listed.stdout
    right = join(*by_name, "--password", "s3cret")
    assert right.returncode == 0, right.stdout + right.stderr
    assert "joined seat 1" in right.stdout, right.stdout
    host.stop()
    hosted = (tmp_path / "host.out").read_text()
    assert "password set" in hosted, hosted


def test_bad_addresses_ports_interfaces_and_seat_counts_are_one_line_before_anything_starts(
    tmp_path: Path,
) -> None:
    """Item 12: ``join 10.78.0.1:99999`` was taken for a table's name; ``join HOST:1`` opened
    the full-screen client to say it was "closed"; ``play --interface bogus`` said "Temporary
    failure in name resolution"; ``host --seats 4 --bots 4`` waited for ever."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            lanswitch(tmp_path / "d", *args),
            capture_output=True,
            text=True,
            timeout=60,
            env=env(),
            stdin=subprocess.DEVNULL,
        )

    cases = (
        (("join", "10.78.0.1:99999"), 2, "the port must be 1..65535, not 99999"),
        (("join", "127.0.0.1:99999", "--bot", "random"), 2, "the port must be 1..65535"),
        (("play", "--interface", "bogus"), 2, "--interface wants an IPv4 address"),
        (("play", "--interface", "10.255.254.253"), 2, "is not an address of this machine"),
        (("host", "--interface", "bogus"), 2, "--interface wants an IPv4 address"),
        (("tables", "--interface", "bogus"), 2, "--interface wants an IPv4 address"),
        (("host", "--seats", "4", "--bots", "4"), 2, "a hand needs at least one person"),
        (("play", "--seats", "4", "--bots", "4"), 2, "leaves no seat for you"),
        (("play", "--bots", "8"), 2, "at most 8 seats"),
    )
    for args, code, needle in cases:
        result = run(*args)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert needle in result.stderr, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) <= 2, result.stderr  # usage + the line
        assert "\x1b[" not in result.stdout  # nothing full-screen started
    # A terminal join that cannot reach the table says so on the command line, not on a
    # screen that opens and says "closed".
    # (its input a terminal, as a person's is: a pseudo-terminal's end)
    import pty

    keys, terminal = pty.openpty()
    t0 = time.monotonic()
    try:
        result = subprocess.run(
            lanswitch(tmp_path / "d", "join", f"{LOOPBACK}:1"),
            capture_output=True,
            text=True,
            timeout=60,
            env=env(),
            stdin=terminal,
        )
    finally:
        os.close(keys)
        os.close(terminal)
    assert result.returncode == 1, result.stderr
    assert "\x1b[" not in result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"lanswitch: could not reach {LOOPBACK}:1:"), line
    assert "connection refused" in line
    assert "closed" not in line
    assert time.monotonic() - t0 < 30
    helped = run("join", "--help").stdout
    assert "table browser" in " ".join(helped.split())


def test_join_headless_and_the_host_log_print_names_escaped(tmp_path: Path, host_factory) -> None:  # type: ignore[no-untyped-def]
    """Issue 15, item 3: a table name with U+009B (CSI) and U+202E reached ``join
    --headless`` raw (the wire's name type allowed C1), and the host's log printed a rules
    file's name raw. Whatever the host lets through of such a name, neither prints a
    character a terminal would act on."""
    from lanswitch.textsafe import unsafe

    rules = tmp_path / "sw\x1b]0;TITLE\x07\u202e.toml"  # a file's name is anybody's choice
    rules.write_text('base = "switch"\n', encoding="utf-8")
    name = f"Kit\u009b2J\u202e{uuid.uuid4().hex[:4]}"
    host = host_factory("--name", name, "--rules", str(rules), "--seats", "2", "--bots", "1")
    joined = subprocess.Popen(
        lanswitch(
            tmp_path / "watcher",
            "join",
            f"{LOOPBACK}:{host.port}",
            "--spectate",
            "--headless",
            "--name",
            f"eve\u202e\u009b{uuid.uuid4().hex[:4]}",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        for _ in range(100):  # up to 10 s for the welcome, and the host's line about it
            if " joined to watch" in host.out_path.read_text() or joined.poll() is not None:
                break
            time.sleep(0.1)
    finally:
        joined.kill()  # our own child, by its handle
        out, err = joined.communicate(timeout=10)
    host.stop()
    host_out = host.out_path.read_text()
    assert "sw\\x1b]0;TITLE\\x07\\u202e" in host_out, host_out
    assert "joined, watching Kit" in out, (out, err)  # the name as sent, escaped
    for text in (out, err, host_out):
        raw = [f"U+{ord(c):04X}" for c in text if c != "\n" and unsafe(c)]
        assert not raw, (raw, text)

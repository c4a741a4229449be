"""Nothing that came from the network, a file or the history reaches the terminal raw (issue 15,
item 3): :func:`lanswitch.textsafe.escape` itself, then each printer as a user runs it — a real
``lanswitch`` process whose stdout is searched for a character a terminal would act on.
``lanswitch tables`` hears a table advertised on loopback only (zeroconf bound to 127.0.0.1).
The headless ``join`` and the host's log are in ``tests/scenarios/test_cli_net.py`` (TLS).
"""

from __future__ import annotations

import asyncio
import io
import os
import secrets
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lanswitch import protocol as p
from lanswitch.discovery import Table, TableAdvertiser
from lanswitch.history import HandRow, History, history_path
from lanswitch.rules import load_rules
from lanswitch.textsafe import escape, safe_stream, unsafe
from tests.test_discovery import needs_multicast

ROOT = Path(__file__).resolve().parent.parent

#: What an attacker puts in a string: clear the screen, set the title (OSC … BEL), CSI in one
#: byte (C1), right-to-left override, zero-width space, a combining mark with no base, DEL.
INJECTED = "\x1b[2J\x1b]0;TITLE\x07\u009b31m\u202eevil\u200b\x7f"
SHOWN = "\\x1b[2J\\x1b]0;TITLE\\x07\\x9b31m\\u202eevil\\u200b\\x7f"


def raw_controls(text: str) -> list[str]:
    """The characters of ``text`` a terminal would act on or hide (newlines aside)."""
    return [f"U+{ord(ch):04X}" for ch in text if ch != "\n" and unsafe(ch)]


def run(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lanswitch", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=False,
    )


# -- the function ------------------------------------------------------------------------


def test_escape_shows_every_dangerous_character_and_nothing_else() -> None:
    assert escape(INJECTED) == SHOWN
    for ch, shown in {
        "\x00": "\\x00",
        "\t": "\\x09",
        "\r": "\\x0d",
        "\n": "\\x0a",
        "\x85": "\\x85",  # NEL (C1)
        "\u061c": "\\u061c",
        "\u200e": "\\u200e",
        "\u200f": "\\u200f",
        "\u2066": "\\u2066",
        "\u2069": "\\u2069",
        "\u202a": "\\u202a",
        "\u200d": "\\u200d",
        "\u2060": "\\u2060",
        "\ufeff": "\\ufeff",
        "\u2028": "\\u2028",
        "\udcff": "\\udcff",  # a lone surrogate (no encoding can write it)
        "\U000e0041": "\\U000e0041",  # a tag character
    }.items():
        assert escape(f"a{ch}b") == f"a{shown}b", repr(ch)
    # Ordinary text, accents, other scripts and emoji pass as they are; so does a backslash.
    for fine in ("Kitchen", "café", "Café", "Ελλάδα", "日本語", "عربي", "🂡 ace", "a\\x1b"):
        assert escape(fine) == fine
    # A combining mark on a letter stays; one with nothing to combine with is shown.
    assert escape("e\u0301") == "e\u0301"
    assert escape("\u0301abc") == "\\u0301abc"
    assert escape("a \u0301") == "a \\u0301"
    assert escape("\x1b\u0301") == "\\x1b\\u0301"
    # Idempotent, and keeps what it is told to.
    assert escape(escape(INJECTED)) == escape(INJECTED)
    assert escape("one\ntwo\x1b", keep="\n") == "one\ntwo\\x1b"
    assert escape("\u009b\u202e", style="toml") == "\\u009b\\u202e"
    assert not raw_controls(escape(INJECTED + "".join(map(chr, range(0x2000, 0x2070)))))


def test_safe_stream_escapes_every_write() -> None:
    buf = io.StringIO()
    out = safe_stream(buf)
    out.write(f"table {INJECTED}\n")
    out.flush()
    assert buf.getvalue() == f"table {SHOWN}\n"
    assert safe_stream(out) is out


# -- the printers, as run by a user ------------------------------------------------------


def test_rules_file_prints_its_strings_escaped_and_still_loads(tmp_path: Path) -> None:
    """``lanswitch rules FILE`` printed the file's name string with its C1 and bidi
    characters raw (the TOML dump escapes only C0 and DEL)."""
    path = tmp_path / "house.toml"
    name = "house \u009b2J \u202eevil\u200b"
    path.write_text(
        f'base = "switch"\nname = "{name}"\ndescription = "desc \u202e"\n', encoding="utf-8"
    )
    done = run(tmp_path / "data", "rules", str(path))
    assert done.returncode == 0, done.stderr
    assert not raw_controls(done.stdout), raw_controls(done.stdout)
    assert "house \\u009b2J \\u202eevil\\u200b" in done.stdout
    # What it prints is still the same rule set, as a file.
    again = tmp_path / "again.toml"
    again.write_text(done.stdout, encoding="utf-8")
    assert tomllib.loads(done.stdout)["name"] == name
    assert load_rules(str(again)) == load_rules(str(path))


def _row(table: str, name: str, log: tuple[str, ...]) -> HandRow:
    return HandRow(
        at="2026-12-01T05:00:00+00:00",
        table=table,
        host="10.0.0.2:4000",
        client="c1",
        game_id="00" * 16,
        hand_no=1,
        seat=1,
        name=name,
        rules=f"sw{INJECTED}",
        ending="out",
        placings=(f"ann{INJECTED}", name),
        place=2,
        status="unfair",
        verdict="UNFAIR",
        why=f"because {INJECTED}",
        culprits=(f"@{INJECTED}",),
        transcript=None,
        log=log,
    )


def test_history_prints_what_it_kept_escaped(tmp_path: Path) -> None:
    """A table name with U+009B (CSI) and U+202E, kept from a hand, reached ``lanswitch
    history`` raw; so did the hand's log, the players' names and the verdict's reason."""
    data = tmp_path / "data"
    data.mkdir()
    with History(history_path(data)) as h:
        (hand,) = h.add([_row(f"Kit\u009bchen\u202e{INJECTED}", "me", (f"ann: {INJECTED}",))])
    listed = run(data, "history")
    assert listed.returncode == 0, listed.stderr
    assert not raw_controls(listed.stdout), raw_controls(listed.stdout)
    assert "Kit\\x9bchen\\u202e" in listed.stdout
    shown = run(data, "history", str(hand))
    assert shown.returncode == 0, shown.stderr
    assert not raw_controls(shown.stdout), raw_controls(shown.stdout)
    assert f"ann: {SHOWN}" in shown.stdout
    assert f"because {SHOWN}" in shown.stdout


@needs_multicast
def test_tables_prints_txt_fields_escaped() -> None:
    """``rules=sw\\e[2J…\\e]0;TITLE\\a`` in a TXT record cleared the terminal and set its
    title when ``lanswitch tables`` printed it."""
    name = f"Den {os.getpid()}-{secrets.token_hex(3)}"

    async def scenario() -> subprocess.CompletedProcess[str]:
        listener = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = listener.sockets[0].getsockname()[1]
        advertiser = TableAdvertiser(
            name=name,
            port=port,
            rules=f"sw{INJECTED}",
            seats_total=4,
            seats_free=3,
            fingerprint=secrets.token_hex(32),
            version=p.PROTOCOL_VERSION,
            host=f"pc{INJECTED}",
            interfaces=["127.0.0.1"],
        )
        async with advertiser:
            done = await asyncio.to_thread(
                run, Path(os.devnull), "tables", "--interface", "127.0.0.1", "--timeout", "3"
            )
        listener.close()
        await listener.wait_closed()
        return done

    done = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert done.returncode == 0, done.stderr
    line = next((x for x in done.stdout.splitlines() if x.startswith(name)), None)
    assert line is not None, done.stdout
    assert f"sw{SHOWN}" in line
    assert not raw_controls(done.stdout), raw_controls(done.stdout)


def test_the_table_browser_shows_bidi_and_zero_width_characters_escaped() -> None:
    """The browser (prompt_toolkit) showed ESC and C1 as ^[ and <9b> by itself, but drew
    U+202E and U+200B as they are."""
    from lanswitch.tui.browser import TableList
    from lanswitch.tui.render import Look

    state = TableList()
    fake = Table(
        "Kit\u202echen\u200b", ("10.0.0.2",), 4000, "sw\u202e", 2, 4, 2, "ab" * 32, "pc\u200b", ""
    )
    state.update([fake])
    shown = "".join(text for _style, text, *_ in state.render(Look()))
    assert not raw_controls(shown), raw_controls(shown)
    assert "Kit\\u202echen\\u200b" in shown


@pytest.mark.parametrize("style", ["python", "toml"])
def test_escape_never_leaves_an_unsafe_character(style: str) -> None:
    """Every code point of the BMP and the first of each higher plane, alone and after a
    letter: what is left raw is never a control, format, separator or surrogate."""
    points = [*range(0x10000), *range(0x10000, 0x110000, 0x1000), 0xE0001, 0xE007F]
    text = "".join(chr(c) for c in points)
    out = escape(text, style=style)  # type: ignore[arg-type]
    assert not raw_controls(out)

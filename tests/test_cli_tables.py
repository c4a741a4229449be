"""``lanswitch tables`` hears a table advertised on loopback (zeroconf bound to 127.0.0.1 only,
never the real network; every wait bounded)."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from lanswitch.discovery import TableAdvertiser
from lanswitch.tls import fingerprint_words
from tests.test_discovery import needs_multicast

ROOT = Path(__file__).resolve().parent.parent


async def _list(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lanswitch",
        "tables",
        "--interface",
        "127.0.0.1",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@needs_multicast
def test_tables_lists_an_advertised_table_as_text_and_json() -> None:
    name = f"Den {os.getpid()}-{secrets.token_hex(3)}"
    fp = secrets.token_hex(32)

    gone = f"Gone {os.getpid()}-{secrets.token_hex(3)}"

    async def scenario() -> tuple[tuple[int, str, str], tuple[int, str, str], int]:
        # A port something listens on (the table's host), and one nothing listens on (a host
        # that crashed without a goodbye): only the first is listed.
        listener = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = listener.sockets[0].getsockname()[1]
        dead = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        dead_port = dead.sockets[0].getsockname()[1]
        dead.close()
        await dead.wait_closed()

        def advertiser(table: str, at: int) -> TableAdvertiser:
            return TableAdvertiser(
                name=table,
                port=at,
                rules="irish",
                seats_total=4,
                seats_free=3,
                fingerprint=fp,
                version=1,
                interfaces=["127.0.0.1"],
            )

        async with advertiser(name, port), advertiser(gone, dead_port):
            as_json = await _list("--json", "--timeout", "3")
            as_text = await _list("--timeout", "3")
        listener.close()
        await listener.wait_closed()
        return as_json, as_text, port

    (code, out, _), (code2, text, _), port = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert code == 0
    assert not [r for r in json.loads(out) if r["name"] == gone]
    rows = [r for r in json.loads(out) if r["name"] == name]
    assert len(rows) == 1
    row = rows[0]
    assert row["port"] == port
    assert row["rules"] == "irish"
    assert row["free_seats"] == 3
    assert row["seats"] == 4
    assert row["fingerprint"] == fp
    assert "127.0.0.1" in row["addresses"]
    assert code2 == 0
    assert f"{name}  irish  3 of 4 seats free" in text
    assert fingerprint_words(bytes.fromhex(fp)) in text


def test_tables_with_a_bad_interface_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    from lanswitch.cli import main

    code = main(["tables", "--interface", "not-an-address", "--timeout", "0.5"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--interface" in err


@needs_multicast
def test_a_table_under_another_service_type_is_not_listed() -> None:
    """``LANSWITCH_SERVICE_TYPE`` keeps two sets of tables apart on one network (the suite's
    processes each use their own, side by side on one loopback): a ``tables`` of another type
    does not list this process's table; one of the same type does."""
    name = f"Apart {os.getpid()}-{secrets.token_hex(3)}"

    async def listed(service_type: str) -> list[str]:
        proc = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "lanswitch", "tables", "--interface", "127.0.0.1"),
            *("--json", "--timeout", "3"),
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=str(ROOT), LANSWITCH_SERVICE_TYPE=service_type),
        )
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, err.decode()
        return [r["name"] for r in json.loads(out)]

    async def scenario() -> tuple[list[str], list[str]]:
        listener = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = listener.sockets[0].getsockname()[1]
        table = TableAdvertiser(
            name=name,
            port=port,
            rules="switch",
            seats_total=4,
            seats_free=3,
            fingerprint=secrets.token_hex(32),
            version=1,
            interfaces=["127.0.0.1"],
        )
        async with table:
            other = await listed(f"_lsw-o{os.getpid()}._tcp.local.")
            same = await listed(os.environ["LANSWITCH_SERVICE_TYPE"])
        listener.close()
        await listener.wait_closed()
        return other, same

    other, same = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert name in same
    assert name not in other


def test_a_malformed_service_type_is_said_in_one_line() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), LANSWITCH_SERVICE_TYPE="lanswitch")
    done = subprocess.run(
        [sys.executable, "-m", "lanswitch", "tables", "--interface", "127.0.0.1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("lanswitch: error: LANSWITCH_SERVICE_TYPE='lanswitch' is not"), (
        done.stderr
    )
    assert len(done.stderr.splitlines()) == 1, done.stderr

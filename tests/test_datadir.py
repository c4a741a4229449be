"""The data dir and every file in it that holds cards, seeds or keys are private to the user
(issue 15, item 8): 0700 and 0600, when made and when found looser on start."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanswitch.datadir import make_private
from lanswitch.history import History
from lanswitch.host import HostConfig
from lanswitch.hosting import new_table, resume_table, settle
from lanswitch.journal import Journal
from lanswitch.tls import PinStore, load_or_create_identity
from tests.test_server import LOOPBACK

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def lax_umask() -> Iterator[None]:
    """A umask that hides nothing, so what is private is so by lanswitch's doing."""
    old = os.umask(0o000)
    yield
    os.umask(old)


def test_a_new_data_dir_and_its_files_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    identity = load_or_create_identity(data)
    assert mode(data) == 0o700
    assert mode(identity.key_path) == 0o600
    table = new_table(HostConfig(name="Modes"), data, address=LOOPBACK, port=0)
    assert table.journal is not None
    assert mode(data / "tables") == 0o700
    assert mode(table.journal.path) == 0o600
    for extra in data.glob("tables/*.sqlite-*"):  # the WAL and its index, once written
        assert mode(extra) == 0o600, extra
    table.journal.finish()
    with History.in_dir(tmp_path / "joiner") as history:
        assert mode(tmp_path / "joiner") == 0o700
        assert mode(history.path) == 0o600
    pins = PinStore.in_dir(tmp_path / "pinner")  # a join with --no-history: pins only
    pins.accept("kitchen", bytes(range(32)))
    assert mode(tmp_path / "pinner") == 0o700
    assert mode(pins.path) == 0o600


def test_an_older_loose_data_dir_is_tightened_on_start(tmp_path: Path) -> None:
    """A data dir as an older lanswitch left it: 0755, its history, key and pins 0644, a
    journal 0644 in a 0755 tables/. Hosting a table makes them private; so does opening the
    history (a ``join``) on its own."""
    data = tmp_path / "data"
    identity = load_or_create_identity(data)
    loose = Journal.create(data, "Old")
    loose.close()
    for name in ("history.sqlite", "history.sqlite-wal", "pins.json"):
        (data / name).write_bytes(b"")
    for path in [identity.key_path, loose.path, *data.iterdir()]:
        if path.is_file():
            path.chmod(0o644)
    data.chmod(0o755)
    (data / "tables").chmod(0o755)
    new_table(HostConfig(name="Modes"), data, address=LOOPBACK, port=0, journal=False)
    assert mode(data) == 0o700
    assert mode(data / "tables") == 0o700
    for path in (data / "history.sqlite", data / "history.sqlite-wal", data / "pins.json"):
        assert mode(path) == 0o600, path
    assert mode(identity.key_path) == 0o600
    assert mode(loose.path) == 0o600
    assert mode(identity.cert_path) == 0o644  # the certificate is public: left as it was

    (data / "history.sqlite").chmod(0o644)
    data.chmod(0o755)
    with History.in_dir(data):  # what a join's HistoryWriter opens after its first hand
        pass
    assert mode(data) == 0o700
    assert mode(data / "history.sqlite") == 0o600


def test_a_resumed_host_tightens_its_data_dir(tmp_path: Path) -> None:
    data = tmp_path / "data"
    table = new_table(HostConfig(name="Resume"), data, address=LOOPBACK, port=0)
    assert table.journal is not None
    table.journal.set("port", 4000)  # as serving it does; then the host crashed
    table.journal.close()
    (journal,) = data.glob("tables/*.sqlite")
    journal.chmod(0o644)
    data.chmod(0o755)
    resumed = resume_table(data)
    try:
        assert mode(data) == 0o700
        assert mode(journal) == 0o600
    finally:
        resumed.host.shutdown(resumed.clock())
        settle(resumed)


def test_make_private_only_ever_tightens(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    secret = data / "host-key.pem"
    secret.write_bytes(b"")
    secret.chmod(0o400)  # stricter than 0600: left so
    make_private(data)
    assert mode(secret) == 0o400
    other = data / "notes.txt"  # not ours to judge
    other.write_bytes(b"")
    other.chmod(0o644)
    make_private(data)
    assert mode(other) == 0o644

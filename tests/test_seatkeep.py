"""Kept seats (``lanswitch/seatkeep.py``): the store on its own — a round trip, the owner's
modes, a damaged or foreign file ignored, written whole or not at all, one join a seat. The new
run's part in the hand is ``tests/test_rejoin.py``."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch.datadir import make_private
from lanswitch.seatkeep import SEATS_DIR, SeatKeeper
from lanswitch.session import Session
from lanswitch.tls import address_pin_key
from tests.test_server import LOOPBACK

TABLE = address_pin_key(LOOPBACK, 4711)
posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def raw(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes_raw()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---------------------------------------------------------------------------------------------
# The store


@posix
def test_a_kept_seat_comes_back_whole_and_only_its_owner_can_read_it(tmp_path: Path) -> None:
    old = os.umask(0o000)  # lanswitch's modes, not the umask's
    try:
        first = SeatKeeper.open(tmp_path, TABLE)
        assert first.holds
        assert first.kept is None  # nothing kept yet: a fresh key
        assert first.note is None
        key = first.key
        assert first.save(key, b"token-1", "bob") is None
        first.close()
    finally:
        os.umask(old)
    (path,) = (tmp_path / SEATS_DIR).glob("*.json")
    assert mode(tmp_path / SEATS_DIR) == 0o700
    assert mode(path) == 0o600
    assert all(mode(f) == 0o600 for f in (tmp_path / SEATS_DIR).iterdir())  # (its lock too)
    data = json.loads(path.read_text("utf-8"))
    assert data["table"] == TABLE
    assert "127.0.0.1" not in path.name  # named by a digest of the table's key

    again = SeatKeeper.open(tmp_path, TABLE)
    try:
        assert again.kept is not None
        assert raw(again.kept.key) == raw(key)
        assert raw(again.key) == raw(key)  # the join's key: the kept one
        assert (again.kept.token, again.kept.name) == (b"token-1", "bob")
        session = Session("bob", key=again.key, entropy=os.urandom)
        again.attach(session)
        assert session.token == b"token-1"
        assert session.restored
        assert session.hello().token == b"token-1"  # its first hello resumes
        assert again.forget() is None
        assert not path.exists()
    finally:
        again.close()
    other = SeatKeeper.open(tmp_path, address_pin_key(LOOPBACK, 4712))  # another table
    assert other.kept is None
    other.close()


DAMAGED: list[tuple[str, Callable[[str], bytes]]] = [
    ("empty", lambda table: b""),
    ("cut short", lambda table: b'{"version": 1, "table": '),
    ("not utf-8", lambda table: b"\xff\xfe{}"),
    ("a list", lambda table: b"[]"),
    ("a newer version", lambda table: _seat(table, version=2)),
    ("another table's", lambda table: _seat("127.0.0.1:1")),
    ("a key of 31 bytes", lambda table: _seat(table, key="ab" * 31)),
    ("a key not hex", lambda table: _seat(table, key="zz" * 32)),
    ("an empty token", lambda table: _seat(table, token="")),
    ("a name that is a number", lambda table: _seat(table, name=7)),
    ("no key at all", lambda table: _seat(table, key=None)),
    ("huge", lambda table: b" " * 100_000 + _seat(table)),
]


def _seat(table: str, **changes: object) -> bytes:
    data: dict[str, object] = {
        "version": 1,
        "table": table,
        "key": "11" * 32,
        "token": b"t".hex(),
        "name": "bob",
        "saved": "2026-01-01T00:00:00+00:00",
    }
    data.update(changes)
    return json.dumps({k: v for k, v in data.items() if v is not None}).encode()


@pytest.mark.parametrize(("why", "content"), DAMAGED, ids=[d[0] for d in DAMAGED])
def test_a_damaged_or_foreign_file_is_ignored_and_replaced(
    tmp_path: Path, why: str, content: Callable[[str], bytes]
) -> None:
    keeper = SeatKeeper.open(tmp_path, TABLE)  # (makes the folder)
    keeper.path.write_bytes(content(TABLE))
    keeper.close()
    again = SeatKeeper.open(tmp_path, TABLE)  # no exception, no traceback: nothing kept
    try:
        assert again.kept is None, why
        assert raw(again.key) != bytes.fromhex("11" * 32)  # a fresh key
        session = Session("bob", key=again.key, entropy=os.urandom)
        again.attach(session)
        assert session.token is None  # it joins as someone new
        assert not session.restored
        assert again.save(again.key, b"new", "bob") is None  # the next welcome replaces it
        assert SeatKeeper(again.path.parent, TABLE).load() is not None
    finally:
        again.close()


def test_a_good_file_as_written_by_hand_is_read(tmp_path: Path) -> None:
    keeper = SeatKeeper.open(tmp_path, TABLE)
    keeper.path.write_bytes(_seat(TABLE))
    keeper.close()
    again = SeatKeeper.open(tmp_path, TABLE)
    again.close()
    assert again.kept is not None
    assert raw(again.kept.key) == bytes.fromhex("11" * 32)


def test_a_seat_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keeper = SeatKeeper.open(tmp_path, TABLE)
    assert keeper.save(keeper.key, b"first", "bob") is None
    before = keeper.path.read_bytes()
    assert keeper.save(keeper.key, b"second", "bob") is None  # replaced: no temporary left
    assert sorted(f.suffix for f in keeper.path.parent.iterdir()) == [".json", ".lock"]

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)  # (undone at once)
    warning = keeper.save(keeper.key, b"third", "bob")
    monkeypatch.undo()
    assert warning is not None
    assert warning.startswith("your seat could not be kept in ")
    assert "No space left on device" in warning
    assert keeper.path.read_bytes() != before  # the second, whole
    kept = SeatKeeper(keeper.path.parent, TABLE).load()
    assert kept is not None
    assert kept.token == b"second"
    assert sorted(f.suffix for f in keeper.path.parent.iterdir()) == [".json", ".lock"]
    keeper.close()


def test_one_join_a_seat_a_second_one_keeps_nothing(tmp_path: Path) -> None:
    first = SeatKeeper.open(tmp_path, TABLE)
    assert first.save(first.key, b"mine", "bob") is None
    second = SeatKeeper.open(tmp_path, TABLE)
    assert not second.holds
    assert second.kept is None  # not the first one's seat: it would take it from it
    assert second.note is not None
    assert second.note.startswith("another lanswitch join on this computer holds your seat")
    assert raw(second.key) != raw(first.key)
    assert second.save(second.key, b"theirs", "bob 2") is None  # nothing written
    assert second.forget() is None  # nothing removed
    second.close()
    kept = SeatKeeper(first.path.parent, TABLE).load()
    assert kept is not None
    assert kept.token == b"mine"
    first.close()  # (the lock goes with the process, however it ends)
    third = SeatKeeper.open(tmp_path, TABLE)
    assert third.holds
    assert third.kept is not None
    third.close()


def test_a_data_dir_that_cannot_be_written_keeps_nothing_and_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("a file, not a folder")  # (a read-only disk would do, but not for root)
    keeper = SeatKeeper.open(data, TABLE)
    assert not keeper.holds
    assert keeper.kept is None
    assert keeper.note is not None
    assert keeper.note.startswith("your seat cannot be kept (")
    assert keeper.save(keeper.key, b"t", "bob") is None  # keeps nothing, says nothing more
    keeper.close()


@posix
def test_make_private_tightens_the_kept_seats(tmp_path: Path) -> None:
    keeper = SeatKeeper.open(tmp_path, TABLE)
    keeper.save(keeper.key, b"t", "bob")
    keeper.close()
    folder = tmp_path / SEATS_DIR
    folder.chmod(0o755)
    keeper.path.chmod(0o644)
    make_private(tmp_path)
    assert mode(folder) == 0o700
    assert mode(keeper.path) == 0o600

"""The seats you hold at tables you joined, kept on disk, so that a ``join`` that ended — a
crash, a closed terminal, Ctrl-C, a kill — takes its seat back when it runs again (a shell:
files and locks).

What a client needs to come back to its seat is what its ``welcome`` gave it, and what that is
bound to: the resume token, and the session's Ed25519 private key (the host takes a token only
from the key it was issued to: ``Host._hello``). Both are kept, per table, in
``DATA_DIR/seats/``; the next ``join`` of that table builds its
:class:`~lanswitch.session.Session` with the kept key and sets the kept token, so that its first
``hello`` resumes (:class:`SeatKeeper`, used by the headless and the terminal ``join`` alike). A
host that no longer knows the token (the seat was given up, another table by that name, a new
match) refuses it with ``bad_token``, and the client joins as someone new
(:class:`lanswitch.client.Client`), whose ``welcome`` replaces what was kept.

**The table's key** is the pin store's (:func:`lanswitch.tls.table_pin_key`: the table's name
as people read it; :func:`lanswitch.tls.address_pin_key`: ``HOST:PORT`` for a join by
address), so the same table is found again however it was typed. Each table is one file named
by a digest of that key, the key itself inside and checked: a file for another key, or one
that is not a kept seat at all (damaged, cut short, written by hand), is ignored — the join
makes a fresh key, as it would with nothing kept — and replaced by the next ``welcome``.

**The files** are the owner's only: the folder 0700, each file 0600 (the key signs this
player's moves), written whole or not at all (a temporary file in the folder, then
``os.replace``). A seat is removed when it is given up for good (the player leaves, the host
ends the match or closes the connection with an error); a lost link, a host that is gone or a
table paused keeps it (:meth:`lanswitch.client.Client.run`). During a dealer-blind hand this
seat plays nothing is kept: its locking keys cannot be, so a new run could not play that hand
on (it is kept again once the hand is settled).

**One join a seat.** A ``join`` holds its table's lock (``<digest>.lock``, an OS lock the
system releases when the process ends, however it ends) for as long as it runs: a second
``join`` of the same table from the same data dir meanwhile would only take the seat from the
first, and the first take it back, each time its link came back; so the second joins as
someone new and keeps nothing.

**Not kept: the fair deal's seeds.** They stay fresh random, drawn for each round and never
written down. A new run does not need them to play on: a round an earlier run committed to
shows that run's commitment under the seat's own key, and the seed comes back, signed by it,
with everyone's after the hand (``lanswitch.fairdeal.seat``). A run that ended between
committing and revealing fails that reveal, as a vanished player's does: the hand is void,
blamed on this seat.

**Kept: the rounds its seeds went into** (``revealed``,
:class:`~lanswitch.fairdeal.seat.RevealedRounds`). A new run remembers nothing of what the
earlier one saw, and a round's context is the same in any replay of the hand: so a host that
knew the seat's seed (the earlier run revealed it) could deal the hand again to the new run
with a commitment of its own chosen after that seed, and choose the deal. Before each seed
leaves, the client writes here the round's fixed announcement — the host's signed statement of
every commitment that seed went in with — for the last hand the seat revealed in
(:class:`lanswitch.client.Client` writes it before it sends the reveal); a new run takes its
earlier seed back only in a round replayed with those very commitments, and one replayed with
others is the host's signed contradiction: unfair, proven. A file written before this record
was kept (version 1) is not used: the new run would take its seed back on the host's word.

Nothing here raises for a file it cannot read or write: keeping a seat is a convenience, and a
failure is one line (:meth:`SeatKeeper.save`'s warning), never the end of a game.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .datadir import FILE_MODE, private_dir, write_private
from .fairdeal.seat import RevealedRounds
from .fairdeal.transcript import json_text

if TYPE_CHECKING:
    from .session import Session

__all__ = ["SEATS_DIR", "KeptSeat", "SeatKeeper"]

SEATS_DIR = "seats"
"""The data dir's folder of kept seats."""

_VERSION = 2  # 1: no ``revealed`` (module docstring)
_MAX_TOKEN = 256  # bytes: a host's tokens are 48 characters (lanswitch/host/_core.py)
_MAX_FILE = 1 << 20
"""Bytes: a kept seat is a few hundred, and each round it revealed in 1-4 KB (a fixed
announcement of up to eight seats and 108 cards); a longer file is not a kept seat."""


@dataclass(frozen=True, slots=True)
class KeptSeat:
    """What a ``join`` needs to take its seat back: the session's key and its resume token."""

    key: Ed25519PrivateKey
    token: bytes
    name: str  # the player's name when it was kept (for the person: the seat's is the host's)
    saved: str  # when, ISO 8601 (UTC)
    revealed: RevealedRounds | None = None  # the rounds its seeds went into (module docstring)


def _digest(table: str) -> str:
    return hashlib.sha256(table.encode("utf-8")).hexdigest()[:32]


class SeatKeeper:
    """The kept seat of one table (module docstring), for one ``join``: :meth:`open` it, build
    the session with :attr:`key` and :meth:`attach`, hand it to the
    :class:`~lanswitch.client.Client` (which saves and removes the seat), :meth:`close` it at
    the end."""

    def __init__(self, folder: Path, table: str) -> None:
        self.table = table
        self.path = folder / f"{_digest(table)}.json"
        self.lock_path = folder / f"{_digest(table)}.lock"
        self._lock: int | None = None
        self._forgotten = False  # the seat was given up: the lock file goes at close
        self.kept: KeptSeat | None = None
        """The seat kept when this join began (None: nothing, or nothing usable)."""
        self.key = Ed25519PrivateKey.generate()
        """The key to join with: the kept seat's, else a fresh one."""
        self.note: str | None = None
        """Why nothing can be kept by this join, in words (None: it keeps its seat)."""

    @classmethod
    def open(cls, data: Path, table: str) -> SeatKeeper:
        """The keeper of ``table``'s seat (a pin key: :func:`lanswitch.tls.table_pin_key`,
        :func:`lanswitch.tls.address_pin_key`) in the data dir ``data``, holding its lock, with
        the seat kept there if there is one to use. Never raises: where the folder cannot be
        made, or another ``join`` holds the lock, it keeps nothing and says why (:attr:`note`)."""
        keeper = cls(data / SEATS_DIR, table)
        try:
            private_dir(keeper.path.parent)
            keeper._lock = _lock(keeper.lock_path)
        except OSError as e:
            keeper.note = f"your seat cannot be kept ({e.strerror or e}): if this join ends, "
            keeper.note += "joining again makes a new player"
            return keeper
        if keeper._lock is None:
            keeper.note = (
                "another lanswitch join on this computer holds your seat at this table: this "
                "one joins as someone new"
            )
            return keeper
        keeper.kept = keeper.load()
        if keeper.kept is not None:
            keeper.key = keeper.kept.key
        return keeper

    @property
    def holds(self) -> bool:
        """Whether this join holds the table's lock (and so may keep its seat)."""
        return self._lock is not None

    def load(self) -> KeptSeat | None:
        """The seat kept for this table (None: none, or a file that is not one: damaged,
        foreign, another table's, of another version)."""
        try:
            with self.path.open("rb") as f:
                raw = f.read(_MAX_FILE + 1)
        except OSError:
            return None
        if len(raw) > _MAX_FILE:
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or data.get("version") != _VERSION:
                return None
            if data.get("table") != self.table:
                return None
            key, token = bytes.fromhex(data["key"]), bytes.fromhex(data["token"])
            name, saved = data.get("name", ""), data.get("saved", "")
            if len(key) != 32 or not 0 < len(token) <= _MAX_TOKEN:
                return None
            if not isinstance(name, str) or not isinstance(saved, str):
                return None
            revealed = data["revealed"]
            rounds = None if revealed is None else RevealedRounds.from_json(revealed)
            private = Ed25519PrivateKey.from_private_bytes(key)
            return KeptSeat(private, token, name, saved, rounds)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            return None

    def attach(self, session: Session) -> None:
        """Set the kept token on ``session`` (built with :attr:`key`), so that its first
        ``hello`` resumes the seat, and the rounds its seeds went into; nothing if nothing is
        kept."""
        if self.kept is not None:
            session.token = self.kept.token
            session.restored = True
            session.keep = self.kept.revealed

    def save(
        self,
        key: Ed25519PrivateKey,
        token: bytes,
        name: str,
        revealed: RevealedRounds | None = None,
    ) -> str | None:
        """Keep ``key`` and ``token`` as this table's seat (a ``welcome`` came), with the
        rounds of the last hand its seeds went into (``revealed``: the session's ``keep``,
        written before the next seed leaves); a warning in words if the file cannot be written
        (None: kept, or this join keeps nothing)."""
        if not self.holds:
            return None
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        data = {
            "version": _VERSION,
            "table": self.table,
            "key": key.private_bytes_raw().hex(),
            "token": token.hex(),
            "name": name,
            "saved": now,
            "revealed": None if revealed is None else revealed.to_json(),
        }
        try:
            write_private(self.path, (json_text(data) + "\n").encode("utf-8"))
        except OSError as e:
            return (
                f"your seat could not be kept in {self.path} ({e.strerror or e}): if this "
                "join ends, joining again makes a new player"
            )
        return None

    def forget(self) -> str | None:
        """Remove this table's kept seat (given up for good); a warning in words if it cannot
        be removed (None: removed, or there was none)."""
        if not self.holds:
            return None
        try:
            self.path.unlink(missing_ok=True)
        except OSError as e:
            return f"your old seat could not be removed from {self.path} ({e.strerror or e})"
        self._forgotten = True
        return None

    def close(self) -> None:
        """Let the table's lock go (the join is over); the kept seat stays as it is. A seat
        given up (:meth:`forget`) leaves no lock file either: it is removed while still
        locked, and a ``join`` that opened it just before takes it as gone and locks the new
        one (``_lock``). On Windows an open file cannot be removed: there it stays."""
        fd, self._lock = self._lock, None
        if fd is not None:
            if self._forgotten:
                with contextlib.suppress(OSError):
                    self.lock_path.unlink()
            with contextlib.suppress(OSError):
                os.close(fd)  # (the lock goes with the descriptor)


def _lock(path: Path) -> int | None:
    """An exclusive lock on ``path`` (made 0600 if need be), held until its descriptor is
    closed or the process ends: the descriptor, or None if another process holds it. OSError
    if the file cannot be opened or locked at all.

    A lock file is removed by the join that gave its seat up, while it holds the lock
    (:meth:`SeatKeeper.close`): a lock then taken on the file it opened before the removal
    would lock nothing anyone else can find, so once locked the path must still name the
    same file, else the lock is let go and taken again on the new one (a few tries)."""
    for _ in range(5):
        fd = _lock_once(path)
        if fd is None:
            return None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)
    raise OSError(f"{path} went away each time it was locked")


def _lock_once(path: Path) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows: a byte-range lock
            import msvcrt

            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            except PermissionError:  # (EACCES: another process holds it)
                os.close(fd)
                return None
        else:
            import fcntl

            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    return fd

"""The host's journal on disk: one sqlite file per table, for ``--resume`` after a crash.

The pure host records every call it takes (:attr:`lanswitch.host.Host.inputs`, see that
module's docstring); the server shell hands each batch to :meth:`Journal.write` before it
sends what the batch produced. A batch is one transaction, so after a ``kill -9`` the journal
ends at a batch boundary: everything a client was told is in it, and nothing half-written.

Durability: WAL mode with ``synchronous=NORMAL``. A committed transaction is in the WAL file
(in the operating system's page cache at least) before the host sends anything, so a process
that dies keeps it; a power cut may lose the last transactions but never corrupts the file
(the sqlite documentation's guarantee for WAL + NORMAL). A table is a game among friends: a
flush to the disk for every move would cost more than it saves.

One process at a time: the host holds the file with ``locking_mode=EXCLUSIVE`` for as long as
it runs, so a second ``--resume`` of a live table fails (:class:`JournalBusy`) instead of two
hosts writing one journal. The operating system drops the lock when the process dies.

Files live in ``DATA/tables/``, named after the table and the time it started, readable by
their owner only (the folder 0700, the files 0600: :mod:`lanswitch.datadir`). A table whose
match ends (or whose host closes it) has its journal removed: there is nothing to resume.

A budget: a table's journal holds at most :data:`BUDGET` bytes of records. Only what joined
players (and the host's own clock and powers) did is journaled — a connection turned away at
its ``hello`` leaves no record (``lanswitch.server``) — but a player or spectator who was let in
can still send up to the rate limit's 500 requests a second, each a record. A write that would
go past the budget raises :class:`JournalFull` instead; the shell then removes the journal (a
journal that stopped short would resume an older table than the players saw) and says on the
host's terminal that this table can no longer be resumed after a crash. The game plays on.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .datadir import create_private, make_private, private_dir
from .errors import StateError

__all__ = [
    "BUDGET",
    "FORMAT",
    "Damaged",
    "Journal",
    "JournalBusy",
    "JournalError",
    "JournalFull",
    "Unfinished",
    "damaged",
    "journal_dir",
    "unfinished",
]

FORMAT = 1
"""The journal's schema version (``PRAGMA user_version``)."""

BUDGET = 128 << 20
"""Bytes of records one table's journal may hold (the file is somewhat larger: sqlite's pages
and index). Measured with the pure host, a lobby of four players pinged every 2 s journals
0.35 MiB an hour, one of 32 connections 2.6 MiB: days of play. A client let in that sends
messages at the rate limits (up to 5,000 a second) fills it within minutes; then crash
recovery ends for that table, loudly, and the game plays on."""


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE inputs (n INTEGER PRIMARY KEY, record BLOB NOT NULL);
"""


class JournalError(StateError):
    """A journal that cannot be created, read or written (the text says which and why)."""


class JournalBusy(JournalError):  # noqa: N818  (a state, not a failure of ours)
    """Another process holds the journal: its table is still being hosted."""


class JournalFull(JournalError):  # noqa: N818  (a state, not a failure of ours)
    """The journal reached its budget (:data:`BUDGET`): nothing more is written to it."""


def journal_dir(data: Path) -> Path:
    return data / "tables"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")[:40] or "table"


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None, timeout=0.0)
    try:
        con.execute("PRAGMA locking_mode=EXCLUSIVE")
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error:
        con.close()  # an exclusive lock half-taken on a damaged file would outlive the error
        raise
    return con


def _failed(path: Path, e: sqlite3.Error) -> JournalError:
    if isinstance(e, sqlite3.OperationalError) and "locked" in str(e):
        return JournalBusy(f"{path} is in use: its table is still being hosted")
    return JournalError(f"{path}: {e}")


class Journal:
    """One table's journal (see the module docstring)."""

    def __init__(
        self, path: Path, con: sqlite3.Connection, *, budget: int = BUDGET, size: int = 0
    ) -> None:
        self.path = path
        self._con: sqlite3.Connection | None = con
        self.budget = budget
        self.size = size  # bytes of records written so far

    @classmethod
    def create(cls, data: Path, name: str, *, budget: int = BUDGET) -> Journal:
        """A new, empty journal for table ``name`` in ``data``."""
        folder = journal_dir(data)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = folder / f"{_slug(name)}-{stamp}-{os.getpid()}.sqlite"
        try:
            make_private(data)
            private_dir(folder)
            # The journal holds the table's secrets (the host's signing key, its seeds): the
            # owner's only, like the host's TLS key. SQLite gives its WAL the same mode.
            create_private(path)
            con = _connect(path)
            with con:
                con.execute("BEGIN")
                for statement in _SCHEMA.strip().split(";"):
                    if statement.strip():
                        con.execute(statement)
                con.execute(f"PRAGMA user_version={FORMAT}")
                con.execute("INSERT INTO meta VALUES ('name', ?)", (name,))
                con.execute("INSERT INTO meta VALUES ('started', ?)", (time.time(),))
        except OSError as e:
            raise JournalError(f"cannot create a journal in {folder}: {e}") from None
        except sqlite3.Error as e:
            raise _failed(path, e) from None
        return cls(path, con, budget=budget)

    @classmethod
    def open(cls, path: Path, *, budget: int = BUDGET) -> Journal:
        """The journal at ``path``, held by this process from now on."""
        if not path.is_file():
            raise JournalError(f"no journal at {path}")
        try:
            con = _connect(path)
        except sqlite3.Error as e:
            raise _failed(path, e) from None
        try:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version != FORMAT:
                raise JournalError(
                    f"{path} is a journal of format {version}; this lanswitch reads {FORMAT}"
                )
            con.execute("SELECT count(*) FROM meta").fetchone()
            (size,) = con.execute("SELECT coalesce(sum(length(record)), 0) FROM inputs").fetchone()
        except (sqlite3.Error, JournalError) as e:
            # Closed on every failure: the connection's exclusive lock, left open on a damaged
            # file, made the next look at it in this process read "in use" (the newcomer pass:
            # --resume said "no unfinished table" beside a damaged journal, plain play nothing).
            con.close()
            if isinstance(e, JournalError):
                raise
            raise _failed(path, e) from None
        return cls(path, con, budget=budget, size=int(size))

    @property
    def con(self) -> sqlite3.Connection:
        if self._con is None:
            raise JournalError(f"{self.path} is closed")
        return self._con

    def write(self, records: Sequence[bytes]) -> None:
        """Append ``records`` as one transaction (JournalError if it did not happen;
        JournalFull, writing nothing, if they would take the journal past its budget)."""
        size = self.size + sum(len(r) for r in records)
        if size > self.budget:
            raise JournalFull(
                f"the journal {self.path.name} reached its budget of "
                f"{self.budget / (1 << 20):.4g} MiB: this table can no longer be resumed after "
                "a crash (it plays on)"
            )
        try:
            with self.con:
                self.con.execute("BEGIN")
                self.con.executemany(
                    "INSERT INTO inputs (record) VALUES (?)", ((r,) for r in records)
                )
        except sqlite3.Error as e:
            raise _failed(self.path, e) from None
        self.size = size

    def records(self) -> Iterator[bytes]:
        """Every record, in order."""
        try:
            rows = self.con.execute("SELECT n, record FROM inputs ORDER BY n").fetchall()
        except sqlite3.Error as e:
            raise _failed(self.path, e) from None
        for _n, record in rows:
            yield bytes(record)

    def set(self, key: str, value: str | int | float | bytes | None) -> None:
        try:
            with self.con:
                self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        except sqlite3.Error as e:
            raise _failed(self.path, e) from None

    def get(self, key: str) -> object:
        try:
            row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as e:
            raise _failed(self.path, e) from None
        return None if row is None else row[0]

    def close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
            self._con = None

    def finish(self) -> None:
        """The table is over: nothing to resume, the files go."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{self.path}{suffix}").unlink()


@dataclass(frozen=True, slots=True)
class Unfinished:
    """A journal left behind by a host that did not end its table."""

    path: Path
    name: str
    started: float
    busy: bool  # its host is still running
    stopped: float | None = None
    """When its host stopped it on purpose (Ctrl-C, ``q``: the journal's ``stopped``, a
    ``time.time()``); None where nobody did — a crash, a kill, a power cut."""

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started))
        return f'"{self.name}" (started {when}' + (", still hosted)" if self.busy else ")")


@dataclass(frozen=True, slots=True)
class Damaged:
    """A journal that cannot be read: not a table anyone can resume, but not nothing either
    (a disk that filled up, a file copied half-way, one from a newer lanswitch)."""

    path: Path
    why: str  # what is wrong with it, in words

    def describe(self) -> str:
        return (
            f"the journal {self.path} is damaged ({self.why}): that table cannot be resumed; "
            "a new table can still be started (delete the file to stop this note)"
        )


def unfinished(data: Path) -> list[Unfinished]:
    """The journals in ``data``, newest first (unreadable files are left out: :func:`damaged`
    lists them)."""
    return _scan(data)[0]


def damaged(data: Path) -> list[Damaged]:
    """The journals in ``data`` that cannot be read, and why."""
    return _scan(data)[1]


def _scan(data: Path) -> tuple[list[Unfinished], list[Damaged]]:
    found: list[Unfinished] = []
    broken: list[Damaged] = []
    folder = journal_dir(data)
    if not folder.is_dir():
        return found, broken
    for path in sorted(folder.glob("*.sqlite")):
        try:
            j = Journal.open(path)
        except JournalBusy:
            mtime = path.stat().st_mtime if path.exists() else 0.0
            found.append(Unfinished(path, _name_from(path), mtime, True))
            continue
        except JournalError as e:
            broken.append(Damaged(path, _why(e, path)))
            continue
        except OSError as e:
            broken.append(Damaged(path, e.strerror or str(e)))
            continue
        try:
            name, when, stopped = j.get("name"), j.get("started"), j.get("stopped")
        except JournalError as e:
            broken.append(Damaged(path, _why(e, path)))
            continue
        finally:
            j.close()
        if isinstance(name, str) and isinstance(when, float | int):
            on_purpose = float(stopped) if isinstance(stopped, float | int) else None
            found.append(Unfinished(path, name, float(when), False, on_purpose))
        else:
            broken.append(Damaged(path, "it does not say which table it is"))
    found.sort(key=lambda u: u.started, reverse=True)
    return found, broken


def _why(e: JournalError, path: Path) -> str:
    """A journal error's words without the path (the caller names the file once)."""
    text = str(e).replace(f"{path}: ", "").replace(f"{path} ", "")
    if text.startswith("is "):
        text = "it " + text
    return {
        "file is not a database": "it is not a journal lanswitch can read",
        "database disk image is malformed": "it is cut short or corrupted",
    }.get(text, text)


def _name_from(path: Path) -> str:
    """A busy journal cannot be read: its file name stands in for the table's name."""
    return re.sub(r"-\d{8}-\d{6}-\d+$", "", path.stem)

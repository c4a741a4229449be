"""The client's history of finished hands, in sqlite (a shell: it touches the disk and the clock).

Theory of operation
-------------------
Every client keeps ``DATA_DIR/history.sqlite`` (:data:`FILE_NAME`): one row per finished hand
it saw — when (UTC), the table's name and the host's address, the game id and hand number,
this client's seat and name, the rules, how the hand ended and the placings by name, the
verdict of its own check of the deal (status, the verifier's line, the reason and who is to
blame), the hand as it was told to this client (the same lines as the terminal's log,
:mod:`lanswitch.narrate`; ``lanswitch history ID`` prints them), and, for a seat, **the
transcript itself**: the very bytes ``lanswitch verify FILE``
reads, which are what ``lanswitch join --transcripts DIR`` writes
(:meth:`~lanswitch.fairdeal.Transcript.to_json`, UTF-8). ``lanswitch history`` lists the
rows; ``lanswitch verify --hand ID`` checks a stored transcript again with the same verifier.

Whichever deal dealt a hand, the row is made from the record's judgement
(:class:`~lanswitch.fairdeal.judgement.Judgement`: status, the line, the reason, who is to
blame, whether signatures prove it, who forfeits) and its proof, the deal's saved file, kept
in the ``transcript`` column: for a hand dealt **dealer-blind** (a table hosted with
``--blind``) that is the hand's blind file, which ``lanswitch verify --hand ID`` checks as it
checks any transcript (the verifier tells the formats apart). The ``deal`` column names the
deal (``commit-reveal``, ``dealer-blind``) as a label, so the listing says "dealer-blind".

A spectator has no transcript: it took no part in the deal and was shown no cards, so there
is nothing of its own to check. Its hands are still kept (status ``watched``, transcript NULL)
so the history shows every hand that was watched, and ``verify --hand`` says there is nothing
to check rather than pretending.

Writing (:class:`HistoryWriter`) never costs the game anything. The
:class:`~lanswitch.client.Client` hands it each finished
:class:`~lanswitch.session.HandRecord` (the client is the one place both the headless ``join``
and the terminal client pass); the writer turns it into a row at once and keeps it in a queue
until it is committed. A failure — a disk that is full, a database locked for
longer than :data:`BUSY_TIMEOUT`, a file that is not a database, a newer schema — never
raises: the first one becomes one warning line for the screen, the hand stays queued, and
every later hand retries the whole queue, so a lock that clears loses nothing. Whatever is
still queued when the client stops is counted in :meth:`HistoryWriter.close`'s message.

Two clients at once (two terminals on one laptop) share the file: it is in WAL mode (readers
never wait for a writer), every connection waits up to :data:`BUSY_TIMEOUT` for the write
lock, and each write is one short ``BEGIN IMMEDIATE`` transaction. A row is unique by (game
id, hand number, this client's public key), and inserted with ``INSERT OR IGNORE``: a write
retried after a commit whose answer was lost is not a second row. One row gives way: a hand
kept *unfinished* (its host stopped the table) is replaced by the same hand finished, once the
table is carried on (``--resume``) and the hand ends.

The writes run where the client runs them, on its event loop, between two messages: a hand's
row is one short transaction (a few tens of kilobytes), and the loop waits at most
:data:`BUSY_TIMEOUT` for another client's lock before the hand is queued for next time.

The schema has a version (table ``schema_version``, one row). Opening runs every step of
:data:`_MIGRATIONS` past the file's version, in one transaction; a file written by a newer
lanswitch (a version above :data:`SCHEMA_VERSION`) is a :class:`HistoryError` that says so,
and so is a file that is not an sqlite database.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from .datadir import create_private, make_private, tighten_sqlite
from .errors import StateError
from .fairdeal.judgement import COMMIT_REVEAL, DEALER_BLIND, deal_named
from .fairdeal.primitives import named
from .narrate import nth
from .session import HandRecord
from .textsafe import escape

__all__ = [
    "BUSY_TIMEOUT",
    "FILE_NAME",
    "SCHEMA_VERSION",
    "HandRow",
    "History",
    "HistoryError",
    "HistoryWriter",
    "close_writer",
    "history_path",
    "open_writer",
    "result_text",
    "row_of",
    "verdict_text",
]

FILE_NAME: Final = "history.sqlite"
SCHEMA_VERSION: Final = 4
BUSY_TIMEOUT: Final = 2.0  # seconds a connection waits for another's write lock

# Each step takes the schema from version i to i + 1. A later version appends its step (say an
# ALTER TABLE); a file at version 1 then gets only that step when it is next opened.
_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        """CREATE TABLE hands (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,            -- when it was recorded: ISO 8601, UTC
            tbl TEXT NOT NULL,           -- the table's name
            host TEXT NOT NULL,          -- the host's address, HOST:PORT
            client TEXT NOT NULL,        -- this client's public key (hex): one per session
            game_id TEXT NOT NULL,       -- hex
            hand_no INTEGER NOT NULL,
            seat INTEGER,                -- this client's seat (0-based); NULL: watching
            name TEXT NOT NULL,          -- this client's name
            rules TEXT NOT NULL,         -- the rules' name
            ending TEXT NOT NULL,        -- how the hand ended (the host's reason: out, void, …)
            placings TEXT NOT NULL,      -- JSON: the players' names, first place first
            place INTEGER,               -- this client's place (1-based); NULL: none
            status TEXT NOT NULL,        -- fair, unconfirmed, unfair, void, watched, unfinished
            verdict TEXT NOT NULL,       -- the verifier's line (Verdict.text()); '' if watched
            why TEXT NOT NULL,           -- the verdict's reason ('' if fair)
            culprits TEXT NOT NULL,      -- JSON: who is to blame
            transcript BLOB,             -- what `lanswitch verify FILE` reads; NULL if watched
            UNIQUE (game_id, hand_no, client)
        )""",
        "CREATE INDEX hands_at ON hands (id DESC)",
    ),
    (
        # 2: the hand as this client was told it (lanswitch.narrate), a JSON list of lines.
        "ALTER TABLE hands ADD COLUMN log TEXT NOT NULL DEFAULT '[]'",
    ),
    (
        # 3: a dealer-blind hand (its transcript column holds the hand's blind file).
        "ALTER TABLE hands ADD COLUMN blind INTEGER NOT NULL DEFAULT 0",
    ),
    (
        # 4: the judgement whole, whichever deal: the deal's name (which supersedes ``blind``,
        # still set for a blind hand), whether signatures prove the blame (NULL: a hand kept
        # before version 4, which did not say) and who forfeits the hand.
        "ALTER TABLE hands ADD COLUMN deal TEXT NOT NULL DEFAULT 'commit-reveal'",
        "UPDATE hands SET deal = 'dealer-blind' WHERE blind != 0",
        "ALTER TABLE hands ADD COLUMN proven INTEGER",
        "ALTER TABLE hands ADD COLUMN forfeit TEXT NOT NULL DEFAULT '[]'",
    ),
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

_COLUMNS: Final = (
    "at, tbl, host, client, game_id, hand_no, seat, name, rules, ending, placings, place, "
    "status, verdict, why, culprits, transcript, log, blind, deal, proven, forfeit"
)


class HistoryError(StateError):
    """The history file cannot be used (not a database, a newer schema, unreadable)."""


def history_path(data: Path) -> Path:
    """Where the history lives in the data dir ``data``."""
    return data / FILE_NAME


@dataclass(frozen=True, slots=True)
class HandRow:
    """One hand in the history (``id`` 0: not stored yet)."""

    at: str
    table: str
    host: str
    client: str
    game_id: str
    hand_no: int
    seat: int | None
    name: str
    rules: str
    ending: str
    placings: tuple[str, ...]
    place: int | None
    status: str
    verdict: str
    why: str
    culprits: tuple[str, ...]
    transcript: bytes | None
    id: int = 0
    log: tuple[str, ...] = ()  # the hand as this client was told it, a line each
    deal: str = COMMIT_REVEAL.name  # which deal dealt it (a label): ``transcript`` is its file
    proven: bool | None = None  # signatures prove the blame (None: not said, a row before v4)
    forfeit: tuple[str, ...] = ()  # who forfeits the hand (ids)

    def as_json(self) -> dict[str, Any]:
        """The row for ``lanswitch history --json`` (seats and places count from 1)."""
        return {
            "id": self.id,
            "when": self.at,
            "table": self.table,
            "host": self.host,
            "game_id": self.game_id,
            "hand_no": self.hand_no,
            "seat": None if self.seat is None else self.seat + 1,
            "name": self.name,
            "rules": self.rules,
            "ending": self.ending,
            "placings": list(self.placings),
            "place": self.place,
            "result": result_text(self),
            "status": self.status,
            "fair": self.status == "fair",
            "verdict": verdict_text(self),
            "verdict_line": self.verdict,
            "reason": self.why,
            "culprits": list(self.culprits),
            "transcript": self.transcript is not None,
            "log": list(self.log),
            "deal": self.deal,
            "dealer_blind": self.deal == DEALER_BLIND.name,
            "proven": self.proven,
            "forfeit": list(self.forfeit),
        }


def row_of(
    record: HandRecord,
    *,
    name: str,
    table: str,
    host: str,
    client: str,
    at: str,
    log: Sequence[str] = (),
) -> HandRow:
    """The row for ``record``, a hand this client (``name``, public key hex ``client``) saw at
    ``table`` on ``host``, finished at ``at``; ``log``, the hand as it was told to it."""
    names = record.names

    def called(seat: int) -> str:
        return names[seat] if seat < len(names) and names[seat] else f"seat {seat + 1}"

    over = record.over
    void = over.reason == "void"
    placings = () if void else tuple(called(s) for s in over.placings)
    place = None
    if not void and record.seat is not None and record.seat in over.placings:
        place = over.placings.index(record.seat) + 1
    j, proof = record.judgement, record.proof
    unfinished = over.reason == "unfinished" and record.seat is not None
    return HandRow(
        at=at,
        table=table,
        host=host,
        client=client,
        game_id=record.game_id.hex(),
        hand_no=record.hand_no,
        seat=record.seat,
        # The name the table gave this seat in the hand ("root 2" where a "root" sat already:
        # the newcomer pass read "root in seat 4" beside "2. root, 3. root 2"), else the one
        # this client asked for.
        name=name if record.seat is None else called(record.seat),
        rules=record.rules,
        ending=over.reason,
        placings=placings,
        place=place,
        # A hand watched has no judgement: kept as watched (see the module docstring); nor
        # has a hand its host stopped mid-play that this client stopped waiting for.
        status=j.status if j is not None else "unfinished" if unfinished else "watched",
        verdict="" if j is None else j.text(),
        # As for any hand: the fair deal's ids (seat2, @dealer), as the verifier names them.
        why="" if j is None else j.reason,
        culprits=() if j is None else j.culprits,
        transcript=None if proof is None else proof.text().encode("utf-8"),
        log=tuple(log),
        deal=record.deal.name,
        proven=None if j is None else j.proven,
        forfeit=() if j is None else j.forfeit,
    )


def result_text(row: HandRow) -> str:
    """The result in a few words: "you won", "Alice won, you 3rd", "Alice won", "void".
    Names are escaped for printing (:func:`lanswitch.textsafe.escape`)."""
    if row.status == "unfinished" or row.ending == "unfinished":  # (watched, too)
        return "unfinished: no result"
    if row.ending == "void" or not row.placings:
        return "void: no result"
    if row.place == 1:
        return "you won"
    first = f"{escape(row.placings[0])} won"
    return first if row.place is None else f"{first}, you {nth(row.place)}"


def verdict_text(row: HandRow) -> str:
    """The verdict in a few words: "fair, every card legal", or what failed and who is to blame
    (escaped for printing: the reason and the names came from the hand)."""
    deal = deal_named(row.deal)
    if row.status == "fair":
        return f"{deal.tagged('fair')}, every card legal"
    if row.status == "watched":
        return f"{deal.tagged('watched')}: no transcript of yours to check"
    if row.status == "unfinished":
        return "not checked: the host stopped the table during the hand and never carried it on"
    # The row keeps the fair deal's ids (as the verifier names them); a person reads "the
    # host" for @dealer and "seat N" (counted from 1) for seatN-1, never the ids themselves.
    who = ", ".join(escape(_people(c)) for c in row.culprits) or "nobody"
    return f"{escape(deal.tagged(row.status.upper()))}: {escape(_people(row.why))} (blame {who})"


_SEATS = tuple(f"seat {i + 1}" for i in range(16))


def _people(text: str) -> str:
    """``text`` with the fair deal's ids as people count: "the host", "seat 2"."""
    return named(text, _SEATS)


# ---------------------------------------------------------------------------------------------
# The store


class History:
    """The history file, open (see the module docstring). A context manager."""

    def __init__(self, path: Path, *, timeout: float = BUSY_TIMEOUT) -> None:
        self.path = path
        self._timeout = timeout
        tighten_sqlite(path)  # your cards: a file an older lanswitch left readable is made 0600
        try:
            # isolation_level None: no implicit transactions; each write is BEGIN IMMEDIATE.
            self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise HistoryError(f"cannot open the history {path}: {e}") from None
        try:
            self._prepare()
        except HistoryError:
            self._db.close()
            raise
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise HistoryError(_describe(path, e)) from e
        except BaseException:
            self._db.close()
            raise

    @classmethod
    def in_dir(cls, data: Path, *, timeout: float = BUSY_TIMEOUT) -> History:
        """The history in the data dir ``data`` (made, with the directory, if missing)."""
        try:
            # Your cards: the data dir 0700, the file 0600 before sqlite writes a byte (its
            # -wal and -shm files take the file's mode); an older, looser one is tightened.
            make_private(data)
            create_private(history_path(data))
        except OSError as e:
            raise HistoryError(f"cannot make the data dir {data}: {e.strerror or e}") from None
        return cls(history_path(data), timeout=timeout)

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the write lock from its start (BEGIN IMMEDIATE: the
        busy timeout applies here, not at a later upgrade from a read lock, which could
        deadlock against another writer and fail at once)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")  # a full disk may fail here: rolled back like any failure
        except BaseException:
            with suppress(sqlite3.Error):  # a connection already gone: nothing left to undo
                db.execute("ROLLBACK")
            raise

    def _wal(self) -> None:
        """Put the file in WAL mode (once per file: the mode is kept in the file).

        Changing the mode needs the file to itself, and SQLite does not wait for that with the
        busy timeout: another client writing at that moment makes it fail at once. So it is
        tried again, in short steps, within the same timeout; a file already in WAL mode
        needs nothing. (A file system without shared memory keeps the old mode: it works,
        with readers and writers waiting for each other.)"""
        db = self._db
        steps = max(1, int(self._timeout / 0.02))
        for step in range(steps):
            if str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
                return
            try:
                db.execute("PRAGMA journal_mode=WAL").fetchone()
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or step == steps - 1:
                    raise
            time.sleep(0.02)

    def _prepare(self) -> None:
        """WAL mode, and the schema at this version. A file already as it should be is only
        read: listing the history never waits for a client that is writing to it."""
        if self._version(self._db) == SCHEMA_VERSION:
            self._wal()
            return
        self._wal()
        with self._write() as db:  # made or migrated: by one client, the others wait
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            version = self._version(db)
            for step in _MIGRATIONS[version:]:
                for statement in step:
                    db.execute(statement)
            if version == 0:
                db.execute("DELETE FROM schema_version")  # none, or a damaged zero: one row
                db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            elif version < SCHEMA_VERSION:
                db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def _version(self, db: sqlite3.Connection) -> int:
        """The file's schema version (0: a new file); HistoryError if newer than ours."""
        known = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
        ).fetchone()
        rows = db.execute("SELECT version FROM schema_version").fetchall() if known else []
        if len(rows) > 1 or (rows and not isinstance(rows[0][0], int)):
            raise HistoryError(f"{self.path}: the schema_version table is damaged")
        version = int(rows[0][0]) if rows else 0
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"{self.path} was written by a newer lanswitch (history schema version "
                f"{version}; this one knows up to {SCHEMA_VERSION}): update lanswitch, or "
                "use another --data-dir"
            )
        return version

    def add(self, rows: Sequence[HandRow]) -> list[int]:
        """Store ``rows`` in one transaction; their ids (0 for a row that was already there)."""
        ids: list[int] = []
        with self._write() as db:
            for r in rows:
                keep = None  # the row's id: sqlite's next, or the unfinished row's it replaces
                if r.ending != "unfinished":
                    # A hand left unfinished when its host stopped the table (played or
                    # watched), then carried on (--resume) and finished: the finished hand
                    # takes its row, and its id (a new one left `history`'s numbers with a
                    # gap where the unfinished row had been: the newcomer pass).
                    found = db.execute(
                        "SELECT id FROM hands WHERE game_id = ? AND hand_no = ? AND client = ? "
                        "AND ending = 'unfinished'",
                        (r.game_id, r.hand_no, r.client),
                    ).fetchone()
                    if found is not None:
                        keep = int(found[0])
                        db.execute("DELETE FROM hands WHERE id = ?", (keep,))
                cur = db.execute(
                    f"INSERT OR IGNORE INTO hands (id, {_COLUMNS}) "
                    f"VALUES (?, {', '.join('?' * _COLUMNS.count(','))}, ?)",
                    (
                        keep,
                        r.at,
                        r.table,
                        r.host,
                        r.client,
                        r.game_id,
                        r.hand_no,
                        r.seat,
                        r.name,
                        r.rules,
                        r.ending,
                        json.dumps(list(r.placings)),
                        r.place,
                        r.status,
                        r.verdict,
                        r.why,
                        json.dumps(list(r.culprits)),
                        r.transcript,
                        json.dumps(list(r.log)),
                        int(r.deal == DEALER_BLIND.name),  # (version 3's column, kept true)
                        r.deal,
                        None if r.proven is None else int(r.proven),
                        json.dumps(list(r.forfeit)),
                    ),
                )
                ids.append((cur.lastrowid or 0) if cur.rowcount == 1 else 0)
        return ids

    def count(self) -> int:
        return int(self._read("SELECT count(*) FROM hands", ())[0][0])

    def rows(self, limit: int | None = None) -> list[HandRow]:
        """The hands, newest first (at most ``limit``)."""
        return [
            _row(r)
            for r in self._read(
                f"SELECT id, {_COLUMNS} FROM hands ORDER BY id DESC LIMIT ?",
                (-1 if limit is None else limit,),
            )
        ]

    def get(self, hand_id: int) -> HandRow | None:
        found = self._read(f"SELECT id, {_COLUMNS} FROM hands WHERE id = ?", (hand_id,))
        return _row(found[0]) if found else None

    def _read(self, sql: str, params: tuple[object, ...]) -> list[Any]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as e:
            raise HistoryError(_describe(self.path, e)) from None


def _describe(path: Path, e: sqlite3.Error) -> str:
    text = str(e)
    if "not a database" in text or "malformed" in text:
        return f"{path} is not a readable lanswitch history ({text}); move it aside to start anew"
    return f"the history {path}: {text}"


def _row(r: Sequence[Any]) -> HandRow:
    try:
        placings = tuple(str(x) for x in json.loads(r[11]))
        culprits = tuple(str(x) for x in json.loads(r[16]))
        log = tuple(str(x) for x in json.loads(r[18]))
        forfeit = tuple(str(x) for x in json.loads(r[22]))
    except (TypeError, ValueError) as e:
        raise HistoryError(f"hand {r[0]} in the history is damaged: {e}") from None
    transcript = r[17]
    return HandRow(
        id=int(r[0]),
        at=str(r[1]),
        table=str(r[2]),
        host=str(r[3]),
        client=str(r[4]),
        game_id=str(r[5]),
        hand_no=int(r[6]),
        seat=None if r[7] is None else int(r[7]),
        name=str(r[8]),
        rules=str(r[9]),
        ending=str(r[10]),
        placings=placings,
        place=None if r[12] is None else int(r[12]),
        status=str(r[13]),
        verdict=str(r[14]),
        why=str(r[15]),
        culprits=culprits,
        transcript=None if transcript is None else bytes(transcript),
        log=log,
        deal=str(r[20]),
        proven=None if r[21] is None else bool(r[21]),
        forfeit=forfeit,
    )


# ---------------------------------------------------------------------------------------------
# Recording, for a client


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class HistoryWriter:
    """Records the hands one client sees into the history in ``data``; never raises (see the
    module docstring). The file is opened at the first hand, not before."""

    def __init__(
        self,
        data: Path,
        *,
        timeout: float = BUSY_TIMEOUT,
        clock: Callable[[], str] = _now,
    ) -> None:
        self.data = data
        self.path = history_path(data)
        self.timeout = timeout
        self.clock = clock
        self.pending: list[HandRow] = []
        self.saved = 0
        self.warned = False
        self._history: History | None = None

    def record(
        self,
        record: HandRecord,
        *,
        name: str,
        table: str,
        host: str,
        client: str,
        log: Sequence[str] = (),
    ) -> str | None:
        """Queue ``record`` (with ``log``, the hand as it was told to this client) and write
        the queue; a warning to show, the first time it fails."""
        try:
            at = self.clock()
            row = row_of(record, name=name, table=table, host=host, client=client, at=at, log=log)
        except Exception as e:  # the history is a convenience: it never takes the game down
            return self._failed(f"hand {record.hand_no} cannot be kept ({e})")
        self.pending.append(row)
        return self.flush()

    def flush(self) -> str | None:
        """Write every queued hand; a warning to show, the first time that fails."""
        if not self.pending:
            return None
        try:
            if self._history is None:
                self._history = History.in_dir(self.data, timeout=self.timeout)
            self._history.add(self.pending)
        except Exception as e:  # HistoryError, sqlite3.Error, OSError, or anything: never raise
            # Start afresh next time: a damaged connection is no use, and a file that was
            # moved aside or repaired meanwhile is found again.
            self._drop()
            return self._failed(
                f"{_hands(len(self.pending))} not saved yet ({e}); play goes on, and saving is "
                "tried again after every hand"
            )
        self.saved += len(self.pending)
        self.pending.clear()
        return None

    def _failed(self, what: str) -> str | None:
        """The warning for a failure: the first one only, so a broken disk is one line."""
        if self.warned:
            return None
        self.warned = True
        return f"history: {what}"

    def close(self) -> str | None:
        """A last try at the queue, then close; a line to show if hands were not saved."""
        self.flush()
        self._drop()
        if self.pending:
            return f"history: {_hands(len(self.pending))} could not be saved to {self.path}"
        return None

    def _drop(self) -> None:
        if self._history is not None:
            with suppress(sqlite3.Error):
                self._history.close()
            self._history = None


def _hands(n: int) -> str:
    return f"{n} hand" + ("" if n == 1 else "s")


def open_writer(data: Path, *, keep: bool = True) -> HistoryWriter | None:
    """The history a client session writes to (None: ``--no-history``, ``keep`` false)."""
    return HistoryWriter(data) if keep else None


def close_writer(writer: HistoryWriter | None) -> str | None:
    """Save what is still queued; a line to print if hands could not be saved."""
    if writer is None:
        return None
    message = writer.close()
    return None if message is None else f"lanswitch: {message}"

"""The data dir is private to its user: mode 0700, and 0600 for every file that holds cards,
seeds or keys (a shell).

What the data dir holds (see docs/security.md, Files): the history of the hands you played
(``history.sqlite``: your cards), the host's TLS key (``host-key.pem``), the pins of the tables
you joined (``pins.json``), the seats you hold at tables you joined (``seats/*.json``: each
one's session key and resume token, and the host's announcements of the shuffles its seeds
went into, :mod:`lanswitch.seatkeep`), and the journals of the tables you host
(``tables/*.sqlite``: the host's signing key and every seed it drew). Another user of the same
machine must read none of them. Each file is made with mode 0600 where lanswitch
creates it; :func:`make_private` also tightens a data dir and files that an older lanswitch (or
a lax umask) left readable, on every start of a command that uses them. Only permission bits
are changed, and only ever tightened; a file we cannot change (another user's, a read-only
disk) is left as it is — the command goes on, as it would have before.

On a system without POSIX modes (Windows), ``chmod`` only sets the read-only flag: the
private-ness of the files there is the user profile's ACL, and this does nothing harmful.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "PLACES",
    "SECRET_FILES",
    "create_private",
    "make_private",
    "paths_text",
    "private_dir",
    "tighten",
    "tighten_sqlite",
]

DIR_MODE = 0o700
FILE_MODE = 0o600

SECRET_FILES = ("history.sqlite", "host-key.pem", "pins.json")
"""The data dir's files that hold cards or keys (each with its sqlite ``-wal``/``-shm``/
``-journal`` companions where it has them); every ``tables/*.sqlite*`` journal as well."""
_COMPANIONS = ("", "-wal", "-shm", "-journal")

PLACES: tuple[tuple[str, str, str], ...] = (
    (
        "history",
        "history.sqlite",
        "the hands you played: your cards, every move, each hand's verdict and the file "
        "that proves it (lanswitch history, stats, verify --hand, replay --hand)",
    ),
    (
        "tables",
        "tables/",
        "the journals of tables you host, one a table, kept until its match ends: a table "
        "that crashed or was stopped is carried on from its journal (lanswitch play --resume "
        "or host --resume); each holds the table's signing key and seeds",
    ),
    (
        "host id",
        "host-cert.pem",
        "your tables' certificate: its fingerprint words are what friends check",
    ),
    ("host key", "host-key.pem", "its private key (never shown to anyone)"),
    (
        "pins",
        "pins.json",
        "the fingerprints of the tables you joined, checked each time you join again",
    ),
    (
        "seats",
        "seats/",
        "the seats you hold at tables you joined, one a table: its session key, its resume "
        "token and the shuffles its seeds went into, so that a join that ended (a crash, a "
        "closed terminal) takes its seat back when run again; removed when you leave the table",
    ),
)
"""Every place in the data dir lanswitch writes (``lanswitch paths``): a label, the name in
the data dir, what it holds. Anything else lanswitch writes goes only where the command line
says (``history --save FILE``, ``simulate --transcripts DIR``, ``join --transcripts DIR``)."""


def paths_text(data: Path, width: int = 80) -> str:
    """``lanswitch paths``: the data dir, then each of :data:`PLACES` — its path, and under it
    what it holds (wrapped to ``width``), "(not made yet)" where there is nothing yet."""
    import textwrap

    lines = [f"data dir: {data}", "  (--data-dir DIR or $LANSWITCH_DATA_DIR puts it elsewhere)"]
    for label, name, holds in PLACES:
        path = data / name.rstrip("/")
        shown = f"{path}/" if name.endswith("/") else str(path)
        made = "" if path.exists() else "  (not made yet)"
        lines.append(f"{label + ':':<9} {shown}{made}")
        lines += textwrap.wrap(holds, width, initial_indent=" " * 10, subsequent_indent=" " * 10)
    lines += textwrap.wrap(
        "Anywhere else, lanswitch writes only where you tell it to: lanswitch history ID "
        "--save FILE, simulate --transcripts DIR, join --transcripts DIR.",
        width,
    )
    return "\n".join(lines) + "\n"


def tighten(path: Path, mode: int) -> None:
    """Take every permission bit beyond ``mode`` away from ``path`` (if it exists)."""
    with contextlib.suppress(OSError):
        current = path.stat().st_mode & 0o777
        if current & ~mode:
            path.chmod(current & mode)


def tighten_sqlite(path: Path) -> None:
    """Tighten the sqlite file ``path`` and its ``-wal``, ``-shm`` and ``-journal`` to 0600."""
    for suffix in _COMPANIONS:
        tighten(Path(f"{path}{suffix}"), FILE_MODE)


def private_dir(path: Path) -> Path:
    """``path`` as a directory of its own user's only (made, with missing parents, if
    needed: the parents get the usual mode, the directory itself 0700). OSError if it cannot
    be made."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    tighten(path, DIR_MODE)
    return path


def create_private(path: Path) -> None:
    """Make ``path`` as an empty file of mode 0600 unless it exists (then: tighten it), so a
    file that is about to hold secrets never exists with looser permissions."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))
    except FileExistsError:
        tighten(path, FILE_MODE)


def make_private(data: Path) -> None:
    """Make the data dir ``data`` (0700) and tighten what is already in it: the files of
    :data:`SECRET_FILES`, every journal in ``tables/`` and every kept seat in ``seats/`` to
    0600, those folders to 0700. OSError if the data dir cannot be made."""
    private_dir(data)
    for name in SECRET_FILES:
        tighten_sqlite(data / name)  # a file without companions: only itself
    tables = data / "tables"
    if tables.is_dir():
        tighten(tables, DIR_MODE)
        with contextlib.suppress(OSError):
            for path in tables.iterdir():
                if path.name.endswith(tuple(f".sqlite{s}" for s in _COMPANIONS)):
                    tighten(path, FILE_MODE)
    seats = data / "seats"
    if seats.is_dir():
        tighten(seats, DIR_MODE)
        with contextlib.suppress(OSError):
            for path in seats.iterdir():
                if path.suffix in (".json", ".lock"):
                    tighten(path, FILE_MODE)


def write_private(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Write ``data`` to ``path`` whole or not at all, the file never readable by others than
    ``mode`` allows: a temporary file of that mode in the same folder, flushed to disk, then
    put in its place (``os.replace``: a reader sees the old file or the new one)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        if hasattr(os, "fchmod"):  # POSIX (and Windows from Python 3.13)
            os.fchmod(fd, mode)
        else:  # pragma: no cover - Windows before 3.13: ACLs, not modes, guard the file
            os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""The client's network shell: find the table, connect with a pinned TLS certificate, run a
:class:`~lanswitch.session.Session` over the connection, and come back when the link drops.

* **Finding a table** (:func:`find_target`, from the command line's
  :class:`~lanswitch.settings.Join`): by name through zeroconf (:func:`find_table`), by
  ``HOST:PORT`` where mDNS does not get through, or the only table heard. This module is the
  one owner of "join a table" in the shells: the headless ``join`` (``netcmd``) and the
  terminal client (``tui``) both find, connect and play through it, and neither imports the
  other.
* **The first connection** (:meth:`Client.connect`) is made before any screen starts, so a
  table that cannot be reached, or a certificate that is not the one pinned, is one plain
  line on the command line (:func:`join_failure` words every such error the same way).
* **Connecting** (:func:`open_table`): every advertised address is tried, those on one of our
  own subnets first, each with a short timeout (a host with a docker bridge or a second
  interface advertises addresses we cannot reach). The certificate must have the advertised
  fingerprint, and the :class:`~lanswitch.tls.PinStore` must agree with it (trust on first
  use; a changed fingerprint is refused loudly unless the user accepted it).
* **Staying** (:class:`Client`): the client pings a quiet host, treats a host silent for
  ``DEAD_AFTER`` seconds as a lost link, and reconnects with exponential backoff, resuming with
  its token to the same seat and hand; the session's news says ``link``: ``lost`` and then
  ``back`` (a screen shows "host lost, reconnecting…"). It ends when the host says ``bye`` or
  ``error``, or when the host is gone (:class:`JoinError`) — except ``error`` ``paused``: the
  host stopped its table to carry it on (``--resume``), and the client waits for it as for a
  lost link, up to ``PAUSE_PATIENCE`` (refused connections are expected meanwhile), then takes
  its seat and the hand again with its token.
* **Remembering** (``history``): every hand the session finishes — its
  :class:`~lanswitch.session.HandRecord` — goes to a
  :class:`~lanswitch.history.HistoryWriter` here, the one place both the headless ``join`` and
  the terminal client pass, so each hand is written once. A failure to write is one warning
  in the session's news, never an error.
* **Keeping the seat** (``keeper``, :class:`~lanswitch.seatkeep.SeatKeeper`): the session's key
  and resume token are kept on disk after each ``welcome``, so that a ``join`` that ended (a
  crash, a closed terminal) takes its seat back when run again — the shells build the session
  with the kept key and token, and its first ``hello`` resumes. With them go the rounds of the
  last hand this seat revealed its seed in (``Session.keep``), written before the reveal is
  sent, so that a new run takes back its earlier seed only in a round the host replays with the
  very commitments it went in with (``lanswitch.fairdeal.seat``). The kept seat is removed once
  the seat is given up for good: the player leaves (``bye``), the host ends the match or
  closes with an error, or broke the protocol; a lost link, a host that is gone and a paused
  table keep it. During a dealer-blind hand this seat plays it is not kept (its locking keys
  cannot be). The session's news says ``seat``: taking it back, or the host no longer
  keeping it (then the client joins as someone new, and keeps the new seat).

The module is past the ~700 lines at which the project splits one, and stays whole on purpose:
finding a table and staying connected to it share :class:`Target`, :class:`JoinError` and the
one wording of every failure (:func:`join_failure`), and both shells that join (``netcmd``,
``tui``) take them all from this one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import ssl
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import protocol as p
from .discovery import (
    Table,
    TableBrowser,
    TableChoiceError,
    list_tables,
    pick_table,
    preferred_order,
    same_name,
)
from .errors import RemoteError
from .narrate import Line, Story, describe, merge
from .session import News, Session
from .settings import Join, parse_target
from .textsafe import escape
from .tls import (
    FingerprintChoice,
    FingerprintMismatch,
    PinChanged,
    PinStore,
    PinStoreError,
    PinVerdict,
    address_pin_key,
    client_context,
    fingerprint_words,
    parse_fingerprint,
    parse_fingerprint_choice,
    peer_fingerprint,
    table_pin_key,
)

if TYPE_CHECKING:
    from .fairdeal.seat import RevealedRounds
    from .history import HistoryWriter
    from .seatkeep import SeatKeeper

__all__ = [
    "DEAD_AFTER",
    "Client",
    "JoinError",
    "Target",
    "find_table",
    "find_target",
    "join_failure",
    "open_table",
    "parse_address",
]

CONNECT_TIMEOUT = 2.0  # per address
PING_EVERY = 3.0  # seconds of silence from the host before we ping it
DEAD_AFTER = 9.0  # seconds of silence after which the link is taken for lost
BACKOFF = (0.25, 0.5, 1.0, 2.0)  # then 2 s between attempts
RECONNECT_FOR = 300.0  # seconds a lost client keeps trying before it gives up
HOST_GONE_AFTER = 20.0  # seconds of refused connections after which the host is gone
PAUSE_PATIENCE = 1800.0  # seconds a client waits for a host that stopped its table to resume
RETRY_AFTER = 0.25  # seconds before a move refused as too fast is sent again
FIRST_TRIES = 3  # attempts at the very first connection


_PIN_WORDS = {
    PinVerdict.NEW: "new, pinned",
    PinVerdict.KNOWN: "as pinned",
    PinVerdict.REPLACED: "changed, accepted",
}


class JoinError(RemoteError):
    """Joining failed for a reason the user must read (no such table, refused, gone)."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where a table is: its addresses, port, and the fingerprint expected (if advertised)."""

    label: str  # what to call it on screen
    addresses: tuple[str, ...]
    port: int
    fingerprint: bytes | None  # advertised by zeroconf; None for a HOST:PORT join
    pin_as: str  # the pin store's key: the table's name as people read it, or HOST:PORT
    locked: bool = False  # advertised as needing a password (lanswitch/admission.py)

    @classmethod
    def from_table(cls, table: Table) -> Target:
        fp = parse_fingerprint(table.fingerprint) if table.fingerprint else None
        # Pinned per table name: two machines may share a host name, and one machine may run
        # several tables (each with its own identity if it has its own data dir). The name
        # as people read it (KITCHEN is Kitchen), as join NAME finds it.
        pin = table_pin_key(table.name)
        return cls(table.name, table.addresses, table.port, fp, pin, table.locked)


def parse_address(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (or ``[v6]:PORT``) as a pair; None if ``text`` is not a usable address
    (:func:`lanswitch.settings.parse_target` says why a port is bad)."""
    try:
        return parse_target(text)
    except ValueError:
        return None


async def find_target(join: Join) -> Target:
    """The table ``join`` asks for: at its address, by its name on the LAN, or (neither
    given) the only table heard. JoinError says why not, and what to try."""
    choice = None
    if join.fingerprint is not None:
        try:
            choice = parse_fingerprint_choice(join.fingerprint)
        except ValueError as e:
            raise JoinError(f"--fingerprint: {e}") from None
    if join.address is not None:
        if choice is not None:
            raise JoinError(
                "--fingerprint chooses among the tables answering to a name, not HOST:PORT"
            )
        host, port = join.address  # pinned per HOST:PORT: one machine may host two tables
        return Target(f"{host}:{port}", (host,), port, None, address_pin_key(host, port))
    pins = PinStore.in_dir(join.data)  # to say which answer matches a pin
    if join.table:
        return await find_table(
            join.table,
            timeout=join.timeout,
            interfaces=join.interfaces,
            choice=choice,
            pins=pins,
            accept_change=join.accept_new_fingerprint,
        )
    tables = await list_tables(min(join.timeout, 3.0), interfaces=join.interfaces, probe=True)
    if tables and all(same_name(t.name, tables[0].name) for t in tables):
        # One name (perhaps answered twice): chosen as join NAME would choose.
        return Target.from_table(_chosen(tables, None, choice, pins, join.accept_new_fingerprint))
    if not tables:
        raise JoinError(
            "no table answered on this network; name one, or join by address: "
            "lanswitch join HOST:PORT"
        )
    names = ", ".join(
        dict.fromkeys(
            repr(t.name)
            + (" (dealer-blind)" if t.blind else "")
            + (" (needs a password)" if t.locked else "")
            for t in tables
        )
    )
    raise JoinError(f"several tables answered ({names}): say which, e.g. lanswitch join NAME")


def _chosen(
    tables: Sequence[Table],
    name: str | None,
    choice: FingerprintChoice | None,
    pins: PinStore | None,
    accept_change: bool,
) -> Table:
    """The one answer ``name`` means (JoinError, saying how to choose, if that cannot be
    told; or, when the only answer is not the pinned table, which answer is)."""
    want = name if name is not None else (tables[0].name if tables else "")
    pinned = None
    if pins is not None:
        try:
            pinned = pins.get(table_pin_key(want))
        except PinStoreError:
            pinned = None
    try:
        table = pick_table(tables, name, choice=choice, pinned=pinned)
    except TableChoiceError as e:
        raise JoinError(str(e)) from None
    if table is None:
        raise JoinError(f"no table called {want!r} answered")
    changed = pinned is not None and table.fingerprint != pinned.fingerprint.hex()
    if pinned is not None and changed and table.fingerprint and not accept_change:
        # The name's pin will refuse this one (PinChanged, when connecting): say first
        # whether the pinned table answers too, under another name, and how to join it.
        others = [t for t in tables if t.fingerprint == pinned.fingerprint.hex()]
        if others:
            raise JoinError(
                f"the table answering to {escape(table.name)!r} is not the one you pinned "
                f"for that name ({fingerprint_words(pinned.fingerprint)}, since "
                f"{pinned.first_seen[:10]}); it is {_words_of(table)}. Refused. "
                + _pick_hint(others[0])
            )
    return table


def _words_of(table: Table) -> str:
    return fingerprint_words(parse_fingerprint(table.fingerprint))


def _pick_hint(table: Table) -> str:
    """How to join ``table`` and no other answer."""
    return (
        f"The table with the pinned words answers as {escape(table.name)!r}: lanswitch join "
        f'{shlex.quote(escape(table.name))} --fingerprint "{_words_of(table)}"'
    )


def join_failure(exc: BaseException) -> str:
    """Why joining (or staying at) a table failed, in the words both clients print."""
    if isinstance(exc, FingerprintMismatch):
        return (
            f"refusing the table: {exc}. Someone may be impersonating the table; check the "
            "fingerprint words on the host's screen"
        )
    if isinstance(exc, PinChanged):
        return str(exc)
    if isinstance(exc, PinStoreError):
        return f"the pin store is damaged: {exc}"
    return str(exc) or type(exc).__name__


#: How long ``join NAME`` keeps listening once the name has answered, for a second answer.
ANSWERS_SETTLE = 0.6


async def find_table(
    name: str,
    *,
    timeout: float = 5.0,
    interfaces: Sequence[str] | None = None,
    choice: FingerprintChoice | None = None,
    pins: PinStore | None = None,
    accept_change: bool = False,
) -> Target:
    """The table called ``name`` on the LAN (JoinError, naming the tables seen, if none).

    Names are compared as people read them (case, compatibility forms, invisible characters
    aside). Once one answers, the browser listens :data:`ANSWERS_SETTLE` s more: when answers
    with different fingerprints come for the name, JoinError lists them and says how to pick
    one (``choice``: the start of its fingerprint) and which matches the pin in ``pins``."""

    def match(_: object) -> bool:
        return any(same_name(t.name, name) for t in browser.answers())

    async with TableBrowser(interfaces=interfaces) as browser:
        if await browser.wait_for(match, timeout):
            await asyncio.sleep(ANSWERS_SETTLE)
        tables = browser.answers()
    if any(same_name(t.name, name) for t in tables):
        t = _chosen(tables, name, choice, pins, accept_change)
        if t.version is not None and t.version != p.PROTOCOL_VERSION:
            raise JoinError(
                f"table {t.name!r} speaks protocol {t.version}; this lanswitch speaks "
                f"{p.PROTOCOL_VERSION}: update the older one"
            )
        return Target.from_table(t)
    seen = ", ".join(sorted({repr(t.name) for t in tables})) or "none"
    raise JoinError(
        f"no table called {name!r} answered within {timeout:g} s (tables seen: {seen}). "
        "If the host's network blocks mDNS, join by address: lanswitch join HOST:PORT"
    )


async def open_table(
    target: Target,
    *,
    pins: PinStore | None,
    accept_change: bool = False,
    timeout: float = CONNECT_TIMEOUT,
    report: Callable[[bytes, PinVerdict | None], None] | None = None,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TLS connection to ``target`` whose certificate is the expected one.

    Raises FingerprintMismatch (the advertised fingerprint is not what answered),
    :class:`~lanswitch.tls.PinChanged` (the pin store knows another one), or OSError /
    TimeoutError when no address answers.
    """
    errors: list[str] = []
    refused = 0
    for address in preferred_order(target.addresses):
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    address, target.port, ssl=client_context(), server_hostname=""
                )
        except (OSError, TimeoutError, ssl.SSLError) as e:
            refused += isinstance(e, ConnectionRefusedError)
            errors.append(f"{address}: {_why(e, timeout)}")
            continue
        try:
            tls = writer.get_extra_info("ssl_object")
            got = peer_fingerprint(tls) if isinstance(tls, ssl.SSLObject) else None
            if got is None or (target.fingerprint is not None and got != target.fingerprint):
                raise FingerprintMismatch(target.fingerprint or b"", got)
            verdict = None
            if pins is not None:
                verdict = pins.check(target.pin_as, got, accept_change=accept_change)
            if report is not None:
                report(got, verdict)
        except BaseException:
            writer.close()
            raise
        return reader, writer
    where = (
        target.label
        if target.label.endswith(f":{target.port}")
        else (f"{target.label} on port {target.port}")
    )
    text = f"could not reach {where}: " + "; ".join(errors)
    if refused and refused == len(errors):  # someone is there, and nothing listens: gone
        raise ConnectionRefusedError(
            text + f" (is the host running, and is {target.port} the port it shows?)"
        )
    raise OSError(text)


def _why(e: BaseException, timeout: float) -> str:
    """A failed connection in words."""
    if isinstance(e, ConnectionRefusedError):
        return "connection refused (nothing listens on that port)"
    if isinstance(e, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(e, ssl.SSLError):
        return f"the TLS handshake failed ({e.reason or e})"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror[0].lower() + e.strerror[1:]
    return str(e) or type(e).__name__


class Client:
    """Plays ``session`` at ``target`` until the host ends it (see the module docstring).

    ``chooser(session)`` returns the move to play when it is this seat's turn (a headless bot);
    None leaves moves to :meth:`send` (an interactive client). ``think`` seconds pass before a
    chosen move is sent. ``on_news`` sees each :class:`~lanswitch.session.News` as it comes
    (a turn always begins with news: at a dealer-blind table, a card of this seat's opening is
    news too). ``history`` keeps every finished hand (None: not kept). ``keeper`` keeps the
    seat on disk, for a ``join`` run again after this one ended (None: not kept; see the module
    docstring).
    """

    def __init__(
        self,
        session: Session,
        target: Target,
        *,
        pins: PinStore | None = None,
        accept_change: bool = False,
        chooser: Callable[[Session], int] | None = None,
        think: float = 0.0,
        on_news: Callable[[News], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        reconnect_for: float = RECONNECT_FOR,
        pause_patience: float = PAUSE_PATIENCE,
        history: HistoryWriter | None = None,
        keeper: SeatKeeper | None = None,
    ) -> None:
        self.session = session
        self.target = target
        self.pins = pins
        self.accept_change = accept_change
        self.chooser = chooser
        self.think = think
        self.on_news = on_news
        self.clock = clock
        self.reconnect_for = reconnect_for
        self.pause_patience = pause_patience
        self.history = history
        self.keeper = None if session.spectate else keeper  # a spectator has no seat to lose
        self._kept: tuple[bytes, RevealedRounds | None] | None = None  # as on disk
        if self.keeper is not None and session.restored and session.token is not None:
            self._kept = (session.token, session.keep)
        self._broken = False  # the host broke the protocol: the seat is given up
        self.peer = ""  # the address answering, HOST:PORT (for the history)
        self.reconnects = 0
        self.fingerprint: bytes | None = None
        self._news_seen = 0
        self._hands_seen = 0  # session.history entries already handed to the history
        self._writer: asyncio.StreamWriter | None = None
        self._conn: p.Connection | None = None
        self._acting: tuple[bytes, int, int] | None = None  # the turn a move is chosen for
        self._act_handle: asyncio.TimerHandle | None = None
        self._slow_until = 0.0  # after a rate-limit refusal, no move before this time
        self._first: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._told: dict[int, list[Line]] = {}  # hand number → the hand told so far
        self._told_seen = 0  # session.news items already told
        self._told_hand: tuple[int, tuple[str, ...]] = (0, ())  # the hand being told, names
        self._story = Story()  # the narration's memory between steps (lanswitch.narrate)
        self._lost = False  # the link is down and the client is trying to get back
        if self.keeper is not None:
            if self.keeper.note is not None:
                session.news.append(News("seat", self.keeper.note))
            elif session.restored:
                session.news.append(News("seat", f"taking your seat back at {target.label}"))

    def send(self, message: p.Message) -> None:
        """Send ``message`` now. Dropped if the link is down or not yet open (the host's next
        view says what the table is; a key pressed meanwhile had nothing to act on)."""
        if self._writer is None or self._conn is None or self._conn.state is not p.State.OPEN:
            return
        self._writer.write(self._conn.send(message))

    async def connect(self) -> None:
        """Open the first connection (a few tries, a short wait between them), before any
        screen starts: JoinError, in :func:`join_failure`'s words, if it cannot be made."""
        for tries in range(1, FIRST_TRIES + 1):
            try:
                self._first = await self._open()
                return
            except (OSError, TimeoutError) as e:
                if tries >= FIRST_TRIES:
                    raise JoinError(str(e)) from None
                await asyncio.sleep(BACKOFF[min(tries, len(BACKOFF)) - 1])

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """One connection to the table: its certificate checked (JoinError if it is not the
        one expected or pinned); OSError or TimeoutError if no address answers."""
        try:
            return await open_table(
                self.target, pins=self.pins, accept_change=self.accept_change, report=self._pinned
            )
        except (FingerprintMismatch, PinChanged, PinStoreError) as e:
            raise JoinError(join_failure(e)) from None

    async def run(self) -> None:
        """Until the host says ``bye`` or ``error`` (JoinError if it cannot be reached, first
        or after a lost link). Connects first if :meth:`connect` was not called. Giving up on
        the host settles the hand in play: it gets a verdict with what this client holds. A
        host that stops its table to carry it on (``error`` ``paused``) is waited for, up to
        ``pause_patience``, and the seat taken again with the resume token. The seat stays kept
        (``keeper``) unless it was given up for good (module docstring)."""
        try:
            await self._run()
        except JoinError:
            # The hand's line says what became of the hand; why the table is gone is said once,
            # by the error itself (nesting it here made four reasons of one line: issue 26).
            self.session.give_up("the table is gone before the hand was settled")
            self._emit_news()
            self._record_hands()
            raise
        except asyncio.CancelledError:
            # The player left while waiting for a host that stopped its table: the hand in
            # play is recorded unfinished, as far as it went (Session.give_up).
            if self.session.paused is not None:
                self.session.give_up()
                self._emit_news()
                self._record_hands()
            raise
        finally:
            self._keep_seat()

    def _keep_seat(self) -> None:
        """Keep the seat on disk as the session now holds it, or remove it (module docstring):
        kept while the host keeps it for us — the token of the last ``welcome``, and the rounds
        this seat revealed its seed in (``Session.keep``) — except during a dealer-blind hand
        this seat plays (a new run could not play it on); removed once the session is closed
        (our ``bye``, or the host's ``bye`` or ``error``) or the host broke the protocol.
        Written only when that changes, and **before** the replies that changed it are sent: a
        round's seed leaves only once the round is on disk. A seat that cannot be written is
        removed, so that a new run joins as someone new rather than with a record that lacks a
        round it revealed in."""
        keeper, s = self.keeper, self.session
        if keeper is None:
            return
        h = s.hand
        blind = h is not None and h.message.blind and not h.done and h.part.seat is not None
        token = None if s.closed or self._broken or blind else s.token
        want = None if token is None else (token, s.keep)
        if want == self._kept:
            return
        self._kept = want
        if want is None:
            warning = keeper.forget()
        else:
            warning = keeper.save(s.key, want[0], s.name, want[1])
            if warning is not None:
                keeper.forget()  # (a new run joins as someone new; the next change tries again)
        if warning is not None:
            s.news.append(News("warning", warning))
            self._emit_news()

    async def _run(self) -> None:
        if self._first is None:
            await self.connect()
        lost_at: float | None = None
        refused_since: float | None = None
        tries = 0
        for _ in range(100_000):
            if self._first is not None:
                (reader, writer), self._first = self._first, None
            else:
                try:
                    reader, writer = await self._open()
                except (OSError, TimeoutError) as e:
                    tries += 1
                    now = self.clock()
                    if not isinstance(e, ConnectionRefusedError):
                        refused_since = None
                    elif refused_since is None:
                        refused_since = now
                    assert lost_at is not None  # only a lost link is reconnected
                    if self.session.paused is not None:
                        # A host that stopped its table to carry it on is down until its
                        # --resume: refusals are expected; only the patience runs out.
                        if now - lost_at > self.pause_patience:
                            raise JoinError(self._never_resumed()) from None
                        await asyncio.sleep(BACKOFF[min(tries, len(BACKOFF)) - 1])
                        continue
                    # One sentence each: the cause, and what to do (the connection's own
                    # error is the cause's detail, not a reason of its own).
                    if refused_since is not None and now - refused_since > HOST_GONE_AFTER:
                        raise JoinError(
                            f"the host is gone: nothing answers at {self._where()} any more, "
                            "so join again once it is running the table again"
                        ) from None
                    if now - lost_at > self.reconnect_for:
                        raise JoinError(self._unreachable()) from None
                    await asyncio.sleep(BACKOFF[min(tries, len(BACKOFF)) - 1])
                    continue
            tries, refused_since = 0, None
            paused = self.session.paused is not None
            welcomed = await self._converse(reader, writer)
            s = self.session
            if paused and not welcomed and not s.closed and s.paused is not None:
                # A paused table's host is down: nothing answers. One that answers but does
                # not take us back is serving without us — not paused for us, whatever it said
                # (a host that "paused" one player to play its seat without it): from here
                # on it is a lost link, whose hand is judged when we give up.
                s.paused = None
                s.news.append(News("link", "lost"))
            if s.closed:
                reason = s.close_reason
                if (
                    isinstance(reason, p.Error)
                    and reason.code is p.ErrorCode.BAD_TOKEN
                    and s.token is not None
                ):
                    s.token, s.closed, s.close_reason = None, False, None  # join afresh
                    continue
                return
            patience = self.reconnect_for if s.paused is None else self.pause_patience
            if welcomed or lost_at is None:
                lost_at = self.clock()
            elif self.clock() - lost_at > patience:
                raise JoinError(self._unreachable() if s.paused is None else self._never_resumed())
            if not self._lost:  # the screen says so, and counts the seconds
                self._lost = True
                if s.paused is None:  # (a pause was told in the host's own words)
                    s.news.append(News("link", "lost"))
                self._emit_news()
            self.reconnects += 1
            await asyncio.sleep(BACKOFF[0])
        raise JoinError("gave up reconnecting")  # pragma: no cover - bounded above

    def _where(self) -> str:
        """The table's address as people read it: its label, with the port."""
        t = self.target
        return t.label if t.label.endswith(f":{t.port}") else f"{t.label} on port {t.port}"

    def _never_resumed(self) -> str:
        return (
            f"the host stopped the table and did not carry it on within "
            f"{self.pause_patience / 60:g} minutes, so join again once it runs the table again"
        )

    def _unreachable(self) -> str:
        return (
            f"lost the link to {self._where()} and could not get back in within "
            f"{self.reconnect_for:g} s, so check this computer's network and join again"
        )

    async def _converse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One connection, until it is lost or the host ends it; whether we were welcomed."""
        s = self.session
        conn = p.Connection(p.Role.CLIENT)
        self._writer, self._conn = writer, conn
        self._acting = None
        peer = writer.get_extra_info("peername")
        if isinstance(peer, tuple) and len(peer) >= 2:
            host = str(peer[0])
            self.peer = f"[{host}]:{peer[1]}" if ":" in host else f"{host}:{peer[1]}"
        writer.write(conn.send(s.hello()))
        heard = self.clock()
        nonce = 0
        welcomed = False
        try:
            for _ in range(10**9):
                try:
                    async with asyncio.timeout(PING_EVERY):
                        data = await reader.read(65536)
                except TimeoutError:
                    if self.clock() - heard > DEAD_AFTER:
                        return welcomed
                    if conn.state is p.State.OPEN:
                        nonce += 1
                        writer.write(conn.send(p.Ping(nonce=nonce)))
                    continue
                except (ConnectionError, OSError, ssl.SSLError):
                    return welcomed
                heard = self.clock()
                try:
                    messages = conn.receive_data(data)
                except p.RemoteProtocolError as e:
                    for m in e.received:
                        s.receive(m)
                    self._record_hands()
                    self._broken = True
                    with contextlib.suppress(p.LocalProtocolError):
                        writer.write(conn.send(e.error_message()))
                    raise JoinError(f"the host broke the protocol: {e}") from None
                replies: list[p.Message] = []
                for m in messages:
                    if isinstance(m, p.Welcome):
                        welcomed = True
                        if self._lost:  # back after a lost link
                            self._lost = False
                            s.news.append(News("link", "back"))
                    replies += s.receive(m)
                    if isinstance(m, p.Reject) and m.code is p.ErrorCode.RATE_LIMITED:
                        # Refused for speed, not for what it was: slow down, then try again
                        # (a move when it is next chosen, a ready when the session says so).
                        self._acting = None
                        self._slow_until = self.clock() + RETRY_AFTER
                        loop = asyncio.get_running_loop()
                        loop.call_later(RETRY_AFTER, self._retry)
                self._keep_seat()  # before a reveal among the replies leaves (module docstring)
                for r in replies:
                    if not conn.closed:
                        writer.write(conn.send(r))
                self._record_hands()
                self._emit_news()
                if s.closed or s.lost_place or not data:
                    return welcomed
                self._maybe_act()
            return welcomed
        finally:
            self._writer = self._conn = None
            if self._act_handle is not None:
                self._act_handle.cancel()
            writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()

    def _pinned(self, fingerprint: bytes, verdict: PinVerdict | None) -> None:
        """Say once which certificate we trust, so the player can compare the words."""
        if self.fingerprint == fingerprint:
            return
        self.fingerprint = fingerprint
        words = fingerprint_words(fingerprint)
        if verdict is None:  # no pin store: our own table (play), where friends check the words
            text = f"table fingerprint: {words} (friends joining see the same words)"
        else:
            text = f"host certificate: {words} ({_PIN_WORDS[verdict]})"
        self.session.news.append(News("pin", text, fingerprint))
        self._emit_news()

    def _tell(self) -> None:
        """Narrate the hand as this client is told it (lanswitch.narrate), for the history:
        the same lines as the terminal's log."""
        s = self.session
        for news in s.news[self._told_seen :]:
            if news.kind == "hand" and isinstance(news.data, p.Hand):
                names = s.hand.names if s.hand is not None else ()
                self._told_hand = (news.data.hand_no, names)
                self._told.pop(news.data.hand_no, None)
                self._told[news.data.hand_no] = []
                while len(self._told) > 2:  # the newest two: a hand left unfinished goes
                    del self._told[next(iter(self._told))]
            elif news.kind == "events" and isinstance(news.data, tuple):
                hand_no, names = self._told_hand
                told = self._told.get(hand_no)
                if told is None:
                    continue
                said = describe(news.data, names, me=s.seat, rules=s.rules, story=self._story)
                for line in said:
                    joined = merge(told[-1], line) if told else None
                    if joined is not None:
                        told[-1] = joined
                    else:
                        told.append(line)
        self._told_seen = len(s.news)

    def _record_hands(self) -> None:
        """Give the history the hands finished since last time (after the replies are sent:
        a slow disk delays no answer to the host)."""
        s = self.session
        done = s.history[self._hands_seen :]
        self._hands_seen = len(s.history)
        if self.history is None:
            return
        self._tell()
        for record in done:
            told = self._told.pop(record.hand_no, [])
            warning = self.history.record(
                record,
                name=s.name,
                table=s.table,
                host=self.peer or self.target.label,
                client=s.public_key.hex(),
                log=[line.text() for line in told],
            )
            if warning is not None:
                s.news.append(News("warning", warning))

    def _emit_news(self) -> None:
        news = self.session.news
        if self.on_news is not None:
            for item in news[self._news_seen :]:
                self.on_news(item)
        self._news_seen = len(news)

    def _maybe_act(self) -> None:
        s = self.session
        turn = self._turn()
        if self.chooser is None or not s.my_turn() or self._acting == turn:
            return
        self._acting = turn
        delay = max(self.think, self._slow_until - self.clock())
        if delay > 0:
            self._act_handle = asyncio.get_running_loop().call_later(delay, self._act, turn)
        else:
            self._act(turn)

    def _turn(self) -> tuple[bytes, int, int]:
        """The turn on screen: its hand and ``seq`` (each hand counts its steps from 0, so a
        ``seq`` alone would take this hand's step 6 for the last hand's)."""
        s = self.session
        h = s.hand
        return (b"", 0, s.seq) if h is None else (h.message.game_id, h.message.hand_no, s.seq)

    def _retry(self) -> None:
        for message in self.session.retry():
            self.send(message)

    def _act(self, turn: tuple[bytes, int, int]) -> None:
        s = self.session
        if self.chooser is None or self._turn() != turn or not s.my_turn():
            return
        self.send(s.move(self.chooser(s)))

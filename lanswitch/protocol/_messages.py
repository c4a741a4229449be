"""The messages: :class:`Message` and one frozen, slotted, keyword-only dataclass per wire
``type`` (:data:`MESSAGES`), each field with its wire type (``_fields``).

Grouped as ``protocol/SPEC.md`` § Messages is: handshake and closing, lobby, play, fair deal,
dealer-blind. :class:`SeatView` converts to and from the engine's
:class:`~lanswitch.game.View` by code generated once (a view per seat per step).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from ..game import Phase, View
from ._errors import ErrorCode
from ._fields import (
    _BUILD_ENV,
    ANY_PID,
    CARDS,
    EVENT,
    HASH,
    HEAD,
    I32,
    KEY,
    MAX_SEATS,
    MAX_TEXT,
    NAME,
    NAME_OR_EMPTY,
    PID,
    PID_RE,
    SEAT,
    SIG,
    TEXT,
    TOKEN,
    U32,
    Array,
    Bool,
    Bytes,
    Choice,
    Int,
    Map,
    Opt,
    Str,
    Struct,
    Tuple,
    _builder_lines,
    _wire,
)


class Message:
    """A protocol message. ``TYPE`` is its wire ``type``; the fields are the dataclass's."""

    __slots__ = ()
    TYPE: ClassVar[str]


# -- handshake and closing --------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Message):
    """Client → host, first message. ``token`` resumes an earlier seat; ``key`` is the
    client's Ed25519 session public key (§ Signatures)."""

    TYPE: ClassVar[str] = "hello"
    version: int = _wire(U32)
    name: str = _wire(NAME)
    key: bytes = _wire(KEY)
    spectate: bool = _wire(Bool(), default=False)
    password: str | None = _wire(Opt(Str(0, 128)), default=None)
    token: bytes | None = _wire(Opt(TOKEN), default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(Message):
    """Host → client, answer to ``hello``: the client's seat (None: a spectator) and the
    token that resumes it."""

    TYPE: ClassVar[str] = "welcome"
    version: int = _wire(U32)
    table: str = _wire(NAME)
    seat: int | None = _wire(Opt(SEAT))
    token: bytes = _wire(TOKEN)


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(Message):
    """Either side: the sender ends the connection because of ``code``."""

    TYPE: ClassVar[str] = "error"
    code: ErrorCode = _wire(Choice(ErrorCode))  # noqa: RUF009
    text: str = _wire(TEXT, default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class Bye(Message):
    """Either side: the sender ends the connection normally."""

    TYPE: ClassVar[str] = "bye"
    reason: str = _wire(TEXT, default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Message):
    """Either side: asks for a ``pong`` with the same ``nonce`` (liveness, round trips)."""

    TYPE: ClassVar[str] = "ping"
    nonce: int = _wire(U32)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(Message):
    """Either side: the answer to ``ping``."""

    TYPE: ClassVar[str] = "pong"
    nonce: int = _wire(U32)


# -- lobby ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit(Message):
    """Client → host: take ``seat`` (None: any free seat)."""

    TYPE: ClassVar[str] = "sit"
    seat: int | None = _wire(Opt(SEAT), default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand(Message):
    """Client → host: leave the seat and watch."""

    TYPE: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready(Message):
    """Client → host: this seat is (or is no longer) ready for the next hand."""

    TYPE: ClassVar[str] = "ready"
    ready: bool = _wire(Bool(), default=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Chat(Message):
    """Both ways: a chat line. Clients send ``sender=""``; the host fills in the name."""

    TYPE: ClassVar[str] = "chat"
    text: str = _wire(Str(1, MAX_TEXT))
    sender: str = _wire(NAME_OR_EMPTY, default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbySeat:
    """One seat as the lobby shows it. A free seat has ``name == ""``."""

    name: str = _wire(NAME_OR_EMPTY)
    id: str = _wire(Str(0, 32, f"(?:{PID_RE})?"))
    bot: bool = _wire(Bool(), default=False)
    ready: bool = _wire(Bool(), default=False)
    connected: bool = _wire(Bool(), default=False)
    key: bytes = _wire(Bytes(0, 32), default=b"")
    grace_ms: int = _wire(U32, default=0)
    """A player away mid-hand: the milliseconds, counted from this message, until its grace
    runs out and the host stands in for it (0: not away, between hands, or already past)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyState(Message):
    """Host → every client, whenever the lobby changes: seats, who hosts, the rules, the
    match so far — and ``you``, the seat of the client it is sent to (None: it has none).

    A client knows its seat by ``you``, the host's word, not by looking for its own key
    among the seats: a key is public (every seat's is shown here), and a seat another
    client took with it would read as its own (issue #15).

    ``bot_level``: how the host's bots play (``easy``, ``normal``, ``hard``); ``hints``: the
    host allows the players to ask for a suggested move (protocol v8)."""

    TYPE: ClassVar[str] = "lobby"
    table: str = _wire(NAME)
    rules: str = _wire(Str(1, 64))
    host: int | None = _wire(Opt(SEAT))
    seats: tuple[LobbySeat, ...] = _wire(Array(Struct(LobbySeat), 2, MAX_SEATS))
    spectators: int = _wire(U32, default=0)
    playing: bool = _wire(Bool(), default=False)
    hands: int = _wire(U32, default=0)
    scores: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS), default=())
    turn_timer: int = _wire(U32, default=0)
    you: int | None = _wire(Opt(SEAT), default=None)
    blind: bool = _wire(Bool(), default=False)
    bot_level: str = _wire(Str(1, 16, "[a-z]+"), default="normal")
    hints: bool = _wire(Bool(), default=True)


# -- play -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand(Message):
    """Host → every client: a hand begins. Everything ``ctx_0`` and the setup note need.
    ``keys``: the public key of every person's seat and of ``@dealer``; a seat without one is
    the host's (a bot). ``turn_timer_ms``: the time a seat has to act (0: no timer).
    ``blind``: a dealer-blind hand (§ Dealer-blind on the wire): no ``announce`` rounds, views
    nor events follow, but the ``blind_*`` messages. ``names``: every seat's display name as
    the lobby shows it ("" for an empty seat), bound by the setup note (protocol v4)."""

    TYPE: ClassVar[str] = "hand"
    game_id: bytes = _wire(Bytes(16, 16))
    hand_no: int = _wire(U32)
    seats: tuple[str, ...] = _wire(Array(PID, 2, MAX_SEATS))
    dealer: int = _wire(SEAT)
    out: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS), default=())
    rules: str = _wire(Str(1, 32 * 1024))
    keys: Mapping[str, bytes] = _wire(Map(ANY_PID, KEY, MAX_SEATS + 1))
    turn_timer_ms: int = _wire(U32, default=0)
    blind: bool = _wire(Bool(), default=False)
    names: tuple[str, ...] = _wire(Array(NAME_OR_EMPTY, 0, MAX_SEATS), default=())


_VIEW_FIELDS: Final = tuple(f.name for f in dataclasses.fields(View))


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView(Message):
    """Host → one client: that seat's view after step ``seq`` (a spectator's: ``seat`` None,
    no hand). Never another seat's cards. ``timer_ms``: time left for the seat to act, 0 if
    there is no turn timer."""

    TYPE: ClassVar[str] = "view"
    seq: int = _wire(U32)
    seat: int | None = _wire(Opt(SEAT))
    hand: tuple[int, ...] = _wire(CARDS)
    counts: tuple[int, ...] = _wire(Array(Int(0, 108), 2, MAX_SEATS))
    active: tuple[bool, ...] = _wire(Array(Bool(), 2, MAX_SEATS))
    top: int = _wire(Int(-1, 107))
    top_face: int = _wire(I32)
    named_suit: int = _wire(Int(-1, 3))
    free: bool = _wire(Bool())
    direction: int = _wire(Int(-1, 1))
    turn: int = _wire(Int(-1, MAX_SEATS - 1))
    phase: int = _wire(Int(0, 7))
    pending_kind: str = _wire(Str(0, 8, r"|pickup|skip"))
    pending_amount: int = _wire(I32)
    pending_target: int = _wire(Int(-2, MAX_SEATS - 1))
    missed: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS))
    declared: tuple[bool, ...] = _wire(Array(Bool(), 0, MAX_SEATS))
    called_last: bool = _wire(Bool())
    called_two: bool = _wire(Bool())
    stock: int = _wire(Int(0, 108))
    discard: int = _wire(Int(0, 108))
    dealer: int = _wire(SEAT)
    finished: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS))
    legal: tuple[int, ...] = _wire(Array(U32, 0, 1024))
    timer_ms: int = _wire(U32, default=0)

    @classmethod
    def from_view(cls, view: View, seq: int, timer_ms: int = 0) -> SeatView:
        """The message for an engine :class:`~lanswitch.game.View`."""
        return _FROM_VIEW(view, seq, timer_ms)  # type: ignore[no-any-return]

    def to_view(self) -> View:
        """The engine :class:`~lanswitch.game.View` this message carries."""
        return _TO_VIEW(self)  # type: ignore[no-any-return]


def _view_converters() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``SeatView.from_view`` and ``to_view``, generated: a host makes a view per seat per
    step and a client reads each, so copying two dozen fields by name in a loop showed up."""

    def value(name: str, source: str) -> str:
        if name == "phase":
            return f"int({source}.phase)" if source == "view" else f"Phase({source}.phase)"
        return f"{source}.{name}"

    env: dict[str, Any] = {"Phase": Phase, **_BUILD_ENV}
    names = [f.name for f in dataclasses.fields(SeatView)]
    given = {"seq": "seq", "timer_ms": "timer_ms"}
    from_values = [given.get(n) or value(n, "view") for n in names]
    from_lines = [
        "def from_view(view, seq, timer_ms):",
        "    cls = SeatView",
        *_builder_lines(SeatView, from_values),
    ]
    to_values = [value(n, "m") for n in _VIEW_FIELDS]
    to_lines = ["def to_view(m):", "    cls = View", *_builder_lines(View, to_values, init=True)]
    env.update(SeatView=SeatView, View=View)
    exec("\n".join(from_lines + to_lines), env)
    return env["from_view"], env["to_view"]


_FROM_VIEW, _TO_VIEW = _view_converters()


@dataclass(frozen=True, slots=True, kw_only=True)
class Events(Message):
    """Host → one client: what step ``seq`` of the hand did, as this client may see it.

    ``events``: the engine's events ``(kind, seat, value)``, redacted for this client
    (:func:`lanswitch.game.redact`); ``log``: the public log events the step appended, each in
    its § Public log encoding (the same for every client)."""

    TYPE: ClassVar[str] = "events"
    seq: int = _wire(U32)
    events: tuple[tuple[str, int, int], ...] = _wire(Array(EVENT, 0, 2048))
    log: tuple[bytes, ...] = _wire(Array(Bytes(1, 1024), 0, 512), default=())


@dataclass(frozen=True, slots=True, kw_only=True)
class Move(Message):
    """Client → host: the seat's move (an engine move code), answering view ``seq``, with the
    seat's signature of it over the log as the seat holds it (§ Moves)."""

    TYPE: ClassVar[str] = "move"
    seq: int = _wire(U32)
    move: int = _wire(U32)
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class Reject(Message):
    """Host → client: a request was refused; the connection goes on. ``seq``: the view seq
    of a refused ``move``, else 0."""

    TYPE: ClassVar[str] = "reject"
    code: ErrorCode = _wire(Choice(ErrorCode))  # noqa: RUF009
    text: str = _wire(TEXT, default="")
    seq: int = _wire(U32, default=0)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandOver(Message):
    """Host → every client: the hand is over (``reason`` ``void`` after an abort).
    ``head``: the host's signed log head ``(count, head, signature)``; ``cards_signature``:
    the host's signature of the cards message for this client's seat (empty for spectators).
    """

    TYPE: ClassVar[str] = "hand_over"
    reason: str = _wire(Str(1, 16, r"[a-z_]+"))
    placings: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS))
    scores: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS))
    hand_points: tuple[int, ...] = _wire(Array(I32, 0, MAX_SEATS))
    head: tuple[int, bytes, bytes] = _wire(HEAD)
    cards_signature: bytes = _wire(SIG, default=b"")


# -- fair deal --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Announce(Message):
    """Host → every client: round ``round`` over ``cards`` (ascending) among the people in
    ``seats`` (and ``@dealer``). ``fixed`` false — stage 1: ``commitments`` holds the host's
    own, commit now; true — stage 3: every participant's ``(commitment, signature)``, send
    your seed. ``ctx``: the round's context as the host computed it (each client computes its
    own and refuses the round if they differ); ``signature``: the host's over the announcement.
    """

    TYPE: ClassVar[str] = "announce"
    round: int = _wire(U32)
    fixed: bool = _wire(Bool(), default=False)
    ctx: bytes = _wire(HASH)
    cards: tuple[int, ...] = _wire(CARDS)
    seats: tuple[int, ...] = _wire(Array(SEAT, 0, MAX_SEATS), default=())
    commitments: Mapping[str, tuple[bytes, bytes]] = _wire(
        Map(ANY_PID, Tuple((SIG, SIG)), MAX_SEATS + 1), default_factory=dict
    )
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit(Message):
    """Client → host (step 2): this seat's commitment for ``round`` and its signature."""

    TYPE: ClassVar[str] = "commit"
    round: int = _wire(U32)
    commitment: bytes = _wire(SIG)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal(Message):
    """Client → host only (step 4): this seat's seed for ``round`` and its reveal signature."""

    TYPE: ClassVar[str] = "reveal"
    round: int = _wire(U32)
    seed: bytes = _wire(SIG)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveals(Message):
    """Host → every client, after the hand: every seed of ``round`` with its reveal
    signature (the seeds the host got, a bad one too)."""

    TYPE: ClassVar[str] = "reveals"
    round: int = _wire(U32)
    seeds: Mapping[str, tuple[bytes, bytes]] = _wire(Map(ANY_PID, Tuple((SIG, SIG)), MAX_SEATS + 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort(Message):
    """Host → every client: round ``round`` failed; the hand is void (§ Transcript, abort).
    ``commitments``: those the host had; ``signature``: the host's over the abort."""

    TYPE: ClassVar[str] = "abort"
    round: int = _wire(U32)
    fault: str = _wire(Str(1, 32, r"bad_reveal|missing_reveal|missing_commitment"))
    culprits: tuple[str, ...] = _wire(Array(ANY_PID, 1, MAX_SEATS + 1))
    commitments: Mapping[str, tuple[bytes, bytes]] = _wire(
        Map(ANY_PID, Tuple((SIG, SIG)), MAX_SEATS + 1), default_factory=dict
    )
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class LogHead(Message):
    """Client → host: this seat's signed head of the log it holds — after ``hand_over``, of
    the whole log; just before a ``bye`` mid-hand, of the log so far (its goodbye)."""

    TYPE: ClassVar[str] = "log_head"
    count: int = _wire(U32)
    head: bytes = _wire(HASH)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class LogHeads(Message):
    """Host → every client: every participant's signed log head ``(count, head, signature)``,
    ``@dealer``'s included."""

    TYPE: ClassVar[str] = "log_heads"
    heads: Mapping[str, tuple[int, bytes, bytes]] = _wire(Map(ANY_PID, HEAD, MAX_SEATS + 1))


# -- dealer-blind ----------------------------------------------------------------------------

POINT: Final = Bytes(32, 32)
SHARES: Final = Map(ANY_PID, Tuple((KEY, SIG)), MAX_SEATS + 1)
SEEDS: Final = Array(HASH, 0, 1024)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindPass(Message):
    """Both ways: pass ``number`` (1: lock, 2: keys) of shuffle ``shuffle`` by ``by`` — a
    client sends its own with ``by`` empty; the host relays every pass to everyone with ``by``
    filled in (its own as ``@dealer``)."""

    TYPE: ClassVar[str] = "blind_pass"
    shuffle: int = _wire(U32)
    number: int = _wire(Int(1, 2))
    points: tuple[bytes, ...] = _wire(Array(POINT, 1, 108))
    signature: bytes = _wire(SIG)
    by: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"), default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindShare(Message):
    """Client → host: this participant's public key of ``position`` of ``shuffle`` — a card
    the deal turns up — and its signature (to ``""``)."""

    TYPE: ClassVar[str] = "blind_share"
    shuffle: int = _wire(U32)
    position: int = _wire(Int(0, 107))
    key: bytes = _wire(KEY)
    signature: bytes = _wire(SIG)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindOpen(Message):
    """Host → every client: ``position`` of ``shuffle`` opened to all — every participant's
    signed public key of it (``pid → (key, signature)``)."""

    TYPE: ClassVar[str] = "blind_open"
    shuffle: int = _wire(U32)
    position: int = _wire(Int(0, 107))
    shares: Mapping[str, tuple[bytes, bytes]] = _wire(SHARES)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindRelease(Message):
    """Both ways: a key of the position of hidden card ``hidden`` for its drawer ``to``,
    signed and sealed to the drawer alone. A client sends its own with ``by`` empty; the host
    passes it on to ``to`` alone with ``by`` filled in."""

    TYPE: ClassVar[str] = "blind_release"
    to: str = _wire(ANY_PID)
    hidden: int = _wire(U32)
    sealed: bytes = _wire(Bytes(0, 256))
    by: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"), default="")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindMove(Message):
    """Both ways: move ``seq`` of the hand, for ``seat``, signed by the seat's owner.
    ``hidden``: the hidden card a laid card was (else -1); ``shares``: every participant's
    key of its position, each signed to the mover. The host relays each move it takes to
    everyone with ``by`` filled in."""

    TYPE: ClassVar[str] = "blind_move"
    seq: int = _wire(U32)
    seat: int = _wire(SEAT)
    move: int = _wire(U32)
    hidden: int = _wire(Int(-1, 2**31 - 1), default=-1)
    signature: bytes = _wire(SIG)
    shares: Mapping[str, tuple[bytes, bytes]] = _wire(SHARES, default_factory=dict)
    by: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"), default="")


COMPLAINT: Final = Array(Tuple((U32, Int(0, 107), ANY_PID, KEY, SIG)), 0, MAX_SEATS + 1)
CLAIM: Final = Tuple((Str(1, 32, r"[a-z_]+"), TEXT, SIG))
"""A signed claim as ``blind_reveal`` relays it: ``[fault, detail, signature]``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindSeeds(Message):
    """Client → host, once the hand is over or stopped — or, mid-hand, to stop it: this
    participant's seed of every shuffle so far, in order. A participant that caught a cheat
    says what (``fault``, a ``BlindFault`` name in lower case, and ``detail``; empty when the
    hand just ended) and signs it (``signature``, over ``claim_message``: the stop is its own,
    and costs it if nothing bears it out); a drawer whose card did not open shows the keys it
    was sent for it (``complaint``: ``[shuffle, position, sender, key, signature]`` each, signed
    to it)."""

    TYPE: ClassVar[str] = "blind_seeds"
    seeds: tuple[bytes, ...] = _wire(SEEDS)
    fault: str = _wire(Str(0, 32, r"[a-z_]*"), default="")
    detail: str = _wire(TEXT, default="")
    complaint: tuple[tuple[int, int, str, bytes, bytes], ...] = _wire(COMPLAINT, default=())
    signature: bytes = _wire(SIG, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindReveal(Message):
    """Host → every client: every participant's seeds as the host got them (``@dealer``'s
    too; a participant that sent none is missing), every drawer's ``complaint``, and every
    signed claim a participant stopped the hand with (``claims``: ``[fault, detail,
    signature]`` by claimant)."""

    TYPE: ClassVar[str] = "blind_reveal"
    seeds: Mapping[str, tuple[bytes, ...]] = _wire(Map(ANY_PID, SEEDS, MAX_SEATS + 1))
    complaints: Mapping[str, tuple[tuple[int, int, str, bytes, bytes], ...]] = _wire(
        Map(ANY_PID, COMPLAINT, MAX_SEATS + 1), default_factory=dict
    )
    claims: Mapping[str, tuple[str, str, bytes]] = _wire(
        Map(ANY_PID, CLAIM, MAX_SEATS + 1), default_factory=dict
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindLeave(Message):
    """Host → every client: person ``by`` left mid-hand, between steps, publishing its seed of
    every shuffle so far (``seeds``): anyone can make its keys from now on, and its seat is the
    host's (a stand-in plays it)."""

    TYPE: ClassVar[str] = "blind_leave"
    by: str = _wire(PID)
    seeds: tuple[bytes, ...] = _wire(SEEDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindAbort(Message):
    """Host → every client: the host stops the blind hand — ``culprit`` (or nobody) broke the
    deal or went silent (``fault``: a :class:`~lanswitch.fairdeal.blind.hand.BlindFault` name,
    lower case). The host's word: each client judges the hand itself from the seeds."""

    TYPE: ClassVar[str] = "blind_abort"
    culprit: str = _wire(Str(0, 32, f"(?:{PID_RE}|@dealer)?"))
    fault: str = _wire(Str(1, 32, r"[a-z_]+"))
    detail: str = _wire(TEXT, default="")


MESSAGES: Final[Mapping[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Welcome,
        Error,
        Bye,
        Ping,
        Pong,
        Sit,
        Stand,
        Ready,
        Chat,
        LobbyState,
        Hand,
        SeatView,
        Events,
        Move,
        Reject,
        HandOver,
        Announce,
        Commit,
        Reveal,
        Reveals,
        Abort,
        LogHead,
        LogHeads,
        BlindPass,
        BlindShare,
        BlindOpen,
        BlindRelease,
        BlindMove,
        BlindSeeds,
        BlindReveal,
        BlindLeave,
        BlindAbort,
    )
}
"""Every message type by its wire ``type``."""

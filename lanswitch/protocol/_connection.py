"""The sans-I/O connection and its handshake state table, in one place (as h11's ``_state``).

:data:`HANDSHAKE` is the handshake's transitions; once OPEN, :data:`CLIENT_SENDS` and
:data:`SERVER_SENDS` say what each :class:`Role` may send; ``error`` and ``bye`` from either
side close the connection. :class:`Connection` applies that table to what we send and to what
arrives, and cuts the arriving bytes into frames.

Each frame's payload is decoded by the package's :func:`decode_frame_payload`, looked up on the
package (``_package``) at each frame rather than imported from ``_codec`` once: it is the seam
a load generator replaces to decode a payload its clients share once
(``benchmarks/_latency_harness.py``, ``tests/scenarios/test_latency.py``), as it did when the
protocol was one module. The lookup costs an attribute read per frame, nothing next to the decode.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Final

from .. import protocol as _package
from ._codec import HEADER, MAX_FRAME, encode_frame
from ._errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from ._fields import _REPR
from ._messages import MESSAGES, Message


class Role(enum.Enum):
    """Which end of the connection we are."""

    CLIENT = "client"
    """We joined a table: we send ``hello`` first."""
    SERVER = "server"
    """We host the table: we wait for ``hello`` and answer ``welcome`` or ``error``."""


class State(enum.Enum):
    """Where the connection is; the same at both ends once the bytes in flight arrive."""

    HELLO = "hello"
    """Nothing yet: the client's ``hello`` is next."""
    WELCOME = "welcome"
    """``hello`` done: the server's ``welcome`` is next."""
    OPEN = "open"
    """The handshake is done: lobby, play and fair-deal messages flow."""
    CLOSED = "closed"
    """A ``bye`` or ``error`` was sent or received (or a protocol error or the end of the
    stream was seen): nothing more is accepted; we may still send one ``error`` or ``bye``
    if we have sent neither."""


_CLOSING: Final = frozenset({"error", "bye"})
_EITHER: Final = frozenset({"ping", "pong"})

HANDSHAKE: Final[Mapping[tuple[State, Role], Mapping[str, State]]] = {
    (State.HELLO, Role.CLIENT): {"hello": State.WELCOME},
    (State.WELCOME, Role.SERVER): {"welcome": State.OPEN},
}
"""The handshake's transitions: (state, the role that sends) → {message type: next state}.
``error`` and ``bye`` are allowed from either role in every state but CLOSED and lead to it;
nothing else is allowed before OPEN."""

CLIENT_SENDS: Final = frozenset(
    {"sit", "stand", "ready", "chat", "move", "commit", "reveal", "log_head"}
    | {"blind_pass", "blind_share", "blind_release", "blind_move", "blind_seeds"}
    | _EITHER
)
"""What a client may send once the connection is OPEN (besides ``error`` and ``bye``)."""

SERVER_SENDS: Final = frozenset(
    {
        "lobby",
        "chat",
        "hand",
        "view",
        "events",
        "reject",
        "hand_over",
        "announce",
        "reveals",
        "abort",
        "log_heads",
        "blind_pass",
        "blind_open",
        "blind_release",
        "blind_move",
        "blind_reveal",
        "blind_leave",
        "blind_abort",
    }
    | _EITHER
)
"""What the server may send once the connection is OPEN (besides ``error`` and ``bye``)."""


def _next_state(state: State, sender: Role, t: str) -> State | None:
    """The state after ``sender`` sends a ``t`` in ``state``; None if that is not allowed."""
    if state is State.CLOSED:
        return None
    if t in _CLOSING:
        return State.CLOSED
    if state is State.OPEN:
        allowed = CLIENT_SENDS if sender is Role.CLIENT else SERVER_SENDS
        return State.OPEN if t in allowed else None
    return HANDSHAKE.get((state, sender), {}).get(t)


class Connection:
    """One end of one connection, sans I/O.

    ``receive_data(bytes)`` → the messages those bytes completed; ``send(message)`` → the
    bytes to write. ``receive_data(b"")`` means the stream ended.
    """

    def __init__(self, role: Role) -> None:
        self.role = role
        self.peer = Role.SERVER if role is Role.CLIENT else Role.CLIENT
        self.state = State.HELLO
        self._buffer = bytearray()
        self._sent_close = False

    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)

    def send(self, message: Message, *, frame: bytes | None = None) -> bytes:
        """The frame for ``message``. LocalProtocolError if our side may not send it now or it
        is not a valid message (the state is unchanged then). ``frame``: the message already
        encoded (:func:`encode_frame`), when one message goes to many connections."""
        t = getattr(type(message), "TYPE", "")
        if MESSAGES.get(t) is not type(message):
            raise LocalProtocolError(f"not a protocol message: {_REPR.repr(message)}")
        if self.state is State.CLOSED:
            if self._sent_close or t not in _CLOSING:
                raise LocalProtocolError(
                    f"cannot send {t}: the connection is closed", ErrorCode.UNEXPECTED
                )
            nxt: State | None = State.CLOSED
        else:
            nxt = _next_state(self.state, self.role, t)
        if nxt is None:
            raise LocalProtocolError(
                f"a {self.role.value} cannot send {t} in state {self.state.value}",
                ErrorCode.UNEXPECTED,
            )
        data = encode_frame(message) if frame is None else frame
        self.state = nxt
        if t in _CLOSING:
            self._sent_close = True
        return data

    def send_all(self, messages: Iterable[Message]) -> bytes:
        """The frames of several messages, in order."""
        return b"".join(self.send(m) for m in messages)

    def receive_data(self, data: bytes) -> list[Message]:
        """The messages completed by ``data``; ``b""`` is the end of the stream.

        Raises RemoteProtocolError — and the connection is CLOSED — on a bad frame, a bad
        message or a message the peer may not send now. Data arriving after the connection
        closed is discarded.
        """
        if self.state is State.CLOSED:
            return []
        if not data:
            self.state = State.CLOSED
            if self._buffer:
                n = len(self._buffer)
                self._buffer.clear()
                raise RemoteProtocolError(
                    f"the stream ended inside a frame ({n} bytes pending)", ErrorCode.BAD_FRAME
                )
            return []
        self._buffer += data
        out: list[Message] = []
        try:
            while not self.closed:
                message = self._next_message()
                if message is None:
                    break
                out.append(message)
        except RemoteProtocolError as e:
            self.state = State.CLOSED
            self._buffer.clear()
            e.received = tuple(out)
            raise
        if self.closed:
            self._buffer.clear()
        return out

    def _next_message(self) -> Message | None:
        buf = self._buffer
        if len(buf) < HEADER:
            return None
        n = int.from_bytes(buf[:HEADER], "big")
        if n == 0:
            raise RemoteProtocolError("a frame of length 0", ErrorCode.BAD_FRAME)
        if n > MAX_FRAME:
            raise RemoteProtocolError(
                f"a frame of {n} bytes is above the {MAX_FRAME}-byte limit", ErrorCode.TOO_BIG
            )
        if len(buf) < HEADER + n:
            return None
        payload = bytes(buf[HEADER : HEADER + n])
        del buf[: HEADER + n]
        message = _package.decode_frame_payload(payload)  # the package's: the module docstring
        nxt = _next_state(self.state, self.peer, message.TYPE)
        if nxt is None:
            raise RemoteProtocolError(
                f"a {self.peer.value} may not send {message.TYPE} in state {self.state.value}",
                ErrorCode.UNEXPECTED,
            )
        self.state = nxt
        return message

"""The protocol's errors: the :class:`ErrorCode` a connection ends or a request is refused
with (a wire value), and the exceptions that carry one.

They split as in h11: :class:`LocalProtocolError` when our side misuses the API,
:class:`RemoteProtocolError` when the peer misbehaved; :meth:`ProtocolError.error_message` is
the ``error`` message to send back (wsproto style).

This is the bottom of the package: the field checks (``_fields``) raise these errors, the
messages are built from the field checks, and :meth:`ProtocolError.error_message` builds one
of those messages. So that one method takes the ``error`` message class (and the text bound)
from the package when it is called, instead of importing the module that defines it, which
would import this one back.
"""

from __future__ import annotations

import enum

from .. import protocol as _package
from ..errors import LanswitchError, LocalError, RemoteError


class ErrorCode(enum.Enum):
    """Why a connection ends (``error``) or a request is refused (``reject``). The value is the
    wire string."""

    BAD_FRAME = "bad_frame"
    """A frame's length is 0, or its payload is not one well-formed msgpack value (a map
    that repeats a key included)."""
    TOO_BIG = "too_big"
    """A frame's length is above :data:`MAX_FRAME`."""
    BAD_MESSAGE = "bad_message"
    """A payload is not a known message: unknown type, a missing, extra or ill-typed field."""
    UNEXPECTED = "unexpected"
    """A well-formed message that its sender may not send now (before the handshake, a
    server-only message from a client, a second hello, …)."""
    VERSION_MISMATCH = "version_mismatch"
    """``hello`` or ``welcome`` names another protocol version."""
    BAD_PASSWORD = "bad_password"
    """The table has a password and ``hello`` gave none or another."""
    BAD_TOKEN = "bad_token"
    """``hello`` carried a resume token the host does not know (or no longer honours)."""
    TABLE_FULL = "table_full"
    """No seat is free (``sit``), or the host takes no more connections."""
    SEAT_TAKEN = "seat_taken"
    """``sit`` asked for a seat someone else holds."""
    NOT_NOW = "not_now"
    """A lobby request the table cannot grant in its current state (``sit``/``stand``
    during a hand, ``ready`` while not seated)."""
    NOT_YOUR_TURN = "not_your_turn"
    """A ``move`` from a seat that is not to act (or from a spectator)."""
    ILLEGAL_MOVE = "illegal_move"
    """A ``move`` the rules do not allow now."""
    STALE_VIEW = "stale_view"
    """A ``move`` that answers a view older than the latest one sent."""
    FAIR_DEAL = "fair_deal"
    """A ``commit``, ``reveal`` or ``log_head`` the fair deal does not accept (wrong round,
    sent twice, too early)."""
    RATE_LIMITED = "rate_limited"
    """The peer sends more than the host accepts (messages or chat per second)."""
    KICKED = "kicked"
    """The host removed this player from the table."""
    SHUTDOWN = "shutdown"
    """The host is shutting the table down."""
    PAUSED = "paused"
    """The host stopped the table mid-match and keeps it to carry on (``--resume``): the
    client keeps its resume token and the hand in play, and connects again (protocol v7)."""
    INTERNAL = "internal"
    """The sender hit a bug of its own; the connection cannot go on."""


class ProtocolError(LanswitchError):
    """A protocol violation, with the :class:`ErrorCode` to tell the peer."""

    def __init__(self, text: str, code: ErrorCode = ErrorCode.BAD_MESSAGE) -> None:
        super().__init__(text)
        self.text = text
        self.code = code

    def error_message(self) -> _package.Error:
        """The ``error`` message that tells the peer what went wrong."""
        return _package.Error(code=self.code, text=self.text[: _package.MAX_TEXT])


class LocalProtocolError(ProtocolError, LocalError):
    """Our side misused the connection: a message not allowed now, a bad field, too big."""


class RemoteProtocolError(ProtocolError, RemoteError):
    """The peer broke the protocol. ``received`` holds the messages that the same call to
    :meth:`Connection.receive_data` decoded before the violation."""

    def __init__(
        self,
        text: str,
        code: ErrorCode = ErrorCode.BAD_MESSAGE,
        received: tuple[_package.Message, ...] = (),
    ) -> None:
        super().__init__(text, code)
        self.received = received

"""The wire protocol: messages, their msgpack codec, framing, and a sans-I/O connection.

The package's modules, bottom up (each imports only those above it; ``_errors`` takes the
``error`` message class from the package when it builds one, and ``_connection`` looks
:func:`decode_frame_payload` up there at each frame — their docstrings say why):

- ``_errors``: :class:`ErrorCode` and the exceptions that carry one (:class:`ProtocolError`,
  :class:`LocalProtocolError`, :class:`RemoteProtocolError`).
- ``_fields``: the field schemas (:class:`Int`, :class:`Str`, :class:`Name`, :class:`Array`,
  :class:`Tuple`, :class:`Map`, :class:`Struct`…), the shared field types and bounds, and the
  checkers generated from them — the hot path of decoding.
- ``_messages``: :class:`Message`, one dataclass per wire ``type``, and :data:`MESSAGES`.
- ``_codec``: frames and payloads — :func:`decode_frame_payload`, :func:`encode_frame`, the
  msgpack limits, :data:`PROTOCOL_VERSION`, :data:`MAX_FRAME`.
- ``_connection``: :class:`Role`, :class:`State`, the handshake table (:data:`HANDSHAKE`,
  :data:`CLIENT_SENDS`, :data:`SERVER_SENDS`) and the sans-I/O :class:`Connection`.

Import from the package (``from lanswitch import protocol as p``), not from its modules: the
names below are the protocol's API, the modules' layout is not. :class:`Connection` looks up
:func:`decode_frame_payload` on the package at each frame, so a load generator that replaces
the package's name replaces what every connection decodes with
(``benchmarks/_latency_harness.py``). This is the reference implementation of
``protocol/SPEC.md`` (the folder ``protocol/`` at the top of the repository is the spec and its
vectors, not this package).

Theory of operation
-------------------
Like h11, this package never touches a socket. A :class:`Connection` is fed the bytes that
arrived (:meth:`Connection.receive_data`) and returns the messages they completed; it turns
a message we want to send into the bytes to write (:meth:`Connection.send`). The shells
(``server.py``, ``client.py``) own the TLS streams and pass bytes in and out.

Three layers, each checked on its own (``protocol/SPEC.md`` specifies all three):

1. **Frames.** ``u32 big-endian length ‖ payload``; ``1 ≤ length ≤`` :data:`MAX_FRAME`. A
   length outside that range is rejected as soon as its four bytes arrive, so a peer cannot
   make us buffer more than one maximum frame.
2. **Payloads.** One msgpack map per frame, decoded with explicit size limits and no map
   that repeats a key, with a string ``"type"`` and exactly the fields of that message type.
   Every field is present (optional ones as nil) and has its type and bounds; anything else
   is a :class:`RemoteProtocolError`.
   We check what we send against the same schema (a :class:`LocalProtocolError`), so every
   frame we write decodes at the peer.
3. **The connection's state machine** (:data:`HANDSHAKE`, :data:`CLIENT_SENDS`,
   :data:`SERVER_SENDS`): the client's first message is ``hello``, the server's first
   ``welcome`` (or ``error``/``bye``); after that each role sends its own set; ``bye`` or
   ``error`` from either side closes the connection.

Errors split as in h11: :class:`LocalProtocolError` when our side misuses the API,
:class:`RemoteProtocolError` when the peer misbehaved. Both carry an :class:`ErrorCode`, and
:meth:`ProtocolError.error_message` is the ``error`` message to send back (wsproto style).
"""

from __future__ import annotations

# The names in ``__all__`` are the protocol's API, as before the split. The ``X as X`` ones are
# the schema vocabulary (field types, bounds) and helpers that code and tests reach as
# ``p.Int``, ``p.MAX_TEXT``…: still there, outside ``__all__`` as they were.
from ._codec import BUILT_FROM_ENGINE as BUILT_FROM_ENGINE
from ._codec import HEADER as HEADER
from ._codec import MAX_FRAME, PROTOCOL_VERSION, decode_frame_payload, encode_frame, encode_message
from ._codec import decode_message as decode_message
from ._connection import CLIENT_SENDS, HANDSHAKE, SERVER_SENDS, Connection, Role, State
from ._errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from ._fields import ANY_PID as ANY_PID
from ._fields import CARD as CARD
from ._fields import CARDS as CARDS
from ._fields import EVENT as EVENT
from ._fields import HASH as HASH
from ._fields import HEAD as HEAD
from ._fields import I32 as I32
from ._fields import KEY as KEY
from ._fields import MAX_SEATS as MAX_SEATS
from ._fields import MAX_TEXT as MAX_TEXT
from ._fields import NAME as NAME
from ._fields import NAME_OR_EMPTY as NAME_OR_EMPTY
from ._fields import NOT_IN_NAMES as NOT_IN_NAMES
from ._fields import PID as PID
from ._fields import PID_RE as PID_RE
from ._fields import SEAT as SEAT
from ._fields import SIG as SIG
from ._fields import TEXT as TEXT
from ._fields import TOKEN as TOKEN
from ._fields import U32 as U32
from ._fields import Array as Array
from ._fields import Bool as Bool
from ._fields import Bytes as Bytes
from ._fields import Choice as Choice
from ._fields import Int as Int
from ._fields import Map as Map
from ._fields import Name as Name
from ._fields import Opt as Opt
from ._fields import Str as Str
from ._fields import Struct as Struct
from ._fields import Tuple as Tuple
from ._fields import clean_name, clean_text
from ._messages import CLAIM as CLAIM
from ._messages import COMPLAINT as COMPLAINT
from ._messages import (
    MESSAGES,
    Abort,
    Announce,
    BlindAbort,
    BlindLeave,
    BlindMove,
    BlindOpen,
    BlindPass,
    BlindRelease,
    BlindReveal,
    BlindSeeds,
    BlindShare,
    Bye,
    Chat,
    Commit,
    Error,
    Events,
    Hand,
    HandOver,
    Hello,
    LobbySeat,
    LobbyState,
    LogHead,
    LogHeads,
    Message,
    Move,
    Ping,
    Pong,
    Ready,
    Reject,
    Reveal,
    Reveals,
    SeatView,
    Sit,
    Stand,
    Welcome,
)
from ._messages import POINT as POINT
from ._messages import SEEDS as SEEDS
from ._messages import SHARES as SHARES

__all__ = [
    "CLIENT_SENDS",
    "HANDSHAKE",
    "MAX_FRAME",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "SERVER_SENDS",
    "Abort",
    "Announce",
    "BlindAbort",
    "BlindLeave",
    "BlindMove",
    "BlindOpen",
    "BlindPass",
    "BlindRelease",
    "BlindReveal",
    "BlindSeeds",
    "BlindShare",
    "Bye",
    "Chat",
    "Commit",
    "Connection",
    "Error",
    "ErrorCode",
    "Events",
    "Hand",
    "HandOver",
    "Hello",
    "LobbySeat",
    "LobbyState",
    "LocalProtocolError",
    "LogHead",
    "LogHeads",
    "Message",
    "Move",
    "Ping",
    "Pong",
    "ProtocolError",
    "Ready",
    "Reject",
    "RemoteProtocolError",
    "Reveal",
    "Reveals",
    "Role",
    "SeatView",
    "Sit",
    "Stand",
    "State",
    "Welcome",
    "clean_name",
    "clean_text",
    "decode_frame_payload",
    "encode_frame",
    "encode_message",
]

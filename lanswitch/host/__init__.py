"""The host of one table, sans I/O: protocol messages in, protocol messages out, time passed in.

This is the table's whole logic — the lobby (:class:`lanswitch.table.Table`), the match
(:class:`lanswitch.game.Match`), each hand dealt by the fair deal
(:class:`lanswitch.fairdeal.Dealer`), the host's bots, the turn timer, liveness and
resuming — with no sockets, no clock and no randomness of its own. The server shell
(``lanswitch.server``) owns the connections: it numbers them (``cid``), and calls

* :meth:`Host.connect` when one opens, :meth:`Host.receive` for each message the
  :class:`~lanswitch.protocol.Connection` decoded, :meth:`Host.disconnected` when one drops;
* :meth:`Host.tick` whenever :meth:`Host.next_deadline` comes (bots acting, timers, pings);

and after each call writes :attr:`Host.outbox` (``(cid, message)`` pairs, in order) and closes
the connections in :attr:`Host.closing`. Randomness (tokens, seeds, keys, game ids) comes from
the ``entropy`` callable the shell passes (``os.urandom``); tests pass a seeded one.

Policies the spec leaves to the host, as this one implements them (``docs/hosting.md``):

* A hand starts when every seat is filled (once a match has begun: at least two), at least
  one by a person, and every seated person is ready and connected. Bots are always ready.
* A player whose link drops keeps the seat and the hand. After ``away_grace`` seconds the
  log says it is away: the host plays its seat (a stand-in, marked so in the log) and later
  rounds run without it — the hand goes on — until it comes back by its token. A player who
  says goodbye mid-hand is away at once. A seat away ``seat_limit`` seconds is given up
  between hands (a bot takes it where the table was set up with bots).
* A fair-deal round waits ``round_timeout`` seconds for a connected participant's commitment
  or seed; past that the hand is void and the missing participant is blamed (and, once the
  cards are dealt, forfeits the hand).
* With a turn timer, a seat that lets it run out has the safest legal move made for it (draw,
  else pass, else its first legal move).
* The host pings a connection the table waits on (everyone in the lobby and in a fair-deal
  round; in play, every seated player — the seat to act counted from its turn's start — and
  everyone at a dealer-blind table) when it has not heard from it for ``PING_AFTER`` seconds,
  a spectator in play after ``IDLE_PING_AFTER``, and drops one that does not answer within
  ``PONG_WAIT``. Each ``lobby`` mid-hand says how long an away player's grace has left
  (``grace_ms``), so every screen counts down to the stand-in.
* Every bot plays at the table's level (``bot_strategy`` at first; :meth:`Host.set_bot_level`
  between hands changes it for every bot seat from the next hand), and the lobby says which
  (``bot_level``), and whether the players may ask for hints (``hints``: a courtesy each
  client keeps, :meth:`Host.set_hints`).

Crash recovery. The host is a deterministic function of its calls, their times and the bytes
it drew from ``entropy`` — so a journal of those calls is a complete record of the table. With
``journal=True`` every call the shell makes (and every local power: bots, rules, kick, the
owner, the bots' level, hints) appends one record to :attr:`Host.inputs`: the call's name, its
arguments (a message as its msgpack payload, a rule set as TOML), whether it raised, and the
randomness it drew. The shell stores them (``lanswitch.journal``, sqlite) before it sends
what the call produced, so nothing a client was told is missing from the journal.
:meth:`Host.restore` replays a journal into a new host in exactly the state the old one was in
when it stopped, connections included; the shell then tells it those connections are gone, and
their players resume with their tokens as after any lost link.

Layout: ``_config`` (settings, constants), ``_journal`` (records and replay), ``_core``
(:class:`Host`: connections, the lobby, the match between hands), and the hand in play, which
the host *holds* rather than inherits — ``_deal`` (the interface: ``HandDriver``, and
``Tableside``, what a hand may ask of its table), ``_commit`` (``CommitHand``, commit-reveal)
and ``_blind`` (``BlindHand``, dealer-blind). Imports run one way: ``_core`` → the drivers →
``_deal`` → ``_config``.
"""

from ._config import (
    CHAT_BURST,
    CHAT_WINDOW,
    DROP_AFTER,
    HANDSHAKE_TIMEOUT,
    HOST_ID,
    IDLE_PING_AFTER,
    LOG_KEEP,
    MAX_CLIENTS,
    PING_AFTER,
    PONG_WAIT,
    RATE_LIMIT,
    HostConfig,
)
from ._core import Host
from ._journal import ReplayError

__all__ = [
    "CHAT_BURST",
    "CHAT_WINDOW",
    "DROP_AFTER",
    "HANDSHAKE_TIMEOUT",
    "HOST_ID",
    "IDLE_PING_AFTER",
    "LOG_KEEP",
    "MAX_CLIENTS",
    "PING_AFTER",
    "PONG_WAIT",
    "RATE_LIMIT",
    "Host",
    "HostConfig",
    "ReplayError",
]

"""What every participant agrees to before a hand: :class:`HandSetup`.

The setup fixes the hand's context ``ctx_0`` — game, hand number, deck, seats, and every
participant's public key, an empty one for a seat the host runs — and the first event of its
log, the ``setup`` note, which binds what ``ctx_0`` does not: the rules, the dealer, the seats
sitting the hand out, the turn timer and the seats' display names (``protocol/SPEC.md``, "The
hand's setup"). Everything a reader of a saved hand sees is so under a signature: every
participant's signed log head chains back through the note to ``ctx_0``, and a dealer-blind
hand's context binds both (:func:`~.blind.hand.blind_setup`).
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from ..errors import InvalidInput
from ..game import Game
from ..rules import MAX_PLAYERS, MIN_PLAYERS, RulesError, RuleSet, dump_toml, rules_from_mapping
from .log import Note
from .primitives import DEALER, UsageError, check_id, enc, hand_context, u8, u32

__all__ = ["MIN_TURN_TIMER_MS", "HandSetup", "SetupError"]

_MAX_TIMER_MS: Final = (1 << 32) - 1
_MAX_NAME_BYTES: Final = 128  # a lobby name: at most 32 characters of up to 4 bytes
MIN_TURN_TIMER_MS: Final = 5000
"""The shortest turn timer a hand may have (0: none). A timer is what lets the host move for a
present player; one of a few milliseconds would let it play every turn of theirs "on a
timeout" with each looking honest to the player's own clock."""


class SetupError(InvalidInput):
    """A setup that cannot be: bad rules text, seats, keys. Says which."""


def _name_bytes(name: object) -> bytes:
    """A display name as the setup note encodes it: UTF-8, at most ``_MAX_NAME_BYTES``."""
    try:
        data = name.encode("utf-8") if isinstance(name, str) else None
    except UnicodeEncodeError:
        data = None
    if data is None or len(data) > _MAX_NAME_BYTES:
        raise UsageError(f"names: each is a text of at most {_MAX_NAME_BYTES} UTF-8 bytes")
    return data


@lru_cache(maxsize=32)
def _parse_rules(text: str) -> RuleSet:
    try:
        return rules_from_mapping(tomllib.loads(text), source="the hand's rules")
    except tomllib.TOMLDecodeError as e:
        raise SetupError(f"rules: not valid TOML: {e}") from None
    except RulesError as e:
        raise SetupError(f"rules: {e}") from None


@dataclass(frozen=True, slots=True)
class HandSetup:
    """A hand's setup. Build one with :meth:`create` (from a rule set) or :meth:`from_toml`
    (from the rules text a ``hand`` message or a transcript carries).

    ``keys`` maps every participant with a key of its own — the seats of people, and
    ``@dealer`` — to its 32-byte Ed25519 public key; a seat without one is run by the host (a
    bot), and everything it does is the host's. ``turn_timer_ms`` is the time a seat has to act
    (0: no timer): only at a table with a timer may the host move for a player who is present.
    ``names``: each seat's display name as the lobby showed it ("" for an empty seat), or none
    at all; the setup note binds them, so a saved hand cannot be shown with other names.
    """

    game_id: bytes
    hand_no: int
    rules: RuleSet
    rules_toml: str
    seats: tuple[str, ...]
    keys: Mapping[str, bytes]
    dealer: int = 0
    out: tuple[int, ...] = ()
    turn_timer_ms: int = 0
    names: tuple[str, ...] = ()
    decks: int = field(init=False)
    jokers: int = field(init=False)
    ctx0: bytes = field(init=False)
    note: Note = field(init=False)
    humans: frozenset[int] = field(init=False)

    def __post_init__(self) -> None:
        n = len(self.seats)
        for p in self.seats:
            check_id(p)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise UsageError(f"a hand has {MIN_PLAYERS}..{MAX_PLAYERS} seats, not {n}")
        if len(set(self.seats)) != n:
            raise UsageError(f"seat ids must be distinct: {list(self.seats)}")
        unknown = set(self.keys) - {*self.seats, DEALER}
        if unknown:
            raise UsageError(f"keys for ids that are no participants: {sorted(unknown)}")
        if DEALER not in self.keys:
            raise UsageError("@dealer has no key")
        short = [p for p, k in self.keys.items() if not isinstance(k, bytes) or len(k) != 32]
        if short:
            raise UsageError(f"a key is 32 bytes (a seat the host runs has none): {short}")
        if not 0 <= self.dealer < n:
            raise UsageError(f"the dealer must be a seat 0..{n - 1}, not {self.dealer}")
        out = tuple(self.out)
        if any(not 0 <= s < n for s in out) or list(out) != sorted(set(out)):
            raise UsageError(f"seats out must be distinct seats 0..{n - 1}, ascending: {out}")
        if self.dealer in out:
            raise UsageError(f"the dealer (seat {self.dealer}) is sitting this hand out")
        if n - len(out) < MIN_PLAYERS:
            raise UsageError("a hand needs at least two players")
        timer = self.turn_timer_ms
        if not (timer == 0 or MIN_TURN_TIMER_MS <= timer <= _MAX_TIMER_MS):
            raise UsageError(
                f"the turn timer must be 0 (none) or {MIN_TURN_TIMER_MS}..{_MAX_TIMER_MS} "
                f"milliseconds, not {timer}"
            )
        names = tuple(self.names)
        if names and len(names) != n:
            raise UsageError(f"names: one per seat ({n}), or none, not {len(names)}")
        encoded = [_name_bytes(x) for x in names]
        decks = self.rules.decks_for(n - len(out))
        jokers = self.rules.deal.jokers
        keys = dict(self.keys)
        ctx0 = hand_context(self.game_id, self.hand_no, decks, jokers, self.seats, keys)
        digest = hashlib.sha256(self.rules_toml.encode("utf-8")).digest()
        note = Note(
            "setup",
            digest
            + u8(self.dealer)
            + u8(len(out))
            + bytes(out)
            + u32(self.turn_timer_ms)
            + u8(len(names))
            + b"".join(enc(x) for x in encoded),
        )
        humans = frozenset(s for s, p in enumerate(self.seats) if p in keys)
        for name, value in (
            ("keys", keys),
            ("out", out),
            ("names", names),
            ("decks", decks),
            ("jokers", jokers),
            ("ctx0", ctx0),
            ("note", note),
            ("humans", humans),
        ):
            object.__setattr__(self, name, value)

    @classmethod
    def create(
        cls,
        game_id: bytes,
        hand_no: int,
        rules: RuleSet,
        seats: Sequence[str],
        keys: Mapping[str, bytes],
        *,
        dealer: int = 0,
        out: Iterable[int] = (),
        turn_timer_ms: int = 0,
        names: Sequence[str] = (),
    ) -> HandSetup:
        """A setup for ``rules``, written out as ``dump_toml(rules)``."""
        return cls(
            game_id,
            hand_no,
            rules,
            dump_toml(rules),
            tuple(seats),
            dict(keys),
            dealer,
            tuple(sorted(out)),
            turn_timer_ms,
            tuple(names),
        )

    @classmethod
    def from_toml(
        cls,
        game_id: bytes,
        hand_no: int,
        rules_toml: str,
        seats: Sequence[str],
        keys: Mapping[str, bytes],
        *,
        dealer: int = 0,
        out: Iterable[int] = (),
        turn_timer_ms: int = 0,
        names: Sequence[str] = (),
    ) -> HandSetup:
        """A setup whose rules are parsed from ``rules_toml`` (SetupError if they are bad)."""
        rules = _parse_rules(rules_toml)
        try:
            return cls(
                game_id,
                hand_no,
                rules,
                rules_toml,
                tuple(seats),
                dict(keys),
                dealer,
                tuple(out),
                turn_timer_ms,
                tuple(names),
            )
        except UsageError as e:
            raise SetupError(str(e)) from None

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def participants(self) -> tuple[str, ...]:
        """Everyone who may take part in a round: the people's seats, then ``@dealer``."""
        return (*(p for s, p in enumerate(self.seats) if s in self.humans), DEALER)

    def name(self, seat: int) -> str:
        """What people call ``seat``: its display name, or its id if the setup names none."""
        return (self.names[seat] if seat < len(self.names) else "") or self.seats[seat]

    def host_runs(self, seat: int) -> bool:
        """Whether ``seat`` is the host's (a bot: no key of its own)."""
        return seat not in self.humans

    def new_game(self) -> Game:
        """A fresh engine for this hand, waiting for the deal."""
        return Game(
            self.rules, self.players, dealer=self.dealer, out=self.out, hand_no=self.hand_no
        )

"""A dealer-blind table in one process for the tests and the benchmarks: keys, setup, holders
and bots (``lanswitch.fairdeal.blind.local``)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch.bots import make_bot
from lanswitch.fairdeal.blind.hand import BlindSetup, blind_setup
from lanswitch.fairdeal.blind.holder import Holder
from lanswitch.fairdeal.blind.local import BlindHand, Chooser, play_blind_hand
from lanswitch.fairdeal.primitives import DEALER, public_bytes
from lanswitch.fairdeal.setup import HandSetup
from lanswitch.game import Game
from lanswitch.rules import preset

HolderFactory = Callable[[BlindSetup, str, bytes, Callable[[int], bytes]], Holder]


@dataclass
class BlindTable:
    setup: BlindSetup
    private: Mapping[str, bytes]
    rng: random.Random

    def seeds(self, pid: str) -> Callable[[int], bytes]:
        return lambda k: hashlib.sha256(f"{pid}/{k}/{self.rng.random()}".encode()).digest()

    def holders(self, make: Mapping[str, HolderFactory] | None = None) -> dict[str, Holder]:
        out: dict[str, Holder] = {}
        for p in self.setup.participants:
            factory = (make or {}).get(p, Holder)
            out[p] = factory(self.setup, p, self.private[p], self.seeds(p))
        return out

    def chooser(self) -> Chooser:
        bot = make_bot("heuristic", self.setup.rules)

        def choose(game: Game, seat: int) -> int:
            return bot.choose(game.view(seat), self.rng)

        return choose

    def play(self, make: Mapping[str, HolderFactory] | None = None, **kw: object) -> BlindHand:
        return play_blind_hand(self.setup, self.holders(make), self.chooser(), **kw)  # type: ignore[arg-type]


def blind_table(people: int, bots: int, rules: str = "switch", seed: int = 1) -> BlindTable:
    """``people`` seats with keys of their own, then ``bots`` seats the host runs."""
    rng = random.Random(seed)
    seats = tuple(f"p{i}" for i in range(people + bots))
    private = {
        p: Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)).private_bytes_raw()
        for p in (*seats[:people], DEALER)
    }
    hand = HandSetup.create(
        hashlib.sha256(f"ctx0/{seed}".encode()).digest()[:16],
        1,
        preset(rules),
        seats,
        {p: public_bytes(k) for p, k in private.items()},
        dealer=seed % (people + bots),
        names=tuple(
            f"Player {i + 1}" if i < people else f"Bot {i - people + 1}"
            for i in range(people + bots)
        ),
    )
    return BlindTable(blind_setup(hand), private, rng)

"""A dealer-blind hand kept in a file, and checked again from it alone.

Theory of operation
-------------------
:func:`dump` writes what one participant holds at the end of a blind hand: the setup, every
pass with its signature, every position opened to everyone with its shares, every move with
its signature (and a laid card's shares), every participant's revealed seeds, and the keys
released to this participant alone. :func:`check` reads it back, recomputes the hand's context
from the setup it shows — the game, the hand, the seats with their names and keys (a seat
without one is the host's bot), the rules, the dealer, the seats out — so that every signature
in the file is over what a reader sees, replays it through a fresh
:class:`~.hand.Follower` — so every live check runs again, as the host's and each player's
did — and then :func:`~.check.check_hand`. A file changed after the hand (a move, a key, a
pass, a seed, a name, the rules) fails the signature or the seed it depended on. Who won is the
replay's, never the file's word. Pure: text in, outcome out.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...errors import InvalidInput
from ...narrate import won_how
from ...rules import RulesError
from ..judgement import Judgement
from ..primitives import DEALER, FairnessError, UsageError, named
from ..setup import HandSetup, SetupError
from ..transcript import RepeatedKey, load_json
from .check import BlindOutcome, caught, check_hand, judgement, own_verdict
from .hand import BlindFault, Cheat, Follower, MoveRecord, Opening, Share, blind_setup
from .seat import Complaint, complaint_shares

__all__ = ["FORMAT", "BlindFileError", "check", "dump", "judge", "judge_all"]

FORMAT: Final = "lanswitch-blind-hand"
VERSION: Final = 3
"""The version this lanswitch writes: 2 since protocol v4 (the setup is the ``hand``
message's, ``ctx0`` recomputed from it), 3 since v5 (it keeps the signed claims that stopped
the hand)."""
READS: Final = frozenset({2, VERSION})
"""The versions it reads (a version 2 file has no claims)."""


class BlindFileError(InvalidInput):
    """A file that is not a blind hand this version can read; the message says what."""


def _share(s: Share) -> list[str]:
    return [s.sender, s.to, s.key.hex(), s.signature.hex()]


def _opening(o: Opening) -> list[Any]:
    return [o.shuffle, o.position, o.card, [_share(s) for s in o.shares]]


def dump(
    follower: Follower,
    pid: str,
    seeds: Mapping[str, Mapping[int, bytes]],
    received: Mapping[tuple[int, int], Mapping[str, Share]],
    complaints: Mapping[str, Sequence[Complaint]] | None = None,
    claims: Mapping[str, tuple[str, str, bytes]] | None = None,
    *,
    abort: tuple[str, str, str] | None = None,
    disputed: bool = False,
    disputes: Sequence[str] = (),
) -> str:
    """The JSON text of a blind hand as participant ``pid`` holds it (module docstring);
    ``complaints``: the keys other drawers showed of cards that did not open for them;
    ``claims``: the signed claims participants stopped the hand with, as relayed; ``abort``:
    the host's ``blind_abort`` (culprit, fault, detail), its word; ``disputed``: ``pid``'s own
    record that its client had sent every pass and key the hand asked of it when the host
    blamed it (``check.own_verdict``); ``disputes``: where its client found the hand not
    the table its lobby showed (kept only when there are any: older files stay as they were)."""
    setup = follower.setup
    hs = setup.hand
    if hs is None:
        raise UsageError("a blind hand's file needs the setup it was made from (blind_setup)")
    laid = {
        (m.opening.shuffle, m.opening.position) for m in follower.moves if m.opening is not None
    }
    data = {
        "format": FORMAT,
        "version": VERSION,
        "id": pid,
        "setup": {
            "game_id": hs.game_id.hex(),
            "hand_no": hs.hand_no,
            "rules": hs.rules_toml,
            "seats": list(hs.seats),
            "names": list(hs.names),
            "keys": {p: k.hex() for p, k in hs.keys.items()},
            "dealer": hs.dealer,
            "out": list(hs.out),
            "turn_timer_ms": hs.turn_timer_ms,
            "ctx0": setup.ctx0.hex(),
            "people": sorted(setup.people),
        },
        "shuffles": [
            [
                [p, n, [x.hex() for x in rec.passes[(p, n)]], rec.signatures[(p, n)].hex()]
                for n in (1, 2)
                for p in rec.order
                if (p, n) in rec.passes
            ]
            for rec in follower.shuffles
        ],
        "turned_up": [
            _opening(o) for o in follower.openings if (o.shuffle, o.position) not in laid
        ],
        "steps": [_step(follower, kind, index) for kind, index in follower.steps],
        "seeds": {p: {str(k): s.hex() for k, s in got.items()} for p, got in seeds.items()},
        "received": [[k, j, *_share(s)] for (k, j), got in received.items() for s in got.values()],
        "stopped": _stopped(follower.stopped),
        "complaints": {
            q: [[k, j, sender, key.hex(), sig.hex()] for k, j, sender, key, sig in shown]
            for q, shown in (complaints or {}).items()
        },
        "claims": {
            q: [fault, detail, sig.hex()] for q, (fault, detail, sig) in (claims or {}).items()
        },
        "abort": None if abort is None else list(abort),
        "disputed": disputed,
    }
    if disputes:
        data["disputes"] = list(disputes)
    return json.dumps(data, indent=1) + "\n"


def _step(follower: Follower, kind: str, index: int) -> list[Any]:
    if kind == "shuffle":
        return ["shuffle", index]
    if kind == "leave":
        pid, seeds = follower.leaves[index]
        return ["leave", pid, {str(k): s.hex() for k, s in seeds.items()}]
    return ["move", _move(follower.moves[index])]


def _stopped(stopped: tuple[str, object] | None) -> list[Any] | None:
    """The step that broke the deal, as the follower kept it."""
    if stopped is None:
        return None
    kind, what = stopped
    if kind == "pass":
        assert isinstance(what, tuple)
        k, pid, number, points, signature = what
        return ["pass", k, pid, number, [x.hex() for x in points], signature.hex()]
    if kind == "open":
        assert isinstance(what, Opening)
        return ["open", _opening(what)]
    assert isinstance(what, MoveRecord)
    return ["move", _move(what)]


def _load_move(m: Any) -> MoveRecord:
    opening = _load_opening(m["opening"]) if m["opening"] is not None else None
    return MoveRecord(
        int(m["seq"]),
        int(m["seat"]),
        str(m["by"]),
        int(m["move"]),
        int(m["hidden"]),
        _hex(m["signature"], "a signature"),
        opening,
    )


def _replay_passes(f: Follower, passes: Any) -> None:
    for pid, number, points, sig in passes:
        f.on_pass(
            str(pid),
            int(number),
            [_hex(x, "a point") for x in points],
            _hex(sig, "a signature"),
        )


def _replay_stopped(f: Follower, data: dict[str, Any]) -> None:
    """The shuffle left open when the hand stopped, and the step that stopped it: a Cheat if
    the step breaks the deal here too."""
    shuffles = data["shuffles"]
    if len(shuffles) > len(f.shuffles) and f.open_shuffle is None:
        f.begin_shuffle()
        _replay_passes(f, shuffles[len(f.shuffles) - 1])
    stopped = data.get("stopped")
    if stopped is None:
        return
    if stopped[0] == "pass":
        _kind, k, pid, number, points, sig = stopped
        if f.open_shuffle is None or f.open_shuffle.index != int(k):
            raise BlindFileError(f"the stopping pass is of shuffle {k}, which is not open")
        f.on_pass(str(pid), int(number), [_hex(x, "a point") for x in points], _hex(sig, "sig"))
    elif stopped[0] == "open":
        o = _load_opening(stopped[1])
        rec = f.open_shuffle
        if rec is None or rec.index != o.shuffle:
            raise BlindFileError(f"the stopping opening is of shuffle {o.shuffle}, not open")
        for _ in range(rec.n + 1):  # the turn-ups before it, from the file
            j = f.pending_turn_up()
            if j is None or j == o.position:
                break
            f.open_public(j, _turned_up_of(data, rec.index, j))
        f.open_public(o.position, o.shares)
    elif stopped[0] == "move":
        f.on_move(_load_move(stopped[1]))
    else:
        raise BlindFileError(f"no such stopping step {stopped[0]!r}")


def _turned_up_of(data: dict[str, Any], k: int, j: int) -> tuple[Share, ...]:
    turned_up = {(o.shuffle, o.position): o for o in map(_load_opening, data["turned_up"])}
    return _turned_up(turned_up, k, j)


def _move(m: MoveRecord) -> dict[str, Any]:
    return {
        "seq": m.seq,
        "seat": m.seat,
        "by": m.by,
        "move": m.move,
        "hidden": m.hidden,
        "signature": m.signature.hex(),
        "opening": _opening(m.opening) if m.opening is not None else None,
    }


def _hex(v: object, what: str) -> bytes:
    if not isinstance(v, str):
        raise BlindFileError(f"{what} is not a hex string")
    try:
        return bytes.fromhex(v)
    except ValueError:
        raise BlindFileError(f"{what} is not hex") from None


def _load_share(v: Any) -> Share:
    sender, to, key, sig = v
    return Share(str(sender), str(to), _hex(key, "a key"), _hex(sig, "a signature"))


def _load_opening(v: Any) -> Opening:
    k, j, card, shares = v
    return Opening(int(k), int(j), int(card), tuple(_load_share(s) for s in shares))


def check(text: str | bytes) -> tuple[str, BlindOutcome]:
    """``(whose file, outcome)`` of a blind hand file; BlindFileError if it cannot be read."""
    pid, _hs, _dealt, found = _read(text)
    return pid, found


def judge(text: str | bytes) -> Judgement:
    """The judgement of a blind hand file (:mod:`.judgement`), its people named as the setup
    the file shows names them — which the check holds to the hand's signed context; a
    BlindFileError if the file cannot be read."""
    _pid, hs, dealt, found = _read(text)
    return _judgement(hs, dealt, found)


def _judgement(hs: HandSetup, dealt: bool, found: BlindOutcome) -> Judgement:
    return judgement(
        found, game_id=hs.game_id, hand_no=hs.hand_no, names=hs.names, seats=hs.seats, dealt=dealt
    )


def judge_all(texts: Sequence[str | bytes]) -> list[Judgement | BlindFileError]:
    """Each file's judgement (or why it cannot be read), files of one hand compared.

    **One verdict per hand for a withholding in dispute** (as ``compare`` does for
    commit-reveal transcripts). When the host's abort blamed a participant for withholding —
    its word — and that participant's own file says its client had sent every pass and key
    the hand asked of it (``disputed``: unfair, the host to blame, on its own record), the
    files disagree about who withheld, and nothing signed settles it. Every file of the hand
    then gets one verdict: void, the accused and the host both named, nothing proven, the
    dispute said. A file whose check proves more (a cheat, by its signatures) keeps that."""
    read: list[_Read | BlindFileError] = []
    for text in texts:
        try:
            read.append(_read_all(text))
        except BlindFileError as e:
            read.append(e)
    hands: dict[bytes, list[_Read]] = {}
    for r in read:
        if not isinstance(r, BlindFileError):
            hands.setdefault(r.ctx0, []).append(r)
    settled: dict[int, Judgement] = {}
    for group in hands.values():
        disputers = [r for r in group if r.found.fault is BlindFault.FALSE_CLAIM]
        accused = {r.pid for r in disputers}
        blamed = [
            r
            for r in group
            if r.found.status == "void" and not r.found.proven and r.found.culprit in accused
        ]
        if not blamed:
            continue
        base = blamed[0].found
        who = named(base.culprit, blamed[0].hs.names)
        detail = (
            f"{base.detail}; {who} says, on its own record, that it sent it: the host's word "
            "against the player's, and nothing signed settles it"
        )
        one = BlindOutcome("void", base.culprit, base.fault, detail.lstrip("; "), proven=False)
        for r in group:
            if r.found.status == "unfair" and r.found.proven:
                continue  # a file that proves more keeps it
            j = _judgement(r.hs, r.dealt, one)
            settled[id(r)] = dataclasses.replace(j, culprits=(DEALER, base.culprit))
    return [
        r
        if isinstance(r, BlindFileError)
        else settled.get(id(r)) or _judgement(r.hs, r.dealt, r.found)
        for r in read
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class _Read:
    """One file as read and checked: whose, its setup and blind context, whether its cards
    were dealt, and its owner's verdict."""

    pid: str
    hs: HandSetup
    ctx0: bytes
    dealt: bool
    found: BlindOutcome


def _read_all(text: str | bytes) -> _Read:
    pid, hs, dealt, found = _read(text)
    return _Read(pid, hs, blind_setup(hs).ctx0, dealt, found)


def _read(text: str | bytes) -> tuple[str, HandSetup, bool, BlindOutcome]:
    """``(whose file, the setup it shows, whether its cards were dealt, the outcome)``."""
    try:
        data = load_json(text)
    except RepeatedKey as e:
        key = e.args[0][:40]
        raise BlindFileError(f"an object in the file gives the key {key!r} twice") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise BlindFileError(f"not JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BlindFileError("not a dealer-blind hand")
    if data.get("version") not in READS:
        raise BlindFileError(f"version {data.get('version')!r}; this lanswitch reads {VERSION}")
    try:
        hs, dealt, found = _check(data)
        return str(data["id"]), hs, dealt, found
    except (KeyError, TypeError, ValueError, IndexError, RulesError, tomllib.TOMLDecodeError) as e:
        if isinstance(e, BlindFileError):
            raise
        raise BlindFileError(f"malformed: {type(e).__name__}: {e}") from None


def _turned_up(turned_up: Mapping[tuple[int, int], Opening], k: int, j: int) -> tuple[Share, ...]:
    got = turned_up.get((k, j))
    if got is None:
        raise BlindFileError(f"shuffle {k} turns up position {j}, and the file has no keys for it")
    return got.shares


def _setup(s: dict[str, Any]) -> HandSetup:
    """The hand's setup as the file shows it, and the blind context recomputed from it: a
    ``ctx0`` or ``people`` the file shows that is not the setup's is a file changed since."""
    if not isinstance(s["rules"], str) or not all(isinstance(x, str) for x in s["names"]):
        raise BlindFileError("the setup's rules and names are texts")
    try:
        hs = HandSetup.from_toml(
            _hex(s["game_id"], "the game id"),
            int(s["hand_no"]),
            s["rules"],
            tuple(str(x) for x in s["seats"]),
            {str(p): _hex(k, "a key") for p, k in s["keys"].items()},
            dealer=int(s["dealer"]),
            out=tuple(int(x) for x in s["out"]),
            turn_timer_ms=int(s["turn_timer_ms"]),
            names=tuple(s["names"]),
        )
    except SetupError as e:
        raise BlindFileError(f"the setup: {e}") from None
    derived = blind_setup(hs)
    if _hex(s["ctx0"], "ctx0") != derived.ctx0:
        raise BlindFileError(
            "the setup's ctx0 is not the one its game, seats, names, keys, "
            "rules, dealer, seats out and timer make: the file was changed"
        )
    if [int(x) for x in s["people"]] != sorted(derived.people):
        raise BlindFileError(
            "the setup's people are not the seats with a key: the file was changed"
        )
    return hs


def _outcome(hs: HandSetup, found: BlindOutcome) -> BlindOutcome:
    """A fair hand's outcome, with who won as the replay has it, by the names the setup binds."""
    if found.status != "fair" or found.result is None or not found.result.placings:
        return found
    winner = hs.name(found.result.placings[0])
    how = won_how(found.result.reason)
    return dataclasses.replace(found, outcome=f"{winner} won ({how})")


def _check(data: dict[str, Any]) -> tuple[HandSetup, bool, BlindOutcome]:
    hs = _setup(data["setup"])
    setup = blind_setup(hs)
    f = Follower(setup)
    turned_up = {(o.shuffle, o.position): o for o in map(_load_opening, data["turned_up"])}
    stopped: Cheat | None = None
    try:
        for step in data["steps"]:
            if step[0] == "shuffle":
                k = int(step[1])
                if k != len(f.shuffles):
                    raise BlindFileError(f"shuffle {k} out of order")
                f.begin_shuffle()
                _replay_passes(f, data["shuffles"][k])
                f.deal(functools.partial(_turned_up, turned_up, k))
            elif step[0] == "leave":
                published = {int(k): _hex(v, "a seed") for k, v in step[2].items()}
                f.on_leave(str(step[1]), published)
            else:
                f.on_move(_load_move(step[1]))
        _replay_stopped(f, data)
    except Cheat as c:
        stopped = c
    except FairnessError as e:
        dealt = ("shuffle", 0) in f.steps
        return (
            hs,
            dealt,
            BlindOutcome("void", "", None, f"the file's record does not follow: {e}", proven=False),
        )
    seeds = {
        str(p): {int(k): _hex(v, "a seed") for k, v in got.items()}
        for p, got in data["seeds"].items()
    }
    received = [
        (int(k), int(j), _load_share([sender, to, key, sig]))
        for k, j, sender, to, key, sig in data["received"]
    ]
    complaints = {
        str(q): [
            (int(k), int(j), str(sender), _hex(key, "a key"), _hex(sig, "a signature"))
            for k, j, sender, key, sig in shown
        ]
        for q, shown in data.get("complaints", {}).items()
    }
    received += complaint_shares(f, complaints)
    claims = {  # (none in a version 2 file: claims were not signed before protocol v5)
        str(q): (str(fault), str(detail), _hex(sig, "a signature"))
        for q, (fault, detail, sig) in data.get("claims", {}).items()
    }
    finished = stopped is None and f.game.over
    found = _outcome(hs, check_hand(f, seeds, received, finished=finished, claims=claims))
    # As its participant judged live (``own_verdict``, the same function): what the seeds show
    # first — a hand stopped by keys that open no card names nobody until they show whose
    # pass or key was wrong —, then its own record's dispute, what stopped the hand, and the
    # host's abort.
    dealt = ("shuffle", 0) in f.steps
    said = data.get("abort")  # (none in a version 2 file)
    abort = None if said is None else (str(said[0]), str(said[1]), str(said[2]))
    live = None if stopped is None else caught(stopped, own_proof=False)
    disputed = data.get("disputed", False) is True
    disputes = [str(x) for x in data.get("disputes", [])]
    pid = str(data["id"])
    return (
        hs,
        dealt,
        own_verdict(found, pid=pid, disputed=disputed, live=live, abort=abort, disputes=disputes),
    )

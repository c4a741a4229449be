"""A hand's judgement, whichever deal dealt it: :class:`Judgement`, what every reader uses.

Why one type
------------
A hand is dealt by one of two deals — commit-reveal (:mod:`.replay`, whose finding is a
:class:`~.verdict.Verdict`) or dealer-blind (:mod:`.blind.check`, whose finding is a
:class:`~.blind.check.BlindOutcome`). Each finds different things in its own terms, and those
terms stay inside the deal. What a *reader* needs — the screens' verdict line and details
page, the history's row, ``lanswitch verify``'s line and summary, ``join``'s printed line, the
void tally and its warning — is the same whichever deal it was: the status, who is blamed and
whether signatures prove it or it rests on someone's word, who forfeits, the words to show,
which hand of which game. When readers branched on which finding a record held, each reader
said a hand's verdict its own way for each deal, and a fix made for one deal did not reach
the other (issue 25). Each deal now turns its finding into a :class:`Judgement`
(:meth:`.verdict.Verdict.judgement`, :func:`.blind.check.judgement`), and readers see nothing
else.

The deal itself is a label (:class:`Deal`): a name, the tag a line shows beside the status
("dealer-blind"; none for the usual commit-reveal deal) and what its saved file is called.
A reader shows it; it never decides anything by it. The deal's own finding rides along as
:attr:`Judgement.found` for the deal's own tools and the tests, typed ``object`` so that a
reader cannot use it without a visible ``isinstance``.

What a hand leaves to check again offline is its :class:`Proof`: opaque text (the transcript's
JSON, the blind hand's file) that the history stores and ``lanswitch verify`` reads, with a
name for the file it is saved to. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .primitives import DEALER, named
from .tally import VoidEntry

__all__ = [
    "COMMIT_REVEAL",
    "DEALER_BLIND",
    "Deal",
    "Judgement",
    "Proof",
    "Status",
    "deal_named",
]

Status = Literal["fair", "unconfirmed", "unfair", "void"]
"""From best: every check passed; checks passed but someone's confirmation of the log is
missing (nobody blamed); someone broke the deal (``culprits``); the hand has no result of its
own (``culprits`` caused it)."""


@dataclass(frozen=True, slots=True)
class Deal:
    """Which deal dealt a hand, as a reader shows it (a label: nothing is decided by it).

    ``name``: how the history stores it; ``tag``: what a verdict line shows after the status,
    ``FAIR (dealer-blind)`` (empty for the usual deal, which lines have always left unsaid);
    ``proof``: what a line calls its saved file ("transcript", "file")."""

    name: str
    tag: str
    proof: str

    def tagged(self, word: str) -> str:
        """``word`` with the deal's tag after it: ``fair (dealer-blind)``, or ``fair``."""
        return f"{word} ({self.tag})" if self.tag else word

    def proof_name(self) -> str:
        """The saved file, named in full: "transcript", "dealer-blind file"."""
        return f"{self.tag} {self.proof}".strip()


COMMIT_REVEAL = Deal("commit-reveal", "", "transcript")
DEALER_BLIND = Deal("dealer-blind", "dealer-blind", "file")
_DEALS = {d.name: d for d in (COMMIT_REVEAL, DEALER_BLIND)}


def deal_named(name: str) -> Deal:
    """The deal stored as ``name`` (the history's column); an unknown one is shown by its name."""
    return _DEALS.get(name) or Deal(name, name, "file")


@dataclass(frozen=True, slots=True)
class Proof:
    """What a hand leaves for ``lanswitch verify`` and the history: the deal's saved file.

    Opaque to readers: they store or write :meth:`text` and name the file with ``stem``
    (whose record it is). ``render`` makes the text when it is first asked for (a transcript
    is serialised only if someone keeps it); ``source`` is the deal's own object, for its
    tools and the tests."""

    deal: Deal
    stem: str
    render: Callable[[], str] = field(compare=False, repr=False)
    source: object = field(default=None, compare=False, repr=False)

    def text(self) -> str:
        return self.render()


@dataclass(frozen=True, slots=True)
class Judgement:
    """A hand's verdict as every reader sees it (module docstring).

    ``headline`` and ``said`` are the deal's one line in two parts — ``FAIR: hand 1 of game
    …, ann's record, switch`` and what follows it — with people named as the setup names them;
    :meth:`text` joins them. ``reason`` is the short why of a hand that is not fair, with the
    deal's ids (``seat1``, ``@dealer``) for a screen to name (:func:`~.primitives.named`
    with ``names``), as ``culprits`` are ids. ``caveats``: remarks a fair hand's line still
    carries (who went away mid-hand, whose confirmation is missing). ``details``: the longer
    words a details page shows (default: the line)."""

    status: Status
    deal: Deal
    headline: str
    said: str = ""
    reason: str = ""
    culprits: tuple[str, ...] = ()
    proven: bool = True
    """Signatures prove the blame to anyone; else it rests on someone's word (:meth:`basis`)."""
    forfeit: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()
    details: str = ""
    game_id: bytes = b""
    hand_no: int = 0
    names: tuple[str, ...] = ()
    """The seats' names (index: seat number), for the ids in ``reason`` and ``culprits``."""
    scores: tuple[int, ...] = ()
    """Each seat's points in the hand (index: seat number) as this check's own replay gives
    them, never the host's ``hand_over``; empty where it has none (a void, a hand cut short):
    a match's totals are then the host's word for that hand (``handcheck.out_of_match``)."""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The deal's own fields for ``verify --json`` (what it found, in its terms)."""
    found: object = field(default=None, compare=False, repr=False)
    """The deal's own finding (a Verdict, a BlindOutcome): for that deal's tools and tests."""

    @property
    def fair(self) -> bool:
        return self.status == "fair"

    def text(self) -> str:
        """The one line: the verdict, the hand, who is to blame and why."""
        return f"{self.headline}: {self.said}" if self.said else self.headline

    def __str__(self) -> str:
        return self.text()

    def long(self) -> str:
        """What a details page shows: the line, and for some deals a word on what it checked."""
        return self.details or self.text()

    def word(self) -> str:
        """The status as a short line shows it: ``fair``, or ``VOID``, with the deal's tag."""
        return self.deal.tagged("fair" if self.fair else self.status.upper())

    def name(self, pid: str) -> str:
        """What people call ``pid`` (``@dealer``: the host)."""
        return "the host" if pid == DEALER else named(pid, self.names)

    def blamed(self) -> str:
        """Who is to blame, by name: ``bob, the host``, or ``nobody``."""
        return ", ".join(self.name(p) for p in self.culprits) or "nobody"

    def basis(self) -> str:
        """On what the blame rests: signatures, or else — for a void — the host's word (who
        went silent, it says), or — for an unfair hand — this client's own record of what it
        sent and was shown."""
        if self.proven:
            return "proven by signatures"
        return "on the host's word" if self.status == "void" else "on your client's own record"

    def void_entry(self) -> VoidEntry:
        """This hand as the void tally counts it (for a void, or a hand stopped and then found
        unfair: the caller decides which hands count)."""
        return VoidEntry(self.hand_no, self.culprits, self.proven, None, self.game_id)

    def as_json(self) -> dict[str, Any]:
        """``lanswitch verify --json``'s fields: the deal's own, then the judgement's."""
        return {
            **self.extra,
            "status": self.status,
            "fair": self.fair,
            "deal": self.deal.name,
            "culprits": list(self.culprits),
            "proven": self.proven,
            "forfeit": list(self.forfeit),
            "reason": self.reason,
            "text": self.text(),
            "game_id": self.game_id.hex(),
            "hand_no": self.hand_no,
        }


def seat_names(names: Mapping[str, str], players: int) -> tuple[str, ...]:
    """The seats' names by seat number, from a map of the fair deal's ids (``seatN``)."""
    return tuple(names.get(f"seat{i}", "") for i in range(players))


def split_line(text: str, headline: str) -> str:
    """What follows ``headline: `` in ``text`` (the deal's line), or "" if nothing does."""
    if text == headline:
        return ""
    assert text.startswith(headline + ": "), (text, headline)
    return text[len(headline) + 2 :]

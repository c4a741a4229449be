"""The one table of keys: it feeds both the key bindings (``app.py``) and the hint bar at the
foot of every screen (``layout.py``), so the hints can never disagree with the keys.

Each :class:`Key` says where it works (``screens``), what it does (``action``), its hint, and
when the hint is worth showing (``when``: ``d draw`` only while a draw is legal, ``l last``
only while the call is open). When the bar is too narrow for every hint, those of the highest
``rank`` go first; ``? help`` is rank 0 and always stays (it then says how many gave way:
``? help: 3 more keys``), and so does ``q leave`` but at the table, where moving along the
hand comes first.

``? help`` lists exactly the keys that act on the screen it is opened on, for this person at
this table (:func:`acts`: the key's ``screens`` hold the screen, and it ``applies``), and
the key bindings (``app.py``) take a key only where :func:`acts` says it does: a key listed
acts, and a key that acts is listed. A key without a hint of its own (``→``, ``x``) is
named by its partner's (``←/→ move``, ``b/x bot +/-``) and acts where its partner does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..game import CALL_TWO, DRAW, PASS
from .model import TuiModel
from .prompts import last_call_offered

__all__ = ["KEYS", "Key", "acts", "help_keys", "hints"]


def _always(model: TuiModel) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Key:
    """One key binding: the keys, the hint shown for it (``{arrows}`` is drawn as the look's
    arrows), the screens where it works, what it does, when its hint shows, its rank."""

    keys: tuple[str, ...]
    hint: str
    screens: frozenset[str]
    action: Callable[[TuiModel], None]
    when: Callable[[TuiModel], bool] = _always
    rank: int = 3
    shown: bool = True
    label: Callable[[TuiModel], str] | None = None  # the hint, where it depends on the moment
    applies: Callable[[TuiModel], bool] = _always
    """Whether the key does anything for this person at this table at all, on the screens it
    is bound on (``? help`` lists only those, and only those are bound): a spectator lays no
    cards, and a table without the peanuckle call has no ``n``. ``when`` is narrower: whether
    its hint is worth showing now."""
    setting: bool = False
    """One of the table's settings, the host's to change in the lobby: where one line cannot
    hold every hint, the settings' take a line of their own above the others (``layout.py``)."""


_TABLE = frozenset({"table"})
_LOBBY = frozenset({"lobby"})
_ALL = frozenset({"table", "lobby", "over", "connecting", "closed"})


def _playing(model: TuiModel) -> bool:
    return not model.watching


def _legal(move: int) -> Callable[[TuiModel], bool]:
    return lambda model: move in model.legal()


def _last_call(model: TuiModel) -> bool:
    # Offered where the prompt offers it (prompts.last_call_offered), not whenever legal.
    spot = model.spot()
    return spot is not None and spot.mine and last_call_offered(spot)


def _my_turn(model: TuiModel) -> bool:
    return model.session.my_turn()


def _seated(model: TuiModel) -> bool:
    return model.session.seat is not None


def _host(model: TuiModel) -> bool:
    return model.powers is not None


def _can_switch_deal(model: TuiModel) -> bool:
    # The host's player, at a table without a turn timer (a timed table cannot be blind).
    lobby = model.session.lobby
    return model.powers is not None and lobby is not None and not lobby.turn_timer


def _calls(name: str) -> Callable[[TuiModel], bool]:
    """The table's rules have the call ``name`` (``last_card``, ``peanuckle``), and this
    person a seat to call it from."""

    def has(model: TuiModel) -> bool:
        rules = model.session.rules
        return not model.watching and (rules is None or bool(getattr(rules.calls, name)))

    return has


def _deal_label(model: TuiModel) -> str:
    # The bar says what f makes the next hand's deal: "f blind" (dealer-blind) or "f commit"
    # (commit-reveal); the lobby's rules line says which it is now, the help both in full.
    lobby = model.session.lobby
    return "f commit" if lobby is not None and lobby.blind else "f blind"


def _hints_allowed(model: TuiModel) -> bool:
    lobby = model.session.lobby
    return lobby is None or lobby.hints


def _hint_offered(model: TuiModel) -> bool:
    # The bar offers h on this seat's turn where the host allows hints (pressed anyway, h
    # says why not: not your turn, or hints are off at this table).
    return model.session.my_turn() and _hints_allowed(model)


def _layable(model: TuiModel) -> bool:
    legal = model.legal()
    return any(c in legal for c in model.hand())


def _can_mark(model: TuiModel) -> bool:
    return _layable(model) and not model.choices() and len(model.hand()) > 1


def _open_match(model: TuiModel) -> None:
    model.open("match")


def _enter_hint(model: TuiModel) -> bool:
    return bool(model.choices()) or _layable(model)


KEYS: tuple[Key, ...] = (
    # Rank 1 and first: where the bar is narrow, moving along the hand outlasts d, p and the
    # calls (the prompt under the hand names the key to draw or pass whenever it must).
    Key(("left",), "{arrows} move", _TABLE, TuiModel.left, _playing, rank=1, applies=_playing),
    Key(("right",), "", _TABLE, TuiModel.right, shown=False, applies=_playing),
    Key(
        ("enter",),
        "Enter lay",
        _TABLE,
        TuiModel.enter,
        _enter_hint,
        rank=0,
        label=lambda m: "Enter choose" if m.choices() else "Enter lay",
        applies=_playing,
    ),
    Key(
        ("enter",),
        "Enter next hand",
        frozenset({"over"}),
        TuiModel.enter,
        _seated,
        rank=0,
        applies=_seated,
    ),
    Key(("enter",), "Enter ready", _LOBBY, TuiModel.enter, shown=False, applies=_seated),
    Key(("space",), "Space mark", _TABLE, TuiModel.space, _can_mark, rank=4, applies=_playing),
    Key(("d",), "d draw", _TABLE, TuiModel.draw, _legal(DRAW), rank=1, applies=_playing),
    # The suggested move and why (lanswitch/hint.py; the help says more), offered where the
    # host allows hints: it gives way with Space mark, after chat and the way out.
    Key(("h",), "h hint", _TABLE, TuiModel.ask_hint, _hint_offered, rank=4, applies=_playing),
    Key(("p",), "p pass", _TABLE, TuiModel.pass_turn, _legal(PASS), rank=1, applies=_playing),
    Key(
        ("l",),
        "l last card",
        _TABLE,
        TuiModel.call_last,
        _last_call,
        rank=1,
        applies=_calls("last_card"),
    ),
    Key(
        ("n",),
        "n peanuckle",
        _TABLE,
        TuiModel.call_two,
        _legal(CALL_TWO),
        rank=1,
        applies=_calls("peanuckle"),
    ),
    Key(("r",), "r ready", _LOBBY, lambda m: m.toggle_ready(), _seated, rank=0, applies=_seated),
    # The host's settings of the table (bots, their level, rules, the deal, hints): where one
    # line cannot hold every hint (80 columns) they take a line of their own above the others,
    # and in a window too small for two lines they give way before chat, which every player
    # uses; "? help" lists them all, and says how many hints gave way.
    Key(
        ("b",),
        "b/x bot +/-",
        _LOBBY,
        lambda m: m.host_power("add_bot"),
        _host,
        rank=4,
        label=lambda m: "b/x bots",  # the bar's; the help's says what b and x do
        applies=_host,
        setting=True,
    ),
    Key(
        ("x",),
        "",
        _LOBBY,
        lambda m: m.host_power("remove_bot"),
        _host,
        shown=False,
        applies=_host,
    ),
    # The bots' level: the lobby's rules line says it now ("bots play: normal (k)").
    Key(
        ("k",),
        "k bots' level: easy, normal or hard, from the next hand",
        _LOBBY,
        lambda m: m.host_power("next_level"),
        _host,
        rank=5,
        label=lambda m: "k level",
        applies=_host,
        setting=True,
    ),
    Key(
        ("g",),
        "g rules",
        _LOBBY,
        lambda m: m.host_power("next_rules"),
        _host,
        rank=4,
        applies=_host,
        setting=True,
    ),
    Key(("s",), "s start", _LOBBY, lambda m: m.host_power("start"), _host, rank=2, applies=_host),
    Key(
        ("f",),
        "f deal: dealer-blind or commit-reveal",  # the help's line; the bar's is short
        _LOBBY,
        lambda m: m.host_power("toggle_blind"),
        _can_switch_deal,
        rank=5,  # after chat; the lobby's rules line says which deal it is now
        label=_deal_label,
        applies=_host,  # at a timed table f says why it cannot
        setting=True,
    ),
    # Hints: the lobby's rules line says whether they are allowed ("hints: allowed (H)").
    Key(
        ("H",),
        "H hints at this table: allowed or off",
        _LOBBY,
        lambda m: m.host_power("toggle_hints"),
        _host,
        rank=5,
        label=lambda m: "H hints",
        applies=_host,
        setting=True,
    ),
    # H mid-hand (it sits beside h, the hint): a lobby key, it says why it did nothing.
    Key(
        ("H",),
        "H hints: allowed or off, between hands (in the lobby)",
        _TABLE,
        lambda m: m.between_hands("hints can be allowed or turned off between hands"),
        _host,
        shown=False,
        applies=_host,
    ),
    Key(("c",), "c chat", _ALL - {"closed", "connecting"}, lambda m: m.open("chat"), rank=3),
    Key(("v",), "v verdict", frozenset({"over"}), lambda m: m.open("details"), rank=2),
    # The match so far (tui/scoreboard.py; the lobby shows the totals by the seats): its hint
    # gives way first (? help lists it).
    Key(("m",), "m match", frozenset({"table", "over"}), _open_match, rank=6),
    Key(("?",), "? help", _ALL, lambda m: m.open("help"), rank=0),
    # While playing, moving along the hand matters more than the way out: at 40 columns
    # q gives way before the arrows there (? help still lists it), and stays everywhere else.
    # At the table q outlasts c chat (at 60 columns a turn facing a pick-up, with both
    # Enter lay and d draw, left no room for q: the tmux size test, 1 run in some 10).
    Key(("q",), "q leave", _TABLE, lambda m: m.open("quit"), rank=2),
    Key(("q",), "q leave", _ALL - {"closed", "table"}, lambda m: m.open("quit"), rank=0),
)


def acts(key: Key, model: TuiModel) -> bool:
    """Whether ``key`` does something on the model's screen, for this person at this table:
    the one test behind both the key bindings and the help."""
    return model.screen in key.screens and key.applies(model)


def help_keys(model: TuiModel) -> list[str]:
    """The help's key lines for the model's screen: the hint of every key that acts there,
    once each, in table order (a hint-less partner key goes under its partner's line)."""
    out: list[str] = []
    for key in KEYS:
        hint = key.hint.format(arrows=model.look.g.arrows)
        if hint and hint not in out and acts(key, model):
            out.append(hint)
    return out


def hints(model: TuiModel, *, settings: bool | None = None) -> list[tuple[int, str]]:
    """The hints to show on the model's screen now, in table order, each with its rank; with
    ``settings``, only those of the table's settings (True) or only the others (False)."""
    screen = model.screen
    out = []
    for key in KEYS:
        if settings is not None and key.setting != settings:
            continue
        if key.shown and key.hint and acts(key, model) and key.when(model):
            hint = key.label(model) if key.label is not None else key.hint
            out.append((key.rank, hint.format(arrows=model.look.g.arrows)))
    if screen == "closed" and not settings:
        out.append((0, "Enter leave"))
    return out

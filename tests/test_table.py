"""The host's table between hands: seats, bots, rules, readiness, chat, resume."""

from __future__ import annotations

import itertools

import pytest

from lanswitch.rules import PRESETS
from lanswitch.table import MAX_CHAT, Refusal, Refused, Table, clean_text


def make_table(**kw: object) -> Table:
    counter = itertools.count(1)
    table = Table(
        name="kitchen",
        rules=PRESETS["switch"],
        host="c-host",
        host_name="Ann",
        token_source=lambda: f"token-{next(counter)}",
        **kw,  # type: ignore[arg-type]
    )
    table.join("c-host", "Ann", 0.0)
    return table


def refusal(fn: object, *args: object, **kw: object) -> Refusal:
    with pytest.raises(Refused) as info:
        fn(*args, **kw)  # type: ignore[operator]
    return info.value.refusal


def test_players_take_the_free_seats_in_order_then_wait() -> None:
    t = make_table(seats_total=2)
    t.join("c2", "Bob", 1.0)
    t.join("c3", "Cy", 2.0)
    state = t.state()
    assert [s.name for s in state.seats] == ["Ann", "Bob"]
    assert state.waiting == ("Cy",)
    assert t.free_seats() == 0


def test_names_must_be_visible_and_unique() -> None:
    t = make_table()
    assert refusal(t.join, "c2", "  \x07 ", 1.0) == Refusal.BAD_NAME
    assert refusal(t.join, "c2", "ann", 1.0) == Refusal.NAME_TAKEN
    entry = t.join("c2", "  Bob\tthe\n builder ", 1.0)
    assert entry.name == "Bob the builder"
    assert len(t.join("c3", "x" * 100, 1.0).name) == 24


@pytest.mark.parametrize(
    "name", ["the host", "The  Host", "the host 2", "@dealer", "seat3", "Bot 1"]
)
def test_a_name_a_verdict_uses_for_someone_else_is_refused(name: str) -> None:
    """A player named "the host" could make its own void read as the host's abort."""
    assert refusal(make_table().join, "c2", name, 1.0) == Refusal.NAME_RESERVED


def test_names_that_only_look_alike_are_free() -> None:
    t = make_table()
    for i, name in enumerate(["host", "the hostess", "seats", "bot", "Robot 1"]):
        assert t.join(f"c{i + 2}", name, 1.0).name == name


def test_a_password_keeps_others_out() -> None:
    t = make_table(password="s3cret")
    assert refusal(t.join, "c2", "Bob", 1.0) == Refusal.BAD_PASSWORD
    assert refusal(t.join, "c2", "Bob", 1.0, password="nope") == Refusal.BAD_PASSWORD
    assert t.join("c2", "Bob", 1.0, password="s3cret").seat == 1


def test_spectators_take_no_seat() -> None:
    t = make_table()
    t.join("c2", "Eve", 1.0, spectate=True)
    assert t.state().spectators == ("Eve",)
    assert t.free_seats() == 3


def test_sit_stand_and_ready() -> None:
    t = make_table()
    t.join("c2", "Bob", 1.0)
    assert refusal(t.sit, "c2", 0) == Refusal.SEAT_TAKEN
    assert refusal(t.sit, "c2", 9) == Refusal.NO_SUCH_SEAT
    t.sit("c2", 3)
    assert t.seats[1].kind == "empty"
    assert t.seats[3].name == "Bob"
    t.set_ready("c2", True)
    assert t.seats[3].ready
    t.stand("c2")
    assert t.seats[3].kind == "empty"
    assert refusal(t.set_ready, "c2", True) == Refusal.NOT_SEATED
    assert refusal(t.stand, "c2") == Refusal.NOT_SEATED


def test_only_the_host_manages_bots_rules_kicks_and_start() -> None:
    t = make_table()
    t.join("c2", "Bob", 1.0)
    for fn, args in [
        (t.add_bot, ("c2", 2)),
        (t.remove_bot, ("c2", 2)),
        (t.set_rules, ("c2", PRESETS["irish"])),
        (t.kick, ("c2", "c-host")),
        (t.start, ("c2",)),
    ]:
        assert refusal(fn, *args) == Refusal.NOT_HOST


def test_bots_fill_seats_with_distinct_names() -> None:
    t = make_table(seats_total=5)
    assert refusal(t.join, "c2", "bot 1", 1.0) == Refusal.NAME_RESERVED  # a bot's name
    t.join("c2", "bob", 1.0)
    assert t.fill_with_bots("c-host") == 3
    names = [s.name for s in t.seats if s.kind == "bot"]
    assert names == ["bot 1", "bot 2", "bot 3"]
    assert all(s.ready for s in t.seats if s.kind == "bot")
    assert refusal(t.add_bot, "c-host", 2) == Refusal.SEAT_TAKEN
    t.remove_bot("c-host", 2)
    assert t.seats[2].kind == "empty"
    assert refusal(t.remove_bot, "c-host", 2) == Refusal.NO_SUCH_SEAT
    assert refusal(t.add_bot, "c-host", 2, "genius") == Refusal.UNKNOWN_BOT


def test_a_hand_starts_when_two_seats_are_filled_and_every_human_is_ready() -> None:
    t = make_table()
    assert refusal(t.start, "c-host") == Refusal.TOO_FEW
    t.add_bot("c-host", 1)
    assert not t.can_start()
    assert refusal(t.start, "c-host") == Refusal.NOT_READY
    t.set_ready("c-host", True)
    assert t.can_start()
    seats = t.start("c-host")
    assert [s.name for s in seats] == ["Ann", "bot 1"]
    assert t.state().in_play
    # During the hand the lobby is frozen.
    assert refusal(t.add_bot, "c-host", 2) == Refusal.IN_PLAY
    t.join("c3", "Cy", 5.0)
    assert t.clients["c3"].seat is None
    t.hand_over()
    assert not t.in_play
    assert not t.seats[0].ready  # everyone confirms again before the next hand
    assert t.seats[1].ready  # bots are always ready


def test_new_rules_ask_everyone_to_confirm_again() -> None:
    t = make_table()
    t.set_ready("c-host", True)
    t.set_rules("c-host", PRESETS["blackjack"])
    assert t.state().rules == "blackjack"
    assert not t.seats[0].ready


def test_a_dropped_player_keeps_the_seat_and_resumes_with_its_token() -> None:
    t = make_table()
    bob = t.join("c2", "Bob", 1.0)
    t.set_ready("c2", True)
    t.disconnect("c2", 2.0)
    assert not t.clients["c2"].connected
    assert t.seats[1].name == "Bob"
    back = t.join("c9", "whatever", 3.0, resume=bob.token)
    assert back.name == "Bob"
    assert back.seat == 1
    assert t.seats[1].client == "c9"
    assert t.seats[1].ready
    assert "c2" not in t.clients
    assert refusal(t.join, "c10", "x", 4.0, resume="forged") == Refusal.BAD_TOKEN


def test_the_host_resumes_as_host() -> None:
    t = make_table()
    token = t.clients["c-host"].token
    t.disconnect("c-host", 1.0)
    t.join("c-new", "Ann", 2.0, resume=token)
    assert t.host == "c-new"
    t.add_bot("c-new", 1)
    assert t.state().host == "Ann"


def test_kick_frees_the_seat_and_the_name() -> None:
    t = make_table()
    t.join("c2", "Bob", 1.0)
    t.kick("c-host", "c2")
    assert "c2" not in t.clients
    assert t.seats[1].kind == "empty"
    assert refusal(t.kick, "c-host", "c-host") == Refusal.NO_SUCH_CLIENT
    t.join("c3", "Bob", 2.0)


def test_chat_is_cleaned_limited_and_kept_short() -> None:
    t = make_table()
    line = t.chat("c-host", "hello\x1b[31m  there\n", 1.0)
    assert line.text == "hello[31m there"
    assert line.name == "Ann"
    assert len(t.chat("c-host", "y" * 1000, 2.0).text) == MAX_CHAT
    assert refusal(t.chat, "c-host", " \t ", 3.0) == Refusal.EMPTY_CHAT
    for i in range(250):
        t.chat("c-host", f"line {i}", 4.0 + i)
    assert len(t.chat_log) == 200
    assert t.chat_log[-1].text == "line 249"


def test_clean_text_drops_control_and_format_characters() -> None:
    assert clean_text("a\u200bb\u0000c\td", 10) == "abc d"
    assert clean_text("♥ J♠", 10) == "♥ J♠"


def test_names_of_bidi_c1_or_marks_alone_are_cleaned_or_refused() -> None:
    """Issue #15: what the table keeps of a name holds no C1 or bidi control, and does not
    begin with a combining mark (marks alone leave nothing)."""
    t = make_table()
    assert t.join("c2", "Bob\u202e\u009b", 1.0).name == "Bob"
    assert t.join("c3", "\u0336Cy", 1.0).name == "Cy"
    assert refusal(t.join, "c4", "\u0301\u0301\u0301", 1.0) == Refusal.BAD_NAME
    assert refusal(t.join, "c4", "\u2066\u200b\u0301", 1.0) == Refusal.BAD_NAME


def test_a_session_key_already_at_the_table_is_refused_after_the_password() -> None:
    """The host says whether the joiner's key is held at the table (the table keeps no
    keys); a stranger without the password is told only that (issue #15, item 2)."""
    t = make_table(password="tea")
    assert refusal(t.join, "c2", "Eve", 1.0, key_in_use=True) == Refusal.BAD_PASSWORD
    assert refusal(t.join, "c2", "Eve", 1.0, password="tea", key_in_use=True) == Refusal.KEY_IN_USE
    assert "c2" not in t.clients
    assert [s.name for s in t.seats if s.kind == "human"] == ["Ann"]
    assert t.join("c2", "Eve", 1.0, password="tea").seat == 1


def test_unknown_clients_are_refused() -> None:
    t = make_table()
    assert refusal(t.chat, "ghost", "hi", 1.0) == Refusal.NO_SUCH_CLIENT
    with pytest.raises(ValueError, match="seats"):
        make_table(seats_total=9)


# -- people before bots (issue 14, item 1) ----------------------------------------------------


def bots_table(seats: int = 4, bots: int = 3) -> Table:
    """Ann's table with its last ``bots`` seats given to bots, as ``lanswitch play`` makes it."""
    t = make_table(seats_total=seats)
    for index in range(seats - bots, seats):
        t.add_bot("c-host", index)
    return t


def test_a_person_who_joins_a_table_of_bots_takes_a_bots_seat_at_once() -> None:
    """Item 1: with three bots in the empty seats a friend saw "0/4 free" and watched for ever."""
    t = bots_table()
    assert t.free_seats() == 0
    assert t.open_seats() == 3  # what the table advertises: seats a person may take
    bob = t.join("c2", "Bob", 1.0)
    assert bob.seat == 3  # the last bot stands up
    assert bob.took_from == "bot 3"
    assert [s.kind for s in t.seats] == ["human", "bot", "bot", "human"]
    assert t.seating_line(bob) == "Bob takes bot 3's seat (seat 4)"
    cy = t.join("c3", "Cy", 2.0)
    assert (cy.seat, cy.took_from) == (2, "bot 2")
    eve = t.join("c4", "Eve", 3.0, spectate=True)  # a spectator takes nothing
    assert eve.seat is None
    assert t.seating_line(eve) is None
    assert t.open_seats() == 1


def test_a_person_who_arrives_during_a_hand_takes_a_bots_seat_when_it_ends() -> None:
    t = bots_table()
    t.set_ready("c-host", True)
    t.start("c-host")
    bob = t.join("c2", "Bob", 1.0)
    assert bob.seat is None
    assert t.state().waiting == ("Bob",)
    assert t.seat_waiting() is None  # not during the hand
    assert t.seating_line(bob) == "Bob waits for this hand to end, then takes bot 3's seat"
    t.hand_over()
    assert t.seat_waiting() is bob
    seated = t.clients["c2"]  # looked up again: the waiting entry, now seated
    assert (seated.seat, seated.took_from) == (3, "bot 3")
    assert t.seat_waiting() is None  # nobody else waits


def test_a_waiting_person_takes_an_away_players_seat_rather_than_a_bots() -> None:
    """A player who is away may give the seat up (the host frees it after a grace period):
    the newcomer waits for that seat, and the bots keep theirs."""
    t = bots_table(seats=4, bots=2)
    t.join("c2", "Bob", 1.0)
    t.disconnect("c2", 2.0)
    cy = t.join("c3", "Cy", 3.0)
    assert cy.seat is None
    assert t.seating_line(cy) == "Cy waits for a seat: a player who is away may give one up"
    t.leave("c2")  # Bob's seat is given up
    assert t.seat_waiting() is cy
    seated = t.clients["c3"]
    assert (seated.seat, seated.took_from) == (1, "")


def test_when_every_seat_has_a_person_a_newcomer_waits() -> None:
    t = make_table(seats_total=2)
    t.join("c2", "Bob", 1.0)
    cy = t.join("c3", "Cy", 2.0)
    assert cy.seat is None
    assert t.open_seats() == 0
    assert t.seating_line(cy) == "Cy waits for a seat: every seat has a player"


def test_a_player_may_sit_in_a_bots_seat_but_not_a_persons() -> None:
    t = bots_table(seats=4, bots=2)
    t.join("c2", "Bob", 1.0)  # takes seat 2, the free one
    assert t.seats[1].name == "Bob"
    assert refusal(t.sit, "c2", 0) == Refusal.SEAT_TAKEN
    t.sit("c2", 2)
    assert t.seats[2].name == "Bob"
    assert t.seats[1].kind == "empty"


def test_the_host_sets_every_bots_strategy_and_everyone_confirms_again() -> None:
    t = make_table(bots=("easy", "normal", "hard"))
    t.join("c2", "Bob", 1.0)
    t.add_bot("c-host", 2, "normal")
    t.add_bot("c-host", 3, "easy")
    t.set_ready("c2", True)
    assert refusal(t.set_bot_level, "c2", "hard") == Refusal.NOT_HOST
    assert refusal(t.set_bot_level, "c-host", "grandmaster") == Refusal.UNKNOWN_BOT
    t.set_bot_level("c-host", "hard")
    assert [s.bot for s in t.seats if s.kind == "bot"] == ["hard", "hard"]
    assert not t.seats[1].ready  # Bob agreed to play against the bots as they were
    t.set_ready("c-host", True)
    t.set_ready("c2", True)
    t.start("c-host")
    assert refusal(t.set_bot_level, "c-host", "easy") == Refusal.IN_PLAY

"""A table's password, asked of the person joining (``lanswitch/admission.py``).

The terminal's side (``getpass`` in a real terminal) is played as a person plays it in
``tests/scenarios/test_tmux.py`` and ``tests/scenarios/test_cli_net.py``; here, what is decided
without one: whether the host turned a session away for its password, and what a player is told
where no one can be asked (the input is not a terminal)."""

from __future__ import annotations

import io

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanswitch import protocol as p
from lanswitch.admission import PasswordNeeded, ask_password, wrong_password
from lanswitch.session import Session


def _session() -> Session:
    return Session("ann", key=Ed25519PrivateKey.from_private_bytes(bytes(range(32))), entropy=bytes)


def test_only_a_bad_password_error_is_a_wrong_password() -> None:
    turned_away = _session()
    turned_away.receive(p.Error(code=p.ErrorCode.BAD_PASSWORD, text="wrong password"))
    assert turned_away.closed
    assert wrong_password(turned_away)

    full = _session()
    full.receive(p.Error(code=p.ErrorCode.TABLE_FULL, text="the table is full"))
    assert full.closed
    assert not wrong_password(full)

    said_bye = _session()
    said_bye.receive(p.Bye(reason="the host closed the table"))
    assert not wrong_password(said_bye)
    assert not wrong_password(_session())  # still open: nothing turned it away


@pytest.mark.parametrize(
    ("wrong", "said"),
    [
        (False, 'table "ann\'s table" needs a password: ask its host for it, and give it with '
         "--password PW"),
        (True, 'the password given is not table "ann\'s table"\'s: ask its host for it, and give '
         "it with --password PW"),
    ],
)  # fmt: skip
def test_where_no_one_can_be_asked_the_player_is_told_to_use_the_option(
    wrong: bool, said: str
) -> None:
    """Input that is not a terminal (a pipe, a script): nothing is written and nothing read;
    the error says what to do, first time or after a wrong ``--password``."""
    out = io.StringIO()
    with pytest.raises(PasswordNeeded) as e:
        ask_password("ann's table", wrong=wrong, stdin=io.StringIO("secret\n"), out=out)
    assert str(e.value) == said
    assert out.getvalue() == ""


def test_a_tables_name_is_shown_escaped_in_the_error() -> None:
    """A table's name is the host's word: a terminal control sequence in it is shown, not
    obeyed."""
    with pytest.raises(PasswordNeeded) as e:
        ask_password("evil\x1b[2Jtable", wrong=False, stdin=io.StringIO(""), out=io.StringIO())
    assert "\x1b" not in str(e.value)
    assert str(e.value).startswith('table "evil')

"""What the command line hands down as settings (``lanswitch/settings.py``): chiefly
``parse_target``, which tells an address to join (``HOST:PORT``, ``[v6]:PORT``) from a table's
name, and says in words what is wrong with an address that is almost one."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanswitch.discovery import preferred_order
from lanswitch.settings import Join, parse_target


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("10.0.0.7:4000", ("10.0.0.7", 4000)),
        (" 192.168.1.20:4000 ", ("192.168.1.20", 4000)),
        ("[::1]:4000", ("::1", 4000)),
        ("[fe80::1]:65535", ("fe80::1", 65535)),
        ("laptop-b.local:1", ("laptop-b.local", 1)),
    ],
)
def test_an_address_is_its_host_and_port(text: str, pair: tuple[str, int]) -> None:
    assert parse_target(text) == pair


@pytest.mark.parametrize(
    "text",
    [
        "ann's table",
        "Friday switch",
        "table:two",
        "my table:4000",
        "lanswitch",
        ":4000",
        "10.0.0.7:",
    ],
)
def test_a_tables_name_is_no_address(text: str) -> None:
    """A name (which may hold spaces, dots, dashes and even a colon) is looked up among the
    tables that answer; only HOST:PORT with a host fit to be one is taken as an address."""
    assert parse_target(text) is None


@pytest.mark.parametrize(
    ("port", "said"), [("0", "not 0"), ("65536", "not 65536"), ("99999", "not 99999")]
)
def test_a_port_out_of_range_is_said_in_words(port: str, said: str) -> None:
    with pytest.raises(ValueError, match="the port must be") as e:
        parse_target(f"10.0.0.7:{port}")
    assert str(e.value) == f"10.0.0.7:{port}: the port must be 1..65535, {said}"


def test_a_join_listens_on_the_interface_it_was_given_or_on_every_one(tmp_path: Path) -> None:
    """``--interface`` narrows zeroconf to one address (the tests' 127.0.0.1); without it the
    browser listens on every interface (None), never on an empty list, which hears nothing."""
    assert Join(name="bob", data=tmp_path, interface="127.0.0.1").interfaces == ["127.0.0.1"]
    assert Join(name="bob", data=tmp_path).interfaces is None
    assert Join(name="bob", data=tmp_path, interface="").interfaces is None


def test_a_bad_address_to_join_is_one_sentence_not_a_traceback() -> None:
    """The newcomer pass: ``join 300.1.1.1:80`` and ``join bad.example:80`` ended in
    ipaddress's traceback (the address was ranked as an IPv4 address it is not). Numbers that
    are no address are refused in words; a host name is ranked last and tried (the resolver's
    answer is join's to word: "could not reach bad.example:80: … name or service not known")."""
    from lanswitch.client import parse_address
    from lanswitch.settings import parse_target

    for bad in ("300.1.1.1:80", "999.1.1.1:5", "10.0.0:4000"):
        with pytest.raises(ValueError, match="is not an address: an IPv4 address is four"):
            parse_target(bad)
        assert parse_address(bad) is None  # the browser's address field: "is not HOST:PORT"
    assert parse_target("laptop.example:4000") == ("laptop.example", 4000)
    assert preferred_order(["laptop.example", "10.0.0.7"], local=["10.0.0.9"]) == [
        "10.0.0.7",
        "laptop.example",
    ]

"""The server's door, without a server: what an address counts as, the back-off after wrong
passwords, and the bounded log of refusals. (The door at work over real sockets and TLS —
floods, slow handshakes, guessing — is tests/scenarios/test_limits.py.)"""

from __future__ import annotations

import logging

import pytest

from lanswitch.door import Limits, _Guesses, _Said, address_key


def test_an_address_counts_as_its_ipv4_address_or_its_ipv6_64() -> None:
    assert address_key(("192.168.1.20", 5000)) == "192.168.1.20"
    # One machine may hold a whole /64: every address in it is one for the limits.
    a = address_key(("2001:db8:1:2:aaaa::1", 5000, 0, 0))
    b = address_key(("2001:db8:1:2:bbbb::9", 5001, 0, 0))
    assert a == b == "2001:db8:1:2::/64"
    assert address_key(("2001:db8:1:3::1", 1, 0, 0)) != a
    # IPv4 in IPv6's clothes is the IPv4 address; a scope id does not make another address.
    assert address_key(("::ffff:10.0.0.7", 1, 0, 0)) == "10.0.0.7"
    assert address_key(("fe80::1%eth0", 1, 0, 2)) == "fe80::/64"
    # What is no address is counted as itself, or as one unknown.
    assert address_key(("not-an-ip", 1)) == "not-an-ip"
    assert address_key(None) == "?"
    assert address_key(()) == "?"


def test_wrong_passwords_double_the_wait_up_to_its_cap_and_a_right_one_clears_it() -> None:
    g = _Guesses(Limits(guess_wait=1.0, guess_wait_max=60.0, guess_forget=600.0))
    assert g.wait("a", 0.0) == 0.0
    waits = [g.wrong("a", 0.0)[1] for _ in range(8)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    assert g.wait("a", 10.0) == 50.0  # the last wrong one at 0, its wait 60 s
    assert g.wait("b", 10.0) == 0.0  # another address is not held up
    g.right("a")
    assert g.wait("a", 10.0) == 0.0
    assert g.wrong("a", 11.0) == (1, 1.0)  # counted from one again


def test_wrong_passwords_are_forgotten_after_a_quiet_while() -> None:
    g = _Guesses(Limits(guess_forget=600.0))
    g.wrong("a", 0.0)
    g.wrong("a", 1.0)
    assert g.wrong("a", 2.0)[0] == 3
    assert g.wrong("a", 602.0)[0] == 1  # 600 s after the last: a fresh start


def test_the_guess_book_keeps_a_bounded_number_of_addresses_the_quietest_forgotten() -> None:
    g = _Guesses(Limits(guess_addresses=3))
    for i, address in enumerate("abcd"):
        g.wrong(address, float(i))
    assert len(g) == 3
    assert g.wait("a", 4.0) == 0.0  # the least recently wrong went first
    g.wrong("b", 5.0)  # b again: now the most recent
    g.wrong("e", 6.0)
    assert len(g) == 3
    assert g.wait("b", 6.0) > 0.0
    assert g.wait("c", 6.0) == 0.0  # c was the quietest left


def test_refusals_are_logged_a_burst_a_window_and_the_rest_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    said = _Said(burst=3, window=60.0)
    with caplog.at_level(logging.WARNING, logger="lanswitch.server"):
        for i in range(10):
            said.warn(float(i), "refused %d", i)
        assert [r.getMessage() for r in caplog.records] == ["refused 0", "refused 1", "refused 2"]
        assert said.held == 7
        caplog.clear()
        said.warn(61.0, "refused %d", 99)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "7 more refused connections or guesses were not logged (at most 3 lines every 60 s)",
        "refused 99",
    ]
    assert said.held == 0

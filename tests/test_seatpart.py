"""The one interface both deals implement (``lanswitch/seatpart.py``), held to at run time.

mypy holds the session to :class:`SeatPart` where it is typed; this checks what a reader of
``seatpart.py`` counts on beyond that: that each deal's part (``commitseat.CommitPart``,
``blindsession.BlindPart``) offers every member of the interface in the same form — a property
where it says property, a method taking the same parameters where it says method —, that the
session offers every member of :class:`Seatside` the parts call back, and that the two parts
label their deals apart (the record and the screens tell them by ``deal``)."""

from __future__ import annotations

import inspect

import pytest

from lanswitch.blindsession import BlindPart
from lanswitch.commitseat import CommitPart
from lanswitch.fairdeal.judgement import COMMIT_REVEAL, DEALER_BLIND
from lanswitch.seatpart import SeatPart, Seatside
from lanswitch.session import Session


def _members(interface: type) -> dict[str, object]:
    return {k: v for k, v in vars(interface).items() if not k.startswith("_")}


def _parameters(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def _set_in_init(cls: type, name: str) -> bool:
    return f"self.{name} = " in inspect.getsource(vars(cls)["__init__"])


def _same_shape(cls: type, interface: type) -> list[str]:
    """What ``cls`` lacks or offers in another form than ``interface`` says, in words."""
    wrong = []
    for name, wanted in _members(interface).items():
        if not hasattr(cls, name):
            # A read-only property may be met by a plain attribute each instance sets.
            if not (
                isinstance(wanted, property) and wanted.fset is None and _set_in_init(cls, name)
            ):
                wrong.append(f"{cls.__name__} has no {name}")
            continue
        got = inspect.getattr_static(cls, name)
        if isinstance(wanted, property):
            if not isinstance(got, property):
                wrong.append(f"{cls.__name__}.{name} is not a property")
            elif wanted.fset is not None and got.fset is None:
                wrong.append(f"{cls.__name__}.{name} cannot be set")
        elif callable(wanted):
            if not callable(got) or isinstance(got, property):
                wrong.append(f"{cls.__name__}.{name} is not a method")
            elif _parameters(got) != _parameters(wanted):
                wrong.append(f"{cls.__name__}.{name}{_parameters(got)} != {_parameters(wanted)}")
    return wrong


def test_the_interface_is_what_the_session_asks_of_a_part() -> None:
    """The members this file holds each part to (so an emptied interface fails here)."""
    assert {"seat", "take", "move", "my_turn", "leave", "settle", "judgement", "proof"} <= set(
        _members(SeatPart)
    )
    assert {"deal", "hides_from_host"} <= set(SeatPart.__annotations__)


@pytest.mark.parametrize("part", [CommitPart, BlindPart])
def test_each_deals_part_offers_the_whole_interface_in_its_form(part: type) -> None:
    assert _same_shape(part, SeatPart) == []
    for name in SeatPart.__annotations__:
        assert hasattr(part, name), f"{part.__name__} has no {name}"


def test_the_session_offers_its_parts_the_whole_seatside() -> None:
    assert {"note", "count_void", "seat_names"} <= set(_members(Seatside))
    assert _same_shape(Session, Seatside) == []


def test_the_two_parts_label_their_deals_apart_and_only_the_blind_one_hides_from_the_host() -> None:
    assert (CommitPart.deal, BlindPart.deal) == (COMMIT_REVEAL, DEALER_BLIND)
    assert COMMIT_REVEAL != DEALER_BLIND
    assert (CommitPart.hides_from_host, BlindPart.hides_from_host) == (False, True)

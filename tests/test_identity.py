"""A table's identity is its fingerprint, not its name (issue 15, items 1 and 8).

Unit tests, no network: pins kept under the name as people read it and per ``HOST:PORT``, old
pin files read without losing a pin, the choice between two answers for one name, and the
browser's keeping each responder's answer apart (fed the records of real mDNS messages, as
zeroconf passes them). The same seen over a LAN is in ``tests/scenarios/test_lan.py``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import secrets
import socket
from pathlib import Path
from typing import cast

import pytest
from zeroconf import RecordUpdate, Zeroconf, current_time_millis
from zeroconf._dns import DNSAddress, DNSService, DNSText

from lanswitch.client import JoinError, Target, find_target
from lanswitch.discovery import (
    SERVICE_TYPE,
    Table,
    TableChoiceError,
    conflicts,
    pick_table,
)
from lanswitch.discovery._browse import _Answers
from lanswitch.settings import Join
from lanswitch.textsafe import fold_name
from lanswitch.tls import (
    PinChanged,
    PinStore,
    PinVerdict,
    fingerprint_words,
    parse_fingerprint_choice,
)

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
LATER = dt.datetime(2026, 12, 2, 7, 0, tzinfo=dt.UTC)
FP_A = "a1" * 32
FP_B = "b2" * 32


def table(name: str, fp: str = FP_A, address: str = "10.0.0.2", port: int = 4000) -> Table:
    return Table(name, (address,), port, "switch", 2, 4, 2, fp, "pc", f"pc-{port}.local.")


def words(fp: str) -> str:
    return fingerprint_words(bytes.fromhex(fp))


# -- names as people read them -------------------------------------------------------------


def test_names_fold_case_compatibility_forms_and_invisible_characters() -> None:
    assert fold_name("KITCHEN") == fold_name("Kitchen") == "kitchen"
    assert fold_name("ＫＩＴＣＨＥＮ") == "kitchen"  # fullwidth letters (NFKC)
    assert fold_name("Kit\u200bchen\u202e ") == "kitchen"  # zero-width, bidi, a space
    assert fold_name("Straße") == fold_name("STRASSE")
    assert fold_name("ann's  table") == "ann's table"
    assert fold_name("Kitchen") != fold_name("Kitchen-2")


# -- pins ----------------------------------------------------------------------------------


def test_a_casefolded_fake_meets_the_pin_of_the_name(tmp_path: Path) -> None:
    """The pin made joining "Kitchen" is the pin of "KITCHEN": a fake with another
    fingerprint is refused, not pinned anew (before: pinned as "table KITCHEN", "(new,
    pinned)")."""
    store = PinStore.in_dir(tmp_path)
    real, fake = Target.from_table(table("Kitchen")), Target.from_table(table("KITCHEN", FP_B))
    assert store.check(real.pin_as, FP_A, now=NOW) is PinVerdict.NEW
    with pytest.raises(PinChanged):
        store.check(fake.pin_as, FP_B)
    assert store.check(Target.from_table(table("kitchen\u200b")).pin_as, FP_A) is PinVerdict.KNOWN


def test_pins_by_address_are_per_port(tmp_path: Path) -> None:
    """Two tables on one laptop, joined by address, each keep their own pin (before: the
    second always said HAS CHANGED)."""
    store = PinStore.in_dir(tmp_path)
    data = tmp_path / "data"

    def pin_as(port: int) -> str:
        join = Join(name="me", data=data, address=("10.0.0.5", port))
        return asyncio.run(find_target(join)).pin_as

    assert pin_as(4711) == "10.0.0.5:4711"
    assert store.check(pin_as(4711), FP_A) is PinVerdict.NEW
    assert store.check(pin_as(4712), FP_B) is PinVerdict.NEW
    assert store.check(pin_as(4711), FP_A) is PinVerdict.KNOWN
    with pytest.raises(PinChanged):
        store.check(pin_as(4712), FP_A)


def _old_file(tmp_path: Path, pins: dict[str, tuple[str, str]]) -> PinStore:
    """A pins.json as lanswitch wrote it before issue 15."""
    data = {
        "version": 1,
        "pins": {k: {"fingerprint": fp, "first_seen": at} for k, (fp, at) in pins.items()},
    }
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pins.json").write_text(json.dumps(data))
    return PinStore.in_dir(tmp_path)


def test_old_pins_under_the_exact_name_are_kept_and_migrated(tmp_path: Path) -> None:
    """An old "table Kitchen" pin is the pin of "table kitchen": a match migrates it (the
    first_seen kept), a fake is refused; where an old fake was pinned under "table KITCHEN"
    later, the earliest pin counts, and settling the name drops both old keys."""
    store = _old_file(
        tmp_path,
        {
            "table Kitchen": (FP_A, "2026-11-01T10:00:00+00:00"),
            "table KITCHEN": (FP_B, "2026-12-01T10:00:00+00:00"),
            "table Attic": (FP_B, "2026-11-02T10:00:00+00:00"),
        },
    )
    key = Target.from_table(table("Kitchen")).pin_as
    pin = store.get(key)
    assert pin is not None
    assert pin.fingerprint.hex() == FP_A
    with pytest.raises(PinChanged):
        store.check(key, FP_B)
    assert json.loads((tmp_path / "pins.json").read_text())["pins"].keys() == {
        "table Kitchen",
        "table KITCHEN",
        "table Attic",
    }  # a refusal changes nothing
    assert store.check(key, FP_A) is PinVerdict.KNOWN
    pins = json.loads((tmp_path / "pins.json").read_text())["pins"]
    assert pins == {
        "table kitchen": {"fingerprint": FP_A, "first_seen": "2026-11-01T10:00:00+00:00"},
        "table Attic": {"fingerprint": FP_B, "first_seen": "2026-11-02T10:00:00+00:00"},
    }
    assert store.check(Target.from_table(table("attic", FP_B)).pin_as, FP_B) is PinVerdict.KNOWN


def test_an_old_pin_by_address_stands_for_every_port_until_settled(tmp_path: Path) -> None:
    """An old pin kept for "10.0.0.5" (no port): the same certificate on any port is known
    (and pinned per port); another one is refused, saying the pin did not know the port;
    accepting it settles the address."""
    store = _old_file(tmp_path, {"10.0.0.5": (FP_A, "2026-11-01T10:00:00+00:00")})
    with pytest.raises(PinChanged) as info:
        store.check("10.0.0.5:4712", FP_B)
    assert "address alone" in str(info.value)
    assert store.check("10.0.0.5:4711", FP_A) is PinVerdict.KNOWN
    pins = json.loads((tmp_path / "pins.json").read_text())["pins"]
    assert pins == {
        "10.0.0.5:4711": {"fingerprint": FP_A, "first_seen": "2026-11-01T10:00:00+00:00"}
    }
    assert store.check("10.0.0.5:4712", FP_B) is PinVerdict.NEW  # another table, its own pin
    store2 = _old_file(tmp_path / "b", {"fe80::1": (FP_A, "2026-11-01T10:00:00+00:00")})
    assert store2.check("[fe80::1]:4711", FP_B, accept_change=True, now=LATER) is (
        PinVerdict.REPLACED
    )
    assert store2.all().keys() == {"[fe80::1]:4711"}


# -- choosing between answers --------------------------------------------------------------


def test_two_fingerprints_for_one_name_are_never_chosen_between_silently() -> None:
    real, fake = table("Kitchen", FP_A, "10.0.0.2", 4000), table("KITCHEN", FP_B, "10.0.0.9", 5000)
    heard = [real, fake, table("Attic", FP_B)]
    assert conflicts(heard) == {"kitchen": [real, fake]}
    with pytest.raises(TableChoiceError) as info:
        pick_table(heard, "kitchen")
    said = str(info.value)
    assert "2 different tables answer" in said
    assert f"10.0.0.2:4000: {words(FP_A)}" in said
    assert f"10.0.0.9:5000: {words(FP_B)}" in said
    assert '--fingerprint "WORDS"' in said
    # Picked by the words lanswitch tables shows, or by enough hex digits:
    assert pick_table(heard, "Kitchen", choice=parse_fingerprint_choice(words(FP_B))) is fake
    assert pick_table(heard, "Kitchen", choice=parse_fingerprint_choice("a1a1a1a1a1a1")) is real
    with pytest.raises(TableChoiceError, match="no table called"):
        pick_table(heard, "Kitchen", choice=parse_fingerprint_choice("c3" * 6))
    assert pick_table(heard, "Attic") is heard[2]
    assert pick_table(heard, "Barn") is None


def test_a_pinned_player_is_told_which_answer_matches_the_pin(tmp_path: Path) -> None:
    store = PinStore.in_dir(tmp_path)
    store.check(Target.from_table(table("Kitchen")).pin_as, FP_A, now=NOW)
    pinned = store.get(Target.from_table(table("Kitchen")).pin_as)
    heard = [table("KITCHEN", FP_B, "10.0.0.9", 5000), table("Kitchen", FP_A)]
    with pytest.raises(TableChoiceError) as info:
        pick_table(heard, "Kitchen", pinned=pinned)
    said = str(info.value)
    line = next(x for x in said.splitlines() if "you pinned" in x)
    assert words(FP_A) in line
    assert "2026-11-29" in line
    assert f'lanswitch join Kitchen --fingerprint "{words(FP_A)}"' in said


def test_fingerprint_choices_are_checked() -> None:
    assert parse_fingerprint_choice(words(FP_A)).prefix == bytes.fromhex(FP_A)[:6]
    assert parse_fingerprint_choice(FP_A).prefix == bytes.fromhex(FP_A)
    for bad, why in (
        (" ".join(words(FP_A).split()[:3]), "all 6"),
        ("a1a1", "at least 12"),
        ("donkey wolf lamp shark clown zzz", "not one of the fingerprint words"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_fingerprint_choice(bad)


def test_fingerprint_is_refused_with_an_address(tmp_path: Path) -> None:
    join = Join(name="me", data=tmp_path, address=("10.0.0.5", 4711), fingerprint=words(FP_A))
    with pytest.raises(JoinError, match="HOST:PORT"):
        asyncio.run(find_target(join))


# -- each responder's answer apart ---------------------------------------------------------


def _message(
    name: str, fp: str, server: str, address: str, port: int, *, ttl: int = 120
) -> list[RecordUpdate]:
    """The records of one responder's answer for a table, as one mDNS message brings them."""
    full = f"{name}.{SERVICE_TYPE}"
    props = {"v": "2", "name": name, "rules": "switch", "free": "3", "seats": "4", "fp": fp}
    text = b"".join(bytes([len(kv)]) + kv for kv in (f"{k}={v}".encode() for k, v in props.items()))
    return [
        RecordUpdate(DNSService(full, 33, 1 | 0x8000, ttl, 0, 0, port, server), None),
        RecordUpdate(DNSText(full, 16, 1 | 0x8000, ttl, text), None),
        RecordUpdate(DNSAddress(server, 1, 1 | 0x8000, ttl, socket.inet_aton(address)), None),
    ]


def test_each_responders_answer_is_kept_apart() -> None:
    """Two responders answering for one name (in another case, too) are two answers, each
    with its own address, port and fingerprint, however their records would mix in the
    cache; a goodbye removes one of them."""
    changes: list[int] = []
    answers = _Answers(lambda: changes.append(1))
    zc = cast(Zeroconf, None)  # not used: every answer came with its addresses
    key = f"kitchen.{SERVICE_TYPE}".lower()
    now = current_time_millis()
    answers.async_update_records(
        zc, now, _message("Kitchen", FP_A, "real.local.", "10.0.0.2", 4000)
    )
    answers.async_update_records(
        zc, now, _message("KITCHEN", FP_B, "fake.local.", "10.0.0.9", 5000)
    )
    got = sorted((t.name, t.addresses, t.port, t.fingerprint) for t in answers.tables(zc, key))
    assert got == [
        ("KITCHEN", ("10.0.0.9",), 5000, FP_B),
        ("Kitchen", ("10.0.0.2",), 4000, FP_A),
    ]
    assert len(changes) == 2
    # The same answer again changes nothing; the real one's goodbye removes it alone.
    answers.async_update_records(
        zc, now, _message("Kitchen", FP_A, "real.local.", "10.0.0.2", 4000)
    )
    assert len(changes) == 2
    bye = _message("Kitchen", FP_A, "real.local.", "10.0.0.2", 4000, ttl=0)
    answers.async_update_records(zc, now, bye)
    assert [t.fingerprint for t in answers.tables(zc, key)] == [FP_B]
    # A message with SRV records of two responders cannot be paired: nothing is made up.
    mixed = _message("Den", FP_A, "a.local.", "10.0.0.3", 4001)
    mixed += _message("Den", FP_B, "b.local.", "10.0.0.4", 4002)
    answers.async_update_records(zc, now, mixed)
    assert answers.tables(zc, f"den.{SERVICE_TYPE}".lower()) == []


def test_a_fresh_fingerprint_is_never_taken_for_a_pinned_one() -> None:
    """The words shown for a choice are the fingerprint's own six bytes."""
    fp = secrets.token_hex(32)
    assert parse_fingerprint_choice(words(fp)).matches(bytes.fromhex(fp))
    assert not parse_fingerprint_choice(words(fp)).matches(bytes.fromhex(FP_A))


def test_a_pinned_table_answering_under_another_name_is_pointed_to(tmp_path: Path) -> None:
    """The fake took the name first and the real table was renamed "Kitchen-2" (zeroconf's
    rename on a clash): joining "Kitchen" is refused before connecting, naming the answer with
    the pinned words and the command that joins it."""
    from lanswitch.client import _chosen

    store = PinStore.in_dir(tmp_path)
    store.check(Target.from_table(table("Kitchen")).pin_as, FP_A, now=NOW)
    heard = [table("Kitchen", FP_B, "10.0.0.9", 5000), table("Kitchen-2", FP_A)]
    with pytest.raises(JoinError) as info:
        _chosen(heard, "Kitchen", None, store, accept_change=False)
    said = str(info.value)
    assert "not the one you pinned" in said
    assert f'lanswitch join Kitchen-2 --fingerprint "{words(FP_A)}"' in said
    # Accepting the change on purpose is still the user's to do.
    assert _chosen(heard, "Kitchen", None, store, accept_change=True) is heard[0]


def test_a_txt_record_alone_updates_only_the_answer_it_belongs_to() -> None:
    """A host whose seat count changed may send its TXT record alone: the one answer with
    that fingerprint takes it. A TXT record alone with another fingerprint is another
    responder's claim on the name, and does not relabel the answer heard."""
    answers = _Answers(lambda: None)
    zc = cast(Zeroconf, None)
    key = f"kitchen.{SERVICE_TYPE}".lower()
    now = current_time_millis()
    answers.async_update_records(
        zc, now, _message("Kitchen", FP_A, "real.local.", "10.0.0.2", 4000)
    )
    srv, txt, _a = _message("Kitchen", FP_A, "real.local.", "10.0.0.2", 4000)
    fake_txt = _message("Kitchen", FP_B, "fake.local.", "10.0.0.9", 5000)[1]
    answers.async_update_records(zc, now, [fake_txt])
    assert [t.fingerprint for t in answers.tables(zc, key)] == [FP_A]
    seats = txt.new.text.replace(b"free=3", b"free=1")  # type: ignore[attr-defined]
    answers.async_update_records(
        zc, now, [RecordUpdate(DNSText(srv.new.name, 16, 0x8001, 120, seats), None)]
    )
    assert [t.seats_free for t in answers.tables(zc, key)] == [1]


def test_answers_kept_are_bounded() -> None:
    from lanswitch.discovery import MAX_ANSWERS_PER_TABLE, MAX_TABLES

    answers = _Answers(lambda: None)
    zc = cast(Zeroconf, None)
    now = current_time_millis()
    for i in range(MAX_TABLES + 20):
        answers.async_update_records(
            zc, now, _message(f"T{i}", FP_A, f"s{i}.local.", "10.0.0.2", 4000)
        )
    for i in range(MAX_ANSWERS_PER_TABLE + 5):
        answers.async_update_records(
            zc, now, _message("T0", FP_B, f"x{i}.local.", "10.0.0.3", 4000 + i)
        )
    assert len(answers.by_table) == MAX_TABLES
    assert len(answers.by_table[f"t0.{SERVICE_TYPE}".lower()]) == MAX_ANSWERS_PER_TABLE

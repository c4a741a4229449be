"""Rule sets as files: presets print to TOML that loads back unchanged, house-rules files
override a base preset, and every kind of bad file fails with a message that says where and
what would do."""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

import lanswitch.rules
from lanswitch.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTIONS,
    PRESET_NAMES,
    PRESETS,
    RulesError,
    RuleSet,
    dump_toml,
    load_rules,
    rules_from_mapping,
)


def write(tmp_path: Path, text: str, name: str = "house.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def load_text(tmp_path: Path, text: str, name: str = "house.toml") -> RuleSet:
    return load_rules(write(tmp_path, text, name))


def rules_error(tmp_path: Path, text: str, name: str = "house.toml") -> str:
    """Load ``text`` as a rules file that must fail; the message, which names the file."""
    path = write(tmp_path, text, name)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), f"the message does not start with the file: {message}"
    return message


# ---------------------------------------------------------------------------------------------
# Presets round-trip


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_dumps_to_toml_that_loads_back_equal(tmp_path: Path, name: str) -> None:
    rules = PRESETS[name]
    text = dump_toml(rules)
    assert text.startswith(f"# lanswitch rules: {name}\n")
    tomllib.loads(text)  # valid TOML on its own
    loaded = load_text(tmp_path, text, f"{name}.toml")
    assert loaded == rules
    assert dump_toml(loaded) == text


def test_there_are_nine_presets_and_a_name_loads_its_preset() -> None:
    assert len(PRESETS) == 9
    for name, rules in PRESETS.items():
        assert rules.name == name
        assert rules.description
        assert load_rules(name) is rules


PRESET_FILES = Path(lanswitch.rules.__file__).parent / "presets"


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_preset_is_a_house_rules_file_shipped_in_the_package(name: str) -> None:
    """Each preset's file, given to --rules as a user's file is, loads to that preset."""
    path = PRESET_FILES / f"{name}.toml"
    assert load_rules(str(path)) == PRESETS[name]


def test_the_preset_files_are_the_presets_in_order() -> None:
    assert sorted(p.stem for p in PRESET_FILES.iterdir()) == sorted(PRESETS)
    assert tuple(PRESETS) == PRESET_NAMES
    for name in PRESET_NAMES:
        data = tomllib.loads((PRESET_FILES / f"{name}.toml").read_text(encoding="utf-8"))
        assert data["name"] == name
        # A preset built on another names one listed before it.
        assert PRESET_NAMES.index(data.get("base", "switch")) <= PRESET_NAMES.index(name)


# A random valid rule set: a base preset, any options changed, perhaps another preset's power
# table. Descriptions may hold any character, control characters included; names have their
# own control-character test below.
_PREDICATES = ["A", "2", "10", "KH", "black J", "red 5", "*H", "joker", "power", "red", "*"]
_POINT_KEYS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "joker"]
_TEXT = st.text(
    st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Z", "Cc"]), max_size=30
)
_NAME = st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Z"]), max_size=30)


def _option_value(kind: str, lo: int, hi: int, choices: tuple[str, ...]) -> st.SearchStrategy[Any]:
    if kind == "bool":
        return st.booleans()
    if kind == "int":
        return st.integers(lo, hi)
    if kind == "enum":
        return st.sampled_from(choices)
    if kind == "by_players":
        steps = st.dictionaries(
            st.integers(MIN_PLAYERS + 1, MAX_PLAYERS).map(str), st.integers(lo, hi), max_size=3
        )
        first = st.integers(lo, hi)
        table = st.builds(lambda f, s: {str(MIN_PLAYERS): f, **s}, first, steps)
        return st.one_of(st.integers(lo, hi), table)
    if kind == "predicates":
        return st.lists(st.sampled_from(_PREDICATES), max_size=3)
    assert kind == "points"
    return st.dictionaries(st.sampled_from(_POINT_KEYS), st.integers(0, 1000), max_size=5)


@st.composite
def house_rules(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {"base": draw(st.sampled_from(list(PRESETS)))}
    if draw(st.booleans()):
        data["name"] = draw(_NAME.filter(str.strip))
    if draw(st.booleans()):
        data["description"] = draw(_TEXT)
    for opt in draw(st.lists(st.sampled_from(OPTIONS), unique=True, max_size=8)):
        hi = 12 if opt.key == "hand_size" else opt.hi  # mostly decks that fit
        value = draw(_option_value(opt.kind, opt.lo, hi, opt.choices))
        data.setdefault(opt.section, {})[opt.key] = value
    if draw(st.booleans()):
        other = PRESETS[draw(st.sampled_from(list(PRESETS)))]
        data["power"] = tomllib.loads(dump_toml(other)).get("power", [])
    return data


@given(house_rules())
def test_any_valid_rule_set_round_trips_through_toml(data: dict[str, Any]) -> None:
    try:
        rules = rules_from_mapping(data, "generated")
    except RulesError:
        # Options that do not fit together (a deck too small for the hand size, a call
        # required to finish that is never asked for, ...): not a rule set.
        reject()
    text = dump_toml(rules)
    assert rules_from_mapping(tomllib.loads(text), "dumped") == rules


@pytest.mark.parametrize("description", ["two\nlines", "bell\x07", "delete\x7f"])
def test_dump_toml_escapes_control_characters(tmp_path: Path, description: str) -> None:
    """A description may hold a newline (a TOML multi-line string); the dump must escape it."""
    rules = replace(PRESETS["switch"], description=description)
    assert load_text(tmp_path, dump_toml(rules)) == rules


@pytest.mark.parametrize("name", ["two\nlines", "house\n[play]\nsafety_limit = 100", "esc\x1b"])
def test_dump_toml_a_name_with_control_characters(tmp_path: Path, name: str) -> None:
    """A newline in the name must not end the header comment and inject TOML."""
    rules = replace(PRESETS["switch"], name=name)
    assert load_text(tmp_path, dump_toml(rules)) == rules


def test_a_multi_line_description_loads_and_dumps(tmp_path: Path) -> None:
    rules = load_text(tmp_path, 'description = """two\nlines"""\n')
    assert rules.description == "two\nlines"
    assert load_text(tmp_path, dump_toml(rules), "again.toml") == rules


# ---------------------------------------------------------------------------------------------
# House rules over a base


def test_house_rules_override_keys_of_their_base(tmp_path: Path) -> None:
    irish = PRESETS["irish"]
    rules = load_text(
        tmp_path,
        'base = "irish"\n\n[play]\nblunder_penalty = 1\ndraw = "one"\n\n[calls]\npenalty = 3\n',
    )
    assert rules == replace(
        irish,
        name="irish+house",
        play=replace(irish.play, blunder_penalty=1, draw="one"),
        calls=replace(irish.calls, penalty=3),
    )


def test_house_rules_may_name_themselves_and_replace_the_power_table(tmp_path: Path) -> None:
    rules = load_text(
        tmp_path,
        'base = "irish"\nname = "our irish"\n\n'
        "[deal]\nhand_size = { 2 = 8, 6 = 6 }\n\n"
        '[[power]]\nname = "two"\ncards = "2"\npickup = 2\nstacks_on = ["two"]\n\n'
        '[[power]]\nname = "ace"\ncards = ["A", "joker"]\nwild = true\nnames_suit = true\n',
    )
    irish = PRESETS["irish"]
    assert rules.name == "our irish"
    assert rules.deal == replace(irish.deal, hand_size=(8, 8, 8, 8, 6, 6, 6))
    assert rules.play == irish.play
    assert [r.name for r in rules.power] == ["two", "ace"]
    assert rules.row("ace").cards == ("A", "joker")
    assert rules.row("two").stacks_on == ("two",)


def test_without_a_base_the_base_is_switch(tmp_path: Path) -> None:
    rules = load_text(tmp_path, "[calls]\npenalty = 2\n")
    switch = PRESETS["switch"]
    assert rules == replace(switch, calls=replace(switch.calls, penalty=2))


def test_an_empty_file_is_switch(tmp_path: Path) -> None:
    assert load_text(tmp_path, "") == PRESETS["switch"]


# ---------------------------------------------------------------------------------------------
# Errors, each naming the file and the key and saying what is allowed


def test_unknown_top_key(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, 'colour = "red"\n')
    assert "colour: unknown key" in msg
    for key in ("base", "name", "description", "sources", "power", "deal", "play", "calls"):
        assert key in msg


def test_unknown_section_key(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, '[play]\ndraws = "one"\n')
    assert "play.draws: unknown key" in msg
    assert "[play] takes draw, may_draw_instead" in msg


def test_unknown_power_key(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, '[[power]]\nname = "x"\ncards = "2"\npickups = 2\n')
    assert "power[0].pickups: unknown key" in msg
    assert "pickup" in msg


@pytest.mark.parametrize(
    ("text", "key", "says"),
    [
        ('[play]\nreshuffle = "yes"\n', "play.reshuffle", "must be true or false, not 'yes'"),
        ("[deal]\njokers = 1.5\n", "deal.jokers", "must be a whole number from 0 to 4, not 1.5"),
        ("[deal]\njokers = true\n", "deal.jokers", "must be a whole number from 0 to 4, not True"),
        ("[play]\ndraw = 1\n", "play.draw", "must be one of"),
        ("[deal]\nhand_size = [7]\n", "deal.hand_size", "must be a number or a table"),
        ("[play]\nno_finish_on = 2\n", "play.no_finish_on", "a string or a list of strings"),
        ("[scoring]\ncard_points = 3\n", "scoring.card_points", "must be a table like"),
        ("play = 3\n", "play", "must be a table ([play]), not 3"),
        ("power = 3\n", "power", "must be an array of tables ([[power]])"),
        ("name = 3\n", "name", "must be a non-empty string"),
        ('[[power]]\nname = "x"\ncards = "2"\nwild = "yes"\n', "power.x.wild", "true or false"),
    ],
)
def test_wrong_type(tmp_path: Path, text: str, key: str, says: str) -> None:
    msg = rules_error(tmp_path, text)
    assert f": {key}: " in msg
    assert says in msg


@pytest.mark.parametrize(
    ("text", "key", "says"),
    [
        ("[deal]\njokers = 5\n", "deal.jokers", "from 0 to 4, not 5"),
        ("[play]\nblunder_penalty = 9\n", "play.blunder_penalty", "from 0 to 5, not 9"),
        ("[play]\nsafety_limit = 99\n", "play.safety_limit", "from 100 to 1000000, not 99"),
        ("[calls]\npenalty = -1\n", "calls.penalty", "from 0 to 10, not -1"),
        ("[deal]\ndecks = 3\n", "deal.decks", "from 1 to 2, not 3"),
        ("[deal]\nhand_size = { 2 = 7, 5 = 0 }\n", "deal.hand_size.5", "from 1 to 20, not 0"),
        ("[scoring]\ncard_points = { A = 1001 }\n", "scoring.card_points.A", "0 to 1000"),
        ('[[power]]\nname = "x"\ncards = "2"\nskip = 9\n', "power.x.skip", "from 0 to 8, not 9"),
    ],
)
def test_out_of_range_int(tmp_path: Path, text: str, key: str, says: str) -> None:
    msg = rules_error(tmp_path, text)
    assert f": {key}: must be a whole number " in msg
    assert says in msg


@pytest.mark.parametrize("opt", [o for o in OPTIONS if o.kind == "enum"], ids=lambda o: o.key)
def test_bad_enum_names_file_key_and_every_choice(tmp_path: Path, opt: Any) -> None:
    msg = rules_error(tmp_path, f'[{opt.section}]\n{opt.key} = "sideways"\n')
    assert f": {opt.section}.{opt.key}: must be one of " in msg
    for choice in opt.choices:
        assert repr(choice) in msg
    assert "not 'sideways'" in msg


def test_bad_power_enum(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, '[[power]]\nname = "q"\ncards = "Q"\ncover = "hat"\n')
    assert "power.q.cover: must be one of 'none', 'suit', 'any', not 'hat'" in msg


def test_bad_base(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, 'base = "poker"\n')
    assert "base: must be one of" in msg
    assert all(name in msg for name in PRESETS)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[play]\nno_finish_on = ["ZZ"]\n', "play.no_finish_on"),
        ('[play]\nno_finish_on = ["A", "purple 7"]\n', "play.no_finish_on"),
        ('[[power]]\nname = "x"\ncards = "11X"\n', "power.x.cards"),
        ('[[power]]\nname = "x"\ncards = ["2", "*Z"]\n', "power.x.cards"),
    ],
)
def test_bad_card_predicate(tmp_path: Path, text: str, key: str) -> None:
    msg = rules_error(tmp_path, text)
    assert f": {key}: " in msg
    assert "is not a card predicate" in msg or "is not a suit" in msg


def test_bad_card_predicate_suggests_the_grammar(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, '[play]\nno_finish_on = ["ZZ"]\n')
    assert "'ZZ' is not a card predicate (try 2, KH, 'black J', 'red 5', *H, joker, power)" in msg


def test_power_cannot_define_a_power_row(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, '[[power]]\nname = "x"\ncards = "power"\n')
    assert "power.x.cards: 'power' cannot define a power row" in msg


@pytest.mark.parametrize("key", ["stacks_on", "cancels", "returns"])
def test_power_row_referencing_an_unknown_row(tmp_path: Path, key: str) -> None:
    msg = rules_error(
        tmp_path,
        '[[power]]\nname = "two"\ncards = "2"\npickup = 2\n\n'
        f'[[power]]\nname = "q"\ncards = "Q"\npickup = 1\n{key} = ["nine"]\n',
    )
    assert f"power.q.{key}: no power row is named 'nine' (rows: two, q)" in msg


@pytest.mark.parametrize(
    ("row", "key", "says"),
    [
        ('name = "x"\ncards = "2"\npickup = 2\nskip = 1\n', "power.x", "pick up or skip"),
        ('name = "x"\ncards = "2"\nstacks_on = ["x"]\n', "power.x.stacks_on", "only a pick-up"),
        ('name = "x"\ncards = "2"\ncancels = ["x"]\n', "power.x.cancels", "not a pick-up row"),
        ('name = "x"\ncards = "2"\nanswer_only = true\n', "power.x.answer_only", "pick-up row"),
        ('cards = "2"\n', "power[0].name", "every power row needs a name"),
        ('name = "x"\n', "power[0].cards", "needs cards"),
    ],
)
def test_inconsistent_power_rows(tmp_path: Path, row: str, key: str, says: str) -> None:
    msg = rules_error(tmp_path, "[[power]]\n" + row)
    assert f": {key}: " in msg
    assert says in msg


def test_two_power_rows_with_one_name(tmp_path: Path) -> None:
    row = '[[power]]\nname = "x"\ncards = "2"\n'
    msg = rules_error(tmp_path, row + row)
    assert "power.x: two power rows have this name" in msg


def test_a_deck_too_small_for_eight_players(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, "[deal]\ndecks = 1\nhand_size = 7\n")
    assert ": deal.hand_size: 8 players × 7 cards + a starter need 57 cards" in msg
    assert "give 52" in msg
    assert "lower the hand size or add a deck" in msg


def test_a_deck_too_small_from_some_player_count(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, "[deal]\ndecks = { 2 = 1, 6 = 2 }\nhand_size = { 2 = 7, 4 = 12 }\n")
    assert "4 players × 12 cards + a starter need 49 cards" not in msg  # 49 fit in 52
    assert "5 players × 12 cards + a starter need 61 cards" in msg


def test_jokers_can_make_a_deck_fit(tmp_path: Path) -> None:
    rules = load_text(tmp_path, "[deal]\ndecks = 1\nhand_size = 6\njokers = 4\n")
    assert rules.deck_size_for(MAX_PLAYERS) == 56


def test_invalid_toml(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, "[play\ndraw = 1\n")
    assert "not valid TOML" in msg
    assert re.search(r"line 1", msg)


def test_duplicate_toml_key_is_invalid_toml(tmp_path: Path) -> None:
    msg = rules_error(tmp_path, "[calls]\npenalty = 1\npenalty = 2\n")
    assert "not valid TOML" in msg


def test_missing_file(tmp_path: Path) -> None:
    path = str(tmp_path / "nowhere.toml")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: cannot read the rules file")
    assert "No such file" in msg


def test_a_directory_is_not_a_rules_file(tmp_path: Path) -> None:
    path = tmp_path / "dir.toml"
    path.mkdir()
    with pytest.raises(RulesError, match="cannot read the rules file"):
        load_rules(str(path))


def test_neither_preset_nor_file(tmp_path: Path) -> None:
    spec = str(tmp_path / "swtich")
    with pytest.raises(RulesError) as info:
        load_rules(spec)
    msg = str(info.value)
    assert msg.startswith(f"{spec}: no such preset or file")
    assert all(name in msg for name in PRESETS)


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('description = "Café"\n'.encode("latin-1"))
    with pytest.raises(RulesError) as info:
        load_rules(str(path))
    assert str(info.value) == f"{path}: not a text (UTF-8) file"


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)

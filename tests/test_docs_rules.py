"""docs/rules.md agrees with the code: its sections, the §6 fan table (names, points per profile,
implications), the §6a list of fans, and the §8 seating table."""

from __future__ import annotations

import re
from pathlib import Path

from script_helpers import load_script

from mcr_env.engine.core import match_hand_layout
from mcr_env.scoring import (
    FAN_IMPLIES,
    FAN_IMPLIES_BY_PROFILE,
    FAN_NAMES,
    FAN_POINTS_BY_PROFILE,
    Fan,
)
from mcr_env.scoring.docs import FAN_TABLE_BEGIN, FAN_TABLE_END, fan_table_markdown
from mcr_env.scoring.fans import FAN_BY_NAME

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")

SECTIONS = {
    "1": "Tiles and notation",
    "2": "A hand",
    "3": "Settlement",
    "4": "A match",
    "5": "Scoring principles",
    "6": "The 81 fans",
    "6a": "What each fan requires",
    "6b": "Details",
    "7": "Profiles",
    "8": "Seating within a match",
    "9": "The botzone layout and the Botzone judge",
    "10": "Decisions: who is asked, claim rounds, information",
}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _fan_set(text: str) -> set[Fan]:
    return set() if text == "—" else {FAN_BY_NAME[name] for name in text.split(", ")}


def _section(number: str) -> str:
    """The text of one section (up to the next heading of a numbered section)."""
    m = re.search(rf"^#{{2,3}} {re.escape(number)}\. .*$", RULES, flags=re.M)
    assert m, number
    rest = RULES[m.end() :]
    nxt = re.search(r"^#{2,3} \d+[a-z]?\. ", rest, flags=re.M)
    return rest[: nxt.start()] if nxt else rest


def test_section_headings_are_the_agreed_ones():
    found = dict(re.findall(r"^#{2,3} (\d+[a-z]?)\. (.+)$", RULES, flags=re.M))
    assert found == SECTIONS


def test_fan_table_is_the_generated_one():
    start = RULES.index(FAN_TABLE_BEGIN)
    end = RULES.index(FAN_TABLE_END) + len(FAN_TABLE_END) + 1
    assert RULES[start:end] == fan_table_markdown()
    assert start > RULES.index("## 6. The 81 fans") and end < RULES.index("### 6a.")


def test_fan_table_rows_equal_the_scorer_data():
    block = RULES[RULES.index(FAN_TABLE_BEGIN) : RULES.index(FAN_TABLE_END)]
    rows = [_cells(line) for line in block.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r[0]) for r in rows] == [int(f) for f in Fan] == list(range(1, 83))
    for number, name, _chinese, mcr, botzone, implies, mcr_note in rows:
        f = Fan(int(number))
        assert name == FAN_NAMES[f]
        assert botzone == str(FAN_POINTS_BY_PROFILE["botzone"][f])
        if f == Fan.CONCEALED_KONG_AND_MELDED_KONG:
            assert mcr == "—"  # the mcr profile never scores it (§7 item 2)
        else:
            assert mcr == str(FAN_POINTS_BY_PROFILE["mcr"][f])
        implied = _fan_set(implies)
        assert implied == set(FAN_IMPLIES.get(f, ())), name
        # "not: A, B; also: C" -> the mcr profile's implications
        mcr_implied = set(implied)
        for part in filter(None, mcr_note.split("; ")):
            key, _, names = part.partition(": ")
            if key == "not":
                mcr_implied -= _fan_set(names)
            elif key == "also":
                mcr_implied |= _fan_set(names)
            else:
                assert f == Fan.CONCEALED_KONG_AND_MELDED_KONG, part
        assert mcr_implied == set(FAN_IMPLIES_BY_PROFILE["mcr"].get(f, ())), name


def test_section_6a_lists_the_81_fans_in_order():
    items = re.findall(r"^(\d+)\. ([^:\n]+):", _section("6a"), flags=re.M)
    assert [int(n) for n, _ in items] == list(range(1, 82))
    assert [name for _, name in items] == [FAN_NAMES[Fan(v)] for v in range(1, 82)]


def test_section_8_seating_table_equals_match_hand_layout():
    rows = [_cells(line) for line in _section("8").splitlines() if re.match(r"\| \d+-\d+ \|", line)]
    assert len(rows) == 4
    winds = ["East", "South", "West", "North"]
    for r, (hands, wind, players, dealers) in enumerate(rows):
        assert hands == f"{4 * r + 1}-{4 * r + 4}" and wind == winds[r]
        for k, dealer in enumerate(int(d) for d in dealers.split(", ")):
            want_dealer, prevalent, player_at_seat = match_hand_layout(4 * r + k)
            assert (dealer, prevalent) == (want_dealer, r)
            assert [int(p) for p in players.split(", ")] == player_at_seat.tolist()


def test_gen_rules_docs_check_passes(capsys):
    mod = load_script("gen_rules_docs")
    assert mod.main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out

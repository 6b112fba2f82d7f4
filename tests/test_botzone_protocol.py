"""Botzone bot protocol: request parsing, the judge's requests from engine games, and the
round trip engine -> requests -> BotzoneBot -> responses -> engine with the bot's tracked state
and mask equal to the engine's at every decision of every seat."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from botzone_helpers import Eager

from baselines.agents import RandomAgent, RuleBasedAgent
from mcr_env.botzone.bot import BOTZONE_RULES, BotzoneBot, run_bot
from mcr_env.botzone.judge import play_through_protocol, response_actions
from mcr_env.botzone.protocol import KEEP_RUNNING, Request, RequestError, parse_request
from mcr_env.encoding.actions import ACTION_KIND, ActionKind
from mcr_env.engine import MCREngine, RulesConfig

# ---------------------------------------------------------------------------- parsing

PARSED = [
    ("0 2 1", Request("seat", player=2, quan=1)),
    (
        "1 0 0 0 0 W1 W1 W2 T3 T4 T5 B9 B9 F1 F2 J1 J2 J3",
        Request(
            "deal",
            hand=(0, 0, 1, 11, 12, 13, 26, 26, 27, 28, 31, 32, 33),
            flower_counts=(0, 0, 0, 0),
            flowers=(),
        ),
    ),
    (
        "1 1 0 2 0 W1 W1 W2 T3 T4 T5 B9 B9 F1 F2 J1 J2 J3 H1 H5 H8",
        Request(
            "deal",
            hand=(0, 0, 1, 11, 12, 13, 26, 26, 27, 28, 31, 32, 33),
            flower_counts=(1, 0, 2, 0),
            flowers=(34, 38, 41),
        ),
    ),
    ("2 T6", Request("draw", tile=14)),
    ("3 1 BUHUA H7", Request("buhua", player=1, tile=40)),
    ("3 3 DRAW", Request("DRAW", player=3)),
    ("3 0 PLAY J1", Request("PLAY", player=0, tile=31)),
    ("3 2 PENG B5", Request("PENG", player=2, tile=22)),
    ("3 1 CHI W5 F4", Request("CHI", player=1, middle=4, tile=30)),
    ("3 0 GANG", Request("GANG", player=0)),
    ("3 2 BUGANG T9", Request("BUGANG", player=2, tile=17)),
]


@pytest.mark.parametrize("line,expected", PARSED)
def test_parse_every_request_kind(line, expected):
    req = parse_request(line)
    assert req == expected
    assert req.to_line() == line


def test_parse_is_case_and_space_tolerant():
    assert parse_request("  3 0  play j1 ") == Request("PLAY", player=0, tile=31)


BAD = [
    ("", "empty"),
    ("4 1 2", "unknown request type '4'"),
    ("0 4 0", "seat must be 0..3, got 4"),
    ("0 1", "request 0 takes 'seat quan'"),
    ("0 1 x", "quan must be an integer"),
    ("1 0 0 0 0 W1 W1", "needs 4 flower counts and 13 tiles"),
    ("1 1 0 0 0 W1 W1 W2 T3 T4 T5 B9 B9 F1 F2 J1 J2 J3", "lists 0 flowers, its counts sum to 1"),
    ("1 0 0 0 0 W1 W1 W2 T3 T4 T5 B9 B9 F1 F2 J1 J2 H3", "expected a playing tile"),
    ("2 X1", "bad tile code 'X1'"),
    ("2 W1 W2", "request 2 takes one tile"),
    ("3 1 SWAP W1", "unknown event 'SWAP'"),
    ("3 1 PLAY", "3 p PLAY takes 1 tile(s)"),
    ("3 1 CHI W1 W3", "cannot be the middle of a chow"),
    ("3 1 BUHUA W1", "expected a flower"),
    ("3 9 DRAW", "player must be 0..3, got 9"),
]


@pytest.mark.parametrize("line,message", BAD)
def test_malformed_requests_raise(line, message):
    with pytest.raises(RequestError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_request(line)


def test_tracker_rejects_requests_that_do_not_fit():
    bot = BotzoneBot(RandomAgent(seed=0))
    with pytest.raises(RequestError, match="before request 0"):
        bot.respond("2 W1")
    bot.respond("0 1 0")
    with pytest.raises(RequestError, match="before the deal"):
        bot.respond("3 0 DRAW")
    bot.respond("1 0 0 0 0 W1 W1 W2 T3 T4 T5 B9 B9 F1 F2 J1 J2 J3")
    with pytest.raises(RequestError, match="no discard to claim"):
        bot.respond("3 2 PENG W1")


FIVE_W1 = "W1 W1 W1 W1 W1 W6 W7 W8 W9 T1 T2 T3 T4"
FOUR_W1 = "W1 W1 W1 W1 W2 W6 W7 W8 W9 T1 T2 T3 T4"


@pytest.mark.parametrize(
    ("requests", "message"),
    [
        ([f"1 0 0 0 0 {FIVE_W1}"], f"request '1 0 0 0 0 {FIVE_W1}'"),
        ([f"1 0 0 0 0 {FOUR_W1}", "2 W1"], "request '2 W1'"),
    ],
)
def test_tracker_rejects_a_fifth_copy_of_a_tile(requests, message):
    """Reproducer: a deal of five W1 (or a draw of a fifth) was tracked as is and answered
    (``PLAY W1``); now a RequestError names the request and the tile (docs/rules.md §1)."""
    bot = BotzoneBot(RandomAgent(seed=0))
    bot.respond("0 0 0")
    for line in requests[:-1]:
        bot.respond(line)
    with pytest.raises(RequestError) as err:
        bot.respond(requests[-1])
    assert str(err.value) == f"{message}: seat 0 would see 5 copies of W1 (4 exist)"


def test_tracker_counts_public_copies_and_own_concealed_kongs():
    """Four W1 in seat 1's own concealed kong, then another seat discards a W1: five."""
    bot = BotzoneBot(RandomAgent(seed=0))
    bot.respond("0 1 0")
    bot.respond("1 0 0 0 0 W1 W1 W1 W1 W2 W3 T3 T4 T5 B9 B9 F1 F2")
    for line in ["3 0 DRAW", "3 0 PLAY J1", "2 J2"]:
        bot.tracker.apply(parse_request(line))
    bot.tracker.apply(parse_request("3 1 GANG"), own_angang=0)
    for line in ["2 J3", "3 1 PLAY J3", "3 2 DRAW"]:
        bot.tracker.apply(parse_request(line))
    with pytest.raises(RequestError) as err:
        bot.tracker.apply(parse_request("3 2 PLAY W1"))
    assert str(err.value) == "request '3 2 PLAY W1': seat 1 would see 5 copies of W1 (4 exist)"


# ---------------------------------------------------------------------------- round trip


def _play_with_bots(n_games, seed, rules, agents_of, winds=None):
    """Play engine games whose every seat is a BotzoneBot fed with the judge's requests; check
    the tracked state and the mask against the engine at every decision. Returns counters."""
    eng = MCREngine(n_games, rules)
    eng.reset(seed=seed, prevalent_wind=winds)
    bots = [
        [BotzoneBot(agents_of(g, s), rules, record=True) for s in range(4)] for g in range(n_games)
    ]
    seen = np.zeros((n_games, 4), dtype=np.int64)  # bot decisions already checked
    lost = {}  # (game, seat) -> a claim was answered, its discard not played yet
    counts = {"decisions": 0, "requests": 0, "claims": 0, "kongs": 0, "wins": 0}
    hidden = {"wall", "wall_front", "wall_back"}

    def respond(g, s, line):
        counts["requests"] += 1
        return bots[g][s].respond(line)

    def on_decision(g, s, resp, a):
        bot = bots[g][s]
        counts["decisions"] += 1
        if resp is not None and lost.pop((g, s), False):
            seen[g, s] += 1  # the discard chosen with a claim that lost was never played
        lost.pop((g, s), None)
        assert len(bot.decisions) > seen[g, s], "the engine asks, the bot did not"
        st, mask, chosen = bot.decisions[seen[g, s]]
        seen[g, s] += 1
        if resp is not None and len(response_actions(eng, g, resp)) == 2:
            counts["claims"] += 1
            lost[(g, s)] = True  # until its DISCARD decision comes
        assert chosen == a
        view = eng.state.seat_view(s)
        for name, arr in view.items():
            if name not in hidden and not np.array_equal(getattr(st, name)[0], arr[g]):
                np.testing.assert_array_equal(
                    getattr(st, name)[0], arr[g], err_msg=f"game {g} seat {s} {name}"
                )
        if not np.array_equal(mask, eng.legal_mask[g, s]):
            np.testing.assert_array_equal(mask, eng.legal_mask[g, s])
        kind = int(ACTION_KIND[a])
        counts["kongs"] += kind in (
            int(ActionKind.GANG),
            int(ActionKind.ANGANG),
            int(ActionKind.BUGANG),
        )
        counts["wins"] += kind == int(ActionKind.HU)

    play_through_protocol(eng, respond, on_decision)
    return counts


def _mixed_agents(g, s):
    """A RuleBasedAgent in every 8th game (it wins hands), RandomAgent and _Eager elsewhere."""
    if g % 8 == 0 and s == (g // 8) % 4:
        return RuleBasedAgent()
    return Eager(1000 * g + s) if (g + s) % 2 else RandomAgent(seed=1000 * g + s)


@pytest.mark.slow
@pytest.mark.parametrize("part", range(4))
def test_round_trip_500_games(part):
    """4 x 125 = 500 engine games (botzone layout and profile), every seat a BotzoneBot."""
    n = 125
    winds = np.arange(n) % 4
    c = _play_with_bots(n, 100 + part, BOTZONE_RULES, _mixed_agents, winds=winds)
    assert c["decisions"] > 50 * n
    assert c["claims"] > 0 and c["kongs"] > 0 and c["wins"] > 0


def test_round_trip_claim_round_all():
    """claim_round="all" (every seat asked at every discard, as the judge does): the bot
    answers the Pass-only decisions too."""
    rules = RulesConfig(wall_layout="botzone", scoring_profile="botzone", claim_round="all")
    c = _play_with_bots(12, 7, rules, _mixed_agents)
    assert c["decisions"] > 12 * 60


# ---------------------------------------------------------------------------- I/O styles

HISTORY = [
    ("0 1 0", "PASS"),
    ("1 0 0 0 0 W1 W1 W2 T3 T4 T5 B9 B9 F1 F2 J1 J2 J3", "PASS"),
    ("3 0 DRAW", "PASS"),
    ("3 0 PLAY W1", None),
]


class _LastLegal:
    """Picks the legal action with the highest id."""

    needs_obs = False
    needs_view = False
    name = "last"

    def act(self, obs, mask, view=None):
        return (mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)).astype(np.int64)


def _expected_answer():
    bot = BotzoneBot(_LastLegal())
    out = [bot.respond(q) for q, _ in HISTORY]
    return out


def test_json_and_simple_io_agree_with_direct_calls():
    expected = _expected_answer()
    assert expected[:3] == ["PASS"] * 3
    final = expected[3]
    assert final == "PENG J3"  # Peng W1 (id 99) is the top legal claim, then the top discard
    reqs = [q for q, _ in HISTORY]
    resps = [r for _, r in HISTORY[:-1]]
    # JSON, one process per turn
    out = io.StringIO()
    run_bot(
        lambda: BotzoneBot(_LastLegal()),
        io.StringIO(json.dumps({"requests": reqs, "responses": resps}) + "\n"),
        out,
        keep_running=False,
    )
    assert json.loads(out.getvalue()) == {"response": final}
    # simple I/O, one process per turn
    text = "\n".join([str(len(reqs))] + [x for pair in zip(reqs, resps + [""]) for x in pair][:-1])
    out = io.StringIO()
    run_bot(lambda: BotzoneBot(_LastLegal()), io.StringIO(text + "\n"), out, keep_running=False)
    assert out.getvalue() == final + "\n"
    # keep-running: first turn alone, later turns one line each (JSON string or object)
    out = io.StringIO()
    inp = "\n".join(
        [
            json.dumps({"requests": reqs[:1], "responses": []}),
            json.dumps(reqs[1]),
            json.dumps({"request": reqs[2]}),
            reqs[3],
        ]
    )
    run_bot(lambda: BotzoneBot(_LastLegal()), io.StringIO(inp + "\n"), out, keep_running=True)
    lines = out.getvalue().splitlines()
    assert lines == sum(([json.dumps({"response": r}), KEEP_RUNNING] for r in expected), [])


@pytest.mark.parametrize(
    "text,message",
    [
        ("0\n", "simple I/O turn number must be >= 1, got 0"),
        ("-2\n0 1 0\n", "simple I/O turn number must be >= 1, got -2"),
        (
            '{"requests": 5, "responses": []}\n',
            "JSON input needs lists 'requests' and 'responses', got int and list",
        ),
        (
            '{"requests": ["0 1 0"], "responses": "PASS"}\n',
            "JSON input needs lists 'requests' and 'responses', got list and str",
        ),
    ],
)
def test_run_bot_reports_malformed_first_turns(text, message):
    """Reproducer: a simple I/O turn number 0 (or negative) crashed ``run_bot`` with an
    IndexError and a ``requests`` that is not a list with a TypeError (tracebacks, not the
    one-line RequestError that ``scripts/botzone_bot.py`` reports); nothing is answered."""
    out = io.StringIO()
    with pytest.raises(RequestError) as err:
        run_bot(lambda: BotzoneBot(_LastLegal()), io.StringIO(text), out, keep_running=True)
    assert str(err.value) == message
    assert out.getvalue() == ""

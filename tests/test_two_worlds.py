"""Two-worlds tests (issue 8; docs/rules.md §2 hidden information, §10 who is asked): for every
interface, seat s's observations, masks, seat views, rendered views, replay text and the order
in which agents are asked to act are identical in two worlds that differ only in what seat s
cannot see (another seat's concealed hand, the wall's order, a concealed kong's tile). The
pairs and why they are such pairs: ``tests/two_worlds.py``."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mcr_env  # noqa: F401 (registers mcr_env/MCR-v0)
from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine import MCREngine
from mcr_env.engine.records import GameRecorder, write_records
from mcr_env.engine.render import render_record, render_table
from mcr_env.envs.batch import OBSERVE_MODES, MCRBatchEnv
from mcr_env.envs.sharded import ShardedBatchEnv, make_batch_env
from mcr_env.pettingzoo import env as aec_env
from mcr_env.pettingzoo import parallel_env

sys.path.insert(0, str(Path(__file__).resolve().parent))
import two_worlds as tw  # noqa: E402

PAIRS = tw.standard_pairs()
IDS = [p.name for p in PAIRS]
ROOT = Path(__file__).resolve().parent.parent


def assert_same(logs, pair, what):
    """The two worlds' logs of seat ``pair.seat`` are equal; the message names the first
    entry that differs."""
    a, b = logs
    n = min(len(a), len(b))
    for i in range(n):
        if not _eq(a[i], b[i]):
            raise AssertionError(
                f"{what}, {pair}: seat {pair.seat}'s log differs between the worlds at entry {i} "
                f"of {len(a)}/{len(b)}: world 0 {_short(a[i])} vs world 1 {_short(b[i])}"
            )
    assert len(a) == len(b), f"{what}, {pair}: logs of length {len(a)} vs {len(b)}"


def _eq(x, y) -> bool:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.array_equal(np.asarray(x), np.asarray(y))
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return len(x) == len(y) and all(_eq(p, q) for p, q in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_eq(x[k], y[k]) for k in x)
    return x == y


def _short(x) -> str:
    text = repr(x)
    return text if len(text) < 400 else text[:400] + "..."


# ------------------------------------------------------------------------ engine + records
def play_engine(pair, world, claim_round=None, every_step=False):
    """Play one world on the engine (B = 1) behind a GameRecorder. Log for seat s at each of
    its decisions (every step if ``every_step``) and at the end: its planes-v0 observation,
    mask, SeatView and rendered seat view. Returns (log, record)."""
    s = pair.seat
    cfg = pair.config if claim_round is None else tw.with_claim_round(pair.config, claim_round)
    rec = GameRecorder(MCREngine(1, cfg))
    rec.reset(walls=pair.walls[world][None])
    pols = pair.policies()
    log = []
    g, ss = np.array([0]), np.array([s])

    def snap():
        st = rec.state
        view = SeatView.from_state(st, g, ss)
        log.append(
            (
                tw.ENCODER.encode(st, g, ss)[0],
                rec.legal_mask[0, s].copy(),
                {k: v.copy() for k, v in vars(view).items()},
                render_table(st, 0, s, tiles="codes", to_act=rec.to_act),
            )
        )

    while not rec.terminated[0]:
        if every_step or rec.to_act[0, s]:
            snap()
        acts = np.zeros((1, 4), dtype=np.int64)
        for t in np.flatnonzero(rec.to_act[0]).tolist():
            obs = tw.ENCODER.encode(rec.state, g, np.array([t]))[0]
            acts[0, t] = pols[t].choose(obs, rec.legal_mask[0, t])
        rec.step(acts)
    snap()
    (record,) = rec.pop_finished()
    return log, record


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_engine_observation_mask_seat_view_render(pair):
    """planes-v0, the legal mask, SeatView and render_table(seat=s) at seat s's decisions
    (engine default claim rounds) and at every engine step when every seat is asked."""
    assert_same([play_engine(pair, w)[0] for w in (0, 1)], pair, "engine, s's decisions")
    logs = [play_engine(pair, w, claim_round="all", every_step=True)[0] for w in (0, 1)]
    assert_same(logs, pair, "engine claim_round='all', every step")


@pytest.mark.parametrize("claim_round", [None, "all"])
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_record_seat_view_and_replay_text(pair, claim_round, tmp_path):
    """render_record(seat=s, moves=True) and ``scripts/replay.py --moves --seat s`` print the
    same text in both worlds, for records made with the engine's default claim rounds (only
    seats with an option asked) and with every seat asked."""
    from scripts.replay import main as replay_main

    texts, cli = [], []
    for w in (0, 1):
        _, record = play_engine(pair, w, claim_round=claim_round)
        out: list[str] = []
        render_record(record, moves=True, seat=pair.seat, tiles="codes", out=out.append)
        texts.append(out)
        path = tmp_path / f"world{w}.jsonl"
        write_records(path, [record])
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = replay_main([str(path), "--index", "0", "--moves", "--seat", str(pair.seat)])
        assert rc == 0
        cli.append(buf.getvalue().splitlines())
    assert_same(texts, pair, f"render_record (record made with claim_round={claim_round!r})")
    assert_same(cli, pair, f"scripts/replay.py --moves --seat (claim_round={claim_round!r})")


# ------------------------------------------------------------------------------ PettingZoo
def play_aec(pair, world, **kwargs):
    """The AEC env: log every agent_selection, and seat s's observation, reward, termination
    and info at every step of the loop."""
    s = pair.seat
    me = f"player_{s}"
    env = aec_env(config=pair.config, **kwargs)
    env.reset(options={"walls": pair.walls[world]})
    raw = env.unwrapped
    pols = pair.policies()
    log = []
    for agent in env.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = env.last()
        o = env.observe(me)
        log.append(
            (
                agent,
                o["observation"],
                o["action_mask"],
                raw.rewards.get(me),
                raw._cumulative_rewards.get(me),
                raw.terminations.get(me),
                dict(raw.infos.get(me, {})),
            )
        )
        seat = raw.possible_agents.index(agent)
        env.step(None if term or trunc else pols[seat](obs))
    env.close()
    return log


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_pettingzoo_aec(pair):
    """The sequence of agents asked and seat s's observations in the AEC env."""
    assert_same([play_aec(pair, w) for w in (0, 1)], pair, "PettingZoo AEC")


def play_parallel(pair, world, **kwargs):
    """The parallel env: log the set of agents asked at every step (those with a non-empty
    mask), seat s's observation and mask, and its reward, termination and info."""
    s = pair.seat
    me = f"player_{s}"
    env = parallel_env(config=pair.config, **kwargs)
    obs, infos = env.reset(options={"walls": pair.walls[world]})
    pols = pair.policies()
    log = []
    for _ in range(5000):
        if not env.agents:
            break
        asked = tuple(a for a in env.agents if obs[a]["action_mask"].any())
        log.append((asked, obs[me]["observation"], obs[me]["action_mask"]))
        actions = {a: pols[env.possible_agents.index(a)](obs[a]) for a in asked}
        obs, rew, term, trunc, info = env.step(actions)
        log.append((rew[me], term[me], trunc[me], dict(info[me])))
    log.append((obs[me]["observation"], obs[me]["action_mask"]))
    return log


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_pettingzoo_parallel(pair):
    assert_same([play_parallel(pair, w) for w in (0, 1)], pair, "PettingZoo parallel")


# ------------------------------------------------------------------------------ batch env
def play_batch(pairs, observe, workers=0, **kwargs):
    """MCRBatchEnv with B = 2 * len(pairs) tables (pair i: world 0 at table 2i, world 1 at
    2i + 1), autoreset disabled. Per table, while it is live: to_act (who is asked), seat s's
    mask and observation as the observe mode gives it (packed: the seats of the table's rows in
    order and seat s's row), reward, termination and settlement. Returns one log per table."""
    n = 2 * len(pairs)
    cfg = pairs[0].config
    assert all(p.config == cfg for p in pairs)
    env = make_batch_env(
        n, workers, config=cfg, observe=observe, autoreset_mode="disabled", **kwargs
    )
    walls = np.stack([p.walls[w] for p in pairs for w in (0, 1)])
    obs, _ = env.reset(walls=walls)
    pols = [p.policies() for p in pairs for _ in (0, 1)]
    seat = [p.seat for p in pairs for _ in (0, 1)]
    logs = [[] for _ in range(n)]
    live = np.ones(n, dtype=bool)

    def own_obs(g, t):
        if observe in ("all", "acting"):
            return obs["observation"][g, t]
        if observe == "packed":
            rows = np.flatnonzero((obs["games"] == g) & (obs["seats"] == t))
            return obs["observation"][rows[0]] if rows.size else None
        return env.observe(np.array([g]), np.array([t]))[0]

    for _ in range(5000):
        if not live.any():
            break
        acts = np.zeros((n, 4), dtype=np.int64)
        for g in np.flatnonzero(live).tolist():
            s = seat[g]
            entry = [obs["to_act"][g].copy(), obs["action_mask"][g, s].copy()]
            if observe != "none":
                entry.append(own_obs(g, s))
            if observe == "packed":
                entry.append(obs["seats"][obs["games"] == g].copy())
            logs[g].append(entry)
            for t in np.flatnonzero(obs["to_act"][g]).tolist():
                o = own_obs(g, t) if observe != "none" else env.observe([g], [t])[0]
                acts[g, t] = pols[g][t].choose(o, obs["action_mask"][g, t])
        obs, rew, term, _, info = env.step(acts)
        for g in np.flatnonzero(live).tolist():
            logs[g].append((rew[g, seat[g]], term[g], info["settlement"][g].copy()))
        live &= ~term
    if workers:
        env.close()
    return logs


@pytest.mark.parametrize(
    "observe,workers", [(m, 0) for m in OBSERVE_MODES] + [("packed", 2), ("all", 2)]
)
def test_batch_env_every_observe_mode(observe, workers):
    """MCRBatchEnv in every observe mode, and ShardedBatchEnv (2 worker processes)."""
    groups = {}
    for p in PAIRS:
        groups.setdefault(p.config, []).append(p)
    name = "ShardedBatchEnv" if workers else "MCRBatchEnv"
    for pairs in groups.values():
        logs = play_batch(pairs, observe, workers)
        for i, p in enumerate(pairs):
            assert_same(logs[2 * i : 2 * i + 2], p, f"{name}(observe={observe!r})")


# ------------------------------------------------------------------------------ Gymnasium
def gym_opponents(pair, pols):
    return [pols[(pair.seat + k) % 4] for k in (1, 2, 3)]


def play_gym(pair, world, **kwargs):
    """MCR-v0 with the learner at seat s and the puppets as opponents: the learner's
    observation, reward, termination and settlement at every step."""
    pols = pair.policies()
    env = gym.make(
        "mcr_env/MCR-v0",
        learner_seat=pair.seat,
        opponents=gym_opponents(pair, pols),
        config=pair.config,
        **kwargs,
    )
    obs, info = env.reset(seed=0, options={"walls": pair.walls[world]})
    log = [(obs["observation"], obs["action_mask"], info["learner_seat"])]
    for _ in range(1000):
        obs, r, term, trunc, info = env.step(pols[pair.seat](obs))
        log.append((obs["observation"], obs["action_mask"], r, term, trunc, info["settlement"]))
        if term or trunc:
            break
    assert term
    return log


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_gymnasium_single_learner(pair):
    """The learner of MCR-v0 (skipping claim rounds, for speed) observes only its own
    decisions: nothing it gets depends on what it cannot see."""
    assert_same([play_gym(pair, w) for w in (0, 1)], pair, "Gymnasium MCR-v0")


def test_gymnasium_vector_learner():
    """The natively batched vector env, both worlds of a pair in one engine (tables 0, 1)."""
    for pair in PAIRS:
        pols = pair.policies()
        venv = gym.make_vec(
            "mcr_env/MCR-v0",
            num_envs=2,
            vectorization_mode="vector_entry_point",
            learner_seat=pair.seat,
            opponents=gym_opponents(pair, pols),
            config=pair.config,
        )
        obs, _ = venv.reset(seed=0, options={"walls": pair.walls})
        logs = [[(obs["observation"][i], obs["action_mask"][i])] for i in (0, 1)]
        open_ = [True, True]
        for _ in range(1000):
            acts = np.array(
                [
                    pols[pair.seat].choose(obs["observation"][i], obs["action_mask"][i])
                    for i in (0, 1)
                ]
            )
            obs, r, term, trunc, info = venv.step(acts)
            for i in (0, 1):
                if not open_[i]:
                    continue
                final = info.get("final_obs", [None, None])[i] if term[i] else None
                o = final if final is not None else {k: obs[k][i] for k in obs}
                logs[i].append(
                    (o["observation"], o["action_mask"], r[i], term[i], info["settlement"][i])
                )
                open_[i] = not term[i]
            if not any(open_):
                break
        venv.close()
        assert_same(logs, pair, "Gymnasium vector env")


# ------------------------------------------------------------------ mcr-play (terminal)
class _PuppetAgent:
    """A :class:`two_worlds.Puppet` as a baselines-style agent (``act(obs, mask, view)``)."""

    needs_obs, needs_view, encoder = True, False, "planes-v0"

    def __init__(self, puppet):
        self.puppet = puppet

    def act(self, obs, mask, view):
        return np.array([self.puppet.choose(obs[0], mask[0])])


def play_terminal(pair, world):
    """``mcr-play`` (TerminalGame, the engine's default claim rounds) with the person at seat
    s typing what SeatPolicy picks from its own planes-v0 observation: the whole transcript."""
    from mcr_env.encoding import get_encoder
    from mcr_env.encoding.actions import ACTION_NAMES
    from mcr_env.play.terminal import TerminalGame

    pols = pair.policies()
    opponents = [_PuppetAgent(pols[(pair.seat + k) % 4]) for k in (1, 2, 3)]
    out: list[str] = []
    enc = get_encoder("planes-v0")

    def read(prompt):
        st, me = game.engine.state, pair.seat
        obs = enc.encode(st, np.array([0]), np.array([me]))[0]
        return ACTION_NAMES[pols[me].choose(obs, game.engine.legal_mask[0, me])]

    game = TerminalGame(pair.seat, opponents, read=read, write=out.append, rules=pair.config)
    reset = game.engine.reset
    game.engine.reset = lambda seed=None: reset(walls=pair.walls[world][None])
    result = game.play()
    assert not result["quit"] and len(result["hands"]) == 1
    return "\n".join(out).splitlines()


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_terminal_game_transcript(pair):
    """mcr-play's whole transcript (tables, own and public actions, result) for seat s."""
    assert_same([play_terminal(pair, w) for w in (0, 1)], pair, "mcr-play transcript")


def test_terminal_game_echoes_every_typed_action():
    """Reproducer: ``mcr-play`` echoed the person's ``you: Pass`` in a claim round only when
    no other seat was asked (the engine's skipping rounds ask only seats that can claim), so
    a missing echo told that another seat could claim the discard (docs/rules.md §10)."""
    from baselines.agents import RuleBasedAgent
    from mcr_env.encoding.actions import ACTION_NAMES
    from mcr_env.play.terminal import TerminalGame

    typed, crowded, out = [], 0, []

    def read(prompt):
        nonlocal crowded
        legal = np.flatnonzero(game.engine.legal_mask[0, 0]).tolist()
        typed.append(ACTION_NAMES[0 if 0 in legal else legal[0]])
        crowded += typed[-1] == "Pass" and int(game.engine.to_act[0].sum()) > 1
        return typed[-1]

    rule = [RuleBasedAgent() for _ in range(3)]
    game = TerminalGame(0, rule, seed=0, read=read, write=out.append)
    game.play()
    echoed = [line[len("  you: ") :] for line in out if line.startswith("  you: ")]
    assert crowded == 3  # passes typed while another seat was asked too
    assert echoed == typed and len(typed) == 26


# ------------------------------------------------------------------ defaults and the leak
def test_multi_agent_envs_ask_every_seat_by_default():
    """PettingZoo AEC/parallel and MCRBatchEnv default to claim_round="all"; "options" is
    selectable; Gymnasium MCR-v0 keeps the engine default "options" (docs/rules.md §10)."""
    from mcr_env.envs.gym_env import MCREnv

    aec = aec_env()
    aec.reset(seed=3)
    assert aec.unwrapped._table.engine.config.claim_round == "all"
    first = aec.agent_selection
    aec.step(int(np.flatnonzero(aec.observe(first)["action_mask"])[-1]))  # a Play
    order = []
    for _ in range(3):
        order.append(aec.agent_selection)
        aec.step(0)  # Pass
    assert order == ["player_1", "player_2", "player_3"]  # every non-discarder, downstream
    par = parallel_env()
    par.reset(seed=3)
    assert par._table.engine.config.claim_round == "all"
    assert MCRBatchEnv(2).engine.config.claim_round == "all"
    sharded = ShardedBatchEnv(2, num_workers=1, claim_round="options")
    assert sharded.config.claim_round == "options"
    sharded.close()
    assert MCRBatchEnv(2, claim_round="options").engine.config.claim_round == "options"
    assert aec_env(claim_round="options").unwrapped._table.engine.config.claim_round == "options"
    assert parallel_env(claim_round="options")._table.engine.config.claim_round == "options"
    assert MCREnv().engine.config.claim_round == "options"
    for make in (MCRBatchEnv, aec_env, parallel_env):
        with pytest.raises(ValueError, match="claim_round"):
            make(**({"num_tables": 1} if make is MCRBatchEnv else {}), claim_round="some")


def test_the_pairs_expose_the_skipping_leak():
    """The construction has teeth: with the skipping claim rounds the AEC env asks agents in
    a different order in the two worlds of several pairs, the robbing-window pair included
    (the documented leak of claim_round="options")."""
    differ = [
        p.name
        for p in PAIRS
        if [e[0] for e in play_aec(p, 0, claim_round="options")]
        != [e[0] for e in play_aec(p, 1, claim_round="options")]
    ]
    assert "rob-official-s0" in differ and len(differ) >= 3, differ


@pytest.mark.parametrize("claim_round", [None, "all"])
def test_html_replay_seat_view(claim_round):
    """The HTML replay (``mcr-view --seat s``, ``scripts/replay.py --html``): seat s's frames
    and page are identical in both worlds."""
    from mcr_env.play.html import record_frames, record_to_html

    for pair in PAIRS:
        records = [play_engine(pair, w, claim_round=claim_round)[1] for w in (0, 1)]
        frames = [record_frames(r, seat=pair.seat) for r in records]
        assert_same(frames, pair, f"HTML frames (claim_round={claim_round!r})")
        pages = [record_to_html(r, seat=pair.seat, title="t").splitlines() for r in records]
        assert_same(pages, pair, f"HTML page (claim_round={claim_round!r})")


# ------------------------------------------------- info dicts, render modes, autoreset, judge
@pytest.mark.parametrize("claim_round", [None, "all"])
def test_gymnasium_info_dict_render_and_action_masks(claim_round):
    """MCR-v0 with ``render_mode="ansi"``: the learner's whole info dict, ``env.render()``
    (the table as its seat sees it) and ``action_masks()`` at every step are the same in both
    worlds, with the engine's skipping claim rounds and with every seat asked."""
    for pair in PAIRS:
        cfg = pair.config if claim_round is None else tw.with_claim_round(pair.config, "all")
        logs = []
        for w in (0, 1):
            pols = pair.policies()
            env = gym.make(
                "mcr_env/MCR-v0",
                learner_seat=pair.seat,
                opponents=gym_opponents(pair, pols),
                config=cfg,
                render_mode="ansi",
            )
            obs, info = env.reset(seed=0, options={"walls": pair.walls[w]})
            log = [(obs["observation"], sorted(info.items()), env.render())]
            for _ in range(1000):
                obs, r, term, trunc, info = env.step(pols[pair.seat](obs))
                masks = env.unwrapped.action_masks()
                log.append((obs["observation"], r, term, str(sorted(info.items())), masks))
                log.append(env.render())
                if term or trunc:
                    break
            assert term
            logs.append(log)
        assert_same(
            logs, pair, f"MCR-v0 info, render, action_masks (claim_round={cfg.claim_round})"
        )


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_batch_env_autoreset_final_observations(mode):
    """MCRBatchEnv with autoreset (both worlds of a pair at tables 0 and 1): seat s's
    observation, ``render(game, seat=s)`` and ``to_act`` while the hand is live, then its final
    observation (``info["final_obs"]`` with same-step autoreset, the returned observation with
    next-step autoreset) and reward are the same in both worlds."""
    for pair in PAIRS:
        env = MCRBatchEnv(2, config=pair.config, autoreset_mode=mode)
        obs, _ = env.reset(walls=np.stack(pair.walls))
        pols = [pair.policies() for _ in (0, 1)]
        logs, live, s = [[], []], [True, True], pair.seat
        for _ in range(3000):
            if not any(live):
                break
            acts = np.zeros((2, 4), dtype=np.int64)
            for g in (0, 1):
                if live[g]:
                    o = obs["observation"][g]
                    logs[g].append((obs["to_act"][g].copy(), o[s].copy(), env.render(g, s)))
                    for t in np.flatnonzero(obs["to_act"][g]).tolist():
                        acts[g, t] = pols[g][t].choose(o[t], obs["action_mask"][g, t])
            obs, rew, term, _, info = env.step(acts)
            for g in (0, 1):
                if live[g] and term[g]:
                    if mode == "same_step":
                        i = info["final_rows"].tolist().index(g)
                        logs[g].append((info["final_obs"][i, s].copy(), rew[g, s]))
                    else:
                        o, m = obs["observation"][g, s].copy(), obs["action_mask"][g, s].copy()
                        logs[g].append((o, m, rew[g, s], env.render(g, s)))
                    live[g] = False
        assert not any(live)
        assert_same(logs, pair, f"MCRBatchEnv(autoreset_mode={mode!r})")


def test_botzone_judge_requests_to_a_seat():
    """The requests the Botzone judge sends seat s (``RequestNarrator``, what a Botzone bot
    reads; its answers are a function of them) are the same in both worlds of the botzone
    pairs, and a ``BotzoneBot`` at seat s answers them with the same responses."""
    from mcr_env.botzone.bot import BotzoneBot
    from mcr_env.botzone.judge import RequestNarrator

    enc = tw.ENCODER
    pairs = [p for p in PAIRS if p.config.wall_layout == "botzone"]
    assert pairs
    for pair in pairs:
        logs = []
        for w in (0, 1):
            eng = MCREngine(1, pair.config)
            eng.reset(walls=pair.walls[w][None])
            nar = RequestNarrator(eng)
            nar.start()
            pols = pair.policies()
            for _ in range(3000):
                if eng.terminated[0]:
                    break
                acts = np.zeros((1, 4), dtype=np.int64)
                for t in np.flatnonzero(eng.to_act[0]).tolist():
                    o = enc.encode(eng.state, np.array([0]), np.array([t]))[0]
                    acts[0, t] = pols[t].choose(o, eng.legal_mask[0, t])
                eng.step(acts)
                nar.after_step(acts)
            assert eng.terminated[0]
            lines = list(nar.lines[0][pair.seat])
            bot = BotzoneBot(_FirstLegal(), rules=pair.config)
            logs.append([(line, bot.respond(line)) for line in lines])
        assert len(logs[0]) > 50
        assert_same(logs, pair, "Botzone requests and a bot's responses")


class _FirstLegal:
    """A Botzone bot's agent: the lowest legal action id."""

    needs_obs = needs_view = False

    def act(self, obs, mask, view=None):
        return np.argmax(mask, axis=1).astype(np.int64)

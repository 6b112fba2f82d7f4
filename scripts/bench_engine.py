"""Engine and env throughput under a play policy (docs/design.md "Performance").

Prints one JSON line per (path, policy, batch size) with ``batch``, ``policy``, ``hands_per_s``
(complete hands per second), ``decisions_per_s`` (acting (game, seat) pairs answered per
second), ``peak_rss_mb`` and the machine, versions and git commit. Policies (actions of the
acting rows only, computed batched; their cost is inside the timing):

* ``uniform``: a uniformly random legal action (the ``engine`` path plays it with
  :meth:`mcr_env.engine.MCREngine.step_random`, the draws and actions of
  :func:`mcr_env.engine.sampling.sample_legal_actions` fused with the step in one compiled
  call; the other paths sample the env's masks);
* ``uniform_env`` (env path only): the same uniform random play drawn inside the env:
  :meth:`mcr_env.envs.sharded.ShardedBatchEnv.step_random` (each shard draws its own tables'
  actions from a counter-based stream, in parallel; nothing computed in the caller), and in
  process ``MCRBatchEnv.step`` of :func:`mcr_env.envs.sharded.keyed_random_actions` (the same
  draws and games);
* ``greedy``: Hu whenever legal, any claim taken (Gang over Peng over Chi), and otherwise the
  discard leaving the lowest shanten (ties to the lowest tile;
  :func:`mcr_env.engine.greedy.greedy_actions`, one compiled call): realistic play that
  reaches the scoring paths.

Run on one core, e.g.::

    taskset -c 0 .venv/bin/python scripts/bench_engine.py --batch 1 64 1024 4096 \
        --policy uniform greedy --paths engine env --seconds 10

Sharding (docs/design.md "Scale"): ``--workers 0 1 2`` plays the env path in process (k = 0)
and as k shards of :class:`mcr_env.envs.sharded.ShardedBatchEnv` on each of ``--backends``
(default ``process thread``: worker processes, or threads of this process), interleaved
``--repeat`` times, and ends with one ``scaling`` row per backend (2-vs-1 speed-ups, the k = 1
overhead)::

    .venv/bin/python scripts/bench_engine.py --batch 2048 --workers 0 1 2 --repeat 2 --seconds 8
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

from mcr_env.engine import MCREngine, RulesConfig, score_cache_info
from mcr_env.engine.greedy import greedy_actions as _greedy
from mcr_env.engine.sampling import sample_legal_actions


def _meta() -> dict:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "commit": commit,
    }


def random_legal_actions(legal: np.ndarray, to_act: np.ndarray, rng) -> np.ndarray:
    """``(B, 4) int64``: a uniformly random legal action for each acting seat (0 elsewhere).

    :func:`mcr_env.engine.sampling.sample_legal_actions` on the acting rows only (one bounded
    random integer per acting seat).
    """
    return sample_legal_actions(legal, rng, to_act)


def greedy_actions(
    legal: np.ndarray, to_act: np.ndarray, hands: np.ndarray, n_melds: np.ndarray
) -> np.ndarray:
    """``(B, 4) int64``: the ``greedy`` policy for each acting seat (0 elsewhere):
    :func:`mcr_env.engine.greedy.greedy_actions` (one compiled call).

    Args:
        legal: ``(B, 4, 235) bool`` legal masks; to_act: ``(B, 4) bool``;
        hands: ``(B, 4, 34)`` concealed counts of the seats (the acting seat's own hand: no
            hidden information is used); n_melds: ``(B, 4)`` melds per seat.

    Hu if legal; else the highest legal claim or kong id other than a discard (Gang/AnGang/
    BuGang > Peng > Chi); else the legal discard leaving the lowest shanten (lowest tile on
    ties). A seat with only Pass passes.
    """
    return _greedy(legal, to_act, hands, n_melds)


def _policy(name: str, rng):
    """``act(legal, to_act, state) -> (B, 4) int64`` of policy ``name`` (uniform or greedy)."""
    if name == "uniform":
        return lambda legal, to_act, state: random_legal_actions(legal, to_act, rng)
    if name == "greedy":
        return lambda legal, to_act, state: greedy_actions(legal, to_act, state.hand, state.n_melds)
    raise ValueError(f"unknown policy {name!r}; valid: uniform, greedy")


WARMUP_HANDS_PER_TABLE = 2
"""Hands every table plays on average before the timing starts (see :func:`warm_up`)."""


def warm_up(one_step, batch: int, seconds: float, max_seconds: float | None = None) -> dict:
    """Play ``one_step() -> hands ended`` until ``WARMUP_HANDS_PER_TABLE * batch`` hands have
    ended (at least 20 steps; at most ``max_seconds`` of wall clock, default
    ``3 * seconds + 1``).

    All tables are dealt at once, so for the first hand length (about 80 steps with
    ``claim_round="options"``) no hand ends and then many end together: a window that starts
    right after the deal counts the decisions of that first stretch but few hands (at B=4096
    on a loaded machine the window held ~1 hand per 967 decisions instead of ~107). After
    two hands per table the hand ends are spread over the steps and ``hands_per_s`` and
    ``decisions_per_hand`` are those of steady play.

    Returns:
        ``{"warmup_steps", "warmup_hands", "warmup_steady"}`` (steady: the hand target was
        reached within the time bound).
    """
    target = WARMUP_HANDS_PER_TABLE * batch
    if max_seconds is None:
        max_seconds = 3.0 * seconds + 1.0
    limit = time.perf_counter() + max_seconds
    steps = hands = 0
    while steps < 20 or (hands < target and time.perf_counter() < limit):
        hands += one_step()
        steps += 1
    return {"warmup_steps": steps, "warmup_hands": hands, "warmup_steady": hands >= target}


def _rates(hands: int, decisions: int, t0: float, c0: float) -> dict:
    """Timing keys of a bench row, measured from ``t0`` (``time.perf_counter``) and ``c0``
    (``time.process_time``) to now: ``seconds``, ``hands_per_s``, ``decisions_per_s`` (wall
    clock), ``cpu_seconds``, ``hands_per_cpu_s`` (process CPU time)."""
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "seconds": round(dt, 3),
        "hands_per_s": round(hands / dt, 1),
        "decisions_per_s": round(decisions / dt, 1),
        "cpu_seconds": round(cpu, 3),
        "hands_per_cpu_s": round(hands / cpu, 1),
    }


def _warm_engine(batch, seconds, layout, seed, claim_round, policy):
    """An engine of ``batch`` games played by ``policy`` (finished games reset) up to steady
    play (:func:`warm_up`): ``(engine, one_step, warm-up keys)``; ``one_step()`` plays one
    more step and returns the hands it ended."""
    eng = MCREngine(batch, RulesConfig(wall_layout=layout, claim_round=claim_round))
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed)
    act = _policy(policy, rng)
    uniform = policy == "uniform"

    def one_step() -> int:
        if uniform:  # == eng.step(random_legal_actions(eng.legal_mask, eng.to_act, rng))
            eng.step_random(rng)
        else:
            eng.step(act(eng.legal_mask, eng.to_act, eng.state))
        # (np.count_nonzero: a direct C call, a few times cheaper than .sum()/.any() at B=1)
        ended = int(np.count_nonzero(eng.hand_over))
        if ended and np.count_nonzero(eng.terminated):
            eng.reset(games=eng.terminated.copy())
        return ended

    return eng, one_step, warm_up(one_step, batch, seconds)


def bench_engine(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
) -> dict:
    """Play ``policy`` on ``batch`` games for about ``seconds``; autoreset finished games.

    ``claim_round``: :attr:`RulesConfig.claim_round` ("options" or "all", docs/rules.md §10).

    Returns:
        dict with ``batch``, ``layout``, ``claim_round``, ``policy``, ``hands``,
        ``decisions``, ``decisions_per_hand``, ``steps``, ``seconds``, ``hands_per_s``,
        ``decisions_per_s`` (wall clock) and ``cpu_seconds``, ``hands_per_cpu_s`` (process
        CPU time: the fair figure on a shared machine), ``scorer_runs_per_hand`` (exact
        scorer runs, i.e. score-cache misses) and ``hu_decisions``
        (:attr:`MCREngine.hu_decisions` over the timed part).
    """
    eng, one_step, warm = _warm_engine(batch, seconds, layout, seed, claim_round, policy)
    hands = decisions = steps = 0
    misses0 = score_cache_info()["misses"]
    hu0 = eng.hu_decisions
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        decisions += int(np.count_nonzero(eng.to_act))
        hands += one_step()
        steps += 1
        if steps % 16 == 0 and time.perf_counter() - t0 >= seconds:
            break
    return {
        "batch": batch,
        "layout": layout,
        "claim_round": claim_round,
        "policy": policy,
        "hands": hands,
        "decisions": decisions,
        "decisions_per_hand": round(decisions / max(hands, 1), 2),
        "steps": steps,
        **warm,
        **_rates(hands, decisions, t0, c0),
        # exact scorer runs (score-cache misses) per hand, and how the Hu legality of the
        # complete hands met was decided (compiled 8-point bound or exact scorer)
        "scorer_runs_per_hand": round((score_cache_info()["misses"] - misses0) / max(hands, 1), 3),
        "hu_decisions": {k: v - hu0[k] for k, v in eng.hu_decisions.items()},
    }


def bench_env(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
    workers: int = 0,
    obs_dtype: str = "float32",
    backend: str = "process",
    spin: float | None = None,
    first_game: int = 0,
    ready=None,
) -> dict:
    """The RL path: :class:`mcr_env.envs.batch.MCRBatchEnv` (planes-v0 observations of the
    acting seats (``observe="packed"``), masks, settlement rewards, same-step autoreset)
    under ``policy`` (``uniform_env``: drawn in the env, module docstring; greedy reads the
    acting seats' own hands from the env's engine, so it needs ``workers`` = 0); with
    ``workers`` = k >= 1 the same as k shards (:class:`mcr_env.envs.sharded.ShardedBatchEnv`,
    ``copy_obs=False`` views) on ``backend``
    ``"process"`` (k worker processes) or ``"thread"`` (the caller runs shard 0, k - 1 helper
    threads the others). The policy runs in the caller, as in a rollout (but ``uniform_env``).
    ``obs_dtype``: the env's observation dtype (``"uint8"``: compact planes). ``spin``: the
    process backend's polling before its waits block (None: its default). ``first_game``:
    global index of table 0 (:class:`MCRBatchEnv` ``first_game``; the walls and, with
    ``uniform_env``, the keyed draws of those tables). ``ready``: called after the warm-up,
    right before the timing starts (:func:`bench_independent`'s start barrier).

    Returns:
        dict like :func:`bench_engine` (``hands_per_s``, ``decisions_per_s``,
        ``decisions_per_hand``, ``hands_per_cpu_s``) plus ``backend`` (``"inprocess"`` for
        k = 0), ``encoder`` and ``observations`` (acting-seat observations encoded); with
        k >= 1 also ``worker_cpu_seconds`` (per shard), ``parent_cpu_seconds`` (the caller's
        CPU outside the shards: policy, dispatch, gathering),
        ``decisions_per_total_cpu_s`` (every process and thread) and
        ``decisions_per_critical_cpu_s`` (parent + slowest shard: what an idle machine with
        a core per shard would give, GIL waits of the thread backend not included).
    """
    from mcr_env.envs.sharded import keyed_random_actions, make_batch_env

    kw = {"copy_obs": False, "backend": backend} if workers else {}
    if first_game:
        kw["first_game"] = first_game
    if workers and backend == "process" and spin is not None:
        kw["spin"] = spin
    if obs_dtype != "float32":
        kw["obs_dtype"] = obs_dtype
    config = RulesConfig(wall_layout=layout, claim_round=claim_round)
    env = make_batch_env(
        batch, workers, config=config, observe="packed", claim_round=claim_round, **kw
    )
    obs, _ = env.reset(seed=seed)
    if policy == "greedy" and workers:
        raise ValueError("--policy greedy reads the engine's hands: use it with --workers 0")
    st = None if workers else env.engine.state
    if policy == "uniform_env":
        steps_done = 0

        def env_step():
            nonlocal steps_done
            steps_done += 1
            if workers:
                return env.step_random(seed)
            acts = keyed_random_actions(
                obs["action_mask"], obs["to_act"], seed, steps_done - 1, first_game
            )
            return env.step(acts)

    else:
        act = _policy(policy, np.random.default_rng(seed))

        def env_step():
            return env.step(act(obs["action_mask"].view(bool), obs["to_act"], st))

    def one_step() -> int:
        nonlocal obs
        obs, _, _, _, info = env_step()
        return int(info["hand_over"].sum())

    warm = warm_up(one_step, batch, seconds)
    if ready is not None:
        ready()
    hands = decisions = steps = 0
    w0 = env.worker_cpu_seconds() if workers else []
    t0 = time.perf_counter()
    c0 = time.process_time()
    own0 = time.thread_time()
    while True:
        decisions += int(obs["to_act"].sum())
        obs, _, _, _, info = env_step()
        steps += 1
        hands += int(info["hand_over"].sum())
        if steps % 16 == 0 and time.perf_counter() - t0 >= seconds:
            break
    own = time.thread_time() - own0
    rates = _rates(hands, decisions, t0, c0)  # CPU time of this process (all its threads)
    if workers:
        # CPU time of the workers too: on a loaded machine the critical path of a step in CPU
        # seconds (parent + slowest worker) says what an idle machine would do
        wcpu = [c - w for c, w in zip(env.worker_cpu_seconds(), w0)]
        # this thread served shard 0; this process's time has it (and every shard thread's)
        parent, total = own - wcpu[0], rates["cpu_seconds"]
        if backend == "process":  # plus the worker processes of shards 1..k-1
            total += sum(wcpu[1:])
        rates["worker_cpu_seconds"] = [round(c, 3) for c in wcpu]
        rates["parent_cpu_seconds"] = round(parent, 3)
        rates["decisions_per_total_cpu_s"] = round(decisions / total, 1)
        rates["decisions_per_critical_cpu_s"] = round(decisions / (parent + max(wcpu)), 1)
        env.close()
    else:
        rates["decisions_per_total_cpu_s"] = rates["decisions_per_critical_cpu_s"] = round(
            decisions / rates["cpu_seconds"], 1
        )
    return {
        "batch": batch,
        "layout": layout,
        "claim_round": claim_round,
        "policy": policy,
        "workers": workers,
        "backend": backend if workers else "inprocess",
        "spin": env.spin if workers and backend == "process" else None,
        "encoder": env.encoder.id,
        "obs_dtype": obs_dtype,
        "hands": hands,
        "decisions": decisions,
        "decisions_per_hand": round(decisions / max(hands, 1), 2),
        "observations": decisions,
        "steps": steps,
        **warm,
        **rates,
    }


def _cores() -> list[int]:
    """The CPUs this process may run on, ascending (all of ``os.cpu_count()`` without
    ``sched_getaffinity``)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def bench_independent(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
    workers: int = 1,
    obs_dtype: str = "float32",
    pin: bool = True,
) -> dict:
    """The hardware's ceiling for ``workers`` = n shards: n independent in-process env
    processes at once, each :func:`bench_env` with ``workers=0`` on ``batch // n`` tables
    (the share of a k = n shard: process i plays tables ``i * batch // n ..`` via
    ``first_game``, so with ``uniform_env`` exactly the games of the sharded env's shard i),
    process i pinned to the i-th CPU of this process's affinity (``pin``), nothing shared
    between them (no IPC, no handoff, no caller). Every process warms up, then all start
    their ``seconds`` of timing together (each reports ready on its stdout and waits for a
    go line on its stdin). Whatever n independent processes lose against one (memory
    bandwidth, shared caches, the load) no sharding can win back.

    Returns:
        dict like :func:`bench_env` (``backend: "independent"``): ``decisions_per_s`` (the
        sum of the processes' wall-clock rates), ``decisions_per_critical_cpu_s`` (the sum of
        each process's decisions per CPU second: what an otherwise idle machine with a core
        per process gives), ``decisions_per_total_cpu_s`` (all decisions over all CPU
        seconds), ``hands``, ``decisions``, ``process_rows`` (each process's
        ``decisions_per_s``, ``decisions_per_cpu_s``, ``cpu``) and ``cores``.

    Raises:
        ValueError: ``workers < 1`` or more than ``batch``. RuntimeError: a process failed
            (its stderr in the message).
    """
    if workers < 1 or workers > batch:
        raise ValueError(f"independent processes must be 1..batch = {batch}, got {workers}")
    cores = _cores()
    base, extra = divmod(batch, workers)
    procs, los = [], []
    lo = 0
    for i in range(workers):
        n = base + (1 if i < extra else 0)
        job = {
            "batch": n,
            "seconds": seconds,
            "layout": layout,
            "seed": seed,
            "claim_round": claim_round,
            "policy": policy,
            "obs_dtype": obs_dtype,
            "first_game": lo,
            "core": cores[i % len(cores)] if pin else None,
        }
        los.append(lo)
        lo += n
        procs.append(
            subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--independent-child", json.dumps(job)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        for p in procs:  # every process warmed up before anyone's timing starts
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"independent process failed: {line}{p.stderr.read()}")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        rows = []
        for p in procs:
            out, err = p.communicate(timeout=10 * seconds + 60)
            if p.returncode != 0:
                raise RuntimeError(f"independent process failed ({p.returncode}): {err}")
            rows.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    decisions = sum(r["decisions"] for r in rows)
    cpu = sum(r["cpu_seconds"] for r in rows)
    return {
        "batch": batch,
        "layout": layout,
        "claim_round": claim_round,
        "policy": policy,
        "workers": workers,
        "backend": "independent",
        "encoder": rows[0]["encoder"],
        "obs_dtype": obs_dtype,
        "hands": sum(r["hands"] for r in rows),
        "decisions": decisions,
        "decisions_per_hand": round(decisions / max(sum(r["hands"] for r in rows), 1), 2),
        "seconds": round(max(r["seconds"] for r in rows), 3),
        "decisions_per_s": round(sum(r["decisions_per_s"] for r in rows), 1),
        "cpu_seconds": round(cpu, 3),
        "decisions_per_total_cpu_s": round(decisions / cpu, 1),
        "decisions_per_critical_cpu_s": round(
            sum(r["decisions"] / r["cpu_seconds"] for r in rows), 1
        ),
        "hands_per_s": round(sum(r["hands_per_s"] for r in rows), 1),
        "cores": [cores[i % len(cores)] if pin else None for i in range(workers)],
        "process_rows": [
            {
                "first_game": lo,
                "batch": r["batch"],
                "decisions_per_s": r["decisions_per_s"],
                "decisions_per_cpu_s": round(r["decisions"] / r["cpu_seconds"], 1),
                "cpu_seconds": r["cpu_seconds"],
                "warmup_steady": r["warmup_steady"],
            }
            for lo, r in zip(los, rows)
        ],
    }


def _independent_child(job_json: str) -> None:
    """One process of :func:`bench_independent`: pin, warm up, print ``ready``, wait for a
    line on stdin, time, print the :func:`bench_env` row as JSON."""
    job = json.loads(job_json)
    core = job.pop("core")
    if core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})

    def ready() -> None:
        print("ready", flush=True)
        sys.stdin.readline()

    b, sec = job.pop("batch"), job.pop("seconds")
    args = (job.pop("layout"), job.pop("seed"), job.pop("claim_round"), job.pop("policy"))
    row = bench_env(b, sec, *args, workers=0, ready=ready, **job)
    print(json.dumps(row), flush=True)


ENCODE_IDS = ("planes-v0", "oracle-v0", "planes-v1")
"""Encoders timed by the ``encode`` path, in this order."""


def bench_encode(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
) -> dict:
    """The encoders alone: ``encoder.encode(state, games, seats)`` (the public call, with its
    argument checks) of every acting seat along ``policy`` play on ``batch`` tables, for each
    encoder of :data:`ENCODE_IDS`; only the encode calls are timed (process CPU time), about
    ``seconds / 3`` each.

    Returns:
        dict with ``rows_per_cpu_s`` and ``us_per_call`` per encoder id and
        ``rows_per_call`` (mean acting seats per step).
    """
    from mcr_env.encoding import get_encoder

    eng, one_step, warm = _warm_engine(batch, seconds, layout, seed, claim_round, policy)
    encoders = [get_encoder(e) for e in ENCODE_IDS]
    for enc in encoders:  # first calls (numba cache loads) outside the timing
        enc.encode(eng.state, np.zeros(1, dtype=np.intp), np.zeros(1, dtype=np.intp))
    out: dict = {"batch": batch, "layout": layout, "claim_round": claim_round, "policy": policy}
    rows = calls = 0
    for enc in encoders:
        cpu = 0.0
        n = k = 0
        t_end = time.perf_counter() + seconds / len(encoders)
        while time.perf_counter() < t_end or k < 16:
            g, s = np.nonzero(eng.to_act)
            c0 = time.process_time()
            enc.encode(eng.state, g, s)
            cpu += time.process_time() - c0
            n += g.size
            k += 1
            one_step()
        out[f"{enc.id}_rows_per_cpu_s"] = round(n / max(cpu, 1e-9), 1)
        out[f"{enc.id}_us_per_call"] = round(cpu / k * 1e6, 2)
        rows += n
        calls += k
    out["rows_per_call"] = round(rows / calls, 1)
    out.update(warm)
    return out


def bench_gym(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
) -> dict:
    """The single-table Gymnasium path: ``gymnasium.make("mcr_env/MCR-v0")`` (one learner
    seat, the three others played inside ``step`` by the default random opponents, planes-v0
    observations), the learner answering a uniformly random legal action; ``batch`` must be 1.

    Returns:
        dict with ``learner_steps``, ``learner_steps_per_s``, ``hands``, ``hands_per_s``,
        ``cpu_seconds``, ``learner_steps_per_cpu_s``.
    """
    import gymnasium as gym

    import mcr_env  # noqa: F401  (registers MCR-v0)

    if batch != 1 or policy != "uniform":
        raise ValueError("the gym path is one table (--batch 1) with --policy uniform")
    env = gym.make("mcr_env/MCR-v0", config=RulesConfig(wall_layout=layout))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps = hands = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, terminated, truncated, _ = env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        if terminated or truncated:
            hands += 1
            obs, _ = env.reset()
        if steps % 64 == 0 and time.perf_counter() - t0 >= seconds:
            break
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "batch": 1,
        "layout": layout,
        "claim_round": claim_round,
        "policy": policy,
        "env": "mcr_env/MCR-v0",
        "learner_steps": steps,
        "hands": hands,
        "seconds": round(dt, 3),
        "learner_steps_per_s": round(steps / dt, 1),
        "hands_per_s": round(hands / dt, 1),
        "cpu_seconds": round(cpu, 3),
        "learner_steps_per_cpu_s": round(steps / cpu, 1),
    }


def bench_sb3(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
) -> dict:
    """The Stable-Baselines3 path alone: :class:`mcr_env.envs.sb3.MCRSB3VecEnv` with ``batch``
    tables (one learner seat each, three random opponents played inside ``step``, planes-v0
    observations, SB3's autoreset), the learner answering a uniformly random legal action from
    ``action_masks()`` (what ``MaskablePPO`` reads); no network.

    Returns:
        dict with ``batch``, ``vec_steps``, ``learner_steps`` (= batch x vec steps),
        ``learner_steps_per_s``, ``hands``, ``hands_per_s``, ``cpu_seconds``,
        ``learner_steps_per_cpu_s``.
    """
    from mcr_env.envs.sb3 import MCRSB3VecEnv

    if policy != "uniform":
        raise ValueError("the sb3 path plays a random learner: --policy uniform")
    env = MCRSB3VecEnv(batch, opponents="random", config=RulesConfig(wall_layout=layout))
    env.seed(seed)
    env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(10):  # warm-up
        env.step(sample_legal_actions(env.action_masks(), rng))
    steps = hands = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        _, _, dones, _ = env.step(sample_legal_actions(env.action_masks(), rng))
        steps += 1
        hands += int(dones.sum())
        if steps % 8 == 0 and time.perf_counter() - t0 >= seconds:
            break
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    env.close()
    return {
        "batch": batch,
        "layout": layout,
        "claim_round": "options",  # MCR-v0's learner sees only its own decisions
        "policy": policy,
        "env": "mcr_env.envs.sb3.MCRSB3VecEnv",
        "opponents": "random",
        "vec_steps": steps,
        "learner_steps": steps * batch,
        "hands": hands,
        "seconds": round(dt, 3),
        "learner_steps_per_s": round(steps * batch / dt, 1),
        "hands_per_s": round(hands / dt, 1),
        "cpu_seconds": round(cpu, 3),
        "learner_steps_per_cpu_s": round(steps * batch / cpu, 1),
    }


LOCKSTEP_WARMUP_STEPS = 250
"""Steps every env of :func:`bench_lockstep` plays before its timing (about 2.5 hands per table
with ``claim_round="options"``: hand ends spread over the steps, score cache warm)."""


def bench_lockstep(
    batch: int,
    steps: int,
    configs: list[tuple[int, str]],
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    policy: str = "uniform",
) -> list[dict]:
    """The sharding overhead on identical work, robust to a loaded machine.

    Every env of ``configs`` (``(k, backend)``; k = 0: :class:`MCRBatchEnv` in process, else
    :class:`mcr_env.envs.sharded.ShardedBatchEnv` with k shards on ``backend``; packed
    planes-v0 observations, same-step autoreset, ``copy_obs=False``) plays the same games
    (same seed, and the uniform policy drawn from a generator of the same seed on each env's
    own masks: results are identical for every k, so so are the actions; ``policy=
    "uniform_env"``: drawn inside the env as in :func:`bench_env`) in lockstep: at
    every step each env's policy + ``step`` is timed alone, the envs in alternating order.
    Rows measured at separate times on a shared machine differ by +-20% from the load alone;
    here every env meets the same load and the same work step by step.

    Returns:
        one ``lockstep`` row per config (``wall_ms_per_step``, ``cpu_ms_per_step`` (this
        process's CPU, all its threads, plus the worker processes'), ``critical_cpu_ms_per_step``
        (the caller's CPU outside the shards + the slowest shard's), its two parts
        ``parent_cpu_ms_per_step`` (policy, dispatch, gathering) and ``shard_cpu_ms_per_step``
        (each shard's), ``decisions_per_step``),
        then one ``lockstep_summary`` row per backend with ``overhead_k1_cpu`` /
        ``overhead_k1_wall`` (1 worker vs in process: ``time(k=1) / time(k=0) - 1``) and
        ``speedup_<k>_vs_1_wall`` / ``speedup_<k>_vs_1_critical_cpu`` (time(k=1) / time(k)).
    """
    from mcr_env.envs.batch import MCRBatchEnv
    from mcr_env.envs.sharded import ShardedBatchEnv, keyed_random_actions

    config = RulesConfig(wall_layout=layout, claim_round=claim_round)
    kw = {"config": config, "observe": "packed", "claim_round": claim_round}
    envs = [
        MCRBatchEnv(batch, **kw)
        if k == 0
        else ShardedBatchEnv(batch, num_workers=k, copy_obs=False, backend=be, **kw)
        for k, be in configs
    ]
    try:
        obs = [env.reset(seed=seed)[0] for env in envs]
        rngs = [np.random.default_rng(seed) for _ in envs]
        n = len(envs)
        wall, cpu, own = [0.0] * n, [0.0] * n, [0.0] * n
        w0 = [env.worker_cpu_seconds() if k else [] for env, (k, _) in zip(envs, configs)]
        decisions = 0
        for t in range(LOCKSTEP_WARMUP_STEPS + steps):
            timed = t >= LOCKSTEP_WARMUP_STEPS
            if t == LOCKSTEP_WARMUP_STEPS:
                w0 = [env.worker_cpu_seconds() if k else [] for env, (k, _) in zip(envs, configs)]
            decisions += int(obs[0]["to_act"].sum()) if timed else 0
            for i in range(n) if t % 2 == 0 else reversed(range(n)):
                t0, c0, o0 = time.perf_counter(), time.process_time(), time.thread_time()
                o = obs[i]
                if policy == "uniform":
                    acts = random_legal_actions(o["action_mask"].view(bool), o["to_act"], rngs[i])
                    obs[i] = envs[i].step(acts)[0]
                elif configs[i][0]:
                    obs[i] = envs[i].step_random(seed)[0]
                else:
                    acts = keyed_random_actions(o["action_mask"], o["to_act"], seed, t)
                    obs[i] = envs[i].step(acts)[0]
                if timed:
                    wall[i] += time.perf_counter() - t0
                    cpu[i] += time.process_time() - c0
                    own[i] += time.thread_time() - o0
        for o in obs[1:]:  # the same games: the same acting seats at the end
            if not np.array_equal(o["to_act"], obs[0]["to_act"]):
                raise RuntimeError("lockstep envs diverged: the backends' results differ")
        rows = []
        for i, ((k, be), env) in enumerate(zip(configs, envs)):
            wcpu = [c - w for c, w in zip(env.worker_cpu_seconds(), w0[i])] if k else []
            if k:  # the caller served shard 0; threads' CPU is in this process's
                total, parent = (
                    cpu[i] + (sum(wcpu[1:]) if be == "process" else 0.0),
                    own[i] - wcpu[0],
                )
            else:
                total, parent = cpu[i], cpu[i]
            critical = parent + (max(wcpu) if wcpu else 0.0)
            rows.append(
                {
                    "bench": "lockstep",
                    "batch": batch,
                    "layout": layout,
                    "claim_round": claim_round,
                    "policy": policy,
                    "workers": k,
                    "backend": be if k else "inprocess",
                    "steps": steps,
                    "decisions_per_step": round(decisions / steps, 1),
                    "wall_ms_per_step": round(wall[i] / steps * 1e3, 4),
                    "cpu_ms_per_step": round(total / steps * 1e3, 4),
                    "critical_cpu_ms_per_step": round(critical / steps * 1e3, 4),
                    "parent_cpu_ms_per_step": round(parent / steps * 1e3, 4),
                    "shard_cpu_ms_per_step": [round(c / steps * 1e3, 4) for c in wcpu],
                    "decisions_per_s": round(decisions / wall[i], 1),
                    "decisions_per_cpu_s": round(decisions / total, 1),
                }
            )
    finally:
        for env in envs:
            if hasattr(env, "close"):
                env.close()
    return rows + lockstep_summary(rows)


def lockstep_summary(rows: list[dict]) -> list[dict]:
    """Per backend of the :func:`bench_lockstep` rows: the k = 1 overhead against the
    in-process row and the speed-ups of k workers over 1 (see there)."""
    base = next((r for r in rows if r["workers"] == 0), None)
    out = []
    for be in dict.fromkeys(r["backend"] for r in rows if r["workers"]):
        by_k = {r["workers"]: r for r in rows if r["backend"] == be}
        row: dict = {
            "bench": "lockstep_summary",
            "backend": be,
            "batch": rows[0]["batch"],
            "policy": rows[0]["policy"],
        }
        one = by_k.get(1)
        if one is not None and base is not None:
            row["overhead_k1_cpu"] = round(one["cpu_ms_per_step"] / base["cpu_ms_per_step"] - 1, 4)
            row["overhead_k1_wall"] = round(
                one["wall_ms_per_step"] / base["wall_ms_per_step"] - 1, 4
            )
        if one is not None:
            for k, r in sorted(by_k.items()):
                if k > 1:
                    row[f"speedup_{k}_vs_1_wall"] = round(
                        one["wall_ms_per_step"] / r["wall_ms_per_step"], 3
                    )
                    row[f"speedup_{k}_vs_1_critical_cpu"] = round(
                        one["critical_cpu_ms_per_step"] / r["critical_cpu_ms_per_step"], 3
                    )
        row["loadavg_1m"] = round(os.getloadavg()[0], 2)
        out.append(row)
    return out


def scaling_summary(rows: list[dict]) -> list[dict]:
    """The issue's scaling table from interleaved ``--workers`` rows: per (policy, batch,
    claim_round) and shard ``backend`` (rows without one: ``"process"``; the k = 0 in-process
    rows belong to every backend's summary), the median over repeats of each k's rates, and

    * ``speedup_wall_<k>_vs_1``: wall-clock decisions/s of k workers over 1 worker;
    * ``speedup_critical_cpu_<k>_vs_1``: the same from critical-path CPU seconds (parent +
      slowest worker: what an otherwise idle machine gives, robust to the load);
    * ``overhead_k1_total_cpu``: 1 - (decisions per CPU second of parent + worker at k=1) /
      (decisions per CPU second in process), the per-worker cost of sharding; and
      ``overhead_k1_wall`` from wall-clock rates (needs a quiet machine).
    """
    groups: dict[tuple, dict[str, dict[int, list[dict]]]] = {}
    for r in rows:
        key = (r["policy"], r["batch"], r["claim_round"], r.get("obs_dtype", "float32"))
        by_backend = groups.setdefault(key, {})
        if r["workers"] == 0:
            by_backend.setdefault(None, {}).setdefault(0, []).append(r)
        else:
            be = r.get("backend", "process")
            by_backend.setdefault(be, {}).setdefault(r["workers"], []).append(r)
    flat = []
    for (pol, b, cr, dt), by_backend in groups.items():
        base = by_backend.pop(None, {})
        for be, by_k in by_backend.items() or [(None, {})]:
            flat.append((pol, b, cr, dt, be, {**base, **by_k}))
    out = []
    for pol, b, cr, dt, be, by_k in flat:
        med = {
            k: {
                m: round(float(np.median([r[m] for r in rs])), 1)
                for m in (
                    "decisions_per_s",
                    "decisions_per_total_cpu_s",
                    "decisions_per_critical_cpu_s",
                )
            }
            for k, rs in sorted(by_k.items())
        }
        row: dict = {
            "bench": "scaling",
            "policy": pol,
            "batch": b,
            "claim_round": cr,
            "obs_dtype": dt,
            "backend": be,
            "repeats": min(len(rs) for rs in by_k.values()),
            "median": {str(k): v for k, v in med.items()},
        }
        if 1 in med:
            for k in med:
                if k > 1:
                    row[f"speedup_wall_{k}_vs_1"] = round(
                        med[k]["decisions_per_s"] / med[1]["decisions_per_s"], 3
                    )
                    row[f"speedup_critical_cpu_{k}_vs_1"] = round(
                        med[k]["decisions_per_critical_cpu_s"]
                        / med[1]["decisions_per_critical_cpu_s"],
                        3,
                    )
            if 0 in med:
                row["overhead_k1_total_cpu"] = round(
                    1 - med[1]["decisions_per_total_cpu_s"] / med[0]["decisions_per_total_cpu_s"], 4
                )
                row["overhead_k1_wall"] = round(
                    1 - med[1]["decisions_per_s"] / med[0]["decisions_per_s"], 4
                )
        row["loadavg_1m"] = round(os.getloadavg()[0], 2)
        out.append(row)
    _vs_ceiling(out)
    return out


def _vs_ceiling(summaries: list[dict]) -> None:
    """Next to each shard backend's summary, the ``independent`` one of the same (policy,
    batch, claim_round, obs_dtype) if any (:func:`bench_independent`, the hardware's
    ceiling): ``ceiling_wall_<k>_vs_1`` (its speed-up) and ``vs_independent_wall_<k>`` /
    ``vs_independent_critical_cpu_<k>`` (the backend's k-worker rate over k independent
    processes' rate: 1.0 = sharding loses nothing against the ceiling)."""
    ceilings = {
        (r["policy"], r["batch"], r["claim_round"], r["obs_dtype"]): r
        for r in summaries
        if r["backend"] == "independent"
    }
    for r in summaries:
        ceil = ceilings.get((r["policy"], r["batch"], r["claim_round"], r["obs_dtype"]))
        if ceil is None or r is ceil:
            continue
        for k, med in r["median"].items():
            if k in ("0", "1") or k not in ceil["median"]:
                continue
            if f"speedup_wall_{k}_vs_1" in ceil:
                r[f"ceiling_wall_{k}_vs_1"] = ceil[f"speedup_wall_{k}_vs_1"]
            for m, name in (
                ("decisions_per_s", "wall"),
                ("decisions_per_critical_cpu_s", "critical_cpu"),
            ):
                r[f"vs_independent_{name}_{k}"] = round(med[m] / ceil["median"][k][m], 3)


def _backend_labels(backends: list[str], spins: list[float] | None) -> list[str]:
    """The backend rows to run: ``process`` once per ``--spin`` value when several are given
    (labels ``process/spin=S``), every other backend once."""
    out = []
    for be in backends:
        if be == "process" and spins and len(spins) > 1:
            out += [f"process/spin={s:g}" for s in spins]
        elif be == "process" and spins:
            out.append(f"process/spin={spins[0]:g}")
        else:
            out.append(be)
    return out


def _split_label(label: str) -> dict:
    """``bench_env`` keywords of a backend label of :func:`_backend_labels`."""
    be, _, spin = label.partition("/spin=")
    return {"backend": be, "spin": float(spin)} if spin else {"backend": be}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument(
        "--policy",
        nargs="+",
        default=["uniform"],
        choices=["uniform", "uniform_env", "greedy"],
        help="uniform: drawn in the caller; uniform_env: drawn inside the env (env path; "
        "ShardedBatchEnv.step_random); greedy: compiled greedy play (in process only)",
    )
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--layout", default="official", choices=["official", "botzone"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--claim-round",
        nargs="+",
        default=["options"],
        choices=["options", "all"],
        help="RulesConfig.claim_round: who is asked in claim rounds (several: run each, "
        "interleaved per batch size)",
    )
    ap.add_argument(
        "--paths",
        nargs="+",
        default=["engine", "env"],
        choices=["engine", "env", "gym", "sb3", "encode"],
        help="engine: MCREngine alone; env: MCRBatchEnv (observations, masks, rewards); gym: "
        "the Gymnasium MCR-v0 single-table env (learner steps, use with --batch 1); sb3: the "
        "SB3 VecEnv MCRSB3VecEnv over --batch tables (learner steps, random opponents); encode: "
        "the encoders alone (planes-v0, oracle-v0, planes-v1 rows per CPU-second of the "
        "acting seats)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=None,
        help="env path as k shards for each k given (0 = in-process), on every --backends; "
        "rows of all k interleaved, --repeat times, then one scaling row per backend",
    )
    ap.add_argument(
        "--backends",
        nargs="+",
        default=["process", "thread"],
        choices=["process", "thread"],
        help="ShardedBatchEnv backends of the k >= 1 --workers rows (default both): k worker "
        "processes, or threads of this process (the caller runs shard 0)",
    )
    ap.add_argument(
        "--spin",
        type=float,
        nargs="+",
        default=None,
        help="process backend: ShardedBatchEnv spin values (seconds a wait polls before it "
        "blocks; default: its default); several: rows of each, backend 'process/spin=S'",
    )
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the interleaved --workers")
    ap.add_argument(
        "--obs-dtype",
        nargs="+",
        default=["float32"],
        choices=["float32", "uint8"],
        help="env path: MCRBatchEnv obs_dtype (several: one row each, interleaved per batch)",
    )
    ap.add_argument(
        "--lockstep",
        type=int,
        default=300,
        help="with --workers: also time every (k, backend) env in lockstep on the same games "
        "for this many steps (bench_lockstep: overhead and speed-ups robust to a loaded "
        "machine; the uniform and uniform_env policies); 0 = off",
    )
    ap.add_argument(
        "--independent",
        type=int,
        nargs="+",
        default=None,
        help="env path: the ceiling of n shards, n independent in-process env processes of "
        "batch/n tables each at once, pinned one per CPU (bench_independent; backend "
        "'independent' in the scaling rows, interleaved with the --workers rows)",
    )
    ap.add_argument("--no-pin", action="store_true", help="--independent: do not pin")
    ap.add_argument("--independent-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.independent_child is not None:
        _independent_child(args.independent_child)
        return
    meta = _meta()
    benches = {
        "engine": bench_engine,
        "env": bench_env,
        "gym": bench_gym,
        "sb3": bench_sb3,
        "encode": bench_encode,
    }
    runs = [
        (p, pol, b, cr, None, dt)
        for p in args.paths
        for pol in args.policy
        for b in args.batch
        for cr in args.claim_round
        for dt in (args.obs_dtype if p == "env" else ["float32"])
    ]
    if args.workers is not None or args.independent is not None:
        kinds = [
            (k, be)
            for k in args.workers or []
            for be in (["process"] if k == 0 else _backend_labels(args.backends, args.spin))
        ] + [(n, "independent") for n in args.independent or []]
        runs = [
            ("env", pol, b, cr, kind, dt)
            for _ in range(args.repeat)
            for pol in args.policy
            for b in args.batch
            for cr in args.claim_round
            for dt in args.obs_dtype
            for kind in kinds
        ]
    scaling = []
    for path, pol, b, cr, k, dt in runs:
        if path == "gym" and (b != 1 or pol != "uniform"):
            continue  # one table, random learner: the other batch sizes and policies skip it
        if path == "sb3" and (pol != "uniform" or cr != args.claim_round[0]):
            continue  # random learner; MCR-v0 keeps its own claim rounds: one row per batch
        if pol == "uniform_env" and path != "env":
            continue  # drawn inside the batch env: the env path only
        extra = {} if k is None else {"workers": k[0], **_split_label(k[1])}
        if dt != "float32":
            extra["obs_dtype"] = dt
        fn = benches[path]
        if k is not None and k[1] == "independent":
            path, fn = "independent", bench_independent
            del extra["backend"]
            extra["pin"] = not args.no_pin
        row = {"bench": path, **fn(b, args.seconds, args.layout, args.seed, cr, pol, **extra)}
        if k is not None and k[0]:
            row["backend"] = k[1]  # with several --spin values: process/spin=S
        cache = score_cache_info()
        row["score_cache_hit_rate"] = round(cache["hit_rate"], 4)
        row["score_cache_lookups"] = cache["hits"] + cache["misses"]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        row["peak_rss_mb"] = round(rss, 1)  # process peak so far (earlier rows too)
        row["loadavg_1m"] = round(os.getloadavg()[0], 2)  # the machine's load during the row
        row.update(meta)
        print(json.dumps(row), flush=True)
        if k is not None:
            scaling.append(row)
    for row in scaling_summary(scaling):
        row.update(meta)
        print(json.dumps(row), flush=True)
    lock_policies = [p for p in args.policy if p in ("uniform", "uniform_env")]
    if args.workers is not None and args.lockstep > 0:
        configs = [
            (k, be) for k in args.workers for be in (["process"] if k == 0 else args.backends)
        ]
        for pol in lock_policies:
            for b in args.batch:
                for cr in args.claim_round:
                    rows = bench_lockstep(
                        b, args.lockstep, configs, args.layout, args.seed, cr, pol
                    )
                    for row in rows:
                        row.update(meta)
                        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

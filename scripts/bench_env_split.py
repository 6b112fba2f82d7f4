"""Where the time of one :class:`mcr_env.envs.batch.MCRBatchEnv` step goes (docs/design.md
"Performance"): engine step, engine resets of finished tables, the encoder, and the rest of the
env step ("glue": copies of masks and outputs, the acting pairs, rewards, autoreset
bookkeeping), plus the policy that picks the actions, in CPU milliseconds per step.

Prints one JSON line per (batch size, obs dtype) with ``ms_<part>`` for ``policy``,
``engine``, ``reset``, ``encode``, ``glue`` and ``total`` (``glue = total - policy - engine -
reset - encode``), ``rows_per_step`` (observations encoded per step: the acting seats plus
the final observations of finished tables), ``hands_per_step``, ``hands_per_cpu_s`` and the
machine, versions and commit (as ``scripts/bench_engine.py``). The env runs as the ``env``
path of ``scripts/bench_engine.py`` (``observe="packed"``, uniformly random legal actions).
The parts are timed with ``time.process_time`` around the engine's ``step`` / ``reset`` and
the encoder's ``encode_rows`` (the timer calls themselves land in ``glue``). Compare two
trees by running this script alternately with each on ``PYTHONPATH``, pinned to one core::

    taskset -c 0 .venv/bin/python scripts/bench_env_split.py --batch 1024 \
        --obs-dtype float32 uint8 --seconds 6
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from bench_args import nonnegative_int, positive_float, positive_int
from bench_engine import _meta

from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.envs.batch import MCRBatchEnv

PARTS = ("policy", "engine", "reset", "encode", "glue")


def split_env_step(
    batch: int,
    seconds: float,
    obs_dtype: str = "float32",
    claim_round: str = "options",
    seed: int = 0,
    warmup_steps: int = 300,
) -> dict:
    """Play ``warmup_steps`` steps, then about ``seconds`` of timed steps, and split them.

    Returns:
        dict with ``batch``, ``obs_dtype``, ``claim_round``, ``steps``, ``rows_per_step``,
        ``hands_per_step``, ``hands_per_cpu_s`` and ``ms_<part>`` per step for every part of
        :data:`PARTS` and ``ms_total`` (CPU milliseconds).
    """
    env = MCRBatchEnv(batch, observe="packed", claim_round=claim_round, obs_dtype=obs_dtype)
    clock = time.process_time
    acc = dict.fromkeys(("engine", "reset", "encode"), 0.0)
    rows = [0]
    eng, enc = env.engine, env.encoder
    step, reset, encode_rows = eng.step, eng.reset, enc.encode_rows

    def timed_step(*a, **k):
        t = clock()
        r = step(*a, **k)
        acc["engine"] += clock() - t
        return r

    def timed_reset(*a, **k):
        t = clock()
        r = reset(*a, **k)
        acc["reset"] += clock() - t
        return r

    def timed_encode(st, games, seats, out=None):
        t = clock()
        r = encode_rows(st, games, seats, out)
        acc["encode"] += clock() - t
        rows[0] += len(games)
        return r

    eng.step, eng.reset, enc.encode_rows = timed_step, timed_reset, timed_encode
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(warmup_steps):
            a = sample_legal_actions(obs["action_mask"].view(bool), rng, obs["to_act"])
            obs, *_ = env.step(a)
        for k in acc:
            acc[k] = 0.0
        rows[0] = 0
        hands = steps = 0
        policy = total = 0.0
        t_end = time.perf_counter() + seconds
        while steps < 16 or time.perf_counter() < t_end:
            t0 = clock()
            a = sample_legal_actions(obs["action_mask"].view(bool), rng, obs["to_act"])
            t1 = clock()
            obs, _, _, _, info = env.step(a)
            t2 = clock()
            policy += t1 - t0
            total += t2 - t0
            hands += int(np.count_nonzero(info["hand_over"]))
            steps += 1
    finally:
        eng.step, eng.reset, enc.encode_rows = step, reset, encode_rows
    parts = dict(acc, policy=policy)
    parts["glue"] = total - sum(parts.values())
    out = {
        "batch": batch,
        "obs_dtype": obs_dtype,
        "claim_round": claim_round,
        "steps": steps,
        "rows_per_step": round(rows[0] / steps, 1),
        "hands_per_step": round(hands / steps, 2),
        "hands_per_cpu_s": round(hands / total, 1),
    }
    out.update({f"ms_{p}": round(parts[p] / steps * 1e3, 4) for p in PARTS})
    out["ms_total"] = round(total / steps * 1e3, 4)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=positive_int, nargs="+", default=[1024])
    ap.add_argument("--obs-dtype", nargs="+", default=["float32", "uint8"])
    ap.add_argument("--claim-round", default="options", choices=["options", "all"])
    ap.add_argument("--seconds", type=positive_float, default=6.0)
    ap.add_argument("--warmup-steps", type=nonnegative_int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    meta = _meta()
    for b in args.batch:
        for dt in args.obs_dtype:
            row = split_env_step(
                b, args.seconds, dt, args.claim_round, args.seed, args.warmup_steps
            )
            print(json.dumps({**row, **meta}), flush=True)


if __name__ == "__main__":
    main()

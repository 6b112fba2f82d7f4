"""Botzone figures: the exported bot's start-up and decision times, and a duplicate evaluation
against an outside bot process with the answer times of both sides.

Prints one JSON line per measurement with the machine, versions and commit::

    taskset -c 0 .venv/bin/python scripts/bench_botzone.py export --games 20
    .venv/bin/python scripts/bench_botzone.py duplicate --cmd "python tiny_bot.py" --io simple \\
        --walls 200

``export``: a default-size policy (random weights) exported as a zip; ``startup_s`` /
``startup_cpu_s`` are the wall / CPU time of ``python bot.zip --once`` answering its first
request (median of 5 runs), ``decision_ms_*`` / ``decision_cpu_ms_*`` the wall / CPU time of the
bot's answers at its decisions over ``--games`` self-play games in one process importing only
the zip (numpy); on a loaded machine the CPU times are the ones to read. ``duplicate``:
``--agent`` (default ``rule``) against three copies of the ``--cmd`` bot (keep-running when it
supports it) on ``--walls`` walls x 4 rotations; ``ours_ms_per_decision`` is our agent's time
per decision (wall, and CPU: ``ours_cpu_ms_per_decision``), ``bot_ms_*`` the outside bot's
answer times (wall, round trip through its pipes) and ``bot_cpu_ms_per_request`` the CPU time
of all its processes (start-up included) per request it answered (decisions and notifications).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np  # noqa: E402
from bench_args import positive_int  # noqa: E402
from bench_engine import _meta  # noqa: E402

SELFPLAY = """
import json, sys, time, zipfile, io
import numpy as np
sys.path.insert(0, sys.argv[1])
from mcr_env.botzone.bot import BOTZONE_RULES, BotzoneBot
from mcr_env.botzone.judge import play_through_protocol
from mcr_env.botzone.numpy_policy import NumpyPolicyAgent
from mcr_env.engine import MCREngine
with zipfile.ZipFile(sys.argv[1]) as z:
    agent = NumpyPolicyAgent(dict(np.load(io.BytesIO(z.read("weights.npz")))))
games = int(sys.argv[2])
eng = MCREngine(games, BOTZONE_RULES)
eng.reset(seed=1)
bots = [[BotzoneBot(agent) for _ in range(4)] for _ in range(games)]
times, cpu = [], []
def respond(g, s, line):
    t, c = time.perf_counter(), time.process_time()
    r = bots[g][s].respond(line)
    if r != "PASS":
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return r
play_through_protocol(eng, respond)
print(json.dumps([times, cpu]))
"""


class Timed:
    """Wraps an agent and accumulates the time of its ``act`` calls and rows answered."""

    def __init__(self, agent):
        self.agent, self.seconds, self.cpu_seconds, self.rows = agent, 0.0, 0.0, 0
        self.name = agent.name
        self.needs_obs, self.needs_view = agent.needs_obs, agent.needs_view

    def act(self, obs, mask, view=None):
        t, c = time.perf_counter(), time.process_time()
        out = self.agent.act(obs, mask, view)
        self.seconds += time.perf_counter() - t
        self.cpu_seconds += time.process_time() - c
        self.rows += len(mask)
        return out


def bench_export(games: int) -> dict:
    import torch

    from baselines.botzone_export import export_submission
    from baselines.network import PolicyValueNet
    from mcr_env.encoding import get_encoder

    torch.manual_seed(0)
    net = PolicyValueNet(get_encoder("planes-v0").num_channels).eval()
    with tempfile.TemporaryDirectory() as d:
        zpath = export_submission(net, Path(d) / "bot.zip")
        starts, start_cpu = [], []
        for _ in range(5):
            t = time.perf_counter()
            c = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [sys.executable, str(zpath), "--once"],
                input="1\n0 1 0\n",
                capture_output=True,
                text=True,
                check=True,
            )
            c2 = resource.getrusage(resource.RUSAGE_CHILDREN)
            starts.append(time.perf_counter() - t)
            start_cpu.append(c2.ru_utime + c2.ru_stime - c.ru_utime - c.ru_stime)
        out = subprocess.run(
            [sys.executable, "-c", SELFPLAY, str(zpath), str(games)],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, cpu = (np.array(x) * 1e3 for x in json.loads(out.stdout.strip().splitlines()[-1]))
        size = zpath.stat().st_size
    return {
        "bench": "botzone_export",
        "zip_kib": size // 1024,
        "startup_s": statistics.median(starts),
        "startup_cpu_s": statistics.median(start_cpu),
        "games": games,
        "decisions": int(wall.size),
        "decision_ms_mean": float(wall.mean()),
        "decision_ms_p99": float(np.percentile(wall, 99)),
        "decision_ms_max": float(wall.max()),
        "decision_cpu_ms_mean": float(cpu.mean()),
        "decision_cpu_ms_p99": float(np.percentile(cpu, 99)),
        "decision_cpu_ms_max": float(cpu.max()),
    }


def bench_duplicate(cmd: str, io: str, walls: int, agent: str, batch: int) -> dict:
    from baselines.agents import make_agent
    from mcr_env.botzone.process import BotzoneProcessAgent
    from mcr_env.engine import RulesConfig
    from mcr_env.eval import duplicate_evaluate

    ours = Timed(make_agent(agent, seed=0))
    bot = BotzoneProcessAgent(cmd, io=io, name="outside-bot")
    rules = RulesConfig(wall_layout="botzone", scoring_profile="botzone", illegal_action="penalize")
    t = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        res = duplicate_evaluate(
            [ours, bot, bot, bot], walls, seed=0, batch_size=batch, rules=rules, progress=False
        )
    finally:
        bot.close()  # the processes are waited for: their CPU time is in RUSAGE_CHILDREN
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    bot_cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
    ms = np.array(bot.seconds) * 1e3
    s_ours, s_bot = res.stat(ours.name), res.stat("outside-bot")
    return {
        "bench": "botzone_duplicate",
        "cmd": cmd,
        "io": io,
        "walls": walls,
        "rotations": 4,
        "hands": int(res.points.shape[0] * res.points.shape[1]),
        "seconds": time.perf_counter() - t,
        "ours": ours.name,
        "ours_mean_points": s_ours.mean_points,
        "ours_ci95": [s_ours.ci95_low, s_ours.ci95_high],
        "ours_win_rate": s_ours.win_rate,
        "bot_mean_points": s_bot.mean_points,
        "incidents": len(bot.incidents),
        "bot_processes": bot.starts,
        "bot_requests": bot.requests,
        "ours_ms_per_decision": 1e3 * ours.seconds / max(ours.rows, 1),
        "ours_cpu_ms_per_decision": 1e3 * ours.cpu_seconds / max(ours.rows, 1),
        "bot_cpu_s": bot_cpu,
        "bot_cpu_ms_per_request": 1e3 * bot_cpu / max(bot.requests, 1),
        "bot_ms_mean": float(ms.mean()),
        "bot_ms_p99": float(np.percentile(ms, 99)),
        "bot_ms_max": float(ms.max()),
        "bot_decisions": int(ms.size),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode", required=True)
    e = sub.add_parser("export")
    e.add_argument("--games", type=positive_int, default=20)
    d = sub.add_parser("duplicate")
    d.add_argument("--cmd", required=True, help="the outside bot's command")
    d.add_argument("--io", default="json", choices=["json", "simple"])
    d.add_argument("--walls", type=positive_int, default=200)
    d.add_argument("--agent", default="rule", help="random | rule | checkpoint.pt")
    d.add_argument("--batch", type=positive_int, default=16, help="games at once")
    args = p.parse_args(argv)
    if args.mode == "export":
        row = bench_export(args.games)
    else:
        row = bench_duplicate(args.cmd, args.io, args.walls, args.agent, args.batch)
    print(json.dumps({**row, **_meta()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Duplicate evaluation: the same walls replayed under every seat permutation.

A *lineup* is four agents, one per position 0..3 (e.g. ``[candidate, random, random, random]``).
``walls`` shuffled walls are drawn from the seed; each wall is played once under every seat
permutation (the 4 rotations, or all 24 permutations), so every agent meets the same tiles from
every seat and the luck of the deal cancels out.

Per agent (positions holding the *same* agent object are pooled; two different agents with
the same name are an error), over all its hands:

================ =========================================================================
metric           meaning
================ =========================================================================
hands            number of (game, seat) hands the agent played
mean_points      mean settlement points per hand (docs/rules.md §3)
ci95_low/high    95% confidence interval of mean_points: normal approximation over the
                 per-wall means (each wall's permutations are averaged first, since the
                 hands of one wall are not independent)
mean_placement   mean placement points per hand, the competition's ranking: in every hand
                 the four seats are ranked by the hand's points, ranks 1-4 score 4/3/2/1,
                 tied seats share the mean of their ranks' scores (four-way tie: 2.5 each);
                 per wall averaged over its permutations, then over walls (2.5 = average)
placement_ci95_* 95% CI of mean_placement over the per-wall means
win_rate         fraction of its hands the agent won
deal_in_rate     fraction of its hands in which it paid as the discarder (robbed kong
                 included)
self_draw_rate   fraction of its hands it won by self-draw
mean_win_points  mean fan total (flowers included) of its wins; NaN if it never won
draw_rate        fraction of its hands that ended in an exhaustive draw
================ =========================================================================

:func:`difference` gives the mean and 95% CI of the per-wall difference between two agents
of one lineup (the same walls, so the deal's luck cancels in the difference);
:func:`paired_difference` the same between agents of two evaluations on the same walls (same
seed and wall offset). :meth:`DuplicateResult.seat_breakdown` splits an agent's results by
seat. Walls are numbered: ``wall_offset`` selects a block of wall indices, so a selection
block and a final-report block of one seed never share a wall.

An agent against three copies of itself (distinct names, e.g. ``rule-0 .. rule-3``, a
deterministic agent) reads exactly 0 points and 2.5 placement at every position: under the 4
rotations each position plays each seat of the same game once.

The fan total ``x`` of a win is recovered from the winner's settlement: ``24 + x`` on a
discard or robbed kong, ``24 + 3x`` self-drawn (docs/rules.md §3).

Results are deterministic for a seed (and batch size): walls come from
:func:`mcr_env.engine.walls.seeded_walls` and agents are called in a fixed order.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mcr_env._checks import check_int
from mcr_env.engine.state import EndReason

PERMUTATION_MODES = ("rotations", "all")
_SELF_DRAWN, _DISCARD, _ROB_KONG, _EXHAUSTIVE = (
    int(EndReason.SELF_DRAWN),
    int(EndReason.DISCARD),
    int(EndReason.ROB_KONG),
    int(EndReason.EXHAUSTIVE),
)


def seat_permutations(mode: str) -> np.ndarray:
    """Seat of each lineup position under every permutation.

    Args:
        mode: ``"rotations"`` (4 permutations: position k sits at seat ``(k + r) % 4``) or
            ``"all"`` (the 24 permutations in lexicographic order).

    Returns:
        ``(P, 4) int64``: row p maps position k to its seat.

    Raises:
        ValueError: unknown mode.
    """
    if mode == "rotations":
        return np.array([[(k + r) % 4 for k in range(4)] for r in range(4)], dtype=np.int64)
    if mode == "all":
        return np.array(list(itertools.permutations(range(4))), dtype=np.int64)
    raise ValueError(f"unknown permutation mode {mode!r}; valid: {', '.join(PERMUTATION_MODES)}")


@dataclass
class AgentStats:
    """Duplicate-evaluation statistics of one agent (see the module docstring)."""

    agent: str
    hands: int
    mean_points: float
    ci95_low: float
    ci95_high: float
    mean_placement: float
    placement_ci95_low: float
    placement_ci95_high: float
    win_rate: float
    deal_in_rate: float
    self_draw_rate: float
    mean_win_points: float
    draw_rate: float


@dataclass
class DuplicateResult:
    """Outcome of :func:`duplicate_evaluate`.

    Attributes:
        match: label of the lineup (``"a vs b"``).
        lineup: agent name per position.
        stats: per distinct agent name.
        seats: ``(W, P, 4) int64`` seat of each position for wall w, permutation p.
        points: ``(W, P, 4) float64`` settlement points of each position.
        winner_pos / payer_pos: ``(W, P) int64`` position of the winner / of the discarder
            who paid (robbed kong included; -1 none or self-drawn).
        end_reason: ``(W, P) int64`` engine EndReason.
        win_points: ``(W, P) float64`` fan total of the win (NaN if none).
        placement: ``(W, P, 4) float64`` placement points of each position (4/3/2/1, ties
            shared; each hand's four values sum to 10).
        wall_seed / wall_offset: the walls' seed and first wall index (see
            :func:`make_walls`).
    """

    match: str
    lineup: list[str]
    stats: list[AgentStats]
    seats: np.ndarray = field(repr=False)
    points: np.ndarray = field(repr=False)
    winner_pos: np.ndarray = field(repr=False)
    payer_pos: np.ndarray = field(repr=False)
    end_reason: np.ndarray = field(repr=False)
    win_points: np.ndarray = field(repr=False)
    placement: np.ndarray = field(repr=False)
    wall_seed: int = 0
    wall_offset: int = 0

    def stat(self, agent: str) -> AgentStats:
        """Statistics of agent ``agent``; KeyError if it is not in the lineup."""
        for s in self.stats:
            if s.agent == agent:
                return s
        raise KeyError(f"no agent {agent!r} in {self.lineup}")

    def positions(self, agent: str) -> list[int]:
        """Lineup positions of ``agent``; KeyError if it is not in the lineup."""
        pos = [k for k, n in enumerate(self.lineup) if n == agent]
        if not pos:
            raise KeyError(f"no agent {agent!r} in {self.lineup}")
        return pos

    def per_wall(self, agent: str, metric: str = "points") -> np.ndarray:
        """``(W,) float64``: ``agent``'s mean per hand on each wall (``metric`` ``"points"``
        or ``"placement"``).

        Raises:
            KeyError: unknown agent. ValueError: unknown metric.
        """
        if metric not in ("points", "placement"):
            raise ValueError(f"metric must be 'points' or 'placement', got {metric!r}")
        data = self.points if metric == "points" else self.placement
        x = data[:, :, self.positions(agent)]
        return x.reshape(x.shape[0], -1).mean(axis=1)

    def seat_breakdown(self, agent: str) -> list[dict]:
        """Per absolute seat 0..3 (seat 0 deals the hand): ``hands``, ``mean_points``,
        ``mean_placement`` of ``agent``'s hands in that seat."""
        pos = self.positions(agent)
        seats = self.seats[:, :, pos].reshape(-1)
        pts = self.points[:, :, pos].reshape(-1)
        plc = self.placement[:, :, pos].reshape(-1)
        out = []
        for seat in range(4):
            sel = seats == seat
            n = int(sel.sum())
            out.append(
                {
                    "seat": seat,
                    "hands": n,
                    "mean_points": float(pts[sel].mean()) if n else float("nan"),
                    "mean_placement": float(plc[sel].mean()) if n else float("nan"),
                }
            )
        return out


def placement_points(points: np.ndarray) -> np.ndarray:
    """Placement points of the four seats of each hand: rank 1-4 by points scores 4/3/2/1 and
    tied seats share the mean of their ranks' scores (docs/rules.md §4: the competition ranks
    the seats of a hand).

    Args:
        points: ``(..., 4)`` points of the four seats of each hand.

    Returns:
        ``(..., 4) float64``; every hand's four values sum to 10 (a four-way tie: 2.5 each).
    """
    p = np.asarray(points, dtype=np.float64)
    if p.shape[-1] != 4:
        raise ValueError(f"points must have a last axis of 4 seats, got {p.shape}")
    lower = (p[..., None, :] < p[..., :, None]).sum(axis=-1)
    equal = (p[..., None, :] == p[..., :, None]).sum(axis=-1) - 1
    return 1.0 + lower + 0.5 * equal


@dataclass
class Difference:
    """Mean and 95% CI of a per-wall difference ``a - b`` (normal approximation over walls)."""

    a: str
    b: str
    metric: str
    walls: int
    mean: float
    ci95_low: float
    ci95_high: float


def mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``x`` and its 95% normal-approximation CI
    (``1.96 * sd / sqrt(n)``, sample sd); infinite bounds for a single value.

    Raises:
        ValueError: empty ``x``.
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise ValueError("mean_ci needs at least one value")
    m = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else math.inf
    return m, m - half, m + half


def difference_ci(a: np.ndarray, b: np.ndarray, names=("a", "b"), metric="points") -> Difference:
    """:class:`Difference` of paired per-wall values ``a (W,)`` and ``b (W,)``.

    Raises:
        ValueError: different lengths or empty.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"per-wall values must be two equal (W,) arrays, got {a.shape}, {b.shape}")
    m, lo, hi = mean_ci(a - b)
    return Difference(str(names[0]), str(names[1]), metric, int(a.size), m, lo, hi)


def difference(res: DuplicateResult, a: str, b: str, metric: str = "points") -> Difference:
    """Per-wall difference between agents ``a`` and ``b`` of one lineup (same walls).

    Raises:
        KeyError: an agent not in the lineup. ValueError: unknown metric.
    """
    return difference_ci(res.per_wall(a, metric), res.per_wall(b, metric), (a, b), metric)


def paired_difference(
    res_a: DuplicateResult, a: str, res_b: DuplicateResult, b: str, metric: str = "points"
) -> Difference:
    """Per-wall difference between ``a`` in ``res_a`` and ``b`` in ``res_b``, two evaluations
    on the same walls (e.g. two candidates, each against three copies of one opponent).

    Raises:
        ValueError: the evaluations were not played on the same walls and permutations.
    """
    same = (
        res_a.wall_seed == res_b.wall_seed
        and res_a.wall_offset == res_b.wall_offset
        and res_a.points.shape[:2] == res_b.points.shape[:2]
    )
    if not same:
        raise ValueError(
            "paired_difference needs evaluations on the same walls: seeds "
            f"{res_a.wall_seed}/{res_b.wall_seed}, offsets {res_a.wall_offset}/"
            f"{res_b.wall_offset}, walls x permutations {res_a.points.shape[:2]}/"
            f"{res_b.points.shape[:2]}"
        )
    return difference_ci(res_a.per_wall(a, metric), res_b.per_wall(b, metric), (a, b), metric)


def make_walls(n_walls: int, seed: int, layout: str = "official", offset: int = 0) -> np.ndarray:
    """``(n_walls, 144 or 136) int8`` seeded walls: wall indices ``offset .. offset + n - 1``
    of the seed (game index = wall index, episode 0), so distinct blocks never share a wall.

    Raises:
        ValueError: a negative ``offset``.
    """
    from mcr_env.engine.walls import seeded_walls

    if offset < 0:
        raise ValueError(f"offset must be >= 0, got {offset}")
    idx = np.arange(offset, offset + n_walls, dtype=np.int64)
    zeros = np.zeros(n_walls, dtype=np.int64)
    return seeded_walls(layout, seed, idx, zeros, zeros)


def duplicate_evaluate(
    lineup: Sequence[Any],
    walls: int,
    *,
    permutations: str = "rotations",
    seed: int = 0,
    wall_offset: int = 0,
    batch_size: int = 256,
    rules: Any = None,
    encoder: Any = "planes-v0",
    progress: bool = True,
    desc: str | None = None,
    num_workers: int = 0,
    shard_backend: str = "process",
) -> DuplicateResult:
    """Play ``walls`` walls under every seat permutation of ``lineup`` and collect statistics.

    Args:
        lineup: four agents (the same object may appear several times); agent objects, torch
            modules or callables ``policy(obs_dict) -> action`` (:func:`mcr_env.eval.agents.
            as_agent`).
        walls: number of distinct walls W (>= 1).
        permutations: ``"rotations"`` or ``"all"`` (see :func:`seat_permutations`).
        seed: root seed of the walls.
        wall_offset: index of the first wall (a block of walls, see :func:`make_walls`).
        batch_size: games played in parallel.
        rules: ``mcr_env.engine.config.RulesConfig`` (None = defaults).
        encoder: encoder id or object, used by agents with ``needs_obs``.
        progress: show a tqdm bar.
        desc: label of the bar / match (default ``"<pos 0> vs <pos 1>"``).
        num_workers: 0 = play the batches in this process; k >= 1 = in k worker processes
            (-1 = one per CPU), each batch with its own copy of the agents
            (:mod:`mcr_env.eval.parallel`: the same results for every k >= 1; equal to the
            in-process ones unless an agent has mutable state, e.g. ``RandomAgent``).
        shard_backend: where the ``num_workers`` batches run: ``"process"`` (spawned worker
            processes) or ``"thread"`` (threads of this process; each batch a deep copy of
            the agents); the same results.

    Returns:
        :class:`DuplicateResult`.

    Raises:
        ValueError: a lineup that is not four agents, two different agents with the same name,
            ``walls < 1``, ``batch_size < 1``, an unknown permutation mode or
            ``shard_backend``.
        TypeError: a lineup entry that is not an agent, module or callable.
    """
    from tqdm import tqdm

    from mcr_env.engine.config import RulesConfig
    from mcr_env.eval.parallel import play_batch

    if len(lineup) != 4:
        raise ValueError(f"lineup must have 4 agents, got {len(lineup)}")
    walls = check_int(walls, "walls", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    if shard_backend not in ("process", "thread"):
        raise ValueError(f"shard_backend {shard_backend!r} not valid; valid: process, thread")
    rules = rules or RulesConfig()
    if isinstance(encoder, str):
        from mcr_env.encoding import get_encoder

        encoder = get_encoder(encoder)
    perms = seat_permutations(permutations)
    n_perm = perms.shape[0]
    from mcr_env.eval.agents import as_agent

    converted: list[Any] = []  # the same object (module, callable) becomes the same agent
    for a in lineup:
        prior = next((c for o, c in converted if o is a), None)
        converted.append((a, prior if prior is not None else as_agent(a)))
    lineup = [c for _, c in converted]
    names = [str(getattr(a, "name", f"agent{k}")) for k, a in enumerate(lineup)]
    for i in range(4):
        for j in range(i):
            if names[i] == names[j] and lineup[i] is not lineup[j]:
                raise ValueError(
                    f"lineup positions {j} and {i} hold different agents with the same name "
                    f"{names[i]!r}; give them distinct names (their results would be pooled)"
                )
    label = desc or (f"{names[0]} vs {names[1]}" if len(set(names)) > 1 else names[0])

    distinct: list[Any] = []
    pos_agent = np.zeros(4, dtype=np.int64)
    for k, a in enumerate(lineup):
        for j, d in enumerate(distinct):
            if d is a:
                pos_agent[k] = j
                break
        else:
            distinct.append(a)
            pos_agent[k] = len(distinct) - 1

    wall_rows = make_walls(int(walls), seed, rules.wall_layout, int(wall_offset))
    total = int(walls) * n_perm
    game_wall = np.repeat(np.arange(int(walls)), n_perm)  # (G,)
    game_perm = np.tile(np.arange(n_perm), int(walls))  # (G,)
    seat_of_pos = perms[game_perm]  # (G, 4) position -> seat
    points_seat = np.zeros((total, 4), dtype=np.float64)
    winner = np.full(total, -1, dtype=np.int64)
    payer = np.full(total, -1, dtype=np.int64)
    reason = np.zeros(total, dtype=np.int64)

    bar = tqdm(total=total, desc=label, unit="hand", disable=not progress, leave=False)
    slices, jobs = [], []
    for start in range(0, total, batch_size):
        sl = slice(start, min(start + batch_size, total))
        n = sl.stop - sl.start
        agent_index = np.zeros((n, 4), dtype=np.int64)
        rows = np.arange(n)[:, None]
        agent_index[rows, seat_of_pos[sl]] = pos_agent[None, :]
        slices.append(sl)
        jobs.append((agent_index, wall_rows[game_wall[sl]]))
    if num_workers < 0:
        from mcr_env.envs.sharded import default_num_workers

        num_workers = default_num_workers()
    if num_workers >= 1 and len(jobs) > 1:
        from mcr_env.eval.parallel import play_batches

        results = play_batches(
            distinct, jobs, rules, encoder, num_workers, bar.update, backend=shard_backend
        )
    else:
        results = []
        for agent_index, walls_b in jobs:
            results.append(play_batch(distinct, agent_index, walls_b, rules, encoder))
            bar.update(len(agent_index))
    for sl, (p, w, f, r) in zip(slices, results):
        points_seat[sl], winner[sl], payer[sl], reason[sl] = p, w, f, r
    bar.close()

    # seat -> position
    pos_of_seat = np.argsort(seat_of_pos, axis=1)
    g_idx = np.arange(total)
    points_pos = points_seat[g_idx[:, None], seat_of_pos]  # (G, 4)
    winner_pos = np.where(winner >= 0, pos_of_seat[g_idx, np.clip(winner, 0, 3)], -1)
    payer_pos = np.where(payer >= 0, pos_of_seat[g_idx, np.clip(payer, 0, 3)], -1)
    win_r = np.where(winner >= 0, points_seat[g_idx, np.clip(winner, 0, 3)], np.nan)
    win_points = np.where(
        (reason == _SELF_DRAWN) & (winner >= 0),
        (win_r - 24.0) / 3.0,
        np.where(np.isin(reason, (_DISCARD, _ROB_KONG)) & (winner >= 0), win_r - 24.0, np.nan),
    )

    shape = (int(walls), n_perm)
    res = DuplicateResult(
        match=label,
        lineup=names,
        stats=[],
        seats=seat_of_pos.reshape(*shape, 4),
        points=points_pos.reshape(*shape, 4),
        winner_pos=winner_pos.reshape(shape),
        payer_pos=payer_pos.reshape(shape),
        end_reason=reason.reshape(shape),
        win_points=win_points.reshape(shape),
        placement=placement_points(points_pos).reshape(*shape, 4),
        wall_seed=int(seed),
        wall_offset=int(wall_offset),
    )
    res.stats = [_agent_stats(res, name) for name in dict.fromkeys(names)]
    return res


def _agent_stats(res: DuplicateResult, name: str) -> AgentStats:
    positions = [k for k, n in enumerate(res.lineup) if n == name]
    pts = res.points[:, :, positions]  # (W, P, k)
    hands = int(pts.size)
    mean, lo, hi = mean_ci(res.per_wall(name, "points"))
    p_mean, p_lo, p_hi = mean_ci(res.per_wall(name, "placement"))
    won = np.isin(res.winner_pos, positions)
    paid = np.isin(res.payer_pos, positions)
    selfd = won & (res.end_reason == _SELF_DRAWN)
    k = len(positions)
    wp = res.win_points[won]
    return AgentStats(
        agent=name,
        hands=hands,
        mean_points=mean,
        ci95_low=lo,
        ci95_high=hi,
        mean_placement=p_mean,
        placement_ci95_low=p_lo,
        placement_ci95_high=p_hi,
        win_rate=float(won.sum()) / hands,
        deal_in_rate=float(paid.sum()) / hands,
        self_draw_rate=float(selfd.sum()) / hands,
        mean_win_points=float(wp.mean()) if wp.size else float("nan"),
        draw_rate=float((res.end_reason == _EXHAUSTIVE).sum()) * k / hands,
    )


# ---------------------------------------------------------------------------- reporting
STAT_COLUMNS = [f for f in AgentStats.__dataclass_fields__]


def results_table(results: Sequence[DuplicateResult]) -> str:
    """A plain-text table, one row per (match, agent)."""
    header = ["match", *STAT_COLUMNS]
    rows = []
    for r in results:
        for s in r.stats:
            d = asdict(s)
            rows.append(
                [r.match]
                + [f"{d[c]:.3f}" if isinstance(d[c], float) else str(d[c]) for c in STAT_COLUMNS]
            )
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def write_results(
    results: Sequence[DuplicateResult],
    out_dir: str | Path,
    meta: dict | None = None,
    differences: Sequence[Difference] = (),
) -> dict[str, Path]:
    """Write ``eval.csv``, ``eval.json`` and ``eval.png`` (matplotlib, Agg) into ``out_dir``.

    ``eval.json`` is strict JSON (:func:`json_safe`): non-finite numbers are ``null``; per
    match it holds the stats, the per-seat breakdown of every agent and the wall block, plus
    the given ``differences``.

    Returns:
        ``{"csv": path, "json": path, "png": path}``.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out / "eval.csv", "json": out / "eval.json", "png": out / "eval.png"}
    with paths["csv"].open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["match", *STAT_COLUMNS])
        for r in results:
            for s in r.stats:
                w.writerow([r.match, *(getattr(s, c) for c in STAT_COLUMNS)])
    payload = {
        "meta": meta or {},
        "matches": [
            {
                "match": r.match,
                "lineup": r.lineup,
                "walls": int(r.points.shape[0]),
                "permutations": int(r.points.shape[1]),
                "wall_seed": r.wall_seed,
                "wall_offset": r.wall_offset,
                "stats": [asdict(s) for s in r.stats],
                "seats": {s.agent: r.seat_breakdown(s.agent) for s in r.stats},
            }
            for r in results
        ],
        "differences": [asdict(d) for d in differences],
    }
    paths["json"].write_text(json.dumps(json_safe(payload), indent=2, allow_nan=False))
    plot_results(results, paths["png"])
    return paths


def json_safe(obj: Any) -> Any:
    """``obj`` as plain JSON data for ``json.dumps(..., allow_nan=False)``: non-finite floats
    (NaN, +-inf, e.g. the CI of one wall or the mean win of an agent that never won) become
    None (``null``); numpy scalars and arrays become Python numbers and lists; tuples become
    lists; paths and other unknown objects become ``str``. Dict keys become ``str``."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return str(obj)


def plot_results(results: Sequence[DuplicateResult], path: str | Path) -> Path:
    """Bar charts: mean points per hand with 95% CI, and win / deal-in rates, per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, means, lo, hi, win, deal = [], [], [], [], [], []
    for r in results:
        for s in r.stats:
            labels.append(f"{s.agent}\n[{r.match}]")
            means.append(s.mean_points)
            lo.append(s.mean_points - s.ci95_low)
            hi.append(s.ci95_high - s.mean_points)
            win.append(s.win_rate)
            deal.append(s.deal_in_rate)
    x = np.arange(len(labels))
    fig, axes = plt.subplots(1, 2, figsize=(max(10, 2.8 * len(labels)), 5))
    axes[0].bar(x, means, yerr=[lo, hi], capsize=4, color="tab:blue")
    axes[0].axhline(0, color="black", linewidth=0.8)
    axes[0].set_ylabel("points per hand (95% CI)")
    axes[0].set_title("Duplicate evaluation: mean points")
    axes[1].bar(x - 0.2, win, width=0.4, label="win rate")
    axes[1].bar(x + 0.2, deal, width=0.4, label="deal-in rate")
    axes[1].set_title("Win and deal-in rates")
    axes[1].legend()
    for ax in axes:
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8, rotation=20, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path)

"""Duplicate evaluation: the same walls replayed under every seat permutation.

A *lineup* is four agents, one per position 0..3 (e.g. ``[candidate, random, random, random]``).
``walls`` shuffled walls are drawn from the seed; each wall is played once under every seat
permutation (the 4 rotations, or all 24 permutations), so every agent meets the same tiles from
every seat and the luck of the deal cancels out.

Per agent name (positions holding agents with the same name are pooled), over all its hands:

================ =========================================================================
metric           meaning
================ =========================================================================
hands            number of (game, seat) hands the agent played
mean_points      mean settlement points per hand (RULES.md section 3)
ci95_low/high    95% confidence interval of mean_points: normal approximation over the
                 per-wall means (each wall's permutations are averaged first, since the
                 hands of one wall are not independent)
win_rate         fraction of its hands the agent won
deal_in_rate     fraction of its hands in which it paid as the discarder (robbed kong
                 included)
self_draw_rate   fraction of its hands it won by self-draw
mean_win_points  mean fan total (flowers included) of its wins; NaN if it never won
draw_rate        fraction of its hands that ended in an exhaustive draw
================ =========================================================================

The fan total ``x`` of a win is recovered from the winner's settlement: ``24 + x`` on a
discard or robbed kong, ``24 + 3x`` self-drawn (RULES.md section 3).

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

from mcr_env.engine.state import EndReason
from mcr_env.eval.play import play_games

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

    def stat(self, agent: str) -> AgentStats:
        """Statistics of agent ``agent``; KeyError if it is not in the lineup."""
        for s in self.stats:
            if s.agent == agent:
                return s
        raise KeyError(f"no agent {agent!r} in {self.lineup}")


def make_walls(n_walls: int, seed: int, layout: str = "official") -> np.ndarray:
    """``(n_walls, 144 or 136) int8`` seeded walls (game index = wall index, episode 0)."""
    from mcr_env.engine.walls import seeded_walls

    idx = np.arange(n_walls, dtype=np.int64)
    zeros = np.zeros(n_walls, dtype=np.int64)
    return seeded_walls(layout, seed, idx, zeros, zeros)


def duplicate_evaluate(
    lineup: Sequence[Any],
    walls: int,
    *,
    permutations: str = "rotations",
    seed: int = 0,
    batch_size: int = 256,
    rules: Any = None,
    encoder: Any = "planes-v0",
    progress: bool = True,
    desc: str | None = None,
) -> DuplicateResult:
    """Play ``walls`` walls under every seat permutation of ``lineup`` and collect statistics.

    Args:
        lineup: four agents (the same object may appear several times).
        walls: number of distinct walls W (>= 1).
        permutations: ``"rotations"`` or ``"all"`` (see :func:`seat_permutations`).
        seed: root seed of the walls.
        batch_size: games played in parallel.
        rules: ``mcr_env.engine.config.RulesConfig`` (None = defaults).
        encoder: encoder id or object, used by agents with ``needs_obs``.
        progress: show a tqdm bar.
        desc: label of the bar / match (default ``"<pos 0> vs <pos 1>"``).

    Returns:
        :class:`DuplicateResult`.

    Raises:
        ValueError: a lineup that is not four agents, ``walls < 1``, ``batch_size < 1``, or an
            unknown permutation mode.
    """
    from tqdm import tqdm

    from mcr_env.engine.config import RulesConfig
    from mcr_env.engine.core import MCREngine

    if len(lineup) != 4:
        raise ValueError(f"lineup must have 4 agents, got {len(lineup)}")
    if isinstance(walls, bool) or not isinstance(walls, (int, np.integer)) or walls < 1:
        raise ValueError(f"walls must be an int >= 1, got {walls!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    rules = rules or RulesConfig()
    if isinstance(encoder, str):
        from mcr_env.encoding import get_encoder

        encoder = get_encoder(encoder)
    perms = seat_permutations(permutations)
    n_perm = perms.shape[0]
    names = [str(getattr(a, "name", f"agent{k}")) for k, a in enumerate(lineup)]
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

    wall_rows = make_walls(int(walls), seed, rules.wall_layout)
    total = int(walls) * n_perm
    game_wall = np.repeat(np.arange(int(walls)), n_perm)  # (G,)
    game_perm = np.tile(np.arange(n_perm), int(walls))  # (G,)
    seat_of_pos = perms[game_perm]  # (G, 4) position -> seat
    points_seat = np.zeros((total, 4), dtype=np.float64)
    winner = np.full(total, -1, dtype=np.int64)
    payer = np.full(total, -1, dtype=np.int64)
    reason = np.zeros(total, dtype=np.int64)

    bar = tqdm(total=total, desc=label, unit="hand", disable=not progress, leave=False)
    for start in range(0, total, batch_size):
        sl = slice(start, min(start + batch_size, total))
        n = sl.stop - sl.start
        agent_index = np.zeros((n, 4), dtype=np.int64)
        rows = np.arange(n)[:, None]
        agent_index[rows, seat_of_pos[sl]] = pos_agent[None, :]
        engine = MCREngine(n, config=rules)
        engine.reset(walls=wall_rows[game_wall[sl]])
        points_seat[sl] = play_games(engine, distinct, agent_index, encoder)
        winner[sl] = engine.state.winner
        payer[sl] = engine.state.win_from
        reason[sl] = engine.state.end_reason
        bar.update(n)
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
    )
    res.stats = [_agent_stats(res, name) for name in dict.fromkeys(names)]
    return res


def _agent_stats(res: DuplicateResult, name: str) -> AgentStats:
    positions = [k for k, n in enumerate(res.lineup) if n == name]
    pts = res.points[:, :, positions]  # (W, P, k)
    n_walls = pts.shape[0]
    hands = int(pts.size)
    per_wall = pts.reshape(n_walls, -1).mean(axis=1)
    mean = float(per_wall.mean())
    half = 1.96 * float(per_wall.std(ddof=1)) / math.sqrt(n_walls) if n_walls > 1 else math.inf
    won = np.isin(res.winner_pos, positions)
    paid = np.isin(res.payer_pos, positions)
    selfd = won & (res.end_reason == _SELF_DRAWN)
    k = len(positions)
    wp = res.win_points[won]
    return AgentStats(
        agent=name,
        hands=hands,
        mean_points=mean,
        ci95_low=mean - half,
        ci95_high=mean + half,
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
    results: Sequence[DuplicateResult], out_dir: str | Path, meta: dict | None = None
) -> dict[str, Path]:
    """Write ``eval.csv``, ``eval.json`` and ``eval.png`` (matplotlib, Agg) into ``out_dir``.

    ``eval.json`` is strict JSON (:func:`json_safe`): non-finite numbers are ``null``.

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
                "stats": [asdict(s) for s in r.stats],
            }
            for r in results
        ],
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

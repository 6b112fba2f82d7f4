"""Game records: capture games played on an :class:`MCREngine`, write/read them as JSON lines,
and replay them through the engine with full verification (docs/rules.md §2-§4).

Format (``"format": "mcr-env-record"``, ``"version": 1``): one JSON object per line, one line per
finished game (a single hand, or a whole 16-hand match in match mode)::

    {"format": "mcr-env-record", "version": 1,
     "config": {"wall_layout": "official", "scoring_profile": "mcr",
                "illegal_action": "raise", "match": "hand", "claim_round": "options"},
     "origin": {"seed": 7, "game": 3, "episode": 0, "explicit_walls": 0},
     "hands": [
       {"hand": 0, "dealer": 0, "prevalent_wind": 0, "player_at_seat": [0, 1, 2, 3],
        "wall": "W3 B7 H2 ... F1",
        "decisions": [[0, 0, 4, "Play W3"], [1, 1, 42, "Chi W4 (claimed W3)"], ...],
        "result": {"end_reason": "SELF_DRAWN", "winner": 2, "win_from": -1, "win_tile": "B5",
                   "fans": [{"fan": 41, "name": "Mixed Triple Chow", "points": 8, "count": 1},
                            ...],
                   "total": 14, "settlement": [-22, -22, 66, -22], "offenders": []}}],
     "final_scores": [-22, -22, 66, -22],
     "table_points": null,
     "final_state": {"meld_kind": [[[0, 0, 0, 0], ...]], ...}}

Fields:

* ``config``: the :class:`RulesConfig` fields.
* ``origin``: where the walls came from: the engine's root ``seed`` (null if unknown), the
  ``game`` index in the recording batch, its ``episode`` counter, and ``explicit_walls`` = how
  many leading hands were dealt from walls given to ``reset`` (0: all seeded; 1: the first
  hand; 16: a whole match). Seeded walls are re-derived and checked on replay.
* ``hands``: one entry per hand in play order: hand number, dealer seat, prevalent wind,
  ``player_at_seat`` (player 0..3 sitting at each seat), the ``wall`` actually dealt (space
  separated Botzone codes in draw order, 144 official / 136 botzone, see
  :mod:`mcr_env.engine.walls`), the ``decisions`` and the ``result``.
* ``decisions``: rows ``[step, seat, action, name]``: ``step`` is the 0-based index of the
  engine step of this game (continuing across the hands of a match); all seats asked in one
  step (a claim round) share the step index, in seat order; ``name`` is
  :func:`mcr_env.engine.actions.action_name` of ``action``. Only seats the engine asked
  (``to_act``) are recorded.
* ``result``: from ``MCREngine.last_hand_result``: :class:`EndReason` name, winning seat and the
  seat that paid as discarder (-1 = none / self-drawn), win tile (Botzone code or null), fans
  (``fan`` = ``Fan`` value, English name, points per occurrence, count), total points
  including flowers, ``settlement`` per SEAT (sums to zero, docs/rules.md §3), punished
  seats (``illegal_action="penalize"``).
* ``final_scores``: points per PLAYER summed over the hands (``state.match_scores``);
  ``table_points``: match table points per player (match mode), else null.
* ``final_state``: every :class:`GameState` field of the game at its end, as nested lists
  (shape of the field without the batch dimension).

Capture: wrap an engine in :class:`GameRecorder` and call its ``reset``/``step`` instead of the
engine's (it forwards every other attribute, so it can stand in for the engine in loops such as
``mcr_env.eval.play.play_games``); finished games are collected by
:meth:`GameRecorder.pop_finished`.
Verification: :func:`replay` re-runs a record on a fresh ``MCREngine`` (B = 1).

Errors: :class:`RecordError` (malformed record: the message names the field, and the line for
:func:`read_records`) and :class:`ReplayError` (the engine disagrees with the record: the message
names the step, hand and field); both subclass ``ValueError``.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from mcr_env.engine.actions import NUM_ACTIONS, PASS, action_name
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.core import HANDS_PER_MATCH, HandResult, MCREngine
from mcr_env.engine.state import EndReason, GameState, Phase
from mcr_env.engine.walls import check_walls, seeded_walls
from mcr_env.tiles import code_to_tile, tile_to_code

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "GameRecorder",
    "RecordError",
    "ReplayError",
    "hand_result_dict",
    "read_records",
    "replay",
    "validate_record",
    "write_records",
]

FORMAT = "mcr-env-record"
"""Value of the ``format`` key of every record."""
FORMAT_VERSION = 1
"""Current record format version (bumped on any change of the layout above)."""

_STATE_FIELDS = tuple(dataclasses.fields(GameState))
_EMPTY = GameState.empty(1)
_FIELD_SHAPES: dict[str, tuple[int, ...]] = {
    f.name: getattr(_EMPTY, f.name).shape[1:] for f in _STATE_FIELDS
}
del _EMPTY


class RecordError(ValueError):
    """A record (or a line of a JSONL file) is malformed; the message names the field."""


class ReplayError(ValueError):
    """Replaying a record through the engine disagrees with the record (illegal action, other
    hand result, other final state); the message names the step, hand and field."""


# ---------------------------------------------------------------------------------- helpers
def _wall_codes(wall: np.ndarray) -> str:
    return " ".join(tile_to_code(int(t)) for t in wall)


def _action_label(a: int) -> str:
    """Readable name; ids outside the layout (only possible when illegal actions are penalized)
    get a placeholder."""
    return action_name(a) if 0 <= a < NUM_ACTIONS else f"invalid {a}"


def hand_result_dict(res: HandResult) -> dict:
    """The ``result`` entry of a record for a :class:`HandResult` (JSON types only)."""
    return {
        "end_reason": EndReason(res.end_reason).name,
        "winner": int(res.winner),
        "win_from": int(res.win_from),
        "win_tile": tile_to_code(int(res.win_tile)) if res.win_tile >= 0 else None,
        "fans": [
            {"fan": int(f.fan), "name": str(f.name), "points": int(f.points), "count": int(f.count)}
            for f in res.fans
        ],
        "total": int(res.total),
        "settlement": [int(x) for x in res.settlement],
        "offenders": [int(s) for s in res.offenders],
    }


def _hand_header(st: GameState, g: int) -> dict:
    return {
        "hand": int(st.hand_number[g]),
        "dealer": int(st.dealer[g]),
        "prevalent_wind": int(st.prevalent_wind[g]),
        "player_at_seat": [int(p) for p in st.player_at_seat[g]],
    }


def _final_state(st: GameState, g: int) -> dict:
    return {f.name: getattr(st, f.name)[g].tolist() for f in _STATE_FIELDS}


# ---------------------------------------------------------------------------------- recorder
class GameRecorder:
    """Records every game played on ``engine`` (any batch size B).

    Call ``recorder.reset(...)`` / ``recorder.step(...)`` (same arguments as
    :meth:`MCREngine.reset` / :meth:`MCREngine.step`); every other attribute (``to_act``,
    ``legal_mask``, ``state``, ``rewards``, ``terminated`` ...) is read from the engine, so the
    recorder can replace the engine in a driving loop. Games that terminate become records
    (dicts in the module's format), returned by :meth:`pop_finished` in finishing order. A game
    reset before it ended is dropped (counted in ``n_aborted``).

    Recording costs a Python loop over the acting seats and finished hands of each step; use it
    for data collection and debugging, not inside throughput benchmarks.

    Args:
        engine: an :class:`MCREngine` (not yet reset, or reset: games already in progress are
            not recorded until they are reset through the recorder).

    Raises:
        TypeError: ``engine`` is not an MCREngine.
    """

    def __init__(self, engine: MCREngine):
        if not isinstance(engine, MCREngine):
            raise TypeError(f"engine must be an MCREngine, got {type(engine).__name__}")
        self.engine = engine
        self.n_aborted = 0
        self._finished: list[dict] = []
        self._open: list[dict | None] = [None] * engine.batch_size
        self._steps = np.zeros(engine.batch_size, dtype=np.int64)
        self._episode = np.full(engine.batch_size, -1, dtype=np.int64)
        self._roots: list[int | None] = [None] * engine.batch_size
        self._wall_len = 136 if engine.config.wall_layout == "botzone" else 144

    def __getattr__(self, name: str) -> Any:
        # only called for attributes not found on the recorder: forward to the engine
        if name == "engine":
            raise AttributeError(name)
        return getattr(self.engine, name)

    def reset(self, seed: int | None = None, walls=None, games=None, prevalent_wind=None) -> None:
        """:meth:`MCREngine.reset` and start a record for every reset game."""
        eng = self.engine
        eng.reset(seed=seed, walls=walls, games=games, prevalent_wind=prevalent_wind)
        b = eng.batch_size
        sel = np.ones(b, dtype=bool) if games is None else np.asarray(games, dtype=bool)
        if seed is not None:
            for g in np.nonzero(sel)[0].tolist():
                self._roots[g] = int(seed) % (1 << 64)
            self._episode[sel] = 0
        else:
            self._episode[sel] += 1
        # root seeds never given through the recorder: the engine's own (random) ones
        engine_roots = getattr(eng, "_root_seeds", None)
        n_explicit = 0
        if walls is not None:
            n_explicit = HANDS_PER_MATCH if np.asarray(walls).ndim == 3 else 1
        config = {f.name: getattr(eng.config, f.name) for f in dataclasses.fields(RulesConfig)}
        st = eng.state
        for g in np.nonzero(sel)[0].tolist():
            if self._open[g] is not None:
                self.n_aborted += 1
            hand = _hand_header(st, g)
            hand["wall"] = _wall_codes(st.wall[g, : self._wall_len])
            hand["decisions"] = []
            hand["result"] = None
            self._open[g] = {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "config": dict(config),
                "origin": {
                    "seed": self._roots[g]
                    if self._roots[g] is not None or engine_roots is None
                    else int(engine_roots[g]),
                    "game": int(g) + int(getattr(eng, "first_game", 0)),
                    "episode": int(self._episode[g]),
                    "explicit_walls": n_explicit,
                },
                "hands": [hand],
            }
            self._steps[g] = 0

    def step(self, actions, games=None) -> None:
        """:meth:`MCREngine.step`, recording the decisions of the asked seats, the results of
        the hands that ended and the records of the games that terminated."""
        eng = self.engine
        b = eng.batch_size
        live = ~eng.terminated
        if games is not None:
            live = live & np.asarray(games, dtype=bool).reshape(b)
        asked = eng.to_act & live[:, None]
        acts = np.asarray(actions)
        eng.step(actions, games=games)  # raises before changing anything on bad input
        st = eng.state
        gs, ss = np.nonzero(asked)
        for g, s in zip(gs.tolist(), ss.tolist()):
            rec = self._open[g]
            if rec is None:
                continue
            a = int(acts[g, s])
            rec["hands"][-1]["decisions"].append([int(self._steps[g]), s, a, _action_label(a)])
        self._steps[np.nonzero(live)[0]] += 1
        for g in np.nonzero(eng.hand_over)[0].tolist():
            rec = self._open[g]
            if rec is None:
                continue
            rec["hands"][-1]["result"] = hand_result_dict(eng.last_hand_result[g])
            if not eng.terminated[g]:  # match mode: the next hand is already dealt
                hand = _hand_header(st, g)
                hand["wall"] = _wall_codes(st.wall[g, : self._wall_len])
                hand["decisions"] = []
                hand["result"] = None
                rec["hands"].append(hand)
                continue
            rec["final_scores"] = [int(x) for x in st.match_scores[g]]
            rec["table_points"] = (
                [float(x) for x in eng.table_points[g]] if eng.config.match == "match" else None
            )
            rec["final_state"] = _final_state(st, g)
            self._finished.append(rec)
            self._open[g] = None

    def pop_finished(self) -> list[dict]:
        """The records of the games finished since the last call (and forget them)."""
        out, self._finished = self._finished, []
        return out


# ---------------------------------------------------------------------------------- validation
def _err(path: str, msg: str) -> RecordError:
    return RecordError(f"field {path}: {msg}")


def _need(d: dict, key: str, types, path: str):
    if key not in d:
        raise _err(f"{path}{key}", "missing")
    v = d[key]
    if isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise _err(f"{path}{key}", f"expected {_tname(types)}, got bool")
    if not isinstance(v, types):
        raise _err(f"{path}{key}", f"expected {_tname(types)}, got {type(v).__name__}")
    return v


def _tname(types) -> str:
    ts = types if isinstance(types, tuple) else (types,)
    return " or ".join("null" if t is type(None) else t.__name__ for t in ts)


def _int_list(v, n: int, path: str, lo: int | None = None, hi: int | None = None) -> list[int]:
    if not isinstance(v, list) or len(v) != n:
        raise _err(path, f"expected a list of {n} ints, got {v!r}")
    for i, x in enumerate(v):
        if isinstance(x, bool) or not isinstance(x, int):
            raise _err(f"{path}[{i}]", f"expected an int, got {x!r}")
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise _err(f"{path}[{i}]", f"{x} out of range {lo}..{hi}")
    return v


def _parse_wall(text: str, layout: str, path: str) -> np.ndarray:
    try:
        tiles = [code_to_tile(c) for c in text.split()]
    except ValueError as e:
        raise _err(path, f"bad tile code: {e}") from e
    try:
        return check_walls(np.asarray([tiles], dtype=np.int64), layout)[0]
    except ValueError as e:
        raise _err(path, f"not a {layout} wall: {e}") from e


def validate_record(record: Any) -> None:
    """Check that ``record`` is a well-formed game record (module docstring), without replaying.

    Raises:
        RecordError: the first problem found, naming the field (``hands[2].decisions[5][2]``).
    """
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}")
    if _need(record, "format", str, "") != FORMAT:
        raise _err("format", f"expected {FORMAT!r}, got {record['format']!r}")
    version = _need(record, "version", int, "")
    if version != FORMAT_VERSION:
        raise _err("version", f"unsupported version {version} (this reader: {FORMAT_VERSION})")
    cfg = _need(record, "config", dict, "")
    try:
        config = RulesConfig.from_dict(cfg)
    except (TypeError, ValueError) as e:
        raise _err("config", str(e)) from e
    origin = _need(record, "origin", dict, "")
    _need(origin, "seed", (int, type(None)), "origin.")
    _need(origin, "game", int, "origin.")
    _need(origin, "episode", int, "origin.")
    if _need(origin, "explicit_walls", int, "origin.") not in (0, 1, HANDS_PER_MATCH):
        raise _err("origin.explicit_walls", f"must be 0, 1 or 16, got {origin['explicit_walls']}")
    hands = _need(record, "hands", list, "")
    n_hands = HANDS_PER_MATCH if config.match == "match" else 1
    if len(hands) != n_hands:
        raise _err("hands", f"a finished {config.match} has {n_hands} hand(s), got {len(hands)}")
    next_step = 0
    for h, hand in enumerate(hands):
        p = f"hands[{h}]."
        if not isinstance(hand, dict):
            raise _err(f"hands[{h}]", f"expected an object, got {type(hand).__name__}")
        if _need(hand, "hand", int, p) != h:
            raise _err(f"{p}hand", f"expected {h}, got {hand['hand']}")
        for key, hi in (("dealer", 3), ("prevalent_wind", 3)):
            v = _need(hand, key, int, p)
            if not 0 <= v <= hi:
                raise _err(f"{p}{key}", f"{v} out of range 0..{hi}")
        seats = _int_list(_need(hand, "player_at_seat", list, p), 4, f"{p}player_at_seat", 0, 3)
        if sorted(seats) != [0, 1, 2, 3]:
            raise _err(f"{p}player_at_seat", f"not a permutation of 0..3: {seats}")
        _parse_wall(_need(hand, "wall", str, p), config.wall_layout, f"{p}wall")
        decisions = _need(hand, "decisions", list, p)
        if not decisions:
            raise _err(f"{p}decisions", "a hand has at least one decision")
        prev = (-1, -1)
        for i, row in enumerate(decisions):
            q = f"{p}decisions[{i}]"
            if not isinstance(row, list) or len(row) != 4:
                raise _err(q, f"expected [step, seat, action, name], got {row!r}")
            step, seat, a, name = row
            for j, (v, what) in enumerate(((step, "step"), (seat, "seat"), (a, "action"))):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise _err(f"{q}[{j}]", f"{what} must be an int, got {v!r}")
            if not isinstance(name, str):
                raise _err(f"{q}[3]", f"name must be a str, got {name!r}")
            if not 0 <= seat < 4:
                raise _err(f"{q}[1]", f"seat {seat} out of range 0..3")
            if step not in (prev[0], next_step):
                raise _err(f"{q}[0]", f"step {step} out of order (expected {next_step})")
            if step == prev[0] and seat <= prev[1]:
                raise _err(f"{q}[1]", f"seat {seat} after seat {prev[1]} in step {step}")
            if step == next_step:
                next_step += 1
            prev = (step, seat)
            if name != _action_label(a):
                raise _err(f"{q}[3]", f"name {name!r} does not match action {a}")
        _validate_result(_need(hand, "result", dict, p), f"{p}result.")
    _int_list(_need(record, "final_scores", list, ""), 4, "final_scores")
    tp = _need(record, "table_points", (list, type(None)), "")
    if (tp is None) != (config.match != "match"):
        raise _err("table_points", "must be a list of 4 numbers in match mode, null otherwise")
    if tp is not None and (
        len(tp) != 4 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in tp)
    ):
        raise _err("table_points", f"expected 4 numbers, got {tp!r}")
    fs = _need(record, "final_state", dict, "")
    names = [f.name for f in _STATE_FIELDS]
    if set(fs) != set(names):
        missing = sorted(set(names) - set(fs))
        extra = sorted(set(fs) - set(names))
        raise _err("final_state", f"keys differ from GameState: missing {missing}, unknown {extra}")
    for name in names:
        shape = _FIELD_SHAPES[name]
        try:
            arr = np.asarray(fs[name])
        except ValueError as e:
            raise _err(f"final_state.{name}", f"ragged: {e}") from e
        if arr.shape != shape or (arr.size and arr.dtype.kind not in "ib"):
            raise _err(
                f"final_state.{name}",
                f"expected shape {shape} of ints/bools, got shape {arr.shape} ({arr.dtype})",
            )


def _validate_result(res: dict, p: str) -> None:
    reason = _need(res, "end_reason", str, p)
    if reason not in EndReason.__members__ or reason == "NONE":
        valid = [r.name for r in EndReason if r != EndReason.NONE]
        raise _err(f"{p}end_reason", f"{reason!r} is not one of {valid}")
    for key in ("winner", "win_from"):
        v = _need(res, key, int, p)
        if not -1 <= v <= 3:
            raise _err(f"{p}{key}", f"{v} out of range -1..3")
    wt = _need(res, "win_tile", (str, type(None)), p)
    if wt is not None:
        try:
            if code_to_tile(wt) >= 34:
                raise ValueError(f"{wt} is a flower")
        except ValueError as e:
            raise _err(f"{p}win_tile", str(e)) from e
    for i, fan in enumerate(_need(res, "fans", list, p)):
        q = f"{p}fans[{i}]."
        if not isinstance(fan, dict):
            raise _err(f"{p}fans[{i}]", f"expected an object, got {type(fan).__name__}")
        _need(fan, "fan", int, q)
        _need(fan, "name", str, q)
        _need(fan, "points", int, q)
        _need(fan, "count", int, q)
    _need(res, "total", int, p)
    settlement = _int_list(_need(res, "settlement", list, p), 4, f"{p}settlement")
    if sum(settlement) != 0:
        raise _err(f"{p}settlement", f"does not sum to zero: {settlement}")
    for i, s in enumerate(_need(res, "offenders", list, p)):
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 4:
            raise _err(f"{p}offenders[{i}]", f"expected a seat 0..3, got {s!r}")


# ---------------------------------------------------------------------------------- JSONL
def write_records(path: str | Path, records: Iterable[dict]) -> int:
    """Write ``records`` to ``path`` as JSON lines (one record per line, UTF-8).

    Returns:
        Number of records written.

    Raises:
        RecordError: a record is malformed (the message names its index and field); nothing is
            written then.
    """
    lines = []
    for i, rec in enumerate(records):
        try:
            validate_record(rec)
        except RecordError as e:
            raise RecordError(f"record {i}: {e}") from e
        lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def read_records(path: str | Path) -> list[dict]:
    """Read and validate the records of a JSONL file (blank lines are skipped).

    Raises:
        FileNotFoundError: no such file.
        RecordError: a line is not valid JSON or not a well-formed record; the message starts
            with ``<path>:<line number>:`` and names the field.
    """
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(f"{path}:{n}: invalid JSON ({e.msg} at column {e.colno})") from e
            try:
                validate_record(rec)
            except RecordError as e:
                raise RecordError(f"{path}:{n}: {e}") from e
            out.append(rec)
    return out


# ---------------------------------------------------------------------------------- replay
StepCallback = typing.Callable[[MCREngine, int, list], None]
"""``on_step(engine, step, decisions)``: called once after ``reset`` with ``step = -1`` and no
decisions, then after every engine step with that step's decision rows. (``typing.Callable``:
unlike ``collections.abc.Callable`` it is subscriptable on Python 3.6, where an exported Botzone
bot imports this module.)"""


def _diff(path: str, got, want) -> str | None:
    """First difference between two JSON-like values, as ``path: got X, recorded Y``."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in want:
            d = _diff(f"{path}.{k}", got.get(k), want[k])
            if d:
                return d
        return None
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (x, y) in enumerate(zip(got, want)):
            d = _diff(f"{path}[{i}]", x, y)
            if d:
                return d
        return None
    return None if got == want else f"{path}: engine gives {got!r}, record has {want!r}"


def _check_hand_start(eng: MCREngine, hand: dict, h: int, walls: np.ndarray) -> None:
    st = eng.state
    got = _hand_header(st, 0)
    want = {k: hand[k] for k in got}
    d = _diff(f"hands[{h}]", got, want)
    if d:
        raise ReplayError(f"at the deal of hand {h}: {d}")
    if not np.array_equal(st.wall[0, : walls.shape[-1]], walls[h]):
        raise ReplayError(f"at the deal of hand {h}: the engine did not deal the recorded wall")


def _auto_passed(eng: MCREngine) -> bool:
    """Game 0 waits for a claim round or robbing window in which no asked seat has an option
    besides Pass: one the ``claim_round="options"`` engine passes automatically."""
    if int(eng.state.phase[0]) not in (int(Phase.CLAIM), int(Phase.ROB)):
        return False
    asked = eng.legal_mask[0, eng.to_act[0]]
    return not asked[:, 1:].any()


def replay(
    record: dict, on_step: StepCallback | None = None, *, claim_round: str | None = None
) -> MCREngine:
    """Re-run a record on a fresh engine (B = 1) and verify it.

    Checks, in order: the record is well formed (:func:`validate_record`); seeded walls equal
    the walls re-derived from ``origin`` (``seeded_walls``); at every deal the dealer, wind,
    seating and wall are the recorded ones; at every step the engine asks exactly the recorded
    seats and each recorded action is legal for its seat (with ``illegal_action="penalize"`` an
    illegal action is replayed and must then be punished as recorded); every hand ends at the
    step the record says, with the recorded result (end reason, winner, payer, win tile, fans,
    total, settlement, offenders); the game then terminates with the recorded final scores,
    table points and every :class:`GameState` field identical to ``final_state``.

    Args:
        record: a record dict (module docstring).
        on_step: optional callback (:data:`StepCallback`), e.g. to print the table move by move.
        claim_round: None (replay as recorded) or ``"all"``: replay a record made with
            ``claim_round="options"`` on an engine that asks every seat in every claim round and
            robbing window (docs/rules.md §10), so the steps are those a table shows every seat
            (seat views of :func:`mcr_env.engine.render.render_record`). The seats the recorded
            engine did not ask answer Pass (their only legal answer), a round nobody could
            answer is a step of Passes, and ``on_step`` gets the engine's own step numbers and
            every seat's decision of the step (seat order). Same checks; the final state is
            the same in both modes.

    Returns:
        The engine (B = 1) in the final state of the game.

    Raises:
        RecordError: the record is malformed.
        ReplayError: the engine disagrees with the record (the message names step, hand and
            what differs).
        ValueError: ``claim_round`` is not None or "all".
    """
    if claim_round not in (None, "all"):
        raise ValueError(f"claim_round must be None or 'all', got {claim_round!r}")
    validate_record(record)
    config = RulesConfig.from_dict(record["config"])
    convert = claim_round == "all" and config.claim_round != "all"
    if convert:
        config = dataclasses.replace(config, claim_round="all")
    hands = record["hands"]
    walls = np.stack([_parse_wall(x["wall"], config.wall_layout, "wall") for x in hands])
    origin = record["origin"]
    if origin["seed"] is not None:
        for h in range(origin["explicit_walls"], len(hands)):
            want = seeded_walls(
                config.wall_layout,
                origin["seed"],
                np.array([origin["game"]]),
                np.array([origin["episode"]]),
                np.array([h]),
            )[0]
            if not np.array_equal(want, walls[h]):
                raise ReplayError(
                    f"hands[{h}].wall differs from the seeded wall of seed {origin['seed']}, "
                    f"game {origin['game']}, episode {origin['episode']}, hand {h}"
                )
    eng = MCREngine(1, config)
    if config.match == "match":
        eng.reset(walls=walls[None])
    else:  # a single hand may have any prevalent wind (the Botzone judge's quan)
        eng.reset(walls=walls[:1], prevalent_wind=hands[0]["prevalent_wind"])
    _check_hand_start(eng, hands[0], 0, walls)
    if on_step is not None:
        on_step(eng, -1, [])
    penalize = config.illegal_action == "penalize"
    n_steps = 0  # steps of the replaying engine (differs from the record's when converting)

    def passes(where: str, may_end: bool) -> None:
        """Converting: play the rounds the recorded engine passed automatically."""
        nonlocal n_steps
        while not eng.terminated[0] and _auto_passed(eng):
            seats = np.nonzero(eng.to_act[0])[0].tolist()
            eng.step(np.zeros((1, 4), dtype=np.int64))
            if on_step is not None:
                on_step(eng, n_steps, [[n_steps, s, PASS, action_name(PASS)] for s in seats])
            n_steps += 1
            if eng.hand_over[0] and not may_end:
                raise ReplayError(
                    f"{where}: the engine ended the hand here but the record continues"
                )
            if eng.hand_over[0]:
                return

    for h, hand in enumerate(hands):
        rows = hand["decisions"]
        steps = sorted({r[0] for r in rows})
        by_step: dict[int, list] = {k: [] for k in steps}
        for r in rows:
            by_step[r[0]].append(r)
        for k in steps:
            where = f"step {k} (hand {h})"
            if convert:
                passes(where, may_end=False)
            if eng.terminated[0]:
                raise ReplayError(f"{where}: the game is already over in the engine")
            if int(eng.state.hand_number[0]) != h:
                raise ReplayError(
                    f"{where}: the engine is in hand {int(eng.state.hand_number[0])}, not {h}"
                )
            all_asked = np.nonzero(eng.to_act[0])[0].tolist()
            asked = all_asked
            if convert and int(eng.state.phase[0]) in (int(Phase.CLAIM), int(Phase.ROB)):
                asked = [s for s in all_asked if eng.legal_mask[0, s, 1:].any()]
            seats = [r[1] for r in by_step[k]]
            if seats != asked:
                raise ReplayError(
                    f"{where}: the record answers for seats {seats}, the engine asks seats {asked}"
                )
            actions = np.zeros((1, 4), dtype=np.int64)
            for _, s, a, name in by_step[k]:
                ok = 0 <= a < NUM_ACTIONS and bool(eng.legal_mask[0, s, a])
                if not ok and not penalize:
                    legal = [action_name(int(x)) for x in np.nonzero(eng.legal_mask[0, s])[0]]
                    raise ReplayError(
                        f"{where}: seat {s} action {a} ({name}) is not legal; legal: {legal}"
                    )
                actions[0, s] = a
            eng.step(actions)
            if on_step is not None:
                if convert:
                    acts = {s: int(actions[0, s]) for s in all_asked}
                    said = [[n_steps, s, a, _action_label(a)] for s, a in sorted(acts.items())]
                    on_step(eng, n_steps, said)
                else:
                    on_step(eng, k, by_step[k])
            n_steps += 1
            last = k == steps[-1]
            if convert and last and not eng.hand_over[0]:
                passes(where, may_end=True)
            if bool(eng.hand_over[0]) != last:
                raise ReplayError(
                    f"{where}: the engine "
                    + (
                        "ended the hand here but the record continues"
                        if not last
                        else "did not end the hand, but the record's hand ends here"
                    )
                )
        res = eng.last_hand_result[0]
        got = hand_result_dict(res)
        d = _diff(f"hands[{h}].result", got, hand["result"])
        if d:
            raise ReplayError(f"end of hand {h} (step {steps[-1]}): {d}")
        if h + 1 < len(hands):
            _check_hand_start(eng, hands[h + 1], h + 1, walls)
    if not eng.terminated[0]:
        raise ReplayError("the record ends but the engine's game is not over")
    got_scores = [int(x) for x in eng.state.match_scores[0]]
    d = _diff("final_scores", got_scores, record["final_scores"])
    if d:
        raise ReplayError(d)
    if record["table_points"] is not None:
        d = _diff("table_points", [float(x) for x in eng.table_points[0]], record["table_points"])
        if d:
            raise ReplayError(d)
    for f in _STATE_FIELDS:
        got = getattr(eng.state, f.name)[0]
        want = np.asarray(record["final_state"][f.name])
        if not np.array_equal(got, want):
            idx = tuple(int(i) for i in np.argwhere(got != want)[0]) if got.ndim else ()
            raise ReplayError(
                f"final_state.{f.name}{list(idx)}: engine gives {got[idx].item()!r}, record "
                f"has {want[idx].item()!r}"
            )
    return eng

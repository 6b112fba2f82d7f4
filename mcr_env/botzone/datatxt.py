"""PKU/Botzone match logs (``data.txt``): read, replay through the engine, write.

The format (one match after the other; the PKU dataset's README):

================================== =========================================================
line                               meaning
================================== =========================================================
``Match <id>``                     a new match (Botzone match id)
``Wind <w>``                       prevalent wind 0..3 (East South West North)
``Player <p> Deal t1 .. t13``      seat p's 13 dealt tiles (four lines, seats 0..3)
``Player <p> Draw t``              p draws t (kong replacements too)
``Player <p> Play t``              p discards t
``Player <p> Chi m``               p takes the last discard into the chow with middle tile m
``Player <p> Peng t``              p takes the last discard t as a pung
``Player <p> Gang t``              p takes the last discard t as a kong
``Player <p> AnGang t``            p declares a concealed kong of t
``Player <p> BuGang t``            p adds t to its melded pung
``Player <p> Hu t``                p wins on t (self-drawn, a discard or a robbed kong)
``... Ignore Player <q> <V> t``    suffixes of Peng/Gang/Hu: q also declared V (Chi, Peng,
                                   Gang, Hu) on the same tile and lost on priority (Chi: the
                                   chow's middle tile)
``Fan <F> <description>``          the winner's fan total and the fans
``Score s0 s1 s2 s3``              the settlement per seat
``Huang``                          exhaustive draw (then ``Score 0 0 0 0``)
================================== =========================================================

Seats are the Botzone judge's: seat 0 deals, seat winds are the seat numbers, play goes 0 -> 1
-> 2 -> 3 (docs/rules.md §9). Blank lines are ignored. The ``Fan`` description is free text in
the logs; :func:`write_datatxt` writes ``<中文名>*<count>`` tokens (names of
:mod:`mcr_env.botzone.fan_names`), and a description made only of such tokens (or bare names)
is compared fan by fan on replay, any other only by its total.

:func:`parse_datatxt` reads the lines (syntax: :class:`DataFormatError` names the line number
and what is wrong). :func:`replay_match` plays a match through the engine (botzone layout and
scoring profile, the match's prevalent wind): the wall is rebuilt from the deals and draws
(each seat takes its tiles in the order the log lists them), every logged action must be legal
where the engine asks for it, every draw must be the engine's, and the recorded fans and
scores must be the engine's; the first line that does not fit raises :class:`MatchReplayError`
with the match id and line number. The result carries our game record (the JSON lines of
:mod:`mcr_env.engine.records`) and, optionally, the behaviour-cloning samples (observation,
mask, action) of every decision of all four seats. :func:`replay_file` replays a whole file and
reports every match that does not replay (never skipped silently). :func:`write_datatxt`
writes one of our records as a match log (the round trip: record -> data.txt -> replay ->
the identical record).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mcr_env.botzone.fan_names import FAN_ZH, ZH_FAN
from mcr_env.encoding.actions import (
    ACTION_KIND,
    ACTION_NAMES,
    ACTION_TILE,
    HU,
    PASS,
    ActionKind,
    angang_action,
    bugang_action,
    chi_action,
    gang_action,
    peng_action,
    play_action,
)
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.core import MCREngine
from mcr_env.engine.records import GameRecorder
from mcr_env.engine.state import EndReason, Phase
from mcr_env.engine.walls import make_wall
from mcr_env.tiles import code_to_tile, tile_to_code

RULES = RulesConfig(wall_layout="botzone", scoring_profile="botzone")
"""Rules the logs are replayed with (the Botzone judge's)."""

VERBS = ("Draw", "Play", "Chi", "Peng", "Gang", "AnGang", "BuGang", "Hu")
_VERB = {v.upper(): v for v in VERBS}
_ACT, _DISCARD, _CLAIM, _ROB, _OVER = (
    int(p) for p in (Phase.ACT, Phase.DISCARD, Phase.CLAIM, Phase.ROB, Phase.OVER)
)
_K = {k.name: int(k) for k in ActionKind}


class DataFormatError(ValueError):
    """A malformed data.txt line (the message: source, line number, the line, what is wrong)."""


class MatchReplayError(ValueError):
    """A match that does not replay through the engine. Attributes: ``match_id``, ``line_no``
    (the first line that does not fit), ``line``, ``reason``."""

    def __init__(self, match_id: str, line_no: int, line: str, reason: str):
        super().__init__(f"match {match_id}, line {line_no} {line!r}: {reason}")
        self.match_id, self.line_no, self.line, self.reason = match_id, line_no, line, reason


@dataclass(frozen=True)
class Event:
    """One ``Player p <Verb> t`` line."""

    line_no: int
    text: str
    player: int
    verb: str
    """One of :data:`VERBS`."""
    tile: int
    ignores: tuple[tuple[int, str, int], ...] = ()
    """``(player, verb, tile)`` of each ``Ignore`` suffix."""


@dataclass
class MatchLog:
    """One parsed match."""

    match_id: str
    line_no: int
    """Line number of its ``Match`` line."""
    wind: int = -1
    deals: list[tuple[int, ...]] = field(default_factory=lambda: [(), (), (), ()])
    events: list[Event] = field(default_factory=list)
    fan_total: int | None = None
    fan_text: str = ""
    fan_line: int = 0
    scores: tuple[int, ...] | None = None
    score_line: int = 0
    huang: bool = False
    huang_line: int = 0
    end_line: int = 0
    """Line number of the last line of the match."""


# ---------------------------------------------------------------------------------- parsing
def _bad(source: str, n: int, line: str, what: str) -> DataFormatError:
    return DataFormatError(f"{source} line {n}: {what}: {line.strip()!r}")


def _tile(tok: str, source: str, n: int, line: str) -> int:
    try:
        t = code_to_tile(tok)
    except ValueError:
        raise _bad(source, n, line, f"bad tile code {tok!r}") from None
    if t >= 34:
        raise _bad(source, n, line, f"flower {tok!r} (the logs' botzone layout has none)")
    return t


def _seat(tok: str, source: str, n: int, line: str) -> int:
    if tok not in ("0", "1", "2", "3"):
        raise _bad(source, n, line, f"player must be 0..3, got {tok!r}")
    return int(tok)


def _int(tok: str, what: str, source: str, n: int, line: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise _bad(source, n, line, f"{what} must be an integer, got {tok!r}") from None


def parse_datatxt(lines: Iterable[str], source: str = "data.txt") -> Iterator[MatchLog]:
    """Parse match logs (syntax only; see :func:`replay_match` for the game itself).

    Args:
        lines: the file's lines.
        source: name used in error messages.

    Yields:
        :class:`MatchLog` per match.

    Raises:
        DataFormatError: a malformed line: unknown keyword or verb, wrong number of fields, bad
            seat, wind, tile code or number, a line outside a match, a Deal that is not 13
            tiles or repeats a seat, a line after the match's Score.
    """
    cur: MatchLog | None = None
    done = False
    for n, raw in enumerate(lines, start=1):
        t = raw.split()
        if not t:
            continue
        head = t[0]
        if head == "Match":
            if len(t) != 2:
                raise _bad(source, n, raw, "'Match' takes one id")
            if cur is not None:
                yield cur
            cur, done = MatchLog(match_id=t[1], line_no=n), False
            continue
        if cur is None:
            raise _bad(source, n, raw, "line before the first 'Match'")
        if done:
            raise _bad(source, n, raw, "line after the match's Score (a 'Match' line missing?)")
        cur.end_line = n
        if head == "Wind":
            if len(t) != 2 or t[1] not in ("0", "1", "2", "3"):
                raise _bad(source, n, raw, "'Wind' takes one wind 0..3")
            cur.wind = int(t[1])
        elif head == "Player":
            if len(t) < 4:
                raise _bad(source, n, raw, "'Player p <Verb> <tile>' needs a verb and a tile")
            p = _seat(t[1], source, n, raw)
            if t[2] == "Deal":
                if len(t) != 16:
                    raise _bad(source, n, raw, f"a Deal lists 13 tiles, got {len(t) - 3}")
                if cur.deals[p]:
                    raise _bad(source, n, raw, f"a second Deal of player {p}")
                cur.deals[p] = tuple(_tile(x, source, n, raw) for x in t[3:])
                continue
            verb = _VERB.get(t[2].upper())
            if verb is None:
                raise _bad(
                    source,
                    n,
                    raw,
                    f"unknown verb {t[2]!r} (expected Deal, " + ", ".join(VERBS) + ")",
                )
            tile = _tile(t[3], source, n, raw)
            rest = t[4:]
            ignores = []
            while rest:
                if rest[0] != "Ignore" or len(rest) < 5 or rest[1] != "Player":
                    raise _bad(
                        source,
                        n,
                        raw,
                        "after the tile only 'Ignore Player q <Verb> t' suffixes may follow",
                    )
                if verb not in ("Peng", "Gang", "Hu"):
                    raise _bad(
                        source, n, raw, f"'Ignore' suffixes follow Peng, Gang or Hu, not {verb}"
                    )
                q = _seat(rest[2], source, n, raw)
                v = _VERB.get(rest[3].upper())
                if v not in ("Chi", "Peng", "Gang", "Hu"):
                    raise _bad(
                        source,
                        n,
                        raw,
                        f"an ignored action is Chi, Peng, Gang or Hu, not {rest[3]!r}",
                    )
                ignores.append((q, v, _tile(rest[4], source, n, raw)))
                rest = rest[5:]
            cur.events.append(Event(n, raw.strip(), p, verb, tile, tuple(ignores)))
        elif head == "Fan":
            if len(t) < 2:
                raise _bad(source, n, raw, "'Fan' needs the fan total")
            cur.fan_total = _int(t[1], "the fan total", source, n, raw)
            cur.fan_text, cur.fan_line = " ".join(t[2:]), n
        elif head == "Score":
            if len(t) != 5:
                raise _bad(source, n, raw, f"'Score' lists 4 scores, got {len(t) - 1}")
            cur.scores = tuple(_int(x, "a score", source, n, raw) for x in t[1:])
            cur.score_line, done = n, True
        elif head == "Huang":
            if len(t) != 1:
                raise _bad(source, n, raw, "'Huang' takes nothing")
            cur.huang, cur.huang_line = True, n
        else:
            raise _bad(
                source,
                n,
                raw,
                f"unknown line type {head!r} (expected Match, Wind, Player, Fan, Score, Huang)",
            )
    if cur is not None:
        yield cur


def parse_fan_text(text: str) -> dict[int, int] | None:
    """``{fan value: count}`` of a ``Fan`` description made of ``<中文名>`` or
    ``<中文名>*<count>`` tokens; None for any other text (then only the total is compared)."""
    out: dict[int, int] = {}
    for tok in text.split():
        name, _, cnt = tok.partition("*")
        if name not in ZH_FAN or (cnt and not cnt.isdigit()):
            return None
        out[ZH_FAN[name]] = out.get(ZH_FAN[name], 0) + (int(cnt) if cnt else 1)
    return out or None


def fan_text(fans) -> str:
    """The ``Fan`` description we write: ``<中文名>*<count>`` per fan, in the result's order."""
    return " ".join(f"{FAN_ZH[int(f.fan)]}*{int(f.count)}" for f in fans)


# ---------------------------------------------------------------------------------- replay
@dataclass
class Replay:
    """A replayed match."""

    match_id: str
    record: dict
    """Our game record (:mod:`mcr_env.engine.records` format)."""
    obs: np.ndarray | None = None
    """``(N, C, 34) float16`` observations of every decision (all seats), if collected."""
    mask: np.ndarray | None = None
    """``(N, 235) bool`` legal actions."""
    action: np.ndarray | None = None
    """``(N,) int64`` the logged actions."""
    seat: np.ndarray | None = None
    """``(N,) int8`` deciding seat."""
    ret: np.ndarray | None = None
    """``(N,) float32`` that seat's settlement at the end of the hand."""
    fans_compared: bool = False
    """The Fan description was compared fan by fan (else only its total)."""


def _wall_of(m: MatchLog) -> np.ndarray:
    """The botzone wall of a match: each seat's deal, then its draws in log order."""
    for p in range(4):
        if not m.deals[p]:
            raise MatchReplayError(
                m.match_id, m.line_no, f"Match {m.match_id}", f"no Deal of player {p}"
            )
    count = np.zeros(34, dtype=np.int64)
    for p in range(4):
        for t in m.deals[p]:
            count[t] += 1
    if (count > 4).any():
        t = int(np.argmax(count))
        raise MatchReplayError(
            m.match_id,
            m.line_no,
            f"Match {m.match_id}",
            f"the deals hold {int(count[t])} copies of {tile_to_code(t)}",
        )
    taken = [13] * 4
    for e in m.events:
        if e.verb == "Draw":
            count[e.tile] += 1
            taken[e.player] += 1
            if count[e.tile] > 4:
                raise MatchReplayError(
                    m.match_id, e.line_no, e.text, f"a fifth copy of {tile_to_code(e.tile)}"
                )
            if taken[e.player] > 34:
                raise MatchReplayError(
                    m.match_id, e.line_no, e.text, f"player {e.player}'s 34-tile wall is used up"
                )
    draws = [[e.tile for e in m.events if e.verb == "Draw" and e.player == p] for p in range(4)]
    return make_wall([list(d) for d in m.deals], draws, layout="botzone")


def _claim_action(verb: str, tile: int, claimed: int) -> int:
    if verb == "Hu":
        return HU
    if verb == "Peng":
        return peng_action(claimed)
    if verb == "Gang":
        return gang_action(claimed)
    return chi_action(tile, claimed)


class _Game:
    """Replay state of one match in the batch."""

    def __init__(self, m: MatchLog):
        self.m, self.i, self.error, self.done = m, 0, None, False
        self.samples: list[tuple] = []

    def event(self) -> Event | None:
        return self.m.events[self.i] if self.i < len(self.m.events) else None

    def fail(self, e: Event | None, reason: str):
        m = self.m
        if e is None:
            raise MatchReplayError(m.match_id, m.end_line or m.line_no, "(end of match)", reason)
        raise MatchReplayError(m.match_id, e.line_no, e.text, reason)


def _expect_draw(eng, g: int, game: _Game) -> None:
    """The engine drew for the seat to act: the log's next line must be that draw."""
    st = eng.state
    if eng.terminated[g] or int(st.phase[g]) != _ACT:
        return
    s = int(st.current_seat[g])
    t = int(st.drawn_tile[g, s])
    e = game.event()
    if e is None or e.verb != "Draw" or e.player != s:
        game.fail(e, f"the engine's next event is 'Player {s} Draw {tile_to_code(t)}'")
    if e.tile != t:
        game.fail(e, f"the engine draws {tile_to_code(t)} for player {s}")
    game.i += 1


def _logged_actions(eng, g: int, game: _Game) -> tuple[dict, Event | None]:
    """``{seat: (action, event)}`` the log gives at the engine's current decision of game g,
    and the claim line (CLAIM/ROB) if there is one; advances the log pointer."""
    st = eng.state
    ph = int(st.phase[g])
    e = game.event()
    given: dict[int, tuple[int, Event]] = {}
    if ph in (_ACT, _DISCARD):
        c = int(st.current_seat[g])
        if e is None or e.player != c:
            game.fail(e, f"player {c} is to act ({Phase(ph).name})")
        v = e.verb
        if ph == _DISCARD and v != "Play":
            game.fail(e, f"after a Chi/Peng player {c} must Play")
        if v == "Play":
            a = play_action(e.tile)
        elif v == "AnGang" and ph == _ACT:
            a = angang_action(e.tile)
        elif v == "BuGang" and ph == _ACT:
            a = bugang_action(e.tile)
        elif v == "Hu" and ph == _ACT:
            drawn = int(st.drawn_tile[g, c])
            if e.tile != drawn:
                game.fail(e, f"a self-drawn Hu is on the drawn tile {tile_to_code(drawn)}")
            a = HU
        else:
            game.fail(e, f"player {c} cannot {v} here ({Phase(ph).name})")
        given[c] = (a, e)
        game.i += 1
        return given, None
    d, t = int(st.played_by[g]), int(st.tile_in_play[g])
    ok = ("Hu",) if ph == _ROB else ("Hu", "Peng", "Gang", "Chi")
    if e is None or e.player == d or e.verb not in ok:
        return given, None  # nobody claims: every asked seat passed
    for p, v, tile in ((e.player, e.verb, e.tile), *e.ignores):
        if v != "Chi" and tile != t:
            game.fail(e, f"{v} of {tile_to_code(tile)}, the tile in play is {tile_to_code(t)}")
        if p in given or p == d:
            game.fail(e, f"player {p} answers twice or claims its own tile")
        try:
            given[p] = (_claim_action(v, tile, t), e)
        except ValueError as err:
            game.fail(e, str(err))
    game.i += 1
    return given, e


def _finish(eng, g: int, game: _Game, record: dict) -> Replay:
    """Checks at the end of a replayed hand: winner, Fan, Score, nothing left over."""
    m, ev = game.m, game.m.events
    res = eng.last_hand_result[g]
    fans_compared = False
    last = ev[game.i - 1] if game.i else None
    if res.end_reason in (EndReason.SELF_DRAWN, EndReason.DISCARD, EndReason.ROB_KONG):
        if last is None or last.verb != "Hu" or last.player != res.winner:
            game.fail(last, f"the engine's winner is player {res.winner}")
        if m.huang:
            raise MatchReplayError(m.match_id, m.huang_line, "Huang", "the hand was won")
        if m.fan_total is None:
            game.fail(None, "a win needs its 'Fan' line")
        if m.fan_total != res.total:
            raise MatchReplayError(
                m.match_id,
                m.fan_line,
                f"Fan {m.fan_total} {m.fan_text}",
                f"our fan total is {res.total} ({fan_text(res.fans)})",
            )
        logged = parse_fan_text(m.fan_text)
        if logged is not None:
            if logged != {int(f.fan): int(f.count) for f in res.fans}:
                raise MatchReplayError(
                    m.match_id,
                    m.fan_line,
                    f"Fan {m.fan_total} {m.fan_text}",
                    f"our fans are {fan_text(res.fans)}",
                )
            fans_compared = True
    elif res.end_reason == EndReason.EXHAUSTIVE:
        if not m.huang:
            game.fail(game.event(), "the wall is exhausted: 'Huang' expected")
    else:
        game.fail(last, f"the hand ended by {res.end_reason.name}")
    if game.i < len(ev):
        game.fail(game.event(), "the hand is already over")
    if m.scores is None:
        game.fail(None, "no 'Score' line")
    ours = [int(x) for x in res.settlement]
    if list(m.scores) != ours:
        raise MatchReplayError(
            m.match_id,
            m.score_line,
            "Score " + " ".join(map(str, m.scores)),
            f"our scores are {ours}",
        )
    record["origin"]["match_id"] = m.match_id
    out = Replay(m.match_id, record, fans_compared=fans_compared)
    if game.samples:
        sm = game.samples
        out.obs = np.stack([x[0] for x in sm])
        out.mask = np.stack([x[1] for x in sm])
        out.action = np.array([x[2] for x in sm], dtype=np.int64)
        out.seat = np.array([x[3] for x in sm], dtype=np.int8)
        out.ret = res.settlement[out.seat].astype(np.float32)
    return out


def replay_matches(
    matches,
    collect: bool = False,
    encoder="planes-v0",
    claim_round: str = "options",
    max_steps: int = 2000,
) -> list:
    """Replay matches through one engine, all in lockstep (module docstring).

    Args:
        matches: :class:`MatchLog` list.
        collect: also gather the behaviour-cloning samples of every decision (observations
            float16, masks, the logged actions; all four seats).
        encoder: observation encoder id (for ``collect``).
        claim_round: the engine's ``RulesConfig.claim_round`` ("options": samples only where a
            seat has a choice; "all": also every Pass-only claim round, as the judge asks).
        max_steps: safety bound on engine steps.

    Returns:
        per match, in order: a :class:`Replay`, or the :class:`MatchReplayError` of the first
        line that does not fit the engine (an illegal or unasked action, a draw that is not the
        engine's, a wrong winner, Fan total, fans or Score, a missing end).
    """
    n = len(matches)
    out: list = [None] * n
    games = [_Game(m) for m in matches]
    walls = np.zeros((n, 136), dtype=np.int8)
    for k, game in enumerate(games):
        try:
            if game.m.wind < 0:
                raise MatchReplayError(
                    game.m.match_id, game.m.line_no, f"Match {game.m.match_id}", "no Wind line"
                )
            walls[k] = _wall_of(game.m)
        except MatchReplayError as e:
            out[k] = e  # left out of the engine batch
    live = np.array([o is None for o in out], dtype=bool)
    if not live.any():
        return out
    idx = np.flatnonzero(live)
    sub = [games[k] for k in idx]
    b = len(idx)
    eng = MCREngine(b, dataclasses.replace(RULES, claim_round=claim_round))
    rec = GameRecorder(eng)
    rec.reset(walls=walls[idx], prevalent_wind=np.array([g.m.wind for g in sub]))
    enc = None
    if collect:
        from mcr_env.encoding import get_encoder

        enc = get_encoder(encoder)
    active = np.ones(b, dtype=bool)

    def guard(g, fn):
        try:
            fn()
        except MatchReplayError as e:
            out[idx[g]] = e
            active[g] = False

    for g in range(b):
        guard(g, lambda g=g: _expect_draw(eng, g, sub[g]))
    st = eng.state
    for _ in range(max_steps):
        run = active & ~eng.terminated
        if not run.any():
            break
        acts = np.zeros((b, 4), dtype=np.int64)
        claims: dict[int, Event] = {}
        for g in np.flatnonzero(run):
            g = int(g)
            try:
                given, claim = _logged_actions(eng, g, sub[g])
                for p, (a, e2) in given.items():
                    if not eng.to_act[g, p]:
                        sub[g].fail(
                            e2, f"the engine does not ask player {p} here ({ACTION_NAMES[a]})"
                        )
                    if not eng.legal_mask[g, p, a]:
                        legal = ", ".join(
                            ACTION_NAMES[x] for x in np.flatnonzero(eng.legal_mask[g, p])
                        )
                        sub[g].fail(
                            e2, f"{ACTION_NAMES[a]} is not legal for player {p}; legal: {legal}"
                        )
                    acts[g, p] = a
                if claim is not None:
                    claims[g] = claim
            except MatchReplayError as e:
                out[idx[g]] = e
                active[g] = False
        run &= active
        if collect:
            gs, ss = np.nonzero(eng.to_act & run[:, None])
            if gs.size:
                obs = enc.encode(st, gs, ss).astype(np.float16)
                for k, (g, p) in enumerate(zip(gs.tolist(), ss.tolist())):
                    sub[g].samples.append((obs[k], eng.legal_mask[g, p].copy(), int(acts[g, p]), p))
        rec.step(acts, games=run)
        for g in np.flatnonzero(run):
            g = int(g)
            if eng.terminated[g]:
                continue
            c = claims.get(g)

            def after(g=g, c=c):
                if c is not None and int(st.current_seat[g]) != c.player:
                    sub[g].fail(c, f"the engine gives the tile to player {int(st.current_seat[g])}")
                _expect_draw(eng, g, sub[g])

            guard(g, after)
    records = {r["origin"]["game"]: r for r in rec.pop_finished()}
    for g in range(b):
        if out[idx[g]] is not None:
            continue
        if not eng.terminated[g]:
            out[idx[g]] = MatchReplayError(
                sub[g].m.match_id, sub[g].m.line_no, "", f"not over after {max_steps} steps"
            )
            continue
        try:
            out[idx[g]] = _finish(eng, g, sub[g], records[g])
        except MatchReplayError as e:
            out[idx[g]] = e
    return out


def replay_match(
    m: MatchLog, collect: bool = False, encoder="planes-v0", claim_round: str = "options"
) -> Replay:
    """Replay one match (:func:`replay_matches` of one).

    Raises:
        MatchReplayError: the first line that does not fit the engine.
    """
    r = replay_matches([m], collect=collect, encoder=encoder, claim_round=claim_round)[0]
    if isinstance(r, MatchReplayError):
        raise r
    return r


@dataclass
class FileReplay:
    """Outcome of :func:`replay_file`."""

    replays: list[Replay]
    failures: list[MatchReplayError]
    """One per match that did not replay (match id, first bad line, reason)."""

    def dataset(self) -> dict[str, np.ndarray]:
        """The behaviour-cloning arrays of all replayed matches: ``obs (N, C, 34) float16``,
        ``mask (N, 235) bool``, ``action (N,) int64``, ``ret (N,) float32`` (the seat's
        settlement), ``seat (N,) int8``, ``match (N,) int64`` (index into :attr:`replays`)."""
        rs = [r for r in self.replays if r.obs is not None]
        if not rs:
            raise ValueError("no samples: replay with collect=True")
        return {
            "obs": np.concatenate([r.obs for r in rs]),
            "mask": np.concatenate([r.mask for r in rs]),
            "action": np.concatenate([r.action for r in rs]),
            "ret": np.concatenate([r.ret for r in rs]),
            "seat": np.concatenate([r.seat for r in rs]),
            "match": np.concatenate(
                [np.full(len(r.action), k, np.int64) for k, r in enumerate(rs)]
            ),
        }


def replay_file(
    path_or_lines, collect: bool = False, limit: int | None = None, batch: int = 512
) -> FileReplay:
    """Replay every match of a data.txt file (a path or its lines), ``batch`` matches at a
    time. Matches that do not replay are listed in ``failures`` with their first bad line.

    Raises:
        DataFormatError: a malformed line.
    """
    if isinstance(path_or_lines, (str, Path)):
        with open(path_or_lines, encoding="utf-8") as f:
            return replay_file(f, collect=collect, limit=limit, batch=batch)
    res = FileReplay([], [])
    chunk: list[MatchLog] = []

    def flush():
        for r in replay_matches(chunk, collect=collect):
            (res.failures if isinstance(r, MatchReplayError) else res.replays).append(r)
        chunk.clear()

    for k, m in enumerate(parse_datatxt(path_or_lines)):
        if limit is not None and k >= limit:
            break
        chunk.append(m)
        if len(chunk) >= batch:
            flush()
    if chunk:
        flush()
    return res


# ---------------------------------------------------------------------------------- writing
class LogWriter:
    """data.txt lines of the games of an engine (botzone layout, single hands), written as
    they are played: call :meth:`start` after ``reset`` and :meth:`after_step` after every
    ``step`` with its actions. ``lines[g]`` holds game g's lines; ``done[g]`` is set once its
    ``Score`` line is written.

    Raises:
        ValueError (from :meth:`after_step`): a hand ended by a penalty (data.txt has no line
            for it).
    """

    def __init__(self, engine, match_ids):
        if engine.config.wall_layout != "botzone" or engine.config.match != "hand":
            raise ValueError("data.txt holds single hands of the botzone layout")
        self.engine = engine
        self.ids = list(match_ids)
        self.lines: list[list[str]] = [[] for _ in range(engine.batch_size)]
        self.done = np.zeros(engine.batch_size, dtype=bool)
        self._prev = None

    def _snap(self):
        st, e = self.engine.state, self.engine
        return {
            "phase": st.phase.copy(),
            "current": st.current_seat.copy(),
            "played_by": st.played_by.copy(),
            "tile": st.tile_in_play.copy(),
            "drawn": st.drawn_tile.copy(),
            "to_act": e.to_act.copy(),
            "terminated": e.terminated.copy(),
        }

    def _draw(self, g: int) -> None:
        st = self.engine.state
        s = int(st.current_seat[g])
        self.lines[g].append(f"Player {s} Draw {tile_to_code(int(st.drawn_tile[g, s]))}")

    def start(self) -> None:
        """Match, Wind and Deal lines and the dealer's first draw of every game."""
        st = self.engine.state
        for g in range(self.engine.batch_size):
            out = self.lines[g] = [f"Match {self.ids[g]}", f"Wind {int(st.prevalent_wind[g])}"]
            for p in range(4):
                deal = st.wall[g, 34 * p : 34 * p + 13].tolist()  # dealing order
                out.append(f"Player {p} Deal " + " ".join(tile_to_code(t) for t in deal))
            self._draw(g)
        self._prev = self._snap()

    def after_step(self, actions) -> None:
        """Lines of what the last ``step(actions)`` did."""
        eng, prev = self.engine, self._prev
        st = eng.state
        acts = np.asarray(actions, dtype=np.int64)
        word = {_K["HU"]: "Hu", _K["PENG"]: "Peng", _K["GANG"]: "Gang", _K["CHI"]: "Chi"}
        for g in np.flatnonzero(~prev["terminated"]):
            g = int(g)
            out = self.lines[g]
            ph = int(prev["phase"][g])
            if ph in (_ACT, _DISCARD):
                c = int(prev["current"][g])
                a = int(acts[g, c])
                kind = int(ACTION_KIND[a])
                t = int(prev["drawn"][g, c]) if kind == _K["HU"] else int(ACTION_TILE[a])
                verb = {
                    _K["PLAY"]: "Play",
                    _K["ANGANG"]: "AnGang",
                    _K["BUGANG"]: "BuGang",
                    _K["HU"]: "Hu",
                }[kind]
                out.append(f"Player {c} {verb} {tile_to_code(t)}")
            else:
                d, t = int(prev["played_by"][g]), int(prev["tile"][g])
                order = [(d + j) % 4 for j in (1, 2, 3)]
                answers = [
                    (p, int(acts[g, p]))
                    for p in order
                    if prev["to_act"][g, p] and int(acts[g, p]) != PASS
                ]
                if answers:
                    res = eng.last_hand_result[g] if eng.terminated[g] else None
                    w = (
                        res.winner
                        if res is not None and res.winner >= 0
                        else int(st.current_seat[g])
                    )

                    def label(a, t=t):
                        k = int(ACTION_KIND[a])
                        return word[k], tile_to_code(int(ACTION_TILE[a]) if k == _K["CHI"] else t)

                    v, tt = label(next(a for p, a in answers if p == w))
                    line = f"Player {w} {v} {tt}"
                    for p, a in answers:
                        if p != w:
                            v2, t2 = label(a)
                            line += f" Ignore Player {p} {v2} {t2}"
                    out.append(line)
            if eng.terminated[g]:
                res = eng.last_hand_result[g]
                if res.end_reason == EndReason.PENALTY:
                    raise ValueError(f"game {g}: data.txt has no line for a penalty")
                if res.end_reason == EndReason.EXHAUSTIVE:
                    out.append("Huang")
                else:
                    out.append(f"Fan {res.total} {fan_text(res.fans)}".rstrip())
                out.append("Score " + " ".join(str(int(x)) for x in res.settlement))
                self.done[g] = True
            elif int(st.phase[g]) == _ACT:
                self._draw(g)
        self._prev = self._snap()


def write_datatxt(records: list[dict], match_ids=None) -> list[str]:
    """data.txt lines of our records (single hands of the botzone layout), replayed through
    one engine in lockstep; each record's result is checked on the way.

    Args:
        records: game records (:mod:`mcr_env.engine.records`).
        match_ids: one id per record (default ``"0"``, ``"1"``, ...).

    Raises:
        ValueError: a record that is not a single botzone hand, does not replay (the engine
            asks other seats than it answers), or ended by a penalty.
    """
    from mcr_env.engine.records import hand_result_dict, validate_record

    n = len(records)
    ids = [str(k) for k in range(n)] if match_ids is None else list(match_ids)
    if n == 0:
        return []
    for r in records:
        validate_record(r)
        if r["config"]["wall_layout"] != "botzone" or r["config"]["match"] != "hand":
            raise ValueError("data.txt holds single hands of the botzone layout")
    cfg = RulesConfig.from_dict(records[0]["config"])
    walls = np.array([[code_to_tile(c) for c in r["hands"][0]["wall"].split()] for r in records])
    winds = np.array([r["hands"][0]["prevalent_wind"] for r in records])
    eng = MCREngine(n, cfg)
    eng.reset(walls=walls, prevalent_wind=winds)
    log = LogWriter(eng, ids)
    log.start()
    by_step = []
    for r in records:
        d: dict[int, list] = {}
        for k, s, a, _ in r["hands"][0]["decisions"]:
            d.setdefault(k, []).append((s, a))
        by_step.append(d)
    k = 0
    while not eng.terminated.all():
        acts = np.zeros((n, 4), dtype=np.int64)
        for g in np.flatnonzero(~eng.terminated):
            rows = by_step[g].get(k, [])
            if sorted(s for s, _ in rows) != np.flatnonzero(eng.to_act[g]).tolist():
                raise ValueError(f"record {g} ({ids[g]}) does not replay at step {k}")
            for s, a in rows:
                acts[g, s] = a
        eng.step(acts)
        log.after_step(acts)
        k += 1
    for g, r in enumerate(records):
        if hand_result_dict(eng.last_hand_result[g]) != r["hands"][0]["result"]:
            raise ValueError(f"record {g} ({ids[g]}): the replayed result differs")
    return [line for g in range(n) for line in log.lines[g]]

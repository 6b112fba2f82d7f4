"""Two-worlds test helper (docs/design.md "Information"; docs/rules.md §2 hidden information,
§10 who is asked): pairs of games that differ only in what one seat ``s`` cannot see, played whole
through every interface, so that a test can check that everything the interface gives seat ``s``
(observation, mask, seat view, rendered view, replay text, and the order in which agents are
asked to act) is identical in the two worlds.

Construction (why the two worlds show seat ``s`` the same game):

1. **Generate world 0.** An explicit wall is played on the engine (B = 1, the rules given):
   seat ``s`` follows :class:`SeatPolicy`, a deterministic function of its own ``planes-v0``
   observation and mask only (a hash of the bytes picks among the legal actions); the other
   seats play random legal actions (their own business), optionally with a forced opening and
   "protected" tile kinds they never discard or claim. Every decision of another seat ``t`` is
   stored in a *script*, keyed by the PUBLIC channels of ``t``'s own observation (the channels
   of scope "public" in ``planes-v0``), which are the same at the corresponding decision of any
   world with the same public history. While playing, the helper notes which seat took every
   wall position (deal, draws, flower and kong replacements).
2. **Build world 1** by permuting tiles among wall positions that seat ``s`` never sees in
   world 0: positions never drawn (the wall's future), and positions drawn by another seat
   ``t`` that is not the winner and that kept every copy of that kind it drew until the end
   (so the tile was never discarded, melded or shown). Tiles of a concealed kong are changed
   only as a whole kind: the four positions of the kong's kind X are swapped with the four
   positions of a kind Y that seat ``s`` never sees, and the kong is then of Y (``sigma``
   maps the AnGang action of X to that of Y). Everything seat ``s`` sees -- its own deal and
   draws, every discard, every exposed meld, flowers, the winner's hand (the fans of the
   result) -- is at the same position with the same tile.
3. **Validate the pair at the engine level**, independently of every interface under test:
   world 1 is replayed on the engine with every seat (``s`` included) replaying world 0's
   actions keyed by the ENGINE state (all public fields; for ``s`` also its private fields),
   a missing key in a claim round being Pass, and the AnGang action mapped by ``sigma``. The
   pair is kept only if every scripted action is legal and the trace -- public fields plus
   ``s``'s private fields at every ACT / DISCARD / OVER state, and the hand result -- equals
   world 0's. (Claim-round states are left out of the trace: which seats are asked is exactly
   what the skipping mode leaks, and what the interface tests check.)
4. **Play both worlds through an interface**: seat ``s`` uses :class:`SeatPolicy` on what
   the interface gives it, the other seats are :class:`Puppet` s replaying their scripts
   (a decision absent from the script -- a claim round they were not asked in world 0 -- is
   Pass). If the interface gives seat ``s`` nothing that depends on what it cannot see, both
   worlds replay the same public game and seat ``s``'s log is identical; if it leaks, ``s``'s
   log differs (and, since ``s``'s policy reads its observation, the games may then diverge).

Pair kinds (:func:`standard_pairs`): ``hands`` (other seats' concealed tiles permuted among
them), ``wall`` (the undrawn wall permuted), ``mixed`` (both at once: a tile another seat held
comes from the wall's future instead), ``kong`` (another seat's concealed kong of another
kind), ``rob`` (a scripted robbing window: in world 0 a seat can rob the kong, in world 1 it
cannot), in both wall layouts.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass, field

import numpy as np
from engine_helpers import ROB_DRAWS, ROB_HANDS

from mcr_env.encoding import get_encoder
from mcr_env.engine import MCREngine, RulesConfig, make_wall
from mcr_env.engine.actions import (
    ACTION_KIND,
    ACTION_TILE,
    ANGANG_OFFSET,
    HU,
    PASS,
    bugang_action,
    peng_action,
    play_action,
)
from mcr_env.engine.state import Phase, fields_in_scope
from mcr_env.tiles import parse_tiles

ENCODER = get_encoder("planes-v0")
PUBLIC_FIELDS = fields_in_scope("public")
PRIVATE_FIELDS = fields_in_scope("private")
_PUBLIC_CHANNELS = np.concatenate(
    [
        np.arange(ENCODER.num_channels)[ENCODER.piece_slice(p.name)]
        for p in ENCODER.pieces
        if p.scope == "public"
    ]
)
_TRACE_PHASES = (int(Phase.ACT), int(Phase.DISCARD), int(Phase.OVER))
_CLAIM_PHASES = (int(Phase.CLAIM), int(Phase.ROB))


def T(code: str) -> int:
    (t,) = parse_tiles(code)
    return t


# ------------------------------------------------------------------------------- policies
def _legal(mask) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask).astype(bool))


class SeatPolicy:
    """Seat ``s``'s policy: a deterministic function of its own observation and mask only.

    ``overrides`` maps ``SeatPolicy.key(obs, mask)`` to an action (a forced opening is still a
    function of the seat's own observation); otherwise a hash of the observation and mask bytes
    picks one legal action. Callable as ``policy({"observation": (C, 34), "action_mask":
    (235,)}) -> int`` (the Gymnasium opponent / PettingZoo convention).
    """

    def __init__(self, overrides: dict | None = None):
        self.overrides = dict(overrides or {})

    @staticmethod
    def key(obs, mask) -> bytes:
        return np.asarray(obs, np.float32).tobytes() + np.asarray(mask).astype(bool).tobytes()

    def choose(self, obs, mask) -> int:
        k = self.key(obs, mask)
        if k in self.overrides:
            return self.overrides[k]
        legal = _legal(mask)
        h = int.from_bytes(hashlib.blake2b(k, digest_size=8).digest(), "little")
        return int(legal[h % len(legal)])

    def __call__(self, obs_dict) -> int:
        return self.choose(obs_dict["observation"], obs_dict["action_mask"])


def public_key(obs) -> bytes:
    """The public channels (scope "public" in ``planes-v0``) of one ``(C, 34)`` observation."""
    return np.asarray(obs, np.float32)[_PUBLIC_CHANNELS].tobytes()


class Puppet:
    """Another seat replaying world 0's public play: ``script[public_key(obs)]``, mapped by
    ``sigma`` (AnGang action of kind X -> of kind Y) when the scripted action is not legal; a
    decision missing from the script is Pass (a claim round it was not asked in world 0)."""

    def __init__(self, script: dict, sigma: dict | None = None):
        self.script = script
        self.sigma = dict(sigma or {})

    def choose(self, obs, mask) -> int:
        mask = np.asarray(mask).astype(bool)
        a = self.script.get(public_key(obs))
        if a is not None:
            if mask[a]:
                return a
            b = self.sigma.get(a)
            if b is not None and mask[b]:
                return b
        if mask[PASS]:
            return PASS
        return int(_legal(mask)[0])  # off script: the worlds diverge, the comparison fails

    def __call__(self, obs_dict) -> int:
        return self.choose(obs_dict["observation"], obs_dict["action_mask"])


def _angang_sigma(x: int, y: int) -> dict[int, int]:
    return {ANGANG_OFFSET + x: ANGANG_OFFSET + y, ANGANG_OFFSET + y: ANGANG_OFFSET + x}


# ------------------------------------------------------------------------------- the pair
@dataclass
class Pair:
    """Two walls that show seat ``seat`` the same game (module docstring)."""

    name: str
    config: RulesConfig
    seat: int
    walls: np.ndarray  # (2, L) int8: world 0, world 1
    scripts: list  # per seat: {public_key: action} (empty dict for ``seat``)
    overrides: dict  # SeatPolicy overrides of ``seat`` (forced opening)
    sigma: dict = field(default_factory=dict)
    changed: int = 0  # wall positions whose tile differs between the worlds

    def policies(self) -> list:
        """Per absolute seat: ``SeatPolicy`` for ``seat``, ``Puppet`` for the others (the same
        objects serve both worlds)."""
        return [
            SeatPolicy(self.overrides) if t == self.seat else Puppet(self.scripts[t], self.sigma)
            for t in range(4)
        ]

    def __repr__(self) -> str:  # pytest ids
        return f"Pair({self.name}, seat {self.seat}, {self.changed} positions differ)"


def engine_key(st, g: int, seat: int, private: bool) -> bytes:
    parts = [bytes([seat])] + [getattr(st, n)[g].tobytes() for n in PUBLIC_FIELDS]
    if private:
        parts += [getattr(st, n)[g, seat].tobytes() for n in PRIVATE_FIELDS]
    return b"".join(parts)


def _result_key(eng, g: int):
    r = eng.last_hand_result[g]
    return (
        int(r.end_reason),
        int(r.winner),
        int(r.win_from),
        int(r.win_tile),
        int(r.total),
        tuple((int(f.fan), int(f.points), int(f.count)) for f in r.fans),
        tuple(int(x) for x in r.settlement),
    )


def _other_action(mask, rng, protect: frozenset, prefer_angang: bool, hu_prob: float) -> int:
    """Random legal action of another seat in generation (its own business)."""
    legal = _legal(mask)
    kinds = ACTION_KIND[legal]
    if mask[HU] and rng.random() < hu_prob:
        return HU
    angang = legal[kinds == ACTION_KIND[ANGANG_OFFSET]]
    if prefer_angang and angang.size:
        return int(angang[0])
    ok = legal[legal != HU]
    if protect:
        keep = []
        for a in ok.tolist():
            t = int(ACTION_TILE[a])
            tiles_used = _tiles_of_action(a, t)
            if not tiles_used & protect:
                keep.append(a)
        if keep:
            ok = np.array(keep)
    if not ok.size:
        return int(legal[0])
    return int(ok[rng.integers(ok.size)])


def _tiles_of_action(a: int, t: int) -> set:
    """Tile kinds an action shows (Play, claims, kongs); Pass / Hu show none."""
    if a in (PASS, HU) or t < 0:
        return set()
    from mcr_env.engine.actions import CHI_OFFSET, PENG_OFFSET

    if CHI_OFFSET <= a < PENG_OFFSET:
        return {t - 1, t, t + 1}
    return {t}


@dataclass
class _Generation:
    config: RulesConfig
    seat: int
    wall: np.ndarray
    scripts: list
    overrides: dict
    engine_script: dict
    trace: list
    owner: np.ndarray  # (L,) -2 never drawn, -1 owner unknown, else the seat that took it
    final: dict  # final hands / angang kinds / winner


def _undrawn(st, g: int, layout: str) -> np.ndarray:
    """``(L,) bool`` wall positions not yet taken."""
    L = 136 if layout == "botzone" else 144
    pos = np.arange(L)
    out = np.zeros(L, dtype=bool)
    nseg = 4 if layout == "botzone" else 1
    seg_len = 34 if layout == "botzone" else 144
    for k in range(nseg):
        lo, hi = k * seg_len, (k + 1) * seg_len
        f, b = int(st.wall_front[g, k]), int(st.wall_back[g, k])
        out |= (pos >= max(lo, f)) & (pos < min(hi, b))
    return out


def generate(
    wall,
    seat: int,
    config: RulesConfig | None = None,
    seed: int = 0,
    forced: dict | None = None,
    protect=(),
    prefer_angang: bool = False,
    hu_prob: float = 0.5,
    rule_others: bool = False,
) -> _Generation:
    """Play world 0 (module docstring, step 1).

    ``forced``: per seat, a list of actions consumed in order at that seat's decisions that
    have more than one legal action (a forced opening); seat ``seat``'s forced actions become
    :class:`SeatPolicy` overrides (keyed by its own observation). ``rule_others``: the other
    seats play ``baselines.agents.RuleBasedAgent`` (hands that end in a win, leaving part of
    the wall undrawn) instead of random legal actions.
    """
    config = config or RulesConfig()
    rng = np.random.default_rng(seed)
    wall = np.asarray(wall, dtype=np.int8)
    eng = MCREngine(1, config)
    eng.reset(walls=wall[None])
    st = eng.state
    layout = config.wall_layout
    L = wall.shape[0]
    owner = np.full(L, -2, dtype=np.int64)
    taken = ~_undrawn(st, 0, layout)
    if layout == "botzone":
        owner[taken] = np.arange(L)[taken] // 34
    else:
        d = int(st.dealer[0])
        for i in range(4):
            owner[13 * i : 13 * i + 13] = (d + i) % 4
        owner[52] = d
        owner[taken & (np.arange(L) > 52)] = -1  # flower replacements at the deal
    queues = {t: list(v) for t, v in (forced or {}).items()}
    protect = frozenset(protect)
    scripts: list[dict] = [{} for _ in range(4)]
    overrides: dict = {}
    engine_script: dict = {}
    trace = [engine_key(st, 0, seat, True)]
    pol = SeatPolicy(overrides)
    rule = None
    if rule_others:
        from baselines.agents import RuleBasedAgent
        from mcr_env.encoding.seat_view import SeatView

        rule = RuleBasedAgent()
    for _ in range(2000):
        if eng.terminated[0]:
            break
        acts = np.zeros((1, 4), dtype=np.int64)
        for t in np.flatnonzero(eng.to_act[0]).tolist():
            obs = ENCODER.encode(st, np.array([0]), np.array([t]))[0]
            mask = eng.legal_mask[0, t]
            q = queues.get(t)
            if q and _legal(mask).size > 1:
                a = q.pop(0)
                assert mask[a], f"forced action {a} of seat {t} is not legal"
                if t == seat:
                    overrides[SeatPolicy.key(obs, mask)] = a
            elif t == seat:
                a = pol.choose(obs, mask)
            elif rule is not None:
                view = SeatView.from_state(st, np.array([0]), np.array([t]))
                a = int(rule.act(obs[None], mask[None], view)[0])
            else:
                a = _other_action(mask, rng, protect, prefer_angang, hu_prob)
            if t != seat:
                k = public_key(obs)
                assert scripts[t].get(k, a) == a, "public observation key is not unique"
                scripts[t][k] = a
            ek = engine_key(st, 0, t, t == seat)
            assert engine_script.get(ek, a) == a, "engine key is not unique"
            engine_script[ek] = a
            acts[0, t] = a
        before = ~_undrawn(st, 0, layout)
        eng.step(acts)
        new = ~_undrawn(st, 0, layout) & ~before
        if new.any():
            owner[new] = np.arange(L)[new] // 34 if layout == "botzone" else int(st.current_seat[0])
        if int(st.phase[0]) in _TRACE_PHASES:
            trace.append(engine_key(st, 0, seat, True))
    assert eng.terminated[0], "generation did not finish the hand"
    trace.append(_result_key(eng, 0))
    angang = [set() for _ in range(4)]
    for t in range(4):
        for j in range(4):
            if st.angang_tile[0, t, j] >= 0:
                angang[t].add(int(st.angang_tile[0, t, j]))
    final = {"hand": st.hand[0].copy(), "angang": angang, "winner": int(st.winner[0])}
    return _Generation(config, seat, wall, scripts, overrides, engine_script, trace, owner, final)


def unseen_positions(gen: _Generation) -> dict[str, np.ndarray]:
    """Positions whose tile seat ``gen.seat`` never sees in world 0 (module docstring, step 2):
    ``"wall"`` never drawn (flowers excluded), ``"hands"`` kept to the end by another seat that
    did not win (kinds of its concealed kongs excluded), ``"kong"`` per other seat the kinds of
    its concealed kongs."""
    wall = gen.wall.astype(np.int64)
    playing = wall < 34
    undrawn = (gen.owner == -2) & playing
    kept = np.zeros_like(undrawn)
    for t in range(4):
        if t == gen.seat or t == gen.final["winner"]:
            continue
        mine = (gen.owner == t) & playing
        drawn = np.bincount(wall[mine], minlength=34)
        keep_kind = (drawn > 0) & (drawn == gen.final["hand"][t].astype(np.int64))
        for k in gen.final["angang"][t]:
            keep_kind[k] = False
        kept |= mine & keep_kind[np.clip(wall, 0, 33)]
    return {"wall": np.flatnonzero(undrawn), "hands": np.flatnonzero(kept)}


def validate(gen: _Generation, walls1: np.ndarray, sigma: dict | None = None) -> np.ndarray:
    """Module docstring, step 3: ``(K,) bool``, candidate world-1 walls ``walls1 (K, L)`` that
    show seat ``gen.seat`` exactly world 0's game (checked on the engine, batched)."""
    sigma = dict(sigma or {})
    k = walls1.shape[0]
    eng = MCREngine(k, gen.config)
    eng.reset(walls=walls1)
    st = eng.state
    ok = np.ones(k, dtype=bool)
    traces = [[engine_key(st, g, gen.seat, True)] for g in range(k)]
    for _ in range(4000):
        if eng.terminated.all():
            break
        acts = np.zeros((k, 4), dtype=np.int64)
        for g, t in zip(*np.nonzero(eng.to_act)):
            g, t = int(g), int(t)
            mask = eng.legal_mask[g, t]
            a = gen.engine_script.get(engine_key(st, g, t, t == gen.seat))
            if a is not None and not mask[a]:
                a = sigma.get(a)
                a = a if a is not None and mask[a] else None
            if a is None:
                if t != gen.seat and int(st.phase[g]) in _CLAIM_PHASES:
                    a = PASS
                else:
                    ok[g] = False
                    a = int(_legal(mask)[0])
            acts[g, t] = a
        live = ~eng.terminated
        eng.step(acts)
        for g in np.flatnonzero(live).tolist():
            if int(st.phase[g]) in _TRACE_PHASES:
                traces[g].append(engine_key(st, g, gen.seat, True))
    for g in range(k):
        if not eng.terminated[g]:
            ok[g] = False
            continue
        traces[g].append(_result_key(eng, g))
        ok[g] &= traces[g] == gen.trace
    return ok


def _finish(name, gen, wall1, sigma=None) -> Pair:
    return Pair(
        name=name,
        config=gen.config,
        seat=gen.seat,
        walls=np.stack([gen.wall, wall1]).astype(np.int8),
        scripts=gen.scripts,
        overrides=gen.overrides,
        sigma=dict(sigma or {}),
        changed=int((gen.wall != wall1).sum()),
    )


def permuted_pair(name: str, gen: _Generation, which: tuple, seed: int, tries: int = 12) -> Pair:
    """World 1 = world 0 with the tiles at the unseen positions of kinds ``which`` (``"wall"``,
    ``"hands"``) permuted at random; the first candidate that validates.

    Raises:
        AssertionError: no candidate validates, or no position can change.
    """
    rng = np.random.default_rng(seed)
    pos_by = unseen_positions(gen)
    pos = np.concatenate([pos_by[w] for w in which])
    assert len(np.unique(gen.wall[pos])) > 1, f"{name}: nothing to permute"
    cands = []
    while len(cands) < tries:
        w = gen.wall.copy()
        w[pos] = gen.wall[pos][rng.permutation(len(pos))]
        if (w != gen.wall).any():
            cands.append(w)
    cands = np.stack(cands)
    ok = validate(gen, cands)
    assert ok.any(), f"{name}: no permutation of the unseen positions validates"
    return _finish(name, gen, cands[int(np.flatnonzero(ok)[0])])


def _seeded_wall(layout: str, seed: int) -> np.ndarray:
    from mcr_env.engine import seeded_walls

    return seeded_walls(layout, seed, np.array([0]), np.array([0]), np.array([0]))[0]


def _deal_positions(seat: int) -> np.ndarray:
    """Wall positions of ``seat``'s 13 dealt tiles in the official layout (dealer 0: blocks of
    13 from the front, the dealer's first; ``mcr_env.engine.walls``)."""
    return np.arange(13 * seat, 13 * seat + 13)


def _place(wall: np.ndarray, kind: int, positions: np.ndarray) -> np.ndarray:
    """Move the four copies of ``kind`` to ``positions`` (swapping with what was there)."""
    w = wall.copy()
    for p in positions:
        if w[p] == kind:
            continue
        src = [q for q in np.flatnonzero(w == kind) if q not in set(positions.tolist())][0]
        w[src], w[p] = w[p], w[src]
    return w


def kong_pair(name: str, layout: str, seat: int, t: int, u: int, x: str, y: str, seed: int):
    """Seat ``t`` (not ``seat``) is dealt four ``x`` and declares a concealed kong at its
    first turn; seat ``u`` is dealt four ``y`` and keeps them (the other seats never discard or
    claim ``x``/``y``). World 1 swaps the positions of the two kinds: ``t``'s concealed kong is
    of ``y``."""
    X, Y = T(x), T(y)
    wall = _seeded_wall(layout, seed)
    wall = _place(wall, X, _deal_positions(t)[:4])
    wall = _place(wall, Y, _deal_positions(u)[:4])
    gen = generate(
        wall,
        seat,
        RulesConfig(wall_layout=layout),
        seed=seed,
        protect={X, Y},
        prefer_angang=True,
        hu_prob=0.0,
    )
    assert X in gen.final["angang"][t], f"{name}: seat {t} did not declare the concealed kong"
    w1 = gen.wall.copy()
    px, py = np.flatnonzero(gen.wall == X), np.flatnonzero(gen.wall == Y)
    w1[px], w1[py] = Y, X
    sigma = _angang_sigma(X, Y)
    ok = validate(gen, w1[None], sigma)
    assert ok[0], f"{name}: the swapped concealed kong does not validate"
    return _finish(name, gen, w1, sigma)


# Robbing window: the scenario of tests/test_engine_rules.py (engine_helpers.ROB_HANDS).


def rob_pair(name: str, seat: int = 0) -> Pair:
    """World 0: seat 2 could rob seat 1's promoted kong (and win on the dealer's 9p) but passes;
    world 1: seat 2's 7p 8p are swapped with two tiles seat ``seat`` never sees (kept by
    another seat or never drawn), so it cannot."""
    wall = make_wall(ROB_HANDS, draws=ROB_DRAWS, replacements=["3m"])
    forced = {
        0: [play_action(T("9p")), play_action(T("2z"))],
        1: [peng_action(T("9p")), play_action(T("7z")), bugang_action(T("9p"))],
        2: [PASS, play_action(T("7z")), PASS],
        3: [play_action(T("1z"))],
    }
    gen = generate(
        wall, seat, RulesConfig(), seed=7, forced=forced, protect={T("7p"), T("8p")}, hu_prob=0.0
    )
    deal2 = _deal_positions(2)
    mine = [int(p) for p in deal2 if gen.wall[p] in (T("7p"), T("8p"))]
    un = unseen_positions(gen)
    free = np.concatenate([un["wall"], un["hands"]])
    near = (T("6p"), T("7p"), T("8p"), T("9p"))
    free = [int(p) for p in free if gen.owner[p] != 2 and gen.wall[p] not in near]
    assert len(mine) == 2 and len(free) >= 2, f"{name}: scenario did not play as scripted"
    w1 = gen.wall.copy()
    w1[mine], w1[free[:2]] = gen.wall[free[:2]], gen.wall[mine]
    ok = validate(gen, w1[None])
    assert ok[0], f"{name}: the robbing-window pair does not validate"
    return _finish(name, gen, w1)


@functools.cache
def standard_pairs() -> tuple[Pair, ...]:
    """The pairs every interface test plays (built once per process, a few seconds)."""
    pairs = []
    for name, layout, seat, seed, which, rule in (
        ("hands-official-s0", "official", 0, 11, ("hands",), False),
        ("hands-official-s2", "official", 2, 12, ("hands",), False),
        ("mixed-official-s1", "official", 1, 13, ("hands", "wall"), True),
        ("wall-official-s3", "official", 3, 14, ("wall",), True),
        ("hands-botzone-s1", "botzone", 1, 15, ("hands",), False),
    ):
        for sd in range(seed, seed + 1000, 100):  # a hand that leaves something to permute
            cfg = RulesConfig(wall_layout=layout)
            gen = generate(_seeded_wall(layout, sd), seat, cfg, seed=sd, rule_others=rule)
            pos = np.concatenate([unseen_positions(gen)[w] for w in which])
            if len(np.unique(gen.wall[pos])) > 1:
                break
        pairs.append(permuted_pair(name, gen, which, sd))
    pairs.append(kong_pair("kong-official-s0", "official", 0, 2, 3, "5m", "8s", seed=21))
    pairs.append(rob_pair("rob-official-s0", seat=0))
    return tuple(pairs)


def with_claim_round(config: RulesConfig, mode: str) -> RulesConfig:
    """``config`` with ``claim_round=mode`` (docs/rules.md §10)."""
    return dataclasses.replace(config, claim_round=mode)

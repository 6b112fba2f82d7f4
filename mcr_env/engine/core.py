"""The batched MCR game engine (docs/rules.md §2-§4, docs/design.md "Engine contract").

:class:`MCREngine` plays B independent games at once. The state is a :class:`GameState` (struct
of numpy arrays, leading dim B). After every ``reset``/``step``:

* ``to_act (B, 4) bool`` -- the seats that must answer now;
* ``legal_mask (B, 4, 235) bool`` -- what each of them may do (all False for seats not acting);
* ``rewards (B, 4) int32`` -- settlement of the hands that ended in this step, per seat (zeros
  otherwise); ``player_rewards (B, 4) int32`` the same indexed by player (match mode);
* ``terminated (B,) bool`` -- the game is over (single hand: the hand ended; match: hand 16 ended);
* ``hand_over (B,) bool`` -- a hand ended in this step (in match mode the next hand is then
  already dealt, so the state shows the new hand; the finished hand is in
  ``last_hand_result[b]``).

Decisions (one step = one decision per game; every live game advances every step, or only the
games selected by ``step(actions, games=...)``):

* ``Phase.ACT`` -- the current seat drew (or took a kong replacement): Hu, AnGang, BuGang, Play.
  A kong needs a replacement tile (botzone layout: in the declarer's own wall, and the next
  seat's wall must not be empty either, as the Botzone judge rules; docs/rules.md §2, §9).
* ``Phase.DISCARD`` -- after its Chi/Peng the claimer must Play.
* ``Phase.CLAIM`` -- the other seats answer the discard at once. Who is asked is
  ``RulesConfig.claim_round`` (docs/rules.md §10): ``"options"`` (default) asks only seats with
  at least one option besides Pass (``to_act``) and passes a round nobody can answer
  automatically inside the same step (no decision is created); ``"all"`` asks all three
  non-discarders in every round, a seat without an option getting a Pass-only mask. A seat that
  can Hu may claim Peng, Gang or Chi instead (docs/rules.md §2; the Botzone judge accepts it). Chi,
  Peng and Gang need a tile left after the discarder (the last discard may only be won); Gang
  also a replacement tile for the claimer.
* ``Phase.ROB`` -- after a BuGang, seats that can win on the added tile answer Hu or Pass (with
  ``claim_round="all"``: all three other seats, Pass-only where they cannot win).

Automatic (no decision): flower replacement, draws, replacement draws, exhaustive draw, and
(``claim_round="options"``) claim rounds and robbing windows where nobody can answer.

Match mode (``RulesConfig(match="match")``, docs/rules.md §4): the hand boundary is exposed
by ``hand_over``; the next hand is dealt in the same step (dealer, prevalent wind and
``state.player_at_seat`` from :func:`match_hand_layout`), ``terminated`` is set only after hand
16, and ``table_points`` then holds the 4/2/1/0 points per player. Seats (0..3, play order) are
what ``to_act``, ``legal_mask``, actions and ``rewards`` index; players are what
``player_rewards``, ``state.match_scores`` and ``table_points`` index; ``state.player_at_seat``
maps one to the other for the current hand (``last_hand_result[b].player_at_seat`` for the
finished one).

Replays: a game is determined by its wall(s) and the actions; ``reset(walls=...)`` followed by
the same ``step`` calls reproduces it exactly (seeded walls come from
:func:`mcr_env.engine.walls.seeded_walls`).

Implementation: the per-step work runs in compiled kernels (:mod:`mcr_env.engine.kernels`,
numba) that loop over the games of the batch: :func:`~mcr_env.engine.kernels.step_kernel`
applies the actions (discards, kongs, claims in seat priority, draws with flower replacement)
and builds the legal masks with an exact shape test of every hand that could win;
:func:`~mcr_env.engine.kernels.deal_kernel` deals. Hu is legal for a complete hand worth 8
points (docs/rules.md §2): the kernel decides most complete hands with a compiled bound
(:func:`mcr_env.scoring.hu_bound.legal_win_bound`, checked against the exact scorer) and lists
the others for the exact scorer (``score_win``, Python, answered from a bounded cache,
:func:`score_cache_info`); a win taken on a hand the bound found legal is scored exactly when
it is settled (:attr:`MCREngine.hu_decisions` counts the three cases). A usual step is one kernel
call whatever B is (one more per round of scoring or per ended hand).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from mcr_env.engine import external
from mcr_env.engine.actions import (
    ActionKind,
)
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.kernels import (
    MASKS,
    SUIT_TABLE,
    clear_games_kernel,
    deal_kernel,
    hands_ended_kernel,
    output_buffers,
    output_views,
    random_step_views,
    step_kernel,
    step_live_kernel,
    step_random_kernel,
)
from mcr_env.engine.results import (
    K_OK,
    K_WIN,
    KEY_LEN,
    score_args,
    score_keys_kernel,
    wins_kernel,
)
from mcr_env.engine.sampling import generator_pointers
from mcr_env.engine.state import (
    EndReason,
    GameState,
    MeldKind,
    Phase,
)
from mcr_env.engine.walls import check_walls, seeded_walls
from mcr_env.scoring.fans import PROFILES

HANDS_PER_MATCH = 16

_ALL_GAMES = np.zeros(0, dtype=bool)  # step(games=None): no selection (step_live_kernel)

# plain ints of the enums, for the hot paths
_A_ANGANG = int(ActionKind.ANGANG)
_A_BUGANG = int(ActionKind.BUGANG)
_A_CHI = int(ActionKind.CHI)
_A_GANG = int(ActionKind.GANG)
_A_HU = int(ActionKind.HU)
_A_PENG = int(ActionKind.PENG)
_A_PLAY = int(ActionKind.PLAY)
_M_ANGANG = int(MeldKind.ANGANG)
_M_CHI = int(MeldKind.CHI)
_M_GANG = int(MeldKind.GANG)
_M_PENG = int(MeldKind.PENG)
_P_ACT = int(Phase.ACT)
_P_CLAIM = int(Phase.CLAIM)
_P_DISCARD = int(Phase.DISCARD)
_P_OVER = int(Phase.OVER)
_P_ROB = int(Phase.ROB)
_E_SELF = int(EndReason.SELF_DRAWN)
_E_DISCARD = int(EndReason.DISCARD)
_E_EXHAUSTIVE = int(EndReason.EXHAUSTIVE)


# Seat occupied by each player in round r (docs/rules.md §4): PLAYER_AT_SEAT[r, seat] = player.
PLAYER_AT_SEAT = np.array([[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 1, 0], [3, 2, 0, 1]], dtype=np.int8)
"""``(4, 4) int8``: player at each seat in round r (0 East, 1 South, 2 West, 3 North round)."""
SEAT_OF_PLAYER = np.argsort(PLAYER_AT_SEAT, axis=1).astype(np.int8)
"""``(4, 4) int8``: seat of each player in round r."""


def match_hand_layout(hand_number: int) -> tuple[int, int, np.ndarray]:
    """Dealer seat, prevalent wind and player-at-seat of hand ``hand_number`` (0..15) of a match.

    Round ``r = hand_number // 4`` has prevalent wind r. Before rounds 2-4 the players change
    places (PLAYER_AT_SEAT); the first dealer of each round is the seat of player 0 (East of hand
    1), and the dealership passes to the next seat after every hand (docs/rules.md §4).

    Returns:
        ``(dealer_seat, prevalent_wind, player_at_seat (4,) int8)``.

    Raises:
        ValueError: hand_number outside 0..15.
    """
    if not 0 <= int(hand_number) < HANDS_PER_MATCH:
        raise ValueError(f"hand_number must be 0..15, got {hand_number}")
    r, k = divmod(int(hand_number), 4)
    dealer = (int(SEAT_OF_PLAYER[r, 0]) + k) % 4
    return dealer, r, PLAYER_AT_SEAT[r].copy()


_MATCH_LAYOUT = [match_hand_layout(h) for h in range(HANDS_PER_MATCH)]
_MATCH_DEALER = np.array([x[0] for x in _MATCH_LAYOUT], dtype=np.int64)
_MATCH_WIND = np.array([x[1] for x in _MATCH_LAYOUT], dtype=np.int64)
_MATCH_PLAYERS = np.stack([x[2] for x in _MATCH_LAYOUT]).astype(np.int64)


@dataclass(frozen=True)
class HandResult:
    """Outcome of one finished hand (``MCREngine.last_hand_result[b]``).

    ``settlement`` and ``winner``/``win_from`` are per SEAT of that hand; ``player_at_seat`` maps
    them to players (match mode).
    """

    hand_number: int
    """Hand index in the match (0 in single-hand mode)."""
    end_reason: EndReason
    """How the hand ended."""
    winner: int
    """Winning seat, -1 if none."""
    win_from: int
    """Seat that paid as discarder (robbed kong included), -1 for self-drawn or no win."""
    win_tile: int
    """Winning tile id, -1 if none."""
    fans: tuple
    """The winner's fans: tuple of scorer ``FanResult`` (empty if no win)."""
    total: int
    """Winner's total points including flowers (0 if no win)."""
    settlement: np.ndarray
    """``(4,) int32`` points per seat (sums to zero)."""
    player_at_seat: np.ndarray
    """``(4,) int8`` player at each seat in that hand."""
    offenders: tuple = ()
    """Seats punished for an illegal action (``illegal_action="penalize"``)."""


def _not_a_win_error() -> type[ValueError]:
    """Late import of the scorer's "not a win" exception (layer below the engine)."""
    from mcr_env.scoring import NotAWinError

    return NotAWinError


def _scoring():
    """Late import of the scorer (layer below the engine)."""
    from mcr_env.scoring.score import score_counts
    from mcr_env.scoring.settlement import penalty

    return score_counts, penalty


MAX_DEFERRED_RESULTS = 64
"""Ended-hand records (one per step that ended hands) the engine keeps before it builds their
:class:`HandResult` even unread (:meth:`MCREngine._defer_results`): a bound on the memory."""

SCORE_CACHE_SIZE = 1 << 12
"""Entries of the exact-scoring cache shared by all engines of the process (bounded LRU).
The hands that repeat are mostly met again within a few decisions (a seat waiting on a tile
that is discarded again): in greedy and uniform play a cache of 4,096 entries answers as
many lookups as one of 65,536, and keeps less for the garbage collector to scan."""

_score_counts = None  # mcr_env.scoring.score.score_counts, bound on first use


@functools.lru_cache(maxsize=SCORE_CACHE_SIZE)
def _cached_score(key: tuple):
    """The exact score of one complete hand, keyed by a row of
    :func:`mcr_env.engine.results.score_keys_kernel` (a tuple of ints: everything the score
    depends on: concealed counts, win tile, melds, the four flags, winds, flowers, profile);
    the ScoreResult if it is a legal win (>= 8 points without flowers, docs/rules.md §2),
    else None."""
    global _score_counts
    if _score_counts is None:
        _score_counts = _scoring()[0]
    try:
        res = _score_counts(*score_args(key))
    except _not_a_win_error():
        # the shape tests and the scorer disagree only if the scorer finds no winning
        # reading; any other error is an engine bug and must surface
        return None
    return res if res.is_legal_win else None


def score_cache_info() -> dict:
    """Counters of the engine's exact-scoring cache (all engines of the process): ``hits``,
    ``misses``, ``size`` (entries held), ``maxsize`` and ``hit_rate`` (hits / lookups, 0.0
    before any lookup). The scorer runs only for (game, seat) hands found complete."""
    info = _cached_score.cache_info()
    looked = info.hits + info.misses
    return {
        "hits": info.hits,
        "misses": info.misses,
        "size": info.currsize,
        "maxsize": info.maxsize,
        "hit_rate": info.hits / looked if looked else 0.0,
    }


class MCREngine:
    """B games of MCR played in lockstep (docs/rules.md §2-§4).

    Args:
        batch_size: B >= 1.
        config: :class:`RulesConfig` (wall layout, scoring profile, illegal-action handling,
            single hand or 16-hand match).
        first_game: index of game 0 of this engine in a larger batch that is split into shards
            (:class:`mcr_env.envs.sharded.ShardedBatchEnv`): seeded walls derive from the game
            index ``first_game + b``, so a shard deals exactly the games of the whole batch.

    Attributes (all refreshed by ``reset``/``step``):
        state: :class:`GameState`.
        to_act: ``(B, 4) bool`` seats that must answer.
        legal_mask: ``(B, 4, 235) bool`` legal actions of acting seats.
        rewards: ``(B, 4) int32`` settlement per seat of hands ended in the last step.
        player_rewards: ``(B, 4) int32`` the same per player.
        terminated: ``(B,) bool`` game over.
        hand_over: ``(B,) bool`` a hand ended in the last step.
        table_points: ``(B, 4) float32`` match table points per player (4/2/1/0 by rank, ties
            share the mean), set when a match terminates.
        last_hand_result: list of B :class:`HandResult` or None.

    Raises:
        TypeError/ValueError: bad batch_size, config or first_game.
    """

    def __init__(self, batch_size: int, config: RulesConfig | None = None, *, first_game: int = 0):
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"batch_size must be an int, got {type(batch_size).__name__}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if isinstance(first_game, bool) or not isinstance(first_game, (int, np.integer)):
            raise TypeError(f"first_game must be an int, got {type(first_game).__name__}")
        if first_game < 0:
            raise ValueError(f"first_game must be >= 0, got {first_game}")
        # index of game 0 in the whole batch when this engine is one shard of it (seeded walls
        # derive from first_game + b, so a shard deals the same games as the whole batch)
        self.first_game = int(first_game)
        if config is None:
            config = RulesConfig()
        if not isinstance(config, RulesConfig):
            raise TypeError(f"config must be a RulesConfig, got {type(config).__name__}")
        self.batch_size = int(batch_size)
        self.config = config
        self._botzone = config.wall_layout == "botzone"
        self._match = config.match == "match"
        self._ask_all = config.claim_round == "all"  # docs/rules.md §10
        self._wall_len = 136 if self._botzone else 144
        self._penalty = _scoring()[1]
        self._profile_index = PROFILES.index(config.scoring_profile)
        b = self.batch_size
        self.state = GameState.empty(b)
        # kernel buffers (mcr_env.engine.kernels): the state's three buffers (its fields are
        # views of them) and the output buffers, whose views are the engine's outputs; a
        # kernel call passes these six arrays, not one per field
        self._bufs = self.state.packed_buffers()
        self._obufs = output_buffers(b)
        (
            self.to_act,  # (B, 4) bool
            self.legal_mask,  # (B, 4, 235) bool
            self.hand_over,  # (B,) bool
            self._illegal,  # (B, 4) bool acting seats with an illegal action
            self._need,  # (B,) bool games whose masks are to be built
            self._hu_state,  # (B, 4) int8 1 to score, 2 legal win, 3 not
            self.rewards,  # (B, 4) int32
            self.player_rewards,  # (B, 4) int32
            self._cand,  # (4B, 4) int64 hands to score
            self._ev,  # (B, 4) int64 ended hands (game, reason, winner, from)
        ) = output_views(*self._obufs)
        # complete hands decided by the compiled 8-point bound (legal, not legal) or left to
        # the exact scorer (hu_decisions): the last three entries of the int64 output buffer
        self._hu_stats = self._obufs[2][-3:]
        # terminated (B,) bool is an output view too; the games, actions and bit generator
        # of a step_random call live in the output buffers (so that call passes no more)
        self.terminated, self._live, self._acts, self._rng_slots = random_step_views(*self._obufs)
        self.terminated[:] = True
        self._rng: np.random.Generator | None = None  # the Generator in _rng_slots
        self.table_points = np.zeros((b, 4), dtype=np.float32)
        self._results: list[HandResult | None] = [None] * b  # last_hand_result
        # hands ended whose HandResult is not built yet, in order (_defer_results)
        self._deferred: list[tuple[list, object]] = []
        self._raise = config.illegal_action == "raise"
        self._no_acts = np.zeros((b, 4), dtype=np.int64)  # the actions of a masks-only pass
        # single-hand deals: dealer seat 0 (and East) and players 0..3 at seats 0..3 (read only)
        self._zeros = np.zeros(b, dtype=np.int64)
        self._seat_players = np.ascontiguousarray(np.tile(np.arange(4, dtype=np.int64), (b, 1)))
        # root seed of each game (walls derive from it, the game index and the episode counter);
        # set per game so that a partial reset with a seed never reseeds the other games
        self._root_seeds = np.zeros(b, dtype=np.uint64)
        self._seeded = False  # some reset has set the root seeds
        self._one_root = True  # every game has the same root seed (all but partial seeded resets)
        self._episode = np.full(b, -1, dtype=np.int64)
        self._match_walls: np.ndarray | None = None  # (B, 16, L) explicit match walls
        # (game, seat) -> (ScoreResult, win_tile) of the hands the exact scorer found legal in
        # the current decision (hands the bound found legal are scored when the Hu is taken)
        self._hu: dict[tuple[int, int], tuple] = {}
        self._started = False

    # ------------------------------------------------------------------ public properties
    @property
    def last_hand_result(self) -> list[HandResult | None]:
        """List of B :class:`HandResult` (the last finished hand of each game) or None (no
        hand finished since its reset). Built when read: the engine records a hand's end in
        arrays, and an env that resets the game in the same step never builds it."""
        if self._deferred:
            self._build_results()
        return self._results

    @property
    def phase(self) -> np.ndarray:
        """``(B,) int8`` :class:`Phase` of each game."""
        return self.state.phase

    @property
    def current_seat(self) -> np.ndarray:
        """``(B,) int8`` seat whose turn it is."""
        return self.state.current_seat

    @property
    def hu_decisions(self) -> dict:
        """How the Hu legality of the complete hands met so far was decided (docs/rules.md §2):
        ``bound_legal`` / ``bound_not_legal`` by the compiled 8-point bound
        (:func:`mcr_env.scoring.hu_bound.legal_win_bound`), ``exact`` by the exact scorer
        (answered from :func:`score_cache_info`'s cache when the hand was met before). A win
        taken on a hand the bound found legal is scored exactly when it is settled."""
        legal, not_legal, exact = (int(x) for x in self._hu_stats)
        return {"bound_legal": legal, "bound_not_legal": not_legal, "exact": exact}

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, walls=None, games=None, prevalent_wind=None) -> None:
        """Deal new games.

        Args:
            seed: root seed. Per-game walls derive from (root seed, game index, per-game
                episode counter, hand number), so a game does not depend on B. ``seed`` given:
                the root seed of the reset games is set and their episode counters restart at
                0 (the other games keep their own root seed). ``None``: each reset game keeps
                its root seed (a fresh random one, shared by all games, on the first reset)
                and its counter advances by one.
            walls: optional explicit walls in draw order (see :mod:`mcr_env.engine.walls`):
                ``(N, 144)`` (official) or ``(N, 136)`` (botzone) int tile ids, with N = B or N =
                the number of reset games; in match mode also ``(N, 16, L)``, one per hand
                (a ``(N, L)`` wall is then used for hand 1 only, later hands are seeded).
            games: optional ``(B,) bool``: reset only these games. The other games are left
                untouched: state, masks, ``to_act``, and the outputs of the last step
                (``rewards``, ``player_rewards``, ``hand_over``, ``terminated``,
                ``table_points``, ``last_hand_result``) keep their values.
            prevalent_wind: single-hand mode only: the prevalent wind (0 = East .. 3 = North)
                of the dealt hands, an int or ``(N,)`` ints (N = B or the number of reset
                games); ``None`` = East. The Botzone judge deals single hands with any
                prevalent wind (its ``quan``, docs/rules.md §9).

        Raises:
            TypeError/ValueError: bad seed, walls, games or prevalent_wind (the message says
                which; prevalent_wind in match mode is a ValueError).
        """
        b = self.batch_size
        if games is None:
            sel = None
            g = np.arange(b)
        else:
            sel = np.asarray(games)
            if sel.dtype != bool or sel.shape != (b,):
                raise ValueError(f"games must be a (B,) = ({b},) bool array, got {sel.dtype}")
            g = np.flatnonzero(sel)
        # (index arrays rather than boolean masks below: a partial reset touches few games)
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
            if not self._seeded:
                self._root_seeds[:] = np.uint64(int(seed) % (1 << 64))
            self._root_seeds[g] = np.uint64(int(seed) % (1 << 64))
            self._seeded = True
            self._one_root = bool((self._root_seeds == self._root_seeds[0]).all())
            self._episode[g] = 0
        else:
            if not self._seeded:
                self._root_seeds[:] = np.uint64(np.random.SeedSequence().entropy % (1 << 63))
                self._seeded = True
            self._episode[g] += 1
        winds = external.prevalent_winds(self, prevalent_wind, g)
        if self._match:
            if self._match_walls is None:
                self._match_walls = np.full((b, HANDS_PER_MATCH, self._wall_len), -1, np.int8)
            self._match_walls[g] = -1
        explicit = None
        if walls is not None:
            arr = np.asarray(walls)
            if arr.ndim == 3:
                if not self._match:
                    raise ValueError("walls of shape (N, 16, L) need RulesConfig(match='match')")
                if arr.shape[1] != HANDS_PER_MATCH:
                    raise ValueError(f"match walls must have shape (N, 16, L), got {arr.shape}")
                flat = check_walls(arr.reshape(-1, arr.shape[2]), self.config.wall_layout)
                arr3 = flat.reshape(arr.shape[0], HANDS_PER_MATCH, -1)
                arr3 = self._rows_for(arr3, g, "walls")
                self._match_walls[g] = arr3
                explicit = arr3[:, 0]
            else:
                arr2 = check_walls(arr, self.config.wall_layout)
                explicit = self._rows_for(arr2, g, "walls")
        self._started = True
        # rewards, player_rewards, match_scores, hand_over, terminated, to_act, legal_mask and
        # the Hu states of the reset games, in one call
        clear_games_kernel(g, *self._bufs, *self._obufs)
        self.table_points[g] = 0
        reset = g.tolist()
        if self._deferred:  # (results of the reset games are dropped unbuilt)
            if sel is None:
                self._deferred = []
            else:
                self._drop_deferred(reset)
        results = self._results
        for i in reset:
            results[i] = None
        # Hu scorings cached for the previous hands of the reset games are stale
        if self._hu:
            if sel is None:
                self._hu = {}
            else:
                self._hu = {k: v for k, v in self._hu.items() if not sel[k[0]]}
        self._deal(g, self._zeros[: len(g)], explicit, winds)  # hand 0
        self._build_masks()

    def _rows_for(self, arr: np.ndarray, g: np.ndarray, what: str) -> np.ndarray:
        if arr.shape[0] == self.batch_size:
            return arr[g]
        if arr.shape[0] == len(g):
            return arr
        raise ValueError(
            f"{what} must have B = {self.batch_size} rows or one row per reset game "
            f"({len(g)}), got {arr.shape[0]}"
        )

    # ------------------------------------------------------------------ deal
    def _deal(
        self,
        g: np.ndarray,
        hand_numbers: np.ndarray,
        walls: np.ndarray | None,
        winds: np.ndarray | None = None,
    ) -> None:
        """Start hand ``hand_numbers`` of games ``g`` (walls given or seeded) and deal
        (:func:`mcr_env.engine.kernels.deal_kernel`); the games then need masks. ``winds``:
        ``(n,) int64`` prevalent winds of single hands (None = East)."""
        n = len(g)
        if n == 0:
            return
        hand_numbers = np.asarray(hand_numbers, dtype=np.int64)
        if walls is None:
            if self._match and self._match_walls is not None:
                walls = self._match_walls[g, hand_numbers]  # explicit per-hand walls, or -1
                need = walls[:, 0] < 0
                if need.any():
                    walls[need] = self._seeded_walls(g[need], hand_numbers[need])
            else:
                walls = self._seeded_walls(g, hand_numbers)
        if self._match:
            dealers = _MATCH_DEALER[hand_numbers]
            winds = _MATCH_WIND[hand_numbers]
            players = _MATCH_PLAYERS[hand_numbers]
        else:
            dealers = self._zeros[:n]
            winds = dealers if winds is None else winds
            players = self._seat_players[:n]
        n_ev = deal_kernel(
            np.asarray(g, dtype=np.int64),
            np.ascontiguousarray(walls, dtype=np.int8),
            hand_numbers,
            dealers,
            winds,
            np.ascontiguousarray(players),
            self._botzone,
            *self._bufs,
            *self._obufs,
        )
        if n_ev:  # impossible with 144/136 tiles, kept for safety
            self._end_exhaustive(self._ev[:n_ev, 0].copy())

    def _seeded_walls(self, g: np.ndarray, hand_numbers: np.ndarray) -> np.ndarray:
        """``(n, L) int8`` seeded walls of hand ``hand_numbers`` of games ``g`` (from each
        game's root seed, index ``first_game + g`` and episode counter)."""
        layout, first = self.config.wall_layout, self.first_game
        if self._one_root:  # one root seed in all usual cases
            root = int(self._root_seeds[0])
            return seeded_walls(layout, root, g + first, self._episode[g], hand_numbers)
        roots = self._root_seeds[g]
        out = np.empty((len(g), self._wall_len), dtype=np.int8)
        for root in np.unique(roots).tolist():
            m = roots == root
            out[m] = seeded_walls(
                layout, int(root), g[m] + first, self._episode[g[m]], hand_numbers[m]
            )
        return out

    # ------------------------------------------------------------------ step
    def step(self, actions, games=None) -> None:
        """Apply one action per seat to every live game (or only to the games in ``games``).

        Args:
            actions: ``(B, 4)`` int action ids (see :mod:`mcr_env.engine.actions`); entries of
                seats that do not act (``~to_act``), of terminated games and of games left out
                by ``games`` are ignored.
            games: optional ``(B,) bool``: advance only these games; the others keep their
                state, masks and ``to_act`` unchanged (their rewards read zero this step).

        Raises:
            RuntimeError: ``step`` before ``reset``.
            TypeError/ValueError: ``actions`` of the wrong type or shape; with
                ``illegal_action="raise"``, an acting seat's action outside its legal mask (the
                message names game, seat and action; no game is changed).
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        b = self.batch_size
        acts = actions if type(actions) is np.ndarray else np.asarray(actions)
        if acts.shape != (b, 4):
            raise ValueError(f"actions must have shape (B, 4) = ({b}, 4), got {acts.shape}")
        if acts.dtype.type is not np.int64:
            if acts.dtype == bool or not np.issubdtype(acts.dtype, np.integer):
                raise TypeError(f"actions must be integer action ids, got dtype {acts.dtype}")
            acts = acts.astype(np.int64)
        if not acts.flags.c_contiguous:
            acts = np.ascontiguousarray(acts)
        partial = games is not None
        if partial:
            active = np.asarray(games)
            if active.dtype != bool or active.shape != (b,):
                raise ValueError(f"games must be a (B,) = ({b},) bool array")
            if not active.flags.c_contiguous:
                active = np.ascontiguousarray(active)
        else:
            active = _ALL_GAMES
        # the kernel sets live = ~terminated (& games) in the output buffer
        status, n_ev, n_cand, n_bad = step_live_kernel(
            acts,
            active,
            self._raise,
            self._ask_all,
            self._botzone,
            SUIT_TABLE,
            *self._bufs,
            *self._obufs,
        )
        live = self._live
        if status < 0:
            gi, si = (int(x[0]) for x in np.nonzero(self._illegal))
            a = int(acts[gi, si])
            legal_ids = np.nonzero(self.legal_mask[gi, si])[0].tolist()
            raise ValueError(
                f"illegal action {a} for game {gi}, seat {si} "
                f"(phase {Phase(int(self.state.phase[gi])).name}); legal: {legal_ids}"
            )
        hu_cache = self._hu
        if partial:
            self._hu = {k: v for k, v in hu_cache.items() if not live[k[0]]}
        elif hu_cache:
            self._hu = {}
        if n_ev or n_cand or n_bad:  # else the usual step: masks were built by the kernel
            self._finish_step(n_ev, n_cand, n_bad, hu_cache)

    def step_random(self, rng: np.random.Generator) -> int:
        """Play a uniformly random legal action for every acting seat of every live game, in
        one compiled call (random play: benchmarks, random opponents, tests).

        The same draws from ``rng``, the same actions and the same resulting state as
        ``step(sample_legal_actions(legal_mask, rng, to_act))``
        (:func:`mcr_env.engine.sampling.sample_legal_actions`: over the acting seats in
        (game, seat) order, a seat with ``c`` legal actions takes its ``(c - 1 - r)``-th
        legal action, ``r`` drawn as ``rng.integers(0, c)``; nothing is drawn for ``c = 1``),
        so a seeded ``rng`` replays the same games and either call can follow the other. The
        draws are made in compiled code straight from ``rng.bit_generator`` (the Generator's
        lock is not taken: do not use ``rng`` from another thread meanwhile); the engine keeps
        a reference to the last ``rng`` given. Every live game advances (no ``games=``).

        Args:
            rng: a ``numpy.random.Generator``.

        Returns:
            The number of seats that acted (decisions taken), an int.

        Raises:
            RuntimeError: ``step_random`` before ``reset``.
            TypeError: ``rng`` is not a ``numpy.random.Generator``.
        """
        if not self._started:
            raise RuntimeError("call reset() before step_random()")
        if rng is not self._rng:
            self._rng_slots[:] = generator_pointers(rng)
            self._rng = rng
        status, n_ev, n_cand, n_bad, n = step_random_kernel(
            self._ask_all, self._botzone, SUIT_TABLE, *self._bufs, *self._obufs
        )
        if status < 0:
            raise RuntimeError("engine invariant: an acting seat has no legal action")
        hu_cache = self._hu
        if hu_cache:
            self._hu = {}
        if n_ev or n_cand or n_bad:
            self._finish_step(n_ev, n_cand, n_bad, hu_cache)
        return n

    def _finish_step(self, n_ev: int, n_cand: int, n_bad: int, hu_cache: dict) -> None:
        """After a step kernel call that ended hands (``n_ev`` events), listed hands to score
        (``n_cand``) or found illegal actions to penalize (``n_bad``): settle, score and build
        the remaining masks (``hu_cache``: the scores of the masks the actions came from)."""
        if n_bad:  # penalize (the kernel left these games out)
            penal = np.nonzero(self._illegal.any(axis=1))[0]
            self._apply_penalties(penal, self._illegal[penal])
            self._after_hands(penal)
        if n_ev:
            self._end_events(self._ev[:n_ev].copy(), hu_cache)
        if n_cand:
            self._score_candidates(self._cand[:n_cand])
        if n_cand or np.count_nonzero(self._need):  # (hands that only ended need no pass)
            self._build_masks()

    # ------------------------------------------------------------------ outside states
    def load_state(self, state: GameState, copy: bool = True) -> None:
        """Continue from ``state`` (a :class:`GameState` with this engine's batch size): the
        legal masks and ``to_act`` are rebuilt from scratch, exactly as after the step that
        led to that state (``rewards``, ``player_rewards`` and ``hand_over`` read zero; games
        in ``Phase.OVER`` are terminated).

        Meant for states rebuilt from outside, e.g. by the Botzone bot (:mod:`mcr_env.botzone`)
        from one seat's requests: there the other seats' private fields and the wall are at
        their sentinels and ``tiles_left`` is taken as given (it is not recomputed from the
        wall pointers), so the masks of that one seat are exact (they read only what it may
        see, docs/design.md "Information"); a seat whose concealed tiles do not number
        ``13 - 3 * melds`` plus its drawn tile is taken as unknown and gets no Hu. Stepping
        such a state would draw from an empty wall. Masks are built without passing any claim
        round automatically (under ``claim_round="options"`` seats with a Pass-only mask are
        then not asked), so loading never moves the game on.

        Args:
            state: the state; every array with the engine's dtype and shape.
            copy: copy the arrays into the engine's own (default); False makes ``state`` the
                engine's state object (faster; its arrays must be C-contiguous, and the caller
                must not change it while using the engine).

        Raises:
            TypeError: ``state`` is not a GameState.
            ValueError: its batch size, an array's dtype or shape differs from the engine's, or
                (``copy=False``) an array is not C-contiguous.
        """
        external.load_state(self, state, copy)

    def penalize(self, games, seats) -> None:
        """End hands now with the Botzone judge's penalty (docs/rules.md §3): seat
        ``seats[i]`` of game ``games[i]`` pays 30 and each other seat gets 10, as for an
        illegal action under ``illegal_action="penalize"``. For offences outside a decision
        (an outside bot that answers a notification with anything but PASS, crashes or times
        out, :mod:`mcr_env.botzone.process`). ``rewards``/``player_rewards`` of those games are
        overwritten with the penalty, ``hand_over`` is set, ``last_hand_result`` records the
        offender; in match mode the next hand is dealt (terminated after hand 16).

        Args:
            games: ``(N,) int`` live games (each at most once).
            seats: ``(N,) int`` offending seats 0..3.

        Raises:
            ValueError: shapes differ, an index is out of range, a game is repeated or
                already terminated.
        """
        external.penalize(self, games, seats)

    def _end_events(self, ev: np.ndarray, hu_cache: dict) -> None:
        """Settle the hands ended in ``ev (n, 4)`` rows ``(game, EndReason, winner, from)``
        (wins scored in ``hu_cache``; exhaustive draws), then :meth:`_after_hands`."""
        ended = np.ascontiguousarray(ev[:, 0])
        exh = ev[:, 1] == _E_EXHAUSTIVE
        n_exh = np.count_nonzero(exh)
        if n_exh == len(ev):  # (random play: most hands end in a draw)
            self._end_exhaustive(ended)
        else:
            if n_exh:
                self._end_exhaustive(ended[exh])
            self._settle_wins(ev[~exh], hu_cache)
        self._after_hands(ended)

    def _build_masks(self) -> None:
        """Masks of every game in ``self._need``: masks-only kernel passes until no game waits for
        the scorer (each pass scores the complete hands it found); hands ended by automatic
        draws are settled (in match mode the next hand is dealt and masked in the same loop)."""
        need = self._need
        while True:
            _, n_ev, n_cand, _, _ = step_kernel(
                MASKS,
                self._no_acts,
                need,
                False,
                self._ask_all,
                self._botzone,
                SUIT_TABLE,
                *self._bufs,
                *self._obufs,
            )
            if n_ev:
                ev = self._ev[:n_ev].copy()
                self._end_exhaustive(ev[:, 0])
                self._after_hands(ev[:, 0])
            if n_cand:
                self._score_candidates(self._cand[:n_cand])
            elif not n_ev:
                return

    def _score_candidates(self, rows: np.ndarray) -> None:
        """Exact scores of the complete hands ``rows (n, 4) int64`` of ``[game, seat, win
        tile, rob]``: ``_hu_state`` 2 (legal win, kept in ``_hu``) or 3."""
        keys = self._score_keys(rows)
        hu_state = self._hu_state
        for (gi, si, ti, _), key in zip(rows.tolist(), keys):
            res = _cached_score(tuple(key)) if key[K_OK] else None  # K_OK 0: tiles unknown
            if res is None:
                hu_state[gi, si] = 3
            else:
                hu_state[gi, si] = 2
                self._hu[(gi, si)] = (res, ti)

    def _score_keys(self, rows: np.ndarray) -> list:
        """Rows of :func:`~mcr_env.engine.results.score_keys_kernel` (lists of ints) of the
        hands ``rows (n, 4) int64``: what the exact score of each depends on."""
        out = np.empty((len(rows), KEY_LEN), dtype=np.int64)
        score_keys_kernel(
            np.ascontiguousarray(rows, dtype=np.int64), self._profile_index, *self._bufs, out
        )
        return out.tolist()

    def _exact_wins(self, pairs: list) -> list:
        """``(ScoreResult, win tile)`` of the Hu each ``(game, seat)`` of ``pairs`` declared
        on a hand the 8-point bound found legal (the state is still that of the decision).

        Raises:
            RuntimeError: the exact scorer finds no legal win (the bound and the scorer
                disagree: an engine bug).
        """
        rows = np.full((len(pairs), 4), -1, dtype=np.int64)
        rows[:, :2] = pairs
        out = []
        for (gi, si), key in zip(pairs, self._score_keys(rows)):
            res = _cached_score(tuple(key)) if key[K_OK] else None
            if res is None:
                raise RuntimeError(
                    f"engine invariant: the 8-point bound found game {gi}, seat {si} legal but "
                    "the exact scorer does not"
                )
            out.append((res, key[K_WIN]))
        return out

    def _after_hands(self, ended) -> None:
        """Games ``ended`` finished a hand: single hand -> terminated; match -> the next hand
        is dealt (masks built by the caller's loop) or, after hand 16, terminated with table
        points."""
        ended = np.ascontiguousarray(ended, dtype=np.int64)
        # masks and to_act cleared (and, single hand, terminated set) in one call
        hands_ended_kernel(ended, not self._match, *self._bufs, *self._obufs)
        if not self._match:
            return
        st = self.state
        last = st.hand_number[ended] >= HANDS_PER_MATCH - 1
        done = ended[last]
        if done.size:
            self.terminated[done] = True
            self.table_points[done] = table_points(st.match_scores[done])
        nxt = ended[~last]
        if nxt.size:
            self._deal(nxt, st.hand_number[nxt].astype(np.int64) + 1, None)

    # ------------------------------------------------------------------ endings
    def _apply_penalties(self, g, illegal) -> None:
        """Games ``g`` end with a penalty for every seat flagged in ``illegal (n, 4)``."""
        for i, gi in enumerate(g.tolist()):
            offenders = tuple(int(s) for s in np.nonzero(illegal[i])[0])
            settlement = np.zeros(4, dtype=np.int32)
            for s in offenders:
                settlement += np.asarray(self._penalty(s), dtype=np.int32)
            self._record_end(gi, EndReason.PENALTY, -1, -1, -1, (), 0, settlement, offenders)

    def _end_exhaustive(self, g) -> None:
        """Record the results of games ``g`` that ended without a winner: the step kernel
        settled them where the draw found no tile (phase OVER, end reason EXHAUSTIVE, no
        winner or payer, zero (player) rewards, ``hand_over`` set; match scores + 0)."""
        if len(g) == 0:
            return
        st = self.state
        self._defer_results(g.tolist(), (st.hand_number[g].tolist(), st.player_at_seat[g]))

    def _defer_results(self, games: list, results) -> None:
        """Record the results of the hands of ``games`` (game indices) that ended now:
        ``results`` is a list of their :class:`HandResult`, or ``(hand numbers, players at
        seat (n, 4) int8)`` of hands ended in an exhaustive draw, whose HandResults
        :meth:`_build_results` makes when ``last_hand_result`` is read (at B = 1024 random
        play ends ~9 hands a step, and a same-step autoreset drops them unread)."""
        self._deferred.append((games, results))
        if len(self._deferred) > MAX_DEFERRED_RESULTS:
            self._build_results()

    def _build_results(self) -> None:
        """Write the deferred results into ``last_hand_result``, in the order they ended."""
        out = self._results
        exhaustive = EndReason.EXHAUSTIVE
        for games, results in self._deferred:
            if isinstance(results, list):
                for gi, res in zip(games, results):
                    out[gi] = res
                continue
            numbers, players = results
            # (the results' arrays are rows of two new arrays: one allocation each, not per
            # hand; positional arguments: HandResult's fields in order)
            zeros = np.zeros((len(games), 4), dtype=np.int32)
            for i, gi in enumerate(games):
                out[gi] = HandResult(
                    numbers[i], exhaustive, -1, -1, -1, (), 0, zeros[i], players[i]
                )
        self._deferred = []

    def _drop_deferred(self, games: list) -> None:
        """Forget the deferred results of ``games`` (being reset: their results become None)."""
        drop = set(games)
        kept = []
        for ended, results in self._deferred:
            keep = [i for i, gi in enumerate(ended) if gi not in drop]
            if len(keep) == len(ended):
                kept.append((ended, results))
            elif keep:
                if isinstance(results, list):
                    results = [results[i] for i in keep]
                else:
                    results = ([results[0][i] for i in keep], results[1][keep])
                kept.append(([ended[i] for i in keep], results))
        self._deferred = kept

    def _record_end(self, gi, reason, winner, frm, win_tile, fans, total, settlement, offenders=()):
        st = self.state
        st.phase[gi] = _P_OVER
        st.end_reason[gi] = reason
        st.winner[gi] = winner
        st.win_from[gi] = frm
        settlement = np.asarray(settlement, dtype=np.int32)
        self.rewards[gi] = settlement
        players = st.player_at_seat[gi].copy()
        self.player_rewards[gi, players] = settlement
        st.match_scores[gi, players] += settlement
        self.hand_over[gi] = True
        res = HandResult(
            hand_number=int(st.hand_number[gi]),
            end_reason=EndReason(reason),
            winner=winner,
            win_from=frm,
            win_tile=win_tile,
            fans=tuple(fans),
            total=int(total),
            settlement=settlement.copy(),
            player_at_seat=players,
            offenders=tuple(offenders),
        )
        self._defer_results([gi], [res])

    def _settle_wins(self, wins: np.ndarray, hu_cache: dict) -> None:
        """Settle the wins ``wins (n, 4)`` rows ``(game, EndReason, winner, from)`` with the
        scores of the masks they were chosen from (``hu_cache``); docs/rules.md §3."""
        st = self.state
        rows = wins.tolist()
        pairs = [(gi, wi) for gi, _, wi, _ in rows]
        results = [hu_cache.get(p) for p in pairs]
        missing = [p for p, r in zip(pairs, results) if r is None]
        if missing:
            exact = iter(self._exact_wins(missing))
            results = [r if r is not None else next(exact) for r in results]
        totals = np.array([res.total for res, _ in results], dtype=np.int64)
        tiles = np.array([tile for _, tile in results], dtype=np.int64)
        g = np.ascontiguousarray(wins[:, 0])
        numbers = st.hand_number[g].tolist()
        # settlement (into pay), phase, end reason, winner, payer, the won tile, rewards,
        # match scores, hand_over
        pay = np.empty((len(rows), 4), dtype=np.int32)
        wins_kernel(np.ascontiguousarray(wins), tiles, totals, pay, *self._bufs, *self._obufs)
        players = st.player_at_seat[g]  # (the results' arrays: rows of two new arrays)
        out = []
        for i, (_, reason, wi, di) in enumerate(rows):
            res, tile = results[i]
            out.append(
                HandResult(
                    numbers[i],
                    _END_REASONS[reason],
                    wi,
                    di,
                    tile,
                    res.fans,
                    res.total,
                    pay[i],
                    players[i],
                )
            )
        self._defer_results(g.tolist(), out)


_END_REASONS = tuple(EndReason(i) for i in range(max(EndReason) + 1))
"""The :class:`EndReason` members by value (a tuple index is cheaper than the enum call)."""


def table_points(scores: np.ndarray) -> np.ndarray:
    """Competition table points 4/2/1/0 by rank of ``scores (N, 4)``; tied players share the
    mean of the points of the ranks they occupy (docs/rules.md §4). Returns ``(N, 4) float32``.
    """
    scores = np.asarray(scores)
    pts = np.array([4.0, 2.0, 1.0, 0.0])
    out = np.zeros(scores.shape, dtype=np.float32)
    for p in range(4):
        higher = (scores > scores[:, p : p + 1]).sum(axis=1)
        equal = (scores == scores[:, p : p + 1]).sum(axis=1)
        for i in range(scores.shape[0]):
            out[i, p] = pts[higher[i] : higher[i] + equal[i]].mean()
    return out

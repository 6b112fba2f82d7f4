"""Compiled per-step kernels of :class:`mcr_env.engine.core.MCREngine` (docs/design.md "Engine").

Every function here is a numba ``@njit(cache=True, nogil=True)`` kernel that loops over the
games of the batch and mutates the :class:`mcr_env.engine.state.GameState` arrays in place, so
one engine ``step`` costs a few kernel calls whatever B is:

* :func:`step_kernel` -- checks the actions against the masks, clears the outputs of the last
  step, applies the acting seats' actions (discards, kongs, claim resolution in seat priority,
  draws and replacement draws with flower replacement) and builds the legal masks and
  ``to_act`` of every game it moved, passing the rounds nobody can answer automatically
  (``claim_round="options"``, docs/rules.md §10). Hu needs the exact 8-point scorer (Python):
  the kernel lists the (game, seat, tile) hands that are complete and not yet scored, and the
  game waits; the engine scores them and calls the kernel again in its masks-only mode, so a
  step makes one call, or two or three when something was complete or a hand ended;
* :func:`deal_kernel` -- clears and deals new hands (flower replacement in deal order from the
  dealer, docs/rules.md §2) and draws the dealer's fourteenth tile.

:func:`is_complete` is the exact shape test of a 14 - 3m tile concealed hand (regular form by a
base-5 suit-key table, Seven Pairs, Thirteen Orphans, Honors and Knitted Tiles, Knitted
Straight; docs/rules.md §2), equal to :func:`mcr_env.scoring.shanten.complete_mask`.

A kernel call passes the state's three buffers (:meth:`GameState.packed_buffers`, the fields
are views of them: :func:`state_views`) and the engine's three output buffers
(:func:`output_buffers`, :func:`output_views`): a handful of arguments, since numba unpacks
every array argument of every call.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from mcr_env.engine.actions import (
    ACTION_KIND,
    ACTION_TILE,
    ANGANG_OFFSET,
    BUGANG_OFFSET,
    CHI_OFFSET,
    GANG_OFFSET,
    HU,
    NUM_ACTIONS,
    PASS,
    PENG_OFFSET,
    PLAY_OFFSET,
    ActionKind,
)
from mcr_env.engine.intrinsics import carve as _carve
from mcr_env.engine.intrinsics import prefetch as _prefetch
from mcr_env.engine.sampling import draw_row
from mcr_env.engine.state import (
    BOTZONE_SEGMENT,
    DISCARD_CAPACITY,
    WALL_CAPACITY,
    EndReason,
    GameState,
    MeldKind,
    Phase,
)
from mcr_env.scoring.hu_bound import legal_win_bound

STATE_FIELDS = tuple(f.name for f in dataclasses.fields(GameState))
"""Order of the GameState arrays in the state tuple the kernels take."""

_A_PASS = int(ActionKind.PASS)
_A_HU = int(ActionKind.HU)
_A_PLAY = int(ActionKind.PLAY)
_A_CHI = int(ActionKind.CHI)
_A_PENG = int(ActionKind.PENG)
_A_GANG = int(ActionKind.GANG)
_A_ANGANG = int(ActionKind.ANGANG)
_A_BUGANG = int(ActionKind.BUGANG)
_M_CHI = int(MeldKind.CHI)
_M_PENG = int(MeldKind.PENG)
_M_GANG = int(MeldKind.GANG)
_M_ANGANG = int(MeldKind.ANGANG)
_P_ACT = int(Phase.ACT)
_P_DISCARD = int(Phase.DISCARD)
_P_CLAIM = int(Phase.CLAIM)
_P_ROB = int(Phase.ROB)
_P_OVER = int(Phase.OVER)
_E_SELF = int(EndReason.SELF_DRAWN)
_E_DISCARD = int(EndReason.DISCARD)
_E_ROB = int(EndReason.ROB_KONG)
_E_EXHAUSTIVE = int(EndReason.EXHAUSTIVE)

_KIND = ACTION_KIND.astype(np.int64)
_TILE = ACTION_TILE.astype(np.int64)
_POW5 = 5 ** np.arange(9, dtype=np.int64)
_ORPHAN13 = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _knitted_rows() -> np.ndarray:
    """``(6, 9) int64``: the tiles of the six knitted arrangements (147/258/369 over suits)."""
    from itertools import permutations

    rows = []
    for perm in permutations(range(3)):
        rows.append([9 * suit + start + 3 * j for suit, start in enumerate(perm) for j in range(3)])
    return np.array(rows, dtype=np.int64)


_KNITTED = _knitted_rows()


def _bits(tiles) -> np.uint64:
    out = 0
    for t in tiles:
        out |= 1 << int(t)
    return np.uint64(out)


_KNITTED_BITS = np.array([_bits(row) for row in _KNITTED], dtype=np.int64)
_HONOR_BITS = np.int64(_bits(range(27, 34)))
_SIMPLES_BITS = np.int64(_bits([t for t in range(27) if t % 9 not in (0, 8)]))
_ORPHANS_BITS = np.int64(_bits(_ORPHAN13))


def _build_suit_table() -> np.ndarray:
    """``(5**9,) uint8`` indexed by a suit's base-5 key (rank r's count times ``5**r``): bit 0
    where the suit splits into sets only, bit 1 where it splits into sets and one pair."""
    from itertools import combinations_with_replacement

    sets = []
    for r in range(7):
        v = np.zeros(9, dtype=np.int64)
        v[r : r + 3] = 1
        sets.append(v)
    for r in range(9):
        v = np.zeros(9, dtype=np.int64)
        v[r] = 3
        sets.append(v)
    vecs = [np.zeros(9, dtype=np.int64)]
    for k in range(1, 5):
        for combo in combinations_with_replacement(range(len(sets)), k):
            vecs.append(sum(sets[i] for i in combo))
    v = np.array(vecs)
    v = v[(v <= 4).all(axis=1)]
    table = np.zeros(5**9, dtype=np.uint8)
    table[v @ _POW5] |= 1
    for r in range(9):
        w = v.copy()
        w[:, r] += 2
        w = w[(w <= 4).all(axis=1)]
        table[w @ _POW5] |= 2
    return table


SUIT_TABLE = _build_suit_table()
"""``(5**9,) uint8`` suit-key completion table (see :func:`_build_suit_table`)."""

# ----------------------------------------------------------------------------- shape tests


@njit(cache=True, nogil=True)
def _regular(h, suit_table):
    """Sets and exactly one pair (any number of sets): ``h (34,)`` counts of 3k + 2 tiles."""
    pairs = 0
    for t in range(27, 34):
        c = h[t]
        if c == 1 or c == 4:
            return False
        if c == 2:
            pairs += 1
    for s in range(3):
        key = 0
        size = 0
        for r in range(9):
            c = h[9 * s + r]
            key += c * _POW5[r]
            size += c
        m = size % 3
        if m == 1:
            return False
        bits = suit_table[key]
        if m == 0:
            if bits & 1 == 0:
                return False
        else:
            if bits & 2 == 0:
                return False
            pairs += 1
    return pairs == 1


@njit(cache=True, nogil=True, inline="always")
def _count_bits(h):
    """Bit masks over the 34 tiles of counts ``h (34,)``: ``(count >= 1, count >= 2, count odd,
    count 4)``, int64."""
    p1 = p2 = odd = full = np.int64(0)
    for t in range(34):  # (branch-free: the counts are random)
        c = h[t]
        p1 |= np.int64(c >= 1) << t
        p2 |= np.int64(c >= 2) << t
        odd |= np.int64(c & 1) << t
        full |= np.int64(c >= 4) << t
    return p1, p2, odd, full


@njit(cache=True, nogil=True)
def is_complete(h, n_melds, suit_table):
    """Whether concealed counts ``h (34,) int64`` (14 - 3 * n_melds tiles, the winning tile
    included) complete the hand in some winning form (docs/rules.md §2; shape only). ``h`` is
    restored before returning (the Knitted Straight test removes tiles temporarily)."""
    if _regular(h, suit_table):
        return True
    if n_melds > 1:
        return False
    p1, p2, odd, _ = _count_bits(h)
    if n_melds == 0:
        if odd == 0:  # Seven Pairs (a count of 4 is two pairs)
            return True
        if (p1 & _SIMPLES_BITS) == 0 and (p1 & _ORPHANS_BITS) == _ORPHANS_BITS:
            return True
        if p2 == 0:
            # Honors and Knitted Tiles: 14 distinct tiles within honors + one arrangement
            for a in range(6):
                if (p1 & ~(_KNITTED_BITS[a] | _HONOR_BITS)) == 0:
                    return True
    # Knitted Straight: one arrangement held whole, the rest sets and the pair
    for a in range(6):
        if (p1 & _KNITTED_BITS[a]) == _KNITTED_BITS[a]:
            for j in range(9):
                h[_KNITTED[a, j]] -= 1
            ok = _regular(h, suit_table)
            for j in range(9):
                h[_KNITTED[a, j]] += 1
            if ok:
                return True
    return False


@njit(cache=True, nogil=True)
def _regular_with(row, extra, suit_table):
    """:func:`_regular` of the counts ``row (34,)`` plus one tile ``extra`` (-1: none), read
    in place (no copy: the claim rounds test three hands per discard)."""
    pairs = 0
    for t in range(27, 34):
        c = row[t] + (1 if t == extra else 0)
        if c == 1 or c == 4:
            return False
        if c == 2:
            pairs += 1
    for s in range(3):
        key = 0
        size = 0
        for r in range(9):
            c = row[9 * s + r] + (1 if 9 * s + r == extra else 0)
            key += c * _POW5[r]
            size += c
        m = size % 3
        if m == 1:
            return False
        bits = suit_table[key]
        if m == 0:
            if bits & 1 == 0:
                return False
        else:
            if bits & 2 == 0:
                return False
            pairs += 1
    return pairs == 1


@njit(cache=True, nogil=True)
def complete_with(row, extra, n_melds, suit_table, h):
    """:func:`is_complete` of the counts ``row (34,)`` plus one tile ``extra`` (-1: none),
    with ``n_melds`` melds; ``h (34,) int64`` is scratch (the special forms copy into it)."""
    if _regular_with(row, extra, suit_table):
        return True
    if n_melds > 1:
        return False
    for x in range(34):
        h[x] = row[x]
    if extra >= 0:
        h[extra] += 1
    return is_complete(h, n_melds, suit_table)


@njit(cache=True, nogil=True)
def complete_rows(counts, n_melds, suit_table, out):
    """:func:`is_complete` of every row: ``counts (N, 34)`` (14 - 3 * n_melds tiles),
    ``n_melds (N,)`` -> ``out (N,) bool``."""
    h = np.empty(34, dtype=np.int64)
    for i in range(counts.shape[0]):
        for x in range(34):
            h[x] = counts[i, x]
        out[i] = is_complete(h, n_melds[i], suit_table)


@njit(cache=True, nogil=True, inline="always")
def _group_status(key, size, suit_table):
    """One suit's counts (base-5 ``key``, ``size`` tiles) as a group of a regular hand: 0 sets
    only, 1 sets and one pair, 2 neither."""
    m = size % 3
    if m == 0:
        return 0 if suit_table[key] & 1 else 2
    if m == 2:
        return 1 if suit_table[key] & 2 else 2
    return 2


@njit(cache=True, nogil=True, inline="always")
def waits_of(row, n_melds, suit_table, h):
    """Winning tiles of a waiting hand: bit x of the result is set when the counts ``row (34,)
    int64`` plus one tile x complete the hand (:func:`complete_with` of ``row`` and x is True)
    and ``row[x] < 4`` (docs/rules.md §2; shape only). ``row`` is not changed; ``h (34,) int64``
    is scratch. Equal to testing the 34 tiles one by one, from one pass over the counts.

    Regular form: the suits and the honor kinds are groups that must each split into sets
    (and the one pair) with the added tile in one of them, so only the groups that do not
    split as they are (at most one, else nothing completes) take tiles: at most 9 table
    look-ups. Special forms (no melds; Knitted Straight with at most one): Seven Pairs, the
    one odd count; Thirteen Orphans, the missing orphan or all 13; Honors and Knitted Tiles,
    the arrangement's free tiles; a Knitted Straight (eight of an arrangement's nine tiles
    held) tests the tiles one by one. Inlined into its one caller in :func:`step_kernel` (a
    call would count references of its array arguments).
    """
    out = np.int64(0)
    one = np.int64(1)
    # the three suits: base-5 keys, sizes, status (0 sets, 1 with the pair, 2 broken)
    k0 = k1 = k2 = np.int64(0)
    z0 = z1 = z2 = np.int64(0)
    for r in range(9):
        p = _POW5[r]
        c = row[r]
        k0 += c * p
        z0 += c
        c = row[9 + r]
        k1 += c * p
        z1 += c
        c = row[18 + r]
        k2 += c * p
        z2 += c
    s0 = _group_status(k0, z0, suit_table)
    s1 = _group_status(k1, z1, suit_table)
    s2 = _group_status(k2, z2, suit_table)
    nb = 0
    pairs = 0
    broken = -1  # 0..2 a suit, 27..33 an honor
    for i in range(3):
        st = s0 if i == 0 else s1 if i == 1 else s2
        if st == 2:
            nb += 1
            broken = i
        elif st == 1:
            pairs += 1
    for t in range(27, 34):
        c = row[t]
        if c == 1 or c >= 4:
            nb += 1
            broken = t
        elif c == 2:
            pairs += 1
    if nb <= 1:
        for i in range(3):
            st = s0 if i == 0 else s1 if i == 1 else s2
            if nb == 1 and broken != i:
                continue
            other = pairs - (1 if st == 1 else 0)
            if other > 1:
                continue
            key = k0 if i == 0 else k1 if i == 1 else k2
            size = (z0 if i == 0 else z1 if i == 1 else z2) + 1
            m = size % 3
            if m == 1:
                continue
            for r in range(9):
                x = 9 * i + r
                if row[x] >= 4:
                    continue
                bits = suit_table[key + _POW5[r]]
                if (m == 0 and other == 1 and bits & 1) or (m == 2 and other == 0 and bits & 2):
                    out |= one << x
        for t in range(27, 34):
            if nb == 1 and broken != t:
                continue
            c = row[t]
            other = pairs - (1 if c == 2 else 0)
            if (c == 1 and other == 0) or (c == 2 and other == 1):
                out |= one << t
    if n_melds > 1:
        return out
    p1, p2, odd, full = _count_bits(row)
    if n_melds == 0:
        if odd != 0 and odd & (odd - 1) == 0:
            out |= odd  # Seven Pairs: the one odd count
        if p1 & _SIMPLES_BITS == 0:
            missing = _ORPHANS_BITS & ~p1  # Thirteen Orphans
            if missing == 0:
                out |= _ORPHANS_BITS
            elif missing & (missing - 1) == 0:
                out |= missing
        if p2 == 0:
            for a in range(6):
                allowed = _KNITTED_BITS[a] | _HONOR_BITS  # Honors and Knitted Tiles
                if p1 & ~allowed == 0:
                    out |= allowed & ~p1
    for a in range(6):
        missing = _KNITTED_BITS[a] & ~p1  # Knitted Straight: 8 of the 9 held at least
        if missing & (missing - 1) == 0:
            for x in range(34):
                if row[x] < 4 and (out >> x) & 1 == 0:
                    if complete_with(row, x, n_melds, suit_table, h):
                        out |= one << x
            break
    return out & ~full


# ----------------------------------------------------------------------------- walls and draws


@njit(cache=True, nogil=True, inline="always")
def _add_meld(g, s, kind, tile, frm, claimed, M):
    meld_kind, meld_tile, meld_from, meld_claimed, n = M
    slot = n[g, s]
    meld_kind[g, s, slot] = kind
    meld_tile[g, s, slot] = tile
    meld_from[g, s, slot] = frm
    meld_claimed[g, s, slot] = claimed
    n[g, s] += 1
    return slot


@njit(cache=True, nogil=True, inline="always")
def _event(ev, n_ev, g, reason, win, frm):
    ev[n_ev, 0] = g
    ev[n_ev, 1] = reason
    ev[n_ev, 2] = win
    ev[n_ev, 3] = frm
    return n_ev + 1


@njit(cache=True, nogil=True, inline="always")
def state_views(s8, s16, s32):
    """The :class:`GameState` fields (:data:`STATE_FIELDS` order) as views of the state's
    three buffers (:data:`mcr_env.engine.state.FIELD_LAYOUT`; B = ``len(s32) // 4``)."""
    b = s32.shape[0] // 4
    b8 = s8.view(np.bool_)
    meld_kind = _carve(s8, 0, (b, 4, 4))
    meld_tile = _carve(s8, b * 16, (b, 4, 4))
    meld_from = _carve(s8, b * 32, (b, 4, 4))
    meld_claimed = _carve(s8, b * 48, (b, 4, 4))
    meld_added = _carve(b8, b * 64, (b, 4, 4))
    n_melds = _carve(s8, b * 80, (b, 4))
    discards = _carve(s8, b * 84, (b, 4, 48))
    discard_claimed = _carve(b8, b * 276, (b, 4, 48))
    discard_order = _carve(s16, 0, (b, 4, 48))
    n_discards = _carve(s8, b * 468, (b, 4))
    total_discards = _carve(s16, b * 192, (b,))
    visible_count = _carve(s8, b * 472, (b, 34))
    flower_count = _carve(s8, b * 506, (b, 4))
    flowers = _carve(b8, b * 510, (b, 4, 8))
    phase = _carve(s8, b * 542, (b,))
    current_seat = _carve(s8, b * 543, (b,))
    tile_in_play = _carve(s8, b * 544, (b,))
    played_by = _carve(s8, b * 545, (b,))
    after_kong = _carve(b8, b * 546, (b,))
    tiles_left = _carve(s16, b * 193, (b, 4))
    dealer = _carve(s8, b * 547, (b,))
    prevalent_wind = _carve(s8, b * 548, (b,))
    hand_number = _carve(s16, b * 197, (b,))
    player_at_seat = _carve(s8, b * 549, (b, 4))
    match_scores = _carve(s32, 0, (b, 4))
    winner = _carve(s8, b * 553, (b,))
    win_from = _carve(s8, b * 554, (b,))
    end_reason = _carve(s8, b * 555, (b,))
    hand = _carve(s8, b * 556, (b, 4, 34))
    drawn_tile = _carve(s8, b * 692, (b, 4))
    angang_tile = _carve(s8, b * 696, (b, 4, 4))
    wall = _carve(s8, b * 712, (b, 144))
    wall_front = _carve(s16, b * 198, (b, 4))
    wall_back = _carve(s16, b * 202, (b, 4))
    return (
        meld_kind,
        meld_tile,
        meld_from,
        meld_claimed,
        meld_added,
        n_melds,
        discards,
        discard_claimed,
        discard_order,
        n_discards,
        total_discards,
        visible_count,
        flower_count,
        flowers,
        phase,
        current_seat,
        tile_in_play,
        played_by,
        after_kong,
        tiles_left,
        dealer,
        prevalent_wind,
        hand_number,
        player_at_seat,
        match_scores,
        winner,
        win_from,
        end_reason,
        hand,
        drawn_tile,
        angang_tile,
        wall,
        wall_front,
        wall_back,
    )


OUT8 = 4 + 4 * NUM_ACTIONS + 1 + 4 + 1 + 4 + 1 + 1
"""int8 elements per game of the engine's output buffer ``o8``: to_act (4), legal_mask
(4 x 235), hand_over, illegal (4), need, hu_state (4) (:func:`output_views`), then
terminated, live (:func:`random_step_views`)."""


SCRATCH64 = 84
"""int64 scratch elements of :func:`step_kernel` in the output buffer ``o64``."""

RNG64 = 2
"""int64 elements of ``o64`` holding the bit generator of :func:`step_random_kernel`
(``next_uint32`` address, state address: :func:`mcr_env.engine.sampling.generator_pointers`)."""


def output_buffers(b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Output buffers of an engine of ``b`` games: ``o8 (b * OUT8,) int8``, ``o32 (8b,)
    int32`` (rewards, player_rewards), ``o64 (29b + RNG64 + SCRATCH64 + 3,) int64`` (cand
    (4b, 4), ev (b, 4), what the kernels carry between calls (:func:`kernel_carry`: the wait
    cache (b, 4) and the pending draws (b,), all -1), acts (b, 4), the two bit generator
    pointers, the kernel's scratch, then the three ``hu_stats`` counters); zeroed but the
    carry; :func:`output_views` and :func:`random_step_views` split them."""
    o64 = np.zeros(29 * b + RNG64 + SCRATCH64 + 3, dtype=np.int64)
    o64[20 * b : 25 * b] = -1
    return (np.zeros(b * OUT8, dtype=np.int8), np.zeros(8 * b, dtype=np.int32), o64)


@njit(cache=True, nogil=True, inline="always")
def kernel_carry(o32, o64):
    """What the kernels carry from one call to the next outside the state, views of ``o64``:

    * ``waits (B, 4) int64``: the wait cache, per seat the :func:`waits_of` bits of its
      concealed hand without its drawn tile (``drawn_tile`` -1: the whole hand), or -1 when
      not known. A seat's entry is cleared when its hand or melds change otherwise than by
      drawing a tile and discarding that same tile, and computed again when a claim round or
      its own draw needs it;
    * ``pending (B,) int64``: a draw to make before the game's masks are built (-1 none;
      else ``seat + 4 * replacement + 8 * after_kong``): :func:`step_kernel` draws in one
      place, at the start of a game's mask building (the deal's fourteenth tile, the next
      seat after a claim round, the replacement after a kong), without helper calls.

    Code that writes states from outside the kernels must clear both
    (:func:`clear_kernel_carry`)."""
    b = o32.shape[0] // 8
    return o64[b * 20 : b * 24].reshape((b, 4)), o64[b * 24 : b * 25]


def clear_kernel_carry(o32: np.ndarray, o64: np.ndarray) -> None:
    """Forget the kernels' carry (:func:`kernel_carry`), e.g. after a state is loaded from
    outside."""
    b = o32.shape[0] // 8
    o64[b * 20 : b * 25] = -1


@njit(cache=True, nogil=True, inline="always")
def _pending(s, replacement, after_kong):
    """A :func:`kernel_carry` pending draw of seat ``s``."""
    return s + (4 if replacement else 0) + (8 if after_kong else 0)


@njit(cache=True, nogil=True, inline="always")
def output_views(o8, o32, o64):
    """Views of the output buffers: ``to_act (B, 4) bool``, ``legal_mask (B, 4, 235) bool``,
    ``hand_over (B,) bool``, ``illegal (B, 4) bool``, ``need (B,) bool``, ``hu_state (B, 4)
    int8``, ``rewards (B, 4) int32``, ``player_rewards (B, 4) int32``, ``cand (4B, 4) int64``,
    ``ev (B, 4) int64`` (B = ``len(o32) // 8``)."""
    b = o32.shape[0] // 8
    b8 = o8.view(np.bool_)
    to_act = _carve(b8, 0, (b, 4))
    legal_mask = _carve(b8, b * 4, (b, 4, 235))
    hand_over = _carve(b8, b * 944, (b,))
    illegal = _carve(b8, b * 945, (b, 4))
    need = _carve(b8, b * 949, (b,))
    hu_state = _carve(o8, b * 950, (b, 4))
    rewards = _carve(o32, 0, (b, 4))
    player_rewards = _carve(o32, b * 4, (b, 4))
    cand = _carve(o64, 0, (4 * b, 4))
    ev = _carve(o64, b * 16, (b, 4))
    return to_act, legal_mask, hand_over, illegal, need, hu_state, rewards, player_rewards, cand, ev


@njit(cache=True, nogil=True, inline="always")
def random_step_views(o8, o32, o64):
    """The rest of the output buffers: ``terminated (B,) bool`` (the engine's output),
    ``live (B,) bool`` and ``acts (B, 4) int64`` (the games and actions of a
    :func:`step_random_kernel` call), ``rng (2,) int64`` (its bit generator)."""
    b = o32.shape[0] // 8
    b8 = o8.view(np.bool_)
    terminated = _carve(b8, b * 954, (b,))
    live = _carve(b8, b * 955, (b,))
    acts = _carve(o64, b * 25, (b, 4))
    rng = _carve(o64, b * 29, (RNG64,))
    return terminated, live, acts, rng


@njit(cache=True, nogil=True)
def _hu_verdict(g, s, h, t, self_drawn, fourth, wall_last, about_kong, MS, hu_stats):
    """:func:`~mcr_env.scoring.hu_bound.legal_win_bound` of seat ``s`` of game ``g`` winning
    on tile ``t`` with concealed counts ``h (34,)`` (winning tile included): 1 legal, 0 not,
    -1 for the exact scorer; counted in ``hu_stats``."""
    meld_kind, meld_tile, angang_tile, n_melds, dealer, prevalent_wind, mk, mt = MS
    n = n_melds[g, s]
    for j in range(n):
        kind = meld_kind[g, s, j]
        mk[j] = kind
        mt[j] = angang_tile[g, s, j] if kind == _M_ANGANG else meld_tile[g, s, j]
    v = legal_win_bound(
        h,
        n,
        mk,
        mt,
        t,
        self_drawn,
        fourth,
        wall_last,
        about_kong,
        (s - dealer[g]) % 4,
        prevalent_wind[g],
    )
    hu_stats[0 if v == 1 else 1 if v == 0 else 2] += 1
    return v


# ----------------------------------------------------------------------------- step

STEP = 0
"""``step_kernel`` mode: apply the given actions (checked against the masks), build masks."""
MASKS = 1
"""``step_kernel`` mode: only build the masks of the games in ``need``."""
RANDOM = 2
"""``step_kernel`` mode: draw uniformly random legal actions, apply them, build masks."""
PREFETCH_GAMES = 4
"""How many games ahead :func:`step_kernel` prefetches the cache lines a step reads."""


@njit(cache=True, nogil=True)
def step_kernel(
    mode,
    acts,
    live,
    raise_illegal,
    ask_all,
    botzone,
    suit_table,
    s8,
    s16,
    s32,
    o8,
    o32,
    o64,
):
    """One engine step over the batch (``mode`` :data:`STEP` or :data:`RANDOM`), or
    (:data:`MASKS`) the masks of the games in ``need``.

    Step: checks the acting seats' actions against their masks (:data:`RANDOM`: draws them
    instead, see below), zeroes the step outputs, applies one decision per live game
    (discards, kongs, claims in seat priority, draws and replacement draws with flower
    replacement) and builds the masks of the games it moved. Masks: per game in ``need``, Hu
    candidates first (a complete hand not yet scored is listed in ``cand`` and the game waits
    in ``need`` for the engine to score it, ``hu_state`` 2 = legal win, 3 = not), then the
    legal masks and ``to_act``; a claim round or robbing window nobody can answer is passed
    automatically (``claim_round="options"``, docs/rules.md §10) and the next seat draws /
    the kong declarer replaces. The action and mask code is written out in the one loop over
    games: calls with many array arguments per game would cost more than the work.

    Args:
        mode: :data:`STEP`; :data:`MASKS`: only the masks of ``need`` (``acts``, ``live``,
            ``raise_illegal``, ``illegal`` and the step outputs are not read);
            :data:`RANDOM`: the fused random step of :func:`step_random_kernel`: each game's
            acting seats draw their actions into ``acts``
            (:func:`mcr_env.engine.sampling.draw_row`, from the bit generator in the ``rng``
            slots of :func:`random_step_views`) right before the game is stepped, in the one
            pass over the games (the same draws as a separate pass over the (game, seat) rows
            in order: a game's masks do not depend on the other games), ``live`` is set to
            ``~terminated`` there, and the drawn actions are not checked.
        acts: ``(B, 4) int64`` action ids (only acting seats are read; :data:`RANDOM`: out).
        live: ``(B,) bool`` games advanced this step (not terminated, selected); the games of
            penalized seats (``illegal_action="penalize"``) are left as they are.
        raise_illegal: stop at an illegal action before changing anything.
        ask_all: ``claim_round == "all"``: every other seat is asked in claim rounds and
            robbing windows (Pass-only without an option).
        botzone: the botzone wall layout (four 34-tile walls, docs/rules.md §9).
        suit_table: :data:`SUIT_TABLE`.
        s8, s16, s32: the :class:`GameState` buffers (:meth:`GameState.packed_buffers`; the
            fields are :func:`state_views` of them).
        o8, o32, o64: the engine's output buffers (:func:`output_buffers`), whose views
            (:func:`output_views`) are:
        to_act, legal_mask: the engine's ``(B, 4)`` / ``(B, 4, 235)`` outputs (rows of the
            acting seats cleared, rows of the built games written).
        rewards, player_rewards, hand_over: zeroed (all games) once the actions are checked;
            a game whose draw finds no tile is settled here (exhaustive draw: phase OVER, end
            reason EXHAUSTIVE, winner and payer -1, its rewards zero, ``hand_over`` set).
        illegal: ``(B, 4) bool`` out: acting seats whose action is not legal.
        need: ``(B,) bool`` in/out: games whose masks are to be built (games waiting for
            scores stay in it).
        hu_state: ``(B, 4) int8`` per seat: 0 not asked, 1 complete and waiting for the scorer,
            2 legal win, 3 no legal win (set by the engine); reset when the masks are built.
        cand: ``(4B, 4) int64`` out: hands to score ``(game, seat, win tile, rob)``
            (self-drawn when the game's phase is ACT).
        ev: ``(B, 4) int64`` out: ended hands ``(game, EndReason, winner, from)``: Hu actions
            (settled by the engine) and draws finding no tile (settled here).
        hu_stats: ``(3,) int64`` counters, incremented: complete hands the 8-point bound
            (:func:`mcr_env.scoring.hu_bound.legal_win_bound`) found legal, found not legal,
            left to the exact scorer.

    Returns:
        ``(status, events, candidates, illegal seats, decisions)`` (decisions: the seats that
        acted, :data:`RANDOM` only, else 0); status -1: an illegal action with
        ``raise_illegal`` (nothing changed); -2 (:data:`RANDOM`): an acting seat without a
        legal action (an engine invariant broken; the games before it have moved).
    """
    (
        meld_kind,
        meld_tile,
        meld_from,
        meld_claimed,
        meld_added,
        n_melds,
        discards,
        discard_claimed,
        discard_order,
        n_discards,
        total_discards,
        visible_count,
        flower_count,
        flowers,
        phase,
        current_seat,
        tile_in_play,
        played_by,
        after_kong,
        tiles_left,
        dealer,
        prevalent_wind,
        hand_number,
        player_at_seat,
        match_scores,
        winner,
        win_from,
        end_reason,
        hand,
        drawn_tile,
        angang_tile,
        wall,
        wall_front,
        wall_back,
    ) = state_views(s8, s16, s32)
    (to_act, legal_mask, hand_over, illegal, need, hu_state, rewards, player_rewards, cand, ev) = (
        output_views(o8, o32, o64)
    )
    hu_stats = o64[o64.shape[0] - 3 :]
    # scratch rows (in the output buffer, so a call allocates nothing): claim kinds per seat
    # offset, completeness per offset, a hand's counts, the meld kinds and tiles of the bound
    base = o64.shape[0] - 3 - SCRATCH64
    kd = o64[base : base + 4]
    comp = o64[base + 4 : base + 8]
    h = o64[base + 8 : base + 42]
    row = o64[base + 50 : base + 84]
    waits, pend = kernel_carry(o32, o64)
    M = (meld_kind, meld_tile, meld_from, meld_claimed, n_melds)  # what _add_meld changes
    # what the 8-point bound reads, with two scratch rows
    MS = (
        meld_kind,
        meld_tile,
        angang_tile,
        n_melds,
        dealer,
        prevalent_wind,
        o64[base + 42 : base + 46],
        o64[base + 46 : base + 50],
    )
    b = need.shape[0]
    n_bad = 0
    n_ev = 0
    n_cand = 0
    n_dec = 0
    masks_only = mode == MASKS
    draw = mode == RANDOM
    terminated, _live, _acts, rng = random_step_views(o8, o32, o64)
    fn = rng[0]
    bits = rng[1]
    lm = legal_mask.view(np.uint8)
    # legal_mask's (game, seat) rows as uint8 0/1 (draw_row)
    lm_rows = _carve(o8.view(np.uint8), b * 4, (b * 4, NUM_ACTIONS))
    if not masks_only:
        if not draw:
            for g in range(b):
                need[g] = False
                for s in range(4):
                    bad = False
                    if live[g] and to_act[g, s]:
                        a = acts[g, s]
                        if a < 0 or a >= NUM_ACTIONS or not legal_mask[g, s, a]:
                            bad = True
                            n_bad += 1
                    illegal[g, s] = bad
            if n_bad and raise_illegal:
                return -1, 0, 0, n_bad, 0
        rewards[:] = 0
        player_rewards[:] = 0
        hand_over[:] = False
    for g in range(b):
        if not masks_only:
            gp = g + PREFETCH_GAMES
            if gp < b:
                # the cache lines the step of a game ahead reads (the batch's arrays do not
                # fit in L2 at large B): the mask rows of its acting seats and of the next
                # seat (who draws after a discard), the hands, where the current seat
                # discards and the next seat draws, the visible counts
                c = np.int64(current_seat[gp])
                nxt = (c + 1) % 4
                for s in range(4):
                    if to_act[gp, s] or s == nxt:
                        r = (gp * 4 + s) * NUM_ACTIONS
                        for line in range(0, NUM_ACTIONS, 64):
                            _prefetch(lm, r + line)
                for line in range(0, 4 * 34, 64):
                    _prefetch(hand, gp * 4 * 34 + line)
                r = (gp * 4 + c) * DISCARD_CAPACITY + np.int64(n_discards[gp, c])
                _prefetch(discards, r)
                _prefetch(discard_order, r)
                r = gp * WALL_CAPACITY + np.int64(wall_front[gp, nxt if botzone else 0])
                _prefetch(wall, r)
                _prefetch(visible_count, gp * 34)
            if draw:
                need[g] = False
                for s in range(4):
                    illegal[g, s] = False
                    a = 0
                    if to_act[g, s]:
                        a = draw_row(lm_rows, 4 * g + s, fn, bits)
                        if a < 0:
                            return -2, n_ev, n_cand, 0, n_dec
                        n_dec += 1
                    acts[g, s] = a
                live[g] = not terminated[g]
            if not live[g]:
                continue
            claimer = -1
            while True:  # the action of game g (one pass; break = done)
                acting = 0
                penal = False
                for s in range(4):
                    if to_act[g, s]:
                        acting |= 1 << s
                        to_act[g, s] = False
                        for x in range(NUM_ACTIONS):  # (a constant length: no memset call)
                            legal_mask[g, s, x] = False
                    if illegal[g, s]:
                        penal = True
                if penal:
                    break
                ph = phase[g]
                if ph == _P_ACT or ph == _P_DISCARD:
                    c = current_seat[g]
                    a = acts[g, c]
                    kind = _KIND[a]
                    t = _TILE[a]
                    if kind == _A_PLAY:
                        if hand[g, c, t] <= 0:
                            raise RuntimeError("engine invariant: discarding a tile not in hand")
                        hand[g, c, t] -= 1
                        slot = n_discards[g, c]
                        if slot >= DISCARD_CAPACITY:
                            raise RuntimeError("discard capacity exceeded")
                        discards[g, c, slot] = t
                        discard_order[g, c, slot] = total_discards[g]
                        n_discards[g, c] += 1
                        total_discards[g] += 1
                        visible_count[g, t] += 1
                        tile_in_play[g] = t
                        played_by[g] = c
                        if drawn_tile[g, c] != t:
                            waits[g, c] = -1  # (discarding the drawn tile keeps the waits)
                        drawn_tile[g, c] = -1
                        after_kong[g] = False
                        phase[g] = _P_CLAIM
                        need[g] = True
                    elif kind == _A_HU:
                        n_ev = _event(ev, n_ev, g, _E_SELF, c, -1)
                    elif kind == _A_ANGANG:
                        hand[g, c, t] -= 4
                        waits[g, c] = -1
                        slot = _add_meld(g, c, _M_ANGANG, -1, -1, -1, M)
                        angang_tile[g, c, slot] = t
                        drawn_tile[g, c] = -1
                        pend[g] = _pending(c, True, True)
                        need[g] = True
                    elif kind == _A_BUGANG:
                        hand[g, c, t] -= 1
                        waits[g, c] = -1
                        for j in range(4):
                            if meld_kind[g, c, j] == _M_PENG and meld_tile[g, c, j] == t:
                                meld_kind[g, c, j] = _M_GANG
                                meld_added[g, c, j] = True
                                break
                        visible_count[g, t] += 1
                        drawn_tile[g, c] = -1
                        tile_in_play[g] = t
                        played_by[g] = c
                        phase[g] = _P_ROB
                        need[g] = True
                    break
                if ph != _P_CLAIM and ph != _P_ROB:
                    break
                d = np.int64(played_by[g])
                t = np.int64(tile_in_play[g])
                rob = ph == _P_ROB
                for k in range(1, 4):
                    s = (d + k) % 4
                    kd[k] = _KIND[acts[g, s]] if acting & (1 << s) else _A_PASS
                done = False
                for k in range(1, 4):
                    if kd[k] == _A_HU:
                        s = (d + k) % 4
                        n_ev = _event(ev, n_ev, g, _E_ROB if rob else _E_DISCARD, s, d)
                        done = True
                        break
                if done:
                    break
                if rob:
                    # nobody robbed the kong: it stands, the declarer takes a replacement
                    pend[g] = _pending(d, True, True)
                    need[g] = True
                    break
                for k in range(1, 4):
                    if kd[k] == _A_PENG or kd[k] == _A_GANG:
                        s = (d + k) % 4
                        discard_claimed[g, d, n_discards[g, d] - 1] = True
                        if kd[k] == _A_GANG:
                            hand[g, s, t] -= 3
                            waits[g, s] = -1
                            visible_count[g, t] += 3
                            _add_meld(g, s, _M_GANG, t, d, t, M)
                            pend[g] = _pending(s, True, True)
                            need[g] = True
                        else:
                            hand[g, s, t] -= 2
                            waits[g, s] = -1
                            visible_count[g, t] += 2
                            _add_meld(g, s, _M_PENG, t, d, t, M)
                            claimer = s
                        done = True
                        break
                if done:
                    break
                if kd[1] == _A_CHI:
                    s = (d + 1) % 4
                    mid = _TILE[acts[g, s]]
                    discard_claimed[g, d, n_discards[g, d] - 1] = True
                    waits[g, s] = -1
                    for off in range(-1, 2):
                        tile = mid + off
                        if tile != t:
                            hand[g, s, tile] -= 1
                            visible_count[g, tile] += 1
                    _add_meld(g, s, _M_CHI, mid, d, t, M)
                    claimer = s
                    break
                # everybody passed: the next seat draws
                pend[g] = _pending((d + 1) % 4, False, False)
                need[g] = True
                break
            if claimer >= 0:  # after a Pung or Chi the claimer is to discard
                phase[g] = _P_DISCARD
                current_seat[g] = claimer
                tile_in_play[g] = -1
                played_by[g] = -1
                after_kong[g] = False
                need[g] = True
        if not need[g]:
            continue
        while need[g]:
            p = pend[g]
            if p >= 0:
                # the one place where tiles are drawn (docs/rules.md §2): official layout from
                # the back for a replacement; botzone always from the front of the seat's own
                # wall (kong replacements too: the Botzone judge's order, §9); flowers set
                # aside and replaced from the back (an ordinary draw: not after a kong)
                pend[g] = -1
                s = p & 3
                back = (p & 4) != 0 and not botzone
                after = (p & 8) != 0
                seg = s if botzone else 0
                tile = -1
                if wall_back[g, seg] > wall_front[g, seg]:
                    if back:
                        wall_back[g, seg] -= 1
                        tile = wall[g, wall_back[g, seg]]
                    else:
                        tile = wall[g, wall_front[g, seg]]
                        wall_front[g, seg] += 1
                    while tile >= 34:
                        after = False
                        flower_count[g, s] += 1
                        flowers[g, s, tile - 34] = True
                        if wall_back[g, seg] <= wall_front[g, seg]:
                            tile = -1
                            break
                        wall_back[g, seg] -= 1
                        tile = wall[g, wall_back[g, seg]]
                for k in range(4):
                    seg = k if botzone else 0
                    tiles_left[g, k] = wall_back[g, seg] - wall_front[g, seg]
                if tile < 0:  # no tile left: the hand ends in an exhaustive draw (§3):
                    # settled here (nobody pays), the engine records the hand's result
                    phase[g] = _P_OVER
                    end_reason[g] = _E_EXHAUSTIVE
                    winner[g] = -1
                    win_from[g] = -1
                    hand_over[g] = True
                    for k in range(4):
                        rewards[g, k] = 0
                        player_rewards[g, k] = 0
                    n_ev = _event(ev, n_ev, g, _E_EXHAUSTIVE, -1, -1)
                    need[g] = False
                    break
                if drawn_tile[g, s] >= 0:
                    waits[g, s] = -1  # (the cache is of the hand without its drawn tile)
                hand[g, s, tile] += 1
                drawn_tile[g, s] = tile
                phase[g] = _P_ACT
                current_seat[g] = s
                after_kong[g] = after
                tile_in_play[g] = -1
                played_by[g] = -1
            ph = phase[g]
            if ph != _P_DISCARD:
                # the winning tiles of the seats this mask tests (a claim round: the others;
                # after a draw: the drawer), kept in the cache (seats whose drawn tile does
                # not fit, in states loaded from outside, are tested tile by tile below)
                skip = played_by[g]
                only = current_seat[g] if ph == _P_ACT else -1
                for s in range(4):
                    if s == skip or (only >= 0 and s != only) or waits[g, s] >= 0:
                        continue
                    dt = drawn_tile[g, s]
                    if (dt >= 0) != (ph == _P_ACT):
                        continue
                    for x in range(34):
                        row[x] = hand[g, s, x]
                    if dt >= 0:
                        row[dt] -= 1
                    waits[g, s] = waits_of(row, n_melds[g, s], suit_table, h)
            if ph == _P_CLAIM or ph == _P_ROB:
                d = np.int64(played_by[g])
                t = np.int64(tile_in_play[g])
                rob = ph == _P_ROB
                waiting = False
                for k in range(1, 4):
                    s = (d + k) % 4
                    if drawn_tile[g, s] < 0:  # the usual case: winning tiles from the cache
                        comp[k] = (waits[g, s] >> t) & 1
                    else:
                        comp[k] = complete_with(hand[g, s], t, n_melds[g, s], suit_table, h)
                    if comp[k] and hu_state[g, s] == 0:
                        for x in range(34):
                            h[x] = hand[g, s, x]
                        h[t] += 1
                        # the last discard: the seat that would draw next has no tile left
                        last = (not rob) and tiles_left[g, (d + 1) % 4] <= 0
                        fourth = visible_count[g, t] - 1 >= 3
                        v = _hu_verdict(g, s, h, t, False, fourth, last, rob, MS, hu_stats)
                        if v >= 0:
                            hu_state[g, s] = 2 if v == 1 else 3
                            continue
                        hu_state[g, s] = 1
                        cand[n_cand, 0] = g
                        cand[n_cand, 1] = s
                        cand[n_cand, 2] = t
                        cand[n_cand, 3] = rob
                        n_cand += 1
                        waiting = True
                if waiting:
                    break
                asked = False
                nxt_left = tiles_left[g, (d + 1) % 4]
                for k in range(1, 4):
                    s = (d + k) % 4
                    hu_ok = comp[k] != 0 and hu_state[g, s] == 2
                    opt = hu_ok
                    # the last discard (no tile after the discarder) may only be won; a seat
                    # that can Hu may claim instead (docs/rules.md §2)
                    if not rob and nxt_left > 0:
                        cnt = hand[g, s, t]
                        if cnt >= 2:
                            legal_mask[g, s, PENG_OFFSET + t] = True
                            opt = True
                            if cnt == 3 and tiles_left[g, s] > 0:
                                legal_mask[g, s, GANG_OFFSET + t] = True
                        if k == 1 and t < 27:
                            r0 = t % 9
                            base = CHI_OFFSET + 21 * (t // 9)
                            if r0 <= 6 and hand[g, s, t + 1] > 0 and hand[g, s, t + 2] > 0:
                                legal_mask[g, s, base + 3 * r0] = True
                                opt = True
                            if 1 <= r0 <= 7 and hand[g, s, t - 1] > 0 and hand[g, s, t + 1] > 0:
                                legal_mask[g, s, base + 3 * r0 - 2] = True
                                opt = True
                            if r0 >= 2 and hand[g, s, t - 2] > 0 and hand[g, s, t - 1] > 0:
                                legal_mask[g, s, base + 3 * r0 - 4] = True
                                opt = True
                    if opt or ask_all:
                        asked = True
                        to_act[g, s] = True
                        legal_mask[g, s, PASS] = True
                        legal_mask[g, s, HU] = hu_ok
                for s in range(4):
                    hu_state[g, s] = 0
                if asked:
                    need[g] = False
                    break
                # nobody can answer: the next seat draws, or the kong declarer replaces
                pend[g] = _pending(d, True, True) if rob else _pending((d + 1) % 4, False, False)
                continue
            if ph == _P_ACT or ph == _P_DISCARD:
                c = current_seat[g]
                act = ph == _P_ACT
                hu_ok = False
                if act:
                    dt = drawn_tile[g, c]
                    if dt >= 0:  # the drawn tile among the winning tiles of the rest
                        cp = (waits[g, c] >> dt) & 1 != 0
                    else:
                        cp = complete_with(hand[g, c], -1, n_melds[g, c], suit_table, h)
                    if cp:
                        if hu_state[g, c] == 0:
                            for x in range(34):
                                h[x] = hand[g, c, x]
                            t = np.int64(drawn_tile[g, c])
                            last = tiles_left[g, (c + 1) % 4] <= 0
                            fourth = visible_count[g, t] >= 3
                            v = _hu_verdict(
                                g, c, h, t, True, fourth, last, after_kong[g], MS, hu_stats
                            )
                            if v >= 0:
                                hu_state[g, c] = 2 if v == 1 else 3
                            else:
                                hu_state[g, c] = 1
                                cand[n_cand, 0] = g
                                cand[n_cand, 1] = c
                                cand[n_cand, 2] = t
                                cand[n_cand, 3] = 0
                                n_cand += 1
                                break
                        hu_ok = hu_state[g, c] == 2
                kong_ok = act and tiles_left[g, c] > 0
                if botzone and tiles_left[g, (c + 1) % 4] <= 0:
                    kong_ok = False  # the judge also needs a tile in the next seat's wall (§9)
                # (branch-free over the 34 tiles; the acting seat's row was cleared)
                for x in range(34):
                    legal_mask[g, c, PLAY_OFFSET + x] = hand[g, c, x] > 0
                if kong_ok:
                    for x in range(34):
                        legal_mask[g, c, ANGANG_OFFSET + x] = hand[g, c, x] == 4
                    for j in range(n_melds[g, c]):
                        if meld_kind[g, c, j] == _M_PENG:
                            x = np.int64(meld_tile[g, c, j])
                            if hand[g, c, x] > 0:
                                legal_mask[g, c, BUGANG_OFFSET + x] = True
                legal_mask[g, c, HU] = hu_ok
                to_act[g, c] = True
                for s in range(4):
                    hu_state[g, s] = 0
            need[g] = False
    return 0, n_ev, n_cand, n_bad, n_dec


@njit(cache=True, nogil=True)
def clear_games_kernel(games, s8, s16, s32, o8, o32, o64):
    """The outputs of the games ``games (n,) int64`` that ``MCREngine.reset`` starts again:
    ``rewards``, ``player_rewards``, ``match_scores`` and ``hu_state`` zero, ``hand_over``,
    ``terminated``, ``to_act`` and ``legal_mask`` False (the deal sets the state fields)."""
    match_scores = state_views(s8, s16, s32)[24]
    (to_act, legal_mask, hand_over, _il, _nd, hu_state, rewards, player_rewards) = output_views(
        o8, o32, o64
    )[:8]
    terminated = random_step_views(o8, o32, o64)[0]
    for i in range(games.shape[0]):
        g = games[i]
        hand_over[g] = False
        terminated[g] = False
        for s in range(4):
            rewards[g, s] = 0
            player_rewards[g, s] = 0
            match_scores[g, s] = 0
            hu_state[g, s] = 0
            to_act[g, s] = False
            legal_mask[g, s, :] = False


@njit(cache=True, nogil=True)
def hands_ended_kernel(games, single, s8, s16, s32, o8, o32, o64):
    """Games ``games (n,) int64`` finished a hand: their legal masks and ``to_act`` cleared;
    ``single`` (single-hand mode): ``terminated`` set too."""
    to_act, legal_mask = output_views(o8, o32, o64)[:2]
    terminated = random_step_views(o8, o32, o64)[0]
    for i in range(games.shape[0]):
        g = games[i]
        if single:
            terminated[g] = True
        for s in range(4):
            to_act[g, s] = False
            legal_mask[g, s, :] = False


@njit(cache=True, nogil=True)
def step_live_kernel(
    acts, games, raise_illegal, ask_all, botzone, suit_table, s8, s16, s32, o8, o32, o64
):
    """:func:`step_kernel` (mode :data:`STEP`) over the games not terminated and, when
    ``games`` has B entries, selected by it (``games`` empty: all of them): ``live`` (the
    :func:`random_step_views` row) is set here, so :meth:`MCREngine.step` makes no array
    of its own. Arguments and returns as :func:`step_kernel`."""
    terminated, live = random_step_views(o8, o32, o64)[:2]
    b = live.shape[0]
    sel = games.shape[0] == b
    for g in range(b):
        live[g] = not terminated[g] and (not sel or games[g])
    return step_kernel(
        STEP, acts, live, raise_illegal, ask_all, botzone, suit_table, s8, s16, s32, o8, o32, o64
    )[:4]


@njit(cache=True, nogil=True)
def step_random_kernel(ask_all, botzone, suit_table, s8, s16, s32, o8, o32, o64):
    """A uniformly random legal action for every acting seat, then :func:`step_kernel` over
    the games not terminated: :meth:`mcr_env.engine.core.MCREngine.step_random` in one call.

    The actions are drawn (:func:`mcr_env.engine.sampling.draw_row`) from the bit generator
    in the ``rng`` slots of ``o64`` (:func:`random_step_views`), over the acting (game, seat)
    rows in order, exactly as :func:`mcr_env.engine.sampling.sample_legal_actions` with
    ``acting = to_act`` draws them, into ``acts``; ``live`` is set to ``~terminated``. The
    draws are fused into the step's one pass over the games (a game's seats draw right before
    it is stepped), so every game's masks and state are read once while in
    cache (:func:`step_kernel` in mode :data:`RANDOM`). Arguments as :func:`step_kernel`.

    Returns:
        ``(status, events, candidates, illegal seats, decisions)`` (:func:`step_kernel`'s
        four, then the number of seats that acted); status -2: an acting seat without a
        legal action (an engine invariant broken; the games before it have moved).
    """
    live, acts = random_step_views(o8, o32, o64)[1:3]
    return step_kernel(
        RANDOM, acts, live, False, ask_all, botzone, suit_table, s8, s16, s32, o8, o32, o64
    )


# ----------------------------------------------------------------------------- deal


@njit(cache=True, nogil=True)
def deal_kernel(
    games, walls, hand_numbers, dealers, winds, players, botzone, s8, s16, s32, o8, o32, o64
):
    """Start hand ``hand_numbers[i]`` of game ``games[i]`` with wall ``walls[i]`` (docs/rules.md
    §2, §4): clears the per-hand fields, sets dealer/wind/players, deals 13 tiles per seat
    (official: blocks of 13 from the front, the dealer first, then flower replacement from the
    back in deal order, each seat until clean; botzone: each seat's first 13 wall tiles) and
    the dealer's draw is left pending (:func:`kernel_carry`) for the masks pass of
    :func:`step_kernel` that follows every deal. Marks the games in ``need``; returns 0 (the
    number of ``ev`` rows: a hand ends in that masks pass, if ever a deal finds no tile)."""
    (
        meld_kind,
        meld_tile,
        meld_from,
        meld_claimed,
        meld_added,
        n_melds,
        discards,
        discard_claimed,
        discard_order,
        n_discards,
        total_discards,
        visible_count,
        flower_count,
        flowers,
        phase,
        current_seat,
        tile_in_play,
        played_by,
        after_kong,
        tiles_left,
        dealer,
        prevalent_wind,
        hand_number,
        player_at_seat,
        match_scores,
        winner,
        win_from,
        end_reason,
        hand,
        drawn_tile,
        angang_tile,
        wall,
        wall_front,
        wall_back,
    ) = state_views(s8, s16, s32)
    need = output_views(o8, o32, o64)[4]
    waits, pend = kernel_carry(o32, o64)
    length = walls.shape[1]
    for i in range(games.shape[0]):
        g = games[i]
        dl = dealers[i]
        dealer[g] = dl
        prevalent_wind[g] = winds[i]
        for s in range(4):
            player_at_seat[g, s] = players[i, s]
        hand_number[g] = hand_numbers[i]
        meld_kind[g] = 0
        meld_tile[g] = -1
        meld_from[g] = -1
        meld_claimed[g] = -1
        meld_added[g] = False
        n_melds[g] = 0
        discards[g] = -1
        discard_claimed[g] = False
        discard_order[g] = -1
        n_discards[g] = 0
        total_discards[g] = 0
        visible_count[g] = 0
        flower_count[g] = 0
        flowers[g] = False
        tile_in_play[g] = -1
        played_by[g] = -1
        after_kong[g] = False
        winner[g] = -1
        win_from[g] = -1
        end_reason[g] = 0
        hand[g] = 0
        waits[g] = -1
        drawn_tile[g] = -1
        angang_tile[g] = -1
        wall[g] = -1
        wall_front[g] = 0
        wall_back[g] = 0
        for j in range(length):
            wall[g, j] = walls[i, j]
        if botzone:
            for s in range(4):
                base = BOTZONE_SEGMENT * s
                for j in range(13):
                    hand[g, s, wall[g, base + j]] += 1
                wall_front[g, s] = base + 13
                wall_back[g, s] = base + BOTZONE_SEGMENT
        else:
            wall_front[g, 0] = 52
            back = 144
            for blk in range(4):
                s = (dl + blk) % 4
                for j in range(13):
                    tile = wall[g, 13 * blk + j]
                    if tile >= 34:
                        flower_count[g, s] += 1
                        flowers[g, s, tile - 34] = True
                    else:
                        hand[g, s, tile] += 1
            for blk in range(4):
                s = (dl + blk) % 4
                missing = 13
                for x in range(34):
                    missing -= hand[g, s, x]
                while missing > 0:
                    back -= 1
                    tile = wall[g, back]
                    if tile >= 34:
                        flower_count[g, s] += 1
                        flowers[g, s, tile - 34] = True
                    else:
                        hand[g, s, tile] += 1
                        missing -= 1
            wall_back[g, 0] = back
        phase[g] = _P_ACT
        current_seat[g] = dl
        pend[g] = _pending(dl, False, False)  # drawn by the masks pass (step_kernel)
        need[g] = True
    return 0

"""Seeded random winning hands covering every winning form (for tests, bench and diff scripts).

The generator builds a hand from its parts (sets and a pair, or a special form), so every hand
is complete by construction; it is biased toward the structures that make fans interact
(shifted and repeated chows, pungs of honors and terminals, one-suit hands with several
readings, kongs, melds) rather than toward a natural game's frequencies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mcr_env.scoring.decompose import KNITTED_STRAIGHTS, THIRTEEN_ORPHANS_TILES

FORMS = (
    "regular",
    "full_flush",
    "seven_pairs",
    "thirteen_orphans",
    "honors_knitted",
    "knitted_straight",
    "nine_gates",
)
"""Forms :func:`random_winning_hand` can produce (``form=None`` mixes them)."""

_FORM_WEIGHTS = np.array([0.52, 0.16, 0.10, 0.04, 0.05, 0.07, 0.06])
_HONORS = tuple(range(27, 34))


@dataclass(frozen=True)
class WinningHand:
    """A complete winning hand in :func:`mcr_env.scoring.score_win` terms.

    Attributes:
        hand: concealed tile ids without the winning tile, sorted.
        win_tile: the winning tile id.
        melds: ``(kind, tile, offer)`` tuples (``CHI`` tile = middle tile; ``ANGANG`` offer 0).
        is_self_drawn, is_4th_tile, is_wall_last, is_about_kong: win flags.
        seat_wind, prevalent_wind: 0..3. flowers: 0..8.
        form: the generator form that produced the hand (one of :data:`FORMS`).
    """

    hand: tuple[int, ...]
    win_tile: int
    melds: tuple[tuple[str, int, int], ...]
    is_self_drawn: bool
    is_4th_tile: bool
    is_wall_last: bool
    is_about_kong: bool
    seat_wind: int
    prevalent_wind: int
    flowers: int
    form: str

    def kwargs(self) -> dict:
        """Keyword arguments for ``score_win(**wh.kwargs(), profile=...)``."""
        return dict(
            hand=list(self.hand),
            win_tile=self.win_tile,
            melds=list(self.melds),
            is_self_drawn=self.is_self_drawn,
            is_4th_tile=self.is_4th_tile,
            is_wall_last=self.is_wall_last,
            is_about_kong=self.is_about_kong,
            seat_wind=self.seat_wind,
            prevalent_wind=self.prevalent_wind,
            flowers=self.flowers,
        )


def _suit_tiles(s: int) -> list[int]:
    return list(range(9 * s, 9 * s + 9))


def _palette(rng: np.random.Generator) -> list[int]:
    kind = int(rng.integers(8))
    s = int(rng.integers(3))
    if kind == 0:
        return list(range(34))
    if kind == 1:
        return _suit_tiles(s)
    if kind == 2:
        return _suit_tiles(s) + list(_HONORS)
    if kind == 3:
        return list(THIRTEEN_ORPHANS_TILES) + [t for t in range(27) if t % 9 in (1, 7)]
    if kind == 4:
        return [t for t in range(27) if t % 9 not in (0, 8)]
    if kind == 5:
        s2 = (s + 1 + int(rng.integers(2))) % 3
        return _suit_tiles(s) + _suit_tiles(s2)
    if kind == 6:
        return list(_HONORS) + [t for t in range(27) if t % 9 in (0, 8)] + list(range(27))
    return list(range(27))


def _random_flags(rng: np.random.Generator) -> dict:
    return dict(
        is_self_drawn=bool(rng.random() < 0.5),
        is_4th_tile=bool(rng.random() < 0.12),
        is_wall_last=bool(rng.random() < 0.06),
        is_about_kong=bool(rng.random() < 0.1),
        seat_wind=int(rng.integers(4)),
        prevalent_wind=int(rng.integers(4)),
        flowers=0 if rng.random() < 0.6 else int(rng.integers(1, 9)),
    )


def _chow_start(rng: np.random.Generator, palette: list[int], prev: list[int]) -> int | None:
    if prev and rng.random() < 0.6:
        p = prev[int(rng.integers(len(prev)))]
        r = p % 9
        choice = int(rng.integers(6))
        if choice == 0:
            t = p
        elif choice == 1:
            t = p + 1 if r < 6 else p - 1
        elif choice == 2:
            t = p + 2 if r < 5 else p - 2
        elif choice == 3:
            t = p + 3 if r < 4 else p - 3
        else:
            t = (p + 9 * int(rng.integers(1, 3))) % 27  # same chow, other suit
        return t if 0 <= t < 27 and t % 9 <= 6 else None
    starts = [t for t in palette if t < 27 and t % 9 <= 6]
    if not starts:
        return None
    return starts[int(rng.integers(len(starts)))]


def _pung_tile(rng: np.random.Generator, palette: list[int], prev: list[int]) -> int:
    if prev and rng.random() < 0.5:
        p = prev[int(rng.integers(len(prev)))]
        if p < 27:
            choice = int(rng.integers(3))
            if choice == 0 and p % 9 < 8:
                return p + 1
            if choice == 1 and p % 9 > 0:
                return p - 1
            return (p + 9 * int(rng.integers(1, 3))) % 27
        return 27 + (p - 27 + 1) % 4 if p < 31 else 31 + (p - 31 + 1) % 3
    return palette[int(rng.integers(len(palette)))]


def _regular(rng: np.random.Generator, one_suit: bool) -> tuple | None:
    palette = _suit_tiles(int(rng.integers(3))) if one_suit else _palette(rng)
    w = rng.dirichlet([2.0, 1.2, 0.4])
    p_chow, p_pung = w[0], w[1]
    if one_suit:
        p_chow, p_pung = 0.75, 0.2
    p_meld = float(rng.choice([0.0, 0.0, 0.15, 0.4, 0.8]))
    counts = [0] * 34
    sets: list[tuple[str, int]] = []
    chow_starts: list[int] = []
    pung_tiles: list[int] = []
    for _ in range(4):
        u = rng.random()
        if u < p_chow:
            t = _chow_start(rng, palette, chow_starts)
            if t is None:
                return None
            for x in (t, t + 1, t + 2):
                counts[x] += 1
            sets.append(("chow", t))
            chow_starts.append(t)
        else:
            t = _pung_tile(rng, palette, pung_tiles)
            kong = u >= p_chow + p_pung
            counts[t] += 4 if kong else 3
            sets.append(("kong" if kong else "pung", t))
            pung_tiles.append(t)
    pair = palette[int(rng.integers(len(palette)))]
    counts[pair] += 2
    if max(counts) > 4:
        return None
    concealed: list[int] = [pair, pair]
    melds: list[tuple[str, int, int]] = []
    for kind, t in sets:
        melded = rng.random() < p_meld
        if kind == "kong":
            if melded or rng.random() < 0.5:
                melds.append(("GANG", t, int(rng.integers(1, 4))))
            else:
                melds.append(("ANGANG", t, 0))
        elif not melded:
            concealed.extend([t, t + 1, t + 2] if kind == "chow" else [t, t, t])
        elif kind == "chow":
            melds.append(("CHI", t + 1, int(rng.integers(1, 4))))
        else:
            melds.append(("PENG", t, int(rng.integers(1, 4))))
    return concealed, melds


def _seven_pairs(rng: np.random.Generator) -> tuple:
    if rng.random() < 0.15:
        s, lo = int(rng.integers(3)), int(rng.integers(3))
        kinds = [9 * s + lo + i for i in range(7)]
    else:
        palette = _palette(rng)
        if len(set(palette)) < 7:
            palette = list(range(34))
        pal = sorted(set(palette))
        kinds = [pal[i] for i in rng.choice(len(pal), size=7, replace=False)]
        if rng.random() < 0.15:
            kinds[-1] = kinds[0]  # four identical tiles used as two pairs
    concealed = [t for k in kinds for t in (k, k)]
    return concealed, []


def _thirteen_orphans(rng: np.random.Generator) -> tuple:
    concealed = list(THIRTEEN_ORPHANS_TILES)
    concealed.append(THIRTEEN_ORPHANS_TILES[int(rng.integers(13))])
    return concealed, []


def _honors_knitted(rng: np.random.Generator) -> tuple:
    k = KNITTED_STRAIGHTS[int(rng.integers(6))]
    n_suited = int(rng.integers(7, 10))
    suited = [k[i] for i in rng.choice(9, size=n_suited, replace=False)]
    honors = [_HONORS[i] for i in rng.choice(7, size=14 - n_suited, replace=False)]
    return suited + honors, []


def _knitted_straight(rng: np.random.Generator) -> tuple | None:
    k = KNITTED_STRAIGHTS[int(rng.integers(6))]
    counts = [0] * 34
    for t in k:
        counts[t] += 1
    palette = _palette(rng)
    pair = palette[int(rng.integers(len(palette)))]
    counts[pair] += 2
    u = rng.random()
    concealed = list(k) + [pair, pair]
    melds: list[tuple[str, int, int]] = []
    melded = rng.random() < 0.4
    if u < 0.55:
        starts = [t for t in range(27) if t % 9 <= 6]
        t = starts[int(rng.integers(len(starts)))]
        for x in (t, t + 1, t + 2):
            counts[x] += 1
        if melded:
            melds.append(("CHI", t + 1, int(rng.integers(1, 4))))
        else:
            concealed += [t, t + 1, t + 2]
    else:
        t = palette[int(rng.integers(len(palette)))]
        kong = rng.random() < 0.3
        counts[t] += 4 if kong else 3
        if kong:
            melds.append(("ANGANG", t, 0) if rng.random() < 0.5 else ("GANG", t, 1))
        elif melded:
            melds.append(("PENG", t, int(rng.integers(1, 4))))
        else:
            concealed += [t, t, t]
    if max(counts) > 4:
        return None
    return concealed, melds


def _nine_gates(rng: np.random.Generator) -> tuple:
    s = int(rng.integers(3))
    base = [9 * s + r for r in (0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8)]
    extra = 9 * s + int(rng.integers(9))
    return base + [extra], [], extra


def random_winning_hand(rng: np.random.Generator, form: str | None = None) -> WinningHand:
    """A random complete winning hand (shape-complete; it may score under 8 points).

    Args:
        rng: a numpy Generator (the only source of randomness; same seed, same hands).
        form: one of :data:`FORMS`, or None to mix them (weights favour regular hands).

    Returns:
        :class:`WinningHand` with random melds, win flags, winds and flowers.

    Raises:
        ValueError: unknown ``form``.
    """
    if form is None:
        form = FORMS[int(rng.choice(len(FORMS), p=_FORM_WEIGHTS))]
    elif form not in FORMS:
        raise ValueError(f"unknown form {form!r} (expected one of {FORMS} or None)")
    while True:
        win_hint = None
        if form == "regular":
            parts = _regular(rng, one_suit=False)
        elif form == "full_flush":
            parts = _regular(rng, one_suit=True)
        elif form == "seven_pairs":
            parts = _seven_pairs(rng)
        elif form == "thirteen_orphans":
            parts = _thirteen_orphans(rng)
        elif form == "honors_knitted":
            parts = _honors_knitted(rng)
        elif form == "knitted_straight":
            parts = _knitted_straight(rng)
        else:
            concealed, melds, extra = _nine_gates(rng)
            parts = (concealed, melds)
            if rng.random() < 0.7:
                win_hint = extra
        if parts is not None:
            break
    concealed, melds = parts
    concealed = list(concealed)
    if win_hint is not None:
        win = win_hint
    else:
        win = concealed[int(rng.integers(len(concealed)))]
    concealed.remove(win)
    return WinningHand(
        hand=tuple(sorted(concealed)),
        win_tile=int(win),
        melds=tuple(melds),
        form=form,
        **_random_flags(rng),
    )


def with_promoted_kongs(wh: WinningHand) -> WinningHand | None:
    """``wh`` with every melded kong claimed from a discard (``GANG``) made a promoted one
    (``BUGANG``, docs/rules.md §7 item 7), or None when it has none. Consumes no randomness,
    so a seeded stream of hands stays the same."""
    if not any(k == "GANG" for k, _t, _o in wh.melds):
        return None
    melds = tuple(("BUGANG" if k == "GANG" else k, t, o) for k, t, o in wh.melds)
    return replace(wh, melds=melds)

"""A slow, plain-Python reference of one MCR game, written from docs/rules.md (§2-§4, §9, §10)
for the differential test of the compiled engine (tests/test_engine_differential.py).

One :class:`RefGame` plays one hand with Python lists and ints: no numpy, no engine code. It
builds its own legal masks (as sets of action ids), resolves claims, draws, replaces flowers and
kongs, and settles; completeness is a recursive decomposition. Only the exact scorer
(``score_win``) is shared with the engine: it decides whether a complete hand reaches 8 points.

Conventions (the engine's public contract): seats 0..3 in play order; action ids of
:mod:`mcr_env.engine.actions` (Pass 0, Hu 1, Play 2+t, Chi 36+21*suit+3*(mid-2)+claimed,
Peng 99+t, Gang 133+t, AnGang 167+t, BuGang 201+t); phases ACT 0, DISCARD 1, CLAIM 2, ROB 3,
OVER 4; meld kinds CHI 1, PENG 2, GANG 3, ANGANG 4; end reasons SELF_DRAWN 1, DISCARD 2,
ROB_KONG 3, EXHAUSTIVE 4.
"""

from __future__ import annotations

from itertools import permutations

from mcr_env.scoring import NotAWinError, score_win

ACT, DISCARD, CLAIM, ROB, OVER = 0, 1, 2, 3, 4
CHI, PENG, GANG, ANGANG = 1, 2, 3, 4
SELF_DRAWN, BY_DISCARD, ROB_KONG, EXHAUSTIVE = 1, 2, 3, 4
PASS, HU = 0, 1
KNITTED = [
    [9 * suit + start + 3 * j for suit, start in enumerate(perm) for j in range(3)]
    for perm in permutations(range(3))
]
ORPHANS = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]
# docs/rules.md §4: player at each seat in round r, and the dealer rotation
PLAYER_AT_SEAT = [[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 1, 0], [3, 2, 0, 1]]


def chi_id(mid: int, claimed: int) -> int:
    return 36 + 21 * (mid // 9) + 3 * (mid % 9 - 1) + (claimed - mid + 1)


def decode(a: int) -> tuple[str, int]:
    """Action id -> (kind, tile); Chi -> ("CHI", id) decoded by the caller."""
    if a == PASS:
        return "PASS", -1
    if a == HU:
        return "HU", -1
    if a < 36:
        return "PLAY", a - 2
    if a < 99:
        return "CHI", a
    if a < 133:
        return "PENG", a - 99
    if a < 167:
        return "GANG", a - 133
    if a < 201:
        return "ANGANG", a - 167
    return "BUGANG", a - 201


def chi_tiles(a: int) -> tuple[int, int]:
    """Chi id -> (middle tile, claimed tile)."""
    x = a - 36
    suit, rest = divmod(x, 21)
    mid_rank, claimed = divmod(rest, 3)
    mid = 9 * suit + mid_rank + 1
    return mid, mid + claimed - 1


# ----------------------------------------------------------------------------- completeness


def _sets(c: list[int], need: int) -> bool:
    """Counts ``c`` split into exactly ``need`` pungs/chows (recursive, lowest tile first)."""
    for t in range(34):
        if c[t]:
            break
    else:
        return need == 0
    if need == 0:
        return False
    if c[t] >= 3:
        c[t] -= 3
        ok = _sets(c, need - 1)
        c[t] += 3
        if ok:
            return True
    if t < 27 and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        for x in (t, t + 1, t + 2):
            c[x] -= 1
        ok = _sets(c, need - 1)
        for x in (t, t + 1, t + 2):
            c[x] += 1
        if ok:
            return True
    return False


def regular(c: list[int]) -> bool:
    """Sets and one pair."""
    n = sum(c)
    if n % 3 != 2:
        return False
    for t in range(34):
        if c[t] >= 2:
            c[t] -= 2
            ok = _sets(c, (n - 2) // 3)
            c[t] += 2
            if ok:
                return True
    return False


def complete(c: list[int], n_melds: int) -> bool:
    """Any winning form of docs/rules.md §2 (shape only)."""
    c = list(c)
    if regular(c):
        return True
    if n_melds == 0:
        if all(x % 2 == 0 for x in c):
            return True
        if all(c[t] for t in ORPHANS) and all(c[t] == 0 for t in range(34) if t not in ORPHANS):
            return True
        for arr in KNITTED:
            allowed = set(arr) | set(range(27, 34))
            if all(x <= 1 for x in c) and all(c[t] == 0 for t in range(34) if t not in allowed):
                return True
    if n_melds <= 1:
        for arr in KNITTED:
            if all(c[t] for t in arr):
                rest = list(c)
                for t in arr:
                    rest[t] -= 1
                if regular(rest):
                    return True
    return False


# ----------------------------------------------------------------------------- one game


class RefGame:
    """One hand of MCR (docs/rules.md §2-§3, §9 botzone layout, §10 claim rounds).

    Args:
        wall: the wall in draw order (list of tile ids; 144 official, 136 botzone).
        layout: "official" or "botzone"; profile: scorer profile; claim_round: "options"/"all".
        dealer, wind, hand_number, players: the table of this hand (docs/rules.md §4).
    """

    def __init__(self, wall, layout, profile, claim_round, dealer, wind, hand_number, players):
        self.wall = list(wall)
        self.botzone = layout == "botzone"
        self.profile = profile
        self.ask_all = claim_round == "all"
        self.dealer, self.wind, self.hand_number = dealer, wind, hand_number
        self.players = list(players)
        self.hand = [[0] * 34 for _ in range(4)]
        self.melds = [[] for _ in range(4)]  # dicts: kind, tile, frm, claimed, added, concealed
        self.discards = [[] for _ in range(4)]  # dicts: tile, claimed, order
        self.total_discards = 0
        self.flowers = [[] for _ in range(4)]
        self.phase = ACT
        self.current = dealer
        self.tile_in_play = -1
        self.played_by = -1
        self.after_kong = False
        self.drawn = [-1] * 4
        self.winner = -1
        self.win_from = -1
        self.end_reason = 0
        self.settlement = [0, 0, 0, 0]
        self.win_info = None  # (total, fans) of the win
        if self.botzone:
            self.front = [34 * s for s in range(4)]
            self.back = [34 * s + 34 for s in range(4)]
            for s in range(4):
                for _ in range(13):
                    self.hand[s][self.wall[self.front[s]]] += 1
                    self.front[s] += 1
        else:
            self.front, self.back = [0], [144]
            dealt = [[] for _ in range(4)]
            for i in range(4):
                seat = (dealer + i) % 4
                dealt[seat] = self.wall[13 * i : 13 * i + 13]
            self.front[0] = 52
            for i in range(4):
                seat = (dealer + i) % 4
                tiles = dealt[seat]
                while any(t >= 34 for t in tiles):
                    f = next(t for t in tiles if t >= 34)
                    tiles.remove(f)
                    self.flowers[seat].append(f)
                    self.back[0] -= 1
                    tiles.append(self.wall[self.back[0]])
                for t in tiles:
                    self.hand[seat][t] += 1
        self.masks: dict[int, set[int]] = {}
        self.hu_score: dict[int, object] = {}
        if not self._draw(dealer, back=False, kong=False):
            self._exhaustive()
        self._build()

    # ---------------------------------------------------------------- walls
    def seg(self, seat: int) -> int:
        return seat if self.botzone else 0

    def left(self, seat: int) -> int:
        k = self.seg(seat)
        return self.back[k] - self.front[k]

    def _draw(self, seat: int, back: bool, kong: bool) -> bool:
        k = self.seg(seat)
        if self.back[k] <= self.front[k]:
            return False
        if back and not self.botzone:  # botzone: every tile from the front of the own wall
            self.back[k] -= 1
            tile = self.wall[self.back[k]]
        else:
            tile = self.wall[self.front[k]]
            self.front[k] += 1
        while tile >= 34:  # a flower: set aside, replaced from the back; an ordinary draw then
            kong = False
            self.flowers[seat].append(tile)
            if self.back[k] <= self.front[k]:
                return False
            self.back[k] -= 1
            tile = self.wall[self.back[k]]
        self.hand[seat][tile] += 1
        self.drawn = [-1] * 4
        self.drawn[seat] = tile
        self.phase, self.current = ACT, seat
        self.after_kong = kong
        self.tile_in_play = self.played_by = -1
        return True

    # ---------------------------------------------------------------- scoring
    def visible_counts(self) -> list[int]:
        """Copies of each tile seen by all: unclaimed discards and open melds (chows, pungs,
        melded kongs), the tile in play included."""
        n = [0] * 34
        for s in range(4):
            for d in self.discards[s]:
                if not d["claimed"]:
                    n[d["tile"]] += 1
            for m in self.melds[s]:
                if m["kind"] == CHI:
                    for x in (m["tile"] - 1, m["tile"], m["tile"] + 1):
                        n[x] += 1
                elif m["kind"] == PENG:
                    n[m["tile"]] += 3
                elif m["kind"] == GANG:
                    n[m["tile"]] += 4
        if self.end_reason in (BY_DISCARD, ROB_KONG):
            n[self.tile_in_play] += 1  # the won tile stays counted (the tile in play, seen by all)
        return n

    def visible(self, tile: int) -> int:
        return self.visible_counts()[tile]

    def score(self, seat: int, tile: int, self_drawn: bool, rob: bool):
        """The ScoreResult if seat wins legally on ``tile`` (>= 8 points without flowers)."""
        c = list(self.hand[seat])
        if self_drawn:
            c[tile] -= 1
        melds = []
        for m in self.melds[seat]:
            if m["kind"] == ANGANG:
                melds.append(("ANGANG", m["tile"], 0))
            elif m["kind"] == CHI:
                melds.append(("CHI", m["tile"], m["claimed"] - m["tile"] + 2))
            else:
                name = "PENG" if m["kind"] == PENG else "BUGANG" if m["added"] else "GANG"
                melds.append((name, m["tile"], (seat - m["frm"]) % 4))
        tiles = [t for t in range(34) for _ in range(c[t])]
        vis = self.visible(tile) - (0 if self_drawn else 1)
        if self_drawn:
            wall_last = self.left((seat + 1) % 4) <= 0
            about_kong = self.after_kong
        else:
            wall_last = (not rob) and self.left((self.played_by + 1) % 4) <= 0
            about_kong = rob
        try:
            res = score_win(
                tiles,
                tile,
                melds,
                is_self_drawn=self_drawn,
                is_4th_tile=vis >= 3,
                is_wall_last=wall_last,
                is_about_kong=about_kong,
                seat_wind=(seat - self.dealer) % 4,
                prevalent_wind=self.wind,
                flowers=len(self.flowers[seat]),
                profile=self.profile,
            )
        except NotAWinError:
            return None
        return res if res.is_legal_win else None

    # ---------------------------------------------------------------- masks
    def _build(self) -> None:
        """Masks of the decision the game waits for; rounds nobody can answer pass
        automatically (claim_round "options")."""
        while True:
            self.masks, self.hu_score = {}, {}
            if self.phase == OVER:
                return
            if self.phase in (ACT, DISCARD):
                s = self.current
                h = self.hand[s]
                m = {2 + t for t in range(34) if h[t]}
                if self.phase == ACT:
                    # a kong needs a replacement tile; botzone: the next seat's wall too (§9)
                    if self.left(s) > 0 and (not self.botzone or self.left((s + 1) % 4) > 0):
                        m |= {167 + t for t in range(34) if h[t] == 4}
                        pungs = {x["tile"] for x in self.melds[s] if x["kind"] == PENG}
                        m |= {201 + t for t in pungs if h[t]}
                    if complete(h, len(self.melds[s])):
                        res = self.score(s, self.drawn[s], True, False)
                        if res is not None:
                            m.add(HU)
                            self.hu_score[s] = res
                self.masks[s] = m
                return
            d, t = self.played_by, self.tile_in_play
            rob = self.phase == ROB
            for k in (1, 2, 3):
                s = (d + k) % 4
                h = self.hand[s]
                opts = set()
                c = list(h)
                c[t] += 1
                if complete(c, len(self.melds[s])):
                    res = self.score(s, t, False, rob)
                    if res is not None:
                        opts.add(HU)
                        self.hu_score[s] = res
                if not rob and self.left((d + 1) % 4) > 0:  # a Hu-able seat may claim too
                    if h[t] >= 2:
                        opts.add(99 + t)
                    if h[t] == 3 and self.left(s) > 0:
                        opts.add(133 + t)
                    if k == 1 and t < 27:
                        r = t % 9
                        if r <= 6 and h[t + 1] and h[t + 2]:
                            opts.add(chi_id(t + 1, t))
                        if 1 <= r <= 7 and h[t - 1] and h[t + 1]:
                            opts.add(chi_id(t, t))
                        if r >= 2 and h[t - 2] and h[t - 1]:
                            opts.add(chi_id(t - 1, t))
                if opts or self.ask_all:
                    self.masks[s] = opts | {PASS}
            if self.masks:
                return
            if rob:
                ok = self._draw(d, back=True, kong=True)
            else:
                ok = self._draw((d + 1) % 4, back=False, kong=False)
            if not ok:
                self._exhaustive()

    # ---------------------------------------------------------------- actions
    def step(self, acts: dict[int, int]) -> None:
        """Apply the answers ``acts`` {seat: action id} of the asked seats (checked legal)."""
        assert set(acts) == set(self.masks)
        for s, a in acts.items():
            assert a in self.masks[s], (s, a, sorted(self.masks[s]))
        if self.phase in (ACT, DISCARD):
            s = self.current
            kind, t = decode(acts[s])
            if kind == "PLAY":
                self.hand[s][t] -= 1
                self.discards[s].append({"tile": t, "claimed": False, "order": self.total_discards})
                self.total_discards += 1
                self.tile_in_play, self.played_by = t, s
                self.drawn[s] = -1
                self.after_kong = False
                self.phase = CLAIM
            elif kind == "HU":
                self._win(s, -1, self.drawn[s], SELF_DRAWN)
            elif kind == "ANGANG":
                self.hand[s][t] -= 4
                self.melds[s].append(self._meld(ANGANG, t, -1, -1))
                self.drawn[s] = -1
                if not self._draw(s, back=True, kong=True):
                    self._exhaustive()
            elif kind == "BUGANG":
                self.hand[s][t] -= 1
                m = next(x for x in self.melds[s] if x["kind"] == PENG and x["tile"] == t)
                m["kind"], m["added"] = GANG, True
                self.drawn[s] = -1
                self.tile_in_play, self.played_by = t, s
                self.phase = ROB
            else:
                raise AssertionError(kind)
            self._build()
            return
        d, t = self.played_by, self.tile_in_play
        order = [(d + k) % 4 for k in (1, 2, 3)]
        kinds = {s: decode(acts.get(s, PASS))[0] for s in order}
        hu = [s for s in order if kinds[s] == "HU"]
        if hu:
            self._win(hu[0], d, t, ROB_KONG if self.phase == ROB else BY_DISCARD)
            return
        if self.phase == ROB:
            if not self._draw(d, back=True, kong=True):
                self._exhaustive()
            self._build()
            return
        pg = [s for s in order if kinds[s] in ("PENG", "GANG")]
        if pg:
            s = pg[0]
            self.discards[d][-1]["claimed"] = True
            if kinds[s] == "GANG":
                self.hand[s][t] -= 3
                self.melds[s].append(self._meld(GANG, t, d, t))
                if not self._draw(s, back=True, kong=True):
                    self._exhaustive()
            else:
                self.hand[s][t] -= 2
                self.melds[s].append(self._meld(PENG, t, d, t))
                self._claimer(s)
            self._build()
            return
        nxt = order[0]
        if kinds[nxt] == "CHI":
            mid, claimed = chi_tiles(acts[nxt])
            assert claimed == t
            self.discards[d][-1]["claimed"] = True
            for x in (mid - 1, mid, mid + 1):
                if x != t:
                    self.hand[nxt][x] -= 1
            self.melds[nxt].append(self._meld(CHI, mid, d, t))
            self._claimer(nxt)
            self._build()
            return
        if not self._draw(nxt, back=False, kong=False):
            self._exhaustive()
        self._build()

    def _meld(self, kind, tile, frm, claimed) -> dict:
        return {"kind": kind, "tile": tile, "frm": frm, "claimed": claimed, "added": False}

    def _claimer(self, s: int) -> None:
        self.phase, self.current = DISCARD, s
        self.tile_in_play = self.played_by = -1
        self.after_kong = False

    # ---------------------------------------------------------------- endings
    def _exhaustive(self) -> None:
        self.phase, self.end_reason = OVER, EXHAUSTIVE
        self.winner = self.win_from = -1
        self.settlement = [0, 0, 0, 0]

    def _win(self, seat: int, frm: int, tile: int, reason: int) -> None:
        res = self.hu_score[seat]
        x = res.total
        if reason == SELF_DRAWN:
            pay = [-(8 + x)] * 4
            pay[seat] = 24 + 3 * x
        else:
            pay = [-8] * 4
            pay[frm] = -(8 + x)
            pay[seat] = 24 + x
            if reason == BY_DISCARD:
                self.discards[frm][-1]["claimed"] = True
            else:
                m = next(
                    x
                    for x in self.melds[frm]
                    if x["kind"] == GANG and x["tile"] == tile and x["added"]
                )
                m["kind"], m["added"] = PENG, False
            self.hand[seat][tile] += 1
        self.phase, self.end_reason = OVER, reason
        self.winner, self.win_from = seat, frm
        self.settlement = pay
        self.win_info = (x, res.fans)
        self.masks = {}

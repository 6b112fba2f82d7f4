"""The requests the Botzone judge would send, written from the engine's games.

:class:`RequestNarrator` follows the B games of an :class:`~mcr_env.engine.core.MCREngine` in
the ``botzone`` layout and, after every ``step``, appends to each seat's list the request lines
the judge sends for what happened (:mod:`mcr_env.botzone.protocol`): the deal, each draw (``2
t`` to the drawer, ``3 p DRAW`` to the others), discards, claims (a PENG or CHI is announced
with the discard that follows, as the judge does), kongs and replacement draws. It reads the
whole state (it plays the judge), but each seat's list holds only what the judge tells that
seat. It does not decide anything: who may claim, who wins and what a hand scores are the
engine's.

Use: ``reset`` the engine, call :meth:`RequestNarrator.start`, then after every
``engine.step(actions)`` call :meth:`RequestNarrator.after_step` with the same actions.
"""

from __future__ import annotations

import numpy as np

from mcr_env.encoding.actions import ACTION_KIND, ACTION_TILE, ActionKind
from mcr_env.engine.state import EndReason, Phase
from mcr_env.tiles import tile_to_code

_ACT, _DISCARD, _CLAIM, _ROB, _OVER = (
    int(p) for p in (Phase.ACT, Phase.DISCARD, Phase.CLAIM, Phase.ROB, Phase.OVER)
)
_K = {k.name: int(k) for k in ActionKind}


class RequestNarrator:
    """Request lines per (game, seat) for the games of ``engine``.

    Args:
        engine: an ``MCREngine`` with ``RulesConfig(wall_layout="botzone", match="hand")``.

    Attributes:
        lines: ``lines[g][s]`` list of request lines sent to seat s of game g so far (since the
            last :meth:`start` of that game).

    Raises:
        ValueError: the engine's layout or match mode is not the judge's, or a game's dealer
            is not seat 0.
    """

    def __init__(self, engine):
        cfg = engine.config
        if cfg.wall_layout != "botzone" or cfg.match != "hand":
            raise ValueError(
                "RequestNarrator needs RulesConfig(wall_layout='botzone', match='hand')"
            )
        self.engine = engine
        b = engine.batch_size
        self.lines: list[list[list[str]]] = [[[] for _ in range(4)] for _ in range(b)]
        self.sent = np.zeros((b, 4), dtype=np.int64)  # lines already answered, per seat
        self._pending: dict[int, tuple[str, int, int]] = {}  # game -> (verb, seat, middle)
        self._prev = None

    # ------------------------------------------------------------------ helpers
    def _snap(self) -> dict[str, np.ndarray]:
        st = self.engine.state
        return {
            "phase": st.phase.copy(),
            "current_seat": st.current_seat.copy(),
            "tile_in_play": st.tile_in_play.copy(),
            "played_by": st.played_by.copy(),
            "n_melds": st.n_melds.copy(),
            "terminated": self.engine.terminated.copy(),
        }

    def _all(self, g: int, line: str) -> None:
        for s in range(4):
            self.lines[g][s].append(line)

    def _draw(self, g: int, s: int) -> None:
        t = int(self.engine.state.drawn_tile[g, s])
        for o in range(4):
            self.lines[g][o].append(f"2 {tile_to_code(t)}" if o == s else f"3 {s} DRAW")

    def _after_discard(self, g: int, c: int) -> None:
        """The discard of seat c was announced: a claim round is open, or (nobody could
        answer) the next seat drew, or the hand is over."""
        st = self.engine.state
        ph = int(st.phase[g])
        if ph == _OVER or (ph == _CLAIM and int(st.played_by[g]) == c):
            return
        self._draw(g, int(st.current_seat[g]))

    # ------------------------------------------------------------------ public
    def start(self, games=None) -> None:
        """The ``0`` and ``1`` requests and the dealer's first draw of freshly reset games
        (default: all)."""
        st = self.engine.state
        gs = range(self.engine.batch_size) if games is None else np.flatnonzero(games)
        for g in gs:
            g = int(g)
            if int(st.dealer[g]) != 0:
                raise ValueError(f"game {g}: the Botzone judge deals from seat 0")
            self.lines[g] = [[] for _ in range(4)]
            self.sent[g] = 0
            self._pending.pop(g, None)
            quan = int(st.prevalent_wind[g])
            for s in range(4):
                h = st.hand[g, s].astype(np.int64).copy()
                if s == int(st.current_seat[g]):
                    h[int(st.drawn_tile[g, s])] -= 1
                tiles = " ".join(tile_to_code(t) for t in np.repeat(np.arange(34), h))
                fl = st.flower_count[g]
                flowers = [
                    tile_to_code(34 + int(f))
                    for p in range(4)
                    for f in np.flatnonzero(st.flowers[g, p])
                ]
                self.lines[g][s] += [
                    f"0 {s} {quan}",
                    " ".join(["1", *map(str, fl.tolist()), tiles, *flowers]),
                ]
            self._draw(g, int(st.current_seat[g]))
        snap = self._snap()
        if self._prev is not None and games is not None:  # a partial start: keep the others
            keep = ~np.asarray(games, dtype=bool)
            for k, v in self._prev.items():
                snap[k][keep] = v[keep]
        self._prev = snap

    def after_step(self, actions: np.ndarray, games=None) -> None:
        """Write the requests of what ``engine.step(actions, games)`` just did (call right after
        it, with the same ``(B, 4)`` actions and ``games`` mask)."""
        if self._prev is None:
            raise RuntimeError("call start() after reset, before after_step()")
        prev, st = self._prev, self.engine.state
        acts = np.asarray(actions, dtype=np.int64)
        stepped = ~prev["terminated"]
        if games is not None:
            stepped &= np.asarray(games, dtype=bool)
        for g in np.flatnonzero(stepped):
            g = int(g)
            ph, c = int(prev["phase"][g]), int(prev["current_seat"][g])
            if int(st.phase[g]) == _OVER and int(st.end_reason[g]) == int(
                EndReason.PENALTY
            ):  # penalty: judge stops
                continue
            if ph == _ACT:
                a = int(acts[g, c])
                kind, tile = int(ACTION_KIND[a]), int(ACTION_TILE[a])
                if kind == _K["PLAY"]:
                    self._all(g, f"3 {c} PLAY {tile_to_code(tile)}")
                    self._after_discard(g, c)
                elif kind == _K["ANGANG"]:
                    self._all(g, f"3 {c} GANG")
                    self._draw(g, c)
                elif kind == _K["BUGANG"]:
                    self._all(g, f"3 {c} BUGANG {tile_to_code(tile)}")
                    if int(st.phase[g]) != _ROB and int(st.phase[g]) != _OVER:
                        self._draw(g, c)
            elif ph == _DISCARD:
                verb, _, mid = self._pending.pop(g)
                t = tile_to_code(int(ACTION_TILE[int(acts[g, c])]))
                if verb == "CHI":
                    self._all(g, f"3 {c} CHI {tile_to_code(mid)} {t}")
                else:
                    self._all(g, f"3 {c} PENG {t}")
                self._after_discard(g, c)
            elif ph == _CLAIM:
                nph = int(st.phase[g])
                if nph == _OVER:
                    continue
                grown = np.flatnonzero(st.n_melds[g] > prev["n_melds"][g])
                if grown.size:
                    s = int(grown[0])
                    a = int(acts[g, s])
                    kind = int(ACTION_KIND[a])
                    if kind == _K["GANG"]:
                        self._all(g, f"3 {s} GANG")
                        self._draw(g, s)
                    else:
                        verb = "CHI" if kind == _K["CHI"] else "PENG"
                        self._pending[g] = (verb, s, int(ACTION_TILE[a]))
                else:
                    self._draw(g, int(st.current_seat[g]))
            elif ph == _ROB:
                if int(st.phase[g]) != _OVER:
                    self._draw(g, c)
        self._prev = self._snap()


class ProtocolViolation(Exception):
    """A seat answered a request that is no decision for it with something else than PASS.

    Attributes: game, seat, request (line), response.
    """

    def __init__(self, game: int, seat: int, request: str, response: str):
        super().__init__(
            f"game {game}, seat {seat}: answered {response!r} to {request!r} (expected PASS)"
        )
        self.game, self.seat, self.request, self.response = game, seat, request, response


def is_decision(engine, g: int, s: int) -> bool:
    """Seat ``s`` of game ``g`` must answer its last request as an engine decision: it acts in
    ``Phase.ACT``, ``CLAIM`` or ``ROB`` (a ``DISCARD`` decision was answered with the claim)."""
    ph = int(engine.state.phase[g])
    return bool(engine.to_act[g, s]) and ph in (_ACT, _CLAIM, _ROB)


def answer_new_lines(
    narrator: RequestNarrator, g: int, s: int, respond, hold_decision: bool = False
) -> str | None:
    """Send seat ``s`` of game ``g`` its request lines not answered yet, through ``respond``
    (``line -> response str``).

    Every line but a decision request (:func:`is_decision`: then the last line) must be answered
    ``PASS``. Returns the answer to the decision request, or None when there is none (or when
    ``hold_decision``: the decision request is then left unsent).

    Raises:
        ProtocolViolation: a non-decision request answered with anything but PASS (the judge
            penalizes it).
    """
    lines = narrator.lines[g][s]
    n = len(lines)
    decide = is_decision(narrator.engine, g, s)
    stop = n - 1 if decide else n
    while narrator.sent[g, s] < stop:
        line = lines[int(narrator.sent[g, s])]
        narrator.sent[g, s] += 1
        r = respond(line).strip()
        if r != "PASS":
            raise ProtocolViolation(g, s, line, r)
    if decide and not hold_decision and narrator.sent[g, s] < n:
        narrator.sent[g, s] += 1
        return respond(lines[n - 1]).strip()
    return None


def response_actions(engine, g: int, response: str) -> tuple[int, ...]:
    """Action ids of a seat's answer in game ``g``: ``(action,)`` or ``(claim, play)`` for PENG
    and CHI (the tile claimed is the engine's tile in play).

    Read as the judge reads it (docs/rules.md §9): verbs and tile codes in upper case, the
    tokens separated by single spaces (the judge splits at every space and compares exactly,
    so ``"play w1"`` or ``"PLAY  W1"`` is a wrong answer there); only leading and trailing
    whitespace is ignored.

    Raises:
        BotzoneFormatError: a malformed response (a ValueError), or one not written as above.
    """
    from mcr_env.encoding.actions import BotzoneFormatError, from_botzone

    text = response.strip() if isinstance(response, str) else response
    if isinstance(text, str) and (text != text.upper() or text.split(" ") != text.split()):
        raise BotzoneFormatError(
            f"response {response!r}: the judge reads verbs and tile codes in upper case, "
            "separated by single spaces"
        )
    t = int(engine.state.tile_in_play[g])
    return from_botzone(response, t if t >= 0 else None)


def play_through_protocol(engine, respond, on_decision=None, max_steps: int = 5000) -> None:
    """Play the (reset) games of ``engine`` to their end with every seat answered through the
    protocol: the narrator's requests go to ``respond(g, s, line) -> str``, decision answers
    become the engine's actions (a PENG/CHI's discard is played at the DISCARD decision that
    follows when the claim wins).

    Args:
        engine: a reset ``MCREngine`` (botzone layout, single hands).
        respond: ``(game, seat, request line) -> response str``.
        on_decision: optional ``(game, seat, response or None, action)`` called at every engine
            decision before the step (``response`` None at the DISCARD after a claim).
        max_steps: safety bound on engine steps.

    Raises:
        ProtocolViolation: a non-decision request answered with anything but PASS.
        ValueError: an answer that is malformed or not legal in the engine.
        RuntimeError: the games did not end within ``max_steps``.
    """
    nar = RequestNarrator(engine)
    nar.start()
    b = engine.batch_size
    after_claim: dict[tuple[int, int], int] = {}
    for _ in range(max_steps):
        if bool(engine.terminated.all()):
            return
        acts = np.zeros((b, 4), dtype=np.int64)
        for g in np.flatnonzero(~engine.terminated):
            g = int(g)
            for s in range(4):
                resp = answer_new_lines(nar, g, s, lambda line, g=g, s=s: respond(g, s, line))
                if not engine.to_act[g, s]:
                    continue
                if int(engine.state.phase[g]) == _DISCARD:
                    a = after_claim.pop((g, s))
                else:
                    got = response_actions(engine, g, resp)
                    a = got[0]
                    if len(got) == 2:
                        after_claim[(g, s)] = got[1]
                if not (0 <= a < engine.legal_mask.shape[2] and engine.legal_mask[g, s, a]):
                    raise ValueError(f"game {g}, seat {s}: answer {resp!r} is not legal")
                if on_decision is not None:
                    on_decision(g, s, resp, a)
                acts[g, s] = a
        engine.step(acts)
        nar.after_step(acts)
        for g, s in list(after_claim):
            if not (engine.to_act[g, s] and int(engine.state.phase[g]) == _DISCARD):
                del after_claim[(g, s)]
    raise RuntimeError(f"games did not end within {max_steps} steps")


# ---------------------------------------------------------------------- judge walls
def judge_initdata(wall, quan: int = 0, srand: int = 0) -> dict:
    """The Botzone judge's ``initdata`` that plays our ``botzone`` wall: ``{"walltiles": ...,
    "quan": quan, "srand": srand}``.

    Per-seat order (docs/rules.md §2, §9): the judge gives seat j ``walltiles[34j .. 34j+33]``
    and takes its tiles from index ``34j+33`` downwards (13 dealt, then every draw and kong
    replacement); our wall lists seat j's tiles in the order taken (slots ``34j .. 34j+33``),
    so each 34-tile segment is reversed (:func:`mcr_env.engine.walls.wall_to_judge`). ``srand``
    only seeds the judge's shuffle and its random ``quan`` when those are not given, so it does
    not change a game whose ``walltiles`` and ``quan`` are set.

    Args:
        wall: ``(136,)`` tile ids in our draw order.
        quan: prevalent wind 0..3 (the engine's ``prevalent_wind``).
        srand: the judge's random seed (recorded as given).

    Raises:
        TypeError/ValueError: not a botzone wall, or ``quan`` not 0..3.
    """
    from mcr_env.engine.walls import wall_to_judge

    if isinstance(quan, bool) or not isinstance(quan, (int, np.integer)) or not 0 <= quan <= 3:
        raise ValueError(f"quan must be 0..3, got {quan!r}")
    return {"walltiles": wall_to_judge(wall), "quan": int(quan), "srand": int(srand)}


def wall_from_initdata(initdata: dict) -> tuple[np.ndarray, int]:
    """Our wall and prevalent wind of a judge ``initdata`` (inverse of :func:`judge_initdata`):
    replay it with ``MCREngine(B, RulesConfig(wall_layout="botzone", scoring_profile=
    "botzone"))``, ``reset(walls=wall[None], prevalent_wind=quan)``.

    Raises:
        TypeError: ``initdata`` is not a dict.
        ValueError: no ``walltiles`` or no ``quan`` (without them the judge draws them from C's
            ``rand()`` seeded by ``srand``, which is not reproduced here), or a bad wall.
    """
    from mcr_env.engine.walls import wall_from_judge

    if not isinstance(initdata, dict):
        raise TypeError(f"initdata must be a dict, got {type(initdata).__name__}")
    for key in ("walltiles", "quan"):
        if key not in initdata:
            raise ValueError(
                f"initdata has no {key!r}: the judge would draw it at random from srand"
            )
    quan = initdata["quan"]
    if isinstance(quan, bool) or not isinstance(quan, int) or not 0 <= quan <= 3:
        raise ValueError(f"initdata quan must be 0..3, got {quan!r}")
    return wall_from_judge(initdata["walltiles"]), int(quan)

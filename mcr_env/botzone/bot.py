"""Any agent as a Botzone bot: requests in, the engine's view and mask, the agent's answer out.

:class:`BotzoneBot` keeps a :class:`~mcr_env.botzone.tracker.SeatTracker` of its seat. At each
request that is a decision for the seat (its own draw ``2 t``; another seat's discard, also
after PENG/CHI; another seat's BUGANG) it loads the tracked state into a one-game engine
(:meth:`~mcr_env.engine.core.MCREngine.load_state`), so the legal mask is the engine's own at
that decision (docs/rules.md §9, §10), encodes the observation (the agent's encoder) and
asks the agent (the ``act(obs (N, C, 34) float32, mask (N, 235) bool, view) -> (N,) int64``
interface of ``baselines.agents``; mcr_env never imports baselines: the agent object is given).
A Chi or Peng is answered together with the discard that follows (``PENG t``, ``CHI m t``): the
bot asks the agent a second time at the engine's ``Phase.DISCARD`` state after the claim.
Requests that are no decision, or where the engine would not ask the seat (no option besides
Pass), are answered ``PASS``.

:func:`run_bot` speaks the Botzone I/O: JSON or simple interaction, one process per turn or
keep-running (module docstring of :mod:`mcr_env.botzone.protocol`).
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import numpy as np

from mcr_env.botzone.protocol import KEEP_RUNNING, Request, RequestError, parse_request
from mcr_env.botzone.tracker import SeatTracker
from mcr_env.encoding.actions import (
    ACTION_KIND,
    ACTION_NAMES,
    ACTION_TILE,
    ActionKind,
    from_botzone,
    to_botzone,
)
from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.core import MCREngine

_CHI, _PENG, _ANGANG = int(ActionKind.CHI), int(ActionKind.PENG), int(ActionKind.ANGANG)

BOTZONE_RULES = RulesConfig(wall_layout="botzone", scoring_profile="botzone")
"""The rules of the Botzone judge: the botzone wall layout and scoring profile."""


class BotzoneBot:
    """One seat of one Botzone game, answered by an agent.

    Args:
        agent: an object with ``act(obs, mask, view) -> (N,) int64`` and the attributes
            ``needs_obs``/``needs_view`` (missing ones count as False), e.g. any
            ``baselines.agents`` agent.
        rules: engine rules for the masks (default :data:`BOTZONE_RULES`; the wall layout must
            be "botzone").
        encoder: observation encoder id or object; default (None): the agent's own
            ``encoder`` attribute (a trained policy's, e.g. ``"planes-v0+look-v0"``), else
            ``"planes-v0"``.

    Attributes:
        tracker: the seat's :class:`SeatTracker`.
        decisions: with ``record=True``, ``(state, mask (235,) bool, action int)`` of every
            decision the agent took (a copy of the one-game state it saw; the discard after a
            Chi/Peng is its own entry).

    Raises (from :meth:`respond`):
        RequestError: a malformed request or one that does not fit the game so far.
        ValueError: the agent returned an illegal action.
    """

    def __init__(
        self,
        agent: Any,
        rules: RulesConfig | None = None,
        encoder: Any = None,
        record: bool = False,
    ):
        from mcr_env.encoding import resolve_encoder

        rules = BOTZONE_RULES if rules is None else rules
        if rules.wall_layout != "botzone" or rules.match != "hand":
            raise ValueError("BotzoneBot needs RulesConfig(wall_layout='botzone', match='hand')")
        self.agent = agent
        self.rules = rules
        if encoder is None:
            encoder = getattr(agent, "encoder", None) or "planes-v0"
        self.encoder = resolve_encoder(encoder)
        self.engine = MCREngine(1, rules)
        self.tracker = SeatTracker()
        self.last_response = ""
        self.record = record
        self.decisions: list[tuple] = []

    # ------------------------------------------------------------------ decisions
    def legal_mask(self, state=None) -> np.ndarray:
        """``(235,) bool`` legal actions of the own seat in ``state`` (default: the tracked
        state), all False when the engine would not ask the seat."""
        self.engine.load_state(self.tracker.state if state is None else state, copy=False)
        me = self.tracker.seat
        if not self.engine.to_act[0, me]:
            return np.zeros(self.engine.legal_mask.shape[2], dtype=bool)
        return self.engine.legal_mask[0, me].copy()

    def _ask(self, state, mask: np.ndarray) -> int:
        me = np.array([self.tracker.seat])
        games = np.array([0])
        agent = self.agent
        obs = self.encoder.encode(state, games, me) if getattr(agent, "needs_obs", False) else None
        view = (
            SeatView.from_state(state, games, me) if getattr(agent, "needs_view", False) else None
        )
        a = int(np.asarray(agent.act(obs, mask[None, :], view)).reshape(-1)[0])
        if not (0 <= a < mask.shape[0] and mask[a]):
            legal = ", ".join(ACTION_NAMES[x] for x in np.flatnonzero(mask))
            raise ValueError(
                f"agent {getattr(agent, 'name', agent)!r} answered illegal action "
                f"{a}; legal: {legal}"
            )
        if self.record:
            self.decisions.append((state.copy(), mask.copy(), a))
        return a

    def _is_decision(self, req: Request) -> bool:
        me = self.tracker.seat
        if req.kind == "draw":
            return True
        return req.kind in ("PLAY", "PENG", "CHI", "BUGANG") and req.player != me

    def _own_angang(self, req: Request) -> int:
        """Tile of the own concealed kong announced by ``3 <me> GANG`` (from the last answer)."""
        if req.kind == "GANG" and req.player == self.tracker.seat:
            toks = self.last_response.split()
            if len(toks) == 2 and toks[0].upper() == "GANG":
                return int(from_botzone(self.last_response)[0]) - 167
        return -1

    def observe(self, line: str, response: str) -> None:
        """Apply a past request whose answer was ``response`` (history replay: the agent is
        not asked)."""
        req = parse_request(line)
        self.tracker.apply(req, own_angang=self._own_angang(req))
        self.last_response = response.strip()

    def respond(self, line: str) -> str:
        """Apply the request ``line`` and return the response string."""
        req = parse_request(line)
        self.tracker.apply(req, own_angang=self._own_angang(req))
        resp = "PASS"
        if self._is_decision(req):
            mask = self.legal_mask()
            if mask.any():
                state = self.tracker.state
                a = self._ask(state, mask)
                kind = int(ACTION_KIND[a])
                if kind in (_CHI, _PENG):
                    mid = int(ACTION_TILE[a])
                    after = self.tracker.claim_state("CHI" if kind == _CHI else "PENG", mid)
                    play = self._ask(after, self.legal_mask(after))
                    resp = to_botzone(a, next_play=play)
                else:
                    resp = to_botzone(a)
        self.last_response = resp
        return resp


# ---------------------------------------------------------------------- I/O loops
def _request_of(obj: Any) -> str:
    """The request string of a keep-running JSON turn (a string, or {"request": ...})."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict) and "request" in obj:
        return str(obj["request"])
    if isinstance(obj, dict) and obj.get("requests"):
        return str(obj["requests"][-1])
    raise RequestError(f"cannot find the request in {obj!r}")


def run_bot(
    make_bot, stdin: IO[str] | None = None, stdout: IO[str] | None = None, keep_running: bool = True
) -> int:
    """Serve one Botzone game on ``stdin``/``stdout`` (default the process's).

    The format is read from the first non-blank line: a JSON object (``{"requests": [...],
    "responses": [...]}``, answered by ``{"response": ...}``) or a turn number (simple I/O:
    then the ``2n - 1`` lines request, response, ..., request; answered by one line). Past
    turns are replayed without asking the agent. With ``keep_running`` the answer is followed by
    :data:`~mcr_env.botzone.protocol.KEEP_RUNNING` and each later line is the next request (a
    plain line, a JSON string or ``{"request": ...}``) until end of input; otherwise the
    function returns after one answer.

    Args:
        make_bot: ``() -> BotzoneBot``.
        keep_running: stay alive between turns.

    Returns:
        0 (end of input), for use as an exit status.

    Raises:
        RequestError: malformed input (not a JSON object with lists ``requests`` and
            ``responses`` of n and n - 1 entries, a simple I/O turn number that is not an
            integer >= 1, fewer lines than it announces, a request that does not fit the game).
        json.JSONDecodeError: a line that starts like JSON but is not.
        ValueError: the agent answered an illegal action.
    """
    fin = sys.stdin if stdin is None else stdin
    fout = sys.stdout if stdout is None else stdout

    def lines():
        for raw in fin:
            s = raw.strip()
            if s:
                yield s

    it = lines()
    first = next(it, None)
    if first is None:
        return 0
    bot = make_bot()
    as_json = first.startswith("{")
    if as_json:
        obj = json.loads(first)
        if not isinstance(obj, dict):
            raise RequestError(f"JSON input must be an object, got {first[:200]!r}")
        reqs, resps = obj.get("requests", []), obj.get("responses", [])
        if not isinstance(reqs, list) or not isinstance(resps, list):
            raise RequestError(
                "JSON input needs lists 'requests' and 'responses', got "
                f"{type(reqs).__name__} and {type(resps).__name__}"
            )
        if not reqs or len(resps) != len(reqs) - 1:
            raise RequestError("JSON input needs n requests and n - 1 responses")
    else:
        try:
            n = int(first)
        except ValueError:
            raise RequestError(
                f"simple I/O input must start with the turn number, got {first!r}"
            ) from None
        if n < 1:
            raise RequestError(f"simple I/O turn number must be >= 1, got {n}")
        hist = [next(it, None) for _ in range(2 * n - 1)]
        if any(h is None for h in hist):
            raise RequestError(f"simple I/O input ended before its {2 * n - 1} lines")
        reqs, resps = hist[0::2], hist[1::2]
    for q, r in zip(reqs[:-1], resps):
        bot.observe(str(q), str(r))

    def answer(line: str) -> None:
        resp = bot.respond(line)
        fout.write((json.dumps({"response": resp}) if as_json else resp) + "\n")
        if keep_running:
            fout.write(KEEP_RUNNING + "\n")
        fout.flush()

    answer(str(reqs[-1]))
    if not keep_running:
        return 0
    for line in it:
        if as_json:
            line = _request_of(json.loads(line)) if line[0] in '{"' else line
        answer(line)
    return 0

"""``mcr-play``: a person takes a seat at an MCR table in the terminal against three agents.

Usage::

    mcr-play                                  # seat 0 (East) against three random agents
    mcr-play --seat 2 --opponents rule --seed 7
    mcr-play --opponents rule,random,runs/x/final.pt --match     # a whole 16-hand match
    mcr-play --opponents "rule,cmd:python path/to/bot.py,rule"     # an outside Botzone bot

Each time the person must decide, the table is printed as their seat sees it (other hands as
backs, other concealed kongs face down; docs/rules.md §2, §10): their hand with Unicode
glyphs and Botzone codes, melds, discards (claimed ones in brackets), flowers, the wall count
and the tile in play, then the legal actions numbered with readable names (``3  Play W5``).
The person types the number (or the action's name, e.g. ``Play W5``, ``Hu``, ``Pass``);
``t`` reprints the table, ``q`` quits. A claim round in which the only legal answer is Pass is
answered automatically. After every step the other seats' public actions are printed (a claim
that did not take effect, a Pass or a concealed kong's tile are not). At each hand end the
fan table and the settlement are printed; with ``--match`` the match goes on for 16 hands with
seat rotation (docs/rules.md §4, §8) and ends with the scores and table points.

Opponent specs (``--opponents``: one for all three or three comma-separated, in seat order
after the person): ``random``, ``rule``, a checkpoint ``*.pt`` or any other spec that
:func:`baselines.agents.make_agent` accepts, or ``cmd:<command>``, an outside Botzone bot
(:class:`mcr_env.botzone.process.BotzoneProcessAgent`; ``--cmd-io json|simple``,
``--cmd-timeout`` seconds per answer). With an outside bot the hand is played by the Botzone
judge's rules (botzone layout and profile; a bot that fails or answers illegally pays 30 and
each other seat gets 10, docs/rules.md §3, §9), single hands only. Bad input prints one
``mcr-play: error: ...`` line and exits with status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcr_env._checks import check_int
from mcr_env.encoding.actions import parse_action_name
from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine.actions import ACTION_KIND, ACTION_NAMES, PASS, ActionKind
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.core import HANDS_PER_MATCH, MCREngine
from mcr_env.engine.records import hand_result_dict
from mcr_env.engine.render import render_table
from mcr_env.play.frames import WINDS, hand_result_rows, public_events
from mcr_env.tiles import format_glyphs, tile_to_code

PROG = "mcr-play"
PROMPT = "Your action> "
"""The prompt printed when the person must decide (tests wait for it)."""


class Quit(Exception):
    """The person typed ``q`` (or the input ended)."""


def _hand_line(state, seat: int) -> str:
    counts = state.hand[0, seat].astype(np.int64).copy()
    drawn = int(state.drawn_tile[0, seat])
    if drawn >= 0:
        counts[drawn] -= 1
    tiles = np.repeat(np.arange(34), counts).tolist()
    glyphs = format_glyphs(tiles)
    codes = " ".join(tile_to_code(t) for t in tiles)
    if drawn >= 0:
        glyphs += "  +" + format_glyphs([drawn])
        codes += "  +" + tile_to_code(drawn)
    return f"your hand  {glyphs}\n           {codes}"


class TerminalGame:
    """One person (``seat``) and three agents at one table (B = 1 engine).

    Args:
        seat: the person's seat 0..3 (in a match: the seat of hand 1; the person is player
            ``seat`` and moves with the seat rotation, docs/rules.md §4).
        opponents: three agents (batched ``act(obs, mask, view)``, :mod:`baselines.agents`)
            for the other seats, in seat order after ``seat``.
        seed: root seed of the walls.
        match: play a 16-hand match instead of one hand.
        wall_layout: "official" or "botzone".
        read: callable returning the next input line (default ``input``).
        write: callable printing one block of text (default ``print``).
        rules: the engine rules, instead of those of ``match`` and ``wall_layout`` (e.g. the
            judge's for outside Botzone bots).

    Opponents that follow the whole game (outside Botzone bots) get the ``attach``/``observe``
    hooks of :func:`mcr_env.eval.play.play_games`, and ``games``/``seats`` when they set
    ``needs_ids``.

    Raises:
        ValueError: bad ``seat`` or not three opponents.
    """

    def __init__(
        self,
        seat: int,
        opponents: Sequence[Any],
        seed: int | None = 0,
        match: bool = False,
        wall_layout: str = "official",
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        rules: RulesConfig | None = None,
    ):
        check_int(seat, "seat", 0, 3, what="0..3")
        if len(opponents) != 3:
            raise ValueError(f"give three opponents, got {len(opponents)}")
        self.player = seat  # the person's player index (= seat in hand 1)
        self.opponents = list(opponents)
        self.read, self.write = read, write
        cfg = rules or RulesConfig(wall_layout=wall_layout, match="match" if match else "hand")
        self.engine = MCREngine(1, cfg)
        self.seed = seed
        from mcr_env.encoding import get_encoder

        # each opponent reads its own observation (two checkpoints may use different encoders)
        self.encoders = [
            get_encoder(getattr(a, "encoder", "planes-v0"))
            if getattr(a, "needs_obs", False)
            else None
            for a in self.opponents
        ]
        self.results: list[dict] = []

    # ------------------------------------------------------------------ helpers
    def seat(self) -> int:
        """The person's seat in the current hand."""
        return int(np.nonzero(self.engine.state.player_at_seat[0] == self.player)[0][0])

    def _agent_at(self, s: int) -> Any:
        return self.opponents[(s - self.seat()) % 4 - 1]

    def _encoder_at(self, s: int) -> Any:
        return self.encoders[(s - self.seat()) % 4 - 1]

    def table_text(self) -> str:
        """The table as the person's seat sees it, plus the hand in glyphs and codes."""
        eng = self.engine
        s = self.seat()
        text = render_table(eng.state, 0, s, tiles="codes", to_act=eng.to_act)
        return f"{text}\n{_hand_line(eng.state, s)}   (you are seat {s}, {self._wind(s)})"

    def _wind(self, s: int) -> str:
        return WINDS[(s - int(self.engine.state.dealer[0])) % 4]

    def _ask(self) -> int:
        """Show the table and the numbered legal actions; read until a legal choice."""
        eng = self.engine
        s = self.seat()
        legal = np.flatnonzero(eng.legal_mask[0, s]).tolist()
        self.write(self.table_text())
        self.write("\n".join(f"  {i + 1:>2}  {ACTION_NAMES[a]}" for i, a in enumerate(legal)))
        while True:
            try:
                line = self.read(PROMPT)
            except EOFError:
                raise Quit from None
            text = line.strip()
            if text.lower() in ("q", "quit", "exit"):
                raise Quit
            if text.lower() in ("t", "table"):
                self.write(self.table_text())
                continue
            if text.isdigit() and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            try:
                a = parse_action_name(text)
            except ValueError:
                a = None
            if a in legal:
                return a
            self.write(f"type a number 1..{len(legal)} (or an action name, t = table, q = quit)")

    def _agent_actions(self, acts: np.ndarray) -> None:
        eng = self.engine
        me = self.seat()
        for s in range(4):
            if s == me or not eng.to_act[0, s]:
                continue
            agent = self._agent_at(s)
            g, ss = np.array([0]), np.array([s])
            enc = self._encoder_at(s)
            obs = enc.encode(eng.state, g, ss) if enc is not None else None
            view = (
                SeatView.from_state(eng.state, g, ss)
                if getattr(agent, "needs_view", False)
                else None
            )
            mask = eng.legal_mask[0, s][None]
            if getattr(agent, "needs_ids", False):
                a = agent.act(obs, mask, view, games=g, seats=ss)
            else:
                a = agent.act(obs, mask, view)
            acts[0, s] = int(np.asarray(a)[0])

    def _followers(self) -> list:
        """The distinct opponents with the ``attach``/``observe`` hooks."""
        out: list = []
        for a in self.opponents:
            if hasattr(a, "attach") and not any(a is b for b in out):
                out.append(a)
        return out

    def _attach(self) -> None:
        me = self.seat()
        for agent in self._followers():
            held = np.array([[s != me and self._agent_at(s) is agent for s in range(4)]])
            agent.attach(self.engine, held)

    def _print_result(self) -> None:
        eng = self.engine
        res = eng.last_hand_result[0]
        d = hand_result_dict(res)
        self.results.append(d)
        rows = hand_result_rows(d)
        me = int(np.nonzero(res.player_at_seat == self.player)[0][0])
        lines = [f"=== Hand {res.hand_number + 1} over: {rows['headline']}"]
        if rows["fans"]:
            lines.append(f"  {'fan':<34}{'points':>7}{'count':>7}{'sum':>6}")
            for name, pts, cnt, sub in rows["fans"]:
                lines.append(f"  {name:<34}{pts:>7}{cnt:>7}{sub:>6}")
            lines.append(f"  {'total (flowers included)':<48}{rows['total']:>6}")
        pay = "  ".join(
            f"seat {s}{' (you)' if s == me else ''}: {x:+d}"
            for s, x in enumerate(rows["settlement"])
        )
        lines.append(f"settlement  {pay}")
        if eng.config.match == "match":
            scores = eng.state.match_scores[0]
            lines.append(
                "scores by player  "
                + "  ".join(
                    f"{p}{' (you)' if p == self.player else ''}: {int(x):+d}"
                    for p, x in enumerate(scores)
                )
            )
        self.write("\n".join(lines))

    # ------------------------------------------------------------------ main loop
    def play(self) -> dict:
        """Play the hand (or match) to its end.

        Returns:
            ``{"hands": [result dicts], "scores": per player, "table_points": per player or
            None, "quit": bool}``.
        """
        eng = self.engine
        eng.reset(seed=self.seed)
        self._attach()
        self._announce_hand()
        quit_ = False
        try:
            while not eng.terminated[0]:
                me = self.seat()
                acts = np.zeros((1, 4), dtype=np.int64)
                self._agent_actions(acts)
                chose = False  # the person typed this step's action
                if eng.to_act[0, me]:
                    legal = np.flatnonzero(eng.legal_mask[0, me])
                    chose = legal.tolist() != [PASS]
                    acts[0, me] = self._ask() if chose else PASS
                asked = np.flatnonzero(eng.to_act[0]).tolist()
                before = eng.state.copy()
                eng.step(acts)
                for agent in self._followers():
                    agent.observe(eng, acts)  # may end the hand with a penalty
                self._report(before, asked, acts[0], me, chose)
                if eng.hand_over[0]:
                    self._print_result()
                    if not eng.terminated[0]:
                        self._announce_hand()
        except Quit:
            quit_ = True
            self.write("quit")
        out = {
            "hands": self.results,
            "scores": [int(x) for x in eng.state.match_scores[0]],
            "table_points": (
                [float(x) for x in eng.table_points[0]]
                if eng.config.match == "match" and eng.terminated[0]
                else None
            ),
            "quit": quit_,
        }
        if not quit_:
            if out["table_points"] is not None:
                self.write(
                    "=== Match over. table points by player  "
                    + "  ".join(
                        f"{p}{' (you)' if p == self.player else ''}: {x:g}"
                        for p, x in enumerate(out["table_points"])
                    )
                )
            self.write("game over")
        return out

    def _announce_hand(self) -> None:
        st = self.engine.state
        s = self.seat()
        n = HANDS_PER_MATCH if self.engine.config.match == "match" else 1
        wind = WINDS[int(st.prevalent_wind[0])]
        self.write(
            f"=== Hand {int(st.hand_number[0]) + 1}/{n}: prevalent {wind},"
            f" dealer seat {int(st.dealer[0])}; you are seat {s} ({self._wind(s)})"
        )

    def _report(self, before, asked: list[int], acts: np.ndarray, me: int, chose: bool) -> None:
        """Print the person's own action (``chose``: typed, not an automatic Pass) and the
        other seats' public actions of the step just made. Nothing here depends on which
        other seats were asked (in a claim round: who could claim, docs/rules.md §10)."""
        eng = self.engine
        over = bool(eng.hand_over[0])
        winner = int(eng.last_hand_result[0].winner) if over else -1
        after = before.n_melds[0] if over else eng.state.n_melds[0]
        rows = [[0, s, int(acts[s]), ""] for s in asked]
        for s, text in public_events(
            rows,
            int(before.phase[0]),
            int(before.current_seat[0]),
            before.n_melds[0],
            after,
            winner,
            me,
        ):
            if s != me:
                self.write(f"  seat {s} ({WINDS[(s - int(before.dealer[0])) % 4]}): {text}")
            elif chose or ACTION_KIND[int(acts[s])] != ActionKind.PASS:
                self.write(f"  you: {text}")


def make_opponents(spec: str, seed: int, cmd_options: dict | None = None) -> list:
    """Three agents from ``--opponents`` (one spec or three comma-separated), seeded
    ``seed + k``; one ``cmd:`` spec given for all three seats is one outside-bot agent that
    holds the three seats. Each bad spec becomes a UsageError naming it."""
    from mcr_env.eval.cli import UsageError, load_agent

    specs = [x.strip() for x in spec.split(",")]
    if len(specs) not in (1, 3):
        raise UsageError(f"--opponents takes 1 or 3 comma-separated specs, got {len(specs)}")
    if len(specs) == 1 and specs[0].startswith("cmd:"):
        return [load_agent(specs[0], seed + 1, "--opponents", cmd_options)] * 3
    specs = specs * 3 if len(specs) == 1 else specs
    return [load_agent(x, seed + k + 1, "--opponents", cmd_options) for k, x in enumerate(specs)]


def run(argv: Sequence[str] | None = None) -> dict:
    """Parse arguments and play (module docstring); returns :meth:`TerminalGame.play`'s dict.

    Raises:
        UsageError: bad arguments or opponent specs.
    """
    from mcr_env.eval.cli import OneLineParser, UsageError, require_nonnegative

    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat 0..3")
    p.add_argument(
        "--opponents", default="random", help="random, rule, *.pt; one or three comma-separated"
    )
    p.add_argument("--seed", type=int, default=0, help="root seed of the walls and agents")
    p.add_argument("--match", action="store_true", help="play a 16-hand match")
    p.add_argument("--wall-layout", default="official", choices=["official", "botzone"])
    p.add_argument("--cmd-timeout", type=float, default=5.0, help="seconds per cmd: bot answer")
    p.add_argument("--cmd-io", default="json", choices=["json", "simple"], help="cmd: bots' I/O")
    args = p.parse_args(argv)
    require_nonnegative(seed=args.seed)
    outside = any(x.strip().startswith("cmd:") for x in args.opponents.split(","))
    if outside and args.match:
        raise UsageError("cmd: opponents (outside Botzone bots) play single hands, not --match")
    opponents = make_opponents(
        args.opponents, args.seed, {"timeout": args.cmd_timeout, "io": args.cmd_io}
    )
    rules = None
    if outside:  # the Botzone judge's rules
        rules = RulesConfig(
            wall_layout="botzone", scoring_profile="botzone", illegal_action="penalize"
        )
    game = TerminalGame(args.seat, opponents, args.seed, args.match, args.wall_layout, rules=rules)
    try:
        return game.play()
    finally:
        for agent in game._followers():
            agent.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point: exit status 0, or 2 after one ``mcr-play: error: ...`` line."""
    from mcr_env.eval.cli import cli_main

    return cli_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())

"""Outside Botzone bots as agents: any executable that speaks the protocol plays our games.

:class:`BotzoneProcessAgent` runs one process of the command per (game, seat) it holds, feeds it
the requests the judge would send (:class:`~mcr_env.botzone.judge.RequestNarrator`) and turns
its answers into engine actions. The process is kept alive between turns when it prints
``>>>BOTZONE_REQUEST_KEEP_RUNNING<<<`` after its first answer; otherwise it is started anew for
every turn with the whole history (as Botzone does). Every answer has a time limit.

A bot that times out, crashes, prints something unreadable, answers a notification with
anything but ``PASS`` or makes an illegal move is penalized as the judge penalizes it: it pays
30, each other seat gets 10, the hand ends (docs/rules.md §3, §9). Offences at a decision are
answered with an out-of-range action, which the engine punishes (``RulesConfig(illegal_action=
"penalize")`` is required); offences between decisions are punished at once with
:meth:`~mcr_env.engine.core.MCREngine.penalize`. Each one is kept in :attr:`incidents`. The
agent never hangs an evaluation: a process that does not answer is killed at its time limit.

It is an agent of the usual interface plus the ``attach``/``observe`` hooks of
:func:`mcr_env.eval.play.play_games`, so it plays in ``duplicate_evaluate`` and
``scripts/evaluate.py --opponent "cmd:python path/to/bot.py"``.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass

import numpy as np

from mcr_env.botzone.judge import (
    ProtocolViolation,
    RequestNarrator,
    answer_new_lines,
    response_actions,
)
from mcr_env.botzone.protocol import KEEP_RUNNING
from mcr_env.engine.state import Phase

_DISCARD = int(Phase.DISCARD)


class BotFailure(Exception):
    """An outside bot did not answer properly. Attributes: ``kind`` ("timeout", "crash",
    "bad-output"), ``detail``."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


@dataclass
class Incident:
    """One penalized offence of an outside bot."""

    game: int
    """Game index in the engine batch."""
    seat: int
    """Offending seat."""
    kind: str
    """"timeout", "crash", "bad-output", "not-pass" (a notification answered with something
    else than PASS), "illegal" (a move the engine does not allow)."""
    detail: str
    """What happened (the request and the answer where there was one)."""


class BotProcess:
    """One bot of one seat: its request/response history and its process.

    Args:
        cmd: the command (argument list).
        io: "json" or "simple" interaction.
        timeout: seconds allowed for one answer (the keep-running marker included).
        env: environment of the process (None = inherited).
        counts: dict whose "starts" and "requests" entries count process starts and answered
            requests (shared by the processes of one agent).
    """

    def __init__(
        self,
        cmd: list[str],
        io: str = "json",
        timeout: float = 5.0,
        env=None,
        counts: dict | None = None,
    ):
        if io not in ("json", "simple"):
            raise ValueError(f"io must be 'json' or 'simple', got {io!r}")
        self.cmd, self.io, self.timeout, self.env = list(cmd), io, float(timeout), env
        self.counts = {"starts": 0, "requests": 0} if counts is None else counts
        self.requests: list[str] = []
        self.responses: list[str] = []
        self.keep_running: bool | None = None  # None until the first answer
        self.proc: subprocess.Popen | None = None
        self._buf = b""
        self.seconds: list[float] = []  # wall time of every answer

    # ------------------------------------------------------------------ process plumbing
    def _start(self) -> None:
        self.counts["starts"] += 1
        try:
            self.proc = subprocess.Popen(
                self.cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self.env,
            )
        except OSError as e:  # gone since the agent was built, not executable, ...
            raise BotFailure("crash", f"cannot start the bot ({e})") from None
        self._buf = b""

    def _write(self, text: str) -> None:
        try:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise BotFailure("crash", f"cannot write to the bot ({e})") from None

    def _read_line(self, deadline: float) -> str:
        """Next non-blank output line before ``deadline`` (time.monotonic)."""
        fd = self.proc.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        try:
            while True:
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    if line.strip():
                        return line.decode(errors="replace").strip()
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise BotFailure("timeout", f"no answer within {self.timeout:g} s")
                chunk = os.read(fd, 65536)
                if not chunk:
                    code = self.proc.poll()
                    raise BotFailure("crash", f"the bot closed its output (exit code {code})")
                self._buf += chunk
        finally:
            sel.close()

    def _payload(self, request: str) -> str:
        """What the bot reads for this turn."""
        if self.keep_running and self.proc is not None:
            return (json.dumps(request) if self.io == "json" else request) + "\n"
        reqs = self.requests + [request]
        if self.io == "json":
            return json.dumps({"requests": reqs, "responses": self.responses}) + "\n"
        lines = [str(len(reqs))]
        for i, q in enumerate(reqs):
            lines.append(q)
            if i < len(self.responses):
                lines.append(self.responses[i])
        return "\n".join(lines) + "\n"

    def _parse(self, line: str) -> str:
        if self.io == "simple":
            return line
        try:
            obj = json.loads(line)
            return str(obj["response"])
        except (ValueError, KeyError, TypeError):
            raise BotFailure("bad-output", f"not a JSON response: {line[:200]!r}") from None

    # ------------------------------------------------------------------ public
    def ask(self, request: str) -> str:
        """Send one request, return the answer (response string).

        Raises:
            BotFailure: timeout, crash, or an unreadable answer (the process is then closed).
        """
        t0 = time.monotonic()
        deadline = t0 + self.timeout
        try:
            if self.proc is None or not self.keep_running:
                self._start()
            self._write(self._payload(request))
            resp = self._parse(self._read_line(deadline))
            if self.keep_running is None:
                # keep-running bots print the marker right after their first answer
                try:
                    marker = self._read_line(min(deadline, time.monotonic() + 1.0))
                except BotFailure:
                    marker = ""
                self.keep_running = marker == KEEP_RUNNING
            elif self.keep_running:
                marker = self._read_line(deadline)
                if marker != KEEP_RUNNING:
                    raise BotFailure("bad-output", f"expected {KEEP_RUNNING}, got {marker[:200]!r}")
            if not self.keep_running:
                self._stop()
        except BotFailure:
            self.close()
            raise
        self.seconds.append(time.monotonic() - t0)
        self.counts["requests"] += 1
        self.requests.append(request)
        self.responses.append(resp)
        return resp

    def _stop(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def close(self) -> None:
        """Kill the process (if any)."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self.proc = None


class BotzoneProcessAgent:
    """An outside Botzone bot (any executable) as an agent.

    Args:
        cmd: the command, a string (split like a shell would) or an argument list.
        io: "json" (default) or "simple" interaction.
        timeout: seconds per answer (default 5).
        name: agent name (default ``"cmd:<cmd>"``).
        env: environment of the processes (None = inherited).

    Raises:
        ValueError: an empty command, a program that is not an executable file (looked up on
            ``PATH``, or ``env["PATH"]``), an unknown ``io``, a ``timeout`` that is not finite
            and > 0.

    A process that cannot be started later (the program removed meanwhile) is a crash: the
    seat is penalized like any crashing bot.

    Attributes:
        incidents: list of :class:`Incident` (penalized offences).
        seconds: wall time of every decision answer of the bot (seconds).
        starts: processes started so far.
        requests: requests answered so far (decisions and notifications).

    The games must use ``RulesConfig(wall_layout="botzone", match="hand",
    illegal_action="penalize")`` (the judge's), checked at :meth:`attach`.
    """

    needs_obs = False
    needs_view = False
    needs_ids = True  # act() is told the (game, seat) of each row
    penalized_by_engine = True  # an illegal answer is an offence the engine punishes (envs)

    def __init__(
        self, cmd, io: str = "json", timeout: float = 5.0, name: str | None = None, env=None
    ):
        self.cmd = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        if not self.cmd:
            raise ValueError("empty bot command")
        path = None if env is None else env.get("PATH", os.defpath)
        if shutil.which(self.cmd[0], path=path) is None:
            raise ValueError(f"bot program {self.cmd[0]!r} not found (not an executable file)")
        if io not in ("json", "simple"):
            raise ValueError(f"io must be 'json' or 'simple', got {io!r}")
        if not 0 < float(timeout) < float("inf"):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout}")
        self.io, self.timeout, self.env = io, float(timeout), env
        self.name = name or "cmd:" + " ".join(self.cmd)
        self.incidents: list[Incident] = []
        self.seconds: list[float] = []
        self.engine = None
        self._procs: dict[tuple[int, int], BotProcess] = {}
        self._after_claim: dict[tuple[int, int], int] = {}
        self._counts = {"starts": 0, "requests": 0}

    @property
    def starts(self) -> int:
        """Processes started so far."""
        return self._counts["starts"]

    @property
    def requests(self) -> int:
        """Requests answered so far."""
        return self._counts["requests"]

    # ------------------------------------------------------------------ hooks
    def attach(self, engine, seats, games=None) -> None:
        """Start following the (freshly reset) games of ``engine`` at ``seats (G, 4) bool``
        (only the games of the ``games (G,) bool`` mask when given: a partial reset).

        Raises:
            ValueError: the engine's rules are not the judge's (see the class docstring).
        """
        cfg = engine.config
        if cfg.wall_layout != "botzone" or cfg.match != "hand" or cfg.illegal_action != "penalize":
            raise ValueError(
                "outside Botzone bots need RulesConfig(wall_layout='botzone', match='hand', "
                "illegal_action='penalize') (the judge's rules)"
            )
        seats = np.asarray(seats, dtype=bool)
        if games is None or self.engine is not engine:
            self.close()
            self.engine = engine
            self.seats = seats.copy()
            self.narrator = RequestNarrator(engine)
            self.narrator.start()
            self._after_claim = {}
            return
        sel = np.asarray(games, dtype=bool)
        self.seats[sel] = seats[sel]
        for key in [k for k in self._procs if sel[k[0]]]:
            self._procs.pop(key).close()
        for key in [k for k in self._after_claim if sel[k[0]]]:
            del self._after_claim[key]
        self.narrator.start(sel)

    def _proc(self, g: int, s: int) -> BotProcess:
        p = self._procs.get((g, s))
        if p is None:
            p = BotProcess(self.cmd, self.io, self.timeout, self.env, self._counts)
            self._procs[(g, s)] = p
        return p

    def _offence(self, g: int, s: int, kind: str, detail: str) -> None:
        self.incidents.append(Incident(g, s, kind, detail))
        for key in [k for k in self._procs if k[0] == g]:
            self._procs.pop(key).close()

    def observe(self, engine, actions, games=None) -> None:
        """After every step (of the ``games (G,) bool`` only, when given): write the new
        requests, send the notifications (answered PASS), punish offences, close the processes
        of finished games."""
        self.narrator.after_step(actions, games)
        for g, s in list(self._after_claim):  # claims that lost: their discard is void
            if not (engine.to_act[g, s] and int(engine.state.phase[g]) == _DISCARD):
                del self._after_claim[(g, s)]
        for g in np.flatnonzero(engine.terminated):
            for key in [k for k in self._procs if k[0] == g]:
                self._procs.pop(key).close()
        for g, s in zip(*np.nonzero(self.seats & ~engine.terminated[:, None])):
            g, s = int(g), int(s)
            if engine.terminated[g]:
                continue
            proc = self._proc(g, s)
            try:
                answer_new_lines(self.narrator, g, s, proc.ask, hold_decision=True)
            except BotFailure as e:
                self._offence(g, s, e.kind, e.detail)
                engine.penalize([g], [s])
            except ProtocolViolation as e:
                self._offence(g, s, "not-pass", f"{e.response!r} to {e.request!r}")
                engine.penalize([g], [s])

    def act(self, obs, mask, view=None, games=None, seats=None) -> np.ndarray:
        """Answers of the bots at the engine's decisions of ``games``/``seats`` (default: all
        held seats asked now); an illegal action where a bot failed, which the engine then
        penalizes."""
        eng = self.engine
        if eng is None:
            raise RuntimeError("BotzoneProcessAgent.attach(engine, seats) was not called")
        if games is None:
            games, seats = np.nonzero(eng.to_act & self.seats)
        games, seats = np.asarray(games), np.asarray(seats)
        if len(games) != len(mask):
            raise RuntimeError("the decisions asked differ from the attached engine's")
        out = np.full(len(games), -1, dtype=np.int64)
        failed: set[int] = set()  # games with an offence in this call: they end at this step
        for i, (g, s) in enumerate(zip(games.tolist(), seats.tolist())):
            if g in failed:
                out[i] = int(np.argmax(mask[i]))  # ignored: the penalty ends the hand
                continue
            n_inc = len(self.incidents)
            a = self._answer(i, g, s, mask)
            # after an offence: an illegal action id (in range), which the engine penalizes
            out[i] = a if a >= 0 else int(np.flatnonzero(~mask[i])[0])
            if len(self.incidents) > n_inc:
                failed.add(g)
        return out

    def _answer(self, i: int, g: int, s: int, mask) -> int:
        """The action of seat s of game g (row i of ``mask``), -1 after an offence."""
        eng = self.engine
        if int(eng.state.phase[g]) == _DISCARD:
            a = self._after_claim.pop((g, s), -1)  # chosen with the claim
        else:
            proc = self._proc(g, s)
            try:
                n0 = len(proc.seconds)
                resp = answer_new_lines(self.narrator, g, s, proc.ask)
                if len(proc.seconds) > n0:
                    self.seconds.append(proc.seconds[-1])
                got = response_actions(eng, g, resp)
            except BotFailure as e:
                self._offence(g, s, e.kind, e.detail)
                return -1
            except ProtocolViolation as e:
                self._offence(g, s, "not-pass", f"{e.response!r} to {e.request!r}")
                return -1
            except ValueError as e:  # a malformed response
                self._offence(g, s, "bad-output", str(e))
                return -1
            a = got[0]
            if len(got) == 2:
                self._after_claim[(g, s)] = got[1]
        if not (0 <= a < mask.shape[1] and mask[i, a]):
            self._offence(g, s, "illegal", f"action {a} at phase {int(eng.state.phase[g])}")
            return -1
        return int(a)

    def close(self) -> None:
        """Kill every process."""
        for p in self._procs.values():
            p.close()
        self._procs = {}

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

"""The Botzone ecosystem: our agents as Botzone bots, Botzone bots as agents, match logs.

* :mod:`mcr_env.botzone.protocol` -- the request lines of the Botzone "Chinese-Standard-Mahjong"
  bot protocol (parse/format), the keep-running marker.
* :mod:`mcr_env.botzone.tracker` -- :class:`SeatTracker`: one seat's view (the engine's
  ``GameState``) built from the requests it receives.
* :mod:`mcr_env.botzone.bot` -- :class:`BotzoneBot` (any agent answering requests, masks from
  the engine) and :func:`run_bot` (JSON / simple I/O, keep-running).
* :mod:`mcr_env.botzone.judge` -- :class:`RequestNarrator`: the requests the judge would send
  for engine games; judge walls (``initdata`` <-> our wall).
* :mod:`mcr_env.botzone.process` -- :class:`BotzoneProcessAgent`: outside bot executables as
  agents (timeouts, crashes and illegal answers penalized as the judge does).
* :mod:`mcr_env.botzone.datatxt` -- PKU/Botzone ``data.txt`` match logs: parse, replay through
  the engine, write; behaviour-cloning data.
* :mod:`mcr_env.botzone.numpy_policy` -- a policy's forward pass in numpy (exported bots).

Like the rest of mcr_env it holds no game rule of its own: legality and scoring are the
engine's (docs/design.md); it never imports ``baselines`` (agents are passed in).
"""

from mcr_env.botzone.bot import BOTZONE_RULES, BotzoneBot, run_bot
from mcr_env.botzone.judge import (
    ProtocolViolation,
    RequestNarrator,
    judge_initdata,
    play_through_protocol,
    wall_from_initdata,
)
from mcr_env.botzone.process import BotzoneProcessAgent
from mcr_env.botzone.protocol import KEEP_RUNNING, Request, RequestError, parse_request
from mcr_env.botzone.tracker import SeatTracker

__all__ = [
    "BOTZONE_RULES",
    "KEEP_RUNNING",
    "BotzoneBot",
    "BotzoneProcessAgent",
    "ProtocolViolation",
    "Request",
    "RequestError",
    "RequestNarrator",
    "SeatTracker",
    "judge_initdata",
    "parse_request",
    "play_through_protocol",
    "run_bot",
    "wall_from_initdata",
]

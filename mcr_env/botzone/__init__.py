"""The Botzone ecosystem: our agents as Botzone bots, Botzone bots as agents, match logs.

* :mod:`mcr_env.botzone.protocol` -- the request lines of the Botzone "Chinese-Standard-Mahjong"
  bot protocol (parse/format), the keep-running marker.
* :mod:`mcr_env.botzone.tracker` -- :class:`SeatTracker`: one seat's view (the engine's
  ``GameState``) built from the requests it receives.
* :mod:`mcr_env.botzone.bot` -- :class:`BotzoneBot` (any agent answering requests, masks from
  the engine) and :func:`run_bot` (JSON / simple I/O, keep-running).
* :mod:`mcr_env.botzone.judge` -- :class:`RequestNarrator`: the requests the judge would send
  for engine games.

Like the rest of mcr_env it holds no game rule of its own: legality and scoring are the
engine's (DESIGN.md); it never imports ``baselines`` (agents are passed in).
"""

from mcr_env.botzone.bot import BOTZONE_RULES, BotzoneBot, run_bot
from mcr_env.botzone.judge import ProtocolViolation, RequestNarrator
from mcr_env.botzone.protocol import KEEP_RUNNING, Request, RequestError, parse_request
from mcr_env.botzone.tracker import SeatTracker

__all__ = [
    "BOTZONE_RULES",
    "KEEP_RUNNING",
    "BotzoneBot",
    "ProtocolViolation",
    "Request",
    "RequestError",
    "RequestNarrator",
    "SeatTracker",
    "parse_request",
    "run_bot",
]

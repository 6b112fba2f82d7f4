"""Text rendering of one table for the envs (``render_mode="ansi"``).

The single implementation is :func:`mcr_env.engine.render.render_table` (Unicode tiles by
default, Botzone codes with ``tiles="codes"``; full table or one seat's view); it is
re-exported here so the env adapters keep importing ``mcr_env.envs.render.render_table``.
"""

from __future__ import annotations

from mcr_env.engine.render import render_engine, render_table

__all__ = ["render_engine", "render_table"]

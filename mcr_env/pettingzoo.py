"""PettingZoo entry points: ``env()`` (AEC, standard wrappers), ``parallel_env()``, ``raw_env``.

    from mcr_env.pettingzoo import env, parallel_env
    e = env(render_mode="ansi")   # agents player_0..player_3

See :mod:`mcr_env.envs.pz` for the semantics.
"""

from mcr_env.envs.pz import AGENTS, env, parallel_env, parallel_raw_env, raw_env

__all__ = ["AGENTS", "env", "parallel_env", "parallel_raw_env", "raw_env"]

"""mcr-env: a reinforcement-learning environment for Mahjong Competition Rules (MCR)."""

__version__ = "0.1.0"

from mcr_env.envs import register_envs as _register_envs  # noqa: E402  (gymnasium id MCR-v0)

_register_envs()

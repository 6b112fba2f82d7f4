"""Environments: native multi-agent batch env, Gymnasium (single + vector), PettingZoo.

Importing :mod:`mcr_env` registers ``mcr_env/MCR-v0`` with Gymnasium (entry points are strings,
so nothing heavy is imported until ``gymnasium.make``)::

    gymnasium.make("mcr_env/MCR-v0")
    gymnasium.make_vec("mcr_env/MCR-v0", num_envs=64, vectorization_mode="vector_entry_point")
"""

ENV_ID = "mcr_env/MCR-v0"


def register_envs() -> None:
    """Register ``mcr_env/MCR-v0`` (idempotent; no-op without gymnasium)."""
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # pragma: no cover - gymnasium is a core dependency
        return
    if ENV_ID not in registry:
        register(
            id=ENV_ID,
            entry_point="mcr_env.envs.gym_env:MCREnv",
            vector_entry_point="mcr_env.envs.gym_env:MCRVectorEnv",
        )


register_envs()

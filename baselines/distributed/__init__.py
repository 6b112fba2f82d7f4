"""Rollouts past one process: Ray actors that own batch envs and play with a policy snapshot.

See :mod:`baselines.distributed.ray_rollout`. Ray is an optional extra: ``pip install -e
".[ray]"``.
"""

from baselines.distributed.ray_rollout import RayRollouts, RolloutActor

__all__ = ["RayRollouts", "RolloutActor"]

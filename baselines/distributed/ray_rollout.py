"""Rollouts on Ray actors: each actor owns a batch env (in process or sharded over worker
processes) for a contiguous range of the tables and plays them with a snapshot of the policy
that the learner broadcasts each iteration (``ray.put`` once, every actor reads the same object).

:class:`RayRollouts` is the learner side: it splits ``num_tables`` tables into one contiguous
range per actor (actor j plays global tables ``lo_j..hi_j-1``; its engines are built with
``first_game = lo_j``), sends the weights, gathers the buffers and merges them into the order
one env over all the tables produces (:func:`baselines.rollout.merge_rollouts`). Because deals
derive from the global table index and action draws from (seed, table, seat, step)
(:func:`baselines.rollout.counter_uniform`), the merged rollout equals the in-process one for
the same seeds.

Cluster: ``RayRollouts(..., address=None)`` starts a local Ray instance
(``ray.init(num_cpus=...)``) unless Ray is already initialised; to use an existing cluster,
start it (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others)
and pass ``address="auto"`` (on a cluster machine) or ``address="ray://HEAD:10001"`` (Ray
Client), or call ``ray.init(address=...)`` yourself before building :class:`RayRollouts`. Every
machine needs this package installed (``pip install -e ".[ray]"``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet
from baselines.rollout import DEFAULT_BLOCK_ROWS, collect_rollout, merge_rollouts, resolve_device

__all__ = ["RayRollouts", "RolloutActor", "import_ray"]


def import_ray():
    """``import ray`` or an ImportError saying how to install it."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - ray is installed by `make test`
        raise ImportError('backend "ray" needs Ray: pip install -e ".[ray]"') from e
    return ray


def net_spec(net: PolicyValueNet) -> dict:
    """Plain-data description of ``net`` from which an actor builds the same architecture."""
    return {
        "in_channels": net.in_channels,
        "encoder": net.encoder,
        "config": dataclasses.asdict(net.config),
    }


class RolloutActor:
    """One Ray actor (``ray.remote(RolloutActor)``): a batch env of global tables ``lo..hi-1``
    and a copy of the policy network.

    Args:
        spec: :func:`net_spec` of the learner's network.
        env_kwargs: keyword arguments of the env (``config``, ``encoder``; ``observe`` is
            ``"packed"`` and ``autoreset_mode`` ``"disabled"``).
        lo, hi: the global table range.
        num_workers: 0 = in-process env, k >= 1 = :class:`mcr_env.envs.sharded.ShardedBatchEnv`
            with k workers.
        device: forward-pass device (``"auto"`` = CUDA when present).
        torch_threads: ``torch.set_num_threads`` in the actor.
        block_rows: forward block size (:func:`baselines.rollout.forward_blocks`).
    """

    def __init__(
        self,
        spec: dict,
        env_kwargs: dict,
        lo: int,
        hi: int,
        num_workers: int = 0,
        device: str = "cpu",
        torch_threads: int = 1,
        block_rows: int | None = DEFAULT_BLOCK_ROWS,
    ):
        import baselines.features  # noqa: F401  (registers planes-v0+rule-v0 in the actor)
        from mcr_env.envs.sharded import make_batch_env

        torch.set_num_threads(torch_threads)
        self.lo, self.hi = int(lo), int(hi)
        self.device = device
        self.block_rows = block_rows
        self.net = PolicyValueNet(
            spec["in_channels"], NetworkConfig(**spec["config"]), encoder=spec["encoder"]
        )
        self.dev = resolve_device(device)
        self.net.to(self.dev).eval()
        kw = dict(env_kwargs, observe="packed", autoreset_mode="disabled", first_game=self.lo)
        if num_workers:
            kw["copy_obs"] = False
        self.env = make_batch_env(self.hi - self.lo, num_workers, **kw)

    def rollout(self, weights: dict, seed: int, sample_seed: int) -> tuple:
        """Load ``weights`` (a ``state_dict``) and play the tables' hands to the end.

        Returns:
            ``(buffer, points (n, 4), winners (n,), stats)`` of
            :func:`baselines.rollout.collect_rollout` (global keys).
        """
        self.net.load_state_dict(weights)
        self.net.eval()
        stats: dict = {}
        out = collect_rollout(
            self.net, self.env, seed, sample_seed, self.dev, self.lo, self.block_rows, stats
        )
        return (*out, stats)

    def close(self) -> None:
        """Stop the env's worker processes (sharded env)."""
        if hasattr(self.env, "close"):
            self.env.close()


class RayRollouts:
    """The learner's handle on ``num_actors`` Ray rollout actors over ``num_tables`` tables.

    Args:
        num_tables: B tables per rollout (split into one contiguous range per actor).
        net: the learner's network (its architecture is rebuilt in each actor).
        env_kwargs: env keyword arguments (``config``, ``encoder``).
        num_actors: actors (at most B).
        workers_per_actor: 0 = in-process env in each actor, k = sharded over k processes.
        address: ``ray.init(address=...)`` when Ray is not initialised yet (None = start a
            local instance with ``num_cpus``); module docstring.
        num_cpus: CPUs of a local instance started here (None = all).
        actor_cpus: CPUs each actor reserves for scheduling.
        device: actors' forward-pass device. torch_threads, block_rows: as for the actor.

    Raises:
        ValueError: ``num_actors < 1``. ImportError: Ray missing.
    """

    def __init__(
        self,
        num_tables: int,
        net: PolicyValueNet,
        env_kwargs: dict | None = None,
        num_actors: int = 2,
        workers_per_actor: int = 0,
        address: str | None = None,
        num_cpus: int | None = None,
        actor_cpus: float = 1.0,
        device: str = "cpu",
        torch_threads: int = 1,
        block_rows: int | None = DEFAULT_BLOCK_ROWS,
    ):
        from mcr_env.envs.sharded import shard_bounds

        if num_actors < 1:
            raise ValueError(f"num_actors must be >= 1, got {num_actors}")
        ray = import_ray()
        self._ray = ray
        self._own_ray = not ray.is_initialized()  # shut down in close() if started here
        if self._own_ray:
            ray.init(
                address=address or None,
                num_cpus=None if address else num_cpus,
                include_dashboard=False,
                log_to_driver=False,
            )
        self.num_tables = int(num_tables)
        self.ranges = shard_bounds(self.num_tables, min(num_actors, self.num_tables))
        remote = ray.remote(num_cpus=actor_cpus)(RolloutActor)
        spec = net_spec(net)
        self.actors = [
            remote.remote(
                spec,
                dict(env_kwargs or {}),
                lo,
                hi,
                workers_per_actor,
                device,
                torch_threads,
                block_rows,
            )
            for lo, hi in self.ranges
        ]

    def collect(
        self, net: PolicyValueNet, seed: int, sample_seed: int, stats: dict | None = None
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """Broadcast ``net``'s weights, play one rollout on every actor, merge.

        Args:
            stats: optional dict receiving the actors' ``decisions``, ``policy_rows`` (sums)
                and ``steps`` (max) of :func:`baselines.rollout.collect_rollout`.

        Returns:
            ``(buffer, points (B, 4) float64, winners (B,) int8)`` equal to
            :func:`baselines.rollout.collect_rollout` over one env of all B tables.
        """
        ray = self._ray
        weights = ray.put({k: v.detach().cpu() for k, v in net.state_dict().items()})
        parts: list[Any] = ray.get(
            [a.rollout.remote(weights, seed, sample_seed) for a in self.actors]
        )
        buf = merge_rollouts([p[0] for p in parts])
        points = np.concatenate([p[1] for p in parts])
        winners = np.concatenate([p[2] for p in parts])
        if stats is not None:
            stats.update(
                decisions=sum(p[3]["decisions"] for p in parts),
                policy_rows=sum(p[3]["policy_rows"] for p in parts),
                steps=max(p[3]["steps"] for p in parts),
            )
        return buf, points, winners

    def close(self) -> None:
        """Stop the actors (and their env workers); shut Ray down if it was started here."""
        ray = self._ray
        for a in self.actors:
            try:
                ray.get(a.close.remote())
            except Exception:  # an actor already gone
                pass
            ray.kill(a)
        self.actors = []
        if self._own_ray and ray.is_initialized():
            ray.shutdown()
        self._own_ray = False

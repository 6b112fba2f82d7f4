"""Rollouts with the policy in the loop: one batched forward pass for every acting seat of every
table (and every shard), on ``device: auto`` (CUDA when present), with action sampling that
depends only on (seed, table, seat, step) so any split of the tables gives the same games.

:func:`collect_rollout` plays one batch of hands to their end through a batch env
(:class:`mcr_env.envs.batch.MCRBatchEnv` in process, or
:class:`mcr_env.envs.sharded.ShardedBatchEnv` over worker processes: same API) with
``autoreset_mode="disabled"`` and ``observe="packed"``. At every step the acting seats with more
than one legal action go through the network in ONE forward pass (masked logits); forced
decisions (one legal action) are played without the network and not stored.

Sampling: decision (table b, seat s, step t) draws its action by inverse CDF from
``softmax(logits)`` with a uniform :func:`counter_uniform` ``(seed, b, s, t)``: a counter-based
hash (splitmix64), not a stream, so the draw of a decision never depends on how many other
decisions were drawn before it. Hence the same seeds give the same games whether the tables run
in one process, in k shards, or split over Ray actors (``first_table`` = the global index of
the env's table 0), as long as the network gives the same logits for a row whatever the batch
it is in (true for the CPU kernels the tests use).

Speed (profiled, ``scripts/bench_rollout.py``): the forward pass of the policy is most of the
time (the 1-D convolutions run near one core's float32 peak), so the rollout forwards a
BatchNorm-folded copy of the network (:func:`inference_copy`) under ``torch.inference_mode``,
and the transitions are written straight into a :class:`RolloutBuffer` that the caller may
reuse from one rollout to the next (no per-step copies, no concatenation, no fresh pages).
"""

from __future__ import annotations

import copy
import time

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical
from torch.nn.utils.fusion import fuse_conv_bn_eval

__all__ = [
    "RolloutBuffer",
    "collect_rollout",
    "counter_uniform",
    "forward_blocks",
    "inference_copy",
    "merge_rollouts",
    "resolve_device",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
DEFAULT_BLOCK_ROWS = 64
"""Rows per forward pass of :func:`forward_blocks` in the rollouts."""
BUFFER_KEYS = ("obs", "mask", "action", "logprob", "value", "key", "step")


def resolve_device(device: str = "auto") -> torch.device:
    """``"auto"`` -> CUDA when available, else CPU; any other torch device string as given.

    Raises:
        ValueError: not a valid device string.
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        return torch.device(device)
    except RuntimeError as e:
        raise ValueError(
            f"device {device!r} is not valid ('auto', 'cpu', 'cuda', 'cuda:1', ...)"
        ) from e


def inference_copy(net: nn.Module) -> nn.Module:
    """A copy of ``net`` for rollouts: eval mode, no gradients, every ``Conv1d`` followed
    directly by a ``BatchNorm1d`` (inside an ``nn.Sequential``, and ``conv1/bn1``,
    ``conv2/bn2`` of :class:`baselines.network.ResidualBlock`) folded into one convolution
    (``torch.nn.utils.fusion.fuse_conv_bn_eval``; the BatchNorm becomes ``nn.Identity``).

    The folded network computes the same function in eval mode up to float rounding (last
    bits), about 10% faster on CPU. ``net`` itself is not changed. Modules of other shapes are
    copied as they are.
    """
    from baselines.network import ResidualBlock

    out = copy.deepcopy(net).eval()
    for p in out.parameters():
        p.requires_grad_(False)
    for mod in out.modules():
        if isinstance(mod, ResidualBlock):
            for conv, bn in (("conv1", "bn1"), ("conv2", "bn2")):
                setattr(mod, conv, fuse_conv_bn_eval(getattr(mod, conv), getattr(mod, bn)))
                setattr(mod, bn, nn.Identity())
        elif isinstance(mod, nn.Sequential):
            for i in range(len(mod) - 1):
                if isinstance(mod[i], nn.Conv1d) and isinstance(mod[i + 1], nn.BatchNorm1d):
                    mod[i] = fuse_conv_bn_eval(mod[i], mod[i + 1])
                    mod[i + 1] = nn.Identity()
    return out


class RolloutBuffer:
    """Growable storage of rollout transitions, reusable across rollouts.

    :func:`collect_rollout` writes each step's stored decisions straight into it (the network
    reads its input rows from it as well) and returns views of its first T rows. Passing the
    same buffer to the next rollout reuses the memory: the views returned before are then
    overwritten, so keep a buffer only while its last result is no longer needed (PPO
    consumes each rollout before collecting the next). Capacity doubles when needed.

    Args:
        obs_shape: ``(C, 34)`` of one observation.
        capacity: initial rows (grows as needed).
    """

    def __init__(self, obs_shape: tuple[int, ...], capacity: int = 4096) -> None:
        self.obs_shape = tuple(int(x) for x in obs_shape)
        self.size = 0
        self._arrays: dict[str, np.ndarray] = {}
        self._alloc(max(1, int(capacity)))

    def _alloc(self, capacity: int) -> None:
        specs = {
            "obs": ((capacity, *self.obs_shape), np.float32),
            "mask": ((capacity, 235), np.bool_),
            "action": ((capacity,), np.int64),
            "logprob": ((capacity,), np.float32),
            "value": ((capacity,), np.float32),
            "key": ((capacity,), np.int64),
            "step": ((capacity,), np.int64),
        }
        old, self._arrays = self._arrays, {}
        for k, (shape, dtype) in specs.items():
            self._arrays[k] = np.empty(shape, dtype=dtype)
            if k in old and self.size:
                self._arrays[k][: self.size] = old[k][: self.size]

    @property
    def capacity(self) -> int:
        """Rows that fit without growing."""
        return len(self._arrays["action"])

    def clear(self) -> None:
        """Forget the stored rows (the memory is kept)."""
        self.size = 0

    def extend(self, n: int) -> slice:
        """Reserve ``n`` more rows (growing the capacity when needed); returns their slice."""
        if self.size + n > self.capacity:
            self._alloc(max(2 * self.capacity, self.size + n))
        sl = slice(self.size, self.size + n)
        self.size += n
        return sl

    def __getitem__(self, key: str) -> np.ndarray:
        """The full-capacity array ``key`` (one of :data:`BUFFER_KEYS`)."""
        return self._arrays[key]

    def arrays(self) -> dict[str, np.ndarray]:
        """Views of the stored rows, one per :data:`BUFFER_KEYS` name."""
        return {k: self._arrays[k][: self.size] for k in BUFFER_KEYS}


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on ``uint64`` arrays (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def counter_uniform(
    seed: int, tables: np.ndarray, seats: np.ndarray, steps: np.ndarray
) -> np.ndarray:
    """Uniform numbers in (0, 1) keyed by ``(seed, table, seat, step)``.

    Args:
        seed: any int (taken modulo 2**64).
        tables, seats, steps: ``(N,) int`` keys (global table index, seat 0-3, env step).

    Returns:
        ``(N,) float64`` in the open interval (0, 1); the same key always gives the same number.
    """
    with np.errstate(over="ignore"):
        h = _mix(np.full(len(tables), np.uint64(int(seed) % (1 << 64)), dtype=np.uint64) + _GOLDEN)
        for part in (tables, seats, steps):
            h = _mix(h ^ (np.asarray(part).astype(np.uint64) * _GOLDEN + np.uint64(1)))
    return ((h >> np.uint64(11)).astype(np.float64) + 0.5) / float(1 << 53)


def forward_blocks(
    net: torch.nn.Module,
    obs: np.ndarray,
    mask: np.ndarray,
    device: torch.device,
    block_rows: int | None = DEFAULT_BLOCK_ROWS,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``net(obs, mask)`` without gradients, in blocks of exactly ``block_rows`` rows (the last
    block padded with zero rows whose mask allows Pass only, then dropped).

    Why blocks: CPU matrix kernels pick their summation order from the matrix sizes, so a row's
    logits can differ in the last bits with the number of rows it is batched with. With every
    forward of the same size, a row gets bitwise the same logits whatever else is in the
    batch, so the rollout of a table is the same in one process, in shards or on Ray actors.

    Args:
        obs: ``(N, C, 34) float32``; mask: ``(N, 235) bool``; device: where to run.
        block_rows: rows per forward (None = one forward of N rows).

    Returns:
        ``logits (N, 235) float32``, ``values (N,) float32`` on ``device``.
    """
    n = len(obs)
    o = torch.from_numpy(obs).to(device)
    m = torch.from_numpy(mask).to(device)
    with torch.inference_mode():
        if block_rows is None or n == 0:
            return net(o, m)
        logits, values = [], []
        for lo in range(0, n, block_rows):
            ob, mb = o[lo : lo + block_rows], m[lo : lo + block_rows]
            k = len(ob)
            if k < block_rows:
                pad_m = torch.zeros((block_rows - k, m.shape[1]), dtype=m.dtype, device=device)
                pad_m[:, 0] = True
                ob = torch.cat([ob, ob.new_zeros((block_rows - k, *ob.shape[1:]))])
                mb = torch.cat([mb, pad_m])
            lg, v = net(ob, mb)
            logits.append(lg[:k])
            values.append(v[:k])
        return torch.cat(logits), torch.cat(values)


def _sample(logits: torch.Tensor, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse-CDF draw from ``softmax(logits)`` per row (float64), and its log-probability.

    Masked logits (probability exactly 0) are never drawn: the CDF is flat there and the draw
    takes the first index whose CDF exceeds ``u * total``.
    """
    p = torch.softmax(logits.double(), dim=1).cpu().numpy()
    cdf = np.cumsum(p, axis=1)
    v = u * cdf[:, -1]
    a = np.minimum((cdf <= v[:, None]).sum(axis=1), logits.shape[1] - 1).astype(np.int64)
    # the log-probability exactly as the PPO update recomputes it (float32 Categorical)
    logp = Categorical(logits=logits).log_prob(torch.from_numpy(a).to(logits.device))
    return a, logp.float().cpu().numpy()


def collect_rollout(
    net: torch.nn.Module,
    env,
    seed: int,
    sample_seed: int,
    device: str | torch.device = "cpu",
    first_table: int = 0,
    block_rows: int | None = DEFAULT_BLOCK_ROWS,
    stats: dict | None = None,
    buffer: RolloutBuffer | None = None,
    fuse: bool = True,
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Play one batch of hands to the end with the shared policy (batched inference).

    Args:
        net: policy-value network ``net(obs (N, C, 34), mask (N, 235)) -> (logits, values)``,
            in eval mode, on ``device``.
        env: ``MCRBatchEnv`` or ``ShardedBatchEnv`` with ``autoreset_mode="disabled"`` and
            ``observe="packed"``.
        seed: seed of the deal (``env.reset(seed=seed)``).
        sample_seed: seed of the action draws (:func:`counter_uniform`).
        device: where the forward pass runs (``"auto"`` = CUDA when present).
        first_table: global index of the env's table 0 (the env's engine must be built with
            the same ``first_game``) for keys and draws.
        block_rows: forward pass in blocks of exactly this many rows (see
            :func:`forward_blocks`); None = one pass over all rows.
        stats: optional dict that receives counts and wall-clock seconds: ``steps``,
            ``decisions`` (acting seats answered), ``policy_rows`` (those that went through
            the network), ``env_seconds`` (reset/step), ``forward_seconds`` (forward passes
            and sampling), ``seconds`` (all), and ``forward_cpu_seconds`` (this process's CPU
            time in the forward passes and sampling).
        buffer: a :class:`RolloutBuffer` to write the transitions into and to reuse (the
            returned arrays are then views of it, valid until its next rollout); None = a
            fresh one (the arrays are owned by the result).
        fuse: forward :func:`inference_copy` of ``net`` (BatchNorm folded; the same draws in
            every backend, since each one folds the same weights the same way); False =
            ``net`` itself.

    Returns:
        ``(buffer, points, winners)``: buffer arrays of T stored transitions in time order
        (``obs (T, C, 34) float32``, ``mask (T, 235) bool``, ``action (T,) int64``, ``logprob
        (T,) float32``, ``value (T,) float32``, ``key (T,) int64`` = global table * 4 + seat,
        ``step (T,) int64`` = env step of the decision), the hands' settlement points summed
        per seat ``(B, 4) float64`` and the winner seat of each table ``(B,) int8`` (-1 none).

    Raises:
        ValueError: the env is not in packed / disabled-autoreset mode.
    """
    if getattr(env, "observe_mode", None) != "packed" or env.autoreset_mode != "disabled":
        raise ValueError("collect_rollout needs an env with observe='packed', autoreset 'disabled'")
    dev = resolve_device(device) if isinstance(device, str) else device
    t_start = time.perf_counter()
    inet = inference_copy(net) if fuse else net
    obs, _ = env.reset(seed=seed)
    t_env = time.perf_counter() - t_start
    t_fwd = c_fwd = 0.0
    n_dec = n_rows = 0
    b = env.num_tables
    # untouched capacity costs address space only (pages are committed when written)
    buf = buffer if buffer is not None else RolloutBuffer(env.encoder.shape, 64 * b)
    buf.clear()
    points = np.zeros((b, 4), dtype=np.float64)
    terminated = np.zeros(b, dtype=bool)
    t = 0
    while not bool(terminated.all()):
        games, seats = obs["games"], obs["seats"]
        actions = np.zeros((b, 4), dtype=np.int64)
        masks = obs["action_mask"][games, seats].view(np.bool_)  # int8 0/1 -> bool, no copy
        free = masks.sum(axis=1) > 1
        n_dec += len(games)
        forced = ~free
        if forced.any():
            actions[games[forced], seats[forced]] = masks[forced].argmax(axis=1)
        rows = np.flatnonzero(free)
        if len(rows):
            t0, c0 = time.perf_counter(), time.process_time()
            sl = buf.extend(len(rows))
            o, m = buf["obs"][sl], buf["mask"][sl]
            np.take(obs["observation"], rows, axis=0, out=o)
            np.take(masks, rows, axis=0, out=m)
            g, s = games[rows], seats[rows]
            logits, values = forward_blocks(inet, o, m, dev, block_rows)
            gg = g + first_table
            a, logp = _sample(logits, counter_uniform(sample_seed, gg, s, np.full(len(g), t)))
            t_fwd += time.perf_counter() - t0
            c_fwd += time.process_time() - c0
            n_rows += len(g)
            actions[g, s] = a
            buf["action"][sl] = a
            buf["logprob"][sl] = logp
            buf["value"][sl] = values.float().cpu().numpy()
            buf["key"][sl] = gg * 4 + s
            buf["step"][sl] = t
        t0 = time.perf_counter()
        obs, rewards, term, _, _ = env.step(actions)
        t_env += time.perf_counter() - t0
        terminated |= term
        points += rewards
        t += 1
    out = buf.arrays()
    state = env.get_state() if hasattr(env, "get_state") else env.engine.state
    if stats is not None:
        stats.update(
            steps=t,
            decisions=n_dec,
            policy_rows=n_rows,
            env_seconds=t_env,
            forward_seconds=t_fwd,
            forward_cpu_seconds=c_fwd,
            seconds=time.perf_counter() - t_start,
        )
    return out, points, state.winner.copy()


def merge_rollouts(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Concatenate rollout buffers of disjoint table ranges and put them in the order one env
    over all the tables would have produced: by step, then by key (``np.nonzero(to_act)``
    order = table-major, seat-minor)."""
    cat = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    order = np.lexsort((cat["key"], cat["step"]))
    return {k: v[order] for k, v in cat.items()}

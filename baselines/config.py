"""Typed configuration for training and evaluation, loaded from YAML (STYLE.md "Habits").

Every config is a frozen dataclass with a default for each field; a YAML file only overrides
fields. An unknown key anywhere is a :class:`ValueError` that lists the valid keys of that
section, so a typo never silently falls back to a default; a number outside its range
(:data:`RANGES`, e.g. ``ppo.iterations=-1``) is a :class:`ValueError` naming the key and the
value.

Sections of the top-level :class:`RunConfig` (``configs/default.yaml`` is the main job):

======== ============================================================================
section  what it configures
======== ============================================================================
env      the engine rules overrides, observation encoder and reward scale
network  the policy-value network (:mod:`baselines.network`)
bc       behaviour cloning from :class:`baselines.agents.RuleBasedAgent` games
rpi      rollout policy improvement after BC (:mod:`baselines.rpi`)
ppo      PPO self-play fine-tuning (:mod:`baselines.ppo`)
eval     duplicate evaluation (:mod:`mcr_env.eval`)
======== ============================================================================

Overrides from the command line use dotted paths: ``--set ppo.iterations=2 bc.hands=64``;
the value is parsed as YAML (so ``2`` is an int, ``1e-3`` a float, ``[a, b]`` a list).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "EnvConfig",
    "NetworkConfig",
    "BCConfig",
    "RPIConfig",
    "PPOConfig",
    "EvalConfig",
    "RunConfig",
    "from_dict",
    "to_dict",
    "load_config",
    "apply_overrides",
]


@dataclass(frozen=True)
class EnvConfig:
    """The game environment used for data collection, training and evaluation."""

    encoder: str = "planes-v0"
    """observation encoder id (``mcr_env.encoding.get_encoder``)."""
    reward_scale: float = 0.01
    """training reward = settlement points x reward_scale (evaluation always reports points)."""
    rules: dict = field(default_factory=dict)
    """overrides of the engine's ``RulesConfig`` fields (empty = the engine's defaults)."""
    reward: str = "settlement"
    """PPO training reward, a name of :data:`mcr_env.rewards.REWARD_NAMES` (``settlement``,
    ``scaled``, ``win_loss``, ``table_points``, ``shaping``); multiplied by reward_scale."""
    reward_kwargs: dict = field(default_factory=dict)
    """keyword arguments of the reward, e.g. ``{base: win_loss, gamma: 1.0}`` for shaping."""


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of the residual 1-D CNN policy-value network (:mod:`baselines.network`)."""

    channels: int = 64
    """feature maps of every residual block."""
    blocks: int = 4
    """number of residual blocks along the 34-tile axis."""
    hidden: int = 256
    """width of the hidden layer of the value head."""


@dataclass(frozen=True)
class BCConfig:
    """Behaviour cloning from hands played by four copies of a teacher agent."""

    teacher: str = "rule"
    """the agent imitated, four copies of it playing each other: ``rule``
    (RuleBasedAgent), ``rule-lookahead`` (LookaheadAgent, stronger), ``rule-defensive``,
    ``random`` (:data:`baselines.agents.AGENT_SPECS`)."""
    hands: int = 2048
    """number of hands played to collect (observation, mask, action) samples."""
    batch_envs: int = 128
    """hands played in parallel through the batched env while collecting."""
    epochs: int = 4
    """passes over the collected samples."""
    val_fraction: float = 0.1
    """fraction of the hands (whole hands: split by game) held out to measure accuracy."""
    batch_size: int = 512
    """samples per gradient step."""
    lr: float = 1e-3
    """Adam learning rate."""
    weight_decay: float = 1e-5
    """Adam weight decay."""
    data: str = ""
    """path of a behaviour-cloning dataset (``.npz`` of obs, mask, action, ret, match, e.g. the
    decisions of Botzone match logs: ``scripts/botzone_logs.py replay ... --bc``) to train on
    instead of playing ``hands`` hands; its observations must be ``env.encoder``'s; empty =
    play them."""


@dataclass(frozen=True)
class RPIConfig:
    """Rollout policy improvement (:mod:`baselines.rpi`): rounds of paired branch rollouts
    from the learner's own decisions, an advantage network fitted to them, the policy
    distilled to its improved choices. Runs after BC, before PPO."""

    rounds: int = 0
    """improvement rounds (each: rollouts with the current policy, fit, distil); 0 = off."""
    hands: int = 2000
    """trunk hands per round (the learner at one seat vs three opponents)."""
    branch_prob: float = 0.25
    """probability that a learner decision (more than one legal action) outside claim rounds
    is a branch point."""
    claim_branch_prob: float = 0.25
    """the same for claim-round decisions (Chi/Peng/Gang or Pass, no Hu option)."""
    top_k: int = 3
    """candidates per decision: the policy's action and its ``top_k - 1`` next most probable
    legal actions; each alternative is played out once from every branch point."""
    opponents: tuple = ("rule",)
    """opponents of the trunk hands, one drawn per table: ``rule``, ``rule-defensive``,
    ``rule-lookahead`` (deterministic agents: a branch replaying the trunk's action must
    reproduce the trunk)."""
    opponent_weights: tuple = ()
    """draw weights of ``opponents`` (empty = uniform)."""
    margin: float = 2.0
    """points per hand the advantage network must predict for an alternative over the
    policy's own action before the decision is relabelled."""
    adv_epochs: int = 4
    """epochs of the advantage fit (the epoch with the best held-out error is kept)."""
    adv_lr: float = 3e-4
    """Adam learning rate of the advantage fit."""
    distill_epochs: int = 2
    """epochs of the policy's cross-entropy fine-tuning to the improved labels."""
    distill_lr: float = 3e-4
    """Adam learning rate of the distillation."""
    batch_size: int = 250
    """games played in parallel in the rollouts (trunk and branches)."""
    val_fraction: float = 0.1
    """fraction of trunk hands held out to check the advantage fit (``r2_val``)."""


@dataclass(frozen=True)
class PPOConfig:
    """PPO self-play fine-tuning: four seats share one policy (:mod:`baselines.ppo`)."""

    iterations: int = 20
    """PPO iterations; each plays ``num_envs`` complete hands then updates."""
    num_envs: int = 64
    """hands played in parallel per iteration (every hand is played to its end)."""
    lr: float = 1e-4
    """Adam learning rate."""
    anneal_lr: bool = True
    """linearly anneal the learning rate to 0 over the iterations."""
    gamma: float = 1.0
    """discount between a seat's consecutive decisions."""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation (per seat)."""
    update_epochs: int = 3
    """optimisation epochs over each batch of transitions."""
    minibatch_size: int = 512
    """transitions per gradient step."""
    clip_coef: float = 0.2
    """PPO surrogate clipping coefficient."""
    clip_vloss: bool = True
    """clip the value loss like the policy ratio."""
    ent_coef: float = 0.01
    """entropy bonus coefficient."""
    kl_coef: float = 0.0
    """coefficient of a penalty ``KL(policy || reference)`` per decision (mean over the
    minibatch, over the legal actions), the reference being the policy PPO starts from (the BC
    policy): keeps fine-tuning close to it. 0 = no penalty."""
    value_warmup: int = 0
    """the first this many iterations train only the value head (or the oracle critic) on
    the rollouts, the policy frozen; the policy updates start after them."""
    policy_temperature: float = 1.0
    """T: before the first iteration the last layer of the policy head is divided by T, i.e.
    the logits of the starting (e.g. BC) policy become ``logits / T``: its greedy actions are
    unchanged (the evaluation plays greedily) while the actions sampled in the rollouts
    explore. A behaviour-cloned policy is nearly deterministic (logit gaps of 8 and more), so
    its policy and entropy gradients vanish and PPO cannot move it otherwise. 1 = unchanged;
    must be > 0."""
    vf_coef: float = 0.5
    """value loss coefficient."""
    max_grad_norm: float = 0.5
    """gradient norm clipping."""
    norm_adv: bool = True
    """normalise advantages per minibatch."""
    checkpoint_every: int = 10
    """save a checkpoint every this many iterations (and always at the end)."""
    pool: tuple = ("self",)
    """opponent pool: per table, one entry is drawn (``pool_weights``); ``self`` = the learner
    in all four seats, ``rule`` / ``rule-defensive`` / ``random`` = the learner in one seat
    against three baseline agents, ``past`` = against three copies of a past checkpoint
    (snapshots every ``checkpoint_every`` iterations; the BC policy until the first)."""
    pool_weights: tuple = ()
    """draw weights of the pool entries (empty = uniform)."""
    oracle_critic: bool = False
    """train a separate value network on ``oracle-v0`` (the policy reads its planes-v0
    channels, which come first; one encoder call gives both)."""
    backend: str = "inprocess"
    """where rollouts run: ``inprocess`` (this machine's batch env, sharded over
    ``num_workers``) or ``ray`` (Ray actors, :mod:`baselines.distributed`)."""
    num_workers: int = -1
    """worker processes of the rollout env (``mcr_env.envs.sharded``): -1 = one per CPU this
    process may use, 0 = in this process; ``backend: ray``: per actor (-1 = 0 there). Used for
    pure self-play with the settlement reward and no oracle critic; rollouts against the pool,
    with another reward or the oracle critic run in this process (``backend: inprocess``)."""
    shard_backend: str = "process"
    """where the ``num_workers`` shards run (:data:`mcr_env.envs.sharded.BACKENDS`):
    ``process`` (worker processes; many cores) or ``thread`` (threads of this process; the
    cheaper choice on a few cores). The same games either way."""
    device: str = "auto"
    """torch device of the learner and of the inferences (``auto`` = CUDA when present);
    ``scripts/train.py`` uses the top-level ``device`` instead."""
    ray_actors: int = 2
    """``backend: ray``: rollout actors (the tables are split into one range per actor)."""
    ray_address: str = ""
    """``backend: ray``: ``ray.init(address=...)`` of an existing cluster (``auto`` on a cluster
    node, ``ray://HEAD:10001``); empty = start a local Ray instance."""


@dataclass(frozen=True)
class EvalConfig:
    """Duplicate evaluation (:mod:`mcr_env.eval`)."""

    walls: int = 500
    """number of distinct walls; each is replayed under every seat permutation."""
    permutations: str = "rotations"
    """``rotations`` (4 seatings) or ``all`` (the 24 permutations)."""
    batch_size: int = 256
    """games played in parallel."""
    num_workers: int = -1
    """worker processes playing the batches (``mcr_env.eval.parallel``): -1 = one per CPU,
    0 = in this process; the results are the same for every value >= 1 (each batch gets its
    own copy of the agents)."""
    shard_backend: str = "process"
    """where the ``num_workers`` batches are played: ``process`` (spawned worker processes)
    or ``thread`` (threads of this process: no spawn or pickling; the engine and torch
    release the GIL). The same results either way."""
    opponents: tuple = ("random", "rule")
    """opponents of the evaluated agent; each match is the agent vs three copies of one."""
    greedy: bool = True
    """the evaluated torch policy takes its most probable legal action (else samples)."""
    curve_walls: int = 0
    """walls of each learning-curve evaluation (0 = no curve); on the selection block."""
    curve_points: int = 4
    """learning-curve evaluations: after BC, then evenly along PPO (the last at its end)."""
    selection_block: int = 1
    """block of walls (wall indices block x 1,000,000 ...) of the learning curve and of the
    choice of the final checkpoint."""
    report_block: int = 0
    """block of walls of the final report; must differ from selection_block."""
    select_best: bool = True
    """choose the final policy among the learning-curve checkpoints by ``select_by`` (else the
    last); needs ``curve_walls > 0``. The choice is made against ``rule`` (the first
    opponent when ``rule`` is not among them)."""
    select_by: str = "paired_bc"
    """``paired_bc``: the BC checkpoint unless a later curve checkpoint beats it *paired* on
    the selection walls with its whole 95% CI above 0 (then the one with the largest paired
    gain; ``baselines.train.select_paired``); ``points``: the highest mean points of one
    curve reading (unpaired, CI ~ +-1.5 points at 250 walls)."""
    gain_over_bc: tuple = ("rule",)
    """opponents against which the behaviour-cloned policy (``bc.pt``) is evaluated on the
    report walls too: the final policy's paired gain over BC (``trained - bc``, per wall, 95%
    CI) in points and placement per hand (``baselines.train.gain_over_bc``). Entries not in
    ``opponents`` are skipped; when the final policy is the BC checkpoint itself the gain is
    exactly 0 (no second evaluation). Empty = not measured (nor without a BC stage)."""


@dataclass(frozen=True)
class RunConfig:
    """One run of ``scripts/train.py``: BC, then RPI, then PPO, then duplicate evaluation."""

    name: str = "default"
    """run name; the run directory is ``<runs_dir>/<name>-<time>/``."""
    seed: int = 1
    """root seed for numpy, torch and the engine."""
    runs_dir: str = "runs"
    """parent directory of run directories."""
    torch_threads: int = 1
    """``torch.set_num_threads``; 1 measured fastest on a shared 2-core machine
    (``scripts/bench_train.py``: 2 threads were 5-10x slower under load)."""
    device: str = "auto"
    """torch device: ``auto`` (CUDA when available, else CPU), ``cpu``, ``cuda``, ``cuda:1``."""
    env: EnvConfig = field(default_factory=EnvConfig)
    """the environment."""
    network: NetworkConfig = field(default_factory=NetworkConfig)
    """the network."""
    bc: BCConfig = field(default_factory=BCConfig)
    """behaviour cloning (``bc.hands: 0`` skips it)."""
    rpi: RPIConfig = field(default_factory=RPIConfig)
    """rollout policy improvement (``rpi.rounds: 0`` skips it)."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """PPO (``ppo.iterations: 0`` skips it)."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """final evaluation (``eval.walls: 0`` skips it)."""


@dataclass(frozen=True)
class _Range:
    """The allowed values of a number: ``lo <= x`` (``lo < x`` when ``lo_open``), likewise
    ``hi``; ``None`` = unbounded."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False

    def __contains__(self, x: float) -> bool:
        # written so that NaN is outside every range
        if self.lo is not None and not (x > self.lo if self.lo_open else x >= self.lo):
            return False
        return self.hi is None or bool(x < self.hi if self.hi_open else x <= self.hi)

    def __str__(self) -> str:
        if self.hi is None:
            return f"{'>' if self.lo_open else '>='} {self.lo}"
        return (
            f"in {'(' if self.lo_open else '['}{self.lo}, {self.hi}{')' if self.hi_open else ']'}"
        )


_COUNT = _Range(0)  # 0 = skip / none
_SIZE = _Range(1)
_POSITIVE = _Range(0, lo_open=True)
_PROBABILITY = _Range(0, 1)
_FRACTION = _Range(0, 1, hi_open=True)
_WORKERS = _Range(-1)  # -1 = one per CPU, 0 = in this process

RANGES: dict[str, _Range] = {
    "seed": _COUNT,
    "torch_threads": _SIZE,
    "env.reward_scale": _POSITIVE,
    "network.channels": _SIZE,
    "network.blocks": _COUNT,
    "network.hidden": _SIZE,
    "bc.hands": _COUNT,
    "bc.batch_envs": _SIZE,
    "bc.epochs": _COUNT,
    "bc.val_fraction": _FRACTION,
    "bc.batch_size": _SIZE,
    "bc.lr": _POSITIVE,
    "bc.weight_decay": _COUNT,
    "rpi.rounds": _COUNT,
    "rpi.hands": _SIZE,
    "rpi.branch_prob": _PROBABILITY,
    "rpi.claim_branch_prob": _PROBABILITY,
    "rpi.top_k": _Range(2),
    "rpi.margin": _COUNT,
    "rpi.adv_epochs": _COUNT,
    "rpi.adv_lr": _POSITIVE,
    "rpi.distill_epochs": _COUNT,
    "rpi.distill_lr": _POSITIVE,
    "rpi.batch_size": _SIZE,
    "rpi.val_fraction": _FRACTION,
    "ppo.iterations": _COUNT,
    "ppo.num_envs": _SIZE,
    "ppo.lr": _Range(0),  # 0: no policy update (the zero-gain diagnostic of the learning curve)
    "ppo.gamma": _PROBABILITY,
    "ppo.gae_lambda": _PROBABILITY,
    "ppo.update_epochs": _SIZE,
    "ppo.minibatch_size": _SIZE,
    "ppo.clip_coef": _POSITIVE,
    "ppo.ent_coef": _COUNT,
    "ppo.kl_coef": _COUNT,
    "ppo.value_warmup": _COUNT,
    "ppo.policy_temperature": _POSITIVE,
    "ppo.vf_coef": _COUNT,
    "ppo.max_grad_norm": _POSITIVE,
    "ppo.checkpoint_every": _SIZE,
    "ppo.num_workers": _WORKERS,
    "ppo.ray_actors": _SIZE,
    "eval.walls": _COUNT,
    "eval.batch_size": _SIZE,
    "eval.num_workers": _WORKERS,
    "eval.curve_walls": _COUNT,
    "eval.curve_points": _SIZE,
    "eval.selection_block": _COUNT,
    "eval.report_block": _COUNT,
}
"""The allowed range of each numeric config key (dotted path), checked by :func:`from_dict`
(so by :func:`load_config` and ``--set``): ``0`` where it means "skip" (``bc.hands``,
``ppo.iterations``, ``eval.walls``...), ``-1`` for the ``num_workers`` keys (one worker per
CPU). Constructing a dataclass directly does not check them."""


def _resolve_type(cls: type, f: dataclasses.Field) -> Any:
    hints = typing.get_type_hints(cls)
    return hints[f.name]


def _coerce(value: Any, tp: Any, where: str) -> Any:
    """Check/convert one YAML value against a field type; raise naming ``where``."""
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected a mapping, got {type(value).__name__}")
        return from_dict(tp, value, where=where)
    if tp is bool:
        if not isinstance(value, bool):
            raise TypeError(f"{where}: expected a bool, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{where}: expected an int, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads 1e-4 (no dot) as a string
            try:
                return float(value)
            except ValueError:
                raise TypeError(f"{where}: expected a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise TypeError(f"{where}: expected a string, got {value!r}")
        return value
    if tp is tuple:
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise TypeError(f"{where}: expected a list, got {value!r}")
        return tuple(value)
    if tp is dict:
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected a mapping, got {value!r}")
        return dict(value)
    if isinstance(tp, types.UnionType):  # pragma: no cover - not used by the configs
        return value
    raise TypeError(f"{where}: unsupported field type {tp!r}")


def from_dict(cls: type, data: dict | None, *, where: str = "") -> Any:
    """Build the frozen dataclass ``cls`` from a (YAML) mapping, recursively.

    Args:
        cls: a config dataclass (e.g. :class:`RunConfig`).
        data: mapping of field name to value; missing fields keep their defaults.
        where: dotted prefix used in error messages.

    Raises:
        ValueError: a key is not a field of ``cls`` (the message lists the valid keys), or a
            number is outside its range (:data:`RANGES`; the message names the key).
        TypeError: a value has the wrong type.
    """
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise TypeError(f"{where or cls.__name__}: expected a mapping, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(
            f"unknown key(s) {unknown} in section '{where or 'top level'}' "
            f"({cls.__name__}); valid keys: {sorted(fields)}"
        )
    kwargs = {}
    for name, value in data.items():
        key = f"{where}.{name}" if where else name
        kwargs[name] = _coerce(value, _resolve_type(cls, fields[name]), key)
        allowed = RANGES.get(key)
        if allowed is not None and kwargs[name] not in allowed:
            raise ValueError(f"config {key}: must be {allowed}, got {value!r}")
    return cls(**kwargs)


def to_dict(cfg: Any) -> dict:
    """The config as plain YAML/JSON-serialisable data (tuples become lists)."""
    out = {}
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if dataclasses.is_dataclass(value):
            value = to_dict(value)
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        out[f.name] = value
    return out


def _parse_value(raw: str) -> Any:
    """YAML-parse an override value; ``1e-4`` (a string in YAML 1.1) becomes a float."""
    value = yaml.safe_load(raw)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def apply_overrides(data: dict, overrides: list[str] | tuple[str, ...]) -> dict:
    """Apply ``key.sub=value`` overrides (values parsed as YAML) to a nested mapping.

    Raises:
        ValueError: an override has no ``=``.
    """
    data = dict(data)
    for item in overrides:
        if "=" not in item:
            raise ValueError(f"override {item!r} must look like section.key=value")
        path, raw = item.split("=", 1)
        keys = path.strip().split(".")
        node = data
        for k in keys[:-1]:
            child = node.get(k)
            child = dict(child) if isinstance(child, dict) else {}
            node[k] = child
            node = child
        node[keys[-1]] = _parse_value(raw)
    return data


def load_config(path: str | Path | None, overrides: list[str] | tuple[str, ...] = ()) -> RunConfig:
    """Load a :class:`RunConfig` from a YAML file (``None`` = all defaults) plus overrides.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError / TypeError: unknown keys, wrong value types or values out of range (see
            :func:`from_dict`).
    """
    data: dict = {}
    if path is not None:
        text = Path(path).read_text()
        loaded = yaml.safe_load(text)
        if loaded is not None and not isinstance(loaded, dict):
            raise TypeError(f"{path}: the top level must be a mapping")
        data = loaded or {}
    data = apply_overrides(data, overrides)
    return from_dict(RunConfig, data)

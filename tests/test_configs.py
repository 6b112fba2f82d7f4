from pathlib import Path

import pytest

from baselines.config import (
    RANGES,
    BCConfig,
    RunConfig,
    apply_overrides,
    from_dict,
    load_config,
    to_dict,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["default.yaml", "smoke.yaml", "eval.yaml"])
def test_shipped_configs_load(name):
    cfg = load_config(ROOT / "configs" / name)
    assert isinstance(cfg, RunConfig)
    assert from_dict(RunConfig, to_dict(cfg)) == cfg


def test_default_yaml_values():
    cfg = load_config(ROOT / "configs" / "default.yaml")
    assert cfg.name == "default"
    assert cfg.env.encoder == "planes-v0+look-v0" and cfg.bc.teacher == "rule-lookahead"
    assert cfg.device == "auto" and cfg.torch_threads == 1
    assert cfg.eval.opponents == ("random", "rule")
    assert cfg.eval.permutations == "rotations"


def test_unknown_top_level_key_lists_valid_keys():
    with pytest.raises(ValueError) as e:
        from_dict(RunConfig, {"nmae": "x"})
    msg = str(e.value)
    assert "nmae" in msg
    for key in ("name", "seed", "bc", "ppo", "eval", "env", "network"):
        assert key in msg


def test_unknown_nested_key_names_section():
    with pytest.raises(ValueError, match=r"ppo.*valid keys.*clip_coef"):
        from_dict(RunConfig, {"ppo": {"clip_coeff": 0.1}})


def test_wrong_types_rejected():
    with pytest.raises(TypeError, match="bc.hands"):
        from_dict(RunConfig, {"bc": {"hands": "many"}})
    with pytest.raises(TypeError, match="ppo.anneal_lr"):
        from_dict(RunConfig, {"ppo": {"anneal_lr": 1}})
    with pytest.raises(TypeError, match="bc"):
        from_dict(RunConfig, {"bc": 3})


def test_int_accepted_for_float_and_configs_are_frozen():
    cfg = from_dict(BCConfig, {"lr": 1})
    assert cfg.lr == 1.0 and isinstance(cfg.lr, float)
    with pytest.raises(AttributeError):
        cfg.lr = 2.0  # type: ignore[misc]


def test_overrides(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: x\nppo:\n  iterations: 7\n")
    cfg = load_config(path, ["ppo.iterations=2", "bc.lr=1e-4", "eval.opponents=[rule]"])
    assert cfg.ppo.iterations == 2
    assert cfg.bc.lr == pytest.approx(1e-4)
    assert cfg.eval.opponents == ("rule",)
    assert cfg.name == "x"
    with pytest.raises(ValueError, match="section.key=value"):
        apply_overrides({}, ["ppo.iterations"])
    with pytest.raises(ValueError, match="valid keys"):
        load_config(path, ["ppo.iters=3"])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ppo.iterations=-1", "config ppo.iterations: must be >= 0, got -1"),
        ("ppo.num_envs=0", "config ppo.num_envs: must be >= 1, got 0"),
        ("ppo.lr=-1e-4", "config ppo.lr: must be >= 0, got -0.0001"),
        ("bc.lr=-1e-3", "config bc.lr: must be > 0, got -0.001"),
        ("ppo.lr=nan", "config ppo.lr: must be >= 0, got nan"),
        ("bc.lr=0", "config bc.lr: must be > 0, got 0"),
        ("ppo.gamma=1.5", "config ppo.gamma: must be in [0, 1], got 1.5"),
        ("bc.val_fraction=1", "config bc.val_fraction: must be in [0, 1), got 1"),
        ("rpi.top_k=1", "config rpi.top_k: must be >= 2, got 1"),
        ("eval.num_workers=-2", "config eval.num_workers: must be >= -1, got -2"),
        ("eval.walls=-5", "config eval.walls: must be >= 0, got -5"),
        ("torch_threads=0", "config torch_threads: must be >= 1, got 0"),
        ("network.channels=0", "config network.channels: must be >= 1, got 0"),
    ],
)
def test_out_of_range_values_name_the_key_and_the_value(override, message):
    """Reproducer: ``ppo.iterations=-1`` (and every other range) was accepted by the loader."""
    with pytest.raises(ValueError) as e:
        load_config(ROOT / "configs" / "smoke.yaml", [override])
    assert str(e.value) == message


def test_range_boundaries_are_accepted():
    cfg = load_config(
        None,
        ["ppo.iterations=0", "eval.num_workers=-1", "ppo.num_workers=-1", "ppo.gamma=1"]
        + ["bc.val_fraction=0", "bc.hands=0", "rpi.top_k=2", "network.blocks=0", "seed=0"]
        + ["ppo.lr=0"],  # no policy update: the zero-gain diagnostic of scripts/ppo_curve.py
    )
    assert cfg.ppo.lr == 0.0
    assert (cfg.ppo.iterations, cfg.eval.num_workers, cfg.ppo.num_workers) == (0, -1, -1)
    assert (cfg.ppo.gamma, cfg.bc.val_fraction, cfg.rpi.top_k) == (1.0, 0.0, 2)


def test_every_range_names_a_numeric_field_and_holds_its_default():
    """The table cannot name a key that does not exist (a typo would check nothing), and the
    defaults are in range."""
    default = RunConfig()
    for key, allowed in RANGES.items():
        node = default
        for part in key.split("."):
            node = getattr(node, part)
        assert type(node) in (int, float), key
        assert node in allowed, (key, node)

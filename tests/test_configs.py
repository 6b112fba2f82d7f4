from pathlib import Path

import pytest

from baselines.config import (
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

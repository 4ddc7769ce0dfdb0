"""Policy specs live in the env package; ``training.specs`` re-exports them for the command lines."""

from __future__ import annotations

import training.specs
from nothanks_env import specs


def test_training_specs_reexports_the_env_packages_parser():
    assert training.specs.load_policy is specs.load_policy
    assert training.specs.list_baselines() == specs.list_baselines()
    assert training.specs.spec_param("utility:extort_buffer=4") == "(utility:extort_buffer=4)"


def test_nested_specs_still_load_through_training_specs():
    spec = "search:rollout=ppo-3p,model=(utility:extort_buffer=4)"
    pol = training.specs.load_policy(spec, num_players=3)
    assert pol.name == spec
    assert pol.rollout.name == "ppo-3p" and pol.model.name == "utility:extort_buffer=4"


def test_a_parameter_given_twice_is_refused_not_overwritten():
    # The last value used to win silently: threshold:T=2,T=3 built threshold:T=3.
    import pytest

    for spec, key in [
        ("threshold:T=2,T=3", "T"),
        ("search:rollout=ppo-3p,iters=4,rollout=heuristic", "rollout"),
        ("search:model=(threshold:T=1,T=1)", "T"),  # inside a nested spec too
    ]:
        with pytest.raises(ValueError, match=rf"expected each parameter once, got '{key}' twice"):
            specs.load_policy(spec, num_players=3)
    assert specs.load_policy("threshold:T=2", num_players=3).name == "threshold:T=2"


def test_a_shipped_name_with_an_empty_parameter_list_is_the_name():
    # "heuristic:" has always meant heuristic; "best-3p:" said it took no parameters and got ''.
    assert specs.load_policy("best-3p:", num_players=3).name == "best-3p"
    assert specs.load_policy("ppo-3p:", num_players=3).name == "ppo-3p"
    assert specs.load_policy("heuristic:", num_players=3).name == "heuristic"

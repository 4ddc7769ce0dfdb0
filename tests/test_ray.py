"""Ray: the masking RLModule, tiny RLlib runs end to end (with and without behaviour inputs), --ray equal to
the local path, a 2-trial sweep.

These tests need the ``ray`` extra and share one embedded Ray (1 CPU). Run them alone with
``pytest -m ray``; ``.ci/run`` keeps them on one xdist worker (``xdist_group``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the ray extra: pip install -e '.[ray]'")

import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: E402
from ray.rllib.models.torch.torch_distributions import TorchCategorical  # noqa: E402
from safetensors.torch import load_file  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from nothanks_env import encoding as enc  # noqa: E402
from nothanks_env import nothanks_v0  # noqa: E402
from nothanks_env.baselines import RandomPolicy, ThresholdPolicy  # noqa: E402
from training import evaluate as ev  # noqa: E402
from training import rllib_selfplay as rs  # noqa: E402
from training import sweep as sw  # noqa: E402
from training import tournament as tm  # noqa: E402
from training.checkpoints import MLPPolicy, load_checkpoint_policy  # noqa: E402
from training.config import CONFIG_DIR, GameSection  # noqa: E402
from training.rllib_module import MaskedActorCritic, actor_weights  # noqa: E402
from training.specs import load_policy  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]

RLLIB_SMOKE = str(CONFIG_DIR / "rllib_smoke.yaml")


@pytest.fixture(scope="module")
def ray_local():
    """One embedded Ray with one CPU for the whole module (as ``--ray`` without an address starts it)."""
    import os

    import ray

    from training.ray_backend import connect

    # A Ray worker that takes longer than this to start is killed (default 60 s); on a loaded CI machine,
    # under nice, starting a Python worker can take that long.
    os.environ.setdefault("RAY_worker_register_timeout_seconds", "600")
    connect("local", num_cpus=1)
    yield ray
    ray.shutdown()


# ----------------------------------------------------------------------------- the masking module
def _module(net_arch=(8,), behaviour: bool = False, configured: bool | None = None) -> MaskedActorCritic:
    """A module on the spaces of a 3-player ``nothanks_v0`` with ``behaviour`` (the env's option);
    ``configured``, if given, is the module's own ``behaviour`` (``model_config``)."""
    env = nothanks_v0.env(num_players=3, behaviour=behaviour)
    model = {"net_arch": list(net_arch), "activation": "relu"}
    if configured is not None:
        model["behaviour"] = configured
    space, actions = env.observation_space("player_0"), env.action_space("player_0")
    return MaskedActorCritic(observation_space=space, action_space=actions, model_config=model)


def _game_observations(behaviour: bool, seed: int = 3) -> tuple[np.ndarray, np.ndarray, list]:
    """Every decision of one random 3-player game of ``nothanks_v0``: observations, masks and seat views."""
    policy = load_policy("random")
    env = nothanks_v0.env(num_players=3, chip_memory=True, behaviour=behaviour)
    env.reset(seed=seed)
    obs, masks, views = [], [], []
    for agent in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        views.append(env.unwrapped.game.seat_view(int(agent.rsplit("_", 1)[1])))
        env.step(int(policy.rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.stack(obs), np.stack(masks), views


@pytest.mark.parametrize("preferred", [0, 1])
def test_masking_module_never_emits_an_illegal_action_even_when_rigged(preferred):
    module = _module()
    with torch.no_grad():  # rig the actor: the preferred action's logit is 1e30 whatever the observation
        last = module.pi[-1]
        last.weight.zero_()
        last.bias.copy_(torch.tensor([0.0, 0.0]))
        last.bias[preferred] = 1e30
    b = 500
    obs = torch.rand(b, enc.OBS_SIZE)
    mask = torch.ones(b, 2, dtype=torch.int8)
    mask[:, preferred] = 0  # the preferred action is illegal in every row
    batch = {Columns.OBS: {"observation": obs, "action_mask": mask}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        dist = TorchCategorical.from_logits(logits)
        torch.manual_seed(0)
        sampled = dist.sample()
        assert sampled.shape == (b,) and (sampled == 1 - preferred).all()
        assert (dist.to_deterministic().sample() == 1 - preferred).all()
        probs = torch.softmax(logits, dim=-1)
        assert torch.equal(probs[:, preferred], torch.zeros(b)) and torch.isfinite(logits).all()
    # both legal: the rigged preference shows; a row with no legal action stays finite (uniform)
    both = {Columns.OBS: {"observation": obs[:2], "action_mask": torch.tensor([[1, 1], [0, 0]], dtype=torch.int8)}}
    logits = module.forward_inference(both)[Columns.ACTION_DIST_INPUTS]
    assert int(logits[0].argmax()) == preferred
    assert torch.allclose(torch.softmax(logits[1], -1), torch.tensor([0.5, 0.5]))
    assert module.compute_values(both).shape == (2,)


@pytest.mark.parametrize("behaviour", [False, True])
def test_exported_actor_plays_as_the_module(behaviour):
    module = _module(net_arch=(16, 16), behaviour=behaviour)
    obs, masks, _ = _game_observations(behaviour)  # a real game's observations and masks
    obs_t, mask_t = torch.as_tensor(obs), torch.as_tensor(masks)
    exported = MLPPolicy(actor_weights(module), activation="relu", chip_memory=True, behaviour=behaviour)
    want = module.forward_inference({Columns.OBS: {"observation": obs_t, "action_mask": mask_t}})
    want_actions = want[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()
    assert np.array_equal(exported.act_observation(obs, masks), want_actions)
    np.testing.assert_allclose(exported.logits(obs), module.pi(obs_t).detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize(("behaviour", "inputs"), [(False, 389), (True, 445)])
def test_module_takes_its_input_size_from_the_observation_space(behaviour, inputs):
    for module in (_module((16,), behaviour), _module((16,), behaviour, configured=behaviour)):
        assert module.obs_size == inputs == enc.OBS_SIZE + behaviour * enc.BEHAVIOUR_SIZE
        assert module.pi[0].in_features == module.vf[0].in_features == inputs
        assert (module.pi[-1].out_features, module.vf[-1].out_features) == (2, 1)
        assert tuple(actor_weights(module)["layers.0.weight"].shape) == (16, inputs)


def test_module_refuses_spaces_that_do_not_match_its_config():
    with pytest.raises(ValueError, match=r"expected \(445,\) with behaviour on \(env.behaviour\), got \(389,\)"):
        _module(behaviour=False, configured=True)
    with pytest.raises(ValueError, match=r"expected \(389,\) with behaviour off \(env.behaviour\), got \(445,\)"):
        _module(behaviour=True, configured=False)
    odd = spaces.Dict(
        {"observation": spaces.Box(0.0, 1.0, (100,)), "action_mask": spaces.Box(0, 1, (2,), dtype=np.int8)}
    )
    with pytest.raises(ValueError, match=r"expected \(389,\), or \(445,\) with behaviour, got \(100,\)"):
        MaskedActorCritic(observation_space=odd, action_space=spaces.Discrete(2), model_config={"net_arch": [8]})
    wild = nothanks_v0.env(config=GameSection.model_validate({"preset": "wildcards"}).game_config(3))
    with pytest.raises(ValueError, match=r"action space: expected Discrete\(2\) .*got Discrete\(125\)"):
        MaskedActorCritic(
            observation_space=wild.observation_space("player_0"),
            action_space=wild.action_space("player_0"),
            model_config={"net_arch": [8]},
        )


# ----------------------------------------------------------------------------- --ray equals the local path
def test_evaluate_on_ray_equals_local_for_the_same_seed(ray_local, monkeypatch):
    monkeypatch.setattr(ev, "CHUNK_DEALS", 20)  # 60 deals -> 3 chunks, 3 Ray tasks
    kw = dict(num_players=3, games=180, seed=7)
    local = ev.evaluate([RandomPolicy()], [ThresholdPolicy()], **kw)
    on_ray = ev.evaluate([RandomPolicy()], [ThresholdPolicy()], ray="local", **kw)
    assert on_ray.policies == local.policies
    assert on_ray["random"].games == 180 and on_ray["threshold"].games == 360
    other = ev.evaluate([RandomPolicy()], [ThresholdPolicy()], num_players=3, games=180, seed=8, ray="local")
    assert other.policies != local.policies  # the seed matters on Ray too


def test_evaluate_cli_with_ray_writes_the_local_report(ray_local, tmp_path):
    argv = ["--policy", "stochastic", "--opponents", "heuristic", "random", "--games", "600", "--seed", "3"]
    ev.main([*argv, "--no-progress", "--json", str(tmp_path / "local.json")])
    ev.main([*argv, "--no-progress", "--json", str(tmp_path / "ray.json"), "--ray"])
    local, on_ray = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("local", "ray"))
    for d in (local, on_ray):
        d.pop("seconds"), d.pop("games_per_second")
    assert on_ray == local and local["games"] == 600


def test_tournament_on_ray_equals_local(ray_local):
    pool = [RandomPolicy(), ThresholdPolicy(), load_policy("heuristic")]
    local = tm.tournament(pool, num_players=3, games=300, seed=1)
    on_ray = tm.tournament(pool, num_players=3, games=300, seed=1, ray="local")
    assert [(r.stats, r.rating) for r in on_ray.rows] == [(r.stats, r.rating) for r in local.rows]


def test_bad_ray_address_is_one_error_line(capsys):
    with pytest.raises(SystemExit) as e:
        ev.main(["--policy", "random", "--opponents", "random", "--games", "3", "--ray", ""])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "error: argument --ray: expected 'local', 'auto', HOST:PORT or ray://HOST:PORT (PORT a number 1..65535), got "
        "'' (an empty address)\n"
    )


# ----------------------------------------------------------------------------- RLlib self-play
def scalars(run: Path, tag: str) -> list[tuple[int, float]]:
    ea = EventAccumulator(str(run))
    ea.Reload()
    return [(e.step, e.value) for e in ea.Scalars(tag)] if tag in ea.Tags()["scalars"] else []


@pytest.fixture(scope="module")
def rllib_run(ray_local, tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("rllib-runs")
    assert rs.main([RLLIB_SMOKE, "--set", f"run.runs_dir={runs}"]) == 0
    (run,) = list(runs.iterdir())
    return run


def test_tiny_rllib_run_trains_checkpoints_and_exports(rllib_run):
    run = rllib_run
    assert run.name.startswith("rllib-smoke__0__")
    state_dirs = sorted((run / "rllib").glob("step_*"))
    assert 1 <= len(state_dirs) <= 2  # keep_checkpoints: 2
    state = json.loads((state_dirs[-1] / rs.STATE_FILE).read_text())
    assert state["env_steps"] >= 512 and state["iteration"] >= 2  # 256 env steps per iteration
    # Learner steps are the trained seats' agent steps; RLlib also counts each seat's last observation of a game
    # (README, "benchmark rllib"), so they may pass the env steps by at most one per seat (3) per game. A game has
    # at least 24 decisions, and each iteration may leave one game cut off in each of the 2 envs.
    games = state["env_steps"] // 24 + 2 * state["iteration"]
    assert 0 < state["learner_steps"] <= state["env_steps"] + 3 * games
    final = run / "checkpoints" / "final"
    meta = json.loads((final / "metadata.json").read_text())
    assert meta["kind"] == "nothanks-rllib-ppo" and meta["num_players"] == [3] and meta["net_arch"] == [32, 32]
    assert meta["behaviour"] is False and meta["obs_size"] == enc.OBS_SIZE == 389
    assert set(meta["eval"]) == {"heuristic", "random"} and meta["eval"]["random"]["games"] == 60
    assert (run / "checkpoints" / "best" / "policy.safetensors").is_file()
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [e["env_steps"] for e in evals][0] == 0 and len(evals) >= 2
    steps_per_s = scalars(run, "charts/env_steps_per_s")
    assert len(steps_per_s) == state["iteration"] and all(v > 0 for _, v in steps_per_s)
    assert scalars(run, "charts/return_mean/learner") and scalars(run, "eval/heuristic/win_rate")
    # the snapshot slots hold copies of the learner (the callback), so they differ from a fresh init
    assert scalars(run, "pool/snapshot_taken")


def test_the_export_evaluates_with_training_evaluate(rllib_run, tmp_path, capsys, monkeypatch):
    final = run_final = rllib_run / "checkpoints" / "final"
    report = ev.main(["--policy", str(final), "--opponents", "heuristic", "--games", "30", "--no-progress"])
    assert report.games == 30 and report[final.name].games == 30
    assert 0.0 <= report[final.name].win_rate <= 1.0
    # --export of the newest RLlib checkpoint writes the same weights as the run's final export; the run is
    # named relative to the working folder, as the README does (RLlib reads a relative path as a URI)
    monkeypatch.chdir(rllib_run.parent)
    assert rs.main(["--export", rllib_run.name, "--out", str(tmp_path / "agent")]) == 0
    a, b = load_file(str(tmp_path / "agent" / "policy.safetensors")), load_file(str(run_final / "policy.safetensors"))
    assert sorted(a) == sorted(b) == [f"layers.{i}.{k}" for i in range(3) for k in ("bias", "weight")]
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert load_policy(str(tmp_path / "agent"), num_players=3).chip_memory is True


def test_rllib_resume_continues_the_step_count(rllib_run, monkeypatch):
    before = json.loads((sorted((rllib_run / "rllib").glob("step_*"))[-1] / rs.STATE_FILE).read_text())
    monkeypatch.chdir(rllib_run.parent)  # --resume runs/<run>, relative, as the README has it
    assert rs.main(["--resume", rllib_run.name, "--set", "run.total_env_steps=1024"]) == 0
    after = json.loads((sorted((rllib_run / "rllib").glob("step_*"))[-1] / rs.STATE_FILE).read_text())
    assert after["env_steps"] >= 1024 > before["env_steps"]
    assert after["iteration"] > before["iteration"] and len(after["evals"]) > len(before["evals"])


@pytest.fixture(scope="module")
def rllib_behaviour_run(ray_local, tmp_path_factory) -> Path:
    """A one-iteration smoke run with ``env.behaviour=true``."""
    runs = tmp_path_factory.mktemp("rllib-behaviour-runs")
    argv = [RLLIB_SMOKE, "--set", f"run.runs_dir={runs}", "--set", "run.total_env_steps=256"]
    assert rs.main([*argv, "--set", "env.behaviour=true"]) == 0
    (run,) = list(runs.iterdir())
    return run


def test_rllib_run_with_behaviour_exports_a_policy_with_the_modules_logits(rllib_behaviour_run, tmp_path):
    run = rllib_behaviour_run
    final = run / "checkpoints" / "final"
    meta = json.loads((final / "metadata.json").read_text())
    assert meta["behaviour"] is True and meta["config"]["env"]["behaviour"] is True
    assert meta["obs_size"] == enc.OBS_SIZE + enc.BEHAVIOUR_SIZE == 445
    behaviour_pieces = [[p.name, p.size] for p in enc.BEHAVIOUR_LAYOUT]
    assert meta["observation_layout"][-len(behaviour_pieces) :] == behaviour_pieces
    assert set(meta["eval"]) == {"heuristic", "random"} and meta["eval"]["random"]["games"] == 60
    policy = load_checkpoint_policy(final)
    assert policy.behaviour is True and policy.chip_memory is True and policy.linears[0].in_features == 445
    # RLlib's own learner module, from the RLlib checkpoint saved at the same step as the final export
    src = rs.latest_rllib_checkpoint(run)
    module = RLModule.from_checkpoint(src / "learner_group" / "learner" / "rl_module" / "learner")
    assert module.pi[0].in_features == module.vf[0].in_features == 445
    obs, masks, views = _game_observations(behaviour=True)
    assert obs.shape == (len(obs), 445) and obs[:, enc.OBS_SIZE :].any()  # the behaviour inputs are in play
    obs_t = torch.as_tensor(obs)
    with torch.no_grad():
        raw = module.pi(obs_t).numpy()
        masked = module.forward_inference({Columns.OBS: {"observation": obs_t, "action_mask": torch.as_tensor(masks)}})
    np.testing.assert_allclose(policy.logits(obs), raw, rtol=1e-5, atol=1e-6)
    assert np.abs(raw[:, 0] - raw[:, 1]).max() > 0  # a trained network, not a constant
    want = masked[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()
    assert np.array_equal(policy.act_observation(obs, masks), want)
    # at a table the policy encodes each seat view itself (as evaluation does) and agrees with the module
    probs = np.stack([policy.action_probabilities(v) for v in views])
    want_probs = torch.softmax(masked[Columns.ACTION_DIST_INPUTS].double(), -1).numpy()
    np.testing.assert_allclose(probs, want_probs, rtol=1e-5, atol=1e-6)
    # loads wherever a policy spec is accepted, and evaluates
    assert load_policy(str(final), num_players=3).behaviour is True
    report = ev.main(["--policy", str(final), "--opponents", "heuristic", "--games", "30", "--no-progress"])
    assert report.games == 30 and report[final.name].games == 30
    # --export writes the same weights and metadata that says behaviour
    assert rs.main(["--export", str(run), "--out", str(tmp_path / "agent")]) == 0
    a, b = load_file(str(tmp_path / "agent" / "policy.safetensors")), load_file(str(final / "policy.safetensors"))
    assert a["layers.0.weight"].shape == (32, 445) and all(torch.equal(a[k], b[k]) for k in b)
    assert load_checkpoint_policy(tmp_path / "agent").behaviour is True


def test_rllib_export_refuses_a_module_that_does_not_match_its_config(rllib_behaviour_run, tmp_path, capsys):
    src = tmp_path / "step_x"
    shutil.copytree(rs.latest_rllib_checkpoint(rllib_behaviour_run), src)
    state = json.loads((src / rs.STATE_FILE).read_text())
    state["config"]["env"]["behaviour"] = False  # the module has 445 inputs
    (src / rs.STATE_FILE).write_text(json.dumps(state))
    assert rs.main(["--export", str(src), "--out", str(tmp_path / "agent")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: RLlib checkpoint ") and err.count("\n") == 1
    assert "expected an actor with 389 inputs (its config has env.behaviour false), got 445" in err
    assert not (tmp_path / "agent").exists()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("env.behaviour", "true", "--resume: env.behaviour: expected the run's False"),
        ("ppo.net_arch", "[64]", "--resume: ppo.net_arch: expected the run's [32, 32]"),
    ],
)
def test_rllib_resume_refuses_a_changed_network(rllib_run, key, value, message, capsys):
    assert rs.main(["--resume", str(rllib_run), "--set", f"{key}={value}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err
    assert "behaviour: false" in (rllib_run / "config.yaml").read_text()  # the run folder is left as it was


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([RLLIB_SMOKE, "--set", "game.num_players=[3,4]"], "game.num_players: expected one player count, got [3, 4]"),
        ([RLLIB_SMOKE, "--set", "game.preset=wildcards"], "the RLlib path plays pass/take only"),
        ([RLLIB_SMOKE, "--set", "env.behaviour=maybe"], "env.behaviour: expected true or false, got 'maybe'"),
        ([RLLIB_SMOKE, "--set", "ppo.minibatch_size=99999"], "expected <= train_batch_size 256"),
        ([RLLIB_SMOKE, "--set", "pool.snapshotz=2"], "pool.snapshotz: unknown key"),
        (["--export", "nowhere"], "--export: expected --out DIR"),
        (["--resume", "nowhere"], "--resume nowhere: expected a run folder with config.yaml"),
        (["--resume", ""], "--resume: expected a run folder, got ''"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_rllib_bad_input_is_an_error_and_exit_2(argv, message, capsys):
    assert rs.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err


# ----------------------------------------------------------------------------- Ray Tune sweep
def test_two_trial_sweep_completes_and_ranks(ray_local, tmp_path, capsys):
    sweep_file = tmp_path / "sweep.yaml"
    sweep_file.write_text(
        f"name: tiny\nbase: {CONFIG_DIR / 'smoke.yaml'}\nset: [run.total_timesteps=2048, eval.final_games=60]\n"
        f"space:\n  ppo.learning_rate: {{grid: [1.0e-4, 3.0e-4]}}\nstorage: {tmp_path / 'sweeps'}\n"
    )
    assert sw.main([str(sweep_file)]) == 0
    (folder,) = list((tmp_path / "sweeps").iterdir())
    assert folder.name.startswith("tiny__")
    rows = (folder / "ranking.md").read_text().splitlines()[2:]
    assert len(rows) == 2 and {r.split("|")[2].strip() for r in rows} == {"0.0001", "0.0003"}
    scores = [float(r.split("|")[3]) for r in rows]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
    for r in rows:  # every trial is an ordinary self-play run folder, resumable with training.selfplay --resume
        run = Path(r.split("|")[4].strip())
        assert (run / "config.yaml").is_file() and (run / "checkpoints" / "final" / "policy.safetensors").is_file()
        lr = float(r.split("|")[2])
        assert f"learning_rate: {lr}" in (run / "config.yaml").read_text()


def test_sweep_bad_space_key_is_one_error_line(tmp_path, capsys):
    sweep_file = tmp_path / "sweep.yaml"
    sweep_file.write_text(f"base: {CONFIG_DIR / 'smoke.yaml'}\nspace:\n  ppo.learnin_rate: {{grid: [1.0e-4]}}\n")
    assert sw.main([str(sweep_file)]) == 2
    err = capsys.readouterr().err
    assert err.startswith('error: space."ppo.learnin_rate": invalid config') and "unknown key" in err


def test_sweep_checks_every_grid_and_choice_value_before_ray_starts(tmp_path, capsys):
    # Only the first value used to be checked: a bad later value failed inside a Ray trial.
    sweep_file = tmp_path / "sweep.yaml"
    for space, needle in [
        ("eval.opponents: {grid: [[heuristic], [nosuchbot]]}", "eval.opponents: policy spec 'nosuchbot'"),
        ("pool.scripted: {choice: [{heuristic: 1}, {'training.evaluation.heldout:Hoarder': 1}]}", "held-out"),
        ("ppo.learning_rate: {grid: [1.0e-4, -1.0]}", "ppo.learning_rate"),
    ]:
        sweep_file.write_text(f"base: {CONFIG_DIR / 'smoke.yaml'}\nset: [eval.best_metric=min]\nspace:\n  {space}\n")
        assert sw.main([str(sweep_file)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: space.") and needle in err and err.count("\n") == 1, err

"""Checkpoints: the saved policy acts exactly as the trained one; atomic writes; clear errors on bad files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
import torch

from nothanks_env import encoding as enc
from nothanks_env.game import GameConfig
from nothanks_env.vector import VectorGame
from training import checkpoints as ckpt
from training.checkpoints import CheckpointError, MLPPolicy, load_checkpoint_policy, save_checkpoint


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def small_model(chip_memory: bool = True):
    from sb3_contrib import MaskablePPO

    from nothanks_env.baselines import RandomPolicy
    from training.pool import OpponentPool
    from training.vec_env import SelfPlayVecEnv

    pool = OpponentPool({"random": (1.0, {0: RandomPolicy(seed=0)})}, seed=0)
    env = SelfPlayVecEnv([GameConfig(num_players=3)], 4, pool, chip_memory=chip_memory, seed=0)
    kwargs = {"net_arch": {"pi": [32, 16], "vf": [8]}, "activation_fn": torch.nn.Tanh}
    return MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, policy_kwargs=kwargs, seed=0, device="cpu")


def views(n: int = 64, seed: int = 0, num_players: int = 4):
    """Batch views from the middle of random games (some at 0 chips, so masks matter)."""
    vg = VectorGame(GameConfig(num_players=num_players), n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(rng.integers(20, 60)):
        vg.step(np.where((vg.action_mask()[:, 0] == 1) & (rng.random(n) < 0.8), 0, 1))
        vg.reset_games(vg.done)
    return vg.view()


@pytest.mark.parametrize("chip_memory", [True, False])
def test_checkpoint_policy_acts_as_the_trained_sb3_policy(tmp_path, chip_memory):
    model = small_model(chip_memory)
    meta = {"activation": "tanh", "chip_memory": chip_memory, "timesteps": 0}
    path = save_checkpoint(tmp_path / "c", ckpt.actor_weights(model.policy), meta)
    policy = load_checkpoint_policy(path)
    assert policy.chip_memory is chip_memory and policy.name == "c"
    view = views()
    obs, mask = enc.encode_batch(view, chip_memory), view.action_mask().astype(bool)
    expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
    np.testing.assert_array_equal(policy.act_batch(view), expected)
    assert (policy.act_batch(view)[mask[:, 0] == 0] == 1).all()  # never PASS at 0 chips
    # Sampling follows the masked distribution of the SB3 policy.
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.from_numpy(obs), action_masks=mask)
        p_take = dist.distribution.probs[:, 1].numpy()
    sampler = load_checkpoint_policy(path, deterministic=False, seed=0)
    takes = np.mean([sampler.act_batch(view) for _ in range(400)], axis=0)
    np.testing.assert_allclose(takes, p_take, atol=0.1)


def test_metadata_describes_the_checkpoint(tmp_path):
    w = MLPPolicy(ckpt.actor_weights(small_model().policy), activation="tanh").weights()
    path = save_checkpoint(tmp_path / "c", w, {"activation": "tanh", "chip_memory": True, "config": {"a": 1}})
    meta = json.loads((path / ckpt.METADATA_FILE).read_text())
    assert meta["observation_layout"][0] == ["face_up_card", 33] and meta["obs_size"] == 389
    assert {"torch", "numpy", "nothanks", "stable_baselines3", "sb3_contrib"} <= set(meta["package_versions"])
    assert set(meta["files"]) == {ckpt.WEIGHTS_FILE} and meta["config"] == {"a": 1}
    assert not list(tmp_path.glob(".*"))  # no temporary directory left behind


def test_save_refuses_to_overwrite_and_swaps_atomically_when_asked(tmp_path):
    w = ckpt.actor_weights(small_model().policy)
    meta = {"activation": "tanh", "chip_memory": True}
    first = save_checkpoint(tmp_path / "c", w, meta | {"n": 1})
    before = {p.name: p.read_bytes() for p in first.iterdir()}
    with pytest.raises(FileExistsError, match="refusing to overwrite"):
        save_checkpoint(tmp_path / "c", w, meta | {"n": 2})
    assert {p.name: p.read_bytes() for p in first.iterdir()} == before
    save_checkpoint(tmp_path / "c", w, meta | {"n": 3}, overwrite=True)
    assert ckpt.read_metadata(tmp_path / "c")["n"] == 3


def test_saved_weights_get_the_umask_mode_like_the_metadata(tmp_path):
    # safetensors alone writes 0600; a checkpoint is shared like any file, so its weights follow the umask
    old = os.umask(0o022)
    try:
        out = save_checkpoint(
            tmp_path / "c", ckpt.actor_weights(small_model().policy), {"activation": "tanh", "chip_memory": True}
        )
    finally:
        os.umask(old)
    assert stat.S_IMODE((out / ckpt.WEIGHTS_FILE).stat().st_mode) == 0o644
    assert stat.S_IMODE((out / ckpt.METADATA_FILE).stat().st_mode) == 0o644


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        load_checkpoint_policy(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="policy.safetensors"):
        load_checkpoint_policy(tmp_path / "empty")


def _copy_of_ppo_3p(folder: Path) -> None:
    import shutil

    folder.mkdir(parents=True)
    for name in (ckpt.WEIGHTS_FILE, ckpt.METADATA_FILE):
        shutil.copy(ckpt.resolve_checkpoint("ppo-3p") / name, folder / name)


def test_a_run_folder_given_as_a_checkpoint_names_the_checkpoint_meant_without_loading_it(tmp_path):
    # It said only "expected file policy.safetensors, which is missing" for the folder training.selfplay wrote.
    run = tmp_path / "run"
    cps = run / "checkpoints"
    missing = f"checkpoint {run}: expected file {ckpt.WEIGHTS_FILE}, which is missing"
    for step in ("step_0000000008", "step_0000000016", "step_0000000128"):  # the latest by number, not by name
        _copy_of_ppo_3p(cps / step)
    (cps / "step_0000000999").mkdir()  # begun, not written: no checkpoint in it
    with pytest.raises(FileNotFoundError) as e:
        load_checkpoint_policy(run)
    assert str(e.value) == (
        f"{missing}; this looks like a run folder with no final checkpoint: did you mean {cps / 'step_0000000128'}?"
    )
    _copy_of_ppo_3p(cps / "best")
    with pytest.raises(FileNotFoundError) as e:
        load_checkpoint_policy(run)
    assert (
        str(e.value)
        == f"{missing}; this looks like a run folder with no final checkpoint: did you mean {cps / 'best'}?"
    )
    _copy_of_ppo_3p(cps / "final")
    with pytest.raises(FileNotFoundError) as e:  # said, not loaded in its place
        load_checkpoint_policy(run)
    assert str(e.value) == f"{missing}; this looks like a run folder: did you mean {cps / 'final'}?"
    with pytest.raises(FileNotFoundError) as e:
        load_checkpoint_policy(cps)
    assert str(e.value) == (
        f"checkpoint {cps}: expected file {ckpt.WEIGHTS_FILE}, which is missing; this looks like a run's "
        f"checkpoints folder: did you mean {cps / 'final'}?"
    )
    assert load_checkpoint_policy(cps / "final").name == "final"
    (tmp_path / "other" / "final").mkdir(parents=True)  # no checkpoint anywhere under it: no hint
    with pytest.raises(FileNotFoundError) as e:
        load_checkpoint_policy(tmp_path / "other")
    assert str(e.value) == f"checkpoint {tmp_path / 'other'}: expected file {ckpt.WEIGHTS_FILE}, which is missing"


@pytest.mark.parametrize(
    "damage", ["flip_weights", "truncate_weights", "bad_json", "other_layout", "edited", "no_digest", "empty_files"]
)
def test_corrupted_checkpoint_is_a_clear_error(tmp_path, damage):
    path = save_checkpoint(
        tmp_path / "c", ckpt.actor_weights(small_model().policy), {"activation": "tanh", "chip_memory": True}
    )
    weights, meta = path / ckpt.WEIGHTS_FILE, path / ckpt.METADATA_FILE
    if damage == "flip_weights":
        data = bytearray(weights.read_bytes())
        data[-5] ^= 0xFF
        weights.write_bytes(bytes(data))
        match = "corrupted"
    elif damage == "truncate_weights":
        weights.write_bytes(weights.read_bytes()[:100])
        match = "corrupted"
    elif damage == "bad_json":
        meta.write_text(meta.read_text()[:40])
        match = "metadata.json is corrupted"
    elif damage == "other_layout":  # a checkpoint of another layout, its metadata consistent in itself
        m = json.loads(meta.read_text())
        m["observation_layout"][0] = ["face_up_card", 34]
        ckpt.write_metadata(path, m)
        match = "observation layout"
    elif damage == "edited":  # a hand edit changes how the weights are read: refused
        m = json.loads(meta.read_text())
        m["chip_memory"] = False
        meta.write_text(json.dumps(m, indent=2))
        match = r"metadata.json was edited or is corrupted \(metadata_sha256 expected [0-9a-f]{12}\.\.\., got"
    elif damage == "no_digest":
        m = json.loads(meta.read_text())
        del m["metadata_sha256"]
        meta.write_text(json.dumps(m))
        match = r"expected keys \['metadata_sha256'\], which are missing"
    else:  # an emptied "files" map would turn every hash check off, even with the digest redone
        m = json.loads(meta.read_text())
        m["files"] = {}
        ckpt.write_metadata(path, m)
        match = "files: expected the SHA-256 of every file, policy.safetensors included, got {}"
    with pytest.raises(CheckpointError, match=match):
        load_checkpoint_policy(path)
    if damage in ("edited", "empty_files"):  # the layout check and the hash checks stay in force
        with pytest.raises(CheckpointError, match=match):
            ckpt.verify_checkpoint(path)


def test_a_train_state_missing_from_the_files_map_is_refused(tmp_path):
    w = ckpt.actor_weights(small_model().policy)
    path = save_checkpoint(tmp_path / "c", w, {"activation": "tanh", "chip_memory": True}, {"step": 1})
    m = json.loads((path / ckpt.METADATA_FILE).read_text())
    del m["files"][ckpt.TRAIN_STATE_FILE]
    ckpt.write_metadata(path, m)
    with pytest.raises(CheckpointError, match=r"files: expected a SHA-256 for \['train_state.pt'\], got none"):
        ckpt.load_train_state(path)


def test_weights_that_do_not_fit_are_rejected():
    with pytest.raises(CheckpointError, match="inputs and 2 outputs"):
        MLPPolicy({"layers.0.weight": torch.zeros(3, 10), "layers.0.bias": torch.zeros(3)})
    with pytest.raises(CheckpointError, match="activation"):
        MLPPolicy({"layers.0.weight": torch.zeros(2, 389), "layers.0.bias": torch.zeros(2)}, activation="gelu")


@pytest.mark.parametrize("name", sorted(ckpt.SHIPPED))
def test_shipped_agents_load_by_short_name(name):
    if not Path(ckpt.SHIPPED[name]).exists():
        pytest.fail(f"shipped checkpoint {name} missing at {ckpt.SHIPPED[name]}")
    from training.specs import load_policy

    policy = load_policy(name)
    meta = ckpt.verify_checkpoint(ckpt.SHIPPED[name])
    assert meta["eval"] and (Path(ckpt.SHIPPED[name]) / "eval.md").is_file()
    counts = meta["num_players"]
    if policy.num_actions != 2:  # a wildcards network: it plays special-card games, one view at a time
        from nothanks_env.game import Game
        from nothanks_env.presets import get_preset

        game, phases = Game(get_preset("wildcards", num_players=counts[0])), set()
        game.reset(seed=0)
        while not game.is_over:
            view = game.seat_view(game.current_seat)
            action = policy.act(view)
            assert action in view.legal_actions
            phases.add(view.phase)
            game.step(action)
        assert "offer" in phases and "auction" in phases
        with pytest.raises(ValueError, match="expected a table with special cards"):
            policy.act_batch(views(8, num_players=counts[0]))
    else:
        actions = policy.act_batch(views(8, num_players=counts[0]))
        assert actions.shape == (8,) and set(actions.tolist()) <= {0, 1}
    assert policy.player_counts == tuple(counts)
    for n in (2 + min(counts), 7):  # a size it was not trained at, checked up front
        if n not in counts:
            with pytest.raises(ValueError, match=rf"expected a policy for {n} players, got one trained for"):
                load_policy(name, num_players=n)


def test_shipped_policy_gives_action_probabilities_consistent_with_its_actions():
    from nothanks_env.game import Game, GameConfig
    from training.checkpoints import load_checkpoint_policy

    agent = load_checkpoint_policy("ppo-3p")
    game = Game(GameConfig(num_players=3, starting_chips=1))
    game.reset(seed=3)
    seen_forced = False
    while not game.is_over:
        view = game.seat_view(game.current_seat)
        p = agent.action_probabilities(view)
        assert p.shape == (2,) and abs(p.sum() - 1.0) < 1e-9 and (p >= 0).all()
        if view.own_chips == 0:
            assert p[0] == 0.0 and p[1] == 1.0  # PASS is illegal at 0 chips: no mass on it
            seen_forced = True
        assert agent.act(view) == int(p.argmax())
        game.step(agent.act(view))
    assert seen_forced


def test_a_checkpoint_refuses_tables_of_other_sizes_in_the_python_api():
    from nothanks_env.game import Game, GameConfig
    from training.evaluate import evaluate

    mixed = load_checkpoint_policy("ppo-mixed")  # trained at 3, 4 and 5 players
    assert mixed.player_counts == (3, 4, 5)
    with pytest.raises(
        ValueError, match=r"'ppo-mixed': expected a policy for 7 players, got one trained for \[3, 4, 5\]"
    ):
        evaluate([mixed], [mixed], num_players=7, games=7, seed=0)
    game = Game(GameConfig(num_players=6))
    game.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected a table of \[3, 4, 5\] players \(what it was trained at\), got 6"):
        mixed.act(game.seat_view(game.current_seat))
    assert evaluate([mixed], [mixed], num_players=4, games=8, seed=0).games == 8


def test_nan_logits_fail_clearly_and_sampling_stays_legal():
    w = ckpt.actor_weights(small_model().policy)
    with pytest.raises(CheckpointError, match=r"expected finite numbers, got NaN or inf in \['layers.0.bias'\]"):
        MLPPolicy({**w, "layers.0.bias": torch.full_like(w["layers.0.bias"], float("nan"))})
    v = views(64)
    mask = v.action_mask()
    obs = enc.encode_batch(v, True)
    sampler = MLPPolicy(w, activation="tanh", deterministic=False, seed=0)
    sampler.net[0].bias.data[:] = float("nan")  # weights gone bad after loading (e.g. a diverged update)
    with pytest.raises(ValueError, match=r"expected finite logits, got NaN or inf for 64 of 64 observations"):
        sampler.act_observation(obs, mask)
    # With finite logits that favour PASS, a seat without chips still takes: only legal actions are drawn.
    favour_pass = MLPPolicy(w, activation="tanh", deterministic=False, seed=0)
    favour_pass.net[-1].bias.data[:] = torch.tensor([50.0, -50.0])
    forced = np.zeros_like(mask)
    forced[:, 1] = 1
    for _ in range(20):
        assert (favour_pass.act_observation(obs, forced) == 1).all()
    assert (favour_pass.act_observation(obs, np.ones_like(mask)) == 0).all()


def test_a_checkpoint_spec_can_ask_for_sampled_actions():
    from training.specs import load_policy

    batch = views(4000, seed=5, num_players=3)
    greedy = load_policy("ppo-3p", num_players=3)
    obs = enc.encode_batch(batch, greedy.chip_memory, greedy.behaviour)
    p_take = greedy.probabilities(obs, batch.action_mask())[:, 1]
    sampled = load_policy("ppo-3p:deterministic=False", num_players=3, seed=4)
    assert sampled.stochastic and not greedy.stochastic and sampled.name == "ppo-3p:deterministic=False"
    takes = sampled.act_batch(batch)
    # The draws follow the network's softmax: the number of takes is within 5 sd of its expectation, and
    # unlike the argmax it sometimes plays the less likely action.
    sd = float(np.sqrt((p_take * (1 - p_take)).sum()))
    assert sd > 3 and abs(takes.sum() - p_take.sum()) < 5 * sd
    assert (takes != greedy.act_batch(batch)).sum() > 10
    assert (takes[batch.action_mask()[:, 0] == 0] == 1).all()  # at 0 chips it always takes
    again = load_policy("checkpoints/ppo-3p:deterministic=False", num_players=3, seed=4)
    assert np.array_equal(again.act_batch(batch), takes)  # the same seed, the same draws; a path works too
    assert not load_policy("ppo-3p:deterministic=True").stochastic
    for spec, match in [
        ("ppo-3p:deterministic=1", r"deterministic: expected True or False, got 1"),
        ("ppo-3p:temperature=2", r"a checkpoint takes parameters \['deterministic'\], got \['temperature'\]"),
        (
            "best-3p:deterministic=False",
            r"best-3p is a composite agent \(the spec 'search:.*'\) and takes no parameters",
        ),
        ("ppo-3p:deterministic=False,deterministic=True", r"expected each parameter once, got 'deterministic' twice"),
    ]:
        with pytest.raises(ValueError, match=match):
            load_policy(spec)


def _ppo_3p_with(tmp_path: Path, name: str, **tensors: torch.Tensor) -> Path:
    """ppo-3p saved again with some tensors replaced (its metadata, digest and hashes all made anew)."""
    from safetensors.torch import load_file

    src = ckpt.resolve_checkpoint("ppo-3p")
    meta = {k: v for k, v in ckpt.read_metadata(src).items() if k != "files"}
    weights = load_file(str(src / ckpt.WEIGHTS_FILE))
    return save_checkpoint(tmp_path / name, {**weights, **{k.replace("_", "."): v for k, v in tensors.items()}}, meta)


def test_weights_whose_shapes_do_not_chain_name_the_tensor_and_both_shapes(tmp_path):
    # A checkpoint consistent in its hashes and digest but not in its layer shapes gave a traceback from
    # lin.bias.copy_: "RuntimeError: The size of tensor a (5) must match the size of tensor b (128)".
    cases = [
        ("bias", {"layers_0_bias": torch.zeros(5)}, "layers.0.bias: expected shape [128] (one value per output of "
         "layers.0.weight), got [5]"),
        ("chain", {"layers_1_weight": torch.zeros(128, 7)}, "layers.1.weight: expected shape [128, 128] (its inputs "
         "are the outputs of layers.0), got [128, 7]"),
        ("last", {"layers_2_weight": torch.zeros(2, 64)}, "layers.2.weight: expected shape [2, 128] (its inputs are "
         "the outputs of layers.1), got [2, 64]"),
        ("flat", {"layers_1_weight": torch.zeros(128)}, "layers.1.weight: expected a 2-D shape [outputs, inputs], "
         "got [128]"),
    ]  # fmt: skip
    for name, tensors, message in cases:
        path = _ppo_3p_with(tmp_path, name, **tensors)
        with pytest.raises(CheckpointError) as e:
            load_checkpoint_policy(path)
        assert str(e.value) == f"checkpoint {path}: weights: {message}"
    net = load_checkpoint_policy("ppo-3p")
    before = net.weights()
    with pytest.raises(CheckpointError, match=r"^weights: layers.0.bias: expected shape \[128\] .*, got \[5\]$"):
        net.load_weights({**before, "layers.0.bias": torch.zeros(5)})  # in place, as the collector does
    with pytest.raises(CheckpointError, match=r"^weights: expected tensor layers.2.bias, got tensors \["):
        net.load_weights({k: v for k, v in before.items() if k != "layers.2.bias"})
    assert all(torch.equal(v, net.weights()[k]) for k, v in before.items())  # refused before any copy


@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("chip_memory", "no", "chip_memory: expected true or false, got 'no'"),  # bool('no') was True
        ("chip_memory", 0, "chip_memory: expected true or false, got 0"),
        ("behaviour", "false", "behaviour: expected true or false, got 'false'"),
        ("num_players", [3, 9], "num_players: expected a list of table sizes in 3..7 (the sizes it was trained at), "
         "got [3, 9]"),
        ("num_players", [2], "num_players: expected a list of table sizes in 3..7 (the sizes it was trained at), "
         "got [2]"),
        ("num_players", [True], "num_players: expected a list of table sizes in 3..7 (the sizes it was trained at), "
         "got [True]"),
        ("num_players", 3, "num_players: expected a list of table sizes in 3..7 (the sizes it was trained at), got 3"),
        ("num_players", 0, "num_players: expected a list of table sizes in 3..7 (the sizes it was trained at), got 0"),
    ],
)  # fmt: skip
def test_metadata_of_the_wrong_type_is_refused_even_with_its_digest_redone(tmp_path, field, value, expected):
    path = tmp_path / "c"
    _copy_of_ppo_3p(path)
    meta = json.loads((path / ckpt.METADATA_FILE).read_text())
    ckpt.write_metadata(path, {**meta, field: value})  # what the message for an old checkpoint tells users to run
    for load in (load_checkpoint_policy, ckpt.verify_checkpoint):
        with pytest.raises(CheckpointError) as e:
            load(path)
        assert str(e.value) == f"checkpoint {path}: {ckpt.METADATA_FILE}: {expected}"


def test_table_sizes_not_known_still_load(tmp_path):
    # merge writes [] when no member knew its sizes; older checkpoints have no num_players at all
    path = tmp_path / "c"
    _copy_of_ppo_3p(path)
    meta = json.loads((path / ckpt.METADATA_FILE).read_text())
    without = {k: v for k, v in meta.items() if k != "num_players"}
    for edited in (without | {"num_players": []}, without | {"num_players": None}, without):
        ckpt.write_metadata(path, edited)
        policy = load_checkpoint_policy(path)
        assert policy.player_counts is None and policy.chip_memory is True and policy.behaviour is True


def test_the_policys_torch_work_runs_on_one_thread_and_leaves_the_count_as_found(monkeypatch):
    # One thread never starts torch's OpenMP pool, so that a process forked after a checkpoint loaded (async
    # vector envs with checkpoint opponents) does not wait forever on it; the caller's count is left alone.
    torch.set_num_threads(2)  # the autouse fixture restores the count after the test
    with ckpt.one_torch_thread():
        assert torch.get_num_threads() == 1
        with ckpt.one_torch_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    with pytest.raises(KeyError), ckpt.one_torch_thread():
        raise KeyError("x")
    assert torch.get_num_threads() == 2
    seen = []
    real_copy, real_forward = torch.Tensor.copy_, torch.nn.Linear.forward
    monkeypatch.setattr(torch.Tensor, "copy_", lambda t, src: seen.append(("copy", torch.get_num_threads())) or
                        real_copy(t, src))  # fmt: skip
    monkeypatch.setattr(torch.nn.Linear, "forward", lambda lin, x: seen.append(("forward", torch.get_num_threads()))
                        or real_forward(lin, x))  # fmt: skip
    policy = load_checkpoint_policy("ppo-3p")
    assert seen == [("copy", 1)] * 6  # the weights loaded: three layers' weight and bias
    seen.clear()
    policy.act_batch(views(8, num_players=3))
    assert seen == [("forward", 1)] * 3 and torch.get_num_threads() == 2

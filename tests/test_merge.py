"""training.merge: the logit average of several networks as one wider network, or their parameter average."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from netweights import random_weights

from nothanks_env import encoding as enc
from training.checkpoints import MLPPolicy, load_checkpoint_policy, read_metadata, save_checkpoint, write_metadata
from training.learning import merge as mg


def _obs(n: int = 500, size: int = enc.OBS_SIZE, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).random((n, size), dtype=np.float32)


def _ckpt(path, sizes=(enc.OBS_SIZE, 16, 8, 2), seed=0, **meta):
    meta = {"activation": "relu", "chip_memory": True, "behaviour": False, "num_players": [3], **meta}
    if meta["behaviour"]:  # a network that reads the pass/take record has that many more inputs
        sizes = (sizes[0] + enc.BEHAVIOUR_SIZE, *sizes[1:])
    return save_checkpoint(path, random_weights(sizes, seed), meta)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_merged_logits_are_the_weighted_sum_of_the_members(activation):
    a = random_weights((enc.OBS_SIZE, 16, 8, 2), seed=1)
    b = random_weights((enc.OBS_SIZE, 12, 10, 2), seed=2)
    merged = mg.merge_weights([a, b], [0.25, 0.75])
    assert [tuple(merged[f"layers.{i}.weight"].shape) for i in range(3)] == [(28, enc.OBS_SIZE), (18, 28), (2, 18)]
    net = MLPPolicy(merged, activation=activation)
    pa, pb = MLPPolicy(a, activation=activation), MLPPolicy(b, activation=activation)
    want = 0.25 * pa.logits(_obs()) + 0.75 * pb.logits(_obs())
    np.testing.assert_allclose(net.logits(_obs()), want, atol=1e-5)
    # the hidden layer after the first is block-diagonal: member a's units never read member b's
    assert torch.count_nonzero(merged["layers.1.weight"][:8, 16:]) == 0
    assert torch.count_nonzero(merged["layers.1.weight"][8:, :16]) == 0


def test_merge_weights_refuses_what_cannot_be_merged():
    a = random_weights((enc.OBS_SIZE, 16, 2))
    with pytest.raises(ValueError, match=r"at least 2 networks to merge, got 1"):
        mg.merge_weights([a], [1.0])
    with pytest.raises(ValueError, match=r"one depth, got \[2, 3\] linear layers"):
        mg.merge_weights([a, random_weights((enc.OBS_SIZE, 16, 8, 2))], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"weights: expected finite numbers > 0, got \[0.0, 0.0\]"):
        mg.merge_weights([a, a], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"outputs \[2, 125\]"):
        mg.merge_weights([a, random_weights((enc.OBS_SIZE, 16, 125))], [0.5, 0.5])


def test_player_counts_are_the_sizes_every_member_plays():
    assert mg.merged_player_counts([[3], [3, 4]]) == [3]
    assert mg.merged_player_counts([[], [4, 5]]) == [4, 5]
    assert mg.merged_player_counts([[], []]) == []
    with pytest.raises(ValueError, match=r"share a table size, got num_players \[\[3\], \[4, 5\]\]"):
        mg.merged_player_counts([[3], [4, 5]])


def test_cli_writes_a_checkpoint_that_plays_the_mean_of_its_members(tmp_path, capsys):
    _ckpt(tmp_path / "a", seed=1, num_players=[3, 4])
    _ckpt(tmp_path / "b", sizes=(enc.OBS_SIZE, 32, 8, 2), seed=2)
    out = tmp_path / "m"
    code = mg.main(["--members", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out), "--weights", "1", "3"])
    assert code == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: hidden layers [48, 16]")
    meta = read_metadata(out)
    assert meta["kind"] == "nothanks-merged"
    assert meta["num_players"] == [3]
    assert meta["net_arch"] == [48, 16]
    assert meta["merged"]["weights"] == [0.25, 0.75]
    assert meta["merged"]["average"] == "logits"
    assert [m["name"] for m in meta["merged"]["members"]] == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert meta["merged"]["members"][0]["metadata_sha256"] == read_metadata(tmp_path / "a")["metadata_sha256"]
    pol = load_checkpoint_policy(out)
    want = 0.25 * load_checkpoint_policy(tmp_path / "a").logits(_obs()) + 0.75 * load_checkpoint_policy(
        tmp_path / "b"
    ).logits(_obs())
    np.testing.assert_allclose(pol.logits(_obs()), want, atol=1e-5)
    assert pol.num_players == 3


def test_merged_metadata_names_members_as_the_user_did_not_by_this_machines_folders(tmp_path, monkeypatch, capsys):
    # A shipped name was recorded as its absolute folder (ppo-5p's metadata named /work/main/checkpoints/ppo-5p-v6).
    here = tmp_path / "project"
    _ckpt(here / "runs" / "a", seed=1, behaviour=True, num_players=[5])
    _ckpt(here / "runs" / "b", seed=2, behaviour=True, num_players=[5])
    _ckpt(tmp_path / "elsewhere", seed=3, behaviour=True, num_players=[5])
    monkeypatch.chdir(here)
    given = ["ppo-5p-v6", str(here / "runs" / "a"), "./runs/b/metadata.json", str(tmp_path / "elsewhere")]
    assert mg.main(["--members", *given, "--out", "merged"]) == 0
    capsys.readouterr()
    members = read_metadata(here / "merged")["merged"]["members"]
    assert [m["name"] for m in members] == given
    # a shipped name as named; a folder under the current one relative to it; any other as given
    assert [m["path"] for m in members] == ["ppo-5p-v6", "runs/a", "runs/b", str(tmp_path / "elsewhere")]


@pytest.mark.parametrize(
    ("extra", "other", "message"),
    [
        ([], {"behaviour": True}, "expected networks with one behaviour, got {a}: False, {b}: True"),
        ([], {"activation": "tanh"}, "expected networks with one activation, got {a}: 'relu', {b}: 'tanh'"),
        ([], {"num_players": [5]}, "share a table size, got num_players {a}: [3], {b}: [5]"),
        ([], {"sizes": (enc.OBS_SIZE, 16, 2)}, "one number of hidden layers, got {a}: 2 hidden, {b}: 1 hidden"),
        (["--weights", "1"], {}, "--weights: expected one per member (2), got 1"),
        (["--weights", "1", "-1"], {}, "--weights: expected finite numbers > 0, one per member, got [1.0, -1.0]"),
        # a member of weight 0 was stacked into the network all the same
        (["--weights", "1", "0"], {}, "--weights: expected finite numbers > 0, one per member, got [1.0, 0.0]"),
        # a network merged with itself was written twice as wide, without a word
        (["--members", "{a}", "{a}"], {}, "--members: expected different checkpoints, got ['{a}'] more than once"),
    ],
)
def test_cli_refuses_members_that_cannot_be_merged(tmp_path, capsys, extra, other, message):
    _ckpt(tmp_path / "a", seed=1)
    _ckpt(tmp_path / "b", seed=2, **other)
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    code = mg.main(["--members", a, b, "--out", str(tmp_path / "m"), *(x.format(a=a, b=b) for x in extra)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert message.format(a=a, b=b) in err
    assert not (tmp_path / "m").exists()


def test_cli_refuses_outputs_that_would_lose_saved_work(tmp_path, capsys):
    _ckpt(tmp_path / "a", seed=1)
    _ckpt(tmp_path / "b", seed=2)
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    before = (tmp_path / "a" / "metadata.json").read_text()
    assert mg.main(["--members", a, b, "--out", a, "--overwrite"]) == 2
    assert "--out: expected a folder other than the members'" in capsys.readouterr().err
    assert (tmp_path / "a" / "metadata.json").read_text() == before
    assert mg.main(["--members", a, b, "--out", str(tmp_path / "m")]) == 0
    first = json.loads((tmp_path / "m" / "metadata.json").read_text())["files"]
    assert mg.main(["--members", a, b, "--out", str(tmp_path / "m"), "--weights", "1", "2"]) == 2
    assert "pass --overwrite to replace it" in capsys.readouterr().err
    assert json.loads((tmp_path / "m" / "metadata.json").read_text())["files"] == first
    assert mg.main(["--members", a, b, "--out", str(tmp_path / "m"), "--weights", "1", "2", "--overwrite"]) == 0
    assert read_metadata(tmp_path / "m")["merged"]["weights"] == pytest.approx([1 / 3, 2 / 3])
    # a checkpoint inside another one: the outer one could no longer be replaced (--overwrite saw extra files)
    assert mg.main(["--members", a, b, "--out", str(tmp_path / "m" / "sub")]) == 2
    assert capsys.readouterr().err == (
        f"error: --out: expected a folder outside other folders of its kind (each is written and replaced whole), "
        f"got {str(tmp_path / 'm' / 'sub')!r}, inside {str(tmp_path / 'm')!r}, which holds policy.safetensors, "
        "metadata.json\n"
    )
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["metadata.json", "policy.safetensors"]
    assert mg.main(["--members", a, "--out", str(tmp_path / "n")]) == 2
    assert "--members: expected at least 2 checkpoints to merge, got 1" in capsys.readouterr().err
    assert mg.main(["--members", a, str(tmp_path / "missing"), "--out", str(tmp_path / "n")]) == 2
    assert "--members: checkpoint not found" in capsys.readouterr().err


def test_a_checkpoint_saved_before_num_actions_merges_as_the_standard_network_it_is(tmp_path):
    """Checkpoints older than the special cards (ppo-3p-v1..v3, ppo-mixed) have no num_actions in their metadata:
    the loader reads them as standard networks, and so does merge."""
    _ckpt(tmp_path / "old", seed=1)
    meta = read_metadata(tmp_path / "old")
    del meta["num_actions"]
    write_metadata(tmp_path / "old", meta)
    _ckpt(tmp_path / "new", seed=2)
    assert mg.main(["--members", str(tmp_path / "old"), str(tmp_path / "new"), "--out", str(tmp_path / "m")]) == 0
    assert read_metadata(tmp_path / "m")["num_actions"] == 2


def test_overwrite_through_a_symlinked_out_replaces_the_folder_it_points_to(tmp_path):
    # it failed with "Cannot call rmtree on a symbolic link", left the link aside as .link.old, and every later
    # --overwrite failed at once
    a, b = _ckpt(tmp_path / "a", seed=1), _ckpt(tmp_path / "b", seed=2)
    target = _ckpt(tmp_path / "target", seed=3)
    link = tmp_path / "link"
    link.symlink_to(target)
    assert mg.main(["--members", str(a), str(b), "--out", str(link), "--overwrite"]) == 0
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert read_metadata(target)["merged"]["weights"] == [0.5, 0.5]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "link", "target"]  # nothing left aside


def test_huge_weights_are_read_as_their_ratio(tmp_path):
    # their sum overflowed to inf and the error showed weights of [0.0, 0.0] that nobody gave
    a, b = _ckpt(tmp_path / "a", seed=1), _ckpt(tmp_path / "b", seed=2)
    assert mg.main(["--members", str(a), str(b), "--out", str(tmp_path / "m"), "--weights", "1e308", "1.5e308"]) == 0
    assert read_metadata(tmp_path / "m")["merged"]["weights"] == pytest.approx([0.4, 0.6], abs=1e-12)


def _soup(weights, mix):
    """The parameter average as documented: the weighted sum in float64, rounded once to float32."""
    return {k: sum(w * m[k].double() for w, m in zip(mix, weights)).float() for k in weights[0]}


def test_parameter_average_is_the_weighted_mean_of_each_tensor():
    a = random_weights((enc.OBS_SIZE, 16, 8, 2), seed=1)
    b = random_weights((enc.OBS_SIZE, 16, 8, 2), seed=2)
    merged = mg.average_weights([a, b], [0.3, 0.7])
    assert sorted(merged) == sorted(a)
    for k in a:
        assert merged[k].dtype == torch.float32 and merged[k].shape == a[k].shape
        assert torch.equal(merged[k], (0.3 * a[k].double() + 0.7 * b[k].double()).float()), k
        # and within float32 rounding of the sum taken in float32
        torch.testing.assert_close(merged[k], 0.3 * a[k] + 0.7 * b[k], rtol=0, atol=1e-7)
    # three members, in the order given
    c = random_weights((enc.OBS_SIZE, 16, 8, 2), seed=3)
    three = mg.average_weights([a, b, c], [0.5, 0.25, 0.25])
    assert all(torch.equal(three[k], _soup([a, b, c], [0.5, 0.25, 0.25])[k]) for k in a)
    assert not torch.equal(three["layers.1.weight"], merged["layers.1.weight"])


def test_parameter_average_refuses_networks_of_other_shapes():
    a = random_weights((enc.OBS_SIZE, 16, 8, 2), seed=1)
    with pytest.raises(ValueError, match=r"one shape, got layers.0.bias of shapes \[\[16\], \[12\]\]"):
        mg.average_weights([a, random_weights((enc.OBS_SIZE, 12, 8, 2))], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"expected networks with the same tensors"):
        mg.average_weights([a, random_weights((enc.OBS_SIZE, 16, 2))], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"weights: expected finite numbers > 0, got \[0.5, nan\]"):
        mg.average_weights([a, a], [0.5, float("nan")])
    with pytest.raises(ValueError, match=r"at least 2 networks to merge, got 1"):
        mg.average_weights([a], [1.0])


def test_cli_parameter_average_writes_a_network_of_the_members_shape_that_plays(tmp_path, capsys):
    from training import evaluate as ev

    a, b = _ckpt(tmp_path / "a", seed=1, num_players=[3, 4]), _ckpt(tmp_path / "b", seed=2)
    out = tmp_path / "soup"
    argv = ["--average", "parameters", "--members", str(a), str(b), "--weights", "0.7", "0.3", "--out", str(out)]
    assert mg.main(argv) == 0
    assert capsys.readouterr().out == f"wrote {out}: hidden layers [16, 8], the parameter average of {a} 0.7, {b} 0.3\n"
    meta = read_metadata(out)
    assert meta["kind"] == "nothanks-merged"
    assert meta["net_arch"] == meta["merged"]["net_arch"] == [16, 8]
    assert meta["merged"]["average"] == "parameters"
    assert meta["num_players"] == [3]
    mix = meta["merged"]["weights"]
    assert mix == pytest.approx([0.7, 0.3], abs=1e-15)
    assert [m["name"] for m in meta["merged"]["members"]] == [str(a), str(b)]
    pa, pb = load_checkpoint_policy(a), load_checkpoint_policy(b)
    pol = load_checkpoint_policy(out)
    got, want = pol.weights(), _soup([pa.weights(), pb.weights()], mix)
    assert sorted(got) == sorted(want) == sorted(pa.weights())
    assert all(torch.equal(got[k], want[k]) for k in want)
    # its logits are those of the averaged parameters, not the average of the members' logits
    x = _obs()
    h = x.astype(np.float64)
    for i in range(3):
        w = mix[0] * pa.weights()[f"layers.{i}.weight"].double() + mix[1] * pb.weights()[f"layers.{i}.weight"].double()
        bias = mix[0] * pa.weights()[f"layers.{i}.bias"].double() + mix[1] * pb.weights()[f"layers.{i}.bias"].double()
        h = h @ w.numpy().T + bias.numpy()
        h = np.maximum(h, 0) if i < 2 else h
    np.testing.assert_allclose(pol.logits(x), h, atol=1e-5)
    assert np.abs(pol.logits(x) - (0.7 * pa.logits(x) + 0.3 * pb.logits(x))).max() > 1e-3
    assert pol.num_players == 3 and pol.chip_memory is True and pol.behaviour is False
    report = ev.main(["--policy", str(out), "--opponents", "heuristic", "--games", "6", "--no-progress"])
    assert report.games == 6 and report[out.name].games == 6


@pytest.mark.parametrize(
    ("other", "message"),
    [
        ({"sizes": (enc.OBS_SIZE, 32, 8, 2)}, "got {a}: [16, 8], {b}: [32, 8]"),
        ({"sizes": (enc.OBS_SIZE, 16, 2)}, "got {a}: [16, 8], {b}: [16]"),
    ],
)
def test_cli_parameter_average_refuses_members_of_other_widths(tmp_path, capsys, other, message):
    a, b = str(_ckpt(tmp_path / "a", seed=1)), str(_ckpt(tmp_path / "b", seed=2, **other))
    code = mg.main(["--average", "parameters", "--members", a, b, "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(
        "error: --members: expected networks with one net_arch (--average parameters averages them tensor by tensor)"
    )
    assert message.format(a=a, b=b) in err
    assert not (tmp_path / "m").exists()
    # the logit average takes members of other widths (of one depth)
    logits = mg.main(["--members", a, b, "--out", str(tmp_path / "m")])
    assert logits == (0 if len(other["sizes"]) == 4 else 2)


def test_cli_parameter_average_refuses_other_options_as_the_logit_average_does(tmp_path, capsys):
    a, b = str(_ckpt(tmp_path / "a", seed=1)), str(_ckpt(tmp_path / "b", seed=2, activation="tanh"))
    assert mg.main(["--average", "parameters", "--members", a, b, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --members: expected networks with one activation, got {a}: 'relu', {b}: 'tanh'\n"
    assert not (tmp_path / "m").exists()


def test_cli_refuses_an_unknown_average(tmp_path, capsys):
    a, b = str(_ckpt(tmp_path / "a", seed=1)), str(_ckpt(tmp_path / "b", seed=2))
    assert mg.main(["--average", "weights", "--members", a, b, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: argument --average: invalid choice: 'weights'")
    assert "logits" in err and "parameters" in err
    assert not (tmp_path / "m").exists()
    with pytest.raises(ValueError, match=r"--average: expected one of logits, parameters, got 'soup'"):
        mg.merge([a, b], str(tmp_path / "m"), average="soup")

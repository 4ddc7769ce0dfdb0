"""training.merge: the logit average of several networks, written as one wider network."""

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
    assert [m["name"] for m in meta["merged"]["members"]] == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert meta["merged"]["members"][0]["metadata_sha256"] == read_metadata(tmp_path / "a")["metadata_sha256"]
    pol = load_checkpoint_policy(out)
    want = 0.25 * load_checkpoint_policy(tmp_path / "a").logits(_obs()) + 0.75 * load_checkpoint_policy(
        tmp_path / "b"
    ).logits(_obs())
    np.testing.assert_allclose(pol.logits(_obs()), want, atol=1e-5)
    assert pol.num_players == 3


@pytest.mark.parametrize(
    ("extra", "other", "message"),
    [
        ([], {"behaviour": True}, "expected networks with one behaviour, got {a}: False, {b}: True"),
        ([], {"activation": "tanh"}, "expected networks with one activation, got {a}: 'relu', {b}: 'tanh'"),
        ([], {"num_players": [5]}, "--members: expected networks that share a table size, got num_players [[3], [5]]"),
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

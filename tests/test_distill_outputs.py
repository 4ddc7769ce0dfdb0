"""``training.distill --save-data`` is checked by :func:`training.cli.check_outputs`, as every other output path is.

distill used to have a check of its own: it refused a missing parent folder (the other commands create it),
had no ``--overwrite``, and said "expected a new file" where the others say "expected a path that does not
exist yet (pass --overwrite to replace it)".
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training import distill
from training.checkpoints import read_metadata, resolve_checkpoint
from training.cli import check_outputs

FIT = ["--teacher", "never-take", "--student", "ppo-3p", "--games", "300", "--epochs", "1", "--no-progress"]


def shared_refusal(path: str, *, overwrite: bool = False) -> str:
    """The line :func:`check_outputs` makes of ``--save-data path`` (the one copy of the check)."""
    with pytest.raises(ValueError) as e:
        check_outputs({"--save-data": path}, overwrite=overwrite)
    return f"error: {e.value}\n"


def test_an_existing_file_is_refused_in_the_shared_words_and_kept(tmp_path, capsys):
    saved = tmp_path / "d.npz"
    saved.write_bytes(b"kept")
    assert distill.main([*FIT, "--out", str(tmp_path / "o"), "--save-data", str(saved)]) == 2
    err = capsys.readouterr().err
    assert err == shared_refusal(str(saved))
    assert err == (
        f"error: --save-data: expected a path that does not exist yet (pass --overwrite to replace it), got "
        f"{str(saved)!r} (an existing file)\n"
    )
    assert saved.read_bytes() == b"kept" and not (tmp_path / "o").exists()


def test_the_npz_file_numpy_writes_is_the_one_checked(tmp_path, capsys):
    # --save-data d writes d.npz (numpy adds the suffix): an existing d.npz is what would be replaced
    (tmp_path / "d.npz").write_bytes(b"kept")
    assert distill.main([*FIT, "--out", str(tmp_path / "o"), "--save-data", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == shared_refusal(str(tmp_path / "d.npz"))
    assert (tmp_path / "d.npz").read_bytes() == b"kept" and not (tmp_path / "o").exists()


def test_a_parent_that_is_a_file_is_refused_in_the_shared_words(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    target = str(tmp_path / "afile" / "d.npz")
    assert distill.main([*FIT, "--out", str(tmp_path / "o"), "--save-data", target]) == 2
    err = capsys.readouterr().err
    assert err == shared_refusal(target)
    assert "expected a path whose folders can be created" in err and not (tmp_path / "o").exists()


def test_overwrite_replaces_the_file_and_missing_folders_are_created(tmp_path: Path, capsys):
    saved = tmp_path / "d.npz"
    saved.write_bytes(b"old")
    assert distill.main([*FIT, "--out", str(tmp_path / "a"), "--save-data", str(saved), "--overwrite"]) == 0
    replaced = distill.Decisions.load(saved)
    assert len(replaced) > 0 and (replaced.action == 0).all()  # never-take's decisions: all passes
    nested = tmp_path / "new" / "sub" / "d.npz"  # the other commands create missing folders; distill refused them
    assert distill.main([*FIT, "--out", str(tmp_path / "b"), "--save-data", str(nested)]) == 0
    again = distill.Decisions.load(nested)
    assert len(again) == len(replaced) and (again.action == replaced.action).all()  # same seed, same decisions


def test_the_saved_file_records_what_its_observations_were_encoded_for(tmp_path: Path):
    # the file held obs, mask, action, game and num_players only: nothing told which chip_memory had encoded them
    saved = tmp_path / "d.npz"
    assert distill.main([*FIT, "--out", str(tmp_path / "o"), "--save-data", str(saved)]) == 0
    with np.load(saved, allow_pickle=False) as z:  # JSON text: no pickle needed to read it
        assert sorted(z.files) == ["action", "encoding", "game", "mask", "num_players", "obs", "rules"]
        encoding, rules = json.loads(str(z["encoding"])), json.loads(str(z["rules"]))
    layout = read_metadata(resolve_checkpoint("ppo-3p"))["observation_layout"]
    assert encoding == {"behaviour": True, "chip_memory": True, "observation_layout": layout}
    assert sum(size for _, size in encoding["observation_layout"]) == 445
    assert rules["num_removed"] == 9 and rules["highest_card"] == 35 and rules["special_cards"] == []

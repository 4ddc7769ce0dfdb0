"""A run whose start fails leaves no empty run folder behind, and never loses what a folder holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from training import exploit as ex
from training.learning import runs


def fresh(tmp_path: Path) -> Path:
    """A run folder as a start leaves it before training: ``checkpoints/`` and ``config.yaml``."""
    run = runs.new_run_dir(tmp_path / "runs", "x", 0)
    (run / runs.CONFIG_FILE).write_text("run: {}\n")
    return run


def test_a_start_that_fails_removes_the_folder_it_made(tmp_path):
    run = fresh(tmp_path)
    with pytest.raises(ValueError, match="bad init_from"), runs.removed_if_start_fails(run):
        raise ValueError("bad init_from")
    assert not run.exists()
    assert list((tmp_path / "runs").iterdir()) == []  # runs_dir itself is left: it may hold other runs


def test_a_start_that_works_keeps_its_folder(tmp_path):
    run = fresh(tmp_path)
    with runs.removed_if_start_fails(run) as got:
        assert got == run
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "config.yaml"]


@pytest.mark.parametrize(
    "extra", ["checkpoints/step_00001024/policy.safetensors", "events.out.tfevents.1", "notes/mine.txt"]
)
def test_a_folder_holding_anything_else_is_kept_whole(tmp_path, extra):
    run = fresh(tmp_path)
    (run / extra).parent.mkdir(parents=True, exist_ok=True)
    (run / extra).write_text("saved")
    with pytest.raises(RuntimeError), runs.removed_if_start_fails(run):
        raise RuntimeError("failed later")
    assert (run / extra).read_text() == "saved" and (run / runs.CONFIG_FILE).read_text() == "run: {}\n"
    assert runs.remove_unstarted(run) is False and (run / extra).is_file()


def test_remove_unstarted_keeps_a_symlink_and_what_it_points_to(tmp_path):
    run = fresh(tmp_path)
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("saved")
    (run / "checkpoints" / "link").symlink_to(target, target_is_directory=True)
    assert runs.remove_unstarted(run) is False
    assert run.is_dir() and (target / "keep.txt").read_text() == "saved"


def test_remove_unstarted_of_a_missing_folder_is_false(tmp_path):
    assert runs.remove_unstarted(tmp_path / "nowhere") is False


def test_an_exploit_probe_with_a_bad_init_from_leaves_no_run_folder(tmp_path, capsys):
    # run.init_from is checked when the trainer starts, after the run folder was made: it used to stay, empty
    argv = ["--victim", "heuristic", "--timesteps", "4096", "--eval-points", "1", "--runs-dir", str(tmp_path),
            "--no-progress", "--set", "run.init_from=ppo-4p-v2", "--set", "run.collector=inline"]  # fmt: skip
    assert ex.main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: run.init_from 'ppo-4p-v2': trained for [4, 5] players, expected one that covers this config's "
        "game.num_players [3]\n"
    )
    assert list(tmp_path.iterdir()) == []

"""``training.evaluate`` labels checkpoints of the same folder name by the end of their paths
(``x/checkpoints/best`` and ``y/checkpoints/best``), not ``best`` and ``best#2``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from training import evaluate as ev
from training.checkpoints import METADATA_FILE, SHIPPED, WEIGHTS_FILE
from training.specs import load_policy


def checkpoint_at(folder: Path) -> Path:
    """A copy of the shipped ppo-3p-v2 at ``folder``."""
    folder.mkdir(parents=True)
    for name in (WEIGHTS_FILE, METADATA_FILE):
        shutil.copyfile(SHIPPED["ppo-3p-v2"] / name, folder / name)
    return folder


def names(argv: list[str], tmp_path: Path) -> list[str]:
    out = tmp_path / "report.json"
    ev.main([*argv, "--games", "3", "--no-progress", "--json", str(out)])
    return [p["name"] for p in json.loads(out.read_text())["policies"]]


def test_two_checkpoints_named_alike_are_labelled_by_their_paths(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "runs" / "x" / "checkpoints" / "best")
    checkpoint_at(tmp_path / "runs" / "y" / "checkpoints" / "best")
    argv = ["--policy", "runs/x/checkpoints/best", "runs/y/checkpoints/best", "--opponents", "random"]
    assert names(argv, tmp_path) == ["x/checkpoints/best", "y/checkpoints/best", "random"]
    assert "x/checkpoints/best" in capsys.readouterr().out  # the table says it too


def test_the_shortest_telling_suffix_is_used_per_pair(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "a" / "best")
    checkpoint_at(tmp_path / "b" / "best")
    checkpoint_at(tmp_path / "a" / "final")
    # a file in the checkpoint folder names the folder; a lone folder name keeps its short label
    argv = ["--policy", "a/best/policy.safetensors", "b/best/", "--opponents", "a/final"]
    assert names(argv, tmp_path) == ["a/best", "b/best", "final"]


def test_the_same_path_twice_is_still_numbered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "x" / "best")
    checkpoint_at(tmp_path / "y" / "best")
    specs = ["x/best", "x/best", "y/best"]
    policies = [load_policy(s, num_players=3) for s in specs]
    ev.label_by_path(policies, specs)
    assert ev.unique_names(policies) == ["x/best", "x/best#2", "y/best"]


def test_labels_other_than_folder_names_are_left_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "x" / "ppo-3p")
    specs = ["x/ppo-3p", "ppo-3p", "heuristic", "heuristic", "x/ppo-3p:deterministic=False"]
    policies = [load_policy(s, num_players=3) for s in specs]
    ev.label_by_path(policies, specs)
    # the shipped name is not a path; a spec with parameters is labelled by the whole spec already
    assert [p.name for p in policies] == ["x/ppo-3p", "ppo-3p", "heuristic", "heuristic", specs[-1]]


@pytest.mark.parametrize("spec", ["runs/x/checkpoints/best", "best"])
def test_a_lone_checkpoint_keeps_its_folder_name(tmp_path, monkeypatch, spec):
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / spec)
    assert names(["--policy", spec, "--opponents", "random"], tmp_path) == ["best", "random"]


def test_gauntlet_labels_two_checkpoints_named_alike_by_their_paths(tmp_path, monkeypatch):
    from training.evaluation import gauntlet as g

    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "x" / "best")
    checkpoint_at(tmp_path / "y" / "best")
    out = tmp_path / "g.json"
    argv = ["--players", "3", "--policy", "x/best", "y/best", "--columns", "random", "--games", "3"]
    assert g.main([*argv, "--no-progress", "--json", str(out)]) == 0
    assert [r["policy"] for r in json.loads(out.read_text())["reports"]] == ["x/best", "y/best"]

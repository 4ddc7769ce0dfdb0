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
    out.unlink(missing_ok=True)  # a report of an earlier call
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
    # the shipped name is not a path; the folder with parameters is told from the shipped agent as without them
    # (it was labelled by its whole spec, whatever the others)
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


def test_a_checkpoint_with_parameters_is_labelled_as_one_without_them(tmp_path, monkeypatch):
    # RUN/checkpoints/final printed "final" and RUN/checkpoints/final:deterministic=False its whole spec; and
    # beside OTHER/checkpoints/final, "final" and the whole spec, leaving which "final" was which to guess
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "RUN" / "checkpoints" / "final")
    checkpoint_at(tmp_path / "OTHER" / "checkpoints" / "final")
    sampled = "RUN/checkpoints/final:deterministic=False"
    argv = ["--policy", "RUN/checkpoints/final", sampled, "--opponents", "random"]
    assert names(argv, tmp_path) == ["final", "final:deterministic=False", "random"]
    argv = ["--policy", sampled, "--opponents", "OTHER/checkpoints/final"]
    assert names(argv, tmp_path) == [sampled, "OTHER/checkpoints/final"]
    argv = ["--policy", "ppo-3p:deterministic=False", "--opponents", "checkpoints/ppo-3p"]  # the shipped one
    checkpoint_at(tmp_path / "checkpoints" / "ppo-3p")
    assert names(argv, tmp_path) == ["ppo-3p:deterministic=False", "checkpoints/ppo-3p"]


def test_gauntlet_and_tournament_label_as_evaluate_does(tmp_path, monkeypatch):
    from training.evaluation import gauntlet as g
    from training.evaluation import tournament as t

    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "RUN" / "checkpoints" / "final")
    checkpoint_at(tmp_path / "OTHER" / "checkpoints" / "final")
    specs = ["RUN/checkpoints/final:deterministic=False", "OTHER/checkpoints/final", "heuristic"]
    expected = ["RUN/checkpoints/final:deterministic=False", "OTHER/checkpoints/final", "heuristic"]
    argv = ["--policy", *specs[:2], "--columns", "random", "--games", "3", "--no-progress", "--json", "g.json"]
    assert g.main(argv) == 0
    assert [r["policy"] for r in json.loads((tmp_path / "g.json").read_text())["reports"]] == expected[:2]
    result = t.main(["--policies", *specs, "--games", "3", "--no-progress", "--out", "t"])
    assert sorted(r.stats.name for r in result.rows) == sorted(expected)
    assert names(["--policy", *specs[:2], "--opponents", "heuristic"], tmp_path) == expected
    alone = ["--policy", "RUN/checkpoints/final:deterministic=False", "--columns", "random", "--games", "3"]
    assert g.main([*alone, "--no-progress", "--json", "g1.json"]) == 0
    assert json.loads((tmp_path / "g1.json").read_text())["reports"][0]["policy"] == "final:deterministic=False"


def test_heldout_bots_are_labelled_by_class_in_every_command(tmp_path, monkeypatch, capsys):
    # they printed their whole spec (training.evaluation.heldout:ChipRich) where shipped bots print a short name,
    # and where the gauntlet's columns name them by class
    from training.evaluation import gauntlet as g
    from training.evaluation import tournament as t

    monkeypatch.chdir(tmp_path)
    chip, clock = "training.evaluation.heldout:ChipRich", "training.evaluation.heldout:Clock"
    assert names(["--policy", chip, "--opponents", clock, "heuristic"], tmp_path) == ["ChipRich", "Clock", "heuristic"]
    result = t.main(["--policies", chip, clock, "heuristic", "--games", "3", "--no-progress", "--out", "t"])
    assert sorted(r.stats.name for r in result.rows) == ["ChipRich", "Clock", "heuristic"]
    assert g.main(["--policy", chip, "--columns", clock, "--games", "3", "--no-progress", "--json", "g.json"]) == 0
    report = json.loads((tmp_path / "g.json").read_text())["reports"][0]
    assert report["policy"] == "ChipRich" and report["rows"][0]["opponents"] == [clock, clock]  # the JSON keeps specs
    assert "heldout:" not in capsys.readouterr().out


def test_gauntlet_labels_different_specs_of_one_name_by_their_specs(tmp_path, monkeypatch, capsys):
    # heuristic and heuristic:chip_memory=True (its default written out) both report "heuristic": the comparison
    # printed two columns headed `heuristic`, and the JSON and Markdown reports could not be told apart
    from training.evaluation import gauntlet as g

    monkeypatch.chdir(tmp_path)
    specs = ["heuristic", "heuristic:chip_memory=True", " heuristic", "threshold:T=+5", "threshold:T=5"]
    argv = ["--players", "3", "--policy", *specs, "--columns", "random", "--games", "3", "--seed", "0"]
    assert g.main([*argv, "--workers", "1", "--no-progress", "--json", "g.json", "--md", "g.md"]) == 0
    labels = ["heuristic", "heuristic:chip_memory=True", "heuristic#2", "threshold:T=+5", "threshold:T=5"]
    assert [r["policy"] for r in json.loads((tmp_path / "g.json").read_text())["reports"]] == labels
    head = "| opponents | games | " + " | ".join(f"`{label}`" for label in labels) + " |"
    assert head in capsys.readouterr().out  # the side-by-side comparison
    md = (tmp_path / "g.md").read_text()
    assert md.splitlines()[0] == head
    assert [line.partition(",")[0] for line in md.splitlines() if line.startswith("`")] == [f"`{x}`" for x in labels]


def test_evaluate_and_tournament_label_different_specs_of_one_name_by_their_specs(tmp_path, monkeypatch):
    # they printed heuristic and heuristic#2, leaving which spec was which to guess
    from training.evaluation import tournament as t

    monkeypatch.chdir(tmp_path)
    argv = ["--players", "4", "--policy", "heuristic:chip_memory=True", "heuristic", "--opponents", "heuristic"]
    assert names([*argv, "random"], tmp_path) == ["heuristic:chip_memory=True", "heuristic", "heuristic#2", "random"]
    specs = ["heuristic", "heuristic:chip_memory=True", "random"]
    result = t.main(["--policies", *specs, "--games", "3", "--no-progress", "--out", "t"])
    assert sorted(r.stats.name for r in result.rows) == sorted(specs)


def test_label_by_spec_leaves_one_checkpoint_spelled_two_ways_to_numbering(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    checkpoint_at(tmp_path / "x" / "best")
    specs = ["x/best", "x/best/", "heuristic", "heuristic:chip_memory=True"]
    policies = [load_policy(s, num_players=3) for s in specs]
    ev.label_policies(policies, specs)
    assert ev.unique_names(policies) == ["best", "best#2", "heuristic", "heuristic:chip_memory=True"]

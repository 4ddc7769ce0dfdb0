"""The Ray-backed command lines without the ``ray`` extra: one ``error:`` line naming the extra, exit code 2, no
traceback; and ``training.rllib_selfplay`` checks its arguments before it imports torch or Ray.

Ray is hidden from a child process in two ways: a meta-path finder that reports every ``ray`` module missing (as
Python does when Ray is not installed), and ``sys.modules["ray"] = None`` (which makes ``ray.rllib`` the module
reported missing). The command then runs as ``python -m`` runs it (:func:`runpy.run_module`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from training.scale.ray_backend import missing_ray, missing_ray_message

FINDER = """
import importlib.abc, sys

class NoRay(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "ray" or name.startswith("ray."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoRay())
"""
NONE_IN_SYS_MODULES = 'import sys; sys.modules["ray"] = None\n'
HIDERS = {"finder": FINDER, "sys.modules": NONE_IN_SYS_MODULES}

INSTALL = 'pip install -e ".[ray]"'


def run_without_ray(hider: str, module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m module *args`` in a child process where ``import ray`` fails as ``hider`` makes it."""
    code = HIDERS[hider] + f"import runpy; sys.argv = {[module, *args]!r}\n"
    code += f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=600)


def expected_line(command: str, needs: str) -> str:
    return (
        f"error: {command} needs {needs}, which is not installed (expected the \"ray\" extra, got no module 'ray'): "
        f"{INSTALL}"
    )


@pytest.mark.parametrize("hider", sorted(HIDERS))
@pytest.mark.parametrize("module", ["training.rllib_selfplay", "training.scale.rllib_selfplay"])
def test_rllib_selfplay_without_ray_says_so_in_one_line_and_leaves_no_run_folder(hider, module, tmp_path):
    runs = tmp_path / "runs"
    done = run_without_ray(hider, module, "--set", f"run.runs_dir={runs}", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [expected_line("python -m training.rllib_selfplay", "Ray RLlib")]
    assert done.stdout == ""
    assert not runs.exists()


@pytest.mark.parametrize("hider", sorted(HIDERS))
def test_rllib_export_without_ray_says_so_in_one_line(hider, tmp_path):
    done = run_without_ray(
        hider, "training.rllib_selfplay", "--export", str(tmp_path / "run"), "--out", str(tmp_path / "agent"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [expected_line("python -m training.rllib_selfplay", "Ray RLlib")]
    assert not (tmp_path / "agent").exists()


@pytest.mark.parametrize("hider", sorted(HIDERS))
@pytest.mark.parametrize("module", ["training.sweep", "training.scale.sweep"])
def test_sweep_without_ray_says_so_in_one_line(hider, module, tmp_path):
    done = run_without_ray(hider, module, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [expected_line("python -m training.sweep", "Ray Tune")]


@pytest.mark.parametrize("hider", sorted(HIDERS))
def test_benchmark_rllib_without_ray_says_so_in_one_line(hider, tmp_path):
    done = run_without_ray(hider, "training.benchmark", "rllib", "--iterations", "1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [expected_line("python -m training.benchmark rllib", "Ray RLlib")]
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("argv", "code", "stderr"),
    [
        (["--bogus"], 2, "error: unrecognized arguments: --bogus\n"),
        (["--help"], 0, ""),
        (
            ["--overwrite"],
            2,
            "error: --overwrite: expected only with --export (it replaces an existing --out), got --overwrite "
            "without --export\n",
        ),
        (["--export", "runs/x"], 2, "error: --export: expected --out DIR for the exported checkpoint, got none\n"),
        (
            ["--out", "/tmp/x"],  # started a full training run, the --out ignored
            2,
            "error: --out: expected only with --export (it names the folder the exported checkpoint is written to; a "
            "training run writes its own run folder), got --out /tmp/x without --export\n",
        ),
    ],
    ids=["unknown-option", "help", "overwrite-alone", "export-without-out", "out-without-export"],
)
def test_rllib_selfplay_checks_its_arguments_before_importing_torch_or_ray(argv, code, stderr):
    # these answered only after torch and Ray RLlib were imported (about 3 s on the CI machine)
    program = (
        "import sys; from training.rllib_selfplay import main; "
        f"code = main({argv!r}); print('exit', code, sorted(m for m in ('torch', 'ray') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600)
    assert done.stdout.splitlines()[-1] == f"exit {code} []"
    assert done.stderr == stderr


def test_only_a_missing_ray_module_counts_as_missing_ray():
    assert missing_ray(ModuleNotFoundError("No module named 'ray'", name="ray")) == "ray"
    assert missing_ray(ModuleNotFoundError("no", name="ray.rllib.core")) == "ray.rllib.core"
    for error in (
        ModuleNotFoundError("No module named 'rayon'", name="rayon"),  # a name that only starts like it
        ModuleNotFoundError("No module named 'msgpack'", name="msgpack"),  # of Ray's core: a broken install
        ModuleNotFoundError("No module named 'training.nope'", name="training.nope"),  # a fault of ours
        ModuleNotFoundError("no name"),
        ImportError("cannot import name 'x' from 'ray'", name="ray"),  # ray is there; a name in it is not
        ValueError("ray"),
    ):
        assert missing_ray(error) is None, error
        assert missing_ray_message("cmd", "Ray RLlib", error) is None, error
    # a package of Ray's rllib part (pip install ray has none of them) is not Ray, but is the "ray" extra's:
    # tests/test_missing_extras.py
    assert missing_ray(ModuleNotFoundError("No module named 'tree'", name="tree")) is None


def test_a_missing_module_of_an_installed_ray_names_the_version_and_the_module(monkeypatch, tmp_path, capsys):
    ray = pytest.importorskip("ray")
    from training import rllib_selfplay as rs

    def gone(*args: object, **kwargs: object) -> None:
        raise ModuleNotFoundError("No module named 'ray.rllib.moved'", name="ray.rllib.moved")

    monkeypatch.setattr(rs, "export", gone)
    assert rs.main(["--export", str(tmp_path / "run"), "--out", str(tmp_path / "agent")]) == 2
    assert capsys.readouterr().err == (
        f'error: python -m training.rllib_selfplay needs Ray RLlib as the "ray" extra installs it, got ray '
        f"{ray.__version__} without module 'ray.rllib.moved': {INSTALL}\n"
    )


def test_another_missing_module_is_not_reported_as_ray_and_keeps_its_traceback(monkeypatch, tmp_path):
    pytest.importorskip("ray")
    from training import rllib_selfplay as rs

    def broken(*args: object, **kwargs: object) -> None:
        raise ModuleNotFoundError("No module named 'training.nope'", name="training.nope")

    monkeypatch.setattr(rs, "export", broken)
    with pytest.raises(ModuleNotFoundError, match="training.nope"):
        rs.main(["--export", str(tmp_path / "run"), "--out", str(tmp_path / "agent")])


def test_the_names_that_moved_out_of_the_module_top_are_still_there():
    pytest.importorskip("ray.rllib")
    from training import checkpoints as ckpt
    from training import rllib_selfplay as rs
    from training.scale import rllib_module

    assert rs.SnapshotCallback is rllib_module.SnapshotCallback
    assert rs.copy_learner is rllib_module.copy_learner
    assert rs.EXPORT_FILES == (ckpt.WEIGHTS_FILE, ckpt.METADATA_FILE, ckpt.TRAIN_STATE_FILE)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        rs.nothing  # noqa: B018

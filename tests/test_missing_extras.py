"""The Ray-backed command lines with a Ray installed without its ``[rllib,tune]`` parts (``pip install ray``), or
without the ``train`` extra: one ``error:`` line naming the missing module and the ``pip install`` that adds it,
exit code 2, no traceback (tests/test_missing_ray.py covers Ray itself missing).

A package is hidden from a child process with ``sys.modules[name] = None`` (``import name`` then fails with a
:class:`ModuleNotFoundError` naming it, as when it is not installed); nothing is uninstalled. The command then
runs as ``python -m`` runs it (:func:`runpy.run_module`). None of these commands gets as far as starting Ray.
"""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from training.scale import ray_backend
from training.scale.ray_backend import (
    TRAIN_PACKAGES,
    missing_module,
    missing_ray_or_raise,
    missing_train_message,
    ray_part_packages,
    require_ray_parts,
)

ROOT = Path(__file__).resolve().parents[1]
RAY = 'pip install -e ".[ray]"'
TRAIN = 'pip install -e ".[train]"'
PIP_INSTALL_RAY_LACKS = ("tree", "pyarrow", "pandas", "fsspec", "lz4", "ormsgpack", "tensorboardX")
"""Import names of the packages of ray[rllib,tune] that a plain ``pip install ray`` does not install (with the
train extra installed: it brings pyyaml, pydantic and scipy)."""


def run_without(hidden: tuple[str, ...], module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m module *args`` in a child process where each module of ``hidden`` fails to import."""
    code = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in hidden)
    code += f"import runpy; sys.argv = {[module, *args]!r}\n"
    code += f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=600)


def ray_version() -> str:
    return pytest.importorskip("ray").__version__


def part_line(command: str, needs: str, package: str, parts: str, module: str) -> str:
    return (
        f'error: {command} needs {needs} as the "ray" extra installs it (expected package {package} of ray[{parts}], '
        f"got ray {ray_version()} without module {module!r}): {RAY}"
    )


def train_line(command: str, package: str, module: str) -> str:
    return (
        f'error: {command} needs the "train" extra, which is not installed (expected package {package}, got no '
        f"module {module!r}): {TRAIN}"
    )


# --------------------------------------------------------------------------- Ray without its rllib and tune parts
RLLIB = "python -m training.rllib_selfplay"
SWEEP = "python -m training.sweep"
BENCH = "python -m training.benchmark rllib"


@pytest.mark.parametrize(
    ("hidden", "package", "parts"),
    [(("tree",), "dm_tree", "rllib"), (("pyarrow",), "pyarrow", "rllib,tune")],
    ids=["dm_tree", "pyarrow"],  # a ModuleNotFoundError of its own; Ray Tune's ImportError raised from one
)
def test_rllib_selfplay_with_a_part_of_ray_missing_names_it_in_one_line(hidden, package, parts, tmp_path):
    runs = tmp_path / "runs"
    done = run_without(hidden, "training.rllib_selfplay", "--set", f"run.runs_dir={runs}", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [part_line(RLLIB, "Ray RLlib", package, parts, hidden[0])]
    assert not runs.exists()


def test_rllib_export_with_a_part_of_ray_missing_names_it_in_one_line(tmp_path):
    args = ("--export", str(tmp_path / "run"), "--out", str(tmp_path / "agent"))
    done = run_without(("tree",), "training.rllib_selfplay", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [part_line(RLLIB, "Ray RLlib", "dm_tree", "rllib", "tree")]
    assert not (tmp_path / "agent").exists()


@pytest.mark.parametrize(
    ("module", "args", "command", "needs"),
    [
        ("training.rllib_selfplay", (), RLLIB, "Ray RLlib"),
        ("training.sweep", (), SWEEP, "Ray Tune"),
        ("training.benchmark", ("rllib", "--iterations", "1"), BENCH, "Ray RLlib"),
    ],
    ids=["rllib_selfplay", "sweep", "benchmark-rllib"],
)
def test_ray_as_pip_install_ray_installs_it_is_one_error_line(module, args, command, needs, tmp_path):
    done = run_without(PIP_INSTALL_RAY_LACKS, module, *args, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    (line,) = done.stderr.splitlines()
    found = re.fullmatch(
        rf'error: {re.escape(command)} needs {needs} as the "ray" extra installs it \(expected package (\S+) of '
        rf"ray\[[a-z,]+\], got ray {re.escape(ray_version())} without module '(\w+)'\): {re.escape(RAY)}",
        line,
    )
    assert found is not None, line
    assert found[2] in PIP_INSTALL_RAY_LACKS


def test_sweep_and_benchmark_name_a_missing_package_of_ray_tune(tmp_path):
    done = run_without(("pandas",), "training.sweep", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [part_line(SWEEP, "Ray Tune", "pandas", "rllib,tune", "pandas")]
    done = run_without(("tree",), "training.benchmark", "rllib", "--iterations", "1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [part_line(BENCH, "Ray RLlib", "dm_tree", "rllib", "tree")]


# --------------------------------------------------------------------------- the train extra missing
@pytest.mark.parametrize(
    ("module", "args", "hidden", "line"),
    [
        ("training.rllib_selfplay", (), "torch", train_line(RLLIB, "torch", "torch")),
        ("training.benchmark", ("rllib", "--iterations", "1"), "torch", train_line(BENCH, "torch", "torch")),
        ("training.sweep", (), "torch", train_line(SWEEP, "torch", "torch")),
        ("training.sweep", (), "stable_baselines3", train_line(SWEEP, "stable-baselines3", "stable_baselines3")),
        ("training.sweep", (), "sb3_contrib", train_line(SWEEP, "sb3-contrib", "sb3_contrib")),
    ],
    ids=["rllib_selfplay-torch", "benchmark-rllib-torch", "sweep-torch", "sweep-sb3", "sweep-sb3_contrib"],
)
def test_a_missing_package_of_the_train_extra_is_one_error_line(module, args, hidden, line, tmp_path):
    pytest.importorskip("ray.tune")
    runs = tmp_path / "runs"
    done = run_without((hidden,), module, *args, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.splitlines() == [line]
    assert not runs.exists()


def test_rllib_selfplay_without_tensorboard_says_so_and_leaves_no_run_folder(tmp_path):
    # tensorboard is imported when the trainer starts, after the run folder is made (and before Ray starts)
    pytest.importorskip("ray.rllib")
    runs = tmp_path / "runs"
    done = run_without(("tensorboard",), "training.rllib_selfplay", "--set", f"run.runs_dir={runs}", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [train_line(RLLIB, "tensorboard", "tensorboard")]
    assert not runs.exists() or not any(runs.iterdir())


def test_the_train_packages_are_those_of_the_train_extra():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
    packages = {re.match(r"[A-Za-z0-9._-]+", req)[0] for req in extra}
    assert set(TRAIN_PACKAGES.values()) == packages


# --------------------------------------------------------------------------- the helpers
def test_the_packages_of_rays_parts_come_from_its_metadata():
    pytest.importorskip("ray")
    packages = ray_part_packages()
    assert packages["tree"] == ("dm_tree", ("rllib",))
    assert packages["pyarrow"] == ("pyarrow", ("rllib", "tune"))
    assert packages["tensorboardx"][0] == "tensorboardX"
    assert "msgpack" not in packages  # Ray's core needs it: missing, the install is broken


def test_missing_module_follows_an_import_error_to_the_module_it_was_raised_from():
    try:
        try:
            raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")
        except ImportError as e:
            raise ImportError("Can't import ray.tune as some dependencies are missing.") from e
    except ImportError as e:
        tune_error = e
    assert missing_module(tune_error) == "pyarrow"
    assert missing_module(ModuleNotFoundError("no", name="torch")) == "torch"
    assert missing_module(ImportError("cannot import name 'x' from 'ray'", name="ray")) is None
    assert missing_module(ValueError("torch")) is None


def test_another_missing_module_keeps_its_traceback():
    pytest.importorskip("ray")
    for error in (
        ModuleNotFoundError("No module named 'msgpack'", name="msgpack"),
        ModuleNotFoundError("No module named 'training.nope'", name="training.nope"),
        ImportError("cannot import name 'x' from 'torch'", name="torch"),
    ):
        with pytest.raises(type(error)) as raised:
            missing_ray_or_raise("cmd", "Ray RLlib", error)
        assert raised.value is error
    assert missing_train_message("cmd", ModuleNotFoundError("no", name="stable_baselines3.common")) == (
        'cmd needs the "train" extra, which is not installed (expected package stable-baselines3, got no module '
        f"'stable_baselines3.common'): {TRAIN}"
    )


def test_require_ray_parts_turns_rays_own_import_error_into_one_naming_the_module(monkeypatch):
    pytest.importorskip("ray")

    def tune_without_pyarrow(name: str) -> None:
        try:
            raise ModuleNotFoundError("import of pyarrow halted; None in sys.modules", name="pyarrow")
        except ImportError as e:
            raise ImportError(f"Can't import {name} as some dependencies are missing.") from e

    monkeypatch.setattr(ray_backend, "importlib", types.SimpleNamespace(import_module=tune_without_pyarrow))
    with pytest.raises(ModuleNotFoundError) as raised:  # what `except ModuleNotFoundError` of a caller catches
        require_ray_parts("tune")
    assert raised.value.name == "pyarrow"
    assert "Ray tune is not fully installed" in str(raised.value)

    def broken(name: str) -> None:
        raise ImportError("cannot import name 'x' from 'ray.tune'")  # not a missing package: a fault

    monkeypatch.setattr(ray_backend, "importlib", types.SimpleNamespace(import_module=broken))
    with pytest.raises(ImportError, match="cannot import name 'x'"):
        require_ray_parts("tune")

"""Seed and hyperparameter sweeps of ``training.selfplay`` with Ray Tune.

Usage::

    python -m training.sweep configs/sweep.yaml                          # Ray embedded on this machine
    python -m training.sweep configs/sweep.yaml --address auto           # a running cluster
    python -m training.sweep --resume runs/sweeps/sweep__20261201-150000  # finish an interrupted sweep
    python -m training.selfplay --resume runs/sweeps/<sweep>/<trial>/<run>  # continue any one trial

A sweep file (validated like the self-play configs, see :class:`SweepConfig`) names a self-play config
(``base``), overrides for every trial (``set``) and a search space of dotted config keys (``space``), each
a ``grid`` (every value: the trials are the product of the grids), a ``choice``, or a ``uniform`` /
``loguniform`` range (drawn ``num_samples`` times). Each trial is one ordinary self-play run (the same
:class:`training.selfplay.Trainer`, run folder, checkpoints and TensorBoard curves) inside the trial's
Tune folder, and reports every periodic evaluation to Tune. Trials are ranked on ``eval_score``, the
final evaluation's score by ``eval.best_metric`` (``min``: the lowest win rate x n over the evaluation
tables, 1.0 = parity; else the win rate against that opponent).

A key of ``space`` is written as ``--set`` writes it: a part that holds ``.`` or ``=`` (a policy spec) in double
quotes, ``'pool.scripted."threshold:T=2"': {grid: [0.5, 1.0]}``. A search key is itself such a part when
``--set`` reaches into ``space``: ``--set 'space."ppo.ent_coef".grid=[0.0, 0.02]'``.

Each trial takes ``cpus_per_trial`` CPUs of the Ray cluster, so a 2-core machine runs trials one or two
at a time and a cluster many at once. Every node needs this package installed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from training.learning.config import CONFIG_DIR, ConfigError, _Section, dotted_key, load_config

PROG = "python -m training.sweep"
METRIC = "eval_score"
RUN_DIR_FILE = "run_dir.txt"

TRIAL_MODULES: tuple[str, ...] = ("torch", "stable_baselines3", "sb3_contrib", "safetensors", "tensorboard")
"""The ``train`` extra's modules a trial (a ``training.selfplay`` run) imports: the command checks them before
Ray starts, so that a missing one is one ``error:`` line rather than every trial failing inside Tune."""


# --------------------------------------------------------------------------- the sweep file
class Dimension(_Section):
    """One searched config key: exactly one of ``grid``, ``choice``, ``uniform``, ``loguniform``."""

    grid: list[Any] | None = Field(None, min_length=1, description="try every value")
    choice: list[Any] | None = Field(None, min_length=1, description="draw one value per sample")
    uniform: tuple[float, float] | None = Field(None, description="draw from [low, high)")
    loguniform: tuple[float, float] | None = Field(None, description="draw log-uniformly from [low, high)")

    @model_validator(mode="after")
    def _exactly_one(self) -> Dimension:
        given = [k for k in ("grid", "choice", "uniform", "loguniform") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"expected exactly one of grid, choice, uniform, loguniform, got {given or 'none'}")
        for k in ("uniform", "loguniform"):
            lo_hi = getattr(self, k)
            if lo_hi is not None and not (0 if k == "uniform" else 0 < lo_hi[0]) <= lo_hi[0] < lo_hi[1]:
                raise ValueError(f"{k}: expected low < high (and low > 0 for loguniform), got {list(lo_hi)}")
        return self

    def tune(self) -> Any:
        """The Ray Tune search-space object of this dimension."""
        from ray import tune

        if self.grid is not None:
            return tune.grid_search(self.grid)
        if self.choice is not None:
            return tune.choice(self.choice)
        if self.uniform is not None:
            return tune.uniform(*self.uniform)
        return tune.loguniform(*self.loguniform)  # type: ignore[misc]

    def values(self) -> list[Any]:
        """The values to check against the self-play config: every ``grid`` or ``choice`` value (a trial may
        draw any of them), or the low end of a ``uniform`` / ``loguniform`` range."""
        for k in ("grid", "choice", "uniform", "loguniform"):
            v = getattr(self, k)
            if v is not None:
                return list(v) if k in ("grid", "choice") else [v[0]]
        raise AssertionError("unreachable: validated to hold one")


class SweepConfig(_Section):
    """A Ray Tune sweep over ``training.selfplay`` runs."""

    name: str = Field("sweep", pattern=r"^[A-Za-z0-9_.-]+$")
    base: str = Field("selfplay.yaml", description="self-play config; relative paths from the sweep file's folder")
    set: list[str] = Field([], description="KEY=VALUE overrides applied to every trial")
    space: dict[str, Dimension] = Field(..., min_length=1, description="dotted self-play config key -> dimension")
    num_samples: int = Field(1, ge=1, description="times the grid is repeated (each with fresh random draws)")
    cpus_per_trial: float = Field(1.0, gt=0)
    max_concurrent_trials: int = Field(0, ge=0, description="0: as many as the cluster's CPUs allow")
    storage: str = Field("runs/sweeps", description="folder of sweep folders <name>__<time>/")


def load_sweep(path: str | Path, overrides: list[str] | None = None) -> tuple[SweepConfig, Path]:
    """Read and validate a sweep file; return it and the absolute path of its base self-play config.

    Every key of ``space`` is checked against the self-play config with each of its ``grid`` / ``choice``
    values (the low end of a range), so a typo or a spec that does not build fails here, before Ray starts.

    Raises:
        ConfigError: naming the bad key or value.
    """
    path = Path(path)
    sweep = load_config(path, overrides, SweepConfig)
    base = Path(sweep.base)
    if not base.is_absolute():
        base = path.resolve().parent / base
    for key, dim in sweep.space.items():
        for value in dim.values():
            try:
                load_config(base, [*sweep.set, f"{key}={json.dumps(value)}"])
            except ConfigError as e:
                raise ConfigError(f"{dotted_key(['space', key])}: {e}") from None
    return sweep, base.resolve()


# --------------------------------------------------------------------------- one trial
def trial_metrics(res: dict[str, dict[str, Any]], cfg: Any, timesteps: int) -> dict[str, Any]:
    """What a trial reports to Tune for one evaluation: ``eval_score`` and each table's win rate."""
    from training.learning.selfplay import best_score

    out: dict[str, Any] = {METRIC: best_score(res, cfg), "timesteps": timesteps}
    out |= {f"win_rate/{key}": r["win_rate"] for key, r in res.items()}
    return out


def run_trial(params: dict[str, Any], *, base: str, overrides: list[str]) -> None:
    """Tune's function trainable: one self-play run with ``params`` (dotted key -> value) applied.

    A trial restored by Tune continues its own run folder from its newest checkpoint.
    """
    from ray import tune

    from training.learning.selfplay import Trainer, new_run_dir, step_checkpoints

    class ReportingTrainer(Trainer):
        def evaluate(self, t: int) -> dict[str, Any]:
            res = super().evaluate(t)
            with tempfile.TemporaryDirectory() as d:  # Tune keeps the trial's run folder as its checkpoint
                (Path(d) / RUN_DIR_FILE).write_text(str(self.run_dir.resolve()))
                tune.report(trial_metrics(res, self.cfg, t), checkpoint=tune.Checkpoint.from_directory(d))
            return res

    trial_dir = Path(tune.get_context().get_trial_dir())
    sets = [*overrides, *(f"{k}={json.dumps(v)}" for k, v in params.items())]
    sets += [f"run.runs_dir={trial_dir}", "run.progress=false"]
    restored = tune.get_checkpoint()
    if restored is not None:
        with restored.as_directory() as d:
            run_dir = Path((Path(d) / RUN_DIR_FILE).read_text())
        cfg = load_config(run_dir / "config.yaml", [])
        found = step_checkpoints(run_dir)
        trainer = ReportingTrainer(cfg, run_dir, resume_from=found[-1] if found else None)
    else:
        from training.learning.config import dump_config

        cfg = load_config(base, sets)
        run_dir = new_run_dir(cfg)
        dump_config(cfg, run_dir / "config.yaml")
        trainer = ReportingTrainer(cfg, run_dir)
    trainer.train()
    final = trainer.final_results
    if final is not None:
        tune.report(trial_metrics(final, cfg, trainer.trained_timesteps) | {"final": True})


# --------------------------------------------------------------------------- the sweep
def sweep(sweep_cfg: SweepConfig, base: Path, *, address: str = "local", resume: Path | None = None):
    """Run (or, with ``resume``, finish) a sweep; return Tune's :class:`~ray.tune.ResultGrid`.

    Args:
        sweep_cfg: the validated sweep file.
        base: absolute path of the self-play config the trials start from.
        address: Ray address (``"local"``: Ray embedded on this machine, all its CPUs).
        resume: a sweep folder to restore (unfinished and errored trials continue).
    """
    from ray import tune

    from training.scale.ray_backend import connect

    connect(address)
    trainable = tune.with_resources(
        tune.with_parameters(run_trial, base=str(base), overrides=list(sweep_cfg.set)),
        {"cpu": sweep_cfg.cpus_per_trial},
    )
    if resume is not None:
        tuner = tune.Tuner.restore(str(resume.resolve()), trainable, resume_errored=True)
    else:
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
        tuner = tune.Tuner(
            trainable,
            param_space={k: d.tune() for k, d in sweep_cfg.space.items()},
            tune_config=tune.TuneConfig(
                metric=METRIC,
                mode="max",
                num_samples=sweep_cfg.num_samples,
                max_concurrent_trials=sweep_cfg.max_concurrent_trials or None,
            ),
            run_config=tune.RunConfig(
                name=f"{sweep_cfg.name}__{stamp}",
                storage_path=str(Path(sweep_cfg.storage).resolve()),
                verbose=0,
            ),
        )
    return tuner.fit()


def ranking(results: Any, keys: Sequence[str]) -> str:
    """A Markdown table of the trials, best ``eval_score`` (last report) first, with each run folder."""
    rows = []
    for r in results:
        if r.metrics is None or METRIC not in r.metrics:
            rows.append((float("-inf"), r, "failed" if r.error else "no evaluation"))
            continue
        rows.append((float(r.metrics[METRIC]), r, f"{r.metrics[METRIC]:.3f}"))
    rows.sort(key=lambda x: -x[0])
    head = "| rank | " + " | ".join(f"`{k}`" for k in keys) + f" | {METRIC} | run folder |"
    lines = [head, "|---:|" + "---|" * len(keys) + "---:|---|"]
    for i, (_, r, score) in enumerate(rows, 1):
        found = sorted(Path(r.path).glob("*__*__*/config.yaml"))
        run = str(found[-1].parent) if found else r.path
        values = " | ".join(str(r.config.get(k)) for k in keys)
        lines.append(f"| {i} | {values} | {score} | {run} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    from training.cli import Parser
    from training.scale.ray_backend import ray_address

    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("config", nargs="?", default=str(CONFIG_DIR / "sweep.yaml"), help="sweep file (configs/sweep.yaml)")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="override a sweep-file value; a key part that holds '.' or '=' is written in double quotes: "
        "--set 'space.\"ppo.ent_coef\".grid=[0.0, 0.02]'",
    )  # fmt: skip
    p.add_argument("--address", default="local", type=ray_address,
                   help="Ray cluster to join (auto, HOST:6379, ray://HOST:10001); "
                   "default: start Ray embedded on this machine")  # fmt: skip
    p.add_argument("--resume", metavar="SWEEP_DIR", help="finish an interrupted sweep from its folder")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after one ``error:`` line on bad input, or when the
    ``ray`` extra, a part of Ray it installs, or the ``train`` extra a trial needs is not installed)."""
    import importlib

    from training.scale.ray_backend import missing_ray_or_raise, require_ray_parts

    try:
        args = build_parser().parse_args(argv)
        require_ray_parts("tune")  # Ray, and the packages of its tune part (pip install ray has none of them)
        for name in TRIAL_MODULES:
            importlib.import_module(name)
        sweep_cfg, base = load_sweep(args.config, args.set)
        resume = Path(args.resume) if args.resume else None
        if resume is not None and not (resume / "tuner.pkl").is_file():
            raise FileNotFoundError(f"--resume {resume}: expected a sweep folder with tuner.pkl")
        from training.scale.ray_backend import connect

        connect(args.address)  # an address where no cluster answers: one error line (sweep() reuses the connection)
    except SystemExit as e:
        return int(e.code or 0)
    except ImportError as e:  # an extra missing: one line; any other import error is a fault, with its traceback
        print(f"error: {missing_ray_or_raise(PROG, 'Ray Tune', e)}", file=sys.stderr)
        return 2
    except (ConfigError, OSError, ValueError) as e:  # ConnectionError is an OSError
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = sweep(sweep_cfg, base, address=args.address, resume=resume)
    table = ranking(results, list(sweep_cfg.space))
    out = Path(results.experiment_path) / "ranking.md"
    out.write_text(table)
    print(table)
    print(f"sweep folder: {results.experiment_path}; ranking written to {out}")
    return 0 if not results.errors else 1


if __name__ == "__main__":
    sys.exit(main())

"""Self-play PPO on ``nothanks_v0`` with RLlib: one shared policy for every seat, frozen snapshots as opponents.

Usage::

    python -m training.rllib_selfplay                                   # configs/rllib.yaml, Ray embedded here
    python -m training.rllib_selfplay configs/rllib.yaml --set ppo.learning_rate=1e-4 --address auto
    python -m training.rllib_selfplay --resume runs/rllib__0__20261201-150000
    python -m training.rllib_selfplay --export runs/rllib__0__<time> --out runs/rllib-agent
    python -m training.evaluate --policy runs/rllib__0__<time>/checkpoints/final --opponents heuristic

How it trains (RLlib's new API stack, PPO, multi-agent):

- **Env**: RLlib's ``PettingZooEnv`` around ``nothanks_v0.env()`` (AEC: one agent acts per env step; a
  taker acts again). Every seat is paid its final reward when the game ends. Episodes are never cut
  (``batch_mode="complete_episodes"``), so no turn is lost at a batch boundary. With ``env.behaviour``
  every seat also observes each seat's public pass/take record of the deal (445 inputs instead of 389).
- **Modules**: ``learner`` (trained) and ``snapshot_0 .. snapshot_{K-1}`` (frozen: not in
  ``policies_to_train``), all :class:`training.rllib_module.MaskedActorCritic`.
- **Policy mapping** (:func:`map_seat`): per episode, one seat drawn from the episode id is the learner;
  every other seat is a snapshot with probability ``pool.snapshot_weight`` (a slot drawn uniformly), else
  the learner too. Every seat the learner plays trains it.
- **Callback** (:class:`training.rllib_module.SnapshotCallback`): at start every slot holds the initial network; each
  ``pool.snapshot_every`` env steps it copies the learner into the next slot (round robin), so the
  opponents are the last ``K`` snapshots.

Units: env steps are decisions of any seat (RLlib's ``num_env_steps_sampled``); learner steps are the
learner module's decisions (``num_module_steps_sampled[learner]``), the unit ``training.selfplay`` counts.

A run writes ``runs/<name>__<seed>__<time>/``: ``config.yaml``; TensorBoard scalars (``charts/``:
returns per module, episode length, steps/s; ``losses/``; ``eval/<opponent>/``); ``evals.jsonl``;
``rllib/step_<env steps>/`` (RLlib's own checkpoints, for ``--resume``; the newest
``run.keep_checkpoints``); ``checkpoints/step_<env steps>/``, ``checkpoints/best/`` and
``checkpoints/final/`` in our format (``policy.safetensors`` + ``metadata.json``, see
:mod:`training.checkpoints`, with ``chip_memory`` and ``behaviour`` in the metadata), which
``training.evaluate``, the gauntlet, play and serve load like any agent.
SIGINT/SIGTERM finishes the training iteration, checkpoints and exits 0.

torch and Ray are imported where they are used, not with this module: ``--help`` and bad arguments answer at
once. Without the ``ray`` extra (or with a Ray installed without its ``[rllib,tune]`` parts, as ``pip install ray``
installs it), or without the ``train`` extra's torch, the command says so in one ``error:`` line, naming the
missing module and the ``pip install`` that adds it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import numbers
import os
import random
import shutil
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from training.learning import runs
from training.learning.config import ConfigError, dotted_flags_as_set, dump_config, load_config
from training.scale.rllib_config import DEFAULT_RLLIB_CONFIG, LEARNER, RLlibConfig

if TYPE_CHECKING:  # pragma: no cover
    import torch

    from training import checkpoints as ckpt
    from training.scale.rllib_module import SnapshotCallback

__all__ = ["RLlibConfig", "RLlibTrainer", "SnapshotCallback", "algorithm_config", "export", "main", "map_seat"]

PROG = "python -m training.rllib_selfplay"
STEP_DIR = "step_"
STATE_FILE = "nothanks_state.json"

RESUME_FIXED: tuple[str, ...] = ("game", "env.chip_memory", "env.behaviour", "ppo.net_arch", "ppo.activation")
"""Config keys a ``--resume`` may not change: the game the modules were trained at (compared by the rules it
resolves to, as ``training.selfplay`` compares it), and the modules' inputs and shape, which RLlib's checkpoint
holds."""

_FROM_RLLIB_MODULE = ("SnapshotCallback", "copy_learner")


def export_files() -> tuple[str, ...]:
    """The files of a checkpoint directory: all that ``--export PATH --out DIR --overwrite`` may replace in DIR
    (also :data:`EXPORT_FILES`)."""
    from training import checkpoints as ckpt

    return (ckpt.WEIGHTS_FILE, ckpt.METADATA_FILE, ckpt.TRAIN_STATE_FILE)


def __getattr__(name: str) -> Any:
    """Attributes that need torch or Ray, loaded on first use (PEP 562) so that importing this module does not:
    ``EXPORT_FILES`` (:func:`export_files`), and ``SnapshotCallback`` and ``copy_learner`` of
    :mod:`training.rllib_module`."""
    if name == "EXPORT_FILES":
        return export_files()
    if name in _FROM_RLLIB_MODULE:
        from training.scale import rllib_module

        return getattr(rllib_module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- RLlib pieces
def map_seat(agent_id: str, episode: Any, *, num_players: int, snapshot_weight: float, snapshots: int, **_: Any) -> str:
    """RLlib ``policy_mapping_fn``: the module that plays ``agent_id`` (``player_<seat>``) in ``episode``.

    Deterministic in the episode id, so every seat of an episode sees the same draw: one learner seat,
    and each other seat a snapshot with probability ``snapshot_weight`` (slot uniform), else the learner.
    Without an episode (RLlib inferring spaces at build time) every agent maps to the learner.
    """
    if episode is None:
        return LEARNER
    rng = random.Random(str(episode.id_))
    learner_seat = rng.randrange(num_players)
    draws = [(rng.random(), rng.randrange(snapshots)) for _ in range(num_players)]
    seat = int(str(agent_id).rsplit("_", 1)[1])
    if seat == learner_seat or draws[seat][0] >= snapshot_weight:
        return LEARNER
    return f"snapshot_{draws[seat][1]}"


def algorithm_config(cfg: RLlibConfig):
    """The :class:`~ray.rllib.algorithms.ppo.PPOConfig` of ``cfg`` (env registered as ``nothanks_v0``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from training.scale.rllib_module import ENV_NAME, MaskedActorCritic, SnapshotCallback, make_env

    register_env(ENV_NAME, make_env)
    p = cfg.ppo
    model = {"net_arch": list(p.net_arch), "activation": p.activation, "behaviour": cfg.env.behaviour}
    specs = {m: RLModuleSpec(module_class=MaskedActorCritic, model_config=model) for m in cfg.module_ids()}
    env_config = {
        "game": cfg.game.model_dump(mode="json"),
        "chip_memory": cfg.env.chip_memory,
        "behaviour": cfg.env.behaviour,
        "reward": cfg.env.reward,
        "snapshot_every": cfg.pool.snapshot_every,
    }
    mapping = partial(
        map_seat, num_players=cfg.num_players, snapshot_weight=cfg.pool.snapshot_weight, snapshots=cfg.pool.snapshots
    )
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config)
        .env_runners(
            num_env_runners=cfg.env.env_runners,
            num_envs_per_env_runner=cfg.env.envs_per_runner,
            batch_mode="complete_episodes",
            rollout_fragment_length="auto",
        )
        .multi_agent(policies=set(cfg.module_ids()), policy_mapping_fn=mapping, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            lr=p.learning_rate,
            train_batch_size_per_learner=p.train_batch_size,
            minibatch_size=p.minibatch_size,
            num_epochs=p.num_epochs,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            use_kl_loss=False,
        )
        .callbacks(SnapshotCallback)
        .learners(num_learners=0)
        .debugging(seed=cfg.run.seed, log_level="ERROR")
    )


# --------------------------------------------------------------------------- export
def checkpoint_metadata(cfg: RLlibConfig, run: str, env_steps: int, evals: Any = None) -> dict[str, Any]:
    """Metadata of an exported checkpoint (:func:`training.checkpoints.save_checkpoint` adds the rest)."""
    return {
        "kind": "nothanks-rllib-ppo",
        "run": run,
        "env_steps": env_steps,
        "num_players": [cfg.num_players],
        "chip_memory": cfg.env.chip_memory,
        "behaviour": cfg.env.behaviour,
        "activation": cfg.ppo.activation,
        "net_arch": list(cfg.ppo.net_arch),
        "reward": cfg.env.reward,
        "eval": evals,
        "config": cfg.model_dump(mode="json"),
        "saved_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def checked_actor(weights: dict[str, torch.Tensor], cfg: RLlibConfig, source: str) -> dict[str, torch.Tensor]:
    """``weights`` (``layers.{i}.*``), once their input size is checked against ``cfg``'s observation.

    An export's metadata records ``cfg.env.behaviour``, and loaders encode observations from it, so an
    actor of another input size would be saved under the wrong layout.

    Raises:
        CheckpointError: naming ``source``, the inputs expected (389, or 445 with ``env.behaviour``) and got.
    """
    from training import checkpoints as ckpt

    want = ckpt.network_sizes(False, cfg.env.behaviour)[0]
    got = int(weights["layers.0.weight"].shape[1])
    if got != want:
        raise ckpt.CheckpointError(
            f"{source}: expected an actor with {want} inputs (its config has env.behaviour "
            f"{str(cfg.env.behaviour).lower()}), got {got}"
        )
    return weights


def check_resume(cfg: RLlibConfig, state: dict[str, Any], checkpoint: Path) -> None:
    """Refuse a resumed config that changes a :data:`RESUME_FIXED` key of the checkpoint's own config, compared as
    ``training.selfplay --resume`` compares (:func:`training.learning.runs.resume_change`): the game by the rules
    it resolves to, so ``game.preset=standard`` resumes a run made with no preset, and a changed rule is named.

    Args:
        cfg: the resumed run's config (its ``config.yaml`` with the ``--set`` overrides).
        state: the checkpoint's ``nothanks_state.json``.
        checkpoint: the RLlib checkpoint resumed from (named in the error).

    Raises:
        ConfigError: naming the key, the run's value and the value received.
    """
    changed = runs.resume_change(state.get("config"), cfg, RESUME_FIXED)
    if changed is not None:
        key, a, b = changed
        raise ConfigError(
            f"--resume: {key}: expected the run's {a!r} (RLlib checkpoint {checkpoint.name} was trained "
            f"with it; start a new run), got {b!r}"
        )


def latest_rllib_checkpoint(path: Path) -> Path:
    """``path`` itself if it is an RLlib checkpoint of ours, else the newest ``rllib/step_*`` of a run folder.

    Raises:
        FileNotFoundError: naming what was expected.
    """
    if (path / STATE_FILE).is_file():
        return path
    found = sorted((p for p in (path / "rllib").glob(f"{STEP_DIR}*") if (p / STATE_FILE).is_file()), key=_step)
    if not found:
        raise FileNotFoundError(f"{path}: expected a run folder with rllib/{STEP_DIR}<N>/ or such a checkpoint")
    return found[-1]


def _step(p: Path) -> int:
    return int(p.name[len(STEP_DIR) :])


def export(path: str | Path, out: str | Path, *, overwrite: bool = False) -> Path:
    """Export the learner of an RLlib checkpoint (or a run folder's newest) to our checkpoint format.

    Reads the module's weights through RLlib's own ``RLModule.from_checkpoint``; the run's config comes
    from the checkpoint's ``nothanks_state.json``, and with it ``behaviour`` (and ``chip_memory``) in the
    export's metadata, which loaders encode observations with.

    Args:
        path: a run folder, or one of its ``rllib/step_<N>`` checkpoints.
        out: the checkpoint directory to write.
        overwrite: replace ``out`` if it exists (the command line checks first that it holds only a checkpoint).

    Returns:
        ``out``, a directory with ``policy.safetensors`` and ``metadata.json``.

    Raises:
        FileNotFoundError: if ``path`` holds no RLlib checkpoint of ours.
        FileExistsError: if ``out`` exists and ``overwrite`` is false.
        CheckpointError: if the module's input size is not that of the config's observation.
    """
    from ray.rllib.core.rl_module.rl_module import RLModule

    from training import checkpoints as ckpt
    from training.scale.rllib_module import actor_weights

    src = latest_rllib_checkpoint(Path(path))
    state = json.loads((src / STATE_FILE).read_text())
    cfg = RLlibConfig.model_validate(state["config"])
    # absolute: RLlib reads a relative path as a URI and fails on its empty scheme ("runs/..." as the README has it)
    module = RLModule.from_checkpoint((src / "learner_group" / "learner" / "rl_module" / LEARNER).resolve())
    meta = checkpoint_metadata(cfg, state["run"], state["env_steps"], state.get("last_eval"))
    weights = checked_actor(actor_weights(module), cfg, f"RLlib checkpoint {src}")
    return ckpt.save_checkpoint(out, weights, meta, overwrite=overwrite)


# --------------------------------------------------------------------------- the run
class RLlibTrainer:
    """One run: Ray, the algorithm, the loop, TensorBoard, evaluation and checkpoints."""

    def __init__(self, cfg: RLlibConfig, run_dir: Path, *, address: str, resume_from: Path | None = None) -> None:
        import torch
        from torch.utils.tensorboard import SummaryWriter

        from training.scale.ray_backend import connect

        self.cfg, self.run_dir = cfg, run_dir
        torch.set_num_threads(cfg.run.torch_threads)
        connect(address, num_cpus=max(1, cfg.env.env_runners))
        config = algorithm_config(cfg)
        if resume_from is not None:
            config.env_config["fill_snapshots"] = False  # the checkpoint holds them
        self.algo = config.build_algo()
        self.env_steps, self.learner_steps, self.iteration = 0, 0, 0
        self.seconds = 0.0  # wall time inside algo.train(), all sessions of the run
        self.evals: list[dict[str, Any]] = []
        self.best: dict[str, Any] = {"score": -1.0, "env_steps": None}
        self.next_eval = 0
        if resume_from is not None:
            self.algo.restore_from_path(str(resume_from.resolve()))  # a relative path would be read as a URI
            st = json.loads((resume_from / STATE_FILE).read_text())
            self.env_steps, self.learner_steps = st["env_steps"], st["learner_steps"]
            self.iteration, self.evals, self.best = st["iteration"], st["evals"], st["best"]
            self.next_eval, self.seconds = st["next_eval"], st["seconds"]
        self.writer = SummaryWriter(str(run_dir))
        self.stop_requested = False

    # ---------------------------------------------------------------- pieces
    def learner_weights(self) -> dict[str, torch.Tensor]:
        """The learner's actor in our ``layers.{i}`` naming, read from RLlib's LearnerGroup."""
        from training.scale.rllib_module import actor_weights_from_state

        return actor_weights_from_state(self.algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER])

    def learner_policy(self) -> ckpt.MLPPolicy:
        from training import checkpoints as ckpt

        cfg = self.cfg
        return ckpt.MLPPolicy(
            self.learner_weights(),
            activation=cfg.ppo.activation,
            chip_memory=cfg.env.chip_memory,
            behaviour=cfg.env.behaviour,
            name="learner",
        )

    def _state(self) -> dict[str, Any]:
        return {
            "run": self.run_dir.name,
            "config": self.cfg.model_dump(mode="json"),
            "env_steps": self.env_steps,
            "learner_steps": self.learner_steps,
            "iteration": self.iteration,
            "evals": self.evals,
            "best": self.best,
            "next_eval": self.next_eval,
            "seconds": self.seconds,
            "last_eval": self.evals[-1]["results"] if self.evals else None,
        }

    def save(self) -> Path:
        """RLlib's checkpoint into ``rllib/step_<N>`` (written aside, then renamed) and our export beside it."""
        name = f"{STEP_DIR}{self.env_steps:010d}"
        final = self.run_dir / "rllib" / name
        if not final.exists():
            tmp = final.parent / f".{name}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            self.algo.save_to_path(str(tmp.resolve()))
            (tmp / STATE_FILE).write_text(json.dumps(self._state()))
            os.rename(tmp, final)
        out = self.run_dir / "checkpoints" / name
        if not out.exists():
            self._export(out)
        for kind in ("rllib", "checkpoints"):
            old = sorted((p for p in (self.run_dir / kind).glob(f"{STEP_DIR}*") if p.is_dir()), key=_step)
            for p in old[: -self.cfg.run.keep_checkpoints]:
                shutil.rmtree(p)
        return final

    def _export(self, out: Path, evals: Any = None) -> Path:
        from training import checkpoints as ckpt

        last = evals if evals is not None else (self.evals[-1]["results"] if self.evals else None)
        meta = checkpoint_metadata(self.cfg, self.run_dir.name, self.env_steps, last)
        weights = checked_actor(self.learner_weights(), self.cfg, f"run {self.run_dir.name}: learner")
        return ckpt.save_checkpoint(out, weights, meta, overwrite=True)

    def evaluate(self, games: int, seed: int) -> dict[str, Any]:
        from training.learning.selfplay import evaluate_policy

        return evaluate_policy(self.learner_policy(), self.cfg, games, seed)  # type: ignore[arg-type]

    def periodic_eval(self) -> None:
        from training.learning.selfplay import best_score

        res = self.evaluate(self.cfg.eval.games, self.cfg.run.seed + 100_003)
        for key, r in res.items():
            self.writer.add_scalar(f"eval/{key}/win_rate", r["win_rate"], self.env_steps)
            self.writer.add_scalar(f"eval/{key}/win_rate_lo", r["win_rate_ci"][0], self.env_steps)
            self.writer.add_scalar(f"eval/{key}/win_rate_hi", r["win_rate_ci"][1], self.env_steps)
            self.writer.add_scalar(f"eval/{key}/mean_penalty", r["mean_penalty"], self.env_steps)
        entry = {"env_steps": self.env_steps, "learner_steps": self.learner_steps, "results": res}
        self.evals.append(entry)
        with open(self.run_dir / "evals.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")
        score = best_score(res, self.cfg)  # type: ignore[arg-type]
        if score > self.best["score"]:
            self.best = {"score": score, "env_steps": self.env_steps}
            self._export(self.run_dir / "checkpoints" / "best", res)

    def log(self, result: dict[str, Any], seconds: float, steps: int) -> None:
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS

        t, w = self.env_steps, self.writer
        runners = result.get(ENV_RUNNER_RESULTS, {})
        w.add_scalar("charts/env_steps_per_s", steps / seconds, t)
        w.add_scalar("charts/learner_steps", self.learner_steps, t)
        if "episode_len_mean" in runners:
            w.add_scalar("charts/episode_len_mean", runners["episode_len_mean"], t)
        for module, value in runners.get("module_episode_returns_mean", {}).items():
            w.add_scalar(f"charts/return_mean/{module}", value, t)
        for key, value in result.get(LEARNER_RESULTS, {}).get(LEARNER, {}).items():
            if isinstance(value, numbers.Real) and not isinstance(value, bool):
                w.add_scalar(f"losses/{key}", value, t)
        if "snapshot_slot" in result:
            w.add_scalar("pool/snapshot_taken", int(result["snapshot_slot"].rsplit("_", 1)[1]), t)

    # ---------------------------------------------------------------- main loop
    def train(self) -> None:
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

        from training.learning.selfplay import _graceful_stop

        cfg = self.cfg
        with _graceful_stop(self):  # type: ignore[arg-type]
            while self.env_steps < cfg.run.total_env_steps and not self.stop_requested:
                if self.env_steps >= self.next_eval:
                    self.periodic_eval()
                    self.next_eval = self.env_steps + cfg.eval.every
                start = time.perf_counter()
                result = self.algo.train()
                seconds = time.perf_counter() - start
                self.seconds += seconds
                runners = result[ENV_RUNNER_RESULTS]
                before = self.env_steps  # counted here from each iteration's samples, so resumes continue it
                self.env_steps += int(runners[NUM_ENV_STEPS_SAMPLED])
                self.learner_steps += int(runners.get("num_module_steps_sampled", {}).get(LEARNER, 0))
                self.iteration += 1
                self.log(result, seconds, self.env_steps - before)
                if cfg.run.progress:
                    ret = runners.get("module_episode_returns_mean", {})
                    shown = " ".join(f"{m}={v:+.3f}" for m, v in sorted(ret.items()))
                    print(
                        f"iter {self.iteration}: {self.env_steps:,}/{cfg.run.total_env_steps:,} env steps "
                        f"({(self.env_steps - before) / seconds:,.0f}/s), returns {shown}",
                        file=sys.stderr,
                    )
                if self.iteration % cfg.run.checkpoint_every == 0:
                    self.save()
        path = self.save()
        if self.stop_requested:
            print(f"stopped at {self.env_steps:,} env steps; checkpoint: {path}", file=sys.stderr)
            print(f"continue with: python -m training.rllib_selfplay --resume {self.run_dir}", file=sys.stderr)
        else:
            self.finish()
        self.writer.close()
        self.algo.stop()

    def finish(self) -> None:
        """Final evaluation, ``checkpoints/final`` (our format) and ``final_eval.md``."""
        from training.learning.reporting import summary_table

        res = self.evaluate(self.cfg.eval.final_games, self.cfg.run.seed + 200_003)
        for key, r in res.items():
            self.writer.add_scalar(f"eval/{key}/final_win_rate", r["win_rate"], self.env_steps)
        path = self._export(self.run_dir / "checkpoints" / "final", res)
        at = self.best["env_steps"]  # None: no periodic evaluation ran
        best = {"score": self.best["score"], "timesteps": None if at is None else f"{at:,} (env steps)"}
        text = summary_table(res, self.learner_steps, self.seconds, best, self.run_dir.name)
        text += f"\n{self.env_steps:,} env steps (decisions of every seat) in all.\n"
        (self.run_dir / "final_eval.md").write_text(text)
        print(text)
        print(f"exported: {path}", file=sys.stderr)


# --------------------------------------------------------------------------- benchmark
def bench_rllib(args: argparse.Namespace) -> dict[str, float]:
    """Print and return RLlib PPO's throughput on ``configs/rllib.yaml``: env and learner steps/s of ``train()``.

    One warm-up iteration, then ``args.iterations`` timed ones (sampling *and* PPO updates, as the SB3
    figure of ``benchmark selfplay``). ``args`` carries ``iterations``, ``env_runners``, ``envs_per_runner``,
    ``address``, ``set`` (overrides) and ``clock`` (``"wall"``, or ``"cpu"``: this process's CPU time,
    meaningful with ``env_runners=0``, where sampling and learning both run here). Wired as
    ``python -m training.benchmark rllib``.
    """
    from training.scale.ray_backend import connect, require_ray_parts

    require_ray_parts("rllib")  # a package of Ray's rllib part missing: a ModuleNotFoundError naming it, no work done
    import torch
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    sets = [*args.set, f"env.env_runners={args.env_runners}", f"env.envs_per_runner={args.envs_per_runner}"]
    cfg = load_config(None, sets, RLlibConfig, default=DEFAULT_RLLIB_CONFIG)
    torch.set_num_threads(cfg.run.torch_threads)
    connect(args.address, num_cpus=max(1, cfg.env.env_runners))
    algo = algorithm_config(cfg).build_algo()

    def counts(result: dict) -> tuple[int, int]:
        runners = result[ENV_RUNNER_RESULTS]
        return int(runners[NUM_ENV_STEPS_SAMPLED_LIFETIME]), int(runners["num_module_steps_sampled_lifetime"][LEARNER])

    clock = time.process_time if getattr(args, "clock", "wall") == "cpu" else time.perf_counter
    env0, learner0 = counts(algo.train())
    start = clock()
    for _ in range(args.iterations):
        result = algo.train()
    seconds = clock() - start
    env1, learner1 = counts(result)
    algo.stop()
    out = {"env_steps_per_s": (env1 - env0) / seconds, "learner_steps_per_s": (learner1 - learner0) / seconds}
    print(
        f"rllib PPO ({cfg.env.env_runners} remote EnvRunners x {cfg.env.envs_per_runner} envs, "
        f"train_batch_size {cfg.ppo.train_batch_size}, {cfg.num_players} players): {args.iterations} iterations "
        f"in {seconds:.1f} s ({getattr(args, 'clock', 'wall')} clock): {out['env_steps_per_s']:,.0f} env steps/s "
        f"(every seat's decisions), {out['learner_steps_per_s']:,.0f} learner steps/s (the trained module's)"
    )
    return out


# --------------------------------------------------------------------------- command line
def new_run_dir(cfg: RLlibConfig) -> Path:
    """A new run folder for ``cfg`` (:func:`training.runs.new_run_dir`), with ``rllib/`` for RLlib's checkpoints."""
    return runs.new_run_dir(cfg.run.runs_dir, cfg.run.name, cfg.run.seed, subdirs=("checkpoints", "rllib"))


def build_parser() -> argparse.ArgumentParser:
    from training.cli import Parser, add_overwrite_argument
    from training.scale.ray_backend import ray_address

    p = Parser(
        prog=PROG,
        description="Self-play PPO for No Thanks! with RLlib on nothanks_v0 (see configs/rllib.yaml).",
        epilog="Any config value can be set with --set SECTION.KEY=VALUE or --SECTION.KEY VALUE. A key part that "
        "holds '.' or '=' is written in double quotes: --set 'SECTION.\"A.B=C\"=VALUE'.",
    )
    p.add_argument("config", nargs="?", help="YAML config (default configs/rllib.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config value")
    p.add_argument("--address", default="local", type=ray_address,
                   help="Ray cluster to join (auto, HOST:6379, ray://HOST:10001); "
                   "default: start Ray embedded on this machine")  # fmt: skip
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its newest RLlib checkpoint")
    p.add_argument("--export", metavar="PATH", help="export a run folder's (or RLlib checkpoint's) learner, then exit")
    p.add_argument("--out", metavar="DIR", help="with --export: the checkpoint directory to write")
    add_overwrite_argument(p, help="with --export: replace an existing --out checkpoint (refused otherwise)")
    return p


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """The command line, checked before torch or Ray is imported (so that ``--help`` and bad arguments answer at
    once), and its config overrides: the ``--set`` and ``--SECTION.KEY VALUE`` ones in the order typed (of two for
    one key, the later wins).

    Raises:
        SystemExit: from argparse: ``--help``, or bad input already reported on one ``error:`` line.
        ConfigError: for ``--overwrite`` or ``--out`` without ``--export``, or ``--export`` without ``--out``.
    """
    args = build_parser().parse_args(dotted_flags_as_set(list(argv)))
    if args.overwrite and not args.export:
        raise ConfigError(
            "--overwrite: expected only with --export (it replaces an existing --out), got --overwrite without --export"
        )
    if args.export and not args.out:
        raise ConfigError("--export: expected --out DIR for the exported checkpoint, got none")
    if args.out is not None and not args.export:
        raise ConfigError(
            f"--out: expected only with --export (it names the folder the exported checkpoint is written to; "
            f"a training run writes its own run folder), got --out {args.out} without --export"
        )
    return args, list(args.set)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after one ``error:`` line on bad input, or when the
    ``ray`` extra, a part of Ray it installs, or the ``train`` extra is not installed)."""
    from training.cli import check_outputs
    from training.scale.ray_backend import missing_ray_or_raise, require_ray_parts

    try:
        args, overrides = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:
        return int(e.code or 0)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:  # only once the arguments are good, and before a run folder is made or a checkpoint read
        require_ray_parts("rllib")  # Ray, and the packages of its rllib and tune parts (pip install ray has neither)
        from training import checkpoints as ckpt  # torch and safetensors, of the train extra
    except ImportError as e:  # an extra missing: one line; any other import error is a fault, with its traceback
        print(f"error: {missing_ray_or_raise(PROG, 'Ray RLlib', e)}", file=sys.stderr)
        return 2

    try:
        if args.export:
            # before the checkpoint is read: a checkpoint replaced only with --overwrite, never another folder
            try:
                check_outputs({"--out": args.out}, overwrite=args.overwrite, files_in=export_files(), whole_folder=True)
            except ValueError as e:  # only this check's: a ValueError from RLlib itself stays a traceback
                raise ConfigError(str(e)) from e
            print(f"exported: {export(args.export, args.out, overwrite=args.overwrite)}")
            return 0
        if args.resume is not None:
            run_dir = runs.resume_dir(args.resume, args.config)
            cfg = load_config(run_dir / runs.CONFIG_FILE, overrides, RLlibConfig)
            source = latest_rllib_checkpoint(run_dir)
            check_resume(cfg, json.loads((source / STATE_FILE).read_text()), source)
            trainer = RLlibTrainer(cfg, run_dir, address=args.address, resume_from=source)
            print(f"resuming {run_dir} from {source.name}", file=sys.stderr)
        else:
            cfg = load_config(args.config, overrides, RLlibConfig, default=DEFAULT_RLLIB_CONFIG)
            run_dir = new_run_dir(cfg)
            with runs.removed_if_start_fails(run_dir):  # e.g. no cluster at --address: no empty folder left
                dump_config(cfg, run_dir / "config.yaml")
                trainer = RLlibTrainer(cfg, run_dir, address=args.address)
            print(f"run folder: {run_dir}", file=sys.stderr)
        dump_config(cfg, run_dir / "config.yaml")
    except SystemExit as e:
        return int(e.code or 0)
    except ImportError as e:  # an extra missing: one line; any other import error is a fault, with its traceback
        print(f"error: {missing_ray_or_raise(PROG, 'Ray RLlib', e)}", file=sys.stderr)
        return 2
    except (ConfigError, OSError, ckpt.CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())

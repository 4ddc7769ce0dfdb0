"""The main job: self-play MaskablePPO with an opponent pool, checkpoints, resume, TensorBoard and evaluation.

Usage::

    python -m training.selfplay                                   # configs/selfplay.yaml (3 players)
    python -m training.selfplay configs/selfplay_4p.yaml --set ppo.learning_rate=1e-4 --run.seed 3
    python -m training.selfplay --resume runs/selfplay__0__20261129-120000
    tensorboard --logdir runs

A run writes ``runs/<name>__<seed>__<time>/``:

- ``config.yaml``: the resolved config; ``events.out.tfevents.*``: TensorBoard scalars ``charts/`` (episode
  win share and length vs the training pool, steps/s, learning rate), ``losses/``, ``eval/<opponent>/``
  (win rate, its 95% CI bounds and mean penalty against a table of that baseline), ``pool/`` (share of
  opponent seats drawn per member);
- ``checkpoints/step_<timesteps>/`` every ``run.checkpoint_every`` learner steps (see
  :mod:`training.checkpoints`), ``checkpoints/best/`` (best win rate against ``eval.best_metric``) and
  ``checkpoints/final/``; ``evals.jsonl`` (every evaluation, with ``train_seconds``: the run's training time
  when it finished, every session counted and the time between sessions not), ``final_eval.md`` and
  ``learning_curve.png``. TensorBoard's ``eval/train_seconds`` and ``eval/final_train_seconds`` hold the same
  clock (``training.bench.curves`` plots against it).

Ctrl-C or SIGTERM stops after the current step (during start-up: once the run is set up, before training),
saves a checkpoint at the last finished PPO update and exits 0; ``--resume`` continues the timestep count,
optimizer, opponent pool, RNG and TensorBoard curves. Games in flight at the stop are not saved: a resumed run
deals new ones. A stop during a periodic evaluation ends it at once and drops it (nothing of it is written; the
checkpoint keeps it due, so ``--resume`` runs it). A stop during the final evaluation ends it (the checkpoint at the
last step is already saved) and exits 0; ``--resume`` then runs the final evaluation.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import random
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

import numpy as np
import torch

from nothanks_env import encoding as enc
from nothanks_env.game import BID0, MAX_BID, did_you_mean
from training import checkpoints as ckpt
from training.learning import runs
from training.learning.config import (
    Config,
    ConfigError,
    dotted_flags_as_set,
    dump_config,
    load_config,
    load_yaml,
    planned_timesteps,
)
from training.learning.reporting import learning_curve, sb3_logger, summary_table

STEP_DIR = "step_"

RESUME_FIXED: tuple[str, ...] = (
    "game",
    "env.games_per_count",
    "env.chip_memory",
    "env.behaviour",
    "ppo.net_arch",
    "ppo.activation",
)
"""Config keys a ``--resume`` may not change: the network's shape and inputs, and the games whose RNG
states the checkpoint holds. Anything else (length, learning rate, pool, evaluation) may change."""


# --------------------------------------------------------------------------- building blocks
def make_pool(cfg: Config):
    """The opponent pool: each scripted spec built once per player count via :func:`training.specs.load_policy`."""
    from training.learning.pool import OpponentPool
    from training.specs import load_policy

    scripted = {}
    for k, (spec, weight) in enumerate(cfg.pool.scripted.items()):
        pols = {
            n: load_policy(spec, num_players=n, seed=cfg.run.seed * 1000 + 17 * k + n) for n in cfg.game.num_players
        }
        scripted[spec] = (weight, pols)
    return OpponentPool(
        scripted,
        snapshot_weight=cfg.pool.snapshot_weight,
        latest_share=cfg.pool.latest_share,
        max_snapshots=cfg.pool.max_snapshots,
        weighting=cfg.pool.league.weighting,
        power=cfg.pool.league.power,
        floor=cfg.pool.league.floor,
        window=cfg.pool.league.window,
        beaten_at=cfg.pool.league.beaten_at,
        targets=cfg.pool.league.targets,
        temperature=cfg.pool.league.temperature,
        homogeneous=cfg.pool.homogeneous,
        lineups=cfg.pool.lineups,
        chip_memory=cfg.env.chip_memory,
        behaviour=cfg.env.behaviour,
        activation=cfg.ppo.activation,
        snapshot_sample=cfg.pool.snapshot_sample,
        seed=cfg.run.seed + 7,
    )


def make_env(cfg: Config, pool):
    """The :class:`~training.vec_env.SelfPlayVecEnv` of ``cfg`` (one VectorGame per player count)."""
    from training.learning.vec_env import SelfPlayVecEnv

    configs = [cfg.game.game_config(n) for n in cfg.game.num_players]
    return SelfPlayVecEnv(
        configs,
        cfg.env.games_per_count,
        pool,
        chip_memory=cfg.env.chip_memory,
        behaviour=cfg.env.behaviour,
        reward=cfg.env.reward,
        seed=cfg.run.seed,
    )


def make_model(cfg: Config, env, n_steps: int | None = None):
    """A fresh MaskablePPO for ``env`` with ``cfg.ppo`` (CPU; the logger is set by the caller): an
    :class:`~training.learning.collector.OverlappedMaskablePPO` for a collector process's env.

    ``n_steps`` (per env) overrides ``cfg.ppo.n_steps``, e.g. to keep the rollout size for another env count.
    """
    from sb3_contrib import MaskablePPO

    from training.learning.collector import CollectorEnv, OverlappedMaskablePPO

    p = cfg.ppo
    lr, final = p.learning_rate, p.lr_final_fraction

    def schedule(progress_remaining: float) -> float:  # SB3 passes 1 at the start, 0 at total_timesteps
        return lr if p.lr_schedule == "constant" else lr * (final + (1.0 - final) * progress_remaining)

    act = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[p.activation]
    algo = OverlappedMaskablePPO if isinstance(env, CollectorEnv) else MaskablePPO
    return algo(
        "MlpPolicy",
        env,
        learning_rate=schedule,
        n_steps=p.n_steps if n_steps is None else n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
        policy_kwargs={
            "net_arch": {"pi": list(p.net_arch), "vf": list(p.net_arch)},
            "activation_fn": act,
            # SB3's Adam (eps 1e-5) as one fused kernel per step: the same update, measured 14% faster
            "optimizer_kwargs": {"eps": 1e-5, "fused": True},
        },
        seed=cfg.run.seed,
        device="cpu",
        verbose=0,
    )


def current_policy(model, cfg: Config, name: str = "learner"):
    """A frozen, deterministic :class:`~training.checkpoints.MLPPolicy` copy of the learner's actor."""
    return ckpt.MLPPolicy(
        ckpt.actor_weights(model.policy),
        activation=cfg.ppo.activation,
        chip_memory=cfg.env.chip_memory,
        behaviour=cfg.env.behaviour,
        name=name,
    )


def evaluate_policy(policy, cfg: Config, games: int, seed: int) -> dict[str, dict[str, Any]]:
    """Win rate and mean penalty of ``policy`` against a table of each ``cfg.eval.opponents`` spec.

    Uses :func:`training.evaluate.evaluate` (seats rotated, duplicate deals). Keys are the opponent spec,
    suffixed ``@<n>p`` when the run trains several player counts.

    Returns:
        key -> {win_rate, win_rate_ci (low, high), mean_penalty, games, num_players, opponent}.
    """
    from training.evaluation.evaluate import evaluate
    from training.specs import load_policy

    out = {}
    for n in cfg.game.num_players:
        for k, spec in enumerate(cfg.eval.opponents):
            opp = load_policy(spec, num_players=n, seed=seed + k)
            rep = evaluate(
                [policy], [opp], num_players=n, games=games, seed=seed, config=cfg.game.game_config(n),
                workers=cfg.eval.workers,
            )  # fmt: skip
            s = rep[policy.name]
            key = spec if len(cfg.game.num_players) == 1 else f"{spec}@{n}p"
            out[key] = {
                "opponent": spec,
                "num_players": n,
                "games": rep.games,
                "win_rate": s.win_rate,
                "win_rate_ci": list(s.win_rate_ci),
                "mean_penalty": s.mean_penalty,
                "parity": 1.0 / n,
            }
    return out


def best_score(results: dict[str, dict[str, Any]], cfg: Config) -> float:
    """Mean win rate against ``cfg.eval.best_metric`` over the player counts, or with ``"min"`` the lowest
    win rate x n over every table (1.0 = parity); higher is better."""
    if cfg.eval.best_metric == "min":
        return float(min(r["win_rate"] * r["num_players"] for r in results.values()))
    vals = [r["win_rate"] for r in results.values() if r["opponent"] == cfg.eval.best_metric]
    return float(np.mean(vals))


# --------------------------------------------------------------------------- run folder
def new_run_dir(cfg: Config) -> Path:
    """A new run folder for ``cfg`` (:func:`training.runs.new_run_dir`)."""
    return runs.new_run_dir(cfg.run.runs_dir, cfg.run.name, cfg.run.seed)


def step_checkpoints(run_dir: Path) -> list[Path]:
    """Complete periodic checkpoints of a run, oldest first (``.tmp`` leftovers of a kill are skipped)."""
    found = [p for p in (run_dir / "checkpoints").glob(f"{STEP_DIR}*") if p.is_dir() and p.name[5:].isdigit()]
    return sorted(found, key=lambda p: int(p.name[5:]))


def global_rng_state() -> dict[str, Any]:
    """This process's torch, NumPy and Python RNG states, as builtins and tensors."""
    return {
        "torch": torch.get_rng_state(),
        "numpy": [x.tolist() if isinstance(x, np.ndarray) else x for x in np.random.get_state()],
        "python": random.getstate(),
    }


def set_global_rng_state(state: dict[str, Any]) -> None:
    """Restore what :func:`global_rng_state` saved (extra keys are ignored)."""
    torch.set_rng_state(state["torch"])
    name, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))
    random.setstate(tuple(tuple(x) if isinstance(x, list) else x for x in state["python"]))


def table_rng_state(env) -> list[dict[str, Any]]:
    """The deal and learner-seat RNG states of each of a :class:`SelfPlayVecEnv`'s tables."""
    return [
        {"game": _deal_rng(t).bit_generator.state, "seats": r.bit_generator.state}
        for t, r in zip(env.tables, env.seat_rngs)
    ]


def set_table_rng_state(tables: list[dict[str, Any]], env) -> None:
    """Restore what :func:`table_rng_state` saved."""
    for t, r, s in zip(env.tables, env.seat_rngs, tables):
        _deal_rng(t).bit_generator.state = s["game"]
        r.bit_generator.state = s["seats"]


def rng_state(env) -> dict[str, Any]:
    """Every RNG a run draws from, as builtins and tensors (``torch.load(weights_only=True)`` safe).

    With a collector process's env, its RNGs are included: ``tables`` and ``collector``
    (:meth:`~training.learning.collector.CollectorEnv.rng_state`).
    """
    if not hasattr(env, "tables"):
        return global_rng_state() | env.rng_state()
    return global_rng_state() | {"tables": table_rng_state(env)}


def set_rng_state(state: dict[str, Any], env) -> None:
    """Restore what :func:`rng_state` saved (a checkpoint of either collector mode fits either)."""
    set_global_rng_state(state)
    if not hasattr(env, "tables"):
        env.set_rng_state({k: state[k] for k in ("tables", "collector") if k in state})
    else:
        set_table_rng_state(state["tables"], env)


def _deal_rng(table) -> np.random.Generator:
    """The RNG a learner table deals from: the batched engine's, or the scalar table's own (special cards)."""
    return table.rng if hasattr(table, "rng") else table.game.rng


def check_resume(cfg: Config, meta: dict[str, Any], checkpoint: Path) -> None:
    """Refuse a resumed config that changes a :data:`RESUME_FIXED` key of the checkpoint's own config. The game is
    compared by the rules it resolves to, so ``game.preset: standard`` resumes a run made with no preset.

    Raises:
        ConfigError: naming the key, the run's value and the value received.
    """
    changed = runs.resume_change(meta.get("config"), cfg, RESUME_FIXED)
    if changed is not None:
        key, a, b = changed
        raise ConfigError(
            f"--resume: {key}: expected the run's {a!r} (checkpoint {checkpoint.name} was trained with it; "
            f"start a new run, or warm-start one with run.init_from), got {b!r}"
        )


def saved_config_hint(run_dir: Path, overrides: Sequence[str], message: str) -> str:
    """How to resume a run whose saved ``config.yaml`` this version refuses (a policy spec since renamed or
    removed), appended to the error ``message`` of loading it with ``overrides``; ``""`` when the saved file
    loads on its own (the overrides are what is refused) or the refused key is not found in it.

    The saved config is never changed to load: the hint names the key, where it comes from, and the command
    that replaces it on resume: ``overrides`` again, plus a ``--set`` of the key to its saved value with the
    refused spec replaced by the one the error suggests (``did you mean``), else by ``NEW_SPEC``. Example:
    ``; pool.scripted is the run's saved value in runs/x/config.yaml: resume with it replaced, e.g. python -m
    training.selfplay --resume runs/x --set 'pool.scripted={"heuristic": 1.0, "random": 1.0}' (config.yaml is
    then rewritten with it)``.
    """
    import re

    import yaml

    path = run_dir / runs.CONFIG_FILE
    try:
        load_config(path)
        return ""
    except ConfigError:
        pass
    prefix = f"invalid config {path}" + (f" with overrides {list(overrides)}" if overrides else "") + ": "
    if not message.startswith(prefix):
        return ""
    key = message[len(prefix) :].split(": ", 1)[0]
    try:
        value: Any = load_yaml(path.read_text(encoding="utf-8"))  # read as load_config read it
        for part in key.split("."):
            value = value[part]
    except (OSError, yaml.YAMLError, ConfigError, KeyError, TypeError):
        return ""
    refused = re.search(r"policy spec '([^']*)'", message)
    meant = re.search(r"\(did you mean '([^']*)'\?\)", message)
    new = meant.group(1) if meant else "NEW_SPEC"
    if isinstance(value, dict) and refused is not None:
        value = {new if k == refused.group(1) else k: v for k, v in value.items()}
    elif isinstance(value, list) and refused is not None:
        value = [new if v == refused.group(1) else v for v in value]
    elif isinstance(value, str):  # a spec named on its own, e.g. eval.best_metric
        value = new
    else:
        return ""
    sets = [*overrides, f"{key}={json.dumps(value) if isinstance(value, (dict, list)) else value}"]
    command = " ".join(["python -m training.selfplay --resume", shlex.quote(str(run_dir))])
    command += "".join(f" --set {shlex.quote(item)}" for item in sets)
    return (
        f"; {key} is the run's saved value in {path}: resume with it replaced, e.g. {command} "
        f"({runs.CONFIG_FILE} is then rewritten with it)"
    )


def finished_at(run_dir: Path) -> int | None:
    """Learner steps of the run's ``checkpoints/final``, or None if the run has not finished."""
    final = run_dir / "checkpoints" / "final"
    if not final.is_dir():
        return None
    return int(ckpt.read_metadata(final).get("timesteps") or 0)


def init_actor_weights(cfg: Config) -> dict[str, torch.Tensor] | None:
    """The actor weights ``cfg.run.init_from`` names (None without it), checked against ``cfg``.

    Raises:
        ConfigError: naming the spec, if it is not a checkpoint (a name close to a shipped one says which:
            ``got 'ppo-3pv' (did you mean 'ppo-3p'?)``), was not trained for every player count of this
            config, or its activation, chip memory or layer shapes (``ppo.net_arch``) differ, or it was
            trained with ``behaviour`` and this config has it off.

    A checkpoint trained without ``env.behaviour`` may start a run with it: its first layer gets zero
    weights for the :data:`~nothanks_env.encoding.BEHAVIOUR_LAYOUT` inputs, so the actor starts out acting
    exactly as the checkpoint did and learns to use them. A checkpoint with the same number of layers but
    narrower hidden layers than ``ppo.net_arch`` is widened by :func:`widen_hidden`, which also keeps
    its actions exactly.
    """
    spec = cfg.run.init_from
    if spec is None:
        return None
    try:
        meta = ckpt.read_metadata(spec)
        weights = ckpt.load_checkpoint_policy(spec).weights()
    except (OSError, ValueError) as e:
        hint = did_you_mean(spec, list(ckpt.SHIPPED)) if isinstance(e, FileNotFoundError) else ""
        why = "no checkpoint at that path" if hint else str(e)  # a guess says enough: not the 19 shipped names
        raise ConfigError(
            f"run.init_from: expected a checkpoint path or shipped name, got {spec!r}{hint} ({why})"
        ) from e
    for key, mine in (("activation", cfg.ppo.activation), ("chip_memory", cfg.env.chip_memory)):
        if meta[key] != mine:
            raise ConfigError(f"run.init_from {spec!r}: has {key}={meta[key]!r}, expected this config's {mine!r}")
    had = bool(meta.get("behaviour", False))
    if had and not cfg.env.behaviour:
        raise ConfigError(
            f"run.init_from {spec!r}: has behaviour=True, expected this config's False "
            "(it reads each seat's pass/take record: add --set env.behaviour=true)"
        )
    if cfg.env.behaviour and not had:
        w = weights["layers.0.weight"]
        weights = dict(weights)
        weights["layers.0.weight"] = torch.cat([w, w.new_zeros(w.shape[0], enc.BEHAVIOUR_SIZE)], dim=1)
    trained = meta.get("num_players") or []
    missing = [n for n in cfg.game.num_players if trained and n not in trained]
    if missing:
        raise ConfigError(
            f"run.init_from {spec!r}: trained for {trained} players, expected one that covers this config's "
            f"game.num_players {cfg.game.num_players}"
        )
    special = bool(cfg.game.special_cards)
    n_in, n_out = ckpt.network_sizes(special, cfg.env.behaviour)
    standard_in = ckpt.network_sizes(False, cfg.env.behaviour)[0]
    if special and tuple(weights["layers.0.weight"].shape)[1:] == (standard_in,):
        weights = widen_for_special(weights)
    trained_actions = int(weights[f"layers.{len(weights) // 2 - 1}.weight"].shape[0])
    if not special and trained_actions != n_out:
        raise ConfigError(
            f"run.init_from {spec!r}: trained on special cards ({trained_actions} actions), expected a checkpoint "
            f"of the standard game ({n_out} actions) for this config's game (or set game.preset: wildcards)"
        )
    sizes = [n_in, *cfg.ppo.net_arch, n_out]
    want = [(sizes[i + 1], sizes[i]) for i in range(len(sizes) - 1)]
    got = [tuple(weights[f"layers.{i}.weight"].shape) for i in range(len(weights) // 2)]
    if len(want) == len(got) and got[0][1] == n_in and got[-1][0] == n_out and want != got:
        hidden = [shape[0] for shape in got[:-1]]
        if all(h <= w for h, w in zip(hidden, cfg.ppo.net_arch)):
            weights = widen_hidden(weights, list(cfg.ppo.net_arch), seed=cfg.run.seed)
            got = [tuple(weights[f"layers.{i}.weight"].shape) for i in range(len(weights) // 2)]
    if want != got:
        raise ConfigError(f"run.init_from {spec!r}: expected actor layer shapes {want} (ppo.net_arch), got {got}")
    return weights


def widen_hidden(weights: dict[str, torch.Tensor], widths: list[int], seed: int = 0) -> dict[str, torch.Tensor]:
    """An actor with wider hidden layers that computes exactly the same logits (function-preserving widening).

    Args:
        weights: actor weights as :func:`training.checkpoints.actor_weights` returns them (``layers.i.weight``
            of shape (out, in), float32, and ``layers.i.bias``).
        widths: the new hidden widths, one per hidden layer, each at least the old width.
        seed: seeds the new units' incoming weights.

    Each new hidden unit gets incoming weights drawn as torch's ``nn.Linear`` default does (uniform in
    ±1/sqrt(fan_in)) and bias 0, and **zero outgoing weights**, so the next layer ignores it and the logits
    are unchanged; its outgoing weights get gradients from the first update on, so the new units start
    learning at once. Old units keep their weights.
    """
    n_layers = len(weights) // 2
    if len(widths) != n_layers - 1:
        raise ValueError(f"widths: expected {n_layers - 1} hidden widths, got {widths}")
    gen = torch.Generator().manual_seed(seed)
    out = dict(weights)
    for i, width in enumerate(widths):
        w, b = out[f"layers.{i}.weight"], out[f"layers.{i}.bias"]
        extra = width - w.shape[0]
        if extra < 0:
            raise ValueError(f"widths[{i}]: expected at least the checkpoint's {w.shape[0]}, got {width}")
        if extra == 0:
            continue
        bound = 1.0 / w.shape[1] ** 0.5
        new_rows = (torch.rand(extra, w.shape[1], generator=gen, dtype=w.dtype) * 2 - 1) * bound
        out[f"layers.{i}.weight"] = torch.cat([w, new_rows], 0)
        out[f"layers.{i}.bias"] = torch.cat([b, b.new_zeros(extra)], 0)
        nxt = out[f"layers.{i + 1}.weight"]
        out[f"layers.{i + 1}.weight"] = torch.cat([nxt, nxt.new_zeros(nxt.shape[0], extra)], 1)
    return out


def widen_for_special(weights: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A standard actor (389 inputs, 2 outputs) as a special-cards actor (499 inputs, 125 outputs).

    The 389 standard pieces keep their meaning in the special layout (:mod:`nothanks_env.encoding`), and
    PASS/TAKE keep ids 0/1, so the network plays offers as before: the first layer gets zero weights for
    the 110 special inputs (inserted after the 389, so behaviour inputs, if any, stay last), and the last
    layer zero weights for the 123 new actions with bias 0, except that a bid of k chips starts at -0.5 k,
    so that a fresh head does not throw chips away at auctions. Hidden layers are unchanged.
    """
    out = dict(weights)
    first = weights["layers.0.weight"]
    extra_in = first.new_zeros(first.shape[0], enc.SPECIAL_OBS_SIZE - enc.OBS_SIZE)
    out["layers.0.weight"] = torch.cat([first[:, : enc.OBS_SIZE], extra_in, first[:, enc.OBS_SIZE :]], 1)
    last = len(weights) // 2 - 1
    w, b = weights[f"layers.{last}.weight"], weights[f"layers.{last}.bias"]
    extra = ckpt.network_sizes(True)[1] - 2
    out[f"layers.{last}.weight"] = torch.cat([w, w.new_zeros(extra, w.shape[1])], 0)
    bias = b.new_zeros(extra)
    bias[BID0 - 2 : BID0 - 2 + MAX_BID + 1] = -0.5 * torch.arange(MAX_BID + 1, dtype=b.dtype)  # after PASS, TAKE
    out[f"layers.{last}.bias"] = torch.cat([b, bias], 0)
    return out


# --------------------------------------------------------------------------- the training loop
class Trainer:
    """One run: builds pool, env and model, trains with periodic work at PPO update boundaries, saves."""

    def __init__(self, cfg: Config, run_dir: Path, resume_from: Path | None = None) -> None:
        self.cfg, self.run_dir = cfg, run_dir
        self.resumed_at: int | None = None
        self.stop_requested = False
        self.progress_bar: Any = None  # the tqdm bar while train() runs (_Callback): evaluations write on it
        self.env: Any = None
        # SIGINT/SIGTERM while the collector process starts and the model loads set stop_requested: train() then
        # saves a checkpoint and ends without training, closing the collector (the default action would kill this
        # process alone: the collector ignores both signals). Any exception, a second Ctrl-C included, ends the
        # collector before it propagates, not at the interpreter's exit.
        with _graceful_stop(self):
            try:
                self._start(resume_from)
            except BaseException:
                if self.env is not None:
                    self.env.close()
                raise

    def _start(self, resume_from: Path | None) -> None:
        """Build the pool, the env (or start the collector process), the model and the writer; load a checkpoint."""
        from torch.utils.tensorboard import SummaryWriter

        cfg, run_dir = self.cfg, self.run_dir
        torch.set_num_threads(cfg.run.torch_threads)
        random.seed(cfg.run.seed)
        np.random.seed(cfg.run.seed)
        torch.manual_seed(cfg.run.seed)
        if cfg.run.collector == "process":
            from training.learning.collector import CollectorEnv

            self.env = CollectorEnv(cfg)  # the pool and the games live in the collector process
            self.pool = self.env.pool
        else:
            self.pool = make_pool(cfg)
            self.env = make_env(cfg, self.pool)
        self.model = make_model(cfg, self.env)
        self.evals: list[dict[str, Any]] = []
        self.best: dict[str, Any] = {"score": -1.0, "timesteps": None}
        self.elapsed = 0.0  # training wall time of earlier sessions of this run, seconds
        self.next = {"snapshot": cfg.pool.snapshot_every, "checkpoint": cfg.run.checkpoint_every, "eval": 0}
        if resume_from is not None:
            self._load(resume_from)
        elif cfg.run.init_from is not None:
            ckpt.load_actor_weights(self.model.policy, init_actor_weights(cfg), source=cfg.run.init_from)
        # Created only once loading has worked, so a refused resume leaves no empty event file. On resume,
        # purge_step hides the scalars a killed session wrote after the checkpoint (TensorBoard drops
        # every earlier event at or after that step), so no curve holds a step twice.
        purge = None if self.resumed_at is None else self.resumed_at + 1
        self.writer = SummaryWriter(str(run_dir), purge_step=purge)
        if self.resumed_at is not None:
            self._drop_newer_evals()
        self.model.set_logger(sb3_logger(self.writer))
        self.final_results: dict[str, Any] | None = None  # the final evaluation, once finish() ran
        self.final_train_seconds: float | None = None  # the training time finish()'s summary states, once it ran
        self.trained_timesteps = self.model.num_timesteps
        self.planned_timesteps = cfg.planned_timesteps(self.model.num_timesteps)  # in whole rollouts
        self.timesteps_name = "run.total_timesteps"  # how the rounding note names the total (exploit: --timesteps)

    # ---------------------------------------------------------------- state
    def _train_state(self) -> dict[str, Any]:
        return {
            "policy": self.model.policy.state_dict(),
            "optimizer": self.model.policy.optimizer.state_dict(),
            "num_timesteps": self.trained_timesteps,
            "n_updates": self.model._n_updates,
            "pool": self.pool.state_dict(),
            "rng": rng_state(self.env),
            "evals": json.dumps(self.evals),
            "best": json.dumps(self.best),
            "next": dict(self.next),
            "elapsed": self.train_seconds(),
        }

    def train_seconds(self) -> float:
        """Training time of the run so far, seconds: earlier sessions up to the checkpoint this one resumed
        from, plus this session (periodic evaluations included; the time between sessions is not)."""
        return self.elapsed + (time.time() - self.session_start)

    def _load(self, path: Path) -> None:
        st = ckpt.load_train_state(path)
        try:
            self.model.policy.load_state_dict(st["policy"])
            self.model.policy.optimizer.load_state_dict(st["optimizer"])
        except (RuntimeError, ValueError, KeyError) as e:
            raise ckpt.CheckpointError(f"checkpoint {path}: its network does not fit this config ({e})") from e
        self.model.num_timesteps = int(st["num_timesteps"])
        self.model._n_updates = int(st["n_updates"])
        self.pool.load_state_dict(st["pool"])
        set_rng_state(st["rng"], self.env)
        self.evals = json.loads(st["evals"])
        self.best = json.loads(st["best"])
        self.next = {k: int(v) for k, v in st["next"].items()}
        self.elapsed = float(st["elapsed"])
        self.resumed_at = int(st["num_timesteps"])
        on_disk = self._best_on_disk()
        if on_disk is not None and on_disk["score"] > self.best["score"]:
            # best/ was replaced after this checkpoint (its evaluation is dropped below): keep its score as
            # the bar, so that only a better model replaces it, never one that beats a stale record.
            self.best = on_disk

    def _best_on_disk(self) -> dict[str, Any] | None:
        """Score and step of ``checkpoints/best`` from its own metadata, or None if there is none."""
        path = self.run_dir / "checkpoints" / "best"
        if not path.is_dir():
            return None
        meta = ckpt.verify_checkpoint(path)
        if not meta.get("eval"):
            return None
        return {"score": best_score(meta["eval"], self.cfg), "timesteps": meta.get("timesteps")}

    def _drop_newer_evals(self) -> None:
        """Rewrite ``evals.jsonl`` as the checkpoint resumed from knows it: evaluations a killed session ran
        after that checkpoint are dropped (the resumed run evaluates those steps again)."""
        path = self.run_dir / "evals.jsonl"
        tmp = path.with_name(".evals.jsonl.tmp")
        tmp.write_text("".join(json.dumps(e) + "\n" for e in self.evals))
        tmp.replace(path)

    def metadata(self, evals: dict[str, Any] | None = None) -> dict[str, Any]:
        cfg = self.cfg
        return {
            "kind": "nothanks-selfplay-maskableppo",
            "run": self.run_dir.name,
            "timesteps": self.trained_timesteps,
            # run.total_timesteps as written, and where this session's whole rollouts end
            "total_timesteps": {"requested": cfg.run.total_timesteps, "planned": self.planned_timesteps},
            "num_players": list(cfg.game.num_players),
            "chip_memory": cfg.env.chip_memory,
            "behaviour": cfg.env.behaviour,
            "activation": cfg.ppo.activation,
            "net_arch": list(cfg.ppo.net_arch),
            "reward": cfg.env.reward,
            "eval": evals if evals is not None else (self.evals[-1]["results"] if self.evals else None),
            "config": cfg.model_dump(mode="json"),
            "saved_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        }

    def save(self) -> Path:
        """Write ``step_<timesteps>`` (skipped if it exists) and prune old periodic checkpoints."""
        path = self.run_dir / "checkpoints" / f"{STEP_DIR}{self.trained_timesteps:010d}"
        if not path.exists():
            ckpt.save_checkpoint(path, ckpt.actor_weights(self.model.policy), self.metadata(), self._train_state())
        for old in step_checkpoints(self.run_dir)[: -self.cfg.run.keep_checkpoints]:
            shutil.rmtree(old)
        return path

    # ---------------------------------------------------------------- periodic work
    def on_update_boundary(self) -> None:
        """Called between PPO updates (weights fixed): snapshots, evaluation, checkpoints, TensorBoard."""
        t = self.model.num_timesteps
        self.trained_timesteps = t
        cfg = self.cfg
        self.hold_actor(t < cfg.run.critic_warmup)
        if t >= self.next["snapshot"]:
            self.pool.add_snapshot(ckpt.actor_weights(self.model.policy), t)
            self.env.prune_pool()
            self.next["snapshot"] = t + cfg.pool.snapshot_every
        if t != self.resumed_at:  # at the step resumed from they were written before the checkpoint
            for name, share in self.pool.composition().items():
                self.writer.add_scalar(f"pool/{name}", share, t)
            for name, st in self.pool.league().items():
                if not math.isnan(st["win_rate"]):  # NaN until its first game: no point to plot
                    self.writer.add_scalar(f"pool/{name}/win_rate", st["win_rate"], t)
                self.writer.add_scalar(f"pool/{name}/weight", st["share"], t)
                if not math.isnan(st.get("table_win_rate", math.nan)):
                    self.writer.add_scalar(f"pool/{name}/table_win_rate", st["table_win_rate"], t)
            self.writer.add_scalar("pool/snapshots_held", self.pool.snapshot_count, t)
        if t >= self.next["eval"] and not self.stop_requested:  # stopping: the saved checkpoint keeps it due
            try:
                self.evaluate(t)
            except _PeriodicEvaluationStopped:  # nothing of it was written: learn() ends at the next step
                return
            self.next["eval"] = t + cfg.eval.every
        if t >= self.next["checkpoint"]:
            self.save()
            self.next["checkpoint"] = t + cfg.run.checkpoint_every

    def hold_actor(self, hold: bool) -> None:
        """Freeze (``hold``) or free the actor's layers: while held, PPO updates change the critic only."""
        pol = self.model.policy
        for param in [*pol.mlp_extractor.policy_net.parameters(), *pol.action_net.parameters()]:
            param.requires_grad_(not hold)

    def evaluate(self, t: int) -> dict[str, Any]:
        """The periodic evaluation at ``t`` learner steps: TensorBoard, ``evals.jsonl``, ``best`` if it is.

        Raises:
            _PeriodicEvaluationStopped: on SIGINT/SIGTERM while its games are played
                (:class:`_periodic_evaluation_stop`), before anything of it is written.
        """
        cfg = self.cfg
        start = time.time()
        with _periodic_evaluation_stop(self, t):
            res = evaluate_policy(current_policy(self.model, cfg), cfg, cfg.eval.games, seed=cfg.run.seed + 100_003)
        for key, r in res.items():
            self.writer.add_scalar(f"eval/{key}/win_rate", r["win_rate"], t)
            self.writer.add_scalar(f"eval/{key}/win_rate_lo", r["win_rate_ci"][0], t)
            self.writer.add_scalar(f"eval/{key}/win_rate_hi", r["win_rate_ci"][1], t)
            self.writer.add_scalar(f"eval/{key}/mean_penalty", r["mean_penalty"], t)
        self.writer.add_scalar("eval/seconds", time.time() - start, t)
        train_seconds = round(self.train_seconds(), 3)
        self.writer.add_scalar("eval/train_seconds", train_seconds, t)
        self.writer.flush()
        entry = {"timesteps": t, "train_seconds": train_seconds, "results": res}
        self.evals.append(entry)
        with open(self.run_dir / "evals.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")
        score = best_score(res, cfg)
        new_best = score > self.best["score"]
        self.latest_win = {k: r["win_rate"] for k, r in res.items()}
        if self.progress_bar is not None:  # tqdm.write below redraws the bar: with these figures, not the last ones
            self.progress_bar.set_postfix(win_postfix(self.latest_win), refresh=False)
        _console(eval_line(t, res, score, cfg.eval.best_metric, new_best, time.time() - start))
        if new_best:
            self.best = {"score": score, "timesteps": t}
            ckpt.save_checkpoint(
                self.run_dir / "checkpoints" / "best",
                ckpt.actor_weights(self.model.policy),
                self.metadata(res),
                overwrite=True,
            )
        return res

    # ---------------------------------------------------------------- main loop
    def train(self) -> None:
        cfg = self.cfg
        remaining = cfg.run.total_timesteps - self.model.num_timesteps
        self.session_start = time.time()
        self.latest_win: dict[str, float] = {}
        if self.evals:
            self.latest_win = {k: r["win_rate"] for k, r in self.evals[-1]["results"].items()}
        try:
            callback = None
            if remaining > 0 and not self.stop_requested:  # a stop during start-up saves and ends at once
                note = cfg.rounding_note(self.model.num_timesteps, self.timesteps_name)
                if note is not None:
                    _say(note)
                callback = _Callback(self)
                with _graceful_stop(self):
                    self.model.learn(remaining, callback=callback, reset_num_timesteps=False)
                if not self.stop_requested:  # learn() ends right after a PPO update
                    self.trained_timesteps = self.model.num_timesteps
                self.model.num_timesteps = self.trained_timesteps
            path = self.save()  # before any write to stderr, which Ctrl-C under `| tee` leaves without a reader
            if callback is not None:
                with contextlib.suppress(OSError):  # stderr gone: see _say
                    callback.close(self.trained_timesteps)  # a stop drops the unfinished rollout: so does the bar
            if self.stop_requested:
                _say(f"stopped at {self.trained_timesteps:,} learner steps; checkpoint: {path}")
                _say(f"continue with: python -m training.selfplay --resume {self.run_dir}")
            else:
                try:
                    self.finish()
                except _FinalEvaluationStopped as stop:  # nothing of the final evaluation was written
                    self.stop_requested = True
                    _say(
                        f"{stop.signal_name}: final evaluation stopped; the checkpoint at {self.trained_timesteps:,} "
                        f"learner steps is saved: {path}"
                    )
                    _say(f"run the final evaluation with: python -m training.selfplay --resume {self.run_dir}")
        finally:
            self.env.close()  # a collector process ends here
            self.writer.close()

    def finish(self) -> None:
        """Final evaluation, ``final`` checkpoint, summary table and learning-curve plot.

        Raises:
            _FinalEvaluationStopped: on SIGINT/SIGTERM during the evaluation (:class:`_final_evaluation_stop`),
                before anything of it is written; a stop after it waits for the ``final`` checkpoint and summary.
        """
        cfg = self.cfg
        t = self.trained_timesteps
        train_seconds = self.final_train_seconds = self.train_seconds()
        with _final_evaluation_stop() as stop:
            _say(
                f"final evaluation at {t:,} learner steps: {cfg.eval.final_games:,} games per opponent table "
                "(Ctrl-C or SIGTERM stops it; the checkpoint is saved)"
            )
            start = time.time()
            seed = cfg.run.seed + 200_003
            res = evaluate_policy(current_policy(self.model, cfg), cfg, cfg.eval.final_games, seed=seed)
            stop.evaluating = False  # from here a stop waits for what follows
            self.final_results = res
            eval_seconds = time.time() - start
            for key, r in res.items():
                self.writer.add_scalar(f"eval/{key}/final_win_rate", r["win_rate"], t)
            self.writer.add_scalar("eval/final_train_seconds", self.train_seconds(), t)
            ckpt.save_checkpoint(
                self.run_dir / "checkpoints" / "final", ckpt.actor_weights(self.model.policy), self.metadata(res),
                overwrite=True,
            )  # fmt: skip
            text = summary_table(res, t, train_seconds, self.best, self.run_dir.name, eval_seconds=eval_seconds)
            (self.run_dir / "final_eval.md").write_text(text)
            final = {"timesteps": t, "results": res}
            learning_curve(self.evals, self.run_dir / "learning_curve.png", title=self.run_dir.name, final=final)
        print(text)


def eval_line(
    timesteps: int, results: dict[str, dict[str, Any]], score: float, metric: str, new_best: bool, seconds: float
) -> str:
    """One console line for a periodic evaluation: each table's win rate with its 95% CI, and the score.

    The score is :func:`best_score`'s, named for what it is: with ``metric="min"`` the lowest win rate x
    players over the tables (1.0 is parity), otherwise the mean win rate against ``metric``.

    Example: ``eval @ 500,000 steps: heuristic 0.632 [0.601, 0.663] | random 0.998 [0.995, 1.000];
    score 1.896 = lowest win rate x players (parity 1) (new best); 21 s``.
    """
    tables = " | ".join(
        f"{k} {r['win_rate']:.3f} [{r['win_rate_ci'][0]:.3f}, {r['win_rate_ci'][1]:.3f}]" for k, r in results.items()
    )
    best = " (new best)" if new_best else ""
    what = "lowest win rate x players (parity 1)" if metric == "min" else f"mean win rate against {metric}"
    return f"eval @ {timesteps:,} steps: {tables}; score {score:.3f} = {what}{best}; {seconds:.0f} s"


def win_postfix(win_rates: dict[str, float]) -> dict[str, str]:
    """The progress bar's postfix for the latest evaluation's win rates: ``{"win[heuristic]": "63.2%", ...}``."""
    return {f"win[{k}]": f"{v:.1%}" for k, v in win_rates.items()}


def _say(line: str) -> None:
    """Print a line to stderr, unless stderr is gone (a pipe whose reader Ctrl-C stopped: ``... | tee log``)."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr)


def _console(line: str) -> None:
    """Print a line to stderr above the progress bar (tqdm keeps the bar below it)."""
    from tqdm import tqdm

    tqdm.write(line, file=sys.stderr)


class _Callback:
    """Bridges SB3's callback hooks to the :class:`Trainer`: periodic work, progress bar, stop on signal."""

    def __new__(cls, trainer: Trainer):
        from stable_baselines3.common.callbacks import BaseCallback
        from tqdm import tqdm

        class Callback(BaseCallback):
            def _on_training_start(self) -> None:
                cfg = trainer.cfg
                rollout = cfg.rollout_steps
                planned = planned_timesteps(self.model.num_timesteps, cfg.run.total_timesteps, rollout)
                self.bar = tqdm(  # the total is what learn() will reach, so its ETA ends where training ends
                    total=planned, initial=self.model.num_timesteps, unit="step", unit_scale=True,
                    dynamic_ncols=True, disable=not cfg.run.progress, smoothing=0.05,
                    mininterval=0.1 if sys.stderr.isatty() else 60.0,  # a log file gets one line a minute
                )  # fmt: skip
                # a resumed run's last evaluation, until the next, in eval.opponents' order (tqdm's postfix=
                # argument sorts the keys; set_postfix with a dict keeps them as given)
                self.bar.set_postfix(win_postfix(trainer.latest_win), refresh=False)
                trainer.progress_bar = self.bar  # Trainer.evaluate puts each evaluation's win rates on it
                self.last = self.model.num_timesteps
                self.t0, self.n0 = time.time(), self.model.num_timesteps

            def _on_rollout_start(self) -> None:
                trainer.on_update_boundary()
                t, dt_ = self.model.num_timesteps, time.time() - self.t0
                if dt_ > 0 and t > self.n0:
                    trainer.writer.add_scalar("charts/steps_per_s", (t - self.n0) / dt_, t)

            def _on_step(self) -> bool:
                t = self.model.num_timesteps
                self.bar.update(t - self.last)
                self.last = t
                for info in self.locals["infos"]:
                    if "win" in info:
                        self.wins.append(info["win"])
                if len(self.wins) >= 2000:
                    trainer.writer.add_scalar("charts/train_win_share", float(np.mean(self.wins)), t)
                    self.wins.clear()
                return not trainer.stop_requested

            def close(self, steps: int) -> None:
                """End the bar at ``steps``, the learner steps trained (and saved): after a stop, the steps of
                the rollout it cut short were never trained, so the bar gives them back."""
                self.bar.n = steps
                self.bar.refresh()
                self.bar.close()
                trainer.progress_bar = None

        cb = Callback()
        cb.wins = []
        return cb


class _FinalEvaluationStopped(BaseException):
    """SIGINT or SIGTERM ended the final evaluation (:class:`_final_evaluation_stop`). A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` on the way swallows it."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


class _PeriodicEvaluationStopped(BaseException):
    """SIGINT or SIGTERM ended a periodic evaluation (:class:`_periodic_evaluation_stop`); the run is stopping."""


class _stop_signals:
    """Installs ``self._handler`` for SIGINT and SIGTERM while the ``with`` block runs and puts the previous
    handlers back after it. Off the main thread (a Ray Tune trial), where Python cannot install signal handlers,
    it installs nothing."""

    old: dict[int, Any]

    def _handler(self, signum: int, frame: Any) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.old = {}
        if threading.current_thread() is threading.main_thread():
            self.old = {s: signal.signal(s, self._handler) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc: object) -> None:
        for s, h in self.old.items():
            signal.signal(s, h)


class _final_evaluation_stop(_stop_signals):
    """SIGINT/SIGTERM while ``evaluating`` raise :class:`_FinalEvaluationStopped`, ending the final evaluation
    at once: the step checkpoint :meth:`Trainer.train` saved before it stays the run's last, and ``--resume`` runs
    the evaluation again. Once the evaluation is done (``evaluating`` false) a stop waits for the ``final``
    checkpoint and summary, a second or so, so that ``final`` is never left without them. After the first stop a
    second Ctrl-C raises KeyboardInterrupt and a second SIGTERM is ignored. Off the main thread (a Ray Tune trial)
    it does nothing, as :class:`_graceful_stop`.

    With ``eval.workers`` > 1 the games are played in a process pool, which the stop ends in a moment
    (:func:`training.evaluate.run_many`). A pool process forked with this handler ignores the stop: this process
    decides.
    """

    def __init__(self) -> None:
        self.evaluating = True
        self.stopped = False
        self.pid = os.getpid()

    def _handler(self, signum: int, frame: Any) -> None:
        if os.getpid() != self.pid:  # a pool worker of the evaluation, forked with this handler: the trainer decides
            return
        name = signal.Signals(signum).name
        if self.stopped:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            return
        self.stopped = True
        if self.evaluating:
            raise _FinalEvaluationStopped(name)
        _say(f"{name}: the final evaluation is done; writing its checkpoint and summary, then ending")


class _periodic_evaluation_stop(_stop_signals):
    """SIGINT/SIGTERM during a periodic evaluation stop the run as :class:`_graceful_stop` does and end the
    evaluation at once, raising :class:`_PeriodicEvaluationStopped`: nothing of it is written, and the checkpoint
    saved on stopping keeps it due, so ``--resume`` runs it. It used to be played to the end first (all its tables;
    with ``eval.workers`` > 1, every chunk already queued in the pool). A second Ctrl-C raises KeyboardInterrupt.
    A pool process forked with this handler ignores the stop; off the main thread (a Ray Tune trial) it does
    nothing, as :class:`_graceful_stop`.
    """

    def __init__(self, trainer: Trainer, timesteps: int) -> None:
        self.trainer, self.timesteps = trainer, timesteps
        self.pid = os.getpid()

    def _handler(self, signum: int, frame: Any) -> None:
        if os.getpid() != self.pid:  # a pool worker of the evaluation, forked with this handler: the trainer decides
            return
        if self.trainer.stop_requested:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            return
        self.trainer.stop_requested = True
        _say(
            f"\n{signal.Signals(signum).name}: saving a checkpoint and stopping (the evaluation at "
            f"{self.timesteps:,} learner steps is dropped; --resume runs it)..."
        )
        raise _PeriodicEvaluationStopped


class _graceful_stop(_stop_signals):
    """SIGINT/SIGTERM set ``trainer.stop_requested``; the callback then ends ``learn`` at the next step.

    :class:`Trainer` holds it while it starts too (collector process, model, checkpoint), so that a stop there
    is saved and ended by ``train`` like any other, with the collector closed.

    A second Ctrl-C raises KeyboardInterrupt at once (the last complete checkpoint stays valid). Off the
    main thread (a Ray Tune trial), where Python cannot install signal handlers, it does nothing: Tune
    stops trials itself.
    """

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer

    def _handler(self, signum: int, frame: Any) -> None:
        if self.trainer.stop_requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.trainer.stop_requested = True
        _say(f"\n{signal.Signals(signum).name}: saving a checkpoint and stopping...")


# --------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """The command line's parser; bad input is one ``error:`` line and exit code 2 (:mod:`training.cli`)."""
    from training.cli import Parser

    p = Parser(
        prog="python -m training.selfplay",
        description="Self-play MaskablePPO for No Thanks! with an opponent pool (see configs/*.yaml).",
        epilog="Any config value can be set with --set SECTION.KEY=VALUE or --SECTION.KEY VALUE (the same thing: of "
        "two for one key, the one typed last wins).",
    )
    p.add_argument("config", nargs="?", help="YAML config (default configs/selfplay.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config value")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest checkpoint")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code: 0, or 2 after one ``error:`` line on bad input."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(dotted_flags_as_set(argv))  # --SECTION.KEY VALUE as --set, in the order typed
    except ConfigError as e:
        return _refused(e)
    except SystemExit as e:  # --help, or bad input already reported on one line
        return int(e.code or 0)
    try:
        overrides = list(args.set)
        if args.resume is not None:  # "" too: refused, never a fresh run instead
            run_dir = runs.resume_dir(args.resume, args.config)
            try:
                cfg = load_config(run_dir / runs.CONFIG_FILE, overrides)
            except ConfigError as e:  # a saved spec this version refuses: say how to resume, never drop it
                raise ConfigError(f"{e}{saved_config_hint(run_dir, overrides, str(e))}") from None
            found = step_checkpoints(run_dir)
            if not found:
                raise FileNotFoundError(f"--resume {run_dir}: no checkpoint in {run_dir / 'checkpoints'}")
            meta = ckpt.verify_checkpoint(found[-1])
            done = finished_at(run_dir)
            if done is not None and done >= cfg.run.total_timesteps:
                print(
                    f"{run_dir} is complete: it trained {done:,} learner steps (run.total_timesteps "
                    f"{cfg.run.total_timesteps:,}) and has its final evaluation; nothing to do. To train on, "
                    f"raise run.total_timesteps, e.g. --set run.total_timesteps={2 * cfg.run.total_timesteps}",
                    file=sys.stderr,
                )
                return 0
            check_resume(cfg, meta, found[-1])
            trainer = Trainer(cfg, run_dir, resume_from=found[-1])
            print(f"resuming {run_dir} from {found[-1].name}", file=sys.stderr)
        else:
            cfg = load_config(args.config, overrides)
            init_actor_weights(cfg)  # refuse a bad run.init_from before the run folder exists
            run_dir = new_run_dir(cfg)
            dump_config(cfg, run_dir / "config.yaml")
            trainer = Trainer(cfg, run_dir)
            print(f"run folder: {run_dir}", file=sys.stderr)
        dump_config(cfg, run_dir / "config.yaml")
    except (ConfigError, OSError, ValueError) as e:  # CheckpointError is a ValueError
        return _refused(e)
    trainer.train()
    return 0


def _refused(error: Exception) -> int:
    """Print ``error`` as one ``error:`` line on stderr (see :mod:`training.cli`); return exit code 2."""
    from training.cli import EXIT_BAD_INPUT, refuse

    try:
        refuse(error)
    except SystemExit:
        pass
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())

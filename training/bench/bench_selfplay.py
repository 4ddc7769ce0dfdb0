"""Learner steps/s of self-play PPO: two cores, one core, and a naive per-decision loop, in one run.

All three train the same MaskablePPO (the config's network and PPO settings, ``run.torch_threads`` torch
threads per process) for a fixed number of learner steps and report learner steps per second of
``model.learn`` (collection *and* updates):

- **two cores** (``run.collector: process``, the default): a collector process plays the games while the
  learner updates on the previous rollout (:mod:`training.learning.collector`);
- **one core** (``run.collector: inline``): :class:`~training.vec_env.SelfPlayVecEnv` in the learner's
  process, ``games_per_count`` games on one :class:`~nothanks_env.vector.VectorGame`, each opponent
  policy one batched call per round, then the update;
- **naive**: the usual wrapper: one scalar :class:`~nothanks_env.game.Game` per env in a ``DummyVecEnv``
  of 8, every opponent a snapshot network called with ``predict`` once per decision.

The settings are a training config's: ``CONFIG`` (default ``configs/selfplay.yaml``) with ``--set KEY=VALUE``
overrides, read as ``python -m training.selfplay`` reads them, so that ``python -m training.benchmark selfplay
configs/selfplay_3pt.yaml`` times the rollouts (``ppo.n_steps`` x ``env.games_per_count``), minibatches
(``ppo.batch_size``), network and opponents that config trains with; the run prints them. ``--players`` and
``--seed``, when given, replace the config's ``game.num_players`` and ``run.seed``; ``run.torch_threads`` is the
config's (1 in the shipped ones). The network starts from random weights (``run.init_from`` is not loaded).

The fast paths play the config's opponent mix (``--pool default``: its league of scripted bots and networks, plus
``--snapshots`` random-initialised snapshot networks taking ``pool.snapshot_weight`` of the seats, as in a
run under way) or, with ``--pool snapshots``, snapshots in every seat. Each prints where the time goes, in
microseconds per learner step: engine, opponents, encoding, learner forward, update, and for two cores the
learner's wait for rollouts; with special cards (the scalar engine) engine, opponents and encoding are not
measured and print ``-``, their time in the glue. The naive loop plays the config's first player count.

Wired as ``python -m training.benchmark selfplay`` (:func:`add_arguments`, :func:`bench_selfplay`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from nothanks_env import encoding as enc
from nothanks_env.game import Game, GameConfig
from training.bench.benchmark import add_selfplay_arguments as add_arguments
from training.checkpoints import network_sizes
from training.cli import Parser, refuse
from training.learning.config import Config, ConfigError, load_config

NAIVE_ENVS = 8


def _snapshot_weights(cfg: Config, seed: int) -> dict[str, torch.Tensor]:
    """Random actor weights of ``cfg``'s network (its inputs, ``ppo.net_arch`` and actions)."""
    g = torch.Generator().manual_seed(seed)
    n_in, n_out = network_sizes(bool(cfg.game.special_cards), cfg.env.behaviour)
    sizes = [n_in, *cfg.ppo.net_arch, n_out]
    out = {}
    for i in range(len(sizes) - 1):
        out[f"layers.{i}.weight"] = torch.randn(sizes[i + 1], sizes[i], generator=g) / sizes[i] ** 0.5
        out[f"layers.{i}.bias"] = torch.zeros(sizes[i + 1])
    return out


class NaiveSelfPlayEnv(gym.Env):
    """One game; the learner's seat drawn per game; each opponent decision is one ``predict`` call.

    Reward: the learner's win share when the game ends (on anyone's move), as in the fast path.
    """

    def __init__(
        self, config: GameConfig, opponents: list, chip_memory: bool, seed: int, behaviour: bool = False
    ) -> None:
        self.config, self.opponents, self.chip_memory, self.behaviour = config, opponents, chip_memory, behaviour
        self.game = Game(config)
        self.rng = np.random.default_rng(seed)
        self.obs_size = enc.obs_size(config, behaviour)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, shape=(self.obs_size,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(config.num_actions)

    def _advance(self) -> bool:
        """Opponents act until the learner is to act; True if the game ended."""
        g = self.game
        while not g.is_over and g.current_seat != self.me:
            view = g.seat_view(g.current_seat)
            model = self.seat_models[g.current_seat]
            obs = enc.encode(view, chip_memory=self.chip_memory, behaviour=self.behaviour)
            action, _ = model.predict(obs, action_masks=enc.action_mask(view).astype(bool), deterministic=False)
            g.step(int(action))
        return g.is_over

    def _obs(self) -> np.ndarray:
        return enc.encode(self.game.seat_view(self.me), chip_memory=self.chip_memory, behaviour=self.behaviour)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        while True:
            self.game.reset(seed=int(self.rng.integers(2**31)))
            self.me = int(self.rng.integers(self.config.num_players))
            self.seat_models = [self.opponents[int(self.rng.integers(len(self.opponents)))] for _ in range(7)]
            if not self._advance():
                return self._obs(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        self.game.step(int(action))
        if self._advance():
            _, winners = self.game.ranks_and_winners()
            reward = 1.0 / len(winners) if self.me in winners else 0.0
            return np.zeros(self.obs_size, dtype=np.float32), reward, True, False, {}
        return self._obs(), 0.0, False, False, {}

    def action_masks(self) -> np.ndarray:
        return enc.action_mask(self.game.seat_view(self.me)).astype(bool)


class _SnapshotPredictor:
    """The ``predict`` of a frozen SB3 actor: what a naive loop calls once per opponent decision."""

    def __init__(self, model) -> None:
        self.policy = model.policy

    def predict(self, obs, action_masks, deterministic=False):
        return self.policy.predict(obs, action_masks=action_masks, deterministic=deterministic)


def _fast_rate(cfg, steps: int, snapshots: int, clock) -> tuple[float, dict[str, float]]:
    """Learner steps/s of ``model.learn`` with ``cfg.run.collector``, and its breakdown in us per step."""
    from training.learning.collector import CollectorEnv
    from training.learning.selfplay import make_env, make_model, make_pool

    if cfg.run.collector == "process":
        env = CollectorEnv(cfg)
        pool = env.pool
    else:
        pool = make_pool(cfg)
        env = make_env(cfg, pool)
    try:
        for k in range(snapshots):
            pool.add_snapshot(_snapshot_weights(cfg, cfg.run.seed + k), step=k)
        model = make_model(cfg, env)
        parts = _Parts(model, env)
        model.learn(2 * cfg.rollout_steps)  # warm-up: two rollouts and updates
        parts.start()
        start, done = clock(), model.num_timesteps
        model.learn(steps, reset_num_timesteps=False)
        steps = model.num_timesteps - done  # learn() finishes the rollout that passes `steps`
        rate = steps / (clock() - start)
        return rate, {k: 1e6 * v / steps for k, v in parts.stop().items()}
    finally:
        env.close()


class _Parts:
    """Wall seconds per part of ``model.learn`` between :meth:`start` and :meth:`stop`."""

    def __init__(self, model, env) -> None:
        from training.learning.collector import CollectorEnv

        self.model, self.env = model, env
        self.remote = isinstance(env, CollectorEnv)
        if not self.remote:  # inline: time the update and the whole collection around SB3's own calls
            self.extra = {"update": 0.0, "collect": 0.0}
            for name, key in (("train", "update"), ("collect_rollouts", "collect")):
                setattr(model, name, self._timed(getattr(model, name), key))

    def _timed(self, fn, key: str):
        def run(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.extra[key] += time.perf_counter() - t

        return run

    def start(self) -> None:
        if self.remote:
            self.before = dict(self.env.seconds)
        else:
            self.extra = dict.fromkeys(self.extra, 0.0)
            self.before = self.env.seconds

    def stop(self) -> dict[str, float]:
        now = self.env.seconds
        out = {k: now[k] - self.before[k] for k in now}
        if self.remote:
            return out
        env_parts = sum(out.values())
        return out | {"learner_forward_and_glue": self.extra["collect"] - env_parts, "update": self.extra["update"]}


def _naive_rate(cfg, steps: int, snapshots: int, clock) -> float:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.learning.selfplay import make_model

    n = cfg.game.num_players[0]
    # Snapshot opponents are SB3 models of the same shape, called through predict (one observation each).
    opponents = []
    for k in range(snapshots):
        torch.manual_seed(cfg.run.seed + k)
        opponents.append(_SnapshotPredictor(make_model(cfg, _dummy_env(cfg, n))))
    game, memory, behaviour = cfg.game.game_config(n), cfg.env.chip_memory, cfg.env.behaviour
    envs = DummyVecEnv([lambda i=i: NaiveSelfPlayEnv(game, opponents, memory, i, behaviour) for i in range(8)])
    rollout = cfg.rollout_steps
    model = make_model(cfg, envs, n_steps=max(rollout // NAIVE_ENVS, 1))  # same PPO, same rollout size
    start = clock()
    model.learn(steps)
    return model.num_timesteps / (clock() - start)


def _dummy_env(cfg, n: int):
    from stable_baselines3.common.vec_env import DummyVecEnv

    return DummyVecEnv(
        [lambda: NaiveSelfPlayEnv(cfg.game.game_config(n), [], cfg.env.chip_memory, 0, cfg.env.behaviour)]
    )


_PROCESS_PARTS = {
    "process": (
        ("collector process", ("engine", "opponents", "encoding", "learner_forward", "glue")),
        ("learner process", ("update", "buffer", "wait")),
    ),
    "inline": (("one process", ("engine", "opponents", "encoding", "learner_forward_and_glue", "update")),),
}
"""Which breakdown parts each process of each collector mode spends its time on."""

UNTIMED_WITH_SPECIAL_CARDS: tuple[str, ...] = ("engine", "opponents", "encoding")
"""Breakdown parts not measured when the config has special cards: those games run on
:class:`~nothanks_env.scalar_table.ScalarLearnerTable`, which does not time them (its time is in the glue)."""


def _us(value: float | None) -> str:
    """A breakdown figure in us per learner step, or ``-`` for a part not measured."""
    return "-" if value is None else f"{value:.1f}"


def league_members(cfg: Config) -> str:
    """The config's ``pool.scripted`` members counted by kind: ``26 scripted bots and 1 network`` (a member is a
    network when its spec loads a checkpoint, as ``checkpoints/exploiter-3p`` does)."""
    from nothanks_env.specs import load_policy
    from training.checkpoints import MLPPolicy

    n = cfg.game.num_players[0]
    networks = sum(isinstance(load_policy(spec, num_players=n), MLPPolicy) for spec in cfg.pool.scripted)
    bots = len(cfg.pool.scripted) - networks
    text = f"{bots} scripted bot{'s' if bots != 1 else ''}"
    return text + (f" and {networks} network{'s' if networks != 1 else ''}" if networks else "")


def selfplay_config(opts: dict[str, Any]) -> Config:
    """The config a ``benchmark selfplay`` run times: ``opts["config"]`` (``None``: configs/selfplay.yaml) with the
    ``opts["set"]`` overrides, as training reads them, then the benchmark's options: ``players`` and ``seed``
    when not None, room in the pool for ``snapshots`` snapshots, every opponent seat a snapshot with
    ``pool="snapshots"``, and no progress bar. An error names those overrides apart from the ``--set`` ones, each
    with the option it comes from (``game.num_players=4 (--players 4)``).

    Raises:
        ConfigError: for a config file or override that does not load or validate; the message names it.
    """
    base = load_config(opts["config"], list(opts["set"]))
    own = {"run.progress=false": "no progress bar"}  # the benchmark's own overrides -> why
    if opts["players"] is not None:
        own[f"game.num_players={opts['players']}"] = f"--players {opts['players']}"
    if opts["seed"] is not None:
        own[f"run.seed={opts['seed']}"] = f"--seed {opts['seed']}"
    if opts["snapshots"] > base.pool.max_snapshots:
        own[f"pool.max_snapshots={opts['snapshots']}"] = f"--snapshots {opts['snapshots']}"
    if opts["pool"] == "snapshots":
        own["pool.snapshot_weight=1.0"] = "--pool snapshots"  # every opponent seat is a snapshot
    said = None  # an error names the user's --set list alone, and the benchmark's own overrides apart
    if own:
        mine = ", ".join(f"{item} ({why})" for item, why in own.items())
        said = (
            f" with overrides {list(opts['set'])} and" if opts["set"] else " with"
        ) + f" the benchmark's own overrides {mine}"
    return load_config(opts["config"], [*opts["set"], *own], overrides_said=said)


def describe_config(cfg: Config, opts: dict[str, Any]) -> str:
    """The line naming the config a run times and the values that set its speed: rollout, PPO, network."""
    source = opts["config"] or "configs/selfplay.yaml (default)"
    if opts["set"]:
        source += " " + " ".join(f"--set {item}" for item in opts["set"])
    counts = len(cfg.game.num_players)
    return (
        f"  config {source}: rollout {cfg.rollout_steps:,} learner steps = ppo.n_steps {cfg.ppo.n_steps} x "
        f"env.games_per_count {cfg.env.games_per_count} x {counts} player count{'s' if counts > 1 else ''}; "
        f"ppo.batch_size {cfg.ppo.batch_size}, ppo.n_epochs {cfg.ppo.n_epochs}, ppo.net_arch {list(cfg.ppo.net_arch)}, "
        f"env.behaviour {str(cfg.env.behaviour).lower()}, run.torch_threads {cfg.run.torch_threads}"
    )


def bench_selfplay(args: argparse.Namespace | None = None) -> dict[str, float]:
    """Print and return learner steps/s on two cores, one core and the naive loop (see module docstring).

    ``args`` may carry ``config``, ``set``, ``steps``, ``naive_steps``, ``players``, ``snapshots``, ``pool``,
    ``clock`` and ``seed`` (defaults as in :func:`add_arguments`).

    Returns:
        ``{"two_cores": ..., "one_core": ..., "naive": ...}``, learner steps/s.
    """
    defaults = argparse.ArgumentParser()
    add_arguments(defaults)
    opts: dict[str, Any] = vars(defaults.parse_args([])) | {
        k: v for k, v in vars(args or argparse.Namespace()).items() if v is not None
    }
    try:
        cfg = selfplay_config(opts)
    except ConfigError as e:  # e.g. a player count the config cannot train, or a bad --set
        refuse(e)
    torch.set_num_threads(cfg.run.torch_threads)
    clock = time.process_time if opts["clock"] == "cpu" else time.perf_counter
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    mix = "every seat a snapshot"
    if opts["pool"] == "default":
        league = "default" if opts["config"] is None else "config's"
        mix = f"the {league} league of {league_members(cfg)}, {cfg.pool.snapshot_weight:.0%} snapshots"
    players = ", ".join(str(n) for n in cfg.game.num_players)
    threads = cfg.run.torch_threads
    print(
        f"self-play MaskablePPO, {players} players, {opts['snapshots']} snapshot opponents ({mix}), "
        f"{threads} torch thread{'s' if threads > 1 else ''} per process, {opts['clock']} clock, load average {load}",
        flush=True,
    )
    print(describe_config(cfg, opts), flush=True)
    out: dict[str, float] = {}
    untimed = UNTIMED_WITH_SPECIAL_CARDS if cfg.game.special_cards else ()
    for key, mode, label in (
        ("two_cores", "process", "two cores (collector process + learner)"),
        ("one_core", "inline", "one core  (collection, then update)     "),
    ):
        run_cfg = cfg.model_copy(update={"run": cfg.run.model_copy(update={"collector": mode})})
        rate, parts = _fast_rate(run_cfg, opts["steps"], opts["snapshots"], clock)
        parts = parts | dict.fromkeys(untimed, None)
        out[key] = rate
        print(f"  {label}: {rate:>8,.0f} learner steps/s", flush=True)
        for who, keys in _PROCESS_PARTS[mode]:
            where = ", ".join(f"{k} {_us(parts[k])}" for k in keys if k in parts)
            print(f"      us per learner step, {who}: {where}", flush=True)
    if untimed:
        print(
            f"      ({', '.join(untimed)} -: not measured; special cards run on the scalar engine, which does not "
            "time its parts, so glue (learner_forward_and_glue on one core) holds them)",
            flush=True,
        )
    naive = _naive_rate(cfg, opts["naive_steps"], max(opts["snapshots"], 1), clock)
    out["naive"] = naive
    first = f", {cfg.game.num_players[0]} players" if len(cfg.game.num_players) > 1 else ""
    print(f"  naive loop ({NAIVE_ENVS} envs{first}, snapshot predict per decision): {naive:>8,.0f} learner steps/s")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"  two cores / one core: {out['two_cores'] / out['one_core']:.2f}x; two cores / naive: "
        f"{out['two_cores'] / naive:.1f}x   (learner steps/s of model.learn: collection + PPO updates); "
        f"load average at the end {load}"
    )
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code: 0, or 2 after one ``error:`` line on bad input."""
    p = Parser(prog="python -m training.bench_selfplay", description=__doc__.split("\n")[0])
    add_arguments(p)
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:  # --help, or bad input already reported on one line
        return int(e.code or 0)
    bench_selfplay(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Self-play on two cores: a collector process plays the games while the learner runs the PPO update.

With ``run.collector: process`` (the default), :class:`~training.selfplay.Trainer` does not step the games
itself. A second process (:func:`_collector_main`, started with ``spawn``) owns everything collection
needs: the opponent pool, the :class:`~training.vec_env.SelfPlayVecEnv` with its engines and scripted
bots, and a frozen copy of the learner's actor. The learner process keeps the PPO model, the optimizer,
evaluation, checkpoints and TensorBoard. The two run at the same time:

    learner:    [update k on rollout k] [update k+1 on rollout k+1] ...
    collector:  [rollout k+1 with weights after update k-1] [rollout k+2 with weights after update k] ...

**Policy lag.** Rollout k+1 is played by the actor as it was *before* update k, so every PPO update learns
from data exactly one update old (never more: the learner waits for rollout k+1 before update k+1 and
sends the new weights at once). PPO's ratio uses the log-probabilities of the actor that played
(recorded by the collector), so the clipped objective corrects for the lag as it does for its own epochs.
The critic's values are recomputed by the learner with its current critic, in one batched forward pass,
before the advantages are computed, so the collector needs the actor only.

**What crosses the process boundary.** Each rollout (observations float32 (n_steps, num_envs, obs_size),
actions, masks, log-probabilities, rewards, episode starts, and the info of every finished game) comes
back through a pipe; weights go out with each request. Pool calls (:class:`PoolProxy`: snapshots,
league statistics, state for checkpoints) and RNG states are requests too, answered between rollouts, so
they see the pool as it stands after the rollout that was in flight.

**Resume.** A checkpoint holds the collector's RNG states (its tables' deals and seats, its global RNGs
and the learner actor's sampling RNG) as they stand after the rollout in flight at the save, which no
update has used. A resumed run deals new games from there, so it is not identical step for step to an
uninterrupted run (as with ``inline``, games in flight at a stop are not saved).

``run.collector: inline`` keeps the single-process loop (SB3's own ``collect_rollouts``).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import random
import signal
import threading
import time
import traceback
import weakref
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv

from training.learning.vec_env import BatchVecEnv

HUGE_NEG = -1e8
"""The logit of an illegal action, as in sb3_contrib's MaskableCategorical."""
BREAKDOWN = ("engine", "opponents", "encoding", "learner_forward", "glue", "wait", "buffer", "update")
"""Keys of :attr:`CollectorEnv.seconds` (wall seconds), the breakdown ``python -m training.benchmark selfplay``
prints. In the collector: ``engine`` (rule steps), ``opponents`` (their policies), ``encoding`` (the
learner's observations), ``learner_forward`` (the actor's pass and sampling), ``glue`` (the rest of a
rollout). In the learner: ``wait`` (blocked on the collector), ``buffer`` (filling the rollout buffer,
the critic's values and the advantages), ``update`` (PPO's epochs)."""


class CollectorError(RuntimeError):
    """The collector process failed; the message holds its traceback."""


# --------------------------------------------------------------------------- the collector process
class _Collector:
    """What runs in the collector process: the env, the pool and the learner's actor."""

    def __init__(self, cfg_data: dict[str, Any]) -> None:
        from training.learning.config import Config
        from training.learning.selfplay import make_env, make_pool

        cfg = Config.model_validate(cfg_data)
        torch.set_num_threads(cfg.run.torch_threads)
        seed = cfg.run.seed + 1_000_003  # not the learner's: the two processes draw different streams
        random.seed(seed)
        np.random.seed(seed % 2**32)
        torch.manual_seed(seed)
        self.cfg = cfg
        self.pool = make_pool(cfg)
        self.env = make_env(cfg, self.pool)
        self.sample_rng = np.random.default_rng(seed)
        self.actor: Any = None
        self.obs: np.ndarray | None = None
        self.masks: np.ndarray | None = None
        self.starts: np.ndarray | None = None

    def spaces(self) -> tuple[int, tuple[int, ...], int]:
        return self.env.num_envs, self.env.observation_space.shape, int(self.env.action_space.n)

    def reset(self) -> np.ndarray:
        self.obs = self.env.reset()
        self.masks = self.env.action_masks().copy()
        self.starts = np.ones(self.env.num_envs, dtype=np.float32)
        return self.obs

    def _set_actor(self, weights: Mapping[str, torch.Tensor]) -> None:
        from training.checkpoints import MLPPolicy

        if self.actor is None:
            cfg = self.cfg
            self.actor = MLPPolicy(
                dict(weights), activation=cfg.ppo.activation, chip_memory=cfg.env.chip_memory,
                behaviour=cfg.env.behaviour, name="learner",
            )  # fmt: skip
        else:
            self.actor.load_weights(weights)

    def collect(self, weights: Mapping[str, torch.Tensor], n_steps: int) -> dict[str, Any]:
        """Play ``n_steps`` learner steps in every game with the actor ``weights``; return the rollout."""
        if self.obs is None:
            self.reset()
        self._set_actor(weights)
        env, n = self.env, self.env.num_envs
        obs = np.empty((n_steps, *self.obs.shape), dtype=np.float32)
        masks = np.empty((n_steps, *self.masks.shape), dtype=bool)
        actions = np.empty((n_steps, n), dtype=np.int64)
        log_probs = np.empty((n_steps, n), dtype=np.float32)
        rewards = np.empty((n_steps, n), dtype=np.float32)
        starts = np.empty((n_steps, n), dtype=np.float32)
        infos: list[tuple[int, int, dict]] = []
        t_fwd = 0.0
        before = env.seconds
        start = time.perf_counter()
        for i in range(n_steps):
            obs[i], masks[i], starts[i] = self.obs, self.masks, self.starts
            t0 = time.perf_counter()
            a, lp = self._sample(self.obs, self.masks)
            t1 = time.perf_counter()
            env.step_async(a)
            self.obs, r, done, info = env.step_wait()
            t_fwd += t1 - t0
            self.masks = env.action_masks().copy()
            self.starts = done.astype(np.float32)
            actions[i], log_probs[i], rewards[i] = a, lp, r
            infos.extend((i, k, info[k]) for k in np.flatnonzero(done).tolist())
        total = time.perf_counter() - start
        seconds = {k: v - before[k] for k, v in env.seconds.items()}
        seconds |= {"learner_forward": t_fwd, "glue": total - t_fwd - sum(seconds.values())}
        return {
            "obs": obs, "masks": masks, "actions": actions, "log_probs": log_probs, "rewards": rewards,
            "episode_starts": starts, "last_obs": self.obs, "last_dones": self.starts.astype(bool),
            "infos": infos, "seconds": seconds,
        }  # fmt: skip

    def _sample(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A sampled action per game and its log-probability under the masked softmax, as MaskablePPO's."""
        logits = np.where(masks, self.actor.logits(obs), np.float32(HUGE_NEG))
        logits = logits - logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        cdf = np.cumsum(np.exp(logp.astype(np.float64)), axis=1)
        u = self.sample_rng.random(len(cdf))[:, None] * cdf[:, -1:]
        picked = np.minimum((cdf <= u).sum(axis=1), cdf.shape[1] - 1)
        picked = np.where(masks[np.arange(len(picked)), picked], picked, masks.argmax(axis=1)).astype(np.int64)
        return picked, logp[np.arange(len(picked)), picked].astype(np.float32)

    def pool_call(self, name: str, *args: Any) -> Any:
        return getattr(self.pool, name)(*args)

    def prune_pool(self) -> None:
        self.env.prune_pool()

    def snapshot_count(self) -> int:
        return len(self.pool.snapshots)

    def rng_state(self) -> dict[str, Any]:
        from training.learning.selfplay import global_rng_state, table_rng_state

        collector = global_rng_state() | {"sample": self.sample_rng.bit_generator.state}
        return {"tables": table_rng_state(self.env), "collector": collector}

    def set_rng_state(self, state: Mapping[str, Any]) -> None:
        from training.learning.selfplay import set_global_rng_state, set_table_rng_state

        set_table_rng_state(state["tables"], self.env)
        mine = state.get("collector")
        if mine is not None:  # absent in a checkpoint of an inline run: its tables only
            set_global_rng_state(mine)
            self.sample_rng.bit_generator.state = mine["sample"]
        self.obs = None  # deal again from the restored RNGs


def _collector_main(cfg_data: dict[str, Any], conn: Any) -> None:
    """The collector process: answer requests ``(method, *args)`` until ``close`` (or the pipe closes).

    It ends as soon as the learner's process does, however that ends (:func:`_end_with_parent`), and quietly
    when the learner is gone before an answer is sent.
    """
    # Ctrl-C, and SIGTERM from `timeout` or a service manager, reach the whole process group. The learner
    # stops on them, and saving its checkpoint needs this process (pool and RNG states), so only the learner
    # ends it: with "close", or by SIGKILL (_shutdown) if it does not answer, or by ending itself.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    _end_with_parent()
    try:
        _serve(cfg_data, conn)
    except (EOFError, OSError):  # the learner closed its end (BrokenPipeError is an OSError): nobody to answer
        return


def _serve(cfg_data: dict[str, Any], conn: Any) -> None:
    try:
        worker = _Collector(cfg_data)
        _send(conn, ("ok", worker.spaces()))
    except Exception:
        _send(conn, ("error", traceback.format_exc()))
        return
    while True:
        msg = _recv(conn)
        if msg[0] == "close":
            return
        try:
            _send(conn, ("ok", getattr(worker, msg[0])(*msg[1:])))
        except Exception:
            _send(conn, ("error", traceback.format_exc()))


def _end_with_parent() -> None:
    """End this process the moment its parent (the learner) ends, from a watcher thread.

    The collector ignores SIGINT and SIGTERM, so a learner killed before it could close it (SIGKILL, or a
    signal while no handler of its own is installed) would leave it playing on, for as long as a rollout or
    its start-up lasts, until a write to the pipe failed. ``multiprocessing`` gives a spawned child a
    sentinel of its parent that becomes ready when the parent exits.
    """
    parent = mp.parent_process()
    if parent is None:  # not started by multiprocessing
        return

    def watch() -> None:
        parent.join()
        os._exit(0)  # nothing here outlives the learner: no state to save, nobody to answer

    threading.Thread(target=watch, name="collector-parent-watch", daemon=True).start()


def _shutdown(conn: Any, proc: Any, timeout: float = 10.0) -> None:
    """Ask the collector to end; SIGKILL it if it has not within ``timeout`` seconds (it ignores SIGTERM); close
    the pipe."""
    if proc.is_alive():
        try:
            _send(conn, ("close",))
        except OSError:  # BrokenPipeError included
            pass
        proc.join(timeout=timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
    conn.close()


def _send(conn: Any, obj: Any) -> None:
    """Plain pickle over the pipe: tensors travel by value (multiprocessing's own pickler would hand torch
    tensors over as shared-memory handles)."""
    conn.send_bytes(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _recv(conn: Any) -> Any:
    return pickle.loads(conn.recv_bytes())


# --------------------------------------------------------------------------- the learner's side
class CollectorEnv(BatchVecEnv):
    """The learner's handle on the collector process, shaped as the SB3 ``VecEnv`` it stands for.

    It has the env's spaces and ``num_envs`` and can ``reset``; stepping happens in the collector, a
    rollout at a time (:meth:`start_collect`, :meth:`finish_collect`), driven by
    :class:`OverlappedMaskablePPO`. ``pool`` is a :class:`PoolProxy`. The rest of the ``VecEnv`` API is
    :class:`~training.learning.vec_env.BatchVecEnv`'s (the env is seeded from the config, in the collector).

    Args:
        cfg: the run's :class:`~training.learning.config.Config`; the collector builds its pool and env from it.

    Attributes:
        seconds: wall seconds spent so far per :data:`BREAKDOWN` key.
    """

    def __init__(self, cfg: Any) -> None:
        ctx = mp.get_context("spawn")  # torch is imported here: fork would copy its threads' locks
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_collector_main, args=(cfg.model_dump(mode="python"), child), daemon=True, name="collector"
        )
        self._proc.start()
        child.close()
        # runs at close(), or at exit before multiprocessing's own clean-up (whose SIGTERM the child ignores)
        self._finalizer = weakref.finalize(self, _shutdown, self._conn, self._proc)
        self._in_flight = False
        self._ready: dict[str, Any] | None = None
        try:
            num_envs, shape, actions = self._reply()
        except BaseException:  # failed to start, or interrupted (KeyboardInterrupt) while it starts: end it now
            self._finalizer.detach()
            _shutdown(self._conn, self._proc, timeout=0.0)  # a collector still starting holds nothing to keep
            raise
        obs_space = gym.spaces.Box(-np.inf, np.inf, shape=shape, dtype=np.float32)
        super().__init__(num_envs, obs_space, gym.spaces.Discrete(actions))
        self.pool = PoolProxy(self)
        self.seconds = dict.fromkeys(BREAKDOWN, 0.0)

    # ---------------------------------------------------------------- requests
    def _reply(self) -> Any:
        try:
            status, value = _recv(self._conn)
        except (EOFError, OSError) as e:
            raise CollectorError(f"the collector process ended (exit code {self._proc.exitcode})") from e
        if status == "error":
            raise CollectorError(f"the collector process failed:\n{value}")
        return value

    def request(self, method: str, *args: Any) -> Any:
        """Call ``method`` of the collector (after the rollout in flight, which is kept for the learner)."""
        self._settle()
        _send(self._conn, (method, *args))
        return self._reply()

    def _settle(self) -> None:
        if self._in_flight:
            t = time.perf_counter()
            self._ready = self._reply()
            self.seconds["wait"] += time.perf_counter() - t
            self._in_flight = False

    def start_collect(self, weights: Mapping[str, torch.Tensor], n_steps: int) -> None:
        """Ask for the next rollout, played with ``weights``; returns at once."""
        self._settle()
        _send(self._conn, ("collect", dict(weights), n_steps))
        self._in_flight = True

    def finish_collect(self) -> dict[str, Any]:
        """The rollout asked for last (waits for it if it is still being played)."""
        self._settle()
        out, self._ready = self._ready, None
        if out is None:
            raise RuntimeError("finish_collect: expected a rollout asked for with start_collect, got none")
        for k, v in out["seconds"].items():
            self.seconds[k] += v
        return out

    def discard(self) -> None:
        """Drop a rollout in flight or waiting (at a stop, or before new RNG states are loaded)."""
        self._settle()
        self._ready = None

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        self.discard()
        return self.request("reset")

    def step_async(self, actions: np.ndarray) -> None:
        raise NotImplementedError("CollectorEnv: the collector process steps the games (OverlappedMaskablePPO)")

    def step_wait(self) -> Any:
        raise NotImplementedError("CollectorEnv: the collector process steps the games (OverlappedMaskablePPO)")

    def prune_pool(self) -> None:
        self.request("prune_pool")

    def rng_state(self) -> dict[str, Any]:
        return self.request("rng_state")

    def set_rng_state(self, state: Mapping[str, Any]) -> None:
        self.discard()
        self.request("set_rng_state", dict(state))

    def close(self) -> None:
        """End the collector process (also at interpreter exit, if nobody called this)."""
        if self._proc.is_alive():
            try:
                self.discard()  # the collector cannot read "close" while its rollout waits in the pipe
            except CollectorError:
                pass
        self._finalizer()


class PoolProxy:
    """The :class:`~training.learning.pool.OpponentPool` methods the trainer calls, run in the collector."""

    def __init__(self, env: CollectorEnv) -> None:
        self._env = env

    def add_snapshot(self, weights: Mapping[str, torch.Tensor], step: int) -> None:
        self._env.request("pool_call", "add_snapshot", {k: v.clone() for k, v in weights.items()}, step)

    def composition(self) -> dict[str, float]:
        return self._env.request("pool_call", "composition")

    def league(self) -> dict[str, dict[str, float]]:
        return self._env.request("pool_call", "league")

    def state_dict(self) -> dict[str, Any]:
        return self._env.request("pool_call", "state_dict")

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self._env.request("pool_call", "load_state_dict", dict(state))

    @property
    def snapshot_count(self) -> int:
        return self._env.request("snapshot_count")


class OverlappedMaskablePPO(MaskablePPO):
    """MaskablePPO whose rollouts come from a :class:`CollectorEnv`, one update behind (see the module doc).

    ``collect_rollouts`` takes the rollout the collector has been playing during the last update, asks at
    once for the next one with the current actor, recomputes the rollout's values with the current critic
    and fills the rollout buffer; the callback gets one ``on_step`` per rollout, with every finished
    game's info in ``locals["infos"]``.
    """

    def collect_rollouts(  # type: ignore[override]
        self, env: VecEnv, callback: Any, rollout_buffer: Any, n_rollout_steps: int, use_masking: bool = True
    ) -> bool:
        from training import checkpoints as ckpt

        assert isinstance(env, CollectorEnv), "OverlappedMaskablePPO: expected a CollectorEnv"
        self.policy.set_training_mode(False)
        callback.on_rollout_start()  # periodic work: may query the pool (after the rollout in flight)
        weights = ckpt.actor_weights(self.policy)
        if not env._in_flight and env._ready is None:  # the first rollout (or after a reset): nothing to overlap
            env.start_collect(weights, n_rollout_steps)
        ro = env.finish_collect()
        env.start_collect(weights, n_rollout_steps)  # played while this rollout trains
        t = time.perf_counter()
        n, num_envs = ro["actions"].shape
        rollout_buffer.reset()
        rollout_buffer.observations[:] = ro["obs"].reshape(rollout_buffer.observations.shape)
        rollout_buffer.actions[:] = ro["actions"].reshape(rollout_buffer.actions.shape)
        rollout_buffer.rewards[:] = ro["rewards"]
        rollout_buffer.episode_starts[:] = ro["episode_starts"]
        rollout_buffer.log_probs[:] = ro["log_probs"]
        rollout_buffer.action_masks[:] = ro["masks"].reshape(rollout_buffer.action_masks.shape)
        with torch.no_grad():
            flat = torch.as_tensor(np.concatenate([ro["obs"].reshape(n * num_envs, -1), ro["last_obs"]]))
            values = self.policy.predict_values(flat).flatten()
        rollout_buffer.values[:] = values[: n * num_envs].reshape(n, num_envs).numpy()
        rollout_buffer.pos, rollout_buffer.full = n, True
        self.num_timesteps += n * num_envs
        infos: list[dict] = [info for _, _, info in ro["infos"]]
        dones = np.zeros(len(infos), dtype=bool)
        callback.update_locals({"infos": infos, "dones": dones})
        keep_going = callback.on_step()
        self._update_info_buffer(infos, dones)
        rollout_buffer.compute_returns_and_advantage(last_values=values[n * num_envs :], dones=ro["last_dones"])
        env.seconds["buffer"] += time.perf_counter() - t
        callback.on_rollout_end()
        return bool(keep_going)

    def train(self) -> None:
        t = time.perf_counter()
        super().train()
        env = self.env
        if isinstance(env, CollectorEnv):
            env.seconds["update"] += time.perf_counter() - t

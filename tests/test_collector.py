"""Self-play on two cores: the collector process, its one-update policy lag, and stacked snapshot networks."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from netweights import random_weights
from procs import alive

from nothanks_env.game import GameConfig
from nothanks_env.table import act_grouped
from nothanks_env.vector import VectorGame
from training import checkpoints as ckpt
from training.config import CONFIG_DIR
from training.learning.collector import HUGE_NEG, CollectorEnv, CollectorError, OverlappedMaskablePPO
from training.learning.config import load_config
from training.learning.pool import OpponentPool
from training.learning.selfplay import main, make_model, step_checkpoints
from training.specs import load_policy

SMOKE = str(CONFIG_DIR / "smoke.yaml")
REPO = Path(__file__).resolve().parent.parent
ACTOR = (389, 32, 32, 2)


def masked_log_probs(weights: dict[str, torch.Tensor], obs: np.ndarray, masks: np.ndarray, actions: np.ndarray):
    """log pi(action | obs) under the actor ``weights`` with illegal logits at HUGE_NEG, as MaskablePPO's."""
    pol = ckpt.MLPPolicy(weights, activation="relu", chip_memory=True)
    logits = torch.as_tensor(pol.logits(obs))
    logits = torch.where(torch.as_tensor(masks), logits, torch.tensor(HUGE_NEG))
    return torch.log_softmax(logits, dim=1)[torch.arange(len(actions)), torch.as_tensor(actions)].numpy()


# --------------------------------------------------------------------------- stacked snapshots
def test_a_stack_gives_each_row_the_logits_of_its_own_network():
    nets = [ckpt.MLPPolicy(random_weights(ACTOR, s), activation="relu", chip_memory=True) for s in range(3)]
    stack = ckpt.MLPStack(nets)
    obs = np.random.default_rng(0).random((11, 389), dtype=np.float32)
    which = np.array([2, 0, 0, 1, 2, 2, 0, 1, 1, 1, 0])
    got = stack.logits(obs, which)
    want = np.stack([nets[k].logits(obs[i : i + 1])[0] for i, k in enumerate(which)])
    assert got.shape == (11, 2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_stack_refuses_networks_of_different_shapes():
    a = ckpt.MLPPolicy(random_weights(ACTOR, 0), activation="relu", chip_memory=True)
    b = ckpt.MLPPolicy(random_weights((389, 16, 2), 1), activation="relu", chip_memory=True)
    with pytest.raises(ValueError, match="expected networks of one shape"):
        ckpt.MLPStack([a, b])


def test_stacked_snapshots_act_as_the_same_networks_one_by_one():
    """act_grouped through the pool's stack picks what each snapshot picks alone (deterministic argmax)."""
    heur = load_policy("heuristic", num_players=3)
    pool = OpponentPool({"heuristic": (1.0, {3: heur})}, snapshot_sample=False, max_snapshots=3, seed=0)
    for k in range(3):
        pool.add_snapshot(random_weights(ACTOR, 10 + k), step=k)
    ids = [m.id for m in pool.snapshots]
    game = VectorGame(GameConfig(num_players=3), 60, seed=4)
    view = game.view()
    who = np.array([ids[i % 3] for i in range(60)])
    who[::7] = 0  # some rows to the heuristic, which is not stacked
    stacked = act_grouped(view, who, lambda i: pool.members[i].policy(3))
    assert pool.members[ids[0]].policies[0].stack is not None
    for m in pool.snapshots:
        m.policies[0].stack = None
    alone = act_grouped(view, who, lambda i: pool.members[i].policy(3))
    assert np.array_equal(stacked, alone)
    assert 0 < stacked.sum() < 60  # both actions occur: the comparison is not vacuous


def test_the_pool_keeps_evicted_snapshots_in_use_in_its_stack_until_pruned():
    pool = OpponentPool({"random": (1.0, {3: load_policy("random", num_players=3)})}, max_snapshots=2, seed=0)
    first = pool.add_snapshot(random_weights(ACTOR, 0), step=0)
    assert first.policies[0].stack is None  # one network: nothing to stack
    pool.add_snapshot(random_weights(ACTOR, 1), step=1)
    third = pool.add_snapshot(random_weights(ACTOR, 2), step=2)  # evicts the first from the draw
    assert len(third.policies[0].stack.policies) == 3
    pool.prune(np.array([first.id]))  # still seated somewhere: kept
    assert len(third.policies[0].stack.policies) == 3
    pool.prune(np.array([-1]))
    assert len(third.policies[0].stack.policies) == 2
    assert first.id not in pool.members


# --------------------------------------------------------------------------- the collector process
@pytest.fixture(scope="module")
def collector():
    cfg = load_config(SMOKE, ["ppo.n_epochs=4", "ppo.learning_rate=0.003"])
    env = CollectorEnv(cfg)
    yield cfg, env
    env.close()


def test_each_rollout_is_played_by_the_actor_from_one_update_before(collector):
    cfg, env = collector
    torch.manual_seed(0)
    model = make_model(cfg, env)
    assert isinstance(model, OverlappedMaskablePPO)
    rollout = cfg.n_envs * cfg.ppo.n_steps
    seen: list[dict[str, torch.Tensor]] = []
    train = model.train

    def recording_train():
        seen.append(ckpt.actor_weights(model.policy))  # the actor this update starts from
        train()

    model.train = recording_train
    model.learn(3 * rollout)
    assert model.num_timesteps == 3 * rollout
    assert len(seen) == 3
    buf = model.rollout_buffer  # the third rollout, trained by the third update (from seen[2])
    n = buf.buffer_size * buf.n_envs
    obs = buf.observations.reshape(n, -1)
    masks = buf.action_masks.reshape(n, -1).astype(bool)
    actions = buf.actions.reshape(n).astype(np.int64)
    recorded = buf.log_probs.reshape(n)
    # played by the actor after the first update = the one the second update started from
    np.testing.assert_allclose(recorded, masked_log_probs(seen[1], obs, masks, actions), atol=1e-4)
    lag = np.abs(recorded - masked_log_probs(seen[2], obs, masks, actions)).max()
    assert lag > 1e-3  # not the actor this update starts from: the lag is real and one update long
    assert env.seconds["update"] > 0 and env.seconds["opponents"] > 0 and env.seconds["engine"] > 0


def test_a_failure_in_the_collector_comes_back_with_its_traceback(collector):
    _, env = collector
    with pytest.raises(CollectorError, match="AttributeError.*no_such_method"):
        env.request("pool_call", "no_such_method")
    assert env.pool.snapshot_count >= 0  # still serving after the error


def test_the_collector_ends_with_the_run_and_a_resume_may_change_collector_mode(tmp_path):
    before = set(multiprocessing.active_children())
    runs = tmp_path / "runs"
    assert main([SMOKE, "--run.runs_dir", str(runs), "--set", "run.collector=process"]) == 0
    (run,) = list(runs.iterdir())
    assert ckpt.read_metadata(run / "checkpoints" / "final")["timesteps"] == 4096
    assert main(["--resume", str(run), "--set", "run.total_timesteps=6144", "--set", "run.collector=inline"]) == 0
    assert ckpt.read_metadata(run / "checkpoints" / "final")["timesteps"] == 6144
    assert set(multiprocessing.active_children()) <= before  # the run's collector process is gone


# --------------------------------------------------------------------------- the collector ends with the learner
needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads processes from /proc (Linux)")


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def the_collector(pid: int) -> int | None:
    """The collector process ``pid`` spawned, if it has (its resource tracker is a child too)."""
    for child in children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                return child
        except OSError:
            continue
    return None


@needs_proc
def test_sigterm_while_the_collector_starts_saves_step_0_and_leaves_no_process(tmp_path):
    """SIGTERM to the trainer while its collector process is still starting: the trainer used to die of it at once
    (exit -15) and leave the collector, which ignores SIGTERM, starting and then failing on the closed pipe with
    two tracebacks. Now the stop waits for the start, saves a checkpoint at step 0, closes the collector, exits 0."""
    cmd = [sys.executable, "-m", "training.selfplay", SMOKE, "--run.runs_dir", str(tmp_path)]
    cmd += ["--set", "run.collector=process", "--set", "run.total_timesteps=1000000"]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    collector = None
    try:
        deadline = time.time() + 60
        while collector is None and proc.poll() is None and time.time() < deadline:
            collector = the_collector(proc.pid)
            time.sleep(0.01)
        assert collector is not None, proc.communicate()
        proc.send_signal(signal.SIGTERM)  # the collector is importing torch: seconds from its first answer
        _, err = proc.communicate(timeout=60)
        left = alive(collector)
    finally:
        if proc.poll() is None:
            proc.kill()
        if collector is not None and alive(collector):
            os.kill(collector, signal.SIGKILL)
    assert not left, "the collector process outlived the trainer"
    assert proc.returncode == 0, err
    assert "SIGTERM: saving a checkpoint" in err and "stopped at 0 learner steps" in err, err
    assert "Traceback" not in err, err
    (run,) = list(tmp_path.iterdir())
    (last,) = step_checkpoints(run)
    assert ckpt.verify_checkpoint(last)["timesteps"] == ckpt.load_train_state(last)["num_timesteps"] == 0


@needs_proc
def test_the_collector_ends_when_its_learner_is_killed_mid_rollout():
    """SIGKILL (or any death without clean-up) of the learner while the collector plays a rollout: the collector
    used to play on to the end of it (here minutes) before a write to the closed pipe failed."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO / "tests")!r})
        from netweights import random_weights
        from training.learning.collector import CollectorEnv
        from training.learning.config import load_config
        env = CollectorEnv(load_config({SMOKE!r}, ["env.games_per_count=1", "ppo.batch_size=32"]))
        env.start_collect(random_weights({ACTOR!r}, 0), 300_000)  # one game slot: 300,000 steps take minutes
        print(env._proc.pid, flush=True)
        sys.stdin.read()
    """)
    learner = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    collector = None
    try:
        collector = int(learner.stdout.readline())
        assert alive(collector)
        learner.kill()
        learner.wait(timeout=30)
        deadline = time.time() + 10
        while alive(collector) and time.time() < deadline:
            time.sleep(0.05)
        left = alive(collector)
    finally:
        if learner.poll() is None:
            learner.kill()
        if collector is not None and alive(collector):
            os.kill(collector, signal.SIGKILL)
    assert not left, "the collector process outlived its learner"


def test_a_trainer_that_fails_to_start_ends_its_collector_at_once(tmp_path, monkeypatch):
    """An exception after the collector started (here building the model) ends it before it propagates: before, it
    ran on until the interpreter's exit, or until the garbage collector found the failed trainer."""
    from training.learning import selfplay

    def broken_model(cfg, env, n_steps=None):
        raise ValueError("no model today")

    monkeypatch.setattr(selfplay, "make_model", broken_model)
    before = set(multiprocessing.active_children())
    with pytest.raises(ValueError, match="no model today"):
        selfplay.Trainer(load_config(SMOKE, ["run.collector=process"]), tmp_path / "run")
    assert set(multiprocessing.active_children()) <= before


def test_a_collector_interrupted_while_it_starts_is_ended_at_once(monkeypatch):
    """Ctrl-C (KeyboardInterrupt) while the learner waits for the collector's first answer ends the collector
    before the exception goes on. Before, the collector ran on while anything held the exception (its traceback
    holds the half-built env), then the env's finalizer waited for it to finish starting before ending it."""
    from training.learning import collector as col

    def interrupted(conn):
        raise KeyboardInterrupt

    monkeypatch.setattr(col, "_recv", interrupted)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt) as raised:
        CollectorEnv(load_config(SMOKE))
    assert set(multiprocessing.active_children()) <= before  # while the exception is still held
    assert raised.value is not None

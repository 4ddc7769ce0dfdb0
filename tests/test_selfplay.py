"""The main job end to end: train, checkpoint, resume, evaluate, stop on SIGTERM, refuse bad input, learn."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from training import checkpoints as ckpt
from training.config import CONFIG_DIR
from training.selfplay import main, step_checkpoints

SMOKE = str(CONFIG_DIR / "smoke.yaml")
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def only_run(runs: Path) -> Path:
    (run,) = list(runs.iterdir())
    return run


def scalars(run: Path, tag: str) -> list[tuple[int, float]]:
    ea = EventAccumulator(str(run))
    ea.Reload()
    return [(e.step, e.value) for e in ea.Scalars(tag)] if tag in ea.Tags()["scalars"] else []


def digest(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest() for p in run.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    assert main([SMOKE, "--run.runs_dir", str(runs)]) == 0
    return only_run(runs)


def test_smoke_run_writes_the_run_folder(smoke_run):
    run = smoke_run
    assert run.name.startswith("smoke__0__")
    for name in ("config.yaml", "evals.jsonl", "final_eval.md", "learning_curve.png"):
        assert (run / name).is_file(), name
    assert list(run.glob("events.out.tfevents.*"))
    steps = step_checkpoints(run)
    assert [int(p.name[5:]) for p in steps] == [2048, 4096]
    meta = ckpt.verify_checkpoint(steps[-1])
    assert meta["timesteps"] == 4096 and meta["config"]["run"]["name"] == "smoke" and meta["chip_memory"] is True
    assert (steps[-1] / ckpt.TRAIN_STATE_FILE).is_file()
    for name in ("best", "final"):
        m = ckpt.verify_checkpoint(run / "checkpoints" / name)
        assert not (run / "checkpoints" / name / ckpt.TRAIN_STATE_FILE).exists()
        assert set(m["eval"]) == {"heuristic", "random"}
    final = ckpt.read_metadata(run / "checkpoints" / "final")
    assert final["timesteps"] == 4096 and final["eval"]["random"]["games"] == 90
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in evals] == [0, 2048]
    seconds = [e["train_seconds"] for e in evals]  # the run's training time at each evaluation
    assert 0 < seconds[0] < seconds[1]
    assert scalars(run, "eval/train_seconds") == [(0, pytest.approx(seconds[0], rel=1e-6)),
                                                  (2048, pytest.approx(seconds[1], rel=1e-6))]  # fmt: skip
    ((step, final_seconds),) = scalars(run, "eval/final_train_seconds")
    assert step == 4096 and final_seconds > seconds[1]
    assert 0.0 <= evals[-1]["results"]["heuristic"]["win_rate"] <= 1.0
    assert "| heuristic x2 | 3 | 90 |" in (run / "final_eval.md").read_text()
    for tag in ("eval/heuristic/win_rate", "eval/random/mean_penalty", "charts/steps_per_s", "losses/value_loss"):
        assert scalars(run, tag), tag
    assert scalars(run, "pool/snapshots_held")[-1][1] == 2  # snapshots every 1024 steps, at most 2 kept
    weights = [scalars(run, f"pool/{m}/weight")[-1][1] for m in ("heuristic", "random", "snapshots")]
    assert sum(weights) == pytest.approx(1.0) and weights[2] == pytest.approx(0.5)  # the league's draw shares
    assert 0.0 <= scalars(run, "pool/heuristic/win_rate")[-1][1] <= 1.0
    for m in ("heuristic", "random", "snapshots"):  # no NaN point before a member's first game
        assert all(0.0 <= v <= 1.0 for _, v in scalars(run, f"pool/{m}/win_rate")), m
    assert ckpt.load_checkpoint_policy(run / "checkpoints" / "final").name == "final"


def test_resume_continues_the_run(smoke_run, tmp_path):
    run = tmp_path / smoke_run.name
    subprocess.run(["cp", "-r", str(smoke_run), str(run)], check=True)
    # A checkpoint being written when the process was killed is a hidden .tmp directory: never resumed.
    junk = run / "checkpoints" / ".step_0000999999.tmp"
    junk.mkdir()
    (junk / ckpt.WEIGHTS_FILE).write_bytes(b"partial")
    before = torch.load(step_checkpoints(run)[-1] / ckpt.TRAIN_STATE_FILE, weights_only=True)
    started = time.time()
    assert main(["--resume", str(run), "--set", "run.total_timesteps=6144"]) == 0
    session = time.time() - started
    steps = step_checkpoints(run)
    assert [int(p.name[5:]) for p in steps] == [2048, 4096, 6144]
    after = torch.load(steps[-1] / ckpt.TRAIN_STATE_FILE, weights_only=True)
    assert after["num_timesteps"] == 6144 and after["n_updates"] > before["n_updates"]
    assert len(after["pool"]["snapshots"]) == 2
    assert after["pool"]["snapshots"][-1]["step"] > before["pool"]["snapshots"][-1]["step"]
    assert ckpt.read_metadata(run / "checkpoints" / "final")["timesteps"] == 6144
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in evals] == [0, 2048, 4096]
    # the resumed evaluation's training time goes on from the checkpoint's, whatever time passed in between
    assert before["elapsed"] < evals[2]["train_seconds"] < before["elapsed"] + session
    assert after["elapsed"] > evals[2]["train_seconds"]
    assert len(list(run.glob("events.out.tfevents.*"))) == 2
    assert max(s for s, _ in scalars(run, "losses/value_loss")) > 4096  # the curves continue
    assert "total_timesteps: 6144" in (run / "config.yaml").read_text()


@pytest.mark.parametrize("whole_group", [False, True], ids=["to-the-trainer", "to-its-process-group"])
def test_sigterm_saves_a_checkpoint_and_exits_cleanly(tmp_path, whole_group):
    """SIGTERM to the trainer alone, or to its whole process group (``timeout``, a service manager), collector
    process included: the run saves a checkpoint and exits 0 either way."""
    cmd = [sys.executable, "-m", "training.selfplay", SMOKE, "--run.runs_dir", str(tmp_path)]
    cmd += ["--run.total_timesteps", "10000000", "--eval.every", "10000000", "--run.checkpoint_every", "1024"]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not (list(tmp_path.glob("*/checkpoints/step_*")) or proc.poll()):
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        time.sleep(2.0)  # train past that checkpoint, so that the stop must save a new one (it asks the collector)
        if whole_group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "SIGTERM: saving a checkpoint" in err
    run = only_run(tmp_path)
    last = step_checkpoints(run)[-1]
    meta = ckpt.verify_checkpoint(last)
    state = ckpt.load_train_state(last)
    assert state["num_timesteps"] == meta["timesteps"] >= 1024 and meta["timesteps"] % 512 == 0
    assert not (run / "checkpoints" / "final").exists()  # stopped early: no final evaluation


def test_sigterm_during_the_final_evaluation_ends_it_and_keeps_the_run_resumable(tmp_path):
    """The final evaluation ran with the default SIGTERM action: the trainer died at once (exit -15, no message).
    Its step checkpoint is saved before it: the stop says so and exits 0, and --resume runs the evaluation."""
    cmd = [sys.executable, "-m", "training.selfplay", SMOKE, "--run.runs_dir", str(tmp_path)]
    cmd += ["--run.total_timesteps", "1024", "--eval.every", "100000", "--eval.final_games", "300000"]
    log = tmp_path.parent / f"{tmp_path.name}.stderr"
    with open(log, "w") as err_file:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err_file, start_new_session=True)
    try:
        deadline, saved_at = time.time() + 120, None
        while time.time() < deadline and proc.poll() is None and "final evaluation at" not in log.read_text():
            if saved_at is None and list(tmp_path.glob("*/checkpoints/step_*")):
                saved_at = time.time()  # the final evaluation follows at once (the old code says nothing of it)
            if saved_at is not None and time.time() > saved_at + 5:
                break
            time.sleep(0.2)
        assert proc.poll() is None, log.read_text()
        time.sleep(1.0)  # well inside the evaluation: 300,000 games per table take minutes
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = log.read_text()
    run = only_run(tmp_path)
    last = run / "checkpoints" / "step_0000001024"
    assert proc.returncode == 0, err
    assert err.endswith(
        f"SIGTERM: final evaluation stopped; the checkpoint at 1,024 learner steps is saved: {last}\n"
        f"run the final evaluation with: python -m training.selfplay --resume {run}\n"
    )
    assert "final evaluation at 1,024 learner steps: 300,000 games per opponent table" in err
    assert step_checkpoints(run) == [last]
    assert ckpt.verify_checkpoint(last)["timesteps"] == ckpt.load_train_state(last)["num_timesteps"] == 1024
    assert ckpt.load_checkpoint_policy(last).obs_size == 389  # chip memory on, behaviour off
    assert not (run / "checkpoints" / "final").exists() and not (run / "final_eval.md").exists()
    assert main(["--resume", str(run), "--set", "eval.final_games=30"]) == 0  # the evaluation, now short
    assert ckpt.read_metadata(run / "checkpoints" / "final")["eval"]["random"]["games"] == 30
    assert step_checkpoints(run) == [last] and (run / "final_eval.md").is_file()


EVAL_STOP_BOUND = 20.0
"""Seconds a run stopped during a periodic evaluation may take to end. It takes a second or two, but the stop runs at
the machine's pace: on a busy machine (the whole suite on two cores, load 6) a stop test once took 11 s. The bound
stays well below the half minute that playing the evaluation's queued chunks took on an idle machine (longer on a
busy one), so that bug still fails."""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="finds the evaluation's pool workers in /proc")
def test_ctrl_c_during_a_periodic_evaluation_drops_it_at_once_and_resume_runs_it(tmp_path):
    """A stop during a periodic evaluation waited for all its games (half a minute here, every queued chunk of
    the pool), and each of its ``eval.workers`` printed the stop line again. It now ends the evaluation at once:
    nothing of it is written, and the checkpoint keeps it due, so --resume runs it."""
    from procs import pool_workers

    cmd = [sys.executable, "-m", "training.selfplay", SMOKE, "--run.runs_dir", str(tmp_path)]
    cmd += ["--eval.games", "150000", "--eval.workers", "2", "--run.total_timesteps", "1024"]  # eval @ step 0
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.time() + 120
        while len(pool_workers(proc.pid)) < 2 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.5)
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole group, collector and pool workers included
        out, err = proc.communicate(timeout=120)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
    run = only_run(tmp_path)
    first = run / "checkpoints" / "step_0000000000"
    assert proc.returncode == 0, err
    assert took < EVAL_STOP_BOUND, f"{took:.1f} s"  # a second or two; it took half a minute
    assert err.endswith(
        "\nSIGINT: saving a checkpoint and stopping (the evaluation at 0 learner steps is dropped; --resume runs "
        f"it)...\nstopped at 0 learner steps; checkpoint: {first}\n"
        f"continue with: python -m training.selfplay --resume {run}\n"
    )
    assert err.count("SIGINT") == 1  # said once, by the trainer
    assert not (run / "evals.jsonl").exists() and not (run / "checkpoints" / "best").exists()
    assert step_checkpoints(run) == [first] and ckpt.load_train_state(first)["next"]["eval"] == 0  # still due
    assert main(["--resume", str(run), "--set", "eval.games=30", "--set", "eval.workers=1"]) == 0
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [(e["timesteps"], e["results"]["random"]["games"]) for e in evals] == [(0, 30)]  # the one dropped
    assert (run / "checkpoints" / "final").is_dir() and (run / "final_eval.md").is_file()


def test_a_stop_once_the_final_evaluation_is_done_waits_for_its_checkpoint_and_summary(capsys):
    """A ``final`` checkpoint without its summary would pass for a finished run: a stop after the evaluation's
    games lets them be written (a second or so), and the handlers are the caller's again afterwards."""
    from training.learning.selfplay import _final_evaluation_stop, _FinalEvaluationStopped

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(_FinalEvaluationStopped, match="SIGTERM"), _final_evaluation_stop():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises first
    with _final_evaluation_stop() as stop:
        stop.evaluating = False
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)  # a second SIGTERM is ignored too
        time.sleep(0.2)
        written = True
    assert written and stop.stopped
    assert capsys.readouterr().err == (
        "SIGTERM: the final evaluation is done; writing its checkpoint and summary, then ending\n"
    )
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_stop_saves_its_checkpoint_when_stderr_has_no_reader(tmp_path):
    """``python -m training.selfplay ... 2>&1 | tee log`` and Ctrl-C: the terminal stops ``tee`` too, so every
    write to stderr fails from then on. The stop must still save its checkpoint (the only one: no periodic ones)."""
    cmd = [sys.executable, "-m", "training.selfplay", SMOKE, "--run.runs_dir", str(tmp_path)]
    cmd += ["--run.total_timesteps", "10000000", "--eval.every", "10000000", "--run.checkpoint_every", "10000000"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not (list(tmp_path.glob("*/events.out.tfevents.*")) or proc.poll()):
            time.sleep(0.2)
        time.sleep(6.0)  # training under way
        assert proc.poll() is None
        proc.stderr.close()  # the reader is gone: the next write to stderr raises BrokenPipeError
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    (last,) = step_checkpoints(only_run(tmp_path))
    meta = ckpt.verify_checkpoint(last)
    assert meta["timesteps"] > 0 and ckpt.load_train_state(last)["num_timesteps"] == meta["timesteps"]


@pytest.mark.parametrize("collector", ["inline", "process"])
def test_a_stopped_run_s_progress_bar_ends_at_the_checkpoint_it_saved(tmp_path, monkeypatch, collector):
    """A stop in the middle of a rollout saves the last trained step: the progress bar ends there too, not at the
    steps the cut rollout had played (it counted them as it went)."""
    from tqdm import tqdm

    from training.config import load_config
    from training.selfplay import Trainer

    bars = []

    class RecordingBar(tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(self)
            self.peak = self.n

        def update(self, n=1):
            out = super().update(n)
            self.peak = max(self.peak, self.n)
            return out

    class StopMidRollout(Trainer):
        """Asks to stop once 1104 learner steps are played: 80 steps into the rollout after step 1024."""

        @property
        def stop_requested(self) -> bool:
            return self._stop or self.model.num_timesteps >= 1104

        @stop_requested.setter
        def stop_requested(self, value: bool) -> None:
            self._stop = value

    monkeypatch.setattr("tqdm.tqdm", RecordingBar)
    sets = ["run.progress=true", f"run.collector={collector}", "run.total_timesteps=100000", "eval.every=100000"]
    trainer = StopMidRollout(load_config(SMOKE, sets), tmp_path / "run")
    trainer.train()
    (bar,) = bars
    saved = step_checkpoints(tmp_path / "run")[-1]
    assert ckpt.read_metadata(saved)["timesteps"] == ckpt.load_train_state(saved)["num_timesteps"] == 1024
    assert bar.peak == (1104 if collector == "inline" else 1536)  # the process collector hands over whole rollouts
    assert bar.n == 1024 and trainer.model.num_timesteps == 1024


def test_bad_config_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: {learning_rat: 0.1}\n")
    assert main([str(bad), "--run.runs_dir", str(tmp_path / "runs")]) == 2
    assert "ppo.learning_rat: unknown key" in capsys.readouterr().err
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "ppo.n_epochs=zero"]) == 2
    assert "ppo.n_epochs" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_init_from_starts_the_actor_from_a_checkpoint_and_refuses_a_misfit(smoke_run, tmp_path, capsys):
    from training.config import load_config
    from training.selfplay import Trainer

    final = smoke_run / "checkpoints" / "final"
    cfg = load_config(SMOKE, [f"run.init_from={final}"])
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    trainer = Trainer(cfg, run)
    got = ckpt.actor_weights(trainer.model.policy)
    want = ckpt.load_checkpoint_policy(final).weights()
    assert got.keys() == want.keys() and all(torch.equal(got[k], want[k]) for k in got)
    # ppo-3p-v2 is 128x128; the smoke config is 32x32
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "run.init_from=ppo-3p-v2"]) == 2
    err = capsys.readouterr().err
    assert "error: run.init_from 'ppo-3p-v2': expected actor layer shapes [(32, " in err and "got [(128, " in err
    assert not (tmp_path / "runs").exists()  # refused before any run folder was made
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "run.init_from=ppo-4p-v2"]) == 2
    assert "run.init_from 'ppo-4p-v2': trained for [4, 5] players, expected one that covers" in capsys.readouterr().err
    # ppo-3p reads the behaviour record; a config without it cannot drop those inputs
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "run.init_from=ppo-3p"]) == 2
    err = capsys.readouterr().err
    assert "run.init_from 'ppo-3p': has behaviour=True, expected this config's False" in err
    assert "add --set env.behaviour=true" in err
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "run.init_from=ppo-wildcards"]) == 2
    assert "run.init_from 'ppo-wildcards': trained on special cards (125 actions), expected a checkpoint of the " \
        "standard game (2 actions)" in capsys.readouterr().err  # fmt: skip
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "run.init_from=nowhere"]) == 2
    assert "run.init_from: expected a checkpoint path or shipped name, got 'nowhere'" in capsys.readouterr().err


def test_a_misspelt_shipped_name_in_init_from_gets_the_closest_one(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main([SMOKE, "--run.runs_dir", str(runs), "--set", "run.init_from=ppo-3pv"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: run.init_from: expected a checkpoint path or shipped name, got 'ppo-3pv' (did you mean 'ppo-3p'?) "
        "(no checkpoint at that path)\n"
    )
    assert main([SMOKE, "--run.runs_dir", str(runs), "--set", "run.init_from=ppo-4p-v9"]) == 2
    assert "got 'ppo-4p-v9' (did you mean 'ppo-4p-v5'?) (no checkpoint at that path)" in capsys.readouterr().err
    # a path far from every shipped name gets no guess
    assert main([SMOKE, "--run.runs_dir", str(runs), "--set", f"run.init_from={tmp_path / 'nowhere'}"]) == 2
    assert f"got '{tmp_path / 'nowhere'}' (checkpoint not found: " in capsys.readouterr().err
    assert not runs.exists()


def test_critic_warmup_holds_the_warm_started_actor_then_lets_it_learn(smoke_run, tmp_path, capsys):
    from training.config import load_config
    from training.selfplay import Trainer

    final = smoke_run / "checkpoints" / "final"
    want = ckpt.load_checkpoint_policy(final).weights()
    # 8 updates of 512 steps each; the 4 of the rollouts that start at steps 0-1536 are held, the 4 from 2048 on
    # are not (a warm-up past the start of the last rollout, which trained no actor step, is refused by the config)
    sets = [f"run.init_from={final}", "run.critic_warmup=2048", "run.total_timesteps=4096"]
    run = tmp_path / "warm"
    (run / "checkpoints").mkdir(parents=True)
    trainer = Trainer(load_config(SMOKE, sets), run)
    vf0 = {k: v.clone() for k, v in trainer.model.policy.value_net.state_dict().items()}
    at_end_of_warmup: dict[str, dict[str, torch.Tensor]] = {}
    boundary = trainer.on_update_boundary

    def record_then_go_on() -> None:  # between updates: the weights the held updates left
        if trainer.model.num_timesteps == 2048:
            at_end_of_warmup["actor"] = {k: v.clone() for k, v in ckpt.actor_weights(trainer.model.policy).items()}
            at_end_of_warmup["critic"] = {k: v.clone() for k, v in trainer.model.policy.value_net.state_dict().items()}
        boundary()

    trainer.on_update_boundary = record_then_go_on
    trainer.train()
    held, vf1 = at_end_of_warmup["actor"], at_end_of_warmup["critic"]
    assert all(torch.equal(held[k], want[k]) for k in want)
    assert not all(torch.equal(vf0[k], vf1[k]) for k in vf0)  # the critic did learn
    freed = ckpt.actor_weights(trainer.model.policy)  # the last 4 updates come after it
    assert not all(torch.equal(freed[k], want[k]) for k in want)
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "run.critic_warmup=100"]) == 2
    err = capsys.readouterr().err
    assert "critic_warmup: expected 0 without run.init_from" in err and "got 100" in err


@pytest.mark.parametrize(
    ("flags", "seed"),
    [
        (["--run.seed", "4", "--set", "run.seed=3"], 3),
        (["--set", "run.seed=3", "--run.seed", "4"], 4),
        (["--run.seed=4", "--set", "run.seed=3", "--run.seed", "5"], 5),
        (["--set", "run.seed=3", "--set", "run.seed=6"], 6),
    ],
)
def test_the_override_typed_last_wins_in_either_form(flags, seed, tmp_path, monkeypatch):
    """``--SECTION.KEY VALUE`` was applied after every ``--set``: ``--run.seed 4 --set run.seed=3`` trained
    with seed 4."""
    import training.learning.selfplay as sp

    trained = []

    class FakeTrainer:  # the run folder and its config.yaml, without the training
        def __init__(self, cfg, run_dir):
            self.cfg = cfg

        def train(self):
            trained.append(self.cfg.run.seed)

    monkeypatch.setattr(sp, "Trainer", FakeTrainer)
    runs = tmp_path / "runs"
    assert main([SMOKE, "--set", f"run.runs_dir={runs}", *flags]) == 0
    assert trained == [seed]
    run = only_run(runs)
    assert run.name.startswith(f"smoke__{seed}__")
    assert yaml.safe_load((run / "config.yaml").read_text())["run"]["seed"] == seed


def test_a_target_kl_of_zero_or_below_is_one_error_line(tmp_path, capsys):
    """It stopped every PPO update before (or right after) its first gradient step: a run that trained nothing."""
    assert main([SMOKE, "--run.runs_dir", str(tmp_path / "runs"), "--set", "ppo.target_kl=-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid config ") and err.count("\n") == 1
    assert err.endswith("ppo.target_kl: expected a number > 0.0, got -1\n")
    assert not (tmp_path / "runs").exists()


def test_missing_run_or_checkpoint_is_refused(tmp_path, capsys):
    assert main(["--resume", str(tmp_path / "nope")]) == 2
    assert "expected a run folder with config.yaml" in capsys.readouterr().err
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text((CONFIG_DIR / "smoke.yaml").read_text())
    assert main(["--resume", str(run)]) == 2
    assert "no checkpoint" in capsys.readouterr().err


@pytest.mark.parametrize("target", [ckpt.TRAIN_STATE_FILE, ckpt.WEIGHTS_FILE])
def test_corrupted_checkpoint_is_refused_and_nothing_is_overwritten(smoke_run, tmp_path, capsys, target):
    run = tmp_path / smoke_run.name
    subprocess.run(["cp", "-r", str(smoke_run), str(run)], check=True)
    victim = step_checkpoints(run)[-1] / target
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    before = digest(run)
    assert main(["--resume", str(run), "--set", "run.total_timesteps=8192"]) == 2
    err = capsys.readouterr().err
    assert f"{target} is corrupted" in err and victim.parent.name in err
    assert digest(run) == before


def test_resume_after_a_kill_drops_newer_evaluations_and_keeps_the_better_best(tmp_path, capsys):
    """A session killed after its checkpoint at 2048 had evaluated at 3072 and replaced best/."""
    sets = ["--set", "eval.every=1024", "--run.runs_dir", str(tmp_path)]
    assert main([SMOKE, *sets]) == 0
    run = only_run(tmp_path)
    killed_evals = [json.loads(line)["timesteps"] for line in (run / "evals.jsonl").read_text().splitlines()]
    assert killed_evals == [0, 1024, 2048, 3072]
    # What a SIGKILL at ~3500 steps leaves: no step_4096, no final; best/ written by the 3072 evaluation.
    for name in ("step_0000004096", "final"):
        shutil.rmtree(run / "checkpoints" / name)
    best = run / "checkpoints" / "best"
    meta = json.loads((best / ckpt.METADATA_FILE).read_text())
    meta["timesteps"] = 3072
    meta["eval"] = {k: r | {"win_rate": 1.0} for k, r in meta["eval"].items()}  # a model hard to beat
    ckpt.write_metadata(best, meta)
    best_weights = (best / ckpt.WEIGHTS_FILE).read_bytes()
    assert [s for s, _ in scalars(run, "eval/heuristic/win_rate")] == [0, 1024, 2048, 3072]
    capsys.readouterr()

    assert main(["--resume", str(run)]) == 0
    evals = [json.loads(line)["timesteps"] for line in (run / "evals.jsonl").read_text().splitlines()]
    assert evals == [0, 1024, 2048, 3072]  # the killed session's 3072 was dropped, then evaluated again
    steps = [s for s, _ in scalars(run, "eval/heuristic/win_rate")]
    assert steps == [0, 1024, 2048, 3072]  # the killed session's scalars after 2048 are purged
    loss_steps = [s for s, _ in scalars(run, "losses/value_loss")]
    assert len(loss_steps) == len(set(loss_steps)) and max(loss_steps) == 4096
    assert (best / ckpt.WEIGHTS_FILE).read_bytes() == best_weights  # not replaced by a worse model
    assert ckpt.read_metadata(best)["timesteps"] == 3072
    assert "eval @ 3,072 steps: heuristic " in capsys.readouterr().err  # one console line per evaluation


def test_resume_refuses_a_changed_network_before_writing_anything(smoke_run, tmp_path, capsys):
    run = tmp_path / smoke_run.name
    subprocess.run(["cp", "-r", str(smoke_run), str(run)], check=True)
    before = digest(run)
    args = ["--resume", str(run), "--set", "run.total_timesteps=8192"]
    assert main([*args, "--set", "ppo.net_arch=[64, 64]"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --resume: ppo.net_arch: expected the run's [32, 32]") and "got [64, 64]" in err
    assert err.count("\n") == 1
    assert main([*args, "--set", "env.chip_memory=false"]) == 2
    assert "env.chip_memory: expected the run's True" in capsys.readouterr().err
    # a changed game setting is named, not the whole game section (it printed both 10-key dicts)
    assert main([*args, "--set", "game.num_players=[4]"]) == 2
    assert "error: --resume: game.num_players: expected the run's [3] (checkpoint " in capsys.readouterr().err
    assert digest(run) == before  # no TensorBoard file, no config rewrite


def test_resume_takes_the_same_rules_spelled_with_a_preset(smoke_run, tmp_path, capsys):
    # the run was made with no preset: "standard" plays the same games, but was refused as game.preset
    run = tmp_path / smoke_run.name
    subprocess.run(["cp", "-r", str(smoke_run), str(run)], check=True)
    args = ["--resume", str(run), "--set", "run.total_timesteps=6144"]
    for preset, message in [
        ("visible_chips", "game.opponent_chips: expected the run's 'hidden'"),
        ("match3", "game.num_deals: expected the run's 1"),
    ]:  # other rules are still refused, naming the rule
        assert main([*args, "--set", f"game.preset={preset}"]) == 2
        assert capsys.readouterr().err.startswith(f"error: --resume: {message} (checkpoint step_0000004096 ")
    assert main([*args, "--set", "game.preset=standard"]) == 0
    assert [p.name for p in step_checkpoints(run)][-1] == "step_0000006144"
    assert yaml.safe_load((run / "config.yaml").read_text())["game"]["preset"] == "standard"


def test_resume_of_a_run_whose_saved_spec_is_refused_says_how_to_go_on(smoke_run, tmp_path, capsys):
    # A spec since renamed in the run's saved config.yaml refused the resume naming the key and the spec, but not
    # that the value is the saved one, nor that --set replaces it on resume. It is never loaded silently.
    run = tmp_path / smoke_run.name
    subprocess.run(["cp", "-r", str(smoke_run), str(run)], check=True)
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("\n    heuristic: 1.0\n", "\n    heuristic-v0: 1.0\n"))
    before = digest(run)
    assert main(["--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"error: invalid config {config}: pool.scripted: policy spec 'heuristic-v0' (did you mean 'heuristic'?): "
    )
    assert err.endswith(
        f"; pool.scripted is the run's saved value in {config}: resume with it replaced, e.g. python -m "
        f'training.selfplay --resume {run} --set \'pool.scripted={{"heuristic": 1.0, "random": 1.0}}\' '
        "(config.yaml is then rewritten with it)\n"
    )
    assert err.count("\n") == 1 and digest(run) == before
    # the user's own overrides come again in the command; a spec with no suggestion is left for them to name
    config.write_text(config.read_text().replace("heuristic-v0: 1.0", "threshold:T=9x: 1.0"))
    assert main(["--resume", str(run), "--set", "run.total_timesteps=4096"]) == 2
    assert capsys.readouterr().err.endswith(
        f'--resume {run} --set run.total_timesteps=4096 --set \'pool.scripted={{"NEW_SPEC": 1.0, "random": 1.0}}\' '
        "(config.yaml is then rewritten with it)\n"
    )
    # the command it gives loads: the finished run is complete, nothing to do
    assert main(["--resume", str(run), "--set", 'pool.scripted={"heuristic": 1.0, "random": 1.0}']) == 0
    assert f"{run} is complete" in capsys.readouterr().err
    # a refused override is the user's, not the saved config's: no hint
    config.write_text(config.read_text().replace("threshold:T=9x: 1.0", "heuristic: 1.0"))
    assert main(["--resume", str(run), "--set", "eval.opponents=[heuristc]"]) == 2
    err = capsys.readouterr().err
    assert "policy spec 'heuristc'" in err and "saved value" not in err


def test_resuming_a_finished_run_does_nothing_until_total_timesteps_is_raised(smoke_run, tmp_path, capsys):
    run = tmp_path / smoke_run.name
    subprocess.run(["cp", "-r", str(smoke_run), str(run)], check=True)
    before = digest(run)
    assert main(["--resume", str(run)]) == 0
    err = capsys.readouterr().err
    assert f"{run} is complete: it trained 4,096 learner steps (run.total_timesteps 4,096)" in err
    assert "raise run.total_timesteps" in err
    assert main(["--resume", str(run), "--set", "run.total_timesteps=4000"]) == 0
    assert digest(run) == before  # no final evaluation rerun, final/ untouched


def test_policy_spec_errors_in_a_config_are_refused_before_a_run_folder(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main([SMOKE, "--run.runs_dir", str(runs), "--set", "pool.scripted={heuristic: 1, nonsense: 1}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid config") and "pool.scripted: policy spec 'nonsense'" in err
    assert err.count("\n") == 1
    assert main([SMOKE, "--run.runs_dir", str(runs), "--set", "run.seed=true"]) == 2
    assert "run.seed: expected an int, got True" in capsys.readouterr().err
    assert not runs.exists()


@pytest.mark.slow
def test_learning_against_random_opponents(tmp_path):
    """From ~0% (the untrained argmax takes nearly every card) to > 85% against two random players.

    The bar is the lower end of the 95% interval over 900 games; 85% is far above the untrained policy
    and well below what the run reaches (~99%), so the test fails only if learning breaks.
    """
    overrides = [
        "run.total_timesteps=40000",
        "run.checkpoint_every=1000000",
        "pool.scripted={random: 1}",
        "pool.snapshot_weight=0",
        "env.games_per_count=64",
        "ppo.n_steps=16",
        "ppo.batch_size=512",
        "ppo.n_epochs=4",
        "ppo.net_arch=[64, 64]",
        "eval.opponents=[random]",
        "eval.best_metric=random",
        "eval.every=1000000",
        "eval.final_games=900",
    ]
    args = [SMOKE, "--run.runs_dir", str(tmp_path), *(x for o in overrides for x in ("--set", o))]
    assert main(args) == 0
    run = only_run(tmp_path)
    start = json.loads((run / "evals.jsonl").read_text().splitlines()[0])["results"]["random"]
    final = ckpt.read_metadata(run / "checkpoints" / "final")["eval"]["random"]
    assert start["win_rate"] < 0.5
    assert final["games"] >= 900 and final["win_rate_ci"][0] > 0.85, final


# ------------------------------------------------------------------ the wildcards variant (scalar engine)
def test_a_short_wildcards_run_trains_and_its_checkpoint_plays_wildcards(tmp_path, capsys):
    import numpy as np

    from nothanks_env import encoding as enc
    from nothanks_env.game import NUM_SPECIAL_ACTIONS, Game
    from nothanks_env.presets import get_preset
    from training.evaluate import evaluate
    from training.specs import load_policy

    argv = [str(CONFIG_DIR / "selfplay_wildcards.yaml"), "--run.runs_dir", str(tmp_path), "--run.init_from", "null",
            "--run.critic_warmup", "0", "--run.total_timesteps", "1024", "--env.games_per_count", "16",
            "--ppo.n_steps", "32", "--ppo.batch_size", "256", "--ppo.n_epochs", "1", "--ppo.net_arch", "[16]",
            "--eval.every", "1024", "--eval.games", "12", "--eval.final_games", "12",
            "--pool.snapshot_every", "512"]  # fmt: skip
    assert main(argv) == 0
    run = only_run(tmp_path)
    meta = ckpt.verify_checkpoint(run / "checkpoints" / "final")
    assert (meta["obs_size"], meta["num_actions"]) == (enc.SPECIAL_OBS_SIZE, NUM_SPECIAL_ACTIONS) == (499, 125)
    assert meta["observation_layout"] == ckpt.observation_layout(special=True)
    assert meta["config"]["game"]["special_cards"] == ["wild", "delete"]
    assert "| heuristic x2 | 3 | 12 |" in capsys.readouterr().out

    policy = load_policy(str(run / "checkpoints" / "final"), num_players=3)
    assert policy.plays_special_cards and (policy.obs_size, policy.num_actions) == (499, 125)
    game = Game(get_preset("wildcards"))
    game.reset(seed=0)
    while not game.is_over:  # every seat: legal actions only, auctions and choices included
        view = game.seat_view(game.current_seat)
        action = policy.act(view)
        assert action in view.legal_actions
        game.step(action)
    report = evaluate([policy], [load_policy("heuristic")], num_players=3, games=6, seed=0,
                      config=get_preset("wildcards"))  # fmt: skip
    assert report.games == 6 and 0.0 <= report[policy.name].win_rate <= 1.0
    with pytest.raises(ValueError, match="trained on special cards \\(125 actions\\): evaluate them with --preset"):
        evaluate([policy], [load_policy("heuristic")], num_players=3, games=3, seed=0)
    sampled = ckpt.load_checkpoint_policy(run / "checkpoints" / "final", deterministic=False, seed=1)
    view = Game(get_preset("wildcards", starting_seat=0))
    view.reset(seed=2)
    draws = {sampled.act(view.seat_view(0)) for _ in range(40)}
    assert draws <= set(view.legal_actions()) and len(draws) > 1  # a fresh head samples among the legal ids
    assert np.isclose(sampled.action_probabilities(view.seat_view(0)).sum(), 1.0)


def test_a_standard_actor_widened_for_wildcards_keeps_its_offer_logits():
    import numpy as np

    from nothanks_env import encoding as enc
    from nothanks_env.game import BID0, MAX_BID, Game
    from nothanks_env.presets import get_preset
    from training.selfplay import widen_for_special

    base = ckpt.load_checkpoint_policy("ppo-3p-v2")  # a network without the behaviour inputs
    wide = ckpt.MLPPolicy(widen_for_special(base.weights()), chip_memory=True)
    assert wide.plays_special_cards and (wide.obs_size, wide.num_actions) == (499, 125)
    game = Game(get_preset("wildcards"))
    game.reset(seed=4)
    obs = enc.encode(game.seat_view(game.current_seat), chip_memory=True)[None]
    logits = wide.logits(obs)[0]
    assert np.allclose(logits[:2], base.logits(obs[:, : enc.OBS_SIZE])[0], atol=1e-5)
    bids = logits[BID0 : BID0 + MAX_BID + 1]
    assert np.allclose(np.diff(bids), -0.5) and np.allclose(logits[BID0 + MAX_BID + 1 :], 0.0)


def test_runs_started_in_the_same_second_get_their_own_folders(tmp_path, monkeypatch):
    # The second used to fail with "File exists" and no run.
    import datetime as dt
    import types

    from training.learning import runs

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(2026, 12, 2, 11, 59, 7, tzinfo=tz)

    monkeypatch.setattr(runs, "dt", types.SimpleNamespace(datetime=Frozen, timezone=dt.timezone))
    folders = [runs.new_run_dir(tmp_path, "x", 0) for _ in range(3)]
    assert [f.name for f in folders] == ["x__0__20261202-115907", "x__0__20261202-115907-2", "x__0__20261202-115907-3"]
    assert all((f / "checkpoints").is_dir() for f in folders)


# ------------------------------------------------------------------ bad input refused before a run folder exists
@pytest.mark.parametrize("resume", ["", "  "])
def test_an_empty_resume_is_refused_not_read_as_a_fresh_run(tmp_path, monkeypatch, capsys, resume):
    # --resume "" used to start a fresh default run in ./runs
    monkeypatch.chdir(tmp_path)
    assert main(["--resume", resume]) == 2
    assert capsys.readouterr().err == f"error: --resume: expected a run folder, got {resume!r}\n"
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--set", "env.games_per_count=100000000"], "env.games_per_count: expected an int <= 65536, got 100000000"),
        (["--set", "run.total_timesteps=10"], "run.total_timesteps: expected at least one PPO rollout"),
        (["--set", "eval.opponents=[nosuch]"], "eval.opponents: policy spec 'nosuch': expected a baseline"),
    ],
    ids=["games_per_count", "total_timesteps", "opponents"],
)
def test_config_values_out_of_reach_are_refused_before_a_run_folder(tmp_path, capsys, argv, message):
    runs = tmp_path / "runs"
    assert main([SMOKE, "--run.runs_dir", str(runs), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid config ") and message in err and err.count("\n") == 1
    assert not runs.exists()


def test_an_empty_config_file_or_path_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.yaml").write_text("")
    assert main(["empty.yaml"]) == 2  # used to run the whole default config
    assert capsys.readouterr().err == (
        "error: config file empty.yaml: expected a mapping of config sections, got an empty file\n"
    )
    assert main([""]) == 2
    assert capsys.readouterr().err == "error: config file: expected the path of a YAML file, got ''\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.yaml"]


@pytest.mark.parametrize("below", ["", "sub"], ids=["a-file", "inside-a-file"])
def test_a_runs_dir_that_is_a_file_is_refused_naming_it(tmp_path, capsys, below):
    # used to be "error: [Errno 17] File exists: ..." (or Errno 20), naming neither the key nor the problem
    afile = tmp_path / "afile"
    afile.write_text("kept")
    runs_dir = afile / below if below else afile
    assert main([SMOKE, "--run.runs_dir", str(runs_dir)]) == 2
    what = "which is a file" if not below else f"and {str(afile)!r} is a file"
    assert capsys.readouterr().err == (
        f"error: run.runs_dir: expected a folder to hold the run folders, got {str(runs_dir)!r}, {what}\n"
    )
    assert afile.read_text() == "kept" and sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler installed for ``signum`` (Linux: SigCgt in /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads signal masks from /proc")
def test_sigterm_while_the_command_imports_is_one_line_and_exit_143(tmp_path):
    # SIGTERM in the second or two that torch and the package take to import, before the trainer installs its
    # own handlers, killed the process with no word (exit -15; Ctrl-C printed a KeyboardInterrupt traceback).
    cmd = [sys.executable, "-m", "training.selfplay", "--set", f"run.runs_dir={tmp_path / 'runs'}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while not _catches(proc.pid, signal.SIGTERM) and time.time() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err  # 128 + SIGTERM, as a shell reports it, but said and without a traceback
    assert err == "SIGTERM: stopped at once; the run's last complete checkpoint, if it has one, stays valid\n"
    assert out == ""

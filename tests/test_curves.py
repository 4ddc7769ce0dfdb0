"""Learning curves against training time: a run resumed hours later counts its sessions' time only."""

from __future__ import annotations

from pathlib import Path

import pytest
from torch.utils.tensorboard import SummaryWriter

from training.bench import curves

T0 = 1_700_000_000.0  # wall time of the first session's first scalar
GAP = 5 * 3600.0  # the run was stopped, then resumed five hours later


def write_session(run: Path, scalars: list[tuple[str, float, int, float]], purge_step: int | None = None) -> None:
    """One session of a run: its own event file, as training.selfplay writes it (``purge_step`` on a resume)."""
    writer = SummaryWriter(str(run), purge_step=purge_step)
    for tag, value, step, wall in scalars:
        writer.add_scalar(tag, value, step, walltime=wall)
    writer.close()


def resumed_run(run: Path, recorded: bool) -> None:
    """Session 1 trains 10 min to its checkpoint at step 1024 and evaluates at 2048 before it is stopped; session 2
    resumes from 1024 five hours later, evaluates 2048 again after 5 min and ends with a final evaluation."""
    first = [
        ("eval/heuristic/win_rate", 0.30, 0, T0),
        ("eval/heuristic/win_rate", 0.40, 1024, T0 + 600),  # the checkpoint the resume starts from
        ("eval/heuristic/win_rate", 0.99, 2048, T0 + 1200),  # after that checkpoint: dropped by the resume
    ]
    start = T0 + 1200 + GAP
    second = [
        ("losses/value_loss", 1.0, 1536, start),
        ("eval/heuristic/win_rate", 0.50, 2048, start + 300),
        ("eval/heuristic/final_win_rate", 0.55, 2048, start + 400),
    ]
    if recorded:  # training.selfplay's own clock: it starts when train() does, a little before the first scalar
        first += [("eval/train_seconds", 12.0, 0, T0), ("eval/train_seconds", 612.0, 1024, T0 + 600)]
        second += [("eval/train_seconds", 930.0, 2048, start + 300)]
        second += [("eval/final_train_seconds", 1030.0, 2048, start + 400)]
    write_session(run, first)
    write_session(run, second, purge_step=1025)


def test_a_resumed_run_is_timed_by_its_sessions_not_by_the_calendar(tmp_path):
    """A run written before training time was recorded: each session counts from its first scalar to its last kept
    one (session 1: 10 min, its scalar at 2048 dropped), so the resumed evaluation is at 10 + 5 min, not 5 h on."""
    resumed_run(tmp_path, recorded=False)
    got = curves.read_curves(tmp_path)
    assert got["heuristic"] == [(0.0, 0, pytest.approx(0.30)), (10.0, 1024, pytest.approx(0.40)),
                                (15.0, 2048, pytest.approx(0.50))]  # fmt: skip
    assert got[f"{curves.FINAL}heuristic"] == [(pytest.approx(10 + 400 / 60), 2048, pytest.approx(0.55))]


def test_the_recorded_training_time_is_the_clock_when_the_run_has_it(tmp_path):
    resumed_run(tmp_path, recorded=True)
    got = curves.read_curves(tmp_path)
    assert [(m, s) for m, s, _ in got["heuristic"]] == [(0.2, 0), (10.2, 1024), (15.5, 2048)]
    assert [(m, s) for m, s, _ in got[f"{curves.FINAL}heuristic"]] == [(pytest.approx(1030 / 60), 2048)]


def test_one_session_is_minutes_since_its_first_scalar():
    clock = curves.session_clock([100.0], [100.0, 160.0, 400.0])
    assert [clock(t) for t in (100.0, 160.0, 400.0)] == [0.0, 1.0, 5.0]


def test_cli_table_and_plot_use_training_time(tmp_path, capsys):
    run = tmp_path / "run"
    resumed_run(run, recorded=False)
    assert curves.main([str(run), "--out", str(tmp_path / "c.png"), "--at", "12", "600"]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == [
        "| run | 12 (eval at 10.0) | 1,024 | 0.400 |",  # 12 min of training: the resumed session had not evaluated
        "| run | final evaluation (16.7) | 2,048 | 0.550 |",  # no 600 row: past the run's end
    ]
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"

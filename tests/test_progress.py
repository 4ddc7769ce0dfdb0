"""The training progress bar: each periodic evaluation's win rates appear on it with the evaluation's line."""

from __future__ import annotations

import json
import re

import pytest
import torch

from training.config import CONFIG_DIR, load_config
from training.selfplay import Trainer, win_postfix

SMOKE = str(CONFIG_DIR / "smoke.yaml")


@pytest.fixture(autouse=True)
def restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def test_the_bar_drawn_under_an_evaluation_s_line_shows_that_evaluation_s_win_rates(tmp_path, capsys):
    """tqdm redraws the bar under each line the run writes. The bar drawn under ``eval @ N steps: ...`` used to show
    the evaluation before (none under the first): the new figures were put on the bar after the line, and shown
    at its next refresh (a minute later in a log file)."""
    sets = ["run.progress=true", "run.collector=inline", "run.total_timesteps=2048", "eval.every=1024"]
    sets += ["eval.games=30", "eval.final_games=30"]
    Trainer(load_config(SMOKE, sets), tmp_path / "run").train()
    err = capsys.readouterr().err
    evals = [json.loads(line) for line in (tmp_path / "run" / "evals.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in evals] == [0, 1024]
    drawn = [s.strip() for s in re.split(r"[\r\n]", err) if s.strip()]
    for e in evals:
        at = next(i for i, s in enumerate(drawn) if s.startswith(f"eval @ {e['timesteps']:,} steps: "))
        bar = drawn[at + 1]
        want = ", ".join(
            f"{k}={v}" for k, v in win_postfix({k: r["win_rate"] for k, r in e["results"].items()}).items()
        )
        assert "step" in bar and bar.endswith(f", {want}]"), (bar, want)


def test_win_postfix_names_each_table_with_its_win_rate_in_percent():
    assert win_postfix({"heuristic": 0.6321, "random@4p": 1.0}) == {
        "win[heuristic]": "63.2%",
        "win[random@4p]": "100.0%",
    }


def test_a_resumed_bar_shows_the_last_win_rates_in_the_evaluation_s_order(tmp_path, capsys):
    """A resumed run's bar starts with its last evaluation's win rates, as eval.opponents orders them; tqdm's
    ``postfix=`` argument sorted them by name (heuristic before random)."""
    from training.selfplay import main

    sets = ["run.progress=true", "run.collector=inline", "run.total_timesteps=2048", "eval.every=2048"]
    sets += ["eval.games=30", "eval.final_games=30", "eval.opponents=[random, heuristic]"]
    assert main([SMOKE, "--run.runs_dir", str(tmp_path), *(a for s in sets for a in ("--set", s))]) == 0
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    capsys.readouterr()
    resume = ["--resume", str(run), "--set", "run.total_timesteps=3072", "--set", "eval.every=100000"]
    assert main(resume) == 0
    bars = [s.strip() for s in re.split(r"[\r\n]", capsys.readouterr().err) if "win[" in s]
    assert bars, "no progress bar with win rates"
    assert re.search(r"win\[random\]=[\d.]+%, win\[heuristic\]=[\d.]+%\]$", bars[0]), bars[0]

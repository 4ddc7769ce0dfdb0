"""What people read of a run: the learning-curve PNG, the final summary and the evaluation console line."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.figure  # noqa: E402
import pytest  # noqa: E402

from training.reporting import learning_curve, summary_table  # noqa: E402
from training.selfplay import eval_line, planned_timesteps  # noqa: E402


def result(win: float, n: int = 3, games: int = 60) -> dict:
    return {"opponent": "heuristic", "num_players": n, "games": games, "win_rate": win,
            "win_rate_ci": [win - 0.05, win + 0.05], "mean_penalty": 40.0, "parity": 1.0 / n}  # fmt: skip


EVALS = [{"timesteps": t, "results": {"heuristic": result(w), "random": result(w + 0.2)}} for t, w in
         [(0, 0.1), (1000, 0.5), (2000, 0.7)]]  # fmt: skip
FINAL = {"timesteps": 2500, "results": {"heuristic": result(0.75, games=900), "random": result(0.95, games=900)}}


@pytest.fixture
def figure(monkeypatch, tmp_path):
    """The figure :func:`learning_curve` saves, drawn so that its legend and axes have their places."""
    saved = {}
    real = matplotlib.figure.Figure.savefig

    def capture(self, path, **kwargs):
        saved["fig"] = self
        self.canvas.draw()
        saved["renderer"] = self.canvas.get_renderer()
        return real(self, path, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", capture)
    learning_curve(EVALS, tmp_path / "curve.png", title="run", final=FINAL)
    assert (tmp_path / "curve.png").stat().st_size > 10_000
    return saved


def test_learning_curve_ends_with_the_final_evaluation(figure):
    (ax,) = figure["fig"].axes
    xs = sorted({float(x) for line in ax.get_lines() for x in line.get_xdata()})
    assert xs[-1] == 2500.0  # the final evaluation is on the curve
    finals = [line for line in ax.get_lines() if line.get_marker() == "D" and len(line.get_xdata()) == 1]
    assert sorted(float(line.get_ydata()[0]) for line in finals) == [0.75, 0.95]


def test_parity_is_labelled_and_the_legend_covers_no_data(figure):
    (ax,) = figure["fig"].axes
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["vs heuristic", "vs random", "final evaluation", "parity 1/3 (3 players)"]
    box = legend.get_window_extent(figure["renderer"])
    axes_box = ax.get_window_extent(figure["renderer"])
    assert box.x0 >= axes_box.x1  # beside the axes: it cannot hide a point however the curves fall


def test_summary_states_training_and_final_evaluation_time_apart():
    text = summary_table(FINAL["results"], 6_000_640, 1008.0, {"score": 1.7, "timesteps": 1_511_424}, "run",
                         eval_seconds=12.0)  # fmt: skip
    assert "6,000,640 learner steps in 16.8 min of training (5,953 steps/s, periodic evaluations included)" in text
    assert "then 12 s of final evaluation (17.0 min in all)" in text
    # a short run (a quick probe) says seconds: it read "in 0.0 min of training ... (0.0 min in all)"
    short = summary_table(FINAL["results"], 4096, 1.2, {"score": 1.7, "timesteps": 0}, "run", eval_seconds=0.4)
    assert "4,096 learner steps in 1.2 s of training (3,413 steps/s" in short
    assert "then 0 s of final evaluation (1.6 s in all)" in short


def test_summary_writes_the_best_step_with_digit_separators():
    text = summary_table(FINAL["results"], 6_000_640, 1008.0, {"score": 0.512, "timesteps": 2_015_232}, "run")
    assert "periodic evaluations included); best periodic score 0.512 at step 2,015,232.\n" in text
    none = summary_table(FINAL["results"], 4096, 1.2, {"score": -1.0, "timesteps": None}, "run")
    assert "periodic evaluations included); no periodic evaluation.\n" in none
    rllib = summary_table(FINAL["results"], 4096, 1.2, {"score": 0.4, "timesteps": "12,288 (env steps)"}, "run")
    assert "best periodic score 0.400 at step 12,288 (env steps).\n" in rllib  # RLlib's count names its unit


def test_one_console_line_per_evaluation():
    line = eval_line(500_000, EVALS[1]["results"], 1.5, "min", True, 21.4)
    assert line == (
        "eval @ 500,000 steps: heuristic 0.500 [0.450, 0.550] | random 0.700 [0.650, 0.750]; "
        "score 1.500 = lowest win rate x players (parity 1) (new best); 21 s"
    )
    assert "\n" not in line
    line = eval_line(500_000, EVALS[1]["results"], 0.5, "heuristic", False, 21.4)
    assert line.endswith("; score 0.500 = mean win rate against heuristic; 21 s")


@pytest.mark.parametrize(
    ("start", "total", "rollout", "planned"),
    [(0, 6_000_000, 4096, 6_000_640), (0, 4096, 512, 4096), (5_173_248, 14_000_000, 4096, 14_000_128), (9, 5, 4, 9)],
)
def test_the_progress_bar_total_is_where_training_ends(start, total, rollout, planned):
    assert planned_timesteps(start, total, rollout) == planned

"""Reporting for self-play runs: TensorBoard grouping of SB3's scalars, the final summary table and the
learning-curve plot (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def sb3_logger(writer):
    """An SB3 ``Logger`` whose scalars go to ``writer`` as ``charts/`` and ``losses/`` (CleanRL's grouping)."""
    from stable_baselines3.common.logger import KVWriter, Logger

    rename = {
        "rollout/ep_rew_mean": "charts/episode_reward",
        "rollout/ep_len_mean": "charts/episode_length",
        "train/learning_rate": "charts/learning_rate",
        "time/fps": "charts/sb3_fps",
    }

    class _Writer(KVWriter):
        def write(self, key_values: dict, key_excluded: dict, step: int = 0) -> None:
            for k, v in key_values.items():
                if isinstance(v, (int, float, np.floating, np.integer)) and "tensorboard" not in (
                    key_excluded.get(k) or ()
                ):
                    name = rename.get(k) or (f"losses/{k[6:]}" if k.startswith("train/") else None)
                    if name:
                        writer.add_scalar(name, float(v), step)

        def close(self) -> None:
            writer.flush()

    return Logger(folder=None, output_formats=[_Writer()])


def duration(seconds: float) -> str:
    """A time for a summary line: ``"6.5 s"`` under a minute, else minutes to a tenth (``"16.8 min"``), so a short
    run does not read ``0.0 min``.

    >>> duration(6.54), duration(1008.0)
    ('6.5 s', '16.8 min')
    """
    return f"{seconds:.1f} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def summary_table(
    results: dict[str, dict[str, Any]],
    timesteps: int,
    seconds: float,
    best: dict,
    run: str,
    *,
    eval_seconds: float | None = None,
) -> str:
    """A Markdown table of a final evaluation (one row per opponent table).

    Args:
        results: the final evaluation, as :func:`training.selfplay.evaluate_policy` returns it.
        timesteps: learner steps trained.
        seconds: training time over every session of the run, periodic evaluations included (what the
            progress bar counts), the final evaluation not.
        best: ``{"score", "timesteps"}`` of the best periodic evaluation: ``timesteps`` an int (printed with digit
            separators), a string with its own unit (RLlib: ``"N (env steps)"``), or None (there was none).
        run: the run folder's name.
        eval_seconds: the final evaluation's time, stated beside the training time when given.
    """
    times = f"{timesteps:,} learner steps in {duration(seconds)} of training"
    times += f" ({timesteps / max(seconds, 1e-9):,.0f} steps/s, periodic evaluations included)"
    if eval_seconds is not None:
        times += f", then {eval_seconds:.0f} s of final evaluation ({duration(seconds + eval_seconds)} in all)"
    step = best["timesteps"]
    best_text = "no periodic evaluation"
    if step is not None:  # step counts read as everywhere else in the output: 2,015,232
        at = f"{step:,}" if isinstance(step, int) else str(step)  # RLlib names its own unit: "N (env steps)"
        best_text = f"best periodic score {best['score']:.3f} at step {at}"
    lines = [
        f"# {run}: final evaluation",
        "",
        f"{times}; {best_text}.",
        "",
        "| opponents (every other seat) | players | games | win rate | 95% CI | parity | mean penalty |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results.values():
        lo, hi = r["win_rate_ci"]
        lines.append(
            f"| {r['opponent']} x{r['num_players'] - 1} | {r['num_players']} | {r['games']} | {r['win_rate']:.3f} "
            f"| [{lo:.3f}, {hi:.3f}] | {r['parity']:.3f} | {r['mean_penalty']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def learning_curve(
    evals: list[dict[str, Any]], path: Path, title: str = "", final: dict[str, Any] | None = None
) -> None:
    """PNG of win rate (with 95% CI band) against each evaluation opponent over learner steps.

    Args:
        evals: the periodic evaluations, ``[{"timesteps", "results"}, ...]`` as in ``evals.jsonl``.
        path: where to write the PNG.
        title: the plot's title.
        final: the final evaluation in the same form, drawn as the curve's last point (a larger marker with
            its CI as an error bar: it plays more games than the periodic ones).

    Each parity line (1/n for each player count n) is labelled in the legend. The legend sits outside the
    axes, to their right, so it never covers a curve.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.2))
    points = [*evals, final] if final else list(evals)
    keys = list(dict.fromkeys(k for e in points for k in e["results"]))
    for key in keys:
        xs = [e["timesteps"] for e in evals if key in e["results"]]
        rs = [e["results"][key] for e in evals if key in e["results"]]
        (line,) = ax.plot(xs, [r["win_rate"] for r in rs], marker="o", ms=3, label=f"vs {key}")
        color = line.get_color()
        ax.fill_between(xs, [r["win_rate_ci"][0] for r in rs], [r["win_rate_ci"][1] for r in rs], alpha=0.2,
                        color=color)  # fmt: skip
        if final and key in final["results"]:
            r, t = final["results"][key], final["timesteps"]
            if xs:  # join the periodic curve to the final point
                ax.plot([xs[-1], t], [rs[-1]["win_rate"], r["win_rate"]], color=color, ls="--", lw=1)
            err = [[r["win_rate"] - r["win_rate_ci"][0]], [r["win_rate_ci"][1] - r["win_rate"]]]
            ax.errorbar([t], [r["win_rate"]], yerr=err, color=color, marker="D", ms=6, capsize=3, ls="none")
    if final:
        ax.plot([], [], color="black", marker="D", ls="none", ms=6, label="final evaluation")
    parities = sorted({r["parity"] for e in points for r in e["results"].values()})
    for parity in parities:
        n = round(1 / parity)
        ax.axhline(parity, color="grey", ls=":", lw=1.2, label=f"parity 1/{n} ({n} players)")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (ties split)")
    ax.set_ylim(0, 1)
    ax.set_title(title or "learning curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

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


def summary_table(results: dict[str, dict[str, Any]], timesteps: int, seconds: float, best: dict, run: str) -> str:
    """A Markdown table of a final evaluation (one row per opponent table)."""
    lines = [
        f"# {run}: final evaluation",
        "",
        f"{timesteps:,} learner steps in {seconds / 60:.1f} min of training "
        f"({timesteps / max(seconds, 1e-9):,.0f} steps/s incl. evaluations); "
        f"best periodic score {best['score']:.3f} at step {best['timesteps']}.",
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


def learning_curve(evals: list[dict[str, Any]], path: Path, title: str = "") -> None:
    """PNG of win rate (with 95% CI band) against each evaluation opponent over learner steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    keys = list(evals[0]["results"]) if evals else []
    for key in keys:
        xs = [e["timesteps"] for e in evals if key in e["results"]]
        rs = [e["results"][key] for e in evals if key in e["results"]]
        (line,) = ax.plot(xs, [r["win_rate"] for r in rs], marker="o", ms=3, label=f"vs {key}")
        ax.fill_between(xs, [r["win_rate_ci"][0] for r in rs], [r["win_rate_ci"][1] for r in rs], alpha=0.2,
                        color=line.get_color())  # fmt: skip
    for parity in sorted({r["parity"] for e in evals for r in e["results"].values()}):
        ax.axhline(parity, color="grey", ls=":", lw=1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (ties split)")
    ax.set_ylim(0, 1)
    ax.set_title(title or "learning curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

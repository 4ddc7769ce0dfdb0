"""Learning curves of self-play runs against training time, for comparing training speed-ups.

Usage::

    python -m training.bench.curves runs/selfplay__0__A runs/selfplay__0__B --labels before after \\
        --out docs/speed/curves.png --md docs/speed/curves.md

Reads each run's TensorBoard scalars ``eval/<opponent>/win_rate`` (the periodic evaluations, every
``eval.every`` learner steps), places each evaluation at the run's training time when it finished
(minutes; training and the evaluations before it included), and draws one panel per opponent with one
line per run. The Markdown table gives each run's last evaluation at or before each ``--at`` minute mark
(marks past a run's end are left out; a run shorter than every mark gets its last evaluation), then its
final evaluation (``eval/<opponent>/final_win_rate``).

Training time, not calendar time: a run stopped and resumed hours later counts each session's own time
only. The clock is the one :mod:`training.selfplay` records with each evaluation (``eval/train_seconds``
and ``eval/final_train_seconds``, also ``train_seconds`` in ``evals.jsonl``; the checkpoints' ``elapsed``).
Runs written before it was recorded (and RLlib runs) are timed from their events instead: each session (one
event file) counts from its first scalar to its last one that the next session kept (a resume drops the
scalars a stopped session wrote after the checkpoint it resumes from), and the sessions add up.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def read_curves(run: Path) -> dict[str, list[tuple[float, int, float]]]:
    """``opponent -> [(minutes of training, learner steps, win rate), ...]`` of one run (see the module
    docstring for the clock); final evaluations under ``FINAL + opponent``.

    Raises:
        FileNotFoundError: if the folder has no TensorBoard event file.
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = sorted(Path(run).glob("events.out.tfevents.*"))
    if not files:
        what = "found none" if Path(run).is_dir() else "the path does not exist"
        raise FileNotFoundError(f"{run}: expected a run folder with events.out.tfevents.* files, {what}")
    ea = EventAccumulator(str(run), size_guidance={"scalars": 0})
    ea.Reload()
    tags = ea.Tags()["scalars"]
    clock = session_clock([_first_scalar_time(f) for f in files], [e.wall_time for t in tags for e in ea.Scalars(t)])
    recorded = {
        kind: {e.step: e.value for e in ea.Scalars(f"eval/{kind}")} if f"eval/{kind}" in tags else {}
        for kind in ("train_seconds", "final_train_seconds")
    }
    out: dict[str, list[tuple[float, int, float]]] = {}
    for tag in tags:
        parts = tag.split("/")
        if len(parts) == 3 and parts[0] == "eval" and parts[2] in ("win_rate", "final_win_rate"):
            final = parts[2] == "final_win_rate"
            seconds = recorded["final_train_seconds" if final else "train_seconds"]
            out[f"{FINAL}{parts[1]}" if final else parts[1]] = [
                (seconds[e.step] / 60.0 if e.step in seconds else clock(e.wall_time), e.step, e.value)
                for e in ea.Scalars(tag)
            ]
    return out


def _first_scalar_time(path: Path) -> float:
    """Wall time of the first scalar in one event file (a session of the run); ``inf`` if it has none."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(path), size_guidance={"scalars": 0})
    ea.Reload()
    return min((ea.Scalars(t)[0].wall_time for t in ea.Tags()["scalars"]), default=float("inf"))


def session_clock(starts: Sequence[float], kept: Sequence[float]) -> Callable[[float], float]:
    """Minutes of training at a wall time, for a run whose sessions began at ``starts`` (wall times).

    Args:
        starts: each session's first wall time (any order; ``inf`` for a session without scalars).
        kept: wall times of every scalar the run keeps (a resume drops what a stopped session wrote after its
            checkpoint): a session ends, for the clock, at its last kept scalar.

    Returns:
        ``minutes(wall_time)``: the time since the start of that wall time's session, plus the kept length of
        every earlier session, in minutes. With one session: minutes since its first scalar.
    """
    starts = sorted(t for t in starts if t != float("inf")) or [min(kept, default=0.0)]
    ends = list(starts)
    for t in kept:
        i = max(bisect.bisect_right(starts, t) - 1, 0)
        ends[i] = max(ends[i], t)
    offsets = [0.0]
    for start, end in zip(starts, ends):
        offsets.append(offsets[-1] + end - start)

    def minutes(wall_time: float) -> float:
        i = max(bisect.bisect_right(starts, wall_time) - 1, 0)
        return (offsets[i] + wall_time - starts[i]) / 60.0

    return minutes


FINAL = "final:"
"""Key prefix of a run's final evaluation (``eval/<opponent>/final_win_rate``) in :func:`read_curves`."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns 0, or 2 after one ``error:`` line on bad input."""
    from training.cli import Parser, refuse

    p = Parser(prog="python -m training.bench.curves", description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", type=Path, help="self-play run folders")
    p.add_argument("--labels", nargs="+", help="one label per run (default: folder names)")
    p.add_argument("--out", type=Path, required=True, help="PNG to write")
    p.add_argument("--md", type=Path, help="Markdown table to write (default: print it)")
    p.add_argument("--at", type=float, nargs="+", default=[5.0, 10.0, 15.0], help="minute marks of the table")
    args = p.parse_args(argv)
    labels = args.labels or [r.name for r in args.runs]
    if len(labels) != len(args.runs):
        refuse(f"--labels: expected one per run ({len(args.runs)}), got {len(labels)}")
    try:
        curves = [read_curves(r) for r in args.runs]
    except FileNotFoundError as e:
        refuse(e)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    finals = [{k[len(FINAL) :]: v for k, v in c.items() if k.startswith(FINAL)} for c in curves]
    curves = [{k: v for k, v in c.items() if not k.startswith(FINAL)} for c in curves]
    opponents = sorted(set().union(*curves))
    fig, axes = plt.subplots(1, len(opponents), figsize=(3.6 * len(opponents), 3.2), squeeze=False)
    for ax, opp in zip(axes[0], opponents):
        for label, c in zip(labels, curves):
            pts = c.get(opp, [])
            ax.plot([m for m, _, _ in pts], [w for _, _, w in pts], marker=".", label=label)
        ax.set_title(opp, fontsize=9)
        ax.set_xlabel("training time (min)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("win rate")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    rows = ["| run | minutes of training | learner steps | " + " | ".join(opponents) + " |"]
    rows.append("|---|---:|---:|" + "---:|" * len(opponents))
    for label, c, fin in zip(labels, curves, finals):
        last = max((pt[0] for pts in c.values() for pt in pts), default=0.0)
        marks = [m for m in args.at if m <= last] or [last]  # a run shorter than every mark: its last evaluation
        for mark in marks:
            cells, step, when = [], None, None
            for opp in opponents:
                before = [pt for pt in c.get(opp, []) if pt[0] <= mark]
                cells.append(f"{before[-1][2]:.3f}" if before else "-")
                if before:
                    when, step = before[-1][0], before[-1][1]
            if step is not None:
                rows.append(f"| {label} | {mark:g} (eval at {when:.1f}) | {step:,} | " + " | ".join(cells) + " |")
        if fin:
            when, step = max(pts[-1][0] for pts in fin.values()), max(pts[-1][1] for pts in fin.values())
            cells = [f"{fin[o][-1][2]:.3f}" if o in fin else "-" for o in opponents]
            rows.append(f"| {label} | final evaluation ({when:.1f}) | {step:,} | " + " | ".join(cells) + " |")
    table = "\n".join(rows) + "\n"
    if args.md:
        args.md.write_text(table)
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

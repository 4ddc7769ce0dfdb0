"""Learning curves of self-play runs against wall time, for comparing training speed-ups.

Usage::

    python -m training.bench.curves runs/selfplay__0__A runs/selfplay__0__B --labels before after \\
        --out docs/speed/curves.png --md docs/speed/curves.md

Reads each run's TensorBoard scalars ``eval/<opponent>/win_rate`` (the periodic evaluations, every
``eval.every`` learner steps), places each evaluation at its wall time since the run's first event
(minutes; training and the evaluations before it included), and draws one panel per opponent with one
line per run. The Markdown table gives each run's last evaluation at or before each ``--at`` minute mark
(marks past a run's end are left out; a run shorter than every mark gets its last evaluation), then its
final evaluation (``eval/<opponent>/final_win_rate``). A resumed run's time between its sessions counts as
wall time too: compare runs trained in one session each.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def read_curves(run: Path) -> dict[str, list[tuple[float, int, float]]]:
    """``opponent -> [(minutes since the run's first event, learner steps, win rate), ...]`` of one run.

    Raises:
        FileNotFoundError: if the folder has no TensorBoard event file.
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    if not list(Path(run).glob("events.out.tfevents.*")):
        what = "found none" if Path(run).is_dir() else "the path does not exist"
        raise FileNotFoundError(f"{run}: expected a run folder with events.out.tfevents.* files, {what}")
    ea = EventAccumulator(str(run), size_guidance={"scalars": 0})
    ea.Reload()
    tags = ea.Tags()["scalars"]
    start = min(ea.Scalars(t)[0].wall_time for t in tags)
    out: dict[str, list[tuple[float, int, float]]] = {}
    for tag in tags:
        parts = tag.split("/")
        if len(parts) == 3 and parts[0] == "eval" and parts[2] in ("win_rate", "final_win_rate"):
            key = parts[1] if parts[2] == "win_rate" else f"{FINAL}{parts[1]}"
            out[key] = [((e.wall_time - start) / 60.0, e.step, e.value) for e in ea.Scalars(tag)]
    return out


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
        ax.set_xlabel("wall time (min)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("win rate")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    rows = ["| run | minutes | learner steps | " + " | ".join(opponents) + " |"]
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

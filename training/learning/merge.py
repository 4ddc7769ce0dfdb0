"""Merge trained networks into one: the logit average or the parameter average of several, as an ordinary checkpoint.

``python -m training.merge --members CKPT CKPT [CKPT ...] --out DIR [--average {logits,parameters}]
[--weights W W ...] [--overwrite]``

``--average logits`` (the default): networks of the same depth, activation and observation options are merged
exactly into one wider network whose logits are the weighted mean of theirs:

- the first layer stacks the members' first layers (every member reads the same observation);
- each hidden layer after it is block-diagonal (member ``i``'s units see only member ``i``'s units);
- the output layer concatenates the members' output layers, each scaled by its weight, and its bias is the
  weighted sum of theirs.

So two 128x128 networks become one 256x256 network, which loads, plays, warm-starts a run and is probed like
any other checkpoint. Its deterministic action is the argmax of the mean logits; its sampling distribution is
the softmax of the mean logits (a geometric mixture of the members' distributions, not their arithmetic mean).

``--average parameters``: networks of one architecture (the same layer shapes, activation and observation
options) are averaged tensor by tensor, ``sum_i w_i * tensor_i`` (a "model soup", as in weight-space
ensembling): the result has the members' shape, not a wider one. This is meaningful only for members fine-tuned
from a common start: checkpoints of one run, or a run and its ``--set run.init_from=...`` continuations, whose
weights are expected to stay close enough that the points between them play well too (interpolating a fine-tuned
network with its start is WiSE-FT). Networks trained from different starts have hidden units in unrelated
orders, and their average is an arbitrary network: nothing refuses it, since nothing in the weights tells.

The merged checkpoint plays at the table sizes every member was trained at (the intersection of their
``num_players``); its metadata records the members (name, path, run, digest), their weights and the mode
(``merged.average``; absent in checkpoints merged before the mode existed, which are logit averages). A member's
path is written as the user named it when that is a shipped name (``ppo-5p-v6``), else relative to the current
folder when it is under it (``runs/x/checkpoints/final``), else as given (:func:`member_path`): the checkpoint
names no folder of the machine it was merged on.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from training.cli import DefaultsFormatter, Parser, add_overwrite_argument, check_outputs

KIND = "nothanks-merged"
"""``kind`` of a merged checkpoint's metadata (either mode; ``merged.average`` tells which)."""

AVERAGES = ("logits", "parameters")
"""The modes of ``--average``: one wider network of the mean logits, or one network of the mean parameters."""


def layer_count(weights: Mapping[str, torch.Tensor]) -> int:
    """Number of linear layers of ``layers.{i}.weight/bias`` actor weights."""
    return len(weights) // 2


def merge_weights(members: Sequence[Mapping[str, torch.Tensor]], mix: Sequence[float]) -> dict[str, torch.Tensor]:
    """One network whose logits are ``sum_i mix[i] * logits_i``: stacked first layer, block-diagonal hidden
    layers, scaled and concatenated output layer (module docstring).

    Args:
        members: actor weights of each network (``layers.{i}.weight`` float32 (out, in) and ``layers.{i}.bias``
            float32 (out,)), all with the same number of layers, the same input size and the same output size.
        mix: one finite weight >= 0 per member, not all zero (used as given: pass weights summing to 1 for a mean).

    Returns:
        ``layers.{i}.weight/bias`` float32 tensors; hidden layer ``k`` has the sum of the members' widths there.

    Raises:
        ValueError: for fewer than two members, a ``mix`` of another length or with a weight that is not a finite
            number > 0, or members whose depth, input size or output size differ.
    """
    _check_mix(members, mix)
    depths = [layer_count(m) for m in members]
    if len(set(depths)) != 1:
        raise ValueError(f"members: expected networks of one depth, got {depths} linear layers")
    n = depths[0]
    ins = [tuple(m["layers.0.weight"].shape)[1] for m in members]
    outs = [tuple(m[f"layers.{n - 1}.weight"].shape)[0] for m in members]
    if len(set(ins)) != 1 or len(set(outs)) != 1:
        raise ValueError(f"members: expected one input and one output size, got inputs {ins} and outputs {outs}")
    merged: dict[str, torch.Tensor] = {}
    for i in range(n):
        ws = [m[f"layers.{i}.weight"].float() for m in members]
        bs = [m[f"layers.{i}.bias"].float() for m in members]
        if i == n - 1:  # output: weighted sum of the members' logits
            w = torch.cat([a * ws[k] for k, a in enumerate(mix)], dim=1)
            b = sum((a * bs[k] for k, a in enumerate(mix)), torch.zeros_like(bs[0]))
        elif i == 0:  # every member reads the same observation
            w, b = torch.cat(ws, dim=0), torch.cat(bs)
        else:
            w, b = torch.block_diag(*ws), torch.cat(bs)
        merged[f"layers.{i}.weight"] = w.contiguous()
        merged[f"layers.{i}.bias"] = b.contiguous()
    return merged


def _check_mix(members: Sequence[Mapping[str, torch.Tensor]], mix: Sequence[float]) -> None:
    """Refuse fewer than two members, or a ``mix`` that is not one finite weight > 0 per member."""
    if len(members) < 2:
        raise ValueError(f"members: expected at least 2 networks to merge, got {len(members)}")
    if len(mix) != len(members):
        raise ValueError(f"weights: expected one per member ({len(members)}), got {len(mix)}")
    if not all(math.isfinite(w) and w > 0 for w in mix):
        raise ValueError(f"weights: expected finite numbers > 0, got {list(mix)}")


def average_weights(members: Sequence[Mapping[str, torch.Tensor]], mix: Sequence[float]) -> dict[str, torch.Tensor]:
    """One network of the members' shape whose every tensor is ``sum_i mix[i] * tensor_i`` (the parameter
    average; meaningful for members fine-tuned from a common start, see the module docstring).

    The sum is taken in float64, member by member in the order given, and rounded once to float32.

    Args:
        members: actor weights of each network (``layers.{i}.weight`` float32 (out, in) and ``layers.{i}.bias``
            float32 (out,)), all with the same tensor names and shapes.
        mix: one finite weight > 0 per member (used as given: pass weights summing to 1 for a mean).

    Returns:
        ``layers.{i}.weight/bias`` float32 tensors of the members' shapes.

    Raises:
        ValueError: for fewer than two members, a ``mix`` of another length or with a weight that is not a finite
            number > 0, or members whose tensor names or shapes differ (naming the first tensor that differs).
    """
    _check_mix(members, mix)
    names = [sorted(m) for m in members]
    if any(n != names[0] for n in names):
        raise ValueError(f"members: expected networks with the same tensors, got {names}")
    merged: dict[str, torch.Tensor] = {}
    for key in names[0]:
        shapes = [list(m[key].shape) for m in members]
        if any(shape != shapes[0] for shape in shapes):
            raise ValueError(f"members: expected networks of one shape, got {key} of shapes {shapes}")
        total = torch.zeros(shapes[0], dtype=torch.float64)
        for a, m in zip(mix, members):
            total += float(a) * m[key].double()
        merged[key] = total.float().contiguous()
    return merged


def merged_player_counts(counts: Sequence[Sequence[int]]) -> list[int]:
    """The table sizes every member plays: the intersection of the non-empty ``num_players`` lists (an empty
    list means "any size" and does not restrict), sorted; empty when no member restricts.

    Raises:
        ValueError: if the members share no table size.
    """
    known = [set(c) for c in counts if c]
    if not known:
        return []
    common = set.intersection(*known)
    if not common:
        raise ValueError(
            f"members: expected networks that share a table size, got num_players {[list(c) for c in counts]}"
        )
    return sorted(common)


def member_path(given: str, folder: Path) -> str:
    """How a merged checkpoint's metadata records a member's path (``merged.members[i].path``).

    Args:
        given: the member as the user named it (``--members``).
        folder: the checkpoint folder it names (:func:`~training.checkpoints.resolve_checkpoint`'s answer).

    Returns:
        ``given`` when it is a shipped name (``"ppo-5p-v6"``, which loads wherever the package is); else the folder
        relative to the current directory when it is under it (``"runs/x/checkpoints/final"``, also for
        ``/home/me/nothanks/runs/x/...`` typed in full from ``/home/me/nothanks``); else the folder as given. It
        recorded the absolute folder of a shipped name (``/work/main/checkpoints/ppo-5p-v6``), a path of the
        machine the merge ran on.
    """
    from training.checkpoints import SHIPPED

    if given in SHIPPED:
        return given
    whole, here = Path(os.path.abspath(folder)), Path.cwd()  # abspath keeps links: the folder as the user sees it
    if whole.is_relative_to(here):
        return str(whole.relative_to(here))
    return str(folder)


def merge(
    members: Sequence[str],
    out: str,
    mix: Sequence[float] | None = None,
    *,
    overwrite: bool = False,
    average: str = "logits",
) -> dict:
    """Merge the checkpoints ``members`` (paths or shipped names) into a checkpoint at ``out``.

    Args:
        members: two or more checkpoints of one depth, activation, ``chip_memory``, ``behaviour`` and
            ``num_actions``; with ``average="parameters"`` also of one ``net_arch`` (the same layer shapes).
        out: the checkpoint folder to write (atomically; an existing one only with ``overwrite``).
        mix: each member's weight (default equal); normalised to sum to 1.
        overwrite: replace an existing ``out``.
        average: ``"logits"``: one wider network of the weighted mean logits (:func:`merge_weights`);
            ``"parameters"``: one network of the members' shape, of the weighted mean tensors
            (:func:`average_weights`).

    Returns:
        The ``merged`` record written into the metadata: members (name, path (:func:`member_path`), run, timesteps,
        num_players, metadata digest), weights (normalised), the merged net_arch, and ``average`` (the mode).

    Raises:
        ValueError: for members that cannot be merged (naming what differs), bad weights or an unknown
            ``average``.
        FileNotFoundError, CheckpointError: for a member that is missing or corrupted.
    """
    from training.checkpoints import (
        METADATA_DIGEST,
        load_checkpoint_policy,
        read_metadata,
        resolve_checkpoint,
        save_checkpoint,
    )

    if average not in AVERAGES:
        raise ValueError(f"--average: expected one of {', '.join(AVERAGES)}, got {average!r}")
    mix = [1.0] * len(members) if mix is None else [float(w) for w in mix]
    if len(mix) != len(members):
        raise ValueError(f"--weights: expected one per member ({len(members)}), got {len(mix)}")
    if not all(math.isfinite(w) and w > 0 for w in mix):  # a member of weight 0 adds nothing: leave it out
        raise ValueError(f"--weights: expected finite numbers > 0, one per member, got {mix}")
    top = max(mix)  # scaled first, so that a sum of huge weights does not overflow
    total = sum(w / top for w in mix)
    mix = [w / top / total for w in mix]
    paths = [resolve_checkpoint(m) for m in members]
    twice = [m for i, (m, p) in enumerate(zip(members, paths)) if p.resolve() in [q.resolve() for q in paths[:i]]]
    if twice:  # its average is itself (written twice as wide by the logit average)
        raise ValueError(f"--members: expected different checkpoints, got {twice} more than once")
    # the loader verifies each checkpoint and reads its options as it plays them (an older checkpoint's missing
    # behaviour or num_actions included)
    nets = [load_checkpoint_policy(p) for p in paths]
    metas = [read_metadata(p) for p in paths]
    for key in ("activation", "chip_memory", "behaviour", "num_actions", "obs_size"):
        values = [getattr(net, key) for net in nets]
        if len(set(map(repr, values))) != 1:
            listed = ", ".join(f"{name}: {v!r}" for name, v in zip(members, values))
            raise ValueError(f"--members: expected networks with one {key}, got {listed}")
    weights = [net.weights() for net in nets]
    depths = [layer_count(w) for w in weights]
    if average == "parameters":  # tensor by tensor: every layer of one shape, hidden widths included
        archs = [[lin.out_features for lin in net.linears[:-1]] for net in nets]
        if any(arch != archs[0] for arch in archs):
            listed = ", ".join(f"{name}: {arch}" for name, arch in zip(members, archs))
            raise ValueError(
                f"--members: expected networks with one net_arch (--average parameters averages them tensor by "
                f"tensor), got {listed}"
            )
    elif len(set(depths)) != 1:
        listed = ", ".join(f"{name}: {d - 1} hidden" for name, d in zip(members, depths))
        raise ValueError(f"--members: expected networks with one number of hidden layers, got {listed}")
    sizes = [list(net.player_counts or []) for net in nets]
    try:
        counts = merged_player_counts(sizes)
    except ValueError as e:  # named per member, as the other mismatches are
        listed = ", ".join(f"{name}: {size}" for name, size in zip(members, sizes))
        raise ValueError(f"--members: expected networks that share a table size, got num_players {listed}") from e
    merged = average_weights(weights, mix) if average == "parameters" else merge_weights(weights, mix)
    arch = [int(merged[f"layers.{i}.weight"].shape[0]) for i in range(depths[0] - 1)]
    record = {
        "members": [
            {
                "name": name,
                "path": member_path(name, p),
                "run": m.get("run"),
                "timesteps": m.get("timesteps"),
                "num_players": m.get("num_players"),
                METADATA_DIGEST: m.get(METADATA_DIGEST),
            }
            for name, p, m in zip(members, paths, metas)
        ],
        "weights": mix,
        "net_arch": arch,
        "average": average,
    }
    first = nets[0]
    meta: dict[str, Any] = {
        "kind": KIND,
        "num_players": counts,
        "chip_memory": first.chip_memory,
        "behaviour": first.behaviour,
        "activation": first.activation,
        "net_arch": arch,
        "merged": record,
    }
    rewards = {m.get("reward") for m in metas}
    if len(rewards) == 1 and None not in rewards:
        meta["reward"] = rewards.pop()
    save_checkpoint(Path(out), merged, meta, overwrite=overwrite)
    return record


def out_files() -> tuple[str, ...]:
    """The files of a merged checkpoint folder (``--out``): all that ``--overwrite`` may replace there."""
    from training.checkpoints import METADATA_FILE, WEIGHTS_FILE

    return (WEIGHTS_FILE, METADATA_FILE)


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(
        prog="python -m training.merge", description=__doc__.split("\n\n")[0], formatter_class=DefaultsFormatter
    )
    ap.add_argument(
        "--members", nargs="+", required=True, metavar="CKPT",
        help="two or more checkpoint paths or shipped names of one depth, activation and observation options "
        "(with --average parameters: of one net_arch too)",
    )  # fmt: skip
    ap.add_argument("--out", required=True, help="checkpoint directory to write (replaced only with --overwrite)")
    ap.add_argument(
        "--average",
        choices=AVERAGES,
        default="logits",
        help="logits: one wider network whose logits are the weighted mean of the members' (any widths); "
        "parameters: one network of the members' shape whose tensors are the weighted mean of theirs (a model "
        "soup: for members fine-tuned from a common start, e.g. checkpoints of one run or its run.init_from "
        "continuations; unrelated networks average to an arbitrary one)",
    )
    ap.add_argument(
        "--weights", nargs="+", type=float, metavar="W",
        help="each member's weight in the average (normalised to sum to 1); default equal",
    )  # fmt: skip
    add_overwrite_argument(ap, help="replace an existing --out checkpoint (refused otherwise)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after one ``error:`` line on bad input)."""
    from training.checkpoints import CheckpointError, resolve_checkpoint

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        if len(args.members) < 2:
            raise ValueError(f"--members: expected at least 2 checkpoints to merge, got {len(args.members)}")
        resolved = []
        for m in args.members:
            try:
                resolved.append(resolve_checkpoint(m).resolve())
            except (FileNotFoundError, CheckpointError) as e:
                raise ValueError(f"--members: {e}") from e
        if args.out.strip() and Path(args.out).resolve() in resolved:
            raise ValueError(
                f"--out: expected a folder other than the members' (it is replaced whole), got {args.out!r}, "
                "the folder of a --members checkpoint"
            )
        check_outputs({"--out": args.out}, overwrite=args.overwrite, files_in=out_files(), whole_folder=True)
        try:
            record = merge(args.members, args.out, args.weights, overwrite=args.overwrite, average=args.average)
        except (FileNotFoundError, CheckpointError) as e:
            raise ValueError(f"--members: {e}") from e
    except ValueError as e:
        print("error: " + str(e).replace("\n", " "), file=sys.stderr)
        return 2
    shares = ", ".join(f"{m['name']} {w:.3g}" for m, w in zip(record["members"], record["weights"]))
    what = "parameter" if args.average == "parameters" else "logit"
    print(f"wrote {args.out}: hidden layers {record['net_arch']}, the {what} average of {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Merge trained networks into one: the logit average of an ensemble, written as an ordinary checkpoint.

``python -m training.merge --members CKPT CKPT [CKPT ...] --out DIR [--weights W W ...] [--overwrite]``

Networks of the same depth, activation and observation options are merged exactly into one wider network
whose logits are the weighted mean of theirs:

- the first layer stacks the members' first layers (every member reads the same observation);
- each hidden layer after it is block-diagonal (member ``i``'s units see only member ``i``'s units);
- the output layer concatenates the members' output layers, each scaled by its weight, and its bias is the
  weighted sum of theirs.

So two 128x128 networks become one 256x256 network, which loads, plays, warm-starts a run and is probed like
any other checkpoint. Its deterministic action is the argmax of the mean logits; its sampling distribution is
the softmax of the mean logits (a geometric mixture of the members' distributions, not their arithmetic mean).

The merged checkpoint plays at the table sizes every member was trained at (the intersection of their
``num_players``); its metadata records the members (path, run, digest) and their weights.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from training.cli import DefaultsFormatter, Parser, add_overwrite_argument, check_outputs

KIND = "nothanks-merged"
"""``kind`` of a merged checkpoint's metadata."""


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
    if len(members) < 2:
        raise ValueError(f"members: expected at least 2 networks to merge, got {len(members)}")
    if len(mix) != len(members):
        raise ValueError(f"weights: expected one per member ({len(members)}), got {len(mix)}")
    if not all(math.isfinite(w) and w > 0 for w in mix):
        raise ValueError(f"weights: expected finite numbers > 0, got {list(mix)}")
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


def merge(members: Sequence[str], out: str, mix: Sequence[float] | None = None, *, overwrite: bool = False) -> dict:
    """Merge the checkpoints ``members`` (paths or shipped names) into a checkpoint at ``out``.

    Args:
        members: two or more checkpoints of one depth, activation, ``chip_memory`` and ``behaviour``.
        out: the checkpoint folder to write (atomically; an existing one only with ``overwrite``).
        mix: each member's weight (default equal); normalised to sum to 1.
        overwrite: replace an existing ``out``.

    Returns:
        The ``merged`` record written into the metadata: members (name, path, run, timesteps, num_players,
        metadata digest), weights (normalised), and the merged net_arch.

    Raises:
        ValueError: for members that cannot be merged (naming what differs), or bad weights.
        FileNotFoundError, CheckpointError: for a member that is missing or corrupted.
    """
    from training.checkpoints import (
        METADATA_DIGEST,
        load_checkpoint_policy,
        read_metadata,
        resolve_checkpoint,
        save_checkpoint,
    )

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
    if twice:  # its average is itself, written twice as wide
        raise ValueError(f"--members: expected different checkpoints, got {twice} more than once")
    # the loader verifies each checkpoint and reads its options as it plays them (an older checkpoint's missing
    # behaviour or num_actions included)
    nets = [load_checkpoint_policy(p) for p in paths]
    metas = [read_metadata(p) for p in paths]
    for key in ("activation", "chip_memory", "behaviour", "num_actions"):
        values = [getattr(net, key) for net in nets]
        if len(set(map(repr, values))) != 1:
            listed = ", ".join(f"{name}: {v!r}" for name, v in zip(members, values))
            raise ValueError(f"--members: expected networks with one {key}, got {listed}")
    weights = [net.weights() for net in nets]
    depths = [layer_count(w) for w in weights]
    if len(set(depths)) != 1:
        listed = ", ".join(f"{name}: {d - 1} hidden" for name, d in zip(members, depths))
        raise ValueError(f"--members: expected networks with one number of hidden layers, got {listed}")
    try:
        counts = merged_player_counts([list(net.player_counts or []) for net in nets])
    except ValueError as e:
        raise ValueError(f"--{e}") from e
    merged = merge_weights(weights, mix)
    arch = [int(merged[f"layers.{i}.weight"].shape[0]) for i in range(depths[0] - 1)]
    record = {
        "members": [
            {
                "name": name,
                "path": str(p),
                "run": m.get("run"),
                "timesteps": m.get("timesteps"),
                "num_players": m.get("num_players"),
                METADATA_DIGEST: m.get(METADATA_DIGEST),
            }
            for name, p, m in zip(members, paths, metas)
        ],
        "weights": mix,
        "net_arch": arch,
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
        help="two or more checkpoint paths or shipped names of one depth, activation and observation options",
    )  # fmt: skip
    ap.add_argument("--out", required=True, help="checkpoint directory to write (replaced only with --overwrite)")
    ap.add_argument(
        "--weights", nargs="+", type=float, metavar="W",
        help="each member's weight in the logit average (normalised to sum to 1); default equal",
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
            record = merge(args.members, args.out, args.weights, overwrite=args.overwrite)
        except (FileNotFoundError, CheckpointError) as e:
            raise ValueError(f"--members: {e}") from e
    except ValueError as e:
        print("error: " + str(e).replace("\n", " "), file=sys.stderr)
        return 2
    shares = ", ".join(f"{m['name']} {w:.3g}" for m, w in zip(record["members"], record["weights"]))
    print(f"wrote {args.out}: hidden layers {record['net_arch']}, the logit average of {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

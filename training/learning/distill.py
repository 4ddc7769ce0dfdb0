"""Expert iteration, one step: distill a teacher policy (e.g. the network-guided search) into a network.

``python -m training.distill --teacher SPEC --student CHECKPOINT --out DIR [--players P --opponents SPEC ...
--teacher-of TABLE SPEC ... --games N --epochs E --lr LR --kl K --seed S --workers W --save-data F [--overwrite]
--load-data F --departure-weight W]``

1. **Play.** The teacher plays ``--games`` games against the ``--opponents`` (one table per deal, drawn
   uniformly from the list; a spec ``a+b`` is a mixed table, any other spec fills every other seat), in
   every seat rotation of each deal. Every decision the teacher makes is recorded with the observation the
   *student* reads (its ``chip_memory`` and ``behaviour`` options), the legal-action mask, and the
   teacher's action. Forced takes (one legal action) are dropped: they teach nothing. ``--teacher-of
   TABLE SPEC`` gives one table its own teacher (e.g. a network trained against that table alone), so
   that several specialists can be distilled into one student, which must then tell the tables apart
   from what it observes (with ``behaviour``, each seat's public pass/take record).
2. **Fit.** The student's actor starts from its checkpoint and is trained by Adam on the masked
   cross-entropy of the teacher's actions, plus ``--kl`` times KL(student at the start || student), which
   keeps it near where it started on decisions the teacher plays as it would anyway. A share
   ``--holdout`` of the deals (each deal whole, in all its seat rotations) is kept out of the fit and
   reported: how often the student's argmax agrees with the teacher before and after.
   ``--save-data FILE`` writes the decisions to an ``.npz`` (``FILE``, with ``.npz`` added when it has not that
   suffix; an existing one is replaced only with ``--overwrite``); ``--load-data FILE ...`` fits on them again
   without playing (to try another ``--lr``, ``--kl`` or ``--epochs``), or on several such files at once
   (a student of several table sizes is fitted on one file per size, each played with its ``--players``); the
   options of the games (``--teacher``, ``--players``, ``--opponents``, ...) are refused with it.
   A deal is in one of those files only (a file given twice, a copy, or deals played again are refused:
   :func:`load_decisions`), and a file records the encoding it was made for, refused for a student that reads
   observations otherwise (:meth:`Decisions.load`).
3. **Save.** The result is a checkpoint like any other (``DIR``, with ``distill.json``): the student's
   metadata plus where it came from, written together (the report is in the folder before it is swapped into
   place, so neither is ever without the other). An existing ``DIR`` is refused before any game is played, unless
   ``--overwrite`` is given and it holds only the files of such a checkpoint (it is then replaced whole); the
   ``--student``'s own folder is always refused.
   Evaluate it with ``training.gauntlet``; a search whose rollout is the new network is the next step of the
   iteration.

Ctrl-C or SIGTERM stops the command at once, with one line and exit code 130 (143 for SIGTERM), as the evaluation
commands do (:func:`training.cli.exit_on_stop`): the teacher's games being played end at their next turn, and
neither ``--out`` nor ``--save-data`` is ever left half-written (each is written aside and then renamed).

The search bot (:mod:`nothanks_env.baselines.search`) searches only where its rollout network hesitates
(``confident``) and departs from the network only when the paired rollouts say so (``min_z``), so its
labels are the network's own argmax except where search found better: the fit moves the network toward
the search exactly there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nothanks_env.encoding import encode_batch
from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS, GameConfig
from nothanks_env.policy import Policy, special_cards_only
from nothanks_env.vector import BatchView, deal_matches
from training.cli import (
    DefaultsFormatter,
    Parser,
    add_overwrite_argument,
    check_outputs,
    int_in,
    nonnegative_float,
    positive_float,
    workers_arg,
)
from training.evaluation.heldout import refuse_heldout, refuse_heldout_tables

if TYPE_CHECKING:
    from training.checkpoints import MLPPolicy

DEALS_PER_TASK = 100
"""Deals of one generation task (each played in every seat rotation)."""

ARRAYS = ("obs", "mask", "action", "game")
"""The arrays of a decisions file (:meth:`Decisions.save`); a ``num_players`` scalar is optional, and so are the
``encoding`` and ``rules`` records (JSON text), which files saved by earlier versions lack."""

ENCODING_KEYS = ("chip_memory", "behaviour", "observation_layout")
"""What defines the observations of a decisions file, as the student's metadata names it: recorded by
:meth:`Decisions.save` (``encoding``) and compared with the student's by :meth:`Decisions.load`."""

MAX_FIT_FLOAT = 1e30
"""The largest ``--lr``, ``--kl`` and ``--departure-weight`` taken: far beyond any useful value, and small enough
that the float32 fit never overflows converting one (Adam's first step is 10 x lr, a departure weight is a float32
value); a larger finite one used to fail in Adam with a traceback after every teacher game had been played."""

NUM_ACTIONS = 2
"""Actions of a recorded decision: PASS (0) and TAKE (1), the columns of its mask."""

SUMMARY_FILE = "distill.json"
"""The file of ``--out`` that says where the distilled checkpoint came from (:func:`distill`'s summary)."""


class Recorder(Policy):
    """Wraps a policy; plays as it does and keeps each decision it makes, encoded for another network.

    Args:
        inner: the policy that decides.
        chip_memory, behaviour: the encoding options of the network the records are for.

    Attributes:
        obs: float32 arrays (b, obs_size), one per :meth:`act_batch` call.
        masks: bool arrays (b, 2), the legal actions.
        actions: int64 arrays (b,), what ``inner`` played.
        games: int64 arrays (b,), the game of each decision, kept when :meth:`note_turn` told the games of
            each call (as :func:`training.evaluation.evaluate.play_games`'s ``on_turn``).
    """

    def __init__(self, inner: Policy, chip_memory: bool, behaviour: bool) -> None:
        super().__init__(None)
        self.inner, self.chip_memory, self.behaviour = inner, chip_memory, behaviour
        self.name = inner.name
        self.stochastic = inner.stochastic
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.games: list[np.ndarray] = []
        self._acting: np.ndarray | None = None

    def note_turn(self, games: np.ndarray, ids: np.ndarray) -> None:
        """``play_games``'s ``on_turn`` with this recorder as policy 0: the games of its next call."""
        self._acting = games[ids == 0]

    def seed(self, seed: int | None) -> None:
        self.inner.seed(seed)

    def reset(self) -> None:
        self.inner.reset()

    def act_batch(self, view: BatchView) -> np.ndarray:
        out = np.asarray(self.inner.act_batch(view), dtype=np.int64)
        mask = view.action_mask().astype(bool)
        free = mask.all(axis=1)  # both actions legal: a real decision
        if self._acting is not None and len(self._acting) != len(out):
            raise RuntimeError(f"recorder: told of {len(self._acting)} games, asked to act in {len(out)}")
        if free.any():
            self.obs.append(encode_batch(view, self.chip_memory, self.behaviour)[free])
            self.masks.append(mask[free])
            self.actions.append(out[free])
            if self._acting is not None:
                self.games.append(self._acting[free])
        self._acting = None
        return out


@dataclass
class Decisions:
    """Recorded teacher decisions: obs float32 (N, obs_size), mask bool (N, 2), action int64 (N,),
    game int64 (N,) (the deal each decision comes from, the same for all its seat rotations, so that a deal
    is held out whole; files saved by earlier versions hold the generation task's index, a group of
    100 deals), and the table size they were played at (None when unknown or mixed).

    ``encoding`` is what the observations were encoded for (:data:`ENCODING_KEYS`: ``chip_memory``, ``behaviour``
    and the ``observation_layout`` ``[[piece, size], ...]``, as a checkpoint's metadata names them) and ``rules``
    the game's rules other than the table size (:func:`played_rules`); both are None for files saved before
    they were recorded, and for sets of several files that differ in them."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    game: np.ndarray
    num_players: int | None = None
    encoding: dict[str, Any] | None = None
    rules: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.action)

    def take(self, rows: np.ndarray) -> Decisions:
        return Decisions(
            self.obs[rows], self.mask[rows], self.action[rows], self.game[rows], self.num_players, self.encoding,
            self.rules,
        )  # fmt: skip

    @classmethod
    def concat(cls, parts: Sequence[Decisions]) -> Decisions:
        """The decisions of several sets, in order; each set's ``game`` indices are shifted past the previous
        sets' so that games stay distinct (and are held out whole). ``encoding`` and ``rules`` are kept when
        every set has the same."""
        games, offset = [], 0
        for d in parts:
            games.append(d.game + offset)
            offset += int(d.game.max()) + 1 if len(d) else 0

        def shared(key: str) -> dict[str, Any] | None:
            values = [getattr(d, key) for d in parts]
            return values[0] if values and all(v == values[0] for v in values) else None

        return cls(
            *(np.concatenate([getattr(d, k) for d in parts]) for k in ("obs", "mask", "action")),
            np.concatenate(games),
            encoding=shared("encoding"),
            rules=shared("rules"),
        )

    def deal_digests(self) -> list[str]:
        """One SHA-256 per ``game`` group (in increasing ``game`` order) of its decisions' obs, mask and action, in
        the order recorded: the same deal played again by the same teacher and table has the same digest."""
        if not len(self):
            return []
        order = np.argsort(self.game, kind="stable")
        out = []
        for rows in np.split(order, np.flatnonzero(np.diff(self.game[order])) + 1):
            h = hashlib.sha256()
            for a in (self.obs[rows], self.mask[rows], self.action[rows]):
                h.update(np.ascontiguousarray(a).tobytes())
            out.append(h.hexdigest())
        return out

    def save(self, path: str | Path) -> None:
        """Write the four arrays (and the table size, encoding and rules, when known) to a compressed ``.npz`` file
        (``path``, with ``.npz`` added when it has not that suffix, as NumPy does); ``encoding`` and ``rules`` are
        JSON text (0-d str arrays, read back without pickle).

        The file is written beside it as ``.NAME.tmp`` and then renamed over ``path``: a stop or an error half-way
        leaves no half-written file (and an existing one whole); the temporary file is removed.
        """
        extra: dict[str, np.ndarray] = {}
        if self.num_players is not None:
            extra["num_players"] = np.int64(self.num_players)
        for key in ("encoding", "rules"):
            if getattr(self, key) is not None:
                extra[key] = np.array(json.dumps(getattr(self, key), sort_keys=True))
        final = Path(data_file(str(path)))
        tmp = final.with_name(f".{final.name}.tmp")
        try:
            with open(tmp, "wb") as f:
                np.savez_compressed(f, obs=self.obs, mask=self.mask, action=self.action, game=self.game, **extra)
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | Path, student_meta: dict | None = None) -> Decisions:
        """Read decisions written by :meth:`save`, checked before anything is fitted on them.

        With ``student_meta`` (the student's checkpoint metadata), a file that records its ``encoding`` (any
        saved by this version) is refused unless its ``chip_memory``, ``behaviour`` and ``observation_layout`` are the
        student's, and one that records its ``rules`` unless they are the rules distillation plays
        (:func:`played_rules`). Files saved before lack both records and still load: for them only the sizes are
        checked (observations of the student's length, which tells ``behaviour`` apart but not ``chip_memory``,
        nor a layout of the same length), and the table size when the file records it.

        Raises:
            ValueError: naming the file, for a file that is not such an ``.npz`` (missing, empty, truncated,
                another format), arrays missing, not numeric, of unequal lengths or holding NaN or infinities,
                masks that are not 0/1, actions that are not 0 or 1 or not legal under their mask, a damaged
                ``encoding`` or ``rules`` record, observations encoded otherwise than the student reads them
                (naming the option) or of another size, decisions of other rules, or recorded at a table size the
                student was not trained for.
        """
        name = str(path)
        data = _checked_decisions(_read_npz(path), name)
        if data.rules is not None and data.rules != played_rules():
            differ = sorted(k for k in {*data.rules, *played_rules()} if data.rules.get(k) != played_rules().get(k))
            got = ", ".join(f"{k}={data.rules.get(k)!r}" for k in differ)
            raise ValueError(
                f"--load-data: expected decisions played under the standard rules distillation plays "
                f"({', '.join(f'{k}={played_rules().get(k)!r}' for k in differ)}), got {got} in {name!r}"
            )
        if student_meta is not None:
            if data.encoding is not None:
                reads = student_encoding(student_meta)
                for key in ENCODING_KEYS:
                    if reads[key] is not None and data.encoding[key] != reads[key]:  # None: no layout in the metadata
                        raise ValueError(
                            f"--load-data: expected observations encoded for the student ({key}={reads[key]!r}), "
                            f"got observations encoded with {key}={data.encoding[key]!r} in {name!r}"
                        )
            want = student_meta.get("obs_size")
            if want is not None and data.obs.shape[1] != want:
                raise ValueError(
                    f"--load-data: expected observations of {want} values (the student's), got {data.obs.shape[1]} "
                    f"in {name!r}"
                )
            counts = student_meta.get("num_players") or []
            if data.num_players is not None and counts and data.num_players not in counts:
                raise ValueError(
                    f"--load-data: expected decisions at a table size the student plays ({counts}), got "
                    f"{data.num_players}-player decisions in {name!r}"
                )
        return data


def student_encoding(meta: dict[str, Any]) -> dict[str, Any]:
    """What a student reads, from its checkpoint metadata, as :attr:`Decisions.encoding` records it
    (:data:`ENCODING_KEYS`; ``behaviour`` absent means off, as the checkpoint loader reads it; an
    ``observation_layout`` absent is None)."""
    return {
        "chip_memory": bool(meta.get("chip_memory")),
        "behaviour": bool(meta.get("behaviour", False)),
        "observation_layout": meta.get("observation_layout"),
    }


def played_rules() -> dict[str, Any]:
    """The rules distillation plays, other than the table size: a standard game's (:class:`GameConfig`'s defaults)
    as JSON would read them back (tuples as lists), as :attr:`Decisions.rules` records them."""
    rules = asdict(GameConfig())
    del rules["num_players"]
    return json.loads(json.dumps(rules))


def _read_npz(path: str | Path) -> dict[str, object]:
    """Every member of the ``.npz`` at ``path`` (arrays; a member that is not one comes as bytes).

    Raises:
        ValueError: naming the file and what it is instead (missing, a folder, empty, not an ``.npz``,
            unreadable).
    """
    name, p = str(path), Path(path)

    def refused(got: str) -> ValueError:
        return ValueError(f"--load-data: expected an .npz of decisions written by --save-data, got {name!r} ({got})")

    if not p.is_file():
        raise refused("a folder" if p.is_dir() else "no such file")
    if not zipfile.is_zipfile(p):
        with open(p, "rb") as f:
            head = f.read(6)
        what = "an .npy file of one array" if head == b"\x93NUMPY" else "truncated, or of another format"
        raise refused("an empty file" if not head else f"not an .npz archive: {what}")
    try:
        with np.load(p, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise refused(f"unreadable: {e}") from e


def _checked_decisions(arrays: dict[str, object], name: str) -> Decisions:
    """The :class:`Decisions` of a decisions file's arrays, once each is what :meth:`Decisions.save` writes.

    Raises:
        ValueError: naming the file ``name``, the array, what was expected and what it holds.
    """

    def refused(expected: str, got: str) -> ValueError:
        return ValueError(f"--load-data: expected {expected}, got {got} in {name!r}")

    missing = [k for k in ARRAYS if k not in arrays]
    if missing:
        raise refused(f"the arrays {', '.join(ARRAYS)}", f"{sorted(arrays)} (no {', '.join(missing)})")
    for k in ARRAYS:
        a = arrays[k]
        if not isinstance(a, np.ndarray):
            raise refused(f"{k} as a NumPy array", f"a member of {type(a).__name__}")
        integers = k in ("action", "game")
        if a.dtype.kind not in ("iu" if integers else "biuf"):
            raise refused(f"{'integers' if integers else 'numbers'} in {k}", f"dtype {a.dtype}")
        if a.ndim != (2 if k in ("obs", "mask") else 1):
            raise refused(f"{k} of {2 if k in ('obs', 'mask') else 1} dimension(s)", f"shape {a.shape}")
    obs, mask, action, game = (arrays[k] for k in ARRAYS)
    lengths = [len(obs), len(mask), len(action), len(game)]
    if len(set(lengths)) > 1:
        raise refused("obs, mask, action and game of one length (a row per decision)", f"lengths {lengths}")
    if mask.shape[1] != NUM_ACTIONS:
        raise refused(f"mask of {NUM_ACTIONS} columns (pass, take)", f"shape {mask.shape}")
    obs = obs.astype(np.float32)
    if not np.isfinite(obs).all():
        raise refused("finite numbers in obs", f"{int((~np.isfinite(obs)).sum())} NaN or infinite value(s)")
    if mask.dtype != bool and not np.isin(mask, (0, 1)).all():
        raise refused("mask values 0/1 or true/false", f"{mask[~np.isin(mask, (0, 1))][0].item()!r}")
    bad = (action < 0) | (action >= NUM_ACTIONS)
    if bad.any():
        raise refused(f"action values in 0..{NUM_ACTIONS - 1} (pass, take)", f"{action[bad][0]}")
    mask, action = mask.astype(bool), action.astype(np.int64)
    masked_out = int((~mask[np.arange(len(action)), action]).sum())
    if masked_out:
        raise refused("each action legal under its mask", f"{masked_out} decision(s) whose action is masked out")
    if (game < 0).any():
        raise refused("game indices >= 0", f"{game[game < 0][0]}")
    num_players = arrays.get("num_players")  # files of before 2026-12-02 lack it
    if num_players is not None:
        ok = isinstance(num_players, np.ndarray) and num_players.shape == () and num_players.dtype.kind in "iu"
        if not ok or not MIN_PLAYERS <= int(num_players) <= MAX_PLAYERS:
            raise refused(f"num_players an int in {MIN_PLAYERS}..{MAX_PLAYERS}", repr(num_players))
        num_players = int(num_players)
    records = {k: _json_record(arrays, k, name) for k in ("encoding", "rules")}  # files of before 2026-12-03 lack them
    encoding = records["encoding"]
    if encoding is not None:
        layout = encoding.get("observation_layout")
        pieces_ok = isinstance(layout, list) and all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and type(p[1]) is int for p in layout
        )
        flags_ok = all(type(encoding.get(k)) is bool for k in ("chip_memory", "behaviour"))
        if set(encoding) != set(ENCODING_KEYS) or not (pieces_ok and flags_ok):
            raise refused(
                "an encoding of chip_memory and behaviour (true/false) and observation_layout ([[piece, size], ...])",
                repr(encoding),
            )
    return Decisions(obs, mask, action, game.astype(np.int64), num_players, encoding, records["rules"])


def _json_record(arrays: dict[str, object], key: str, name: str) -> dict[str, Any] | None:
    """The JSON object a decisions file holds as ``key`` (None when it has none: a file saved by an earlier version).

    Raises:
        ValueError: naming the file ``name`` and the record, for one that is not a JSON object in a 0-d str array.
    """
    if key not in arrays:
        return None
    a = arrays[key]
    try:
        if not (isinstance(a, np.ndarray) and a.shape == () and a.dtype.kind == "U"):
            raise ValueError
        value = json.loads(str(a))
        if not isinstance(value, dict):
            raise ValueError
    except ValueError:
        got = f"shape {a.shape}, dtype {a.dtype}" if isinstance(a, np.ndarray) and a.shape != () else repr(a)[:200]
        raise ValueError(f"--load-data: expected {key} as a JSON object (text), got {got} in {name!r}") from None
    return value


def data_file(path: str) -> str:
    """The file ``--save-data path`` writes: NumPy's ``savez_compressed`` adds ``.npz`` to a name without it (a
    blank path is returned as it is, for :func:`training.cli.check_outputs` to refuse)."""
    return path if not path.strip() or path.endswith(".npz") else path + ".npz"


def tasks_needed(games: int, num_players: int) -> int:
    """Generation tasks for ``games`` games: each is :data:`DEALS_PER_TASK` deals in every seat rotation."""
    return max(1, -(-games // (DEALS_PER_TASK * num_players)))


def _tables(opponents: Sequence[str], num_players: int) -> list[list[str]]:
    """Each opponent entry as the specs of the ``num_players - 1`` other seats, parsed as the gauntlet's
    columns are (:func:`training.evaluation.gauntlet.parse_column`), but only one spec or exactly one per seat."""
    from training.evaluation.gauntlet import parse_column

    refuse_heldout("--opponents", opponents)
    out = []
    for entry in opponents:
        column = parse_column(entry, "--opponents")  # its errors name the flag: "--opponents: expected ..."
        if len(column.opponents) not in (1, num_players - 1):
            raise ValueError(
                f"--opponents: expected one spec or {num_players - 1} joined by '+' for {num_players} players, "
                f"got {entry!r}"
            )
        out.append(column.seat_specs(num_players))
    refuse_heldout_tables("--opponents", out)
    return out


def _generate(task: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """One generation task: ``deals`` deals against one table, every rotation. Returns the teacher's
    decisions (obs, mask, action), the deal (0 to ``deals - 1``) each comes from, and the seconds of play.
    Run by :func:`generate`'s pool, it ends at its next turn once the pool is stopped."""
    from nothanks_env.specs import load_policy
    from training.checkpoints import read_metadata
    from training.evaluation.evaluate import duplicate_seating, play_games, stop_check

    teacher_spec, table, student, num_players, deals, seed = task  # (str, list[str], str, int, int, int)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    meta = read_metadata(student)
    seeds = np.random.SeedSequence([seed]).generate_state(num_players)
    teacher = load_policy(teacher_spec, num_players=num_players, seed=int(seeds[0]))
    rec = Recorder(teacher, bool(meta["chip_memory"]), bool(meta.get("behaviour", False)))
    others = [load_policy(s, num_players=num_players, seed=int(seeds[i + 1])) for i, s in enumerate(table)]
    config = GameConfig(num_players=num_players)
    deck, removed = deal_matches(config, deals, np.random.default_rng(seed))
    seating, deal = duplicate_seating(np.tile(np.arange(num_players), (deals, 1)))

    def on_turn(games: np.ndarray, ids: np.ndarray) -> None:
        stop_check(games, ids)  # in a pool worker: the task ends at this turn once the command is stopped
        rec.note_turn(games, ids)

    start = time.perf_counter()
    play_games([rec, *others], config, deck[deal], removed[deal], seating, on_turn=on_turn)
    seconds = time.perf_counter() - start
    if not rec.actions:
        empty = np.zeros(0, np.int64)
        return np.zeros((0, 0), np.float32), np.zeros((0, 2), bool), empty, empty, seconds
    rows = [np.concatenate(a) for a in (rec.obs, rec.masks, rec.actions)]
    return *rows, deal[np.concatenate(rec.games)], seconds


def generate(
    teacher: str,
    student: str,
    opponents: Sequence[str],
    *,
    num_players: int,
    games: int,
    seed: int,
    workers: int = 1,
    progress: bool = False,
    teacher_of: dict[str, str] | None = None,
) -> tuple[Decisions, float]:
    """Play the teacher against the opponents and record its decisions (step 1 of the module docstring).

    Args:
        teacher: policy spec that decides (e.g. ``best-3p``).
        student: checkpoint path or shipped name whose encoding the observations use.
        opponents: specs, each a table (``a`` fills every other seat, ``a+b`` names each seat).
        num_players: table size.
        games: games to play, rounded up to whole tasks of :data:`DEALS_PER_TASK` deals in every rotation.
        seed: seeds the deals, the tables drawn and every policy.
        workers: processes (1: this one). A stop (Ctrl-C, SIGTERM under :func:`training.cli.exit_on_stop`) or an
            error in a task ends them at once: queued tasks are cancelled and running ones end at their next turn
            (:func:`training.evaluation.evaluate.pool_map`).
        progress: show a progress bar.
        teacher_of: opponent entry (as written in ``opponents``) -> the teacher spec for that table;
            entries not named use ``teacher``.

    Returns:
        The decisions (with their ``encoding``, the student's, and ``rules``, :func:`played_rules`), and the
        wall-clock seconds it took.

    Raises:
        ValueError: for a ``teacher_of`` key that is not one of the opponent entries.
    """
    from tqdm import tqdm

    from training.checkpoints import observation_layout, read_metadata
    from training.evaluation.evaluate import pool_map

    tables = _tables(opponents, num_players)
    encoding = student_encoding(read_metadata(student))  # as _generate's Recorder encodes: this package's layout
    encoding["observation_layout"] = observation_layout(encoding["behaviour"])
    teacher_of = dict(teacher_of or {})
    unknown = sorted(set(teacher_of) - set(opponents))
    if unknown:
        raise ValueError(f"--teacher-of: expected tables among --opponents {list(opponents)}, got {unknown}")
    refuse_heldout("--teacher", [teacher])
    refuse_heldout("--teacher-of", list(teacher_of.values()))
    teachers = [teacher_of.get(entry, teacher) for entry in opponents]
    n_tasks = tasks_needed(games, num_players)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(tables), n_tasks)
    seeds = np.random.SeedSequence(seed).generate_state(n_tasks)
    tasks = [(teachers[j], tables[j], student, num_players, DEALS_PER_TASK, int(s)) for j, s in zip(picks, seeds)]
    start = time.time()
    bar = tqdm(total=n_tasks * DEALS_PER_TASK * num_players, unit="game", disable=not progress, desc="teacher games")
    results: list[tuple] = [()] * n_tasks

    def store(i: int, result: tuple) -> None:
        results[i] = result
        bar.update(DEALS_PER_TASK * num_players)

    try:
        if workers <= 1:
            for i, t in enumerate(tasks):
                store(i, _generate(t))
        else:  # a stop or an error ends the pool at once: the evaluations' pool (training.evaluate.pool_map)
            pool_map(_generate, [(t,) for t in tasks], workers=workers, on_result=store)
    finally:
        bar.close()
    game = np.concatenate([i * DEALS_PER_TASK + r[3] for i, r in enumerate(results)])
    arrays = (np.concatenate([r[k] for r in results]) for k in range(3))
    data = Decisions(*arrays, game, num_players, encoding, played_rules())
    return data, time.time() - start


@dataclass
class FitReport:
    """What :func:`fit` measured. Agreements are shares of held-out decisions where the student's argmax
    equals the teacher's action; ``departures`` is the share where the starting student's argmax differs,
    and ``departures_fixed`` the share of those it now plays as the teacher does (None when there were none)."""

    decisions: int
    holdout: int
    departures: float
    agree_before: float
    agree_after: float
    departures_fixed: float | None
    epochs: int
    losses: list[float] = field(default_factory=list)


def fit(
    student: str,
    data: Decisions,
    *,
    epochs: int = 4,
    lr: float = 1e-4,
    kl: float = 0.1,
    batch_size: int = 1024,
    holdout: float = 0.1,
    departure_weight: float = 1.0,
    seed: int = 0,
    policy: MLPPolicy | None = None,
) -> tuple[dict, FitReport]:
    """Fit the student's actor to the teacher's actions (step 2 of the module docstring).

    Args:
        student: checkpoint path or shipped name.
        data: the decisions of :func:`generate`.
        epochs: passes over the training decisions.
        lr: Adam's learning rate.
        kl: weight of KL(start || now) per decision (0: plain cross-entropy).
        batch_size: decisions per gradient step.
        departure_weight: weight of the cross-entropy on training decisions where the teacher's action is not
            the starting student's argmax (the teacher's corrections), relative to 1 on the others.
        holdout: share of deals (``data.game`` groups, each whole; at least one, never all) kept out of the
            fit to measure agreement.
        seed: seeds the split and the batches.
        policy: ``student`` already loaded (:func:`training.checkpoints.load_checkpoint_policy`), so that it is
            not read again; its network is trained in place. None: loaded here.

    Returns:
        The new actor weights (``layers.{i}.weight/bias`` tensors) and a :class:`FitReport`.

    Raises:
        ValueError: for a non-finite or out-of-range ``lr``, ``kl`` or ``departure_weight`` (each at most
            :data:`MAX_FIT_FLOAT`), no decisions,
            decisions from fewer than two deals, or a fit that diverges (its loss or weights become NaN or
            infinite; nothing is returned then).
    """
    import torch

    from training.checkpoints import load_checkpoint_policy

    for name, value, positive in (("lr", lr, True), ("kl", kl, False), ("departure_weight", departure_weight, True)):
        if not (math.isfinite(value) and (value > 0 if positive else value >= 0)):
            raise ValueError(f"{name}: expected a finite number {'> 0' if positive else '>= 0'}, got {value}")
        if value > MAX_FIT_FLOAT:
            raise ValueError(f"{name}: expected a number <= {MAX_FIT_FLOAT:g} (the fit is float32), got {value:g}")
    if len(data) == 0:
        raise ValueError("decisions: expected at least one recorded teacher decision, got 0")
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    groups = np.unique(data.game)
    if len(groups) < 2:
        raise ValueError(f"decisions: expected decisions from at least 2 deals to hold one out, got {len(groups)}")
    held = rng.permutation(groups)[: min(len(groups) - 1, max(1, round(holdout * len(groups))))]
    is_held = np.isin(data.game, held)
    train, test = data.take(np.flatnonzero(~is_held)), data.take(np.flatnonzero(is_held))
    if policy is None:
        policy = load_checkpoint_policy(student)
    net = policy.net
    net.requires_grad_(True)
    net.train()

    def masked_logits(obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        logits = net(torch.from_numpy(obs))
        return logits.masked_fill(~torch.from_numpy(mask), -1e9)

    def agreement(d: Decisions) -> tuple[float, np.ndarray]:
        with torch.no_grad():
            arg = masked_logits(d.obs, d.mask).argmax(dim=1).numpy()
        return float((arg == d.action).mean()), arg

    agree_before, arg_before = agreement(test)
    departed = arg_before != test.action
    with torch.no_grad():
        start_logp = torch.log_softmax(masked_logits(train.obs, train.mask), dim=1)
    # 1 where the teacher plays the starting student's argmax, departure_weight where it corrects it
    weight_t = torch.ones(len(train))
    weight_t[start_logp.argmax(dim=1) != torch.from_numpy(train.action)] = departure_weight
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    obs_t, act_t = torch.from_numpy(train.obs), torch.from_numpy(train.action)
    mask_t = torch.from_numpy(train.mask)

    def diverged(what: str, epoch: int) -> ValueError:
        return ValueError(
            f"fit: {what} became NaN or infinite at epoch {epoch} of {epochs} (try a smaller --lr than {lr:g} or "
            f"--kl than {kl:g}); no checkpoint was written"
        )

    for epoch in range(1, epochs + 1):
        order = torch.from_numpy(rng.permutation(len(train)))
        total = 0.0
        for s in range(0, len(order), batch_size):
            b = order[s : s + batch_size]
            logp = torch.log_softmax(net(obs_t[b]).masked_fill(~mask_t[b], -1e9), dim=1)
            nll = torch.nn.functional.nll_loss(logp, act_t[b], reduction="none")
            loss = (weight_t[b] * nll).mean()
            if kl > 0:
                p0 = start_logp[b].exp()
                loss = loss + kl * (p0 * (start_logp[b] - logp)).sum(dim=1).mean()
            value = float(loss.detach())
            if not math.isfinite(value):
                raise diverged("the loss", epoch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += value * len(b)
        if not all(bool(torch.isfinite(p).all()) for p in net.parameters()):
            raise diverged("the weights", epoch)
        losses.append(total / len(train))
    net.eval()
    agree_after, arg_after = agreement(test)
    fixed = float((arg_after[departed] == test.action[departed]).mean()) if departed.any() else None
    weights = {}
    for i, lin in enumerate(m for m in net if isinstance(m, torch.nn.Linear)):
        weights[f"layers.{i}.weight"] = lin.weight.detach().clone()
        weights[f"layers.{i}.bias"] = lin.bias.detach().clone()
    report = FitReport(len(data), len(test), float(departed.mean()), agree_before, agree_after, fixed, epochs, losses)
    return weights, report


def load_decisions(paths: Sequence[str], student_meta: dict[str, Any] | None = None) -> Decisions:
    """The decisions of the ``--load-data`` files, each read by :meth:`Decisions.load`, as one set
    (:meth:`Decisions.concat`: each file's games get ids of their own).

    Each deal must be in one file only: a file given twice (any spelling of its path, or a link to it), a copy of
    one, or a file that plays some of another's deals again (the same teacher, table and ``--seed``: a
    ``--games 3000`` file holds the deals of the ``--games 300`` one) is refused. The copies' games would otherwise
    be split between the fit and the held-out share independently, and the held-out agreement would be mostly
    training accuracy. Deals are compared by :meth:`Decisions.deal_digests`.

    Raises:
        ValueError: ``"--load-data: expected ..., got ..."`` naming both files, or what :meth:`Decisions.load`
            refuses.
    """
    seen: dict[object, str] = {}
    for f in paths:
        try:
            st = os.stat(f)
            key: object = (st.st_dev, st.st_ino)
        except (OSError, ValueError):  # missing, a null byte: Decisions.load refuses it next
            key = os.path.abspath(f)
        if key in seen:
            got = f"{f!r} twice" if seen[key] == f else f"{seen[key]!r} and {f!r}, the same file"
            raise ValueError(f"--load-data: expected each file at most once, got {got}")
        seen[key] = f
    parts, digests = [], []
    for f in paths:
        part = Decisions.load(f, student_meta)
        mine = part.deal_digests()
        for earlier, theirs in zip(paths, digests):
            shared = set(mine) & set(theirs)
            if sorted(mine) == sorted(theirs):
                raise ValueError(
                    f"--load-data: expected files of different decisions, got {earlier!r} and {f!r} holding the "
                    "same ones (a copy: each deal would be both fitted and held out)"
                )
            if shared:
                raise ValueError(
                    f"--load-data: expected files of different deals, got {len(shared)} of the {len(set(mine))} "
                    f"deals of {f!r} also in {earlier!r} (played again, e.g. with the same --seed: a held-out "
                    "deal's twin would be fitted)"
                )
        parts.append(part)
        digests.append(mine)
    return Decisions.concat(parts)


def out_files() -> tuple[str, ...]:
    """The files of a distilled checkpoint folder (``--out``): all that ``--overwrite`` may replace there."""
    from training.checkpoints import METADATA_FILE, WEIGHTS_FILE

    return (WEIGHTS_FILE, METADATA_FILE, SUMMARY_FILE)


def check_distill_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any game or fit, outputs that could not be written or would replace saved work: the
    ``--out`` folder (never the ``--student`` checkpoint's own folder, which it would replace while reading it;
    :func:`training.cli.check_outputs`, written whole: an existing one only with ``--overwrite`` and only if it
    holds nothing but :func:`out_files`) and the ``--save-data`` file (an existing one only with ``--overwrite``,
    and never inside ``--out``, which is replaced whole).

    Raises:
        ValueError: ``"<flag>: expected ..., got ..."`` naming the output refused.
    """
    from training.checkpoints import resolve_checkpoint

    try:
        student = resolve_checkpoint(args.student).resolve()  # a path, a file in the folder, or a shipped name
    except (OSError, ValueError):  # FileNotFoundError, a null byte
        student = None  # no checkpoint there: main refuses --student next
    if student is not None and args.out.strip() and Path(args.out).resolve() == student:
        raise ValueError(
            f"--out: expected a folder other than the --student checkpoint's (--out is replaced whole, and the "
            f"student is read from it), got {args.out!r}, the folder of --student {args.student!r}"
        )
    saved = None if args.save_data is None else data_file(args.save_data)
    check_outputs({"--out": args.out}, overwrite=args.overwrite, files_in=out_files(), whole_folder=True)
    check_outputs({"--save-data": saved}, overwrite=args.overwrite)
    if saved is not None:
        out = Path(args.out).resolve()
        if out in Path(saved).resolve().parents:
            raise ValueError(
                f"--save-data: expected a file outside --out {args.out!r} (that folder is written whole, as a "
                f"checkpoint), got {saved!r}"
            )


def distill(args: argparse.Namespace, student: MLPPolicy | None = None) -> dict:
    """Run the three steps; returns the summary written to ``DIR/distill.json``.

    The outputs are not checked here: :func:`main` checks them first (:func:`check_distill_outputs`).
    ``student`` is ``--student`` already loaded (:func:`main` loads it once, to check it; None: :func:`fit`
    loads it); its network is fitted in place.
    """
    from training.checkpoints import read_metadata, resolve_checkpoint, save_checkpoint

    out = Path(args.out)  # checked by check_distill_outputs before any game; replaced only with --overwrite
    meta = read_metadata(resolve_checkpoint(args.student))
    counts = meta.get("num_players") or []
    if counts and args.players not in counts and not args.load_data:
        raise ValueError(f"--student: trained for {counts} players, expected one that plays {args.players}")
    if args.load_data:
        data, gen_seconds = load_decisions(args.load_data, meta), 0.0
    else:
        data, gen_seconds = generate(
            args.teacher, args.student, args.opponents, num_players=args.players, games=args.games,
            seed=args.seed, workers=args.workers, progress=not args.no_progress, teacher_of=dict(args.teacher_of),
        )  # fmt: skip
        if args.save_data:  # checked by check_outputs before any game; missing folders are made here
            saved = Path(data_file(args.save_data))
            saved.parent.mkdir(parents=True, exist_ok=True)
            data.save(saved)
    start = time.time()
    weights, report = fit(
        args.student,
        data,
        epochs=args.epochs,
        lr=args.lr,
        kl=args.kl,
        holdout=args.holdout,
        departure_weight=args.departure_weight,
        seed=args.seed,
        policy=student,
    )
    fit_seconds = time.time() - start
    played = not args.load_data  # with --load-data, who played whom is the saved data's story, not these flags
    summary = {
        "teacher": args.teacher if played else None,
        "student": args.student,
        "opponents": list(args.opponents) if played else None,
        "teacher_of": dict(args.teacher_of) if played else None,
        "num_players": args.players if played else None,
        "games": args.games if played else None,
        "games_played": tasks_needed(args.games, args.players) * DEALS_PER_TASK * args.players if played else None,
        "data": args.load_data,
        "seed": args.seed,
        "generate_seconds": round(gen_seconds, 1),
        "fit_seconds": round(fit_seconds, 1),
        "lr": args.lr,
        "kl": args.kl,
        "departure_weight": args.departure_weight,
        "fit": asdict(report),
    }
    if meta.get("merged") is not None:  # the student was a merge: said here, not as if the result still were one
        summary["student_merged"] = meta["merged"]
    # recomputed, or the student's own record
    dropped = ("files", "format", "observation_layout", "metadata_sha256", "eval", "merged")
    keep = {k: v for k, v in meta.items() if k not in dropped}
    keep.update(kind="nothanks-distilled", distilled=summary)
    text = json.dumps(summary, indent=2, allow_nan=False)  # fails here, before --out exists, not half-way
    # the report is written into the checkpoint before it is swapped into place: never one without the other
    save_checkpoint(out, weights, keep, overwrite=args.overwrite, extra_files={SUMMARY_FILE: text})
    return summary


def fit_float(*, zero_ok: bool) -> Callable[[str], float]:
    """The argparse ``type`` of ``--lr``, ``--kl`` and ``--departure-weight``: a finite float > 0 (>= 0 with
    ``zero_ok``) and at most :data:`MAX_FIT_FLOAT`, so that a value the float32 fit cannot take is refused before
    any game is played."""
    inner = nonnegative_float if zero_ok else positive_float

    def parse(text: str) -> float:
        value = inner(text)
        if value > MAX_FIT_FLOAT:
            raise argparse.ArgumentTypeError(
                f"expected a number <= {MAX_FIT_FLOAT:g} (the fit is float32), got {text!r}"
            )
        return value

    parse.__name__ = "float"
    return parse


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(
        prog="python -m training.distill",
        description=__doc__.split("\n\n")[0],
        formatter_class=DefaultsFormatter,
    )
    ap.add_argument("--teacher", help="policy spec that decides (e.g. best-3p); needed unless --load-data")
    ap.add_argument("--student", required=True, help="checkpoint path or shipped name to start from")
    ap.add_argument(
        "--out", required=True, help="checkpoint directory to write (an existing one is replaced only with --overwrite)"
    )
    ap.add_argument("--players", type=int_in(3, 7), default=3, help="table size of the teacher's games, 3..7")
    ap.add_argument(
        "--opponents", nargs="+", default=["heuristic", "utility", "extort", "threshold:T=2", "ratio", "random"],
        help="opponent tables: a spec fills every other seat, a+b names each seat",
    )  # fmt: skip
    ap.add_argument(
        "--teacher-of", nargs=2, action="append", default=[], metavar=("TABLE", "SPEC"),
        help="the teacher at one of the --opponents tables (repeatable, each table once); the others get --teacher",
    )  # fmt: skip
    ap.add_argument(
        "--games",
        type=int_in(1),
        default=30000,
        help="teacher games, rounded up to a multiple of 100 x --players (100 deals in every seat rotation)",
    )
    ap.add_argument("--save-data", metavar="FILE", help="also write the recorded decisions to FILE (.npz)")
    add_overwrite_argument(ap, help="replace an existing --out checkpoint or --save-data file (refused otherwise)")
    ap.add_argument(
        "--load-data", metavar="FILE", nargs="+",
        help="fit on decisions saved by --save-data instead of playing (--teacher, --teacher-of, --players, "
        "--opponents, --games, --workers and --save-data are refused with it); "
        "several files are fitted together (e.g. one per table size for a 4-5 player student)",
    )  # fmt: skip
    ap.add_argument("--epochs", type=int_in(1), default=4, help="passes over the training decisions")
    ap.add_argument("--lr", type=fit_float(zero_ok=False), default=1e-4, help="Adam learning rate, > 0")
    ap.add_argument("--kl", type=fit_float(zero_ok=True), default=0.1, help="weight of KL(start || student), >= 0")
    ap.add_argument("--departure-weight", type=fit_float(zero_ok=False), default=1.0,
                    help="weight of the teacher's corrections (decisions where it departs from the starting "
                         "student's argmax) in the cross-entropy, relative to 1 for the others; > 0")  # fmt: skip
    ap.add_argument("--holdout", type=float, default=0.1, help="share of games kept out of the fit, in (0, 1)")
    ap.add_argument("--seed", type=int_in(0), default=0, help="seeds the deals, tables drawn, split and fit")
    ap.add_argument("--workers", type=workers_arg(), default=1, help="processes that play the teacher's games")
    ap.add_argument("--no-progress", action="store_true")
    return ap


PLAYING_OPTIONS: dict[str, str] = {
    "teacher": "--teacher",
    "players": "--players",
    "opponents": "--opponents",
    "teacher_of": "--teacher-of",
    "games": "--games",
    "save_data": "--save-data",
    "workers": "--workers",
}
"""Destination -> flag of the options that describe the teacher's games to play (in ``--help``'s order), unused by
a fit on ``--load-data`` (games already played): given with it, they are refused (:func:`unused_with_load_data`)."""

_UNSET = object()


def unused_with_load_data(ap: argparse.ArgumentParser, argv: Sequence[str] | None, args: argparse.Namespace) -> None:
    """Refuse the :data:`PLAYING_OPTIONS` given with ``--load-data`` (they were silently ignored): only those typed,
    by any spelling argparse takes, whatever their value (``--players 3`` too), never one left at its default.

    Raises:
        ValueError: ``"--load-data: expected ..., got --teacher ppo-3p and --players 5"``, the flags in ``--help``'s
            order.
    """
    if args.load_data is None:
        return
    single = [d for d in PLAYING_OPTIONS if d != "teacher_of"]  # append: typed when not empty
    probe = argparse.Namespace(**dict.fromkeys(single, _UNSET))
    ap.parse_args(argv, namespace=probe)  # parsed once already: no error here; defaults fill only what is unset
    typed = {d for d in single if getattr(probe, d) is not _UNSET} | ({"teacher_of"} if args.teacher_of else set())
    if not typed:
        return

    def shown(dest: str, flag: str) -> str:  # the flag with its value, as typed
        value = getattr(args, dest)
        if dest == "teacher_of":
            return " ".join(f"{flag} {table} {spec}" for table, spec in value)
        return f"{flag} {' '.join(map(str, value)) if isinstance(value, list) else value}"

    flags = [shown(dest, flag) for dest, flag in PLAYING_OPTIONS.items() if dest in typed]
    named = flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"
    raise ValueError(
        f"--load-data: expected none of the options for the teacher's games with it (it fits on decisions played "
        f"before, at the table size and against the tables they were played with), got {named}"
    )


def standard_table_policy(flag: str, spec: str, num_players: int | None) -> Policy:
    """The policy ``spec`` names, loaded at ``num_players`` (None: any; a load error names ``flag``), refused when it
    is a network trained on special cards: distillation plays standard tables only."""
    from nothanks_env.specs import load_policy
    from training.cli import load_spec

    policy = load_spec(load_policy, flag, spec, num_players=num_players, special_cards=False)  # hints: standard
    return refuse_special_cards(flag, spec, policy, num_players)


def refuse_special_cards(flag: str, spec: str, policy: Policy, num_players: int | None = None) -> Policy:
    """``policy`` (loaded from ``spec``), refused naming ``flag`` when it is a network trained on special cards:
    distillation plays standard tables only. With the table size (``num_players``) the refusal names the shipped
    networks that play it."""
    if special_cards_only(policy):
        from nothanks_env.specs import shipped_networks_hint

        hint = "" if num_players is None else shipped_networks_hint(num_players, special_cards=False)
        raise ValueError(
            f"{flag}: expected a policy that plays pass/take (distillation plays standard tables), got {spec!r}, "
            f"a network trained on special cards ({policy.num_actions} actions){hint}"
        )
    return policy


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after one ``error:`` line on bad input)."""
    from training.checkpoints import CheckpointError, load_checkpoint_policy, resolve_checkpoint
    from training.cli import load_spec

    ap = build_parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        unused_with_load_data(ap, argv, args)
        check_distill_outputs(args)  # before any game, fit or checkpoint read
        if not 0 < args.holdout < 1:
            raise ValueError(f"--holdout: expected a share in (0, 1), got {args.holdout}")
        try:
            resolve_checkpoint(args.student)
        except (FileNotFoundError, CheckpointError) as e:
            raise ValueError(f"--student: {e}") from e
        # read once, as the checkpoint fit trains (at the table sizes of the data it fits)
        student = load_spec(load_checkpoint_policy, "--student", args.student)
        refuse_special_cards("--student", args.student, student)
        if args.load_data is None:  # the teacher plays: check every spec it meets before the first game
            if args.teacher is None:
                raise ValueError("--teacher: expected a policy spec (needed unless --load-data), got none")
            given: dict[str, str] = {}
            for table, spec in args.teacher_of:  # a dict keeps the last: which teacher was meant?
                if table in given:
                    raise ValueError(
                        f"--teacher-of: expected each table at most once, got {table!r} twice ({given[table]!r} "
                        f"and {spec!r})"
                    )
                given[table] = spec
            standard_table_policy("--teacher", args.teacher, args.players)
            for table, spec in args.teacher_of:
                if table not in args.opponents:
                    raise ValueError(
                        f"--teacher-of: expected a table among --opponents {args.opponents}, got {table!r}"
                    )
                standard_table_policy("--teacher-of", spec, args.players)
            for table in _tables(args.opponents, args.players):
                for spec in table:
                    standard_table_policy("--opponents", spec, args.players)
        summary = distill(args, student)
    except (ValueError, CheckpointError) as e:
        print("error: " + str(e).replace("\n", " "), file=sys.stderr)
        return 2
    r = summary["fit"]
    fixed = (
        "none to fix"
        if r["departures_fixed"] is None
        else f"{r['departures_fixed']:.3f} of the departures now follow the teacher"
    )
    if summary["data"]:
        source = f"{r['decisions']:,} teacher decisions loaded from {len(summary['data'])} file(s)"
    else:
        played = "" if summary["games_played"] == args.games else f" ({summary['games_played']:,} games played)"
        source = f"{r['decisions']:,} teacher decisions in {summary['generate_seconds']:.0f} s{played}"
    print(
        f"{source}; the student departed "
        f"from the teacher on {r['departures']:.3f} of the {r['holdout']:,} held-out ones. Agreement "
        f"{r['agree_before']:.3f} -> {r['agree_after']:.3f} ({fixed}) after {r['epochs']} epoch(s) in "
        f"{summary['fit_seconds']:.0f} s. Wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    from training.cli import exit_on_stop

    exit_on_stop(main)

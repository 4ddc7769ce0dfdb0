"""The opponent pool of self-play: scripted baselines and frozen snapshots, drawn per seat, scored as a league.

:class:`OpponentPool` owns every opponent of the training env (:class:`training.vec_env.SelfPlayVecEnv`
steps the games and asks the pool whom to seat): it builds the snapshot networks
(:class:`~training.checkpoints.MLPPolicy`), draws the opponents of each new table, keeps the league
statistics of prioritized fictitious self-play (:func:`pfsp_weight`) from the finished games it is told
about, and saves and restores all of it for ``--resume``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import torch

from nothanks_env.policy import Policy
from training.checkpoints import MLPPolicy, MLPStack


@dataclass
class Member:
    """One opponent in the pool: a scripted baseline (one policy per player count) or a snapshot."""

    id: int
    name: str
    kind: Literal["scripted", "snapshot"]
    policies: dict[int, Policy]
    weight: float = 0.0
    step: int = 0
    snapshot_weights: dict[str, torch.Tensor] | None = field(default=None, repr=False)

    def policy(self, num_players: int) -> Policy:
        return self.policies.get(num_players) or self.policies[0]


Weighting = Literal["hard", "variance", "uniform", "target"]
WEIGHTINGS: tuple[str, ...] = get_args(Weighting)


def pfsp_weight(x: np.ndarray, weighting: Weighting, power: float) -> np.ndarray:
    """Prioritized fictitious self-play: how much to play an opponent the learner scores ``x`` against.

    Args:
        x: float64, any shape: the learner's *normalized* score against each opponent, in [0, 1]:
            its win share times n / ``beaten_at`` at n players, clipped (with the default ``beaten_at = 2``,
            0.5 = parity and 1 = wins twice its share).
        weighting: ``hard``: ``(1 - x) ** power``, most weight on what beats the learner; ``variance``:
            ``x * (1 - x)``, most weight on even matches; ``uniform``: 1 (a fixed mixture, as before).
        power: exponent of ``hard``.

    Returns:
        float64 of ``x``'s shape, >= 0 (before the pool's floor).
    """
    if weighting == "hard":
        return (1.0 - x) ** power
    if weighting == "variance":
        return x * (1.0 - x)
    if weighting == "uniform":
        return np.ones_like(x)
    if weighting == "target":
        raise ValueError("weighting: 'target' weighs by win rate against a target, see target_weight")
    raise ValueError(f"weighting: expected one of {', '.join(map(repr, WEIGHTINGS))}, got {weighting!r}")


def target_weight(win_rate: np.ndarray, target: np.ndarray, temperature: float) -> np.ndarray:
    """The ``target`` weighting: how much to play an opponent the learner wins ``win_rate`` against when it
    should win ``target``: ``1 / (1 + exp((win_rate - target) / temperature))``.

    1/2 on target, toward 1 below it and toward 0 above it; ``temperature`` (in win share) sets how sharp
    the step is (0.03: 0.84 at 0.05 below the target, 0.16 at 0.05 above). The pool then plays most where
    the learner is furthest short of what it should score, and little where it already scores enough,
    however far above parity that is: a minimum over columns, each against its own bar, is what it raises.

    Args:
        win_rate: float64, any shape: the learner's win share against each opponent (1, 1/k on a k-way tie).
        target: float64, broadcastable to ``win_rate``: the win share it should reach against each.
        temperature: > 0, in win share.

    Returns:
        float64 of the broadcast shape, in (0, 1).
    """
    z = np.clip((np.asarray(win_rate, dtype=np.float64) - target) / temperature, -60.0, 60.0)
    return 1.0 / (1.0 + np.exp(z))


def check_targets(targets: Mapping[str, float], members: list[str], name: str = "targets") -> None:
    """Refuse ``targets`` for the ``target`` weighting unless they give every member in ``members`` a win
    share in (0, 1) and name nothing else (raises ValueError naming what is missing, extra or out of range)."""
    missing = [m for m in members if m not in targets]
    extra = [t for t in targets if t not in members]
    bad = {t: v for t, v in targets.items() if not 0.0 < float(v) < 1.0}
    if missing:
        raise ValueError(f"{name}: expected a target win share for every scripted member and lineup, missing {missing}")
    if extra:
        raise ValueError(f"{name}: expected only scripted members and lineups {members}, got {extra} as well")
    if bad:
        raise ValueError(f"{name}: expected win shares in (0, 1), got {bad}")


def split_lineup(label: str, members: list[str]) -> tuple[str, ...]:
    """The member names of a lineup label: ``members`` joined by ``+`` (``utility+random``), each name exactly one
    of ``members`` (spaces around a name ignored). A ``+`` inside a member's name (``threshold:T=+3``) stays in it:
    the label is split where the parts join into member names, so no file system or spec parsing is needed.

    Raises:
        ValueError: naming the label, for one that is not two or more members joined by ``+``.
    """
    parts = label.split("+")
    names = {m.strip(): m for m in members}
    # best[i]: a split of parts[:i] into member names, or None
    best: list[list[str] | None] = [[]] + [None] * len(parts)
    for j in range(1, len(parts) + 1):
        for i in range(j):
            piece = "+".join(parts[i:j]).strip()
            if best[i] is not None and piece in names:
                best[j] = [*best[i], names[piece]]
                break
    found = best[-1]
    if found is None or len(found) < 2:
        done = max(i for i, b in enumerate(best) if b is not None)  # the longest start that splits into members
        why = "one member" if found is not None else f"no member from {parts[done].strip()!r} on"
        raise ValueError(
            f"lineups: expected two or more members of pool.scripted joined by '+', got {label!r} ({why}; "
            f"members: {', '.join(members)})"
        )
    return tuple(found)


class OpponentPool:
    """Scripted baselines plus up to ``max_snapshots`` frozen snapshots; draws the opponents of each table.

    Each opponent seat is drawn on its own, except that a share ``homogeneous`` of tables seat one member
    drawn once in every opponent seat (the gauntlet's "(P-1) x X" tables, where a policy that only meets
    a member next to others never learns to exploit it). Before the first snapshot every seat is drawn
    from the scripted members. Afterwards a share
    ``snapshot_weight`` of seats go to snapshots: ``latest_share`` of those to the newest, the rest evenly
    to the older ones (all to the newest while it is the only one).

    **League (PFSP).** The scripted share is split by ``prior x (floor + pfsp_weight(x))``, where ``x`` is
    the learner's normalized score against that member (win share x n / ``beaten_at``, clipped to [0, 1];
    see :func:`pfsp_weight`), estimated from the games
    being played: every finished game updates an exponential moving average for each member seated in
    it (once per seat it filled), with time constant ``window`` games. The score starts at parity; the
    win rate is the plain mean of the games so far until there are ``window`` of them, then the same
    moving average. With ``weighting="uniform"`` the split is the
    priors alone (the fixed mixture). With ``weighting="target"`` f is :func:`target_weight` of the
    learner's win rate (the raw win share, not ``x``) at the tables where the member fills every opponent
    seat, as a gauntlet column seats it (mixed tables and snapshots in other seats would pull it below what
    the gauntlet measures), against the member's entry in ``targets``; it stays at the target until such a
    table has been played.

    **Lineups.** A lineup is a fixed mixed table, named like a gauntlet column (``utility+random``): its scripted
    members fill the opponent seats after the learner's in turn order, cyclically (at 5 players ``utility``,
    ``random``, ``utility``, ``random``), as :class:`training.evaluation.gauntlet.Column` seats them. Lineups are
    drawn only on the ``homogeneous`` share of tables, beside the one-member tables, with league weights of their
    own: a lineup's prior times ``floor + f``, where f is taken from the learner's record at tables seated exactly
    as the lineup (by its ``targets`` entry with ``target``; its normalized score otherwise). Scripted members and
    lineups share one normalization, so a lineup with the weight of a member is drawn as often as that member
    fills a whole table. Per-seat draws never give a lineup (its tables are a column, not a mixture of seats).

    Args:
        scripted: name -> (prior weight, {num_players: policy}).
        snapshot_weight, latest_share, max_snapshots, homogeneous: the mixture (see
            :class:`training.config.PoolSection`).
        weighting, power, floor, window, beaten_at, targets, temperature: the league (see
            :class:`training.config.LeagueSection`); ``targets`` (member or lineup name -> win share in (0, 1))
            must name every scripted member and every lineup when ``weighting="target"``, and nothing else.
        lineups: lineup label -> prior weight (>= 0); the label names two or more scripted members joined by
            ``+`` (:func:`split_lineup`).
        chip_memory, behaviour, activation, snapshot_sample: how snapshots encode and act.
        seed: seeds the draws and the snapshots' sampling.
    """

    def __init__(
        self,
        scripted: Mapping[str, tuple[float, Mapping[int, Policy]]],
        *,
        snapshot_weight: float = 0.5,
        latest_share: float = 0.5,
        max_snapshots: int = 8,
        weighting: Weighting = "uniform",
        power: float = 2.0,
        floor: float = 0.05,
        window: int = 2000,
        beaten_at: float = 2.0,
        targets: Mapping[str, float] | None = None,
        temperature: float = 0.03,
        homogeneous: float = 0.0,
        lineups: Mapping[str, float] | None = None,
        chip_memory: bool = True,
        behaviour: bool = False,
        activation: str = "relu",
        snapshot_sample: bool = True,
        seed: int | None = None,
    ) -> None:
        if not scripted or sum(w for w, _ in scripted.values()) <= 0:
            raise ValueError(f"scripted: expected at least one opponent with weight > 0, got {dict(scripted)}")
        if weighting != "target":
            pfsp_weight(np.zeros(1), weighting, power)  # validates weighting
        targets = dict(targets or {})
        lineups = dict(lineups or {})
        self.lineups: dict[str, tuple[str, ...]] = {k: split_lineup(k, list(scripted)) for k in lineups}
        self.lineup_prior: dict[str, float] = {k: float(w) for k, w in lineups.items()}
        if any(w < 0 for w in self.lineup_prior.values()):
            raise ValueError(f"lineups: expected prior weights >= 0, got {lineups}")
        if weighting == "target":
            check_targets(targets, list(scripted) + list(lineups))
            if temperature <= 0:
                raise ValueError(f"temperature: expected a win share > 0, got {temperature}")
        elif targets:
            raise ValueError(f"targets: only used with weighting 'target', got weighting {weighting!r}")
        self.targets, self.temperature = targets, float(temperature)
        if window < 1 or floor < 0:
            raise ValueError(f"window, floor: expected window >= 1 and floor >= 0, got {window}, {floor}")
        if beaten_at <= 1.0:
            raise ValueError(f"beaten_at: expected a multiple of parity > 1, got {beaten_at}")
        if not 0.0 <= homogeneous <= 1.0:
            raise ValueError(f"homogeneous: expected a share in [0, 1], got {homogeneous}")
        self.rng = np.random.default_rng(seed)
        self.snapshot_weight = snapshot_weight
        self.latest_share = latest_share
        self.max_snapshots = max_snapshots
        self.weighting, self.power, self.floor, self.window = weighting, power, floor, window
        self.beaten_at, self.homogeneous = beaten_at, homogeneous
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.activation = activation
        self.snapshot_sample = snapshot_sample
        self._next_id = 0
        self.members: dict[int, Member] = {}
        self.active: list[int] = []
        for name, (w, pols) in scripted.items():
            self._add(Member(self._next_id, name, "scripted", dict(pols), weight=float(w)))
        self.drawn: Counter[str] = Counter()
        self._probs: np.ndarray | None = None
        # league statistics, by member name: EMA of the normalized score x and of the raw win share
        self.score: dict[str, float] = {}
        self.win_rate: dict[str, float] = {}
        # the same, from one-member tables only (every opponent seat that member: the gauntlet's columns)
        self.table_rate: dict[str, float] = {}
        self.table_games: Counter[str] = Counter()
        self.games: Counter[str] = Counter()
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending_games = 0
        self._pending_lineups: list[tuple[str, np.ndarray, np.ndarray]] = []
        self._lineup_ids = {k: [self._scripted_id(n) for n in names] for k, names in self.lineups.items()}
        self._table_probs: np.ndarray | None = None

    def _scripted_id(self, name: str) -> int:
        return next(i for i, m in self.members.items() if m.kind == "scripted" and m.name == name)

    def lineup_seats(self, name: str, num_players: int) -> list[int]:
        """Member ids of lineup ``name`` in the ``num_players - 1`` seats after the learner's, in turn order."""
        ids = self._lineup_ids[name]
        return [ids[i % len(ids)] for i in range(num_players - 1)]

    def _add(self, m: Member) -> None:
        self.members[m.id] = m
        self.active.append(m.id)
        self._next_id += 1
        self._probs = self._table_probs = None
        self._restack()

    def _restack(self) -> None:
        """Put every snapshot still held (evicted ones in use included) in one :class:`MLPStack`, so that
        each round of opponent moves runs one forward pass for all of them (:func:`nothanks_env.table.act_grouped`)."""
        nets = [m.policies[0] for m in self.members.values() if m.kind == "snapshot"]
        stack = MLPStack(nets) if len(nets) > 1 else None
        for p in nets:
            p.stack = stack

    @property
    def snapshots(self) -> list[Member]:
        return [self.members[i] for i in self.active if self.members[i].kind == "snapshot"]

    @property
    def snapshot_count(self) -> int:
        """Snapshots held now."""
        return len(self.snapshots)

    def add_snapshot(self, weights: Mapping[str, torch.Tensor], step: int) -> Member:
        """Freeze actor ``weights`` at learner step ``step`` as a new opponent; evict the oldest if full."""
        weights = {k: v.detach().clone() for k, v in weights.items()}
        pol = MLPPolicy(
            weights,
            activation=self.activation,
            chip_memory=self.chip_memory,
            behaviour=self.behaviour,
            deterministic=not self.snapshot_sample,
            seed=int(self.rng.integers(2**31)),
            name=f"snap@{step}",
        )
        m = Member(self._next_id, pol.name, "snapshot", {0: pol}, step=step, snapshot_weights=weights)
        self._add(m)
        snaps = self.snapshots
        if len(snaps) > self.max_snapshots:
            self.active.remove(snaps[0].id)  # stays in members while games in flight still use it
            self._probs = self._table_probs = None
        return m

    def prune(self, in_use: np.ndarray) -> None:
        """Forget evicted members that no game in flight uses (``in_use``: member ids, any shape)."""
        used = set(np.unique(in_use).tolist())
        dropped = [i for i in self.members if i not in self.active and i not in used]
        for i in dropped:
            del self.members[i]
        if dropped:
            self._restack()

    def scripted_weights(self) -> dict[str, float]:
        """Current relative weight of each active scripted member: prior x (floor + f(x)), not normalized."""
        out = {}
        for i in self.active:
            m = self.members[i]
            if m.kind != "scripted":
                continue
            out[m.name] = m.weight * (self.floor + self._league_factor(m.name))
        return out

    def _league_factor(self, name: str) -> float:
        """f of a member or lineup ``name``: from its target (``target``) or its normalized score."""
        if self.weighting == "target":
            t = self.targets[name]
            return float(target_weight(np.array(self.table_rate.get(name, t)), np.array(t), self.temperature))
        return float(pfsp_weight(np.array(self.score.get(name, 0.5)), self.weighting, self.power))

    def lineup_weights(self) -> dict[str, float]:
        """Current relative weight of each lineup, prior x (floor + f(x)), on the scale of
        :meth:`scripted_weights` (not normalized)."""
        return {k: w * (self.floor + self._league_factor(k)) for k, w in self.lineup_prior.items()}

    def table_probabilities(self) -> np.ndarray:
        """What fills a table on the ``homogeneous`` share: float64 (len(active) + len(lineups),), sums to 1.

        The first entries are the active members (one fills every opponent seat), the rest the lineups in
        config order. Scripted members and lineups split ``1 - snapshot_weight`` (all of it before the first
        snapshot) by their league weights normalized together; snapshots take the rest as in
        :meth:`probabilities`. Without lineups this is :meth:`probabilities`.
        """
        if self._table_probs is None:
            p = self.probabilities()
            if not self.lineups:
                self._table_probs = p
                return p
            ms = [self.members[i] for i in self.active]
            w = self.scripted_weights()
            scripted = np.array([w[m.name] if m.kind == "scripted" else 0.0 for m in ms])
            lineup = np.array(list(self.lineup_weights().values()))
            total = scripted.sum() + lineup.sum()
            if total <= 0:  # everything fully beaten with floor 0: priors
                scripted = np.array([m.weight if m.kind == "scripted" else 0.0 for m in ms])
                lineup = np.array(list(self.lineup_prior.values()))
                total = scripted.sum() + lineup.sum()
            snap = np.array([m.kind == "snapshot" for m in ms])
            share = 1.0 - p[snap].sum()  # what probabilities() left to the scripted members
            self._table_probs = np.concatenate(
                [np.where(snap, p, 0.0) + share * scripted / total, share * lineup / total]
            )
        return self._table_probs

    def probabilities(self) -> np.ndarray:
        """Draw probability of each id in :attr:`active`, float64, sums to 1."""
        if self._probs is None:
            ms = [self.members[i] for i in self.active]
            w = self.scripted_weights()
            scripted = np.array([w[m.name] if m.kind == "scripted" else 0.0 for m in ms])
            if scripted.sum() <= 0:  # every prior-weighted member fully beaten with floor 0: fall back to priors
                scripted = np.array([m.weight if m.kind == "scripted" else 0.0 for m in ms])
            p = scripted / scripted.sum()
            snaps = [k for k, m in enumerate(ms) if m.kind == "snapshot"]
            if snaps and self.snapshot_weight > 0:
                sp = np.zeros(len(ms))
                if len(snaps) == 1:
                    sp[snaps[0]] = 1.0
                else:
                    sp[snaps[-1]] = self.latest_share
                    sp[snaps[:-1]] = (1.0 - self.latest_share) / (len(snaps) - 1)
                p = (1.0 - self.snapshot_weight) * p + self.snapshot_weight * sp
            self._probs = p
        return self._probs

    def record(self, opponents: np.ndarray, win: np.ndarray, num_players: int) -> None:
        """Note finished games for the league statistics (folded in every 256 games, cheap per step).

        Args:
            opponents: int64 (G, P): member id per seat, -1 at the learner's seat (P may differ per call).
            win: float64 (G,): the learner's win share in each game (1, 1/k on a k-way tie, else 0).
            num_players: P.
        """
        x = np.clip(win * num_players / self.beaten_at, 0.0, 1.0)
        seated = opponents >= 0
        first = np.where(seated, opponents, -1).max(axis=1, keepdims=True)
        one_member = ((opponents == first) | ~seated).all(axis=1)  # every opponent seat the same member
        rows, cols = np.nonzero(seated)
        self._pending.append((opponents[rows, cols], win[rows], x[rows], one_member[rows]))
        if self.lineups:  # tables seated exactly as a lineup (as a multiset: any seat order)
            key = np.sort(np.where(seated, opponents, -1), axis=1)
            for name in self.lineups:
                want = np.sort([-1, *self.lineup_seats(name, num_players)])
                match = (key == want).all(axis=1)
                if match.any():
                    self._pending_lineups.append((name, win[match], x[match]))
        self._pending_games += len(win)
        if self._pending_games >= 256:
            self._fold()

    def _fold(self) -> None:
        if not self._pending:
            return
        mids = np.concatenate([o for o, _, _, _ in self._pending])
        win = np.concatenate([w for _, w, _, _ in self._pending])
        x = np.concatenate([s for _, _, s, _ in self._pending])
        alone = np.concatenate([a for _, _, _, a in self._pending])
        self._pending, self._pending_games = [], 0
        for name, lw, lx in self._pending_lineups:  # in the order played: each batch one update
            decay = (1.0 - 1.0 / self.window) ** len(lw)
            self.score[name] = decay * self.score.get(name, 0.5) + (1 - decay) * float(lx.mean())
            self.table_rate[name] = self._mean_update(self.table_rate.get(name, 0.0), self.table_games[name], lw)
            self.win_rate[name] = self.table_rate[name]
            self.table_games[name] += len(lw)
            self.games[name] += len(lw)
        self._pending_lineups = []
        for mid in np.unique(mids).tolist():
            m = self.members.get(mid)
            if m is None:
                continue
            here = mids == mid
            name = "snapshots" if m.kind == "snapshot" else m.name
            k = int(here.sum())  # seats it filled (a member in two seats of a game counts twice)
            decay = (1.0 - 1.0 / self.window) ** k  # k updates at once, each by the mean of the k
            self.score[name] = decay * self.score.get(name, 0.5) + (1 - decay) * float(x[here].mean())
            self.win_rate[name] = self._mean_update(self.win_rate.get(name, 0.0), self.games[name], win[here])
            table = here & alone
            if table.any():  # the same mean, over its one-member tables only
                old = self.table_rate.get(name, 0.0)
                self.table_rate[name] = self._mean_update(old, self.table_games[name], win[table])
                self.table_games[name] += int(table.sum())
            self.games[name] += k
        self._probs = self._table_probs = None

    def _mean_update(self, old: float, seen: int, new: np.ndarray) -> float:
        """A win rate after ``len(new)`` more games (float64 win shares), ``seen`` games behind ``old``: the
        plain mean of every game until ``window`` of them, then the moving average the score uses. An EMA
        started from the first games alone (the shortest of the first deals) stays biased for thousands of
        games against a member that is rarely drawn."""
        k = len(new)
        decay = min((1.0 - 1.0 / self.window) ** k, seen / (seen + k))
        return decay * old + (1 - decay) * float(new.mean())

    def league(self) -> dict[str, dict[str, float]]:
        """Per scripted member (and ``snapshots``): ``win_rate`` (EMA of the learner's win share against it),
        ``table_win_rate`` (the same at tables where it fills every opponent seat; what ``target`` weighs by),
        ``score`` (normalized, 0.5 = parity), ``share`` (its current draw probability), ``games`` seen. Each
        lineup has the same keys, from the tables seated as it: both win rates are its table win rate and
        ``share`` is the share of new tables it fills (``homogeneous`` x its :meth:`table_probabilities`)."""
        self._fold()
        p = dict(zip([self.members[i].name for i in self.active], self.probabilities()))
        snap_share = sum(v for k, v in p.items() if k.startswith("snap@"))
        out = {}
        for i in self.active:
            m = self.members[i]
            if m.kind == "scripted":
                out[m.name] = {
                    "win_rate": self.win_rate.get(m.name, float("nan")),
                    "table_win_rate": self.table_rate.get(m.name, float("nan")),
                    "score": self.score.get(m.name, 0.5),
                    "share": p[m.name],
                    "games": float(self.games[m.name]),
                }
        if self.lineups:
            tables = self.homogeneous * self.table_probabilities()[len(self.active) :]
            for name, share in zip(self.lineups, tables):
                rate = self.table_rate.get(name, float("nan"))
                out[name] = {
                    "win_rate": rate,
                    "table_win_rate": rate,
                    "score": self.score.get(name, 0.5),
                    "share": float(share),
                    "games": float(self.games[name]),
                }
        if self.snapshots:
            out["snapshots"] = {
                "win_rate": self.win_rate.get("snapshots", float("nan")),
                "score": self.score.get("snapshots", 0.5),
                "share": snap_share,
                "games": float(self.games["snapshots"]),
            }
        return out

    def draw(self, shape: tuple[int, ...]) -> np.ndarray:
        """Member ids, int64 of ``shape``, drawn independently by :meth:`probabilities`."""
        ids = self.rng.choice(np.array(self.active), size=shape, p=self.probabilities())
        return ids.astype(np.int64)

    def draw_tables(self, num_tables: int, num_players: int, learner: np.ndarray | None = None) -> np.ndarray:
        """Member ids for every seat of ``num_tables`` new tables, int64 (num_tables, num_players).

        Seats are drawn independently by :meth:`probabilities`, except on a share :attr:`homogeneous` of
        the rows (each row on its own), where :meth:`table_probabilities` picks one member to fill every seat
        or a lineup to fill the seats after ``learner``'s (int (num_tables,), default seat 0) in turn order.
        The caller overwrites the learner's seat. With ``homogeneous = 0`` this is exactly :meth:`draw`.
        """
        ids = self.draw((num_tables, num_players))
        if self.homogeneous > 0.0:
            same = self.rng.random(num_tables) < self.homogeneous
            if not self.lineups:
                ids[same] = self.draw((int(same.sum()), 1))
                return ids
            rows = np.flatnonzero(same)
            pick = self.rng.choice(len(self.active) + len(self.lineups), size=len(rows), p=self.table_probabilities())
            alone = pick < len(self.active)
            ids[rows[alone]] = np.array(self.active, dtype=np.int64)[pick[alone]][:, None]
            learner = np.zeros(num_tables, dtype=np.int64) if learner is None else np.asarray(learner)
            names = list(self.lineups)
            for r, k in zip(rows[~alone].tolist(), pick[~alone].tolist()):
                seats = self.lineup_seats(names[k - len(self.active)], num_players)
                after = (int(learner[r]) + 1 + np.arange(num_players - 1)) % num_players
                ids[r, after] = seats
        return ids

    def seat(self, learner: np.ndarray, num_players: int) -> np.ndarray:
        """Opponents of new tables, counted in :meth:`composition`.

        Args:
            learner: int (G,): the learner's seat at each new table.
            num_players: seats per table, P.

        Returns:
            int64 (G, P): a member id per seat (:meth:`draw_tables`), -1 at the learner's seat.
        """
        ids = self.draw_tables(len(learner), num_players, learner)
        ids[np.arange(len(learner)), learner] = -1
        names = [self.members[i].name for i in ids[ids >= 0].tolist()]
        self.drawn.update("snapshots" if n.startswith("snap@") else n for n in names)
        return ids

    def composition(self, reset: bool = True) -> dict[str, float]:
        """Share of opponent seats drawn per member name (snapshots grouped as ``snapshots``) since last reset."""
        total = sum(self.drawn.values())
        out = {k: v / total for k, v in sorted(self.drawn.items())} if total else {}
        if reset:
            self.drawn.clear()
        return out

    # ---------------------------------------------------------------- resume
    def state_dict(self) -> dict[str, Any]:
        """Snapshots (weights, steps) and RNG state; plain tensors and builtins for ``weights_only`` load."""
        self._fold()
        return {
            "snapshots": [{"step": m.step, "weights": m.snapshot_weights} for m in self.snapshots],
            "rng": self.rng.bit_generator.state,
            "league": {
                "score": dict(self.score),
                "win_rate": dict(self.win_rate),
                "games": dict(self.games),
                "table_rate": dict(self.table_rate),
                "table_games": dict(self.table_games),
            },
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved (snapshots are re-added in order)."""
        for m in self.snapshots:
            self.active.remove(m.id)
            del self.members[m.id]
        self._probs = self._table_probs = None
        self._restack()
        for s in state["snapshots"]:
            self.add_snapshot(s["weights"], int(s["step"]))
        self.rng.bit_generator.state = state["rng"]
        league = state.get("league", {})  # absent in checkpoints saved before the league existed
        self.score = {k: float(v) for k, v in league.get("score", {}).items()}
        self.win_rate = {k: float(v) for k, v in league.get("win_rate", {}).items()}
        self.table_rate = {k: float(v) for k, v in league.get("table_rate", {}).items()}
        self.table_games = Counter({k: int(v) for k, v in league.get("table_games", {}).items()})
        self.games = Counter({k: int(v) for k, v in league.get("games", {}).items()})
        self._probs = self._table_probs = None

"""Who won, and what each seat is paid for it: ranks, win shares and every reward mode, scalar and batched.

This is the one home of a game's outcome. The PettingZoo env, the Gymnasium envs, self-play, evaluation,
the search bot and the people's tools all read it from here. Inputs are final *match penalties* (penalty
points, lower is better; one int per seat, absolute seat order); ties are never broken.

The rule itself (lowest penalty wins, tied seats share the win, ranks of tied seats are averaged) is part
of the rules engine, :func:`nothanks_env.game.ranks_and_winners` (``Game.ranks_and_winners`` uses it; the
engine imports nothing above itself), re-exported here as :func:`ranks_and_winners` for one table; its
batched twin is :func:`ranks` / :func:`win_shares`, and a test holds the two forms equal.

Reward modes (``n`` seats, penalties ``p``; the env docstrings quote this table):

============  ==========================================================  ==============  =========
mode          reward of seat i                                             range           zero-sum
============  ==========================================================  ==============  =========
win           +1/k if i is among the k lowest, else -1/(n-k); 0 if all tie  [-1, 1]         yes
win_share     1/k if i is among the k lowest, else 0 (sums to 1)          [0, 1]          no
rank          1 - 2 (r_i - 1) / (n - 1), r_i the averaged rank (1 = best)  [-1, 1]         yes
penalty       mean(p) - p_i, in penalty points                             unbounded       yes
penalty_diff  (mean of the others' p - p_i) / 100                          unbounded       yes
============  ==========================================================  ==============  =========

``win`` is the PettingZoo env's default (zero-sum, as a multi-agent learner wants). ``win_share`` is what
self-play trains on and what evaluation reports: the objective itself, the share of a win the seat gets.
Before 0.2 self-play configs called ``win_share`` ``win``; that spelling is still read there, with a
``DeprecationWarning`` (see :func:`selfplay_reward`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nothanks_env.game import RuleError, ranks_and_winners

__all__ = [
    "ENV_REWARDS",
    "REWARDS",
    "SELFPLAY_REWARDS",
    "RewardMode",
    "ranks",
    "ranks_and_winners",
    "reward_values",
    "reward_values_batch",
    "selfplay_reward",
    "win_shares",
]

PENALTY_DIFF_SCALE = 100.0
"""Penalty points per unit of the ``penalty_diff`` reward."""


# ------------------------------------------------------------------------------------ ranks and win shares
# ranks_and_winners(penalties) -> (ranks, winners) of one table: the engine's, imported above.


def ranks(penalties: np.ndarray) -> np.ndarray:
    """:func:`ranks_and_winners`' ranks of many tables: float64 (B, P) in [1, P] from int penalties (B, P)."""
    penalties = np.asarray(penalties)
    less = (penalties[:, None, :] < penalties[:, :, None]).sum(axis=2)
    equal = (penalties[:, None, :] == penalties[:, :, None]).sum(axis=2)
    return less + (equal + 1) / 2


def win_shares(penalties: np.ndarray) -> np.ndarray:
    """Win credit per seat with ties split: float64 (B, P) from int penalties (B, P); a k-way tie gives 1/k."""
    penalties = np.asarray(penalties)
    win = (penalties == penalties.min(axis=1, keepdims=True)).astype(np.float64)
    return win / win.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------------------------ reward modes
def _win(pen: np.ndarray) -> np.ndarray:
    n = pen.shape[1]
    won = pen == pen.min(axis=1, keepdims=True)
    k = won.sum(axis=1, keepdims=True)
    out = np.where(won, 1.0 / k, -1.0 / np.maximum(n - k, 1))
    out[k[:, 0] == n] = 0.0
    return out


def _rank(pen: np.ndarray) -> np.ndarray:
    return 1.0 - 2.0 * (ranks(pen) - 1.0) / (pen.shape[1] - 1)


def _penalty(pen: np.ndarray) -> np.ndarray:
    return pen.sum(axis=1, keepdims=True) / pen.shape[1] - pen


def _penalty_diff(pen: np.ndarray) -> np.ndarray:
    others = (pen.sum(axis=1, keepdims=True) - pen) / (pen.shape[1] - 1)
    return (others - pen) / PENALTY_DIFF_SCALE


# the scalar forms, written apart from the batched ones so that a test holding them equal checks both
def _win_1(p: Sequence[int]) -> list[float]:
    n, best = len(p), min(p)
    k = list(p).count(best)
    if k == n:
        return [0.0] * n
    return [1.0 / k if x == best else -1.0 / (n - k) for x in p]


def _win_share_1(p: Sequence[int]) -> list[float]:
    _, winners = ranks_and_winners(p)
    return [1.0 / len(winners) if i in winners else 0.0 for i in range(len(p))]


def _rank_1(p: Sequence[int]) -> list[float]:
    r, _ = ranks_and_winners(p)
    return [1.0 - 2.0 * (x - 1.0) / (len(p) - 1) for x in r]


def _penalty_1(p: Sequence[int]) -> list[float]:
    mean = sum(p) / len(p)
    return [mean - x for x in p]


def _penalty_diff_1(p: Sequence[int]) -> list[float]:
    total, n = sum(p), len(p)
    return [((total - x) / (n - 1) - x) / PENALTY_DIFF_SCALE for x in p]


@dataclass(frozen=True)
class RewardMode:
    """One way to pay seats at the end of a match.

    Attributes:
        name: the value of the ``reward`` option.
        low, high: bounds of one seat's reward (``-inf``/``inf`` where they depend on the cards).
        zero_sum: whether every table's rewards sum to 0.
        unit: what one unit of reward is.
        scalar: the formula for one table: one float per seat from one int penalty per seat.
        batched: the same for many tables: float64 (B, P) from int penalties (B, P).
    """

    name: str
    low: float
    high: float
    zero_sum: bool
    unit: str
    scalar: Callable[[Sequence[int]], list[float]]
    batched: Callable[[np.ndarray], np.ndarray]


REWARDS: dict[str, RewardMode] = {
    m.name: m
    for m in (
        RewardMode("win", -1.0, 1.0, True, "a whole win", _win_1, _win),
        RewardMode("win_share", 0.0, 1.0, False, "a whole win", _win_share_1, win_shares),
        RewardMode("rank", -1.0, 1.0, True, "half the rank range", _rank_1, _rank),
        RewardMode("penalty", -math.inf, math.inf, True, "penalty points", _penalty_1, _penalty),
        RewardMode("penalty_diff", -math.inf, math.inf, True, "100 penalty points", _penalty_diff_1, _penalty_diff),
    )
}
"""Every reward mode by name; the module docstring has the formulas."""
ENV_REWARDS: tuple[str, ...] = ("win", "rank", "penalty")
"""Modes the PettingZoo and Gymnasium envs take (``reward=``); ``"win"`` is their default."""
SELFPLAY_REWARDS: tuple[str, ...] = ("win_share", "penalty_diff")
"""Modes self-play trains on (``env.reward``); ``"win_share"`` is its default."""


def _mode(mode: str, allowed: Sequence[str] | None) -> RewardMode:
    names = list(REWARDS) if allowed is None else list(allowed)
    if not isinstance(mode, str) or mode not in names:
        raise RuleError(f"reward: expected one of {names}, got {mode!r}")
    return REWARDS[mode]


def reward_values_batch(penalties: np.ndarray, mode: str, allowed: Sequence[str] | None = None) -> np.ndarray:
    """Every seat's reward in many finished tables.

    Args:
        penalties: int, shape (B, P): every seat's match penalty, in penalty points, P >= 2.
        mode: a name in :data:`REWARDS`.
        allowed: the names the caller takes (default: every mode), for the error message.

    Returns:
        float64, shape (B, P): each seat's reward, within the mode's range.

    Raises:
        RuleError: on a mode not in ``allowed``.
    """
    m = _mode(mode, allowed)
    return np.asarray(m.batched(np.asarray(penalties)), dtype=np.float64)


def reward_values(penalties: Sequence[int], mode: str, allowed: Sequence[str] | None = None) -> list[float]:
    """Every seat's reward at one finished table; equal to a row of :func:`reward_values_batch` (a test holds them).

    Args:
        penalties: every seat's match penalty, in penalty points (at least 2 seats).
        mode, allowed: as for :func:`reward_values_batch`.

    Returns:
        One float per seat, in seat order.

    Raises:
        RuleError: on a mode not in ``allowed``.
    """
    return _mode(mode, allowed).scalar(list(penalties))


def selfplay_reward(mode: str) -> str:
    """The self-play reward mode named by ``mode``, reading the deprecated spelling ``"win"`` as ``"win_share"``.

    Self-play configs before 0.2 wrote ``reward: win`` for what is now ``win_share`` (1/k or 0), which is
    not the PettingZoo env's zero-sum ``win``. The old spelling is read, with a ``DeprecationWarning``, for
    one release.

    Raises:
        RuleError: on a mode not in :data:`SELFPLAY_REWARDS` (nor ``"win"``).
    """
    if mode == "win":
        warnings.warn(
            "self-play reward 'win' is deprecated: it means 'win_share' (1/k for a winner, else 0), not "
            "nothanks_v0's zero-sum 'win'; write env.reward: win_share",
            DeprecationWarning,
            stacklevel=2,
        )
        return "win_share"
    return _mode(mode, SELFPLAY_REWARDS).name

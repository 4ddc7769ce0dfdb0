"""The run-aware heuristic: a threshold bot whose threshold moves with chips, runs, unseen cards and milking.

Decision rule (all terms in penalty points; vectorised over a :class:`~nothanks_env.vector.BatchView`):

Let c be the card on offer, Δ(c) the change in its own card points if it took c (c, 0, −1 or −(c+1)),
``pot`` the chips on c, ``chips`` its own chips, ``n_deck`` the face-down cards still to come and
``U`` the cards it has not seen (deck + hidden removals; each is still to come with probability
``p = n_deck / |U|``).

1. Forced: at 0 chips it takes.
2. It *wants* c iff  Δ(c) − pot ≤ T, where

       T = base
         + scarcity · max(0, scarce_chips − chips)   chips are worth more when few are left
         + late · (1 − n_deck / (deck_size − 1))      late in the deal a chip has less use left
         + future · p · #{c−1, c+1 unseen}            c may start a run with cards still to come
         + block · [some opponent holds c−1 or c+1]   do not hand an opponent a run (and its pot)

3. Milking: if it wants c, holds at least ``milk_min_chips`` chips and no opponent is likely to take c
   before it comes round again, it passes to collect one more chip from each opponent. Opponent ``o``
   at k seats after it would see ``pot + k`` chips; it is *likely to take* if it has no chip, or if
   Δ_o(c) − (pot + k) ≤ ``milk_opp_T``.

Opponents' chips enter only in step 3 and only through ``view.known_chips(chip_memory)``. The default
``chip_memory=True`` is legitimate: every chip movement is public (a pass puts one chip on the card, a
take moves the whole pot), so a player with perfect memory knows every count, as careful humans do.
With ``chip_memory=False`` and hidden chips, each opponent whose count it cannot see is estimated at an
equal share of the chips not in its own stack or the pot (that sum is public at every moment).

The default parameters were tuned by simulation (hill-climbing its win rate at tables drawn from the
league's pool: random, never-take, threshold and an earlier heuristic, at 3-5 players);
:mod:`training.tune_heuristic` holds the script and records the four runs and their results. The
tuning set ``late`` and ``block`` to 0: raising the threshold to keep a card from an opponent cost more
than it saved. Runs are still kept from opponents by step 3: a card it wants that an opponent would take
(e.g. because it extends that opponent's run) is taken at once, not milked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np

from nothanks_env.baselines.simple import forced, own_take_delta
from nothanks_env.baselines.special import heuristic_bid, heuristic_choice, with_wild_as_card
from nothanks_env.game import SeatView
from nothanks_env.policy import Policy
from nothanks_env.vector import BatchView


def popcount(masks: np.ndarray) -> np.ndarray:
    """Number of set bits of non-negative int64 masks, any shape, as int64."""
    if hasattr(np, "bitwise_count"):  # NumPy >= 2.0
        return np.bitwise_count(masks).astype(np.int64)
    out = np.zeros(masks.shape, dtype=np.int64)
    m = masks.copy()
    while m.any():
        out += m & 1
        m >>= 1
    return out


@dataclass(frozen=True)
class HeuristicParams:
    """Parameters of the rule in the module docstring (penalty points, or chips where named so)."""

    base: float = 4.0
    scarcity: float = 1.0
    scarce_chips: int = 11
    late: float = 0.0
    future: float = 3.0
    block: float = 0.0
    milk_opp_T: float = 10.0
    milk_min_chips: int = 1

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


def estimated_chips(view: BatchView, chip_memory: bool) -> np.ndarray:
    """Every seat's chips as the viewer knows or estimates them: float64 (B, P).

    Counts given by ``view.known_chips(chip_memory)`` are used as they are; the others share equally
    the chips that are neither the viewer's nor in the pot (the total is fixed, so that sum is public).
    """
    known = view.known_chips(chip_memory).astype(np.float64)
    hidden = known < 0
    if not hidden.any():
        return known
    total = view.num_players * view.config.chips_per_player
    rest = total - view.pot - np.where(hidden, 0.0, known).sum(axis=1)
    share = rest / np.maximum(hidden.sum(axis=1), 1)
    return np.where(hidden, share[:, None], known)


class HeuristicPolicy(Policy):
    """Run-aware heuristic; the exact rule is in the module docstring of :mod:`.heuristic`.

    Args:
        chip_memory: read opponents' chips from the public history (default True; see module docstring).
        seed: unused (the rule is deterministic); accepted for a uniform constructor.
        **params: overrides of :class:`HeuristicParams` fields, e.g. ``base=8``.

    Raises:
        TypeError: for a parameter name that is not a field of :class:`HeuristicParams`.
    """

    PARAM_DEFAULTS: dict[str, float] = asdict(HeuristicParams())
    """The ``**params`` it takes, with their defaults (a policy spec checks each value against its default's kind)."""
    PARAM_NAMES: tuple[str, ...] = HeuristicParams.names()

    def __init__(self, chip_memory: bool = True, seed: int | None = None, **params: float) -> None:
        super().__init__(seed)
        unknown = set(params) - set(HeuristicParams.names())
        if unknown:
            raise TypeError(f"heuristic parameters: expected some of {HeuristicParams.names()}, got {sorted(unknown)}")
        self.params = HeuristicParams(**params)
        self.chip_memory = chip_memory
        default = asdict(HeuristicParams())
        changed = [f"{k}={v}" for k, v in asdict(self.params).items() if v != default[k]]
        if not chip_memory:
            changed.append("chip_memory=False")
        self.name = "heuristic" + (":" + ",".join(changed) if changed else "")

    plays_special_cards = True

    def act_special(self, view: SeatView) -> int:
        """A special-card game: the rule of :mod:`nothanks_env.baselines.special` (bids, choices), and on
        an offered number card this heuristic with a wild counted as the card of its value."""
        if view.phase == "auction":
            return heuristic_bid(view)
        if view.phase != "offer":
            return heuristic_choice(view)
        return int(self.act_batch(BatchView.from_seat_view(with_wild_as_card(view)))[0])

    def act_batch(self, view: BatchView) -> np.ndarray:
        q = self.params
        b, n = len(view), view.num_players
        rows = np.arange(b)
        card, pot, own = view.face_up_card, view.pot, view.own_chips
        net = own_take_delta(view) - pot

        n_deck = view.cards_in_deck
        p_coming = n_deck / np.maximum(popcount(view.unseen), 1)
        open_neighbours = ((view.unseen >> (card - 1)) & 1) + ((view.unseen >> (card + 1)) & 1)
        opp = (view.seat[:, None] + np.arange(1, n)) % n  # (B, P-1), in turn order after the viewer
        opp_delta = np.take_along_axis(view.take_delta, opp, axis=1)
        helps_opponent = (opp_delta < card[:, None]).any(axis=1)
        progress = 1.0 - n_deck / max(view.config.deck_size - 1, 1)

        threshold = (
            q.base
            + q.scarcity * np.maximum(0, q.scarce_chips - own)
            + q.late * progress
            + q.future * p_coming * open_neighbours
            + q.block * helps_opponent
        )
        wants = net <= threshold

        opp_chips = estimated_chips(view, self.chip_memory)[rows[:, None], opp]
        seen_pot = pot[:, None] + np.arange(1, n)
        likely_taken = ((opp_chips < 1) | (opp_delta - seen_pot <= q.milk_opp_T)).any(axis=1)
        milk = wants & (own >= q.milk_min_chips) & ~likely_taken
        take = (wants & ~milk) | forced(view)
        return take.astype(np.int64)

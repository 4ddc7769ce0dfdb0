"""Determinized Monte-Carlo search bot: sample the hidden information, roll both actions out, pick the better.

Decision rule, for each acting seat that may choose (at 0 chips it takes):

1. Sample ``iters`` *worlds* consistent with what the seat has seen. The cards it has not seen (``U``:
   deck + hidden removals, never told apart) are shuffled uniformly: the first ``cards_in_deck`` are the
   deck in play order, the rest the hidden removals. This is the exact posterior: no action reveals
   anything about unseen cards. Opponents' chips are the true counts when the seat may know them
   (``chip_memory=True``, the default, or visible chips); otherwise the chips that are neither its own nor
   in the pot are split among the opponents by a uniform multinomial draw.
2. In each world it plays PASS and, separately, TAKE (the same world for both: common random numbers),
   then plays the deal out. Its own later decisions follow the rollout policy (default: the run-aware
   heuristic; any policy, e.g. a trained network). Each opponent is modelled, per world, by the opponent
   model (default: the rollout policy) with probability ``p_model``, otherwise by a threshold bot with T
   drawn uniformly from ``model_T``: it cannot know how its opponents play, and a single model made it
   over-fit (against threshold bots it then lost to the heuristic). With ``fit_T`` (and a view that carries
   the pass/take records, :attr:`~nothanks_env.vector.BatchView.behaviour`), an opponent's T is drawn
   from the range its record of this deal allows instead (:func:`threshold_range`): a threshold bot took
   at cost ``take_cost_max`` and passed at ``pass_cost_min``, so its T is in ``[take_cost_max,
   pass_cost_min - 1]``; a record no threshold fits (a noisy or a cleverer player) gives the band between.
3. Utility of a finished world = its win share (a k-way tie gives 1/k) + ``margin_weight`` × (mean
   opponent penalty − own penalty), in penalty points; the margin term breaks the many ties of win share
   with a low-variance signal.
4. It takes the action with the higher mean utility only if the paired difference (TAKE − PASS over the
   same worlds) is at least ``min_z`` standard errors from 0; otherwise it keeps the rollout policy's own
   choice. Without that gate, sampling noise alone made it swap good heuristic moves for bad ones.
5. With ``confident < 1`` and a rollout policy that reports its action probabilities (a trained
   network), decisions where that policy already gives its choice a probability of at least
   ``confident`` are not searched at all: it plays them as the network does. Most decisions are clear,
   so this buys most of the speed of the network with the search where the network hesitates.

All the decisions of one :meth:`SearchPolicy.act_batch` call are searched together as one
:class:`~nothanks_env.vector.VectorGame` of ``B × 2 × iters`` worlds (split into pieces of at most
``max_worlds``): far cheaper per decision than searching one decision at a time.

The worlds are built by writing the public state into a VectorGame's arrays (``deck``, ``pos``, ``cards``,
``card_points``, ``chips``, ``pot``, ``seat``, ``done``); :mod:`nothanks_env.vector` itself is unchanged.
Multi-deal matches are scored on match totals as if the current deal were the last one.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np

from nothanks_env.baselines.heuristic import HeuristicPolicy, estimated_chips
from nothanks_env.baselines.simple import forced, own_take_delta
from nothanks_env.encoding import encode_batch
from nothanks_env.game import BEHAVIOUR_FIELDS, PASS, TAKE, GameConfig
from nothanks_env.outcome import PENALTY_DIFF_SCALE, reward_values_batch, win_shares
from nothanks_env.policy import Policy, special_cards_only, supported_player_counts
from nothanks_env.vector import BatchView, VectorGame


class SearchPolicy(Policy):
    """Determinized Monte-Carlo search over the heuristics; the exact rule is in the module docstring.

    Args:
        iters: worlds sampled per decision; each is played out once after PASS and once after TAKE.
        chip_memory: whether it may read opponents' chip counts (default True, as for the heuristic: every
            chip movement is public); with False and hidden chips it samples them.
        margin_weight: weight of the penalty margin in the utility (per penalty point).
        p_model: probability that an opponent is modelled by the rollout policy in a world (else threshold).
        min_z: least z-score of the utility gain to depart from the rollout policy's choice.
        model_T: inclusive range of T for opponents modelled as threshold bots.
        max_worlds: most worlds stepped in one VectorGame (memory bound: ~100 bytes per world and seat).
        confident: search only decisions where the rollout policy's probability of its own choice is below
            this (1.0: search every decision; used only with a rollout policy that has ``probabilities``).
        rollout: policy that plays the searching seat after the first action, and the opponents where no
            ``model`` is given (default ``HeuristicPolicy()``). On a command line: ``rollout=SPEC``.
        model: policy that models the opponents (with probability ``p_model`` per world and seat); default
            the rollout policy. On a command line: ``model=SPEC``.
        fit_T: draw each opponent's threshold T from the range its pass/take record allows
            (:func:`threshold_range`) instead of uniformly from ``model_T``.
        seed: seed of :attr:`rng`, which draws every world.

    Raises:
        ValueError: if ``iters < 1``, ``model_T`` is not ``(low, high)`` with ``low <= high``, ``confident`` is not in
            (0, 1] or ``p_model`` not in [0, 1], the rollout or model
            policy is a network trained on special cards, or the two play no table size in common.
    """

    DEFAULT_ITERS = 32
    stochastic = True

    def __init__(
        self,
        iters: int = DEFAULT_ITERS,
        chip_memory: bool = True,
        margin_weight: float = 0.01,
        p_model: float = 0.5,
        min_z: float = 1.5,
        model_T: tuple[int, int] = (0, 14),
        max_worlds: int = 1 << 16,
        confident: float = 1.0,
        rollout: Policy | None = None,
        model: Policy | None = None,
        fit_T: bool = False,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        if iters < 1:
            raise ValueError(f"iters: expected an int >= 1, got {iters!r}")
        if not model_T[0] <= model_T[1]:
            raise ValueError(f"model_T: expected (low, high) with low <= high, got {model_T!r}")
        if not 0.0 < confident <= 1.0:  # -1 switched the search off silently; 1.5 meant 1.0
            raise ValueError(f"confident: expected a probability in (0, 1], got {confident!r}")
        if not 0.0 <= p_model <= 1.0:
            raise ValueError(f"p_model: expected a probability in [0, 1], got {p_model!r}")
        self.iters = iters
        self.chip_memory = chip_memory
        self.margin_weight = margin_weight
        self.p_model = p_model
        self.min_z = min_z
        self.model_T = model_T
        self.max_worlds = max_worlds
        self.confident = confident
        self.fit_T = fit_T
        for key, pol in (("rollout", rollout), ("model", model)):
            if pol is not None and special_cards_only(pol):
                raise ValueError(
                    f"{key}: expected a policy that plays pass/take (the search plays tables without special cards), "
                    f"got {getattr(pol, 'name', type(pol).__name__)!r}, a network trained on special cards "
                    f"({getattr(pol, 'num_actions', '?')} actions)"
                )
        self.rollout = rollout if rollout is not None else HeuristicPolicy()
        self.model = model if model is not None else self.rollout
        self.behaviour = any(bool(getattr(pol, "behaviour", False)) for pol in (self.rollout, self.model))
        """Whether its rollout or model policy reads the pass/take records (a network with ``behaviour``, or a search
        over one): the worlds it plays out then keep them, and so must the games it plays in."""
        counts = [c for c in map(supported_player_counts, (self.rollout, self.model)) if c is not None]
        if counts:
            both = sorted(set(counts[0]).intersection(*counts[1:]))
            if not both:
                raise ValueError(
                    f"model: expected a policy for a table size the rollout plays ({list(counts[0])}), got one for "
                    f"{list(counts[-1])} players"
                )
            self.player_counts = tuple(both)
            """The table sizes both its rollout and model policies play (set only when either declares some)."""
        given = dict(iters=iters, chip_memory=chip_memory, margin_weight=margin_weight, p_model=p_model)
        given |= dict(min_z=min_z, model_T=model_T, confident=confident, fit_T=fit_T)
        defaults = {k: p.default for k, p in inspect.signature(SearchPolicy).parameters.items()}
        parts = [f"{k}={v}" for k, v in given.items() if v != defaults[k]]
        for key, pol in (("rollout", rollout), ("model", model)):
            if pol is not None:
                label = getattr(pol, "name", type(pol).__name__)
                parts.append(f"{key}=({label})" if any(c in label for c in ",:=") else f"{key}={label}")
        self.name = "search" + (":" + ",".join(parts) if parts else "")
        self._games: dict[tuple[GameConfig, int], VectorGame] = {}

    def act_batch(self, view: BatchView) -> np.ndarray:
        known = self._known(view)
        out = np.asarray(self.rollout.act_batch(known), dtype=np.int64).copy()
        free = ~forced(view)
        if self.confident < 1.0 and callable(getattr(self.rollout, "probabilities", None)):
            chip_memory = getattr(self.rollout, "chip_memory", True)
            behaviour = bool(getattr(self.rollout, "behaviour", False))
            obs = encode_batch(known, chip_memory, behaviour)
            probs = self.rollout.probabilities(obs, known.action_mask())
            free &= probs.max(axis=1) < self.confident
        free = np.flatnonzero(free)
        per_piece = max(1, self.max_worlds // (2 * self.iters))
        for start in range(0, len(free), per_piece):
            idx = free[start : start + per_piece]
            gain, z = self._take_gain(view, idx)
            sure = np.abs(z) > self.min_z
            out[idx] = np.where(sure & (gain > 0), TAKE, np.where(sure & (gain < 0), PASS, out[idx]))
        return out

    def _known(self, view: BatchView) -> BatchView:
        """The view with opponents' chips it may not know replaced by an equal share of the unknown chips
        (so that the rollout policy, which may read every count, cannot see them)."""
        if self.chip_memory or view.config.opponent_chips == "visible":
            return view
        chips = np.floor(estimated_chips(view, False)).astype(np.int64)
        return dataclasses.replace(view, tracked_chips=chips, _obs_cache={})

    def _world_game(self, config: GameConfig, n: int) -> VectorGame:
        """A cached VectorGame with at least ``n`` games (a power of two, so that few sizes are built)."""
        key = (config, 1 << max(n - 1, 0).bit_length())
        if key not in self._games:
            self._games[key] = VectorGame(config, key[1], seed=0, record_behaviour=self.behaviour)  # records cost time
        return self._games[key]

    def _draw_T(self, view: BatchView, idx: np.ndarray) -> np.ndarray:
        """Each world's threshold T for each seat modelled as a threshold bot: int64 (m, iters, P).

        Uniform over ``model_T``, or with :attr:`fit_T` over the range each seat's record allows.
        """
        shape = (len(idx), self.iters, view.num_players)
        if self.fit_T and view.behaviour is not None:
            lo, hi = threshold_range(view.behaviour[idx], self.model_T)  # (m, P) each
            return lo[:, None, :] + self.rng.integers(0, (hi - lo + 1)[:, None, :], shape)
        return self.rng.integers(self.model_T[0], self.model_T[1] + 1, shape)

    def _take_gain(self, view: BatchView, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean utility gain of TAKE over PASS for rows ``idx`` and its z-score: float64 (m,), (m,)."""
        cfg = view.config
        m, k, p = len(idx), self.iters, view.num_players
        d, r = cfg.deck_size, cfg.num_removed
        values = np.arange(cfg.lowest_card, cfg.highest_card + 1, dtype=np.int64)

        # 1. worlds: shuffle the unseen cards of each row, k times (shape (m, k, ...)).
        unseen = ((view.unseen[idx, None] >> values) & 1).astype(bool)  # (m, V)
        keys = self.rng.random((m, k, len(values)))
        keys[~np.broadcast_to(unseen[:, None, :], keys.shape)] = np.inf
        shuffled = values[np.argsort(keys, axis=2)]  # unseen cards first, in random order
        n_deck = view.cards_in_deck[idx]
        pos = d - 1 - n_deck  # index of the face-up card in a full-length deck
        src = np.arange(d)[None, :] - pos[:, None] - 1  # (m, d): deck slot -> index into shuffled
        deck = np.take_along_axis(shuffled, np.clip(src, 0, len(values) - 1)[:, None, :].repeat(k, 1), axis=2)
        deck = np.where(src[:, None, :] >= 0, deck, 0)
        deck[np.arange(m), :, pos] = view.face_up_card[idx, None]
        removed = np.take_along_axis(shuffled, (n_deck[:, None] + np.arange(r))[:, None, :].repeat(k, 1), axis=2)

        chips = np.repeat(view.tracked_chips[idx, None, :], k, axis=1)  # (m, k, p)
        if not self.chip_memory and cfg.opponent_chips == "hidden":
            own = view.own_chips[idx]
            rest = p * cfg.chips_per_player - own - view.pot[idx]
            draws = self.rng.multinomial(np.repeat(rest, k), np.full(p - 1, 1.0 / (p - 1)))
            opp = (view.seat[idx, None] + np.arange(1, p)) % p
            chips = np.zeros((m, k, p), dtype=np.int64)
            chips[np.arange(m)[:, None, None], np.arange(k)[None, :, None], opp[:, None, :]] = draws.reshape(
                m, k, p - 1
            )
            chips[np.arange(m), :, view.seat[idx]] = own[:, None]

        # 2. the same worlds twice (PASS block, then TAKE block), laid out as (m, 2, k) -> m * 2 * k games.
        def twice(a: np.ndarray) -> np.ndarray:
            return np.repeat(a[:, None], 2, axis=1).reshape(m * 2 * k, *a.shape[2:])

        def per_row(a: np.ndarray) -> np.ndarray:
            return np.repeat(a, 2 * k, axis=0)

        one_deal = dataclasses.replace(cfg, num_deals=1) if cfg.num_deals != 1 else cfg
        n = m * 2 * k
        vg = self._world_game(one_deal, n)
        vg.load_states(
            np.arange(n),
            deck=twice(deck),
            removed_hidden=twice(removed),
            pos=per_row(pos),
            cards=per_row(view.cards[idx]),
            chips=twice(chips),
            pot=per_row(view.pot[idx]),
            seat=per_row(view.seat[idx]),
            behaviour=None if view.behaviour is None else per_row(view.behaviour[idx]),
            only=True,  # rows past n stay out of the rollouts
        )
        # opponents' models, per world: the opponent model with probability p_model, else a threshold bot
        # with T drawn uniformly from model_T (the searching seat always plays the rollout policy).
        as_rollout = self.rng.random((m, k, p)) < self.p_model
        as_rollout[np.arange(m), :, view.seat[idx]] = True
        as_rollout = twice(as_rollout)
        t_model = twice(self._draw_T(view, idx))
        actions = np.zeros(vg.num_games, dtype=np.int64)
        actions[:n] = np.tile(np.repeat(np.array([PASS, TAKE]), k), m)
        vg.step(actions)
        while not vg.done.all():
            live = np.flatnonzero(~vg.done)
            v = vg.view(live)
            mine = v.seat == per_row(view.seat[idx])[live]
            by_rollout = self.rollout.act_batch(v)
            by_model = by_rollout if self.model is self.rollout else self.model.act_batch(v)
            by_threshold = (own_take_delta(v) - v.pot <= t_model[live, v.seat]) | forced(v)
            modelled = np.where(mine, by_rollout, by_model)
            actions[live] = np.where(as_rollout[live, v.seat], modelled, by_threshold)
            vg.step(actions)

        # 3. utility of each world for the searching seat.
        pen = vg.penalties()[:n] + per_row(view.match_penalties[idx])
        me = per_row(view.seat[idx])
        rows = np.arange(len(me))
        margin = reward_values_batch(pen, "penalty_diff")[rows, me] * PENALTY_DIFF_SCALE  # in penalty points
        util = (win_shares(pen)[rows, me] + self.margin_weight * margin).reshape(m, 2, k)
        diff = util[:, TAKE] - util[:, PASS]  # paired: the same world after each action
        gain = diff.mean(axis=1)
        se = diff.std(axis=1, ddof=1) / np.sqrt(k) if k > 1 else np.zeros(m)
        z = np.divide(gain, se, out=np.where(gain == 0, 0.0, np.copysign(np.inf, gain)), where=se > 0)
        return gain, z

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_games"] = {}  # world buffers are rebuilt on demand; do not ship them to worker processes
        return state


def threshold_range(record: np.ndarray, default: tuple[int, int] = (0, 14)) -> tuple[np.ndarray, np.ndarray]:
    """The thresholds T a seat's pass/take record allows: int64 ``(lo, hi)``, each of shape ``record.shape[:-1]``.

    A threshold bot takes iff cost ≤ T (cost = Δ(c) − pot, penalty points), so one that took freely at cost
    ``take_cost_max`` and passed at ``pass_cost_min`` has ``take_cost_max ≤ T ≤ pass_cost_min − 1``. A side
    with no evidence yet (no free take, or no pass) is the ``default`` bound, widened to meet the other side.
    When no T fits (it passed at a cost below one it took at: a noisy or a cleverer player), the range is the
    band between the two, ``[pass_cost_min − 1, take_cost_max]``.

    Args:
        record: int (..., len(BEHAVIOUR_FIELDS)) in the order of :data:`nothanks_env.game.BEHAVIOUR_FIELDS`.
        default: inclusive (low, high) bounds of T used where the record says nothing.
    """
    field = BEHAVIOUR_FIELDS.index
    passes, free_takes = record[..., field("passes")], record[..., field("free_takes")]
    take_cost_max, pass_cost_min = record[..., field("take_cost_max")], record[..., field("pass_cost_min")]
    took, passed = free_takes > 0, passes > 0
    upper = np.where(passed, pass_cost_min - 1, default[1])
    lower = np.where(took, take_cost_max, default[0])
    lower = np.where(took, lower, np.minimum(lower, upper))
    upper = np.where(passed, upper, np.maximum(upper, lower))
    return np.minimum(lower, upper).astype(np.int64), np.maximum(lower, upper).astype(np.int64)

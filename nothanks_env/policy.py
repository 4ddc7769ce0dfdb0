"""One policy interface for scripted baselines, trained checkpoints, humans and users' own bots.

A policy decides for the seat to act. It sees a :class:`~nothanks_env.vector.BatchView` (what each
acting seat of ``B`` games may know) and returns one action per game. The scalar entry point
:meth:`Policy.act` takes a :class:`~nothanks_env.game.SeatView` and runs the batched rule on a batch of
one, so every decision rule is written once.

Users benchmark their own bots by subclassing :class:`Policy` (or any object with ``act_batch``) and
passing ``module:attr`` wherever a policy spec is accepted. A subclass may instead override only :meth:`Policy.act`
(one :class:`~nothanks_env.game.SeatView` at a time): every path then plays it through that ``act``.

Example:
    >>> import numpy as np
    >>> from nothanks_env.policy import Policy
    >>> class AlwaysTake(Policy):
    ...     name = "always-take"
    ...     def act_batch(self, view):
    ...         return np.ones(len(view), dtype=np.int64)
"""

from __future__ import annotations

import numpy as np

from nothanks_env.game import Game, GameConfig, RuleError, SeatView, describe_action
from nothanks_env.vector import BatchView


class Policy:
    """Base class: override :meth:`act_batch`; :meth:`reset` and :meth:`seed` are optional.

    A subclass that overrides only :meth:`act` is played by that ``act`` on every path: the batched ones
    (evaluation, the gauntlet, the vector env, self-play) and the single decisions of :func:`act_one` (training.play,
    the single-agent env) reach it through the base :meth:`act_batch`, which calls it on each game's
    :meth:`BatchView.seat_view` in turn, and, with special cards, the base :meth:`act_special`. That is one
    Python call per decision: the built-in bots override :meth:`act_batch` and never take this path.

    Attributes:
        name: short display name used in tables.
        rng: ``numpy.random.Generator`` for stochastic policies, reseeded by :meth:`seed`.
        stochastic: True if :meth:`act_batch` draws from :attr:`rng`. The Gymnasium vector env gives each
            of its games its own copy of a stochastic opponent (so each game's draws depend on its seed
            alone) and shares one instance of a deterministic opponent across games (one batched call).
            Default False: a stochastic policy that does not say so still plays, drawing from one RNG.
    """

    name: str = "policy"
    stochastic: bool = False
    plays_special_cards: bool = False
    """True if :meth:`act` plays the house special cards (bids, drops, choices) through :meth:`act_special`."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Reseed the policy's RNG (evaluation calls this so that runs are reproducible)."""
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Called before each new game; stateless policies need not override it."""

    def act_batch(self, view: BatchView) -> np.ndarray:
        """Actions for the acting seat of each game.

        Args:
            view: batch of ``B`` views; ``view.action_mask()`` gives the legal actions.

        Returns:
            np.ndarray, shape (B,), int64: PASS (0) or TAKE (1), each legal under ``view.action_mask()``. The base
            class returns what the subclass's own :meth:`act` returns for each row, as it returned it (its checks
            then read ``1.9`` as no action, not as TAKE).

        Raises:
            NotImplementedError: if the class overrides neither this nor :meth:`act`.
        """
        if type(self).act is Policy.act:
            raise NotImplementedError(
                f"policy {self.name}: expected a Policy subclass that overrides act_batch (or act), got neither"
            )
        out = [self.act(view.seat_view(i)) for i in range(len(view))]
        return np.asarray(out) if out else np.zeros(0, dtype=np.int64)

    def act(self, view: SeatView) -> int:
        """Action for one seat view (the viewer must be the seat to act): PASS (0) or TAKE (1), or with
        special cards any id of :data:`nothanks_env.game.ACTION_PIECES` (through :meth:`act_special`).

        The decision of :func:`act_one`: what :meth:`act_batch` or :meth:`act_special` returns is checked by
        :func:`whole_actions`: an integral float (``1.0``) is that id, a fraction (``1.9``) is refused, not cut.

        A subclass that overrides this is played through its override everywhere (see the class docstring); it
        may not call this base method unless it overrides :meth:`act_batch` (and with special cards
        :meth:`act_special`), which is how the base method decides.

        Raises:
            RuleError: for a view with special cards when the policy does not play them.
            PolicyActionError: for anything but one whole action id in range.
            NotImplementedError: when reached from a subclass's own ``act`` (``super().act(view)``) that the base
                :meth:`act_batch` (or :meth:`act_special`) would call back for ever.
        """
        cls = type(self)
        if cls.act is not Policy.act:  # a subclass's act() called this one: is there a rule to decide by?
            method = "act_special" if view.config.special_cards else "act_batch"
            if getattr(cls, method) is getattr(Policy, method) and (
                method == "act_batch" or getattr(self, "plays_special_cards", False)
            ):
                raise NotImplementedError(
                    f"policy {self.name}: its act() calls Policy.act(), which decides through {method}, which it "
                    f"does not override: override {method}, or decide in act()"
                )
        return act_one(self, view)

    def act_special(self, view: SeatView) -> int:
        """Action id for one seat view of a config with special cards; override with plays_special_cards. The base
        class returns what the subclass's own :meth:`act` returns, if it overrides it.

        Raises:
            NotImplementedError: if the class overrides neither this nor :meth:`act`.
        """
        if type(self).act is Policy.act:
            raise NotImplementedError(
                f"policy {self.name}: expected a Policy subclass that overrides act_special (or act), got neither"
            )
        return self.act(view)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class PolicyActionError(ValueError):
    """A policy returned a wrong shape or an illegal action (:func:`whole_actions`, or
    :func:`nothanks_env.table.act_grouped` with ``checked``): the fault of the policy (e.g. a user's
    ``module:attr`` bot), which command lines report in one ``error:`` line."""


def whole_actions(policy: object, out: object, shape: tuple[int, ...], num_actions: int) -> np.ndarray:
    """What ``policy`` returned for its decisions, as int64 action ids of ``shape``, checked as evaluation checks
    actions (:func:`nothanks_env.table.act_grouped` with ``checked``): each a whole number in
    ``0..num_actions-1``. An integral float (``1.0``, as from ``np.ones``) is that id; ``1.9`` is refused, not cut.

    For ``shape`` ``()`` (one decision), an int or NumPy integer in range is returned as an ``np.int64`` scalar
    without building arrays: :meth:`Policy.act` checks every scalar decision of a table with special cards.

    Raises:
        PolicyActionError: naming the policy, for a wrong shape or a value that is no action id.
    """
    if shape == () and isinstance(out, (int, np.integer)) and 0 <= out < num_actions:
        return np.int64(out)
    name = getattr(policy, "name", type(policy).__name__)
    actions = np.asarray(out)
    if actions.shape != shape:
        raise PolicyActionError(f"policy {name}: expected actions of shape {shape}, got {actions.shape}")
    if actions.dtype.kind in "biuf":
        values = actions.astype(np.float64)
        with np.errstate(invalid="ignore"):
            good = np.isfinite(values) & (values == np.floor(values)) & (values >= 0) & (values < num_actions)
    else:  # strings, objects: no action ids
        good = np.zeros(shape, dtype=bool)
    if not good.all():
        ids = "PASS=0 or TAKE=1" if num_actions == 2 else f"0..{num_actions - 1}"
        first = actions.reshape(-1)[int(np.flatnonzero(~good.reshape(-1))[0])]
        got = repr(first.tolist() if isinstance(first, np.generic) else first)
        if actions.size > 1:
            got = f"{int((~good).sum())} of {actions.size} that are not, the first {got}"
        raise PolicyActionError(f"policy {name}: expected whole action ids ({ids}), got {got}")
    return actions.astype(np.int64)


def guard_actions(policy: object, out: object, shape: tuple[int, ...], num_actions: int) -> np.ndarray:
    """The cheap guard of the trusted hot paths (the tables of self-play and the vector env) on what ``policy``
    returned: an int (or bool) array of ``shape`` is taken as it is, unchecked (the engine refuses an id out of
    range or an illegal action); anything else (floats, objects, lists, another shape) goes through
    :func:`whole_actions`, so ``1.0`` is that id and ``1.9`` is refused instead of cut when stored in an int array.

    Returns:
        ``out`` itself (int or bool, ``shape``) or int64 action ids of ``shape``.

    Raises:
        PolicyActionError: naming the policy, from :func:`whole_actions`.
    """
    if isinstance(out, np.ndarray) and out.dtype.kind in "biu" and out.shape == shape:
        return out
    return whole_actions(policy, out, shape, num_actions)


def act_one(policy: object, view: SeatView | Game) -> int:
    """The action of ``policy`` for one seat to act, checked: the one way a single decision of a policy is read.

    At a table with special cards (bids, drops, choices) it is the policy's ``act_special`` (only a policy with
    ``plays_special_cards`` plays them); otherwise its batched ``act_batch`` on a batch of one, so any object
    with ``act_batch`` (a user's ``module:attr`` bot need not subclass :class:`Policy`) decides here. What it
    returns is checked by :func:`whole_actions`: ``1.0`` is TAKE, ``1.9`` is refused, not cut to ``1``. An
    int array of shape (1,) holding 0 or 1 is taken at once, without that function's arrays (each opponent
    decision of the single-agent env comes here: a hot path).

    Args:
        policy: a :class:`Policy`, or any object with ``act_batch`` (and ``act_special`` with special cards).
        view: the seat to act's view (its viewer must be that seat), or a game in progress, read from its
            seat to act (at a table without special cards straight from the game, by
            :meth:`BatchView.from_game`).

    Returns:
        The action id: PASS (0) or TAKE (1), or with special cards any id of
        :data:`nothanks_env.game.ACTION_PIECES`.

    Raises:
        RuleError: with special cards, for a policy that does not play them; without, for a view whose viewer
            is not the seat to act, or a game that is over.
        PolicyActionError: naming the policy, for anything but one whole action id in range.
    """
    config = view.config
    if config.special_cards:
        if not getattr(policy, "plays_special_cards", False):
            raise RuleError(
                f"policy {getattr(policy, 'name', type(policy).__name__)}: expected a policy that plays special "
                f"cards (random, heuristic), got one that plays only pass/take"
            )
        seat_view = view.seat_view(view.current_seat) if isinstance(view, Game) else view
        return int(whole_actions(policy, policy.act_special(seat_view), (), config.num_actions))
    batch = BatchView.from_game(view) if isinstance(view, Game) else BatchView.from_seat_view(view)
    out = policy.act_batch(batch)
    if isinstance(out, np.ndarray) and out.shape == (1,) and out.dtype.kind in "iu":
        action = int(out[0])
        if 0 <= action < 2:
            return action
    return int(whole_actions(policy, out, (1,), 2)[0])


def legal_action(policy: object, view: SeatView, out: object) -> int:
    """What ``policy`` returned for the decision of ``view`` (whose viewer is the seat to act), checked: a whole
    action id (:func:`whole_actions`: ``1.0`` is that id, ``1.9`` is refused, not cut) that the phase allows, so
    a bid of more chips than the seat holds is the policy's fault, named, not the engine's error on a later step.

    Returns:
        The action id, legal in ``view``.

    Raises:
        PolicyActionError: naming the policy; for an illegal id also the phase, what it allows (``bid 0..11``),
            the seat's chips where they count (offer, auction) and the action (``bid 50``).
    """
    config = view.config
    action = int(whole_actions(policy, out, (), config.num_actions))
    legal = view.legal_actions
    if action not in legal:
        chips = f" with {view.own_chips} chips" if view.phase in ("offer", "auction") else ""
        raise PolicyActionError(
            f"policy {getattr(policy, 'name', type(policy).__name__)}: expected a legal action in phase "
            f"{view.phase!r} ({describe_legal(config, legal)}), got {describe_action(config, action)}{chips}"
        )
    return action


def describe_legal(config: GameConfig, legal: tuple[int, ...]) -> str:
    """Legal action ids in words, runs of three or more numbers shortened: ``"pass or take"``, ``"bid 3..11 or
    drop"``, ``"value 3..9, 11, 12"``, ``"nothing"`` for none.

    >>> from nothanks_env.game import BID0, DROP
    >>> describe_legal(GameConfig(special_cards=("wild",)), (*range(BID0 + 3, BID0 + 12), DROP))
    'bid 3..11 or drop'
    """
    words: list[str] = []
    numbers: dict[str, list[int]] = {}
    for a in legal:
        kind, _, n = describe_action(config, a).partition(" ")
        if not n:
            words.append(kind)
        elif kind not in numbers:
            numbers[kind] = [int(n)]
            words.append(kind)
        else:
            numbers[kind].append(int(n))
    parts = []
    for w in words:
        if w not in numbers:
            parts.append(w)
            continue
        runs: list[list[int]] = []
        for n in numbers[w]:
            if runs and n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        shown = (f"{r[0]}..{r[-1]}" if len(r) >= 3 else ", ".join(map(str, r)) for r in runs)
        parts.append(f"{w} {', '.join(shown)}")
    return " or ".join(parts) or "nothing"


def special_cards_only(policy: object) -> bool:
    """True for a policy that plays only configs with special cards: a network trained on them, whose
    ``num_actions`` (125) is more than the standard game's PASS/TAKE. Policies without the attribute play
    standard tables."""
    return getattr(policy, "num_actions", 2) != 2


def supported_player_counts(policy: object) -> tuple[int, ...] | None:
    """The table sizes a policy says it plays, or None if it plays any.

    A policy declares them with a ``player_counts`` attribute (a trained checkpoint: the counts it was
    trained at) or, for one size, a ``num_players`` int attribute.
    """
    counts = getattr(policy, "player_counts", None)
    if counts:
        return tuple(int(n) for n in counts)
    one = getattr(policy, "num_players", None)
    if isinstance(one, int) and not isinstance(one, bool):
        return (one,)
    return None


def check_player_count(policy: object, num_players: int, what: str | None = None) -> None:
    """Refuse a policy at a table size it does not declare (see :func:`supported_player_counts`).

    Args:
        policy: any policy.
        num_players: the table size it is about to play.
        what: how to name it in the message (default: its ``name``).

    Raises:
        ValueError: ``"<what>: expected a policy for <n> players, got one trained for [..] players"``.
    """
    counts = supported_player_counts(policy)
    if counts is not None and num_players not in counts:
        label = what or f"policy {getattr(policy, 'name', type(policy).__name__)!r}"
        raise ValueError(
            f"{label}: expected a policy for {num_players} players, got one trained for {list(counts)} players"
        )

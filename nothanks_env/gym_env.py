"""Gymnasium single-agent env ``nothanks/NoThanks-v0``: one learner seat against fixed opponent policies.

The learner plays one seat; every other seat is played by an opponent :class:`~nothanks_env.policy.Policy`
(given as objects or as policy specs, :mod:`nothanks_env.specs`). After each learner action the opponents
act until it is the learner's turn again, so every step is one learner decision. The rules are the scalar
engine's (:mod:`nothanks_env.game`) and the observation is the AEC env's, kept up to date move by move
(:mod:`nothanks_env.observer`), so every preset works, multi-deal matches included. The batched twin for
many games at once is :class:`nothanks_env.gym_vector.NoThanksVectorEnv`.

Importing :mod:`nothanks_env` registers the id, so ``gymnasium.make("nothanks/NoThanks-v0", ...)`` and
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from nothanks_env import encoding as enc
from nothanks_env.env import (
    ILLEGAL_REWARD,
    RENDER_FPS,
    RENDER_MODES,
    REWARD_MODES,
    observation_bounds,
    parse_deals,
    reset_options,
    reset_seed,
)
from nothanks_env.game import NUM_SPECIAL_ACTIONS, Game, GameConfig, IllegalActionError, RuleError, validate_deals
from nothanks_env.observer import ObservationTable
from nothanks_env.outcome import ranks_and_winners, reward_values
from nothanks_env.policy import Policy, PolicyActionError, act_one, special_cards_only
from nothanks_env.presets import resolve_config
from nothanks_env.render import render_rgb, render_table
from nothanks_env.table import MAX_UNPLAYED

ENV_ID = "nothanks/NoThanks-v0"
"""The Gymnasium id of :class:`SingleAgentEnv` (and, through ``make_vec``, of the vector env)."""
DEFAULT_OPPONENT = "heuristic"
"""Opponent spec of every other seat when none is given."""
SEED_BOUND = 2**63 - 1
"""Game seeds and opponent seeds are drawn from the env's RNG in [0, SEED_BOUND)."""

OpponentArg = str | Policy | Sequence[str | Policy] | None
"""One spec or policy for every other seat, or one per other seat (clockwise from the learner)."""


# ------------------------------------------------------------------------------------ shared with the vector env
def check_options(chip_memory: Any, reward: Any, learner_seat: Any, config: GameConfig) -> None:
    """Validate the keyword options the single and the vector env share; raise RuleError naming the bad one."""
    if not isinstance(chip_memory, bool):
        raise RuleError(f"chip_memory: expected True or False, got {chip_memory!r}")
    if reward not in REWARD_MODES:
        raise RuleError(f"reward: expected one of {list(REWARD_MODES)}, got {reward!r}")
    n = config.num_players
    if learner_seat is not None and (
        not isinstance(learner_seat, (int, np.integer)) or isinstance(learner_seat, bool) or not 0 <= learner_seat < n
    ):
        raise RuleError(f"learner_seat: expected None (drawn per game) or an int in 0..{n - 1}, got {learner_seat!r}")


def resolve_opponents(opponents: OpponentArg, num_players: int, *, special_cards: bool | None = None) -> list[Policy]:
    """The ``num_players - 1`` opponent policies; entry ``k`` plays the seat ``k + 1`` seats after the learner.

    Args:
        opponents: ``None`` (:data:`DEFAULT_OPPONENT` everywhere), one spec or policy for every seat (one
            instance, shared by the seats), or a sequence with one spec or policy per other seat.
        num_players: seats at the table.
        special_cards: whether the table has special cards, for the hint of a shipped network refused at
            ``num_players`` (:func:`nothanks_env.specs.load_policy`); None: not known.

    Raises:
        RuleError: for a sequence of the wrong length or an entry that is neither a spec nor a policy.
        ValueError: from :func:`nothanks_env.specs.load_policy` for a bad spec (it names the spec).
    """
    want = num_players - 1
    if opponents is None:
        opponents = DEFAULT_OPPONENT
    if isinstance(opponents, str) or callable(getattr(opponents, "act_batch", None)):
        return [_policy(opponents, num_players, "opponents", special_cards)] * want
    if not isinstance(opponents, Sequence) or len(opponents) != want:
        got = f"{len(opponents)} entries" if isinstance(opponents, Sequence) else repr(opponents)
        raise RuleError(
            f"opponents: expected one spec or policy, or {want} (one per other seat at {num_players} players), "
            f"got {got}"
        )
    return [_policy(o, num_players, f"opponents[{k}]", special_cards) for k, o in enumerate(opponents)]


def check_opponents(opponents: Sequence[Policy], config: GameConfig) -> None:
    """Refuse opponents that cannot play ``config``: pass/take-only policies at a table with special cards, and
    networks trained on special cards (125 actions) at one without.

    Raises:
        RuleError: naming every such opponent, what was expected and what they play.
    """
    names = [getattr(p, "name", type(p).__name__) for p in opponents]
    if config.special_cards:
        unable = [n for n, p in zip(names, opponents) if not getattr(p, "plays_special_cards", False)]
        if unable:
            raise RuleError(
                f"opponents: expected policies that play special cards for {list(config.special_cards)} "
                f"(random, heuristic, or a checkpoint trained on them), got {unable} that play only pass/take"
            )
        return
    unable = [n for n, p in zip(names, opponents) if special_cards_only(p)]
    if unable:
        from nothanks_env.specs import shipped_networks_hint

        raise RuleError(
            f"opponents: expected policies that play pass/take (the table has no special cards), got {unable} "
            f"trained on special cards ({NUM_SPECIAL_ACTIONS} actions)"
            f"{shipped_networks_hint(config.num_players, special_cards=False)}"
        )


def _policy(item: str | Policy, num_players: int, what: str, special_cards: bool | None = None) -> Policy:
    if isinstance(item, str):
        from nothanks_env.specs import load_policy  # the baselines (and torch for checkpoints) only when named

        return load_policy(item, num_players=num_players, special_cards=special_cards)
    if not callable(getattr(item, "act_batch", None)):
        raise RuleError(f"{what}: expected a policy spec (str) or a Policy (with act_batch), got {item!r}")
    want = getattr(item, "num_players", None)
    if isinstance(want, int) and want != num_players:
        raise RuleError(f"{what}: expected a policy for {num_players} players, got {item!r} for {want}")
    return item


def seed_opponents(opponents: Sequence[Policy], rng: np.random.Generator) -> None:
    """Draw one seed per opponent seat from ``rng`` (always, so draws stay aligned) and seed the stochastic ones."""
    for pol in opponents:
        s = int(rng.integers(SEED_BOUND))
        if getattr(pol, "stochastic", False) and callable(getattr(pol, "seed", None)):
            pol.seed(s)


def draw_learner_seat(learner_seat: int | None, num_players: int, rng: np.random.Generator) -> int:
    """The learner's seat of a new game: the fixed one, else uniform from ``rng``."""
    return int(learner_seat) if learner_seat is not None else int(rng.integers(num_players))


def end_info(penalties: Sequence[int], learner: int) -> dict[str, Any]:
    """What the last step's ``info`` adds: the learner's ``penalty`` and ``rank``, every seat's ``penalties``."""
    pen = [int(p) for p in penalties]
    ranks, _ = ranks_and_winners(pen)
    return {"penalty": pen[learner], "rank": float(ranks[learner]), "penalties": np.array(pen, dtype=np.int64)}


# ------------------------------------------------------------------------------------ the env
class SingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """No Thanks! for one learner against fixed opponents, as a Gymnasium env.

    ## Description
    The card game of :class:`nothanks_env.env.raw_env` (rules, presets, variants) for 3 to 7 players, seen
    from one seat, the *learner*. The other seats are played by opponent policies: scripted baselines,
    trained checkpoints or your own :class:`~nothanks_env.policy.Policy`. Each ``step`` is one learner
    decision; the opponents then act until the learner is to act again or the game is over.

    ## Action Space
    ``Discrete(2)``: ``PASS = 0`` ("No thanks!", costs one chip), ``TAKE = 1``. PASS is illegal at 0 chips:
    it raises :class:`~nothanks_env.game.IllegalActionError` and leaves the state unchanged. The legal
    actions come as ``info["action_mask"]`` (int8 (2,), 1 = legal; ``action_space.sample(mask)`` takes it)
    and from :meth:`action_masks` (bool (2,), the sb3-contrib ``MaskablePPO`` convention).

    With special cards (``preset="wildcards"``) the space is ``Discrete(125)`` as in the AEC env
    (:data:`nothanks_env.game.ACTION_PIECES`: pass, take, bid 0..55, drop, name the wild's value, delete a
    card) and the masks are (125,); the mask is the only guide, and any action it forbids raises.

    ## Observation Space
    ``Box(low, high, (389,), float32)``: the learner's observation in the AEC env's layout
    (:data:`nothanks_env.encoding.LAYOUT`; the piece table with units is in :mod:`nothanks_env.encoding`),
    bounds from :func:`nothanks_env.env.observation_bounds`; with special cards ``(499,)``, with
    :data:`nothanks_env.encoding.SPECIAL_LAYOUT` after the standard pieces. Seat pieces are relative to the learner. It
    holds only what the learner's seat may know: opponents' chips are hidden unless ``chip_memory`` or the
    config's ``opponent_chips="visible"`` says otherwise.

    ## Rewards
    The learner's own reward, paid once, at the step that ends the game (or match), whoever took the last
    card; 0 before. Modes as in the AEC env (``n`` seats, penalties ``p``, lower is better):

    - ``"win"`` (default): +1/k if the learner is among the k seats with the lowest penalty, else
      -1/(n-k); 0 if all n tie.
    - ``"rank"``: 1 - 2 (r - 1) / (n - 1), r the learner's rank (1 = best, ties averaged).
    - ``"penalty"``: mean(p) - p_learner, in penalty points.

    ## Episode End
    Terminates when the game (the last deal of a match) ends, on anyone's take. There is no truncation:
    a game ends within ``config.max_decisions_per_deal`` decisions per deal. The last step's ``info``
    adds ``"penalty"`` (int, the learner's), ``"rank"`` (float) and ``"penalties"`` (int64 (n,), every seat's,
    absolute seats). A deal that ends before the learner's first decision (opponents that take every card)
    is dealt again: the learner had no part in it.

    ## Arguments
    - ``num_players``, ``preset``, ``config`` and any GameConfig field: the rules, as for
      :class:`~nothanks_env.env.raw_env`.
    - ``opponents``: one policy spec or :class:`Policy` for every other seat, or a sequence of
      ``num_players - 1`` of them; entry ``k`` plays the seat ``k + 1`` seats clockwise after the learner.
      Default ``"heuristic"``. Specs that name checkpoints load torch then, not before.
    - ``learner_seat``: ``None`` (default: drawn uniformly per game, so no seat bias creeps in) or a seat.
    - ``chip_memory``, ``behaviour``, ``reward``: as for the AEC env (``behaviour=True``: 445 values).
    - ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the learner's table), ``"human"`` (prints it)
      or ``"rgb_array"``: an image of the public table, uint8 (H, W, 3) of a size fixed per config, the
      learner's seat marked (:func:`~nothanks_env.render.render_rgb`: no hidden chip counts, not even the
      learner's, nor the deck or the removed cards), for Gymnasium's ``RecordVideo`` and SB3's
      ``make_vec_env``, which asks for it.
    - ``illegal_action``: ``"raise"`` (default: an action the mask forbids raises
      :class:`~nothanks_env.game.IllegalActionError`, state unchanged) or ``"penalty"``: it ends the episode
      with reward :data:`nothanks_env.env.ILLEGAL_REWARD` (-1) and ``info["illegal_action"] = True``, as the
      AEC env's ``env()`` does; for checkers and learners that sample without the mask (125 actions).

    ``info`` at every step: ``"action_mask"`` and ``"learner_seat"`` (int). ``reset(seed=...)`` seeds
    everything: the deals, the learner's seat and the stochastic opponents (those whose ``stochastic``
    flag is set: each is reseeded from the env's RNG); later unseeded resets continue from it.
    ``options={"deals": [...]}`` fixes the deals, as in the AEC env (any other key is refused). Invalid arguments raise
    :class:`~nothanks_env.game.RuleError` (or ``ValueError`` for a bad spec) naming what was wrong.

    ## Version History
    - v0: initial release; special cards (``wildcards``) added later in v0 (standard configs unchanged).

    Example:
        >>> import gymnasium, nothanks_env
        >>> env = gymnasium.make("nothanks/NoThanks-v0", num_players=3, opponents=["heuristic", "random"])
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, info["action_mask"].tolist()
        ((389,), [1, 1])
        >>> terminated = False
        >>> while not terminated:  # take every card
        ...     obs, reward, terminated, truncated, info = env.step(1)
        >>> bool(info["penalty"] == info["penalties"][info["learner_seat"]]), info["action_mask"].tolist()
        (True, [0, 0])
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}

    def __init__(
        self,
        num_players: int | None = None,
        preset: str | None = None,
        config: GameConfig | None = None,
        *,
        opponents: OpponentArg = None,
        learner_seat: int | None = None,
        chip_memory: bool = False,
        behaviour: bool = False,
        reward: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **rule_overrides: Any,
    ) -> None:
        self.config = resolve_config(num_players, preset, config, **rule_overrides)
        if not isinstance(behaviour, bool):
            raise RuleError(f"behaviour: expected True or False, got {behaviour!r}")
        check_options(chip_memory, reward, learner_seat, self.config)
        if illegal_action not in ("raise", "penalty"):
            raise RuleError(f"illegal_action: expected 'raise' or 'penalty', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self._illegal_end = False
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise RuleError(f"render_mode: expected None or one of {list(RENDER_MODES)}, got {render_mode!r}")
        n = self.config.num_players
        self.opponents = resolve_opponents(opponents, n, special_cards=bool(self.config.special_cards))
        self.learner_seat = learner_seat
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.reward_mode = reward
        self.render_mode = render_mode
        low, high = observation_bounds(self.config, behaviour)
        self._special = bool(self.config.special_cards)
        check_opponents(self.opponents, self.config)
        self.observation_space = spaces.Box(low, high, (len(low),), np.float32)
        self.action_space = spaces.Discrete(self.config.num_actions)
        self.game = Game(self.config)
        self.learner = 0
        self.opponent_decisions = 0
        """Opponent actions taken so far (all episodes)."""
        self._table = ObservationTable(self.game, chip_memory)
        self._by_seat: list[Policy | None] = [None] * n
        self._masks = (np.zeros(2, np.int8), np.array([0, 1], np.int8), np.ones(2, np.int8))

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start a new game; the opponents act up to the learner's first decision.

        Returns:
            (obs, info): float32 (OBS_SIZE,) and ``{"action_mask": int8 (2,), "learner_seat": int}``.

        Raises:
            RuleError: for a ``seed`` that is no int >= 0 (NumPy integers play; bools do not, as in the vector
                env), or bad ``options``; nothing is reset then.
        """
        # before any state changes
        seed = reset_seed(seed)  # in our words: Gymnasium refuses these (and NumPy ints) in its own
        deals = validate_deals(self.config, parse_deals(reset_options(options).get("deals")))
        super().reset(seed=seed)
        rng = self.np_random
        if seed is not None:
            seed_opponents(self.opponents, rng)
        n = self.config.num_players
        self._illegal_end = False
        for _ in range(MAX_UNPLAYED):
            self.game.reset(seed=int(rng.integers(SEED_BOUND)), deals=deals)
            self.learner = draw_learner_seat(self.learner_seat, n, rng)
            self._by_seat = [None] * n
            for k, pol in enumerate(self.opponents):
                self._by_seat[(self.learner + 1 + k) % n] = pol
            if not self._special:
                self._table.rebuild()
            self._play_opponents()
            if not self.game.is_over:
                break
        else:
            raise RuntimeError(
                f"reset: expected the learner to act in some game, got {MAX_UNPLAYED} games in a row that ended "
                "before its first decision (do opponents take every card from a fixed starting seat?)"
            )
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's decision, then the opponents' up to its next one (or the end of the game).

        Returns:
            (obs float32 (OBS_SIZE,), reward float, terminated, truncated (always False), info).

        Raises:
            IllegalActionError: for an action the mask forbids (other than 0/1, PASS at 0 chips, a bid too
                low, ...) unless ``illegal_action="penalty"``, or a step after the end (call ``reset()``);
                the state is unchanged. An opponent's illegal action (a PASS at 0 chips) is one too, naming
                the opponent and its seat.
            PolicyActionError: for an opponent's action that is no whole action id in range (``1.9``, ``2``;
                :func:`~nothanks_env.policy.act_one`), naming the opponent and its seat.
        """
        game = self.game
        if game.is_over or self._illegal_end:
            raise IllegalActionError("step: expected a game in progress, got none (call reset() first or again)")
        if type(action) is not int:
            integer = isinstance(action, np.integer) or (
                isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer)
            )
            if not integer:
                want = (
                    f"an int action id in 0..{self.config.num_actions - 1}" if self._special else "PASS (0) or TAKE (1)"
                )
                raise IllegalActionError(f"action: expected {want}, got {action!r}")
            action = int(action)
        seat, card = self.learner, (game.deck[0] if game.deck else -1)
        try:
            ended = game.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._illegal_end = True  # the documented penalty: the episode ends here, the state unchanged
            info = self._info() | {"illegal_action": True}
            return self._observation(), ILLEGAL_REWARD, True, False, info
        if not self._special:  # the table follows standard moves only; special configs encode afresh
            self._table.after_step(seat, action, card, ended)
        self._play_opponents()
        reward = 0.0
        info = self._info()
        if game.is_over:
            penalties = game.final_penalties()
            reward = reward_values(penalties, self.reward_mode)[self.learner]
            info |= end_info(penalties, self.learner)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, game.is_over, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner: bool (2,), [PASS, TAKE] (bool (125,) with special cards); all False
        once the game is over."""
        return self._mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's point of view (everything once the game is over), or with
        ``render_mode="rgb_array"`` the public table, the learner's seat marked: uint8 (H, W, 3)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; use render_mode='ansi', 'human' or 'rgb_array'."
            )
            return None
        if not self.game.deals:
            raise RuntimeError("render: expected reset() to have been called, got a game not yet dealt")
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, marked=self.learner)
        text = render_table(self.game.seat_view(self.learner), self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ internals
    def _mask(self) -> np.ndarray:
        game = self.game
        if self._special:
            mask = np.zeros(self.config.num_actions, np.int8)
            mask[list(game.legal_actions()) if not (game.is_over or self._illegal_end) else []] = 1
            return mask
        if game.is_over or self._illegal_end:
            return self._masks[0]
        return self._masks[1 if game.chips[self.learner] == 0 else 2]

    def _observation(self) -> np.ndarray:
        if self._special or self.behaviour:  # the table keeps the standard pieces only
            return enc.encode(self.game.seat_view(self.learner), self.chip_memory, behaviour=self.behaviour)
        return self._table.observation(self.learner)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask().copy(), "learner_seat": self.learner}

    def _play_opponents(self) -> None:
        game, table, learner = self.game, self._table, self.learner
        while not game.is_over and game.current_seat != learner:
            seat = game.current_seat
            pol = self._by_seat[seat]
            card = game.deck[0] if game.deck else -1  # a choice after a last special card has no card up
            try:  # bids and choices through the scalar entry point, pass/take from the game's BatchView
                action = act_one(pol, game)
                ended = game.step(action)
            except (PolicyActionError, IllegalActionError) as e:  # 1.9 refused, not cut to TAKE
                raise type(e)(f"opponent {getattr(pol, 'name', pol)!s} in seat {seat}: {e}") from e
            if not self._special:
                table.after_step(seat, action, card, ended)
            self.opponent_decisions += 1


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (entry point and vector entry point); idempotent."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="nothanks_env.gym_env:SingleAgentEnv",
            vector_entry_point="nothanks_env.gym_vector:NoThanksVectorEnv",
        )


__all__ = ["DEFAULT_OPPONENT", "ENV_ID", "SingleAgentEnv", "register", "resolve_opponents"]

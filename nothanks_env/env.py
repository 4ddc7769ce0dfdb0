"""PettingZoo AEC environment ``nothanks_v0``: :class:`raw_env`, and :func:`env` with the standard wrappers.

The rules live in :mod:`nothanks_env.game` and the observation layout in :mod:`nothanks_env.encoding`; this
module only adapts them to the PettingZoo API. Importing it registers ``"nothanks_v0"`` with PettingZoo's
registry (PettingZoo >= 1.27), so ``pettingzoo.make("aec", "nothanks_v0", num_players=4)`` works after
``import nothanks_env``.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from nothanks_env import encoding as enc
from nothanks_env.game import (
    MAX_CARD_VALUES,
    PASS,
    SPECIAL_CARDS,
    SPECIAL_NAMES,
    TAKE,
    Deal,
    Game,
    GameConfig,
    IllegalActionError,
    RuleError,
    validate_deals,
)
from nothanks_env.observer import ObservationTable
from nothanks_env.outcome import ENV_REWARDS, reward_values, reward_values_batch
from nothanks_env.presets import resolve_config
from nothanks_env.records import GameRecord, record_from_game
from nothanks_env.render import render_rgb, render_table
from nothanks_env.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

__all__ = [
    "ILLEGAL_REWARD",
    "PASS",
    "REWARD_MODES",
    "STATE_LAYOUT",
    "SPECIAL_STATE_LAYOUT",
    "STATE_SIZE",
    "TAKE",
    "env",
    "observation_bounds",
    "raw_env",
    "reward_values",
    "reward_values_batch",
]

REWARD_MODES: tuple[str, ...] = ENV_REWARDS
"""The ``reward`` modes this env takes; formulas, ranges and zero-sum flags in :mod:`nothanks_env.outcome`."""
RENDER_MODES: tuple[str, ...] = ("ansi", "human", "rgb_array")
"""The ``render_mode`` values of the AEC and the Gymnasium env (``None`` renders nothing)."""
RENDER_FPS: int = 4
"""``metadata["render_fps"]`` of both envs: decisions per second of a recorded video."""
ILLEGAL_REWARD: float = -1.0
"""Reward of the agent whose illegal action ends the game under :func:`env` (everyone else gets 0)."""

STATE_LAYOUT: tuple[enc.Piece, ...] = (
    enc.Piece("table", enc.OBS_SIZE, "observation of seat 0 with every seat's chips (absolute seat order)"),
    enc.Piece("removed_hidden", MAX_CARD_VALUES, "1 for each card removed face down"),
    enc.Piece("deck_order", MAX_CARD_VALUES, "position in the face-down deck / 33 (1 = next), 0 elsewhere"),
)
STATE_SIZE: int = sum(p.size for p in STATE_LAYOUT)
"""Length of the :meth:`raw_env.state` vector (OBS_SIZE + 66)."""
SPECIAL_STATE_LAYOUT: tuple[enc.Piece, ...] = (
    enc.Piece("table", enc.SPECIAL_OBS_SIZE, "as in STATE_LAYOUT, with the special pieces"),
    *STATE_LAYOUT[1:],
    enc.Piece("special_removed", len(SPECIAL_CARDS), "1 for each special card removed face down: wild, delete"),
    enc.Piece("special_deck_order", len(SPECIAL_CARDS), "position of each special card in the deck / 33"),
)
"""Layout of :meth:`raw_env.state` for a config with special cards (SPECIAL_OBS_SIZE + 70 values)."""


def state_layout(config: GameConfig) -> tuple[enc.Piece, ...]:
    """:data:`STATE_LAYOUT`, or :data:`SPECIAL_STATE_LAYOUT` for a config with special cards."""
    return SPECIAL_STATE_LAYOUT if config.special_cards else STATE_LAYOUT


def observation_bounds(config: GameConfig, behaviour: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of every observation value under ``config``: (low, high), float32, shape
    (obs_size(config, behaviour),).

    Every piece lies in [0, 1] except where ``config`` allows more, and the bounds never shrink below
    [0, 1]. Card points use an upper bound (the sum of the highest ``deck_size`` playable cards), not the
    exact maximum. Face-down cards reach (deck_size - 1) / 33, past 1 with both special cards and at most one
    card removed. Take deltas lie in [-highest_card, highest_card] / 35 (taking ``c`` next to ``c + 1``
    saves ``c + 1``); match penalties in [-all chips, max card points] x num_deals / 100. With ``behaviour``:
    a seat passes at most every chip on every card (deck_size x all chips), and costs lie in
    [-(highest_card + all chips), highest_card] / 35.
    """
    s = enc.SLICES
    size = enc.obs_size(config, behaviour)
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    chips = config.num_players * config.chips_per_player
    # a wild may take any value, a face-up removal's too
    playable = sorted(set(config.all_cards) - (set() if config.special_cards else set(config.removed_face_up)))
    max_points = sum(playable[-config.deck_size :])
    for name in ("pot", "own_chips", "seat_chips"):
        high[s[name]] = max(1.0, chips / enc.CHIP_SCALE)
    high[s["seat_card_points"]] = max(1.0, max_points / enc.POINT_SCALE)
    high[s["cards_in_deck"]] = max(1.0, (config.deck_size - 1) / enc.DECK_SCALE)  # one card is always face up
    low[s["seat_take_delta"]] = -config.highest_card / enc.CARD_SCALE
    high[s["seat_take_delta"]] = max(1.0, config.highest_card / enc.CARD_SCALE)
    low[s["seat_match_penalty"]] = -chips * config.num_deals / enc.POINT_SCALE
    high[s["seat_match_penalty"]] = max(1.0, max_points * config.num_deals / enc.POINT_SCALE)
    high[s["deals_left"]] = max(1.0, (config.num_deals - 1) / enc.DEALS_SCALE)
    if behaviour:
        b = enc.behaviour_slices(config)
        high[b["seat_passes"]] = max(1.0, config.deck_size * chips / enc.CHIP_SCALE)
        for name in ("seat_take_cost_max", "seat_take_raw_max", "seat_pass_cost_min", "seat_pass_raw_min"):
            low[b[name]] = -(config.highest_card + chips) / enc.CARD_SCALE
            high[b[name]] = max(1.0, config.highest_card / enc.CARD_SCALE)
    return low, high


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` inside PettingZoo's standard wrappers (classic-env order).

    ``TerminateIllegalWrapper(illegal_reward=-1)``: an action the mask forbids ends the game at once; the
    mover gets -1, every other agent 0, and a warning is logged. ``AssertOutOfBoundsWrapper``: an action
    outside ``Discrete(2)`` fails an assertion. ``OrderEnforcingWrapper``: use before ``reset()`` is an error.

    The wrappers are PettingZoo's classes, subclassed in :mod:`nothanks_env.wrappers` only to make their
    per-step attribute access cheap (PettingZoo's ``__getattr__`` chain costs ~40 us per decision).
    """
    e: AECEnv = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=ILLEGAL_REWARD)
    e = AssertOutOfBoundsWrapper(e)
    return OrderEnforcingWrapper(e)


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo naming convention
    """No Thanks! (Geschenkt) for 3 to 7 players, as a PettingZoo AEC environment.

    ## Description
    Cards 3..35 are shuffled and 9 are removed face down, unseen; 24 are played. The seat to act either
    passes ("No thanks!"), putting one chip on the face-up card, and the next seat clockwise acts; or takes
    the card with its chips, turns the next card and acts again. A seat with 0 chips must take. When the
    last card is taken, each seat's penalty is the sum of the lowest card of each run of consecutive cards
    it holds, minus its chips; lowest penalty wins, ties share the win. The starting seat is drawn from the
    seed unless the config fixes it. Opponents' chips are hidden (the published rule); since every chip
    movement is public, a player with perfect memory can count them, and ``chip_memory=True`` hands that
    count to memoryless policies. Variants (face-up removals, chips, card range, multi-deal matches) come
    from :class:`~nothanks_env.game.GameConfig` or a preset of :mod:`nothanks_env.presets`.

    ## Observation Space
    A dict, the same for every agent and every player count (absent seats are zero and marked absent):

    =============  ==========================================  ===================================
    key            space                                       meaning
    =============  ==========================================  ===================================
    observation    Box(low, high, (389,), float32)             pieces of ``encoding.LAYOUT``
    action_mask    Box(0, 1, (2,), int8)                       1 = legal; [PASS, TAKE]; all 0 when
                                                               the agent is not to act
    =============  ==========================================  ===================================

    The piece-by-piece table (names, sizes, units and scales) is in :mod:`nothanks_env.encoding`; the test
    suite holds that table, ``encoding.LAYOUT``, ``encoding.OBS_SIZE`` and this space to each other. Seat
    pieces are in seat order relative to the observer. Bounds come from :func:`observation_bounds`: [0, 1]
    except take deltas and match penalties (negative) and chip, point and penalty totals and the count of
    face-down cards that a config can push past 1. :meth:`state` returns the full state, hidden cards included
    (:data:`STATE_LAYOUT`).

    ## Action Space
    ``Discrete(2)``: ``PASS = 0`` ("No thanks!", costs one chip), ``TAKE = 1``. PASS is illegal at 0 chips.

    With special cards (the ``wildcards`` preset) the space is ``Discrete(125)``, the same for every player
    count, and ``action_mask`` (shape (125,)) is the only guide to what is legal in the current phase. The
    ranges are :data:`nothanks_env.game.ACTION_PIECES`:

    =========  =======  ================================================================
    ids        piece    meaning
    =========  =======  ================================================================
    0          pass     offer phase: "No thanks!"
    1          take     offer phase: take the card and its pot
    2..57      bid      auction: bid k = id - 2 chips (the opener's first bid may be 0;
                        later bids must beat the high bid; at most one's chips)
    58         drop     auction: drop out for good (not the opener before its first bid)
    59..91     value    choose_value: the wild counts as card lowest_card + id - 59
    92..124    delete   choose_discard: discard own number card lowest_card + id - 92
    =========  =======  ================================================================

    The observation then has 499 values: the 389 above followed by ``encoding.SPECIAL_LAYOUT`` (phase,
    auctioned card, high bid and bidder, who is still in, chips paid, the wild's holder and value, pending
    deletes, unseen special cards, discards). Standard configs keep the 389-value layout byte for byte.

    ## Rewards
    Paid once, when the match ends, to every agent at the same step (also to those who did not move
    last); 0 before. With n seats and match penalties p (penalty points, lower is better):

    - ``"win"`` (default): the k seats with the lowest penalty get +1/k each and the others -1/(n-k)
      each; if all n tie, everyone gets 0.
    - ``"rank"``: 1 - 2 (r - 1) / (n - 1), where r is the rank (1 = best) and tied seats share the average
      of their ranks; +1 for a sole winner, -1 for a sole last. Averaged ranks always sum to n(n+1)/2,
      so the rewards sum to 0 without further centring.
    - ``"penalty"``: mean(p) - p_i, in penalty points.

    Every mode is zero-sum; :mod:`nothanks_env.outcome` declares each one's range. (Self-play's
    ``win_share``, 1/k or 0, is a different reward and not a mode of this env.) At the end
    ``infos[agent]`` holds ``"penalty"`` (match total), ``"rank"`` (float, ties averaged), ``"winners"``
    (agent names) and ``"deal_penalties"`` (its penalty per deal).

    ## Episode End
    The episode (a match of ``num_deals`` deals) terminates for every agent when the last card of the last
    deal is taken; there is no truncation. Step each terminated agent with ``None`` as usual. An illegal
    action (PASS at 0 chips, anything but 0/1) raises :class:`~nothanks_env.game.IllegalActionError` in
    ``raw_env`` and leaves the state unchanged; :func:`env` instead ends the game with reward -1 for the
    mover and 0 for the others (PettingZoo's ``TerminateIllegalWrapper``).

    ## Arguments
    - ``num_players`` (int | None): 3..7; ``None`` keeps the preset's (3 for ``standard``).
    - ``preset`` (str | None): a name from :data:`nothanks_env.presets.PRESETS`.
    - ``config`` (GameConfig | None): a full config instead of a preset.
    - any GameConfig field as a keyword, overriding the preset or config: ``num_removed``,
      ``removed_face_up``, ``starting_chips``, ``lowest_card``, ``highest_card``, ``num_deals``,
      ``starting_seat``, ``opponent_chips`` (``"hidden"`` / ``"visible"``).
    - ``chip_memory`` (bool): fill opponents' chips from the public history (see encoding).
    - ``behaviour`` (bool): append every seat's public pass/take record of this deal
      (``encoding.BEHAVIOUR_LAYOUT``, 56 values: 445 in all, 555 with special cards). Off by default.
    - ``reward`` (str): ``"win"``, ``"rank"`` or ``"penalty"``.
    - ``render_mode`` (str | None): ``"ansi"`` returns the table as a string, ``"human"`` prints it,
      ``"rgb_array"`` returns an image of the public table, uint8 (H, W, 3)
      (:func:`~nothanks_env.render.render_rgb`: nobody's hidden chips, for videos).

    ``reset(seed=None, options=None)``: ``seed``, an int >= 0 as in the Gymnasium envs (:func:`reset_seed`), fixes
    the shuffles and the starting seat (the same seed gives the same deal as ``Game.reset(seed)``); later unseeded
    resets continue from it. ``options``
    may hold ``"deals"``: a list of :class:`~nothanks_env.game.Deal` or ``{"deck": [...],
    "removed_hidden": [...]}`` (deck[0] is turned first), one per deal or fewer (the rest are shuffled),
    for replays and duplicate-deal evaluation; any other key is refused except ``"options"``, which PettingZoo's
    ``api_test`` passes to check the signature and which is not used. Invalid arguments raise
    :class:`~nothanks_env.game.RuleError` naming the argument, the expected and the received value.

    ## Version History
    - v0: initial release.

    Example:
        >>> from nothanks_env import nothanks_v0
        >>> e = nothanks_v0.env(num_players=4, reward="rank")
        >>> e.reset(seed=42)
        >>> for agent in e.agent_iter():
        ...     obs, reward, terminated, truncated, info = e.last()
        ...     action = None if terminated else int(obs["action_mask"].argmax())  # pass when legal
        ...     e.step(action)
        ...     if terminated:
        ...         assert reward == 1 - 2 * (info["rank"] - 1) / 3
        >>> e.unwrapped.game.is_over, len(e.unwrapped.record().actions) > 24
        (True, True)
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "render_fps": RENDER_FPS,
        "name": "nothanks_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int | None = None,
        preset: str | None = None,
        config: GameConfig | None = None,
        *,
        chip_memory: bool = False,
        behaviour: bool = False,
        reward: str = "win",
        render_mode: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            num_players,
            preset,
            config,
            chip_memory=chip_memory,
            behaviour=behaviour,
            reward=reward,
            render_mode=render_mode,
            **rule_overrides,
        )
        super().__init__()
        self.config = resolve_config(num_players, preset, config, **rule_overrides)
        if not isinstance(chip_memory, bool):
            raise RuleError(f"chip_memory: expected True or False, got {chip_memory!r}")
        if not isinstance(behaviour, bool):
            raise RuleError(f"behaviour: expected True or False, got {behaviour!r}")
        if reward not in REWARD_MODES:
            raise RuleError(f"reward: expected one of {list(REWARD_MODES)}, got {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise RuleError(f"render_mode: expected None or one of {list(RENDER_MODES)}, got {render_mode!r}")
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.reward_mode = reward
        self.render_mode = render_mode
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = observation_bounds(self.config, behaviour)
        na = self.config.num_actions
        self._special = bool(self.config.special_cards)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, (len(low),), np.float32),
                    "action_mask": spaces.Box(0, 1, (na,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(na) for a in self.possible_agents}
        low, high = observation_bounds(self.config)  # the state holds no behaviour pieces
        # deck positions run up to the last face-down card's, deck_size - 1 (past 33 with both special cards)
        last = max(1.0, (self.config.deck_size - 1) / enc.DECK_SCALE)
        rest = [np.full(p.size, last if "deck_order" in p.name else 1.0) for p in state_layout(self.config)[1:]]
        self.state_space = spaces.Box(
            np.concatenate([low, np.zeros(sum(len(r) for r in rest))]).astype(np.float32),
            np.concatenate([high, *rest]).astype(np.float32),
        )
        self.game = Game(self.config)
        self._seed_rng: random.Random | None = None
        self._seed: int | None = None
        self._table = ObservationTable(self.game, chip_memory)
        self._masks = (np.zeros(2, np.int8), np.array([0, 1], np.int8), np.ones(2, np.int8))

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Every argument is checked before any state changes: a refused reset leaves the env as it was.
        deals = validate_deals(
            self.config, parse_deals(reset_options(options, probe_key=API_TEST_PROBE_KEY).get("deals"))
        )
        seed = reset_seed(seed)
        if seed is not None:
            self._seed_rng = random.Random(seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = random.Random()
            seed = self._seed_rng.getrandbits(63)
        self._seed = seed
        self.game.reset(seed=seed, deals=deals)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_seat]
        if not self._special:
            self._table.rebuild()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        done = self.terminations.get(agent)
        if done is None:
            raise IllegalActionError("step: expected a live agent, got none left (the match is over; call reset())")
        if done or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            if not isinstance(action, np.integer):
                raise IllegalActionError(f"{agent}: action: expected an action id (int), got {action!r}")
            action = int(action)
        game = self.game
        seat = game.current_seat
        card = game.deck[0] if game.deck else -1  # a choice after a last special card has no card up
        try:
            deal_ended = game.step(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"{agent}: {e}") from e
        self._cumulative_rewards[agent] = 0.0
        if not self._special:  # the table follows standard moves only; special configs encode afresh
            self._table.after_step(seat, action, card, deal_ended)
        if game.is_over:
            self._end_match()
        if not game.is_over:
            self.agent_selection = self.possible_agents[game.current_seat]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 (OBS_SIZE,), "action_mask": int8 (2,)}`` for ``agent``, fresh arrays
        (``(SPECIAL_OBS_SIZE,)`` and ``(125,)`` with special cards).

        Equal to ``encoding.encode(game.seat_view(seat), chip_memory, behaviour=behaviour)`` and
        ``encoding.action_mask(...)`` (the tests hold them equal), from a table kept up to date move by move
        (:mod:`nothanks_env.observer`); with special cards or ``behaviour``, encoded afresh.
        """
        seat = self._seat[agent]
        game = self.game
        if self._special or self.behaviour:
            view = game.seat_view(seat)
            obs = enc.encode(view, self.chip_memory, behaviour=self.behaviour)
            return {"observation": obs, "action_mask": enc.action_mask(view)}
        if game.is_over or seat != game.current_seat:
            mask = self._masks[0]
        else:
            mask = self._masks[1 if game.chips[seat] == 0 else 2]
        return {"observation": self._table.observation(seat), "action_mask": mask.copy()}

    def state(self) -> np.ndarray:
        """Full state, hidden information included: float32, shape (STATE_SIZE,); see :data:`STATE_LAYOUT`
        (with special cards: :data:`SPECIAL_STATE_LAYOUT`).

        ``table`` equals ``encoding.encode(game.seat_view(0), chip_memory=True)``, so its seat pieces are in
        absolute seat order. ``game.state()`` gives the same as plain data (dict) for debugging.
        """
        game = self.game
        cfg = self.config
        lo = cfg.lowest_card
        size = enc.obs_size(cfg)
        out = np.zeros(self.state_space.shape[0], dtype=np.float32)
        if self._special:
            enc.encode(game.seat_view(0), chip_memory=True, out=out[:size])
        else:
            out[:size] = self._table.full_table()
        base, special = size, size + 2 * MAX_CARD_VALUES
        for c in game.removed_hidden:
            if c >= 0:
                out[base + c - lo] = 1.0
            else:
                out[special + SPECIAL_CARDS.index(SPECIAL_NAMES[c])] = 1.0
        base += MAX_CARD_VALUES
        if not game.is_over:
            for i, c in enumerate(game.deck[1:], start=1):
                if c >= 0:
                    out[base + c - lo] = i / enc.DECK_SCALE
                else:
                    out[special + len(SPECIAL_CARDS) + SPECIAL_CARDS.index(SPECIAL_NAMES[c])] = i / enc.DECK_SCALE
        return out

    def render(self) -> str | np.ndarray | None:
        """The table (see :func:`~nothanks_env.render.render_table`) from the seat to act's point of view, or with
        ``render_mode="rgb_array"`` the public table as uint8 (H, W, 3) (:func:`~nothanks_env.render.render_rgb`)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; use render_mode='ansi', 'human' or 'rgb_array'."
            )
            return None
        game = self.game
        if not game.deals:
            raise RuntimeError("render: expected reset() to have been called, got a game not yet dealt")
        if self.render_mode == "rgb_array":
            return render_rgb(game)
        text = render_table(None if game.is_over else game.seat_view(game.current_seat), game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ extras
    def record(self) -> GameRecord:
        """The game so far (or finished) as a :class:`~nothanks_env.records.GameRecord`, JSON-exportable."""
        return record_from_game(self.game, seed=self._seed, agents=self.possible_agents)

    # ------------------------------------------------------------------ internals
    def _end_match(self) -> None:
        game = self.game
        penalties = game.final_penalties()
        ranks, winners = game.ranks_and_winners()
        winner_names = [self.possible_agents[w] for w in winners]
        for seat, (agent, r) in enumerate(zip(self.possible_agents, reward_values(penalties, self.reward_mode))):
            self.rewards[agent] = r
            self.terminations[agent] = True
            self.infos[agent] = {
                "penalty": penalties[seat],
                "rank": ranks[seat],
                "winners": winner_names,
                "deal_penalties": [d[seat] for d in game.deal_penalties],
            }
        self._accumulate_rewards()


RESET_OPTIONS: tuple[str, ...] = ("deals",)
"""The keys ``reset(options=...)`` of the AEC and the Gymnasium env accept."""

API_TEST_PROBE_KEY = "options"
"""The key PettingZoo's ``api_test`` (and ``parallel_api_test``) puts in ``reset(options=...)`` only to check that
``reset`` takes an ``options`` argument (``options={"options": 1}``); the AEC env passes it over."""


def reset_options(
    options: Any, *, probe_key: str | None = None, accepted: tuple[str, ...] = RESET_OPTIONS
) -> dict[str, Any]:
    """``options`` of ``reset()`` checked: a dict whose keys are all in ``accepted``, or None (``{}``).

    Args:
        options: what the caller passed.
        probe_key: one more key taken and not used (the AEC env passes :data:`API_TEST_PROBE_KEY`), or None.
        accepted: the keys taken (default :data:`RESET_OPTIONS`; the vector env takes ``"reset_mask"``).

    Raises:
        RuleError: if ``options`` is not a dict or None, or holds a key not in ``accepted`` (a typo such as
            ``"deal"`` would otherwise be ignored and the deals shuffled).
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise RuleError(f"options: expected a dict or None, got {options!r}")
    unknown = [k for k in options if k not in accepted and k != probe_key]
    if unknown:
        raise RuleError(
            f"options: expected keys among {', '.join(map(repr, accepted))}, "
            f"got unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}"
        )
    return options


def reset_seed(seed: Any, name: str = "seed", *, list_entry: bool = False) -> int | None:
    """``seed`` of ``reset()`` checked, in the words of every env (the AEC, the single-agent and the vector env):
    None, or an int >= 0 (a NumPy integer plays, as that int; a bool does not).

    Args:
        seed: what the caller passed.
        name: how the message names it (the vector env names a list entry ``seed[i]``).
        list_entry: the seed is one entry of the vector env's list, where None is also taken (said on a
            negative one: ``seed[1]: expected an int >= 0 or None, got -1``).

    Returns:
        The seed as a Python int, or None.

    Raises:
        RuleError: ``seed: expected an int or None, got 1.5`` (also for ``True``), ``seed: expected an int >= 0,
            got -1`` (Gymnasium's seeding takes no negative seed, and ``random.Random(-1)`` would play seed 1).
    """
    if seed is None:
        return None
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise RuleError(f"{name}: expected an int or None, got {seed!r}")
    if seed < 0:
        raise RuleError(f"{name}: expected an int >= 0{' or None' if list_entry else ''}, got {seed!r}")
    return int(seed)


def parse_deals(deals: Any) -> list[Deal] | None:
    """``options["deals"]`` of ``reset()``: None, or a list of :class:`Deal` or ``{"deck", "removed_hidden"}`` dicts.

    Raises:
        RuleError: naming the entry that is neither.
    """
    if deals is None:
        return None
    if not isinstance(deals, (list, tuple)):
        raise RuleError(f"options['deals']: expected a list of Deal or dict, got {type(deals).__name__}")
    out = []
    for i, d in enumerate(deals):
        if isinstance(d, Deal):
            out.append(d)
        elif (
            isinstance(d, dict)
            and set(d) == {"deck", "removed_hidden"}
            and all(isinstance(d[k], (list, tuple)) for k in ("deck", "removed_hidden"))
        ):
            out.append(Deal(tuple(d["deck"]), tuple(d["removed_hidden"])))
        else:
            raise RuleError(
                f"options['deals'][{i}]: expected a Deal or {{'deck': [...], 'removed_hidden': [...]}}, got {d!r}"
            )
    return out


def _register() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return
    if "nothanks-v0" not in aec_registry:
        register("aec", "nothanks_v0", entry_point="nothanks_env.env:env")


_register()

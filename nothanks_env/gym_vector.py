"""Gymnasium vector env over the batched engine: ``num_envs`` learner games, opponents batched per round.

:class:`NoThanksVectorEnv` is what ``gymnasium.make_vec("nothanks/NoThanks-v0", num_envs=N,
vectorization_mode="vector_entry_point", ...)`` builds. Sub-env ``i`` behaves exactly as a
:class:`~nothanks_env.gym_env.SingleAgentEnv` with the same arguments reset with seed ``seed + i``, and the
whole batch steps as ``gymnasium.vector.SyncVectorEnv`` of those envs would, autoreset included (a test
holds them equal step by step, observations, rewards and infos). It runs on
:class:`~nothanks_env.table.LearnerTable`, the machinery of self-play's fast path: one
:class:`~nothanks_env.vector.VectorGame` for all sub-envs, and each round of opponent decisions is one
batched call per opponent policy.

Opponents and randomness. A deterministic opponent (``policy.stochastic`` False) is one instance shared
by every sub-env, so it acts for all of them in one call. A stochastic one (``random``, ``stochastic``,
``search``, sampling checkpoints) gets one copy per sub-env by default (``opponent_rng="per_env"``), seeded
from that sub-env's seed, so each sub-env's games depend on its own seed alone; it then acts with one call
per sub-env. ``opponent_rng="shared"`` batches it too: one instance for all sub-envs, drawing from one RNG
(still reproducible from the seeds, but a sub-env's opponents no longer act as in a single env).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nothanks_env.env import observation_bounds, reset_options, reset_seed
from nothanks_env.game import PASS, TAKE, Game, GameConfig, IllegalActionError, RuleError
from nothanks_env.gym_env import (
    SEED_BOUND,
    OpponentArg,
    check_opponents,
    check_options,
    draw_learner_seat,
    end_info,
    resolve_opponents,
    seed_opponents,
)
from nothanks_env.outcome import reward_values_batch
from nothanks_env.policy import Policy
from nothanks_env.presets import resolve_config
from nothanks_env.table import Finished, LearnerTable

AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)
VECTOR_RESET_OPTIONS: tuple[str, ...] = ("reset_mask",)
"""The keys ``NoThanksVectorEnv.reset(options=...)`` accepts."""
OPPONENT_RNG = ("per_env", "shared")
END_KEYS = ("penalty", "rank", "penalties")
"""Keys that the step ending a game adds to its sub-env's info."""


class NoThanksVectorEnv(VectorEnv):
    """``num_envs`` independent :class:`~nothanks_env.gym_env.SingleAgentEnv` games on the batched engine.

    ## Spaces
    ``single_observation_space`` and ``single_action_space`` are the single env's (``Box`` float32 (389,),
    ``Discrete(2)``); ``observation_space`` is float32 (num_envs, 389) and ``action_space``
    ``MultiDiscrete([2] * num_envs)``.

    ## Step
    ``step(actions)`` takes int (num_envs,), PASS (0) or TAKE (1) per sub-env, and returns observations
    float32 (num_envs, 389), rewards float64 (num_envs,), terminations bool (num_envs,), truncations
    (always False) and infos. Rewards, episode ends and info values are the single env's. ``infos`` is
    Gymnasium's dict of arrays: ``"action_mask"`` int8 (num_envs, 2) and ``"learner_seat"`` int64
    (num_envs,) always; ``"penalty"``, ``"rank"``, ``"penalties"`` (num_envs, num_players) for games that
    ended, each key ``k`` with a bool mask ``"_k"`` of the sub-envs that have it. :meth:`action_masks`
    gives the current masks as bool (num_envs, 2).

    ## Autoreset (Gymnasium 1.x, ``metadata["autoreset_mode"]``)
    - ``"NextStep"`` (default, as ``SyncVectorEnv``): the step that ends a game returns its final
      observation (all-zero mask); the sub-env's *next* step ignores its action and returns the first
      observation of a new game with reward 0 and ``terminated`` False.
    - ``"SameStep"``: the step that ends a game already returns the new game's first observation;
      ``infos["final_obs"]`` (object array) and ``infos["final_info"]`` (dict of arrays) hold the final
      observation and info, with masks ``_final_obs`` / ``_final_info``. Every step is a learner decision.
    - ``"Disabled"``: the step that ends a game returns its final observation, as in ``"NextStep"``; the
      sub-env then stays over until ``reset(options={"reset_mask": terminations})`` starts its next game.
      A ``step`` while a sub-env is over raises :class:`~nothanks_env.game.IllegalActionError` naming it.

    ## Reset
    ``reset(seed=s)`` resets sub-env ``i`` with seed ``s + i`` (a list gives one seed per sub-env, ``None``
    entries continue their RNG). ``reset(seed=..., options={"reset_mask": mask})``, mask a bool NumPy array
    (num_envs,) with at least one True, resets only the sub-envs where it is True, as ``SyncVectorEnv`` does:
    each with its entry of the seeds (``s + i`` for an int seed, the others' seeds are not used), the others
    untouched. The observations are then every sub-env's (the others' as the last step returned them) and
    the infos only the reset sub-envs' (``infos["_action_mask"]`` is ``mask``; the other rows are zero).
    ``options`` takes no other key. The caller's ``options`` dict is not changed (``SyncVectorEnv`` pops
    ``"reset_mask"`` from it). With ``opponent_rng="shared"`` a seed reseeds the shared stochastic opponents,
    which play in every sub-env.

    ## Arguments
    ``num_envs`` (>= 1), ``autoreset_mode`` (``AutoresetMode`` or its value), ``opponent_rng``
    (``"per_env"`` or ``"shared"``, see the module docstring), and every argument of
    :class:`~nothanks_env.gym_env.SingleAgentEnv` except ``render_mode`` (``None`` only). Configs must be
    single deals (``num_deals=1``): for matches use ``vectorization_mode="sync"``.

    Bad arguments raise :class:`~nothanks_env.game.RuleError` naming them.

    Example:
        >>> import gymnasium, numpy as np, nothanks_env
        >>> envs = gymnasium.make_vec("nothanks/NoThanks-v0", num_envs=4, vectorization_mode="vector_entry_point",
        ...                           opponents="heuristic", autoreset_mode="SameStep")
        >>> obs, infos = envs.reset(seed=0)
        >>> obs.shape, infos["action_mask"].shape
        ((4, 389), (4, 2))
        >>> for _ in range(50):
        ...     obs, rewards, terminations, truncations, infos = envs.step(np.ones(4, dtype=np.int64))
        >>> bool(infos["action_mask"][:, 1].all())  # every sub-env waits for a decision in SameStep mode
        True
    """

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int | None = None,
        preset: str | None = None,
        config: GameConfig | None = None,
        *,
        opponents: OpponentArg = None,
        learner_seat: int | None = None,
        chip_memory: bool = False,
        behaviour: bool = False,
        reward: str = "win",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        opponent_rng: Literal["per_env", "shared"] = "per_env",
        render_mode: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise RuleError(f"num_envs: expected an int >= 1, got {num_envs!r}")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in AUTORESET_MODES:
            raise RuleError(
                f"autoreset_mode: expected one of {[m.value for m in AUTORESET_MODES]}, got {autoreset_mode!r}"
            )
        if opponent_rng not in OPPONENT_RNG:
            raise RuleError(f"opponent_rng: expected one of {list(OPPONENT_RNG)}, got {opponent_rng!r}")
        if render_mode is not None:
            raise RuleError(f"render_mode: expected None (render a SingleAgentEnv instead), got {render_mode!r}")
        cfg = resolve_config(num_players, preset, config, **rule_overrides)
        if cfg.num_deals != 1:
            raise RuleError(
                f"num_deals: expected 1 (the batched engine plays single deals; for matches use "
                f"vectorization_mode='sync'), got {cfg.num_deals}"
            )
        check_options(chip_memory, reward, learner_seat, cfg)
        if not isinstance(behaviour, bool):
            raise RuleError(f"behaviour: expected True or False, got {behaviour!r}")
        self.config = cfg
        self.num_envs = int(num_envs)
        self.learner_seat = learner_seat
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.reward_mode = reward
        self.render_mode = None
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        n = cfg.num_players
        low, high = observation_bounds(cfg, behaviour)
        self.single_observation_space = spaces.Box(low, high, (len(low),), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        # Opponent instances: one shared per deterministic policy, one copy per sub-env per stochastic one
        # (unless opponent_rng="shared"). A sub-env seeds its stochastic opponents as a single env does.
        base = resolve_opponents(opponents, n, special_cards=bool(cfg.special_cards))
        check_opponents(base, cfg)
        self.policies: list[Policy] = []
        """Every opponent instance; the ids of the table index this list."""
        self.slot_ids = np.zeros((self.num_envs, n - 1), dtype=np.int64)
        """int64 (num_envs, num_players - 1): policy id of each sub-env's opponent slot (see SingleAgentEnv)."""
        shared: dict[int, int] = {}
        for i in range(self.num_envs):
            memo: dict[int, Any] = {}  # one deepcopy per sub-env keeps policies shared between its seats shared
            mine: dict[int, int] = {}
            for k, pol in enumerate(base):
                ids = mine if opponent_rng == "per_env" and getattr(pol, "stochastic", False) else shared
                if id(pol) not in ids:
                    ids[id(pol)] = len(self.policies)
                    self.policies.append(copy.deepcopy(pol, memo) if ids is mine else pol)
                self.slot_ids[i, k] = ids[id(pol)]

        self._rngs = [seeding.np_random(None)[0] for _ in range(self.num_envs)]
        self._scratch = Game(cfg)
        self.table = LearnerTable(
            cfg,
            self.num_envs,
            policy=self.policies.__getitem__,
            seat=self._seat,
            deal=self._deal,
            chip_memory=chip_memory,
            behaviour=behaviour,
            final_observations=True,
        )
        self._pending = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP / DISABLED: sub-envs whose game ended
        self._final_obs = np.zeros((self.num_envs, len(low)), dtype=np.float32)  # their final observations
        self._started = False

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game in every sub-env, or in those ``options["reset_mask"]`` selects (see "Reset" in the
        class docstring).

        Returns:
            (obs float32 (num_envs, obs_size), infos): ``infos`` as a step's, for the reset sub-envs only.

        Raises:
            RuleError: for a bad ``seed`` (one that is no int >= 0; a list entry that is no int >= 0 or None is
                named by its index), ``options`` that are not a dict, a key other than ``"reset_mask"``, a mask
                that is no bool NumPy array (num_envs,) with a True, or a partial reset before the first full one;
                nothing is reset then.
        """
        chosen = self._reset_mask(reset_options(options, accepted=VECTOR_RESET_OPTIONS).get("reset_mask"))
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            reset_seed(seed)  # a negative one refused in the words of every env's reset
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, (list, tuple)):
            if len(seed) != self.num_envs:
                raise RuleError(f"seed: expected a list of {self.num_envs} ints or None, got {len(seed)}: {seed!r}")
            seeds = [reset_seed(s, f"seed[{i}]", list_entry=True) for i, s in enumerate(seed)]
        else:
            raise RuleError(f"seed: expected None, an int or a list of {self.num_envs} ints or None, got {seed!r}")
        reset = np.ones(self.num_envs, dtype=bool) if chosen is None else chosen
        # An ended game's row already holds the next game, drawn from its RNG as a single env's reset() draws it
        # (NextStep, Disabled): without a new seed that game is the reset's; every other reset row deals anew.
        deal = reset & ~self._pending
        for i in np.flatnonzero(reset).tolist():
            if seeds[i] is not None:
                self._rngs[i] = seeding.np_random(int(seeds[i]))[0]
                seed_opponents([self.policies[j] for j in self.slot_ids[i]], self._rngs[i])
                deal[i] = True
        self.table.new_games(deal)
        self.table.advance()  # only the new games have opponents to act: every other row waits for its learner
        self._pending &= ~reset
        self._started = True
        obs, mask = self.table.observe()
        if chosen is None:
            return obs, self._infos(mask, self.table.learner.copy())
        obs[self._pending] = self._final_obs[self._pending]  # ended, not reset: still their final observation
        mask[~chosen] = 0
        rows = np.flatnonzero(chosen)
        return obs, self._infos(mask, self.table.learner[rows], rows)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision in every sub-env (a reset instead where NextStep autoreset is due).

        Raises:
            IllegalActionError: for a shape other than (num_envs,), an action other than 0/1, or PASS at
                0 chips (naming the sub-env), or, with ``autoreset_mode="Disabled"``, sub-envs whose game
                ended and that were not reset since (naming them); nothing is stepped then.
            RuntimeError: before the first ``reset()``.
        """
        if not self._started:
            raise RuntimeError("step: expected reset() to have been called first, got step() before it")
        autoreset = self.metadata["autoreset_mode"]
        if autoreset is AutoresetMode.DISABLED and self._pending.any():
            raise IllegalActionError(
                f"step: expected a game in progress in every sub-env (autoreset_mode 'Disabled'), got sub-envs "
                f"{np.flatnonzero(self._pending).tolist()} whose game ended; reset them first with "
                f"reset(options={{'reset_mask': mask}})"
            )
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(
                f"actions: expected ints of shape ({self.num_envs},), got {acts.dtype} of shape {acts.shape}"
            )
        live = ~self._pending
        bad = live & (acts != PASS) & (acts != TAKE)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(f"actions[{i}]: expected PASS (0) or TAKE (1), got {acts[i]!r}")
        fin = self.table.step(acts.astype(np.int64), which=live)
        obs, mask = self.table.observe()
        learner = self.table.learner.copy()
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        rows = fin.rows
        if len(rows):
            rewards[rows] = reward_values_batch(fin.penalties, self.reward_mode)[np.arange(len(rows)), fin.learner]
            terminated[rows] = True
        if autoreset is not AutoresetMode.SAME_STEP:
            # finished sub-envs show the end now and their new game (dealt already) at their next step or reset
            if len(rows):
                obs[rows] = self._final_obs[rows] = fin.observation
                mask[rows] = 0
                learner[rows] = fin.learner
            infos = self._infos(mask, learner)
            self._add_end(infos, fin)
            self._pending = terminated.copy()
        else:
            infos = self._infos(mask, learner)
            if len(rows):
                final = self._infos(np.zeros_like(mask), fin.learner, rows)
                self._add_end(final, fin)
                final_obs = np.full(self.num_envs, None, dtype=object)
                for k, r in enumerate(rows.tolist()):
                    final_obs[r] = fin.observation[k]
                infos |= {"final_obs": final_obs, "_final_obs": terminated.copy()}
                infos |= {"final_info": final, "_final_info": terminated.copy()}
        return obs, rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every sub-env: bool (num_envs, 2), [PASS, TAKE]."""
        _, mask = self.table.observe()
        mask[self._pending] = 0  # always False in SameStep mode
        return mask.astype(bool)

    @property
    def opponent_decisions(self) -> int:
        """Opponent actions taken so far, every sub-env."""
        return self.table.opponent_decisions

    def _reset_mask(self, mask: Any) -> np.ndarray | None:
        """``options["reset_mask"]`` checked as ``SyncVectorEnv`` checks it (None when absent): a copy."""
        if mask is None:
            return None
        n = self.num_envs
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,):
            got = f"{mask.dtype} array of shape {mask.shape}" if isinstance(mask, np.ndarray) else repr(mask)
            raise RuleError(f"options['reset_mask']: expected a bool NumPy array of shape ({n},), got {got}")
        if not mask.any():
            raise RuleError(
                f"options['reset_mask']: expected at least one True (a sub-env to reset), got {mask.tolist()}"
            )
        if not self._started:
            raise RuleError(
                "options['reset_mask']: expected a full reset() first (the other sub-envs have no game yet), got "
                "a partial reset before it"
            )
        return mask.copy()

    # ------------------------------------------------------------------ table callbacks
    def _deal(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each sub-env's deal from its own RNG, drawn as SingleAgentEnv draws it (through a scalar Game)."""
        cfg, g = self.config, self._scratch
        deck = np.zeros((len(idx), cfg.deck_size), dtype=np.int64)
        hidden = np.zeros((len(idx), cfg.num_removed), dtype=np.int64)
        first = np.zeros(len(idx), dtype=np.int64)
        for j, i in enumerate(idx.tolist()):
            g.reset(seed=int(self._rngs[i].integers(SEED_BOUND)))
            deck[j], hidden[j], first[j] = g.deals[0].deck, g.deals[0].removed_hidden, g.current_seat
        return deck, hidden, first

    def _seat(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = self.config.num_players
        learner = np.array([draw_learner_seat(self.learner_seat, n, self._rngs[i]) for i in idx.tolist()])
        learner = learner.astype(np.int64).reshape(len(idx))
        opponents = np.full((len(idx), n), -1, dtype=np.int64)
        rows = np.arange(len(idx))
        for k in range(n - 1):
            opponents[rows, (learner + 1 + k) % n] = self.slot_ids[idx, k]
        return learner, opponents

    # ------------------------------------------------------------------ infos
    def _infos(self, mask: np.ndarray, learner: np.ndarray, rows: np.ndarray | None = None) -> dict[str, Any]:
        """``action_mask`` and ``learner_seat`` for every sub-env (or only ``rows``), in Gymnasium's layout."""
        present = np.ones(self.num_envs, dtype=bool)
        if rows is None:
            return {"action_mask": mask, "_action_mask": present, "learner_seat": learner, "_learner_seat": present}
        present[:] = False
        present[rows] = True
        seats = np.zeros(self.num_envs, dtype=np.int64)
        seats[rows] = learner
        return {"action_mask": mask, "_action_mask": present, "learner_seat": seats, "_learner_seat": present.copy()}

    def _add_end(self, infos: dict[str, Any], fin: Finished) -> None:
        """The end-of-game keys (:data:`END_KEYS`) for the sub-envs whose game ended in ``fin``."""
        if not len(fin):
            return
        n = self.config.num_players
        ends = [end_info(p, s) for p, s in zip(fin.penalties.tolist(), fin.learner.tolist())]
        arrays = {
            "penalty": np.zeros(self.num_envs, dtype=np.int64),
            "rank": np.zeros(self.num_envs, dtype=np.float64),
            "penalties": np.zeros((self.num_envs, n), dtype=np.int64),
        }
        for r, e in zip(fin.rows.tolist(), ends):
            for key in END_KEYS:
                arrays[key][r] = e[key]
        present = np.zeros(self.num_envs, dtype=bool)
        present[fin.rows] = True
        for key in END_KEYS:
            infos[key] = arrays[key]
            infos[f"_{key}"] = present.copy()

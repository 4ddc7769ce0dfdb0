"""Typed, validated configuration of a self-play run: YAML files in ``configs/`` plus command-line overrides.

A config is a tree of pydantic models. Every section forbids unknown keys and checks types and ranges,
so a typo or a wrong type fails at start-up with the offending dotted key in the message, never hours
into a run. Any value can be overridden on the command line::

    python -m training.selfplay configs/selfplay.yaml --set ppo.learning_rate=1e-4 --run.seed 3

An override is ``KEY.PATH=VALUE``: the key's parts are split at ``.``, key and value at the first ``=``, and
the value is read as YAML, as the files are: with YAML 1.2's rules for numbers and booleans, so that ``010``,
``0x10``, ``1:30`` and ``yes`` are text that a number or boolean key refuses, not 8, 16, 90 and true
(:class:`ConfigLoader`). A key part that holds ``.`` or ``=`` itself (a policy spec such as
``threshold:T=2`` among the pool's entries) is written in double quotes, taken literally::

    --set 'pool.scripted."threshold:T=2"=1.5' --set 'pool.league.targets."ratio:r=0.3"=0.8'

Units: "steps" are *learner steps* (decisions of the training seat; SB3's ``num_timesteps``), never
decisions of opponents.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS, GameConfig, RuleError, did_you_mean
from nothanks_env.outcome import selfplay_reward
from nothanks_env.presets import PRESETS, preset_problem
from nothanks_env.vector import require_batched

CONFIG_DIR: Path = Path(__file__).resolve().parents[2] / "configs"
DEFAULT_CONFIG: Path = CONFIG_DIR / "selfplay.yaml"


# ------------------------------------------------------------------ how config text is read (files and --set)
# One rule for config files and override values: YAML 1.2's core schema for plain scalars. A number is decimal as
# written (``10``, ``-3``, ``1.5``, ``1e-4``, and ``6_000_000`` as Python reads it: the shipped configs write their
# step counts so); a boolean is ``true`` or ``false`` (``True``, ``TRUE``, ...); ``null`` and ``~`` are null. YAML 1.1
# (PyYAML's default) also read ``010`` as octal 8, ``0x10`` as 16, ``1:30`` as 90 and ``yes``/``no``/``on``/``off`` as
# booleans: those stay text here, so that a text key (a run name) gets what was written and a number or boolean key
# refuses them, saying how to write it (PLAIN_DECIMAL_HINT).
_DIGITS = r"[0-9]+(?:_[0-9]+)*"  # '_' between digits only, as in Python
_YAML12_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_YAML12_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*(?:_[0-9]+)*)$")  # YAML 1.2 core without leading zeros, 0o, 0x
_YAML12_FLOAT = re.compile(
    rf"^(?:[-+]?(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:[eE][-+]?[0-9]+)?|[-+]?{_DIGITS}[eE][-+]?[0-9]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
PLAIN_DECIMAL_HINT = "no leading zeros, 0x/0o/0b prefixes or ':'; '_' only between digits"
"""Why a number key refuses ``010``, ``0x10``, ``0o10`` or ``1:30`` (:func:`_not_plain_decimal`)."""
_YAML11_ONLY_BOOL = frozenset({"yes", "no", "on", "off", "y", "n"})
"""Text (in any case) YAML 1.1 read as a boolean and the config does not."""
_YAML11_NUMBER_TAGS = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})


def _not_plain_decimal(value: Any) -> bool:
    """Whether ``value`` is text a number key refuses with :data:`PLAIN_DECIMAL_HINT`: text that YAML 1.1 read as a
    number and the config does not (``'010'``, ``'0x10'``, ``'1:30'``, ``'1__0'``), a leading zero (``'09'``, text
    under YAML 1.1 too) or an ``0o`` / ``0x`` number of YAML 1.2's core schema (``'0o10'``)."""
    if not isinstance(value, str) or _YAML12_INT.match(value) or _YAML12_FLOAT.match(value):
        return False
    if re.fullmatch(r"[-+]?(?:0[0-9_]+|0[xXoObB][0-9a-fA-F_]+)", value):  # leading zero; YAML 1.2's 0o10, 0x10
        return True
    return yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False)) in _YAML11_NUMBER_TAGS


def _plain_number(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got the boolean {value}")
    if _not_plain_decimal(value):
        raise ValueError(f"expected a number in plain decimal ({PLAIN_DECIMAL_HINT}), got {value!r}")
    return value


Int = StrictInt
"""An int key: ``true``, ``3.0`` or ``"3"`` are refused (pydantic's lax mode read ``true`` as 1)."""
Bool = StrictBool
"""A boolean key: ``1`` or ``"yes"`` are refused."""
Float = Annotated[float, BeforeValidator(_plain_number), Field(allow_inf_nan=False)]
"""A finite float key: ints and numeric strings (``"1e-4"`` quoted) pass; booleans, NaN, infinities and text that
is no plain decimal number (``010``, ``1:30.5``: :data:`PLAIN_DECIMAL_HINT`) do not."""


def runs_dir_problem(runs_dir: str | Path) -> str | None:
    """The error for a ``run.runs_dir`` that names no folder (empty or blank text), or None.

    >>> runs_dir_problem("")
    "expected the path of a folder to hold the run folders (e.g. runs), got ''"
    """
    if isinstance(runs_dir, str) and not runs_dir.strip():
        return f"expected the path of a folder to hold the run folders (e.g. runs), got {runs_dir!r}"
    return None


class ConfigError(ValueError):
    """A config file or override that cannot be read or does not validate; the message names the key."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class RunSection(_Section):
    """Run bookkeeping: name, seed, length, checkpoint cadence, output folder."""

    name: str = Field("selfplay", pattern=r"^[A-Za-z0-9_.-]+$")
    seed: Int = Field(0, ge=0, description="the run's random seed")
    total_timesteps: Int = Field(
        5_000_000,
        ge=1,
        description="learner steps in all (a resume continues to this); at least one PPO rollout "
        "(env.games_per_count x player counts x ppo.n_steps), as training goes in whole rollouts",
    )
    checkpoint_every: Int = Field(500_000, ge=1, description="learner steps between checkpoints")
    keep_checkpoints: Int = Field(3, ge=1, description="periodic checkpoints kept on disk (best/final extra)")
    runs_dir: str = Field("runs", description="the folder that holds the run folders (made if missing)")
    torch_threads: Int = Field(1, ge=1, description="1: PPO slows up to 31x with more when the other core is busy")
    progress: Bool = True
    init_from: str | None = Field(
        None,
        description="policy spec of a checkpoint (path or shipped name) whose actor weights start the run; "
        "its net_arch, activation and chip_memory must match this config (the critic starts fresh)",
    )
    collector: Literal["process", "inline"] = Field(
        "process",
        description="process: games are played in a second process while the learner updates (two cores, "
        "policy lag one update, training.learning.collector); inline: one process, collection then update",
    )
    critic_warmup: Int = Field(
        0,
        ge=0,
        description="with init_from: learner steps at the start in which only the critic learns, so that the "
        "fresh critic's first, meaningless advantages do not move the warm-started actor",
    )

    @field_validator("runs_dir")
    @classmethod
    def _runs_dir_named(cls, v: str) -> str:
        """An empty ``runs_dir`` (``--set run.runs_dir=``) put the run folder in the current folder."""
        problem = runs_dir_problem(v)
        if problem is not None:
            raise ValueError(problem)
        return v

    @model_validator(mode="after")
    def _warmup_needs_init(self) -> RunSection:
        if self.critic_warmup > 0 and self.init_from is None:
            raise ValueError(
                f"critic_warmup: expected 0 without run.init_from (only a warm-started actor is held), "
                f"got {self.critic_warmup}"
            )
        return self  # how long a warm-up may be depends on the rollout: Config._actor_rollout_after_warmup


RULE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(GameConfig) if f.name not in ("num_players", "starting_seat")
)
"""The :class:`GameConfig` fields a game section holds as they are (the player counts are a list here, and
the starting seat is drawn per game)."""
_RULE_DESCRIPTIONS = {
    "num_deals": "deals per match; the reward is paid at the match end",
    "special_cards": "house special cards (preset wildcards): trained on the scalar engine, 125 actions",
}


def _section_type(tp: Any) -> Any:
    """The strict config type of a GameConfig field type: ints strict, tuples as YAML lists."""
    if tp is int:
        return Int
    if tp is bool:
        return Bool
    if typing.get_origin(tp) is tuple:
        return list[_section_type(typing.get_args(tp)[0])]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return typing.Union[tuple(_section_type(a) for a in typing.get_args(tp))]  # noqa: UP007 - built at run time
    return tp


def _rule_fields() -> dict[str, Any]:
    hints = typing.get_type_hints(GameConfig)
    defaults = GameConfig()
    out = {}
    for name in RULE_FIELDS:
        default = getattr(defaults, name)
        default = list(default) if isinstance(default, tuple) else default
        out[name] = (_section_type(hints[name]), Field(default, description=_RULE_DESCRIPTIONS.get(name)))
    return out


# every rule field of GameConfig, with its type and default, so that a new rule reaches the configs by itself
_GameRules = create_model("_GameRules", __base__=_Section, **_rule_fields())


class GameSection(_GameRules):
    """Rules of the games the learner plays: every :class:`nothanks_env.game.GameConfig` field (bar the
    starting seat) with its default, ``num_players`` as a list of counts, and ``preset``.

    ``preset`` names a variant of :mod:`nothanks_env.presets`; the fields it sets fill in every rule field
    the YAML leaves out (fields written in the YAML override it, as ``--players`` and ``--deals`` do for
    the command-line tools). A preset given as an override (``--set game.preset=visible_chips``) sets its fields
    over the file's, unless other overrides set them. The resolved fields are what the run folder's
    ``config.yaml`` records, so a resume plays the same rules. With ``num_deals > 1`` (``preset: match3``) each
    game is a match: the learner's reward comes once, at the match end, from the match totals (there is no
    per-deal reward).
    """

    preset: str | None = Field(None, description="a preset name (nothanks_env.presets); fields below override it")
    num_players: list[Int] = Field([3], min_length=1, description="one count, or several for a mixed-count run")

    @model_validator(mode="before")
    @classmethod
    def _fill_from_preset(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("preset") is None:
            return data
        name = data["preset"]
        problem = preset_problem(name)
        if problem is not None:
            raise ValueError(f"preset: {problem}")
        filled = dict(data)
        for key, value in PRESETS[name].items():
            filled.setdefault(key, list(value) if isinstance(value, tuple) else value)
        return filled

    @field_validator("num_players", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("num_players")
    @classmethod
    def _counts(cls, v: list[int]) -> list[int]:
        for n in v:
            if not MIN_PLAYERS <= n <= MAX_PLAYERS:
                raise ValueError(f"expected player counts in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}")
        if len(set(v)) != len(v):
            raise ValueError(f"expected distinct player counts, got {v}")
        return v

    @model_validator(mode="after")
    def _rules_valid(self) -> GameSection:
        for n in self.num_players:
            try:
                config = self.game_config(n)
                if not config.special_cards:  # special cards run on the scalar learner table instead
                    require_batched(config)
            except RuleError as e:
                raise ValueError(str(e)) from e
        return self

    def game_config(self, num_players: int) -> GameConfig:
        """The :class:`GameConfig` for ``num_players`` seats (``num_deals`` deals per game)."""
        rules = {k: getattr(self, k) for k in RULE_FIELDS}
        return GameConfig(
            num_players=num_players, **{k: tuple(v) if isinstance(v, list) else v for k, v in rules.items()}
        )


MAX_GAMES_PER_COUNT = 65_536
"""Upper bound of ``env.games_per_count``: 128 times the shipped configs' largest (512). A rollout of 8 steps
of that many games already holds about 1 GB of observations; a slip of the keyboard beyond it is refused here
instead of running out of memory once the run folder exists."""


class EnvSection(_Section):
    """The learner's view of the game and its reward."""

    games_per_count: Int = Field(
        64,
        ge=1,
        le=MAX_GAMES_PER_COUNT,
        description=f"parallel games per player count (= SB3 n_envs share), at most {MAX_GAMES_PER_COUNT:,}",
    )
    chip_memory: Bool = Field(
        True,
        description="learner (and its snapshots) see every seat's chips, rebuilt from the public history",
    )
    behaviour: Bool = Field(
        False,
        description="append every seat's public pass/take record of the deal to the learner's (and its "
        "snapshots') observation (nothanks_env.encoding.BEHAVIOUR_LAYOUT: 445 inputs instead of 389)",
    )
    reward: Literal["win_share", "penalty_diff"] = Field(
        "win_share",
        description="win_share: the learner's win share (1, 1/k on a k-way tie, else 0), paid when its game ends. "
        "penalty_diff: (mean opponent penalty - own penalty) / 100; changes the objective, for experiments. "
        "Formulas in nothanks_env.outcome. 'win' is read as win_share, deprecated (it is not nothanks_v0's "
        "zero-sum 'win').",
    )

    @field_validator("reward", mode="before")
    @classmethod
    def _old_reward_name(cls, value: Any) -> Any:
        return selfplay_reward(value) if value == "win" else value


_NAME_COLON_NUMBER = re.compile(r"(?P<name>.+):(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
"""``heuristic:1.5``: a ``name: number`` entry written without the space YAML needs after the colon."""


def _once_each(specs: Sequence[str], what: str) -> None:
    """Refuse a policy spec given twice, also when only spaces around it differ (``heuristic`` and `` heuristic``
    load the same bot): a pool member would get its prior twice under two names, an evaluation table would be
    played twice.

    Raises:
        ValueError: ``"expected each <what> once, got 'heuristic' and ' heuristic'"``.
    """
    seen: dict[str, str] = {}
    for spec in specs:
        key = spec.strip()
        if key in seen:
            raise ValueError(f"expected each {what} once, got {seen[key]!r} and {spec!r}")
        seen[key] = spec


def _refuse_colon_without_space(entries: Any, what: str) -> Any:
    """``entries`` as given, unless YAML read one of its ``NAME: NUMBER`` entries as the single name
    ``NAME:NUMBER`` because the colon had no space after it: a key with no value (``{heuristic:1.5}``, or
    ``heuristic:1.5:`` in block style) or, for the whole mapping, one such string. Without this the error
    named the key ``heuristic:1.5`` as expecting a number and receiving None.

    Raises:
        ValueError: naming the entry, the ``what`` (weight, target) it lacks, and how to write it.
    """
    if isinstance(entries, dict):
        candidates = [k for k, v in entries.items() if v is None and isinstance(k, str)]
    else:
        candidates = [entries] if isinstance(entries, str) else []
    for text in candidates:
        m = _NAME_COLON_NUMBER.fullmatch(text.strip())
        if m:
            raise ValueError(
                f"entry {text!r} has no {what} (YAML needs a space after the colon): "
                f"expected '{m['name']}: {m['number']}', got {text!r}"
            )
    return entries


class LeagueSection(_Section):
    """Prioritized fictitious self-play over the scripted members (see :class:`training.pool.OpponentPool`).

    Each scripted member is drawn in proportion to ``prior x (floor + f(x))``, ``x`` being the learner's
    normalized score against it (win share x n / ``beaten_at``, clipped to [0, 1]; with the default 2, 0.5
    is parity), estimated online from the training games with an exponential moving average over about
    ``window`` games.
    """

    weighting: Literal["hard", "variance", "uniform", "target"] = Field(
        "hard",
        description="f(x): hard = (1-x)^power, favour what beats the learner; variance = x(1-x), favour even "
        "matches; uniform = 1, the fixed mixture of the priors; target = 1 / (1 + exp((w - t) / temperature)) "
        "of the win rate w against the member's entry t in targets, favour what the learner scores short of "
        "its target against (training.pool.target_weight)",
    )
    power: Float = Field(2.0, gt=0.0, description="exponent of the hard weighting")
    floor: Float = Field(0.05, ge=0.0, description="added to f(x) so that no member is ever dropped")
    window: Int = Field(2000, ge=1, description="games per member the moving average spans (time constant)")
    beaten_at: Float = Field(
        2.0,
        gt=1.0,
        description="the multiple of parity (1/n) at which a member counts as fully beaten (x = 1): raise it "
        "to keep pressing members the learner beats but could beat by more",
    )
    targets: dict[str, Float] = Field(
        {},
        description="weighting target only: scripted spec -> the win share the learner should reach against "
        "it (a bar per member, e.g. the best any policy scores there); every scripted member needs one",
    )
    temperature: Float = Field(
        0.03, gt=0.0, description="weighting target only: how sharp the step at the target is, in win share"
    )

    @field_validator("targets", mode="before")
    @classmethod
    def _colon_space(cls, v: Any) -> Any:
        return _refuse_colon_without_space(v, "target")


WEIGHTING_KEYS: dict[str, tuple[str, ...]] = {"power": ("hard",), "temperature": ("target",)}
"""League keys that only some weightings read -> those weightings (``targets``, also one, has its own check, on
files too). ``beaten_at``, ``window`` and ``floor`` are read by every weighting or by the pool's logged scores."""
OVERRIDES_CONTEXT = "overrides"
"""The validation context key under which :func:`config_from_dict` passes the parsed overrides (a nested dict)."""


class PoolSection(_Section):
    """The opponent mixture: scripted baselines (a league, see :class:`LeagueSection`) and frozen snapshots.

    Each opponent seat of each new game is drawn on its own, except on a share ``homogeneous`` of tables,
    where one member drawn once fills every opponent seat. Once a snapshot exists, a share
    ``snapshot_weight`` of seats goes to snapshots (``latest_share`` of that to the newest, the rest spread
    evenly over the older ones) and the rest to the scripted specs by their league weights.
    """

    scripted: dict[str, Float] = Field({"heuristic": 1.0}, description="policy spec -> prior weight")
    league: LeagueSection = LeagueSection()
    snapshot_weight: Float = Field(0.5, ge=0.0, le=1.0)
    latest_share: Float = Field(0.5, ge=0.0, le=1.0)
    snapshot_every: Int = Field(250_000, ge=1, description="learner steps between snapshots")
    max_snapshots: Int = Field(8, ge=1)
    snapshot_sample: Bool = Field(True, description="snapshots sample their action (else argmax)")
    homogeneous: Float = Field(
        0.0, ge=0.0, le=1.0, description="share of tables where one member fills every opponent seat"
    )
    lineups: dict[str, Float] = Field(
        {},
        description="fixed mixed tables drawn beside the one-member tables: scripted members joined by '+' "
        "(seated cyclically after the learner, as a gauntlet column) -> prior weight",
    )

    @field_validator("scripted", "lineups", mode="before")
    @classmethod
    def _colon_space(cls, v: Any) -> Any:
        return _refuse_colon_without_space(v, "weight")

    @field_validator("scripted", "lineups")
    @classmethod
    def _weights(cls, v: dict[str, float], info: ValidationInfo) -> dict[str, float]:
        if any(w < 0 for w in v.values()):
            raise ValueError(f"expected weights >= 0, got {v}")
        _once_each(list(v), "member" if info.field_name == "scripted" else "lineup")
        return v

    @model_validator(mode="after")
    def _something(self, info: ValidationInfo) -> PoolSection:
        if sum(self.scripted.values()) <= 0:
            raise ValueError("expected at least one scripted opponent: the pool has no snapshot at step 0")
        if self.lineups:
            self._check_lineups()
        if self.league.weighting == "target":
            from training.learning.pool import check_targets

            check_targets(self.league.targets, list(self.scripted) + list(self.lineups), name="league.targets")
        elif self.league.targets:
            raise ValueError(
                "league.targets: only used with pool.league.weighting 'target', "
                f"got weighting {self.league.weighting!r}"
            )
        self._overrides_used(info)
        return self

    def _overrides_used(self, info: ValidationInfo) -> None:
        """Refuse an override (``--set``, ``--pool.league.KEY``, a sweep's ``set`` or ``space``) of a league key that
        the weighting does not read (:data:`WEIGHTING_KEYS`): ``--set pool.league.temperature=0.1`` under ``hard``
        changed nothing, silently. Only overrides, passed as the validation context by :func:`load_config`: config
        files are not refused for it, as seven shipped ones (``configs/selfplay_3pb.yaml``, ...) write ``power:
        1.0`` under ``uniform``, and a run's ``config.yaml`` writes every key, so an old run still resumes."""
        overrides = (info.context or {}).get(OVERRIDES_CONTEXT) if info is not None else None
        league = ((overrides or {}).get("pool") or {}).get("league")
        if not isinstance(league, Mapping):
            return
        weighting = self.league.weighting
        for key, users in WEIGHTING_KEYS.items():
            if key in league and weighting not in users:
                raise ValueError(
                    f"league.{key}: only used with pool.league.weighting {' or '.join(map(repr, users))}, got "
                    f"weighting {weighting!r} and the override pool.league.{key}={getattr(self.league, key)}"
                )

    def _check_lineups(self) -> None:
        """Refuse a lineup that is not two or more scripted members joined by ``+``, one of the held-out
        tables (:data:`training.evaluation.heldout.HELDOUT_MIXED`, in any seat order), two lineups of the same bots in
        another order (the league scores a table by the bots at it, not their seats), and any lineup in a pool with
        ``homogeneous`` 0, which would never seat it."""
        from training.evaluation.heldout import refuse_heldout_tables
        from training.learning.pool import split_lineup

        seen: dict[tuple[str, ...], str] = {}
        for label in self.lineups:
            names = split_lineup(label, list(self.scripted))
            refuse_heldout_tables("lineups", [names])
            members = tuple(sorted(n.strip() for n in names))
            if members in seen:  # the league could not tell their tables apart
                raise ValueError(
                    f"lineups: expected each table once, got {seen[members]!r} and {label!r}, which seat the same bots"
                )
            seen[members] = label
        if self.homogeneous <= 0:
            raise ValueError(
                f"lineups: a lineup fills a table on the pool.homogeneous share of tables, expected pool.homogeneous "
                f"> 0, got {self.homogeneous}"
            )


class PPOCommon(_Section):
    """The PPO hyperparameters and network shape that the SB3 and the RLlib trainers share."""

    learning_rate: Float = Field(3e-4, gt=0)
    gamma: Float = Field(1.0, gt=0.0, le=1.0)
    gae_lambda: Float = Field(0.95, ge=0.0, le=1.0)
    clip_range: Float = Field(0.2, gt=0.0)
    ent_coef: Float = Field(0.01, ge=0.0)
    vf_coef: Float = Field(0.5, ge=0.0)
    max_grad_norm: Float = Field(0.5, gt=0.0)
    net_arch: list[Annotated[Int, Field(ge=1)]] = Field([256, 256], min_length=1)
    activation: Literal["tanh", "relu"] = "relu"


class PPOSection(PPOCommon):
    """MaskablePPO hyperparameters (sb3-contrib); ``n_steps`` is per env, so a rollout has n_envs * n_steps."""

    lr_schedule: Literal["constant", "linear"] = "linear"
    lr_final_fraction: Float = Field(0.1, ge=0.0, le=1.0, description="linear schedule ends at lr * this")
    n_steps: Int = Field(64, ge=1)
    batch_size: Int = Field(1024, ge=2)
    n_epochs: Int = Field(4, ge=1)
    target_kl: Float | None = Field(
        None,
        gt=0.0,
        description="stop an update's epochs once the approximate KL to the rollout's policy passes 1.5 x this "
        "(SB3); null: never. Above 0: at 0 every update would stop after one minibatch, below 0 before any",
    )


class EvalSection(_Section):
    """Periodic evaluation with :func:`training.evaluate.evaluate` against tables of scripted baselines."""

    every: Int = Field(500_000, ge=1, description="learner steps between evaluations")
    games: Int = Field(600, ge=1, description="games per opponent table in periodic evaluations")
    final_games: Int = Field(3000, ge=1, description="games per opponent table in the final evaluation")
    opponents: list[str] = Field(["heuristic", "random"], min_length=1, description="each fills every other seat")
    best_metric: str = Field(
        "heuristic",
        description="opponent whose win rate picks the best checkpoint, or 'min': the lowest win rate over "
        "all opponent tables, each divided by its parity 1/n (the most robust checkpoint)",
    )
    workers: Int = Field(1, ge=1)

    @field_validator("opponents")
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        _once_each(v, "opponent table")
        return v

    @model_validator(mode="after")
    def _best_in_opponents(self) -> EvalSection:
        if self.best_metric != "min" and self.best_metric not in self.opponents:
            from nothanks_env.specs import load_policy

            for spec in self.opponents:  # a misspelt opponent is the error to report, not the metric it broke
                try:
                    load_policy(spec)
                except (ValueError, OSError) as e:
                    raise ValueError(f"opponents: {e}") from e
            raise ValueError(
                f"best_metric: expected 'min' or one of {self.opponents}, got {self.best_metric!r}"
                + did_you_mean(self.best_metric, ["min", *self.opponents])
            )
        return self


def check_policy_specs(game: GameSection, specs: Mapping[str, Sequence[str]]) -> None:
    """Refuse a config whose policy specs cannot play its game, before a run folder exists.

    Args:
        game: the config's game section (each spec is built at each of its player counts).
        specs: config key (``pool.scripted``, ``eval.opponents``) -> the specs given there.

    Raises:
        ValueError: naming the key, for a held-out bot (:func:`training.evaluation.heldout.refuse_heldout`), a
            spec that does not build (:func:`nothanks_env.specs.load_policy`'s message), a pass/take-only
            policy in a game with special cards, or a network trained on special cards in a game without them.
    """
    from nothanks_env.policy import special_cards_only
    from nothanks_env.specs import load_policy, shipped_networks_hint
    from training.evaluation.heldout import refuse_heldout

    for where, group in specs.items():
        refuse_heldout(where, group)
        for spec in group:
            for n in game.num_players:
                try:
                    pol = load_policy(spec, table=game.game_config(n))
                except (ValueError, OSError) as e:
                    raise ValueError(f"{where}: {e}") from e
                if game.special_cards and not getattr(pol, "plays_special_cards", False):
                    raise ValueError(
                        f"{where}: {spec!r}: expected a policy that plays special cards (random, heuristic or "
                        f"a checkpoint trained on them) for game.special_cards {game.special_cards}, "
                        "got one that plays only pass/take"
                    )
                if not game.special_cards and special_cards_only(pol):
                    raise ValueError(
                        f"{where}: {spec!r}: expected a policy that plays pass/take (game.special_cards is empty), "
                        f"got a network trained on special cards ({pol.num_actions} actions): set game.special_cards "
                        "(configs/selfplay_wildcards.yaml) or use another spec"
                        + shipped_networks_hint(n, special_cards=False)
                    )


def _divisors_near(n: int, k: int) -> list[int]:
    """The divisors >= 2 of ``n`` nearest ``k``: the largest below it and the smallest above it (one if ``k`` is past
    ``n``), e.g. ``_divisors_near(512, 7) == [4, 8]``; none for an ``n`` past 2**40 (too long to factor here)."""
    if n > 2**40:
        return []
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    divisors = sorted({*small, *(n // d for d in small)} - {1})
    below = [d for d in divisors if d < k]
    above = [d for d in divisors if d > k]
    return below[-1:] + above[:1]


def planned_timesteps(start: int, total: int, rollout: int) -> int:
    """The learner steps ``model.learn`` will reach from ``start``: SB3 finishes the rollout that passes
    ``total``, so a run ends on the next multiple of ``rollout`` (``n_envs * n_steps``) past ``start``."""
    if total <= start:
        return start
    return start + -(-(total - start) // rollout) * rollout


class Config(_Section):
    """A whole self-play run."""

    run: RunSection = RunSection()
    game: GameSection = GameSection()
    env: EnvSection = EnvSection()
    pool: PoolSection = PoolSection()
    ppo: PPOSection = PPOSection()
    eval: EvalSection = EvalSection()

    @model_validator(mode="after")
    def _batch_fits(self) -> Config:
        """A PPO epoch splits the rollout into minibatches of ``ppo.batch_size`` steps and a last one of the rest
        (SB3). A batch size above the rollout is refused, and so is one that leaves a last minibatch of a single
        step: the standard deviation of its one advantage is NaN, and so, from then on, is the network (the run
        crashed in its first update). A rest of two or more steps trains, on a noisier last minibatch: shipped
        configs do so (``configs/selfplay_45.yaml``: 4096 = 3 x 1152 + 640, the recipe of ppo-45-v1..v4), and a run
        of theirs must still load and resume, so a divisor is the advice, not the rule."""
        rollout, batch = self.rollout_steps, self.ppo.batch_size
        if batch <= rollout and rollout % batch != 1:
            return self
        envs = f"{self.n_envs} envs"
        if len(self.game.num_players) > 1:
            envs += f": env.games_per_count {self.env.games_per_count} x {len(self.game.num_players)} player counts"
        near = _divisors_near(rollout, batch)
        advice = ""
        if near:
            advice = f"; the nearest divisor{'s are' if len(near) > 1 else ' is'} {' and '.join(map(str, near))}"
        if batch > rollout:
            raise ValueError(
                f"ppo.batch_size: expected a divisor of the rollout size {rollout} (ppo.n_steps {self.ppo.n_steps} x "
                f"{envs}), got {batch} (more than the rollout){advice}"
            )
        raise ValueError(
            f"ppo.batch_size: expected a divisor of the rollout size {rollout} (ppo.n_steps {self.ppo.n_steps} x "
            f"{envs}), or at least a size that leaves no last minibatch of a single step (its advantages normalize "
            f"to NaN), got {batch} ({rollout} = {rollout // batch} x {batch} + 1){advice}"
        )

    @model_validator(mode="after")
    def _one_rollout_at_least(self) -> Config:
        """PPO trains whole rollouts: a shorter run would silently train a whole one, so it is refused."""
        if self.run.total_timesteps < self.rollout_steps:
            raise ValueError(self.short_of_a_rollout("run.total_timesteps", self.run.total_timesteps))
        return self

    @model_validator(mode="after")
    def _actor_rollout_after_warmup(self) -> Config:
        """A critic warm-up must leave the actor at least one whole rollout (:meth:`warmup_leaves_no_rollout`)."""
        problem = self.warmup_leaves_no_rollout(self.run.total_timesteps)
        if problem is not None:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _specs_load(self) -> Config:
        """Every policy spec of the pool and the evaluation builds at every player count of the run.

        Checked here, with the rest of the config, so that a bad spec is refused before a run folder exists
        rather than when the pool or the first evaluation is built.
        """
        check_policy_specs(
            self.game, {"pool.scripted": list(self.pool.scripted), "eval.opponents": self.eval.opponents}
        )
        return self

    @property
    def n_envs(self) -> int:
        """Learner slots stepped together: ``games_per_count`` per player count."""
        return self.env.games_per_count * len(self.game.num_players)

    @property
    def rollout_steps(self) -> int:
        """Learner steps of one PPO rollout, ``n_envs * ppo.n_steps``: training goes in whole rollouts."""
        return self.n_envs * self.ppo.n_steps

    def planned_timesteps(self, start: int = 0) -> int:
        """The learner steps a run trained from ``start`` ends at: ``run.total_timesteps`` rounded up to whole
        rollouts (:func:`planned_timesteps`)."""
        return planned_timesteps(start, self.run.total_timesteps, self.rollout_steps)

    def rounding_note(self, start: int = 0, name: str = "run.total_timesteps") -> str | None:
        """The line that says ``run.total_timesteps`` is rounded up to whole rollouts, printed when a run from
        ``start`` starts; None when the rounding leaves it as it is (or there is nothing left to train).
        ``name`` is what the user wrote the figure as (the exploit probe's ``--timesteps``).

        Example: ``run.total_timesteps 16,000,000 rounded up to 16,003,072: training goes in whole rollouts
        of 4,096 learner steps``.
        """
        total, planned = self.run.total_timesteps, self.planned_timesteps(start)
        if total <= start or planned == total:
            return None
        return (
            f"{name} {total:,} rounded up to {planned:,}: training goes in whole rollouts of "
            f"{self.rollout_steps:,} learner steps"
        )

    def warmup_leaves_no_rollout(self, total: int, name: str = "run.total_timesteps") -> str | None:
        """The error for a ``run.critic_warmup`` that leaves the actor no whole rollout of a run of ``total``
        learner steps, given as ``name`` (``run.total_timesteps``; ``--timesteps`` for the exploit probe, which
        fills that field in), or None when the actor has at least one.

        The actor is held for the update of every rollout that starts before ``run.critic_warmup`` learner steps
        (:meth:`training.learning.selfplay.Trainer.on_update_boundary`) and the run ends on whole rollouts
        (:func:`planned_timesteps`): a warm-up past the start of the last rollout (also one as long as the run)
        trains the critic only, and the run would end "done" with the actor as it came.
        """
        warmup, rollout = self.run.critic_warmup, self.rollout_steps
        planned = planned_timesteps(0, total, rollout)
        last_start = planned - rollout
        if warmup <= last_start:
            return None
        need = -(-warmup // rollout) * rollout + 1  # the least total whose last rollout starts at or after warmup
        return (
            f"run.critic_warmup: expected at most {last_start:,} learner steps (the start of the last PPO "
            f"rollout: {name} {total:,} runs {planned // rollout:,} whole rollouts of {rollout:,} learner steps, "
            f"to {planned:,}, and the actor learns only in those that start at or after run.critic_warmup), got "
            f"{warmup:,}; write run.critic_warmup <= {last_start:,} or {name} >= {need:,}"
        )

    def short_of_a_rollout(self, key: str, steps: int) -> str:
        """The error for a length of ``steps`` learner steps given as ``key`` that is shorter than one rollout
        (``run.total_timesteps`` here, ``--timesteps`` for the exploit probe, which fills that field in)."""
        return (
            f"{key}: expected at least one PPO rollout of {self.rollout_steps:,} learner steps "
            f"(env.games_per_count x player counts x ppo.n_steps = {self.env.games_per_count} x "
            f"{len(self.game.num_players)} x {self.ppo.n_steps}; training goes in whole rollouts), got {steps:,}"
        )


_EXPECTED: dict[str, str] = {
    "int_type": "an int",
    "int_parsing": "an int",
    "int_from_float": "an int",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a section (a mapping of its keys)",
    "model_attributes_type": "a section (a mapping of its keys)",
    "finite_number": "a finite number",
}
"""pydantic error type -> what the key expects, in the words of the other command-line errors."""

_BOUNDS = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}


def _field_at(model: type[BaseModel], loc: Sequence[Any]) -> tuple[type[BaseModel] | None, Any]:
    """The section model holding ``loc``'s last key (None if ``loc`` leaves the sections) and that key's
    annotation (None if it is not a field)."""
    section: Any = model
    for part in loc[:-1]:
        field = section.model_fields.get(part) if isinstance(part, str) else None
        section = field.annotation if field is not None else None
        if not (isinstance(section, type) and issubclass(section, BaseModel)):
            return None, None
    field = section.model_fields.get(loc[-1]) if loc and isinstance(loc[-1], str) else None
    return section, field.annotation if field is not None else None


def _describe(error: Any, model: type[BaseModel]) -> str:
    """One validation error as ``key: expected ..., got ...`` (no newline, no ``;``)."""
    loc = tuple(error["loc"])
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{_key_part(p)}" for p in loc).lstrip(".")
    got = error.get("input")
    kind, ctx = error["type"], error.get("ctx") or {}
    msg = error["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if kind == "extra_forbidden":
        section, _ = _field_at(model, loc)
        where = f"the keys of {'.'.join(map(str, loc[:-1]))}" if len(loc) > 1 else "the sections"
        known = list(section.model_fields) if section is not None else []
        hint = did_you_mean(str(loc[-1]), known)
        expected = f"one of {where} ({', '.join(known)})" if known else "a known key"
        return f"{key}: unknown key, expected {expected}, got {str(loc[-1])!r}{hint}"
    if kind == "missing":
        return f"{key}: expected a value, got none"
    if kind in ("value_error", "assertion_error"):
        if not key:  # a check across sections: its message names the keys and the values
            return msg
        named = re.match(r"([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*): (.*)", msg, re.DOTALL)
        if named:  # a section's check that names its key: "eval" + "best_metric: ..." -> eval.best_metric
            key, msg = f"{key}.{named[1]}", named[2]
        if ", got " in msg or isinstance(got, dict):  # the message already names what it received
            return f"{key}: {msg}"
        return f"{key}: {msg}, got {got!r}"
    _, annotation = _field_at(model, loc)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):  # Float | None: the number's noun
        annotation = next((a for a in typing.get_args(annotation) if a is not type(None)), annotation)
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    noun = {int: "an int", float: "a number"}.get(annotation, "a value")
    hint = ""
    if kind in _BOUNDS:
        bound = next(iter(ctx.values()), "?")
        expected = f"{noun} {_BOUNDS[kind]} {bound}"
    elif kind in ("int_type", "int_parsing") and _not_plain_decimal(got):  # 010, 0x10, 1:30: YAML 1.1 numbers
        expected = f"an int in plain decimal ({PLAIN_DECIMAL_HINT})"
    elif kind in ("bool_type", "bool_parsing") and isinstance(got, str) and got.lower() in _YAML11_ONLY_BOOL:
        expected = "true or false (yes/no/on/off are text)"
    elif kind in _EXPECTED:
        expected = _EXPECTED[kind]
    elif kind == "literal_error":
        expected = str(ctx.get("expected", msg))
        hint = did_you_mean(got, typing.get_args(annotation) if typing.get_origin(annotation) is Literal else ())
    elif kind == "string_pattern_mismatch":
        expected = f"text matching {ctx.get('pattern')}"
    elif kind in ("too_short", "too_long"):
        n = ctx.get("min_length" if kind == "too_short" else "max_length")
        expected = f"{'at least' if kind == 'too_short' else 'at most'} {n} item{'s' if n != 1 else ''}"
    else:  # pydantic's own words: "Input should be X" -> "expected X"
        expected = msg.removeprefix("Input should be ")
    return f"{key or 'config'}: expected {expected}, got {got!r}{hint}"


def _format_errors(err: ValidationError, source: str, model: type[BaseModel]) -> str:
    """Every error of ``err`` on one line: ``invalid config SOURCE: key: expected ..., got ...; key: ...``."""
    problems = [" ".join(_describe(e, model).split()) for e in err.errors()]
    return f"invalid config {source}: " + "; ".join(problems)


KEY_QUOTING_HINT = "quote a key part that holds '.' or '=': pool.scripted.\"threshold:T=2\"=1.5"
"""How a key part holding ``.`` or ``=`` is written in an override, as the errors about override keys say it."""


def _key_part(part: Any) -> str:
    """One part of a dotted key as an override writes it: in double quotes if it holds ``.`` or ``=``."""
    text = str(part)
    return f'"{text}"' if "." in text or "=" in text else text


def dotted_key(parts: Sequence[Any]) -> str:
    """The key of ``parts`` as an override writes it: ``("pool", "scripted", "threshold:T=2")`` ->
    ``pool.scripted."threshold:T=2"`` (a part holding ``.`` or ``=`` in double quotes)."""
    return ".".join(_key_part(p) for p in parts)


def split_override(item: str) -> tuple[tuple[str, ...], str]:
    """Split one override ``KEY.PATH=VALUE`` into its key parts and its value text (not yet read as YAML).

    The key's parts are separated by ``.``; the key ends at the first ``=`` outside double quotes. A part
    written in double quotes is taken literally, ``.`` and ``=`` included: ``pool.scripted."threshold:T=2"=1.5``
    -> ``(("pool", "scripted", "threshold:T=2"), "1.5")``. The value is everything after that ``=``. Only a part
    that holds ``.`` or ``=`` may be quoted, so that every key has one spelling (:func:`dotted_key`'s).

    Raises:
        ConfigError: naming the item, for an item without ``=`` (outside quotes), an empty key part, a quote
            that is never closed, a quote that does not enclose a whole key part, or quotes around a part that
            needs none.
    """
    parts: list[str] = []
    part = ""
    quoted = False  # the current part was written in quotes (nothing may follow the closing quote but . or =)
    i = 0

    def refuse(problem: str) -> ConfigError:
        return ConfigError(f"override: expected KEY.PATH=VALUE ({KEY_QUOTING_HINT}), got {item!r} ({problem})")

    while i < len(item):
        c = item[i]
        if c == '"':
            if part or quoted:
                raise refuse(f"a quote at character {i + 1} inside a key part: quote the whole part")
            end = item.find('"', i + 1)
            if end < 0:
                raise refuse(f"the quote at character {i + 1} is never closed")
            if end == i + 1:
                raise refuse(f"an empty quoted key part at character {i + 1}")
            part, quoted, i = item[i + 1 : end], True, end + 1
            if "." not in part and "=" not in part:  # one spelling per key: code that compares keys as text holds
                raise refuse(f"quotes around {part!r}, which holds neither '.' nor '=': write it without them")
            continue
        if c in ".=":
            if not part:
                raise refuse(f"an empty key part at character {i + 1}")
            parts.append(part)
            if c == "=":
                return tuple(parts), item[i + 1 :]
            part, quoted = "", False
        elif quoted:
            raise refuse(f"{c!r} at character {i + 1} after a closing quote: expected '.' or '='")
        else:
            part += c
        i += 1
    if '"' in item:
        raise refuse("no '=' outside the quotes")
    raise ConfigError(f"override: expected KEY.PATH=VALUE, got {item!r}")


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``["ppo.learning_rate=1e-4", ...]`` -> nested dict; values are read as YAML, as a config file is
    (:class:`ConfigLoader`: ``010`` and ``yes`` are text, for a number or boolean key to refuse).

    Keys are split as :func:`split_override` splits them: a part in double quotes may hold ``.`` and ``=``
    (``'pool.scripted."threshold:T=2"=1.5'`` -> ``{"pool": {"scripted": {"threshold:T=2": 1.5}}}``).

    Raises:
        ConfigError: for an item :func:`split_override` refuses, a value that is not valid YAML (or writes a key
            twice in one mapping), or a key used both as a value and as a section.
    """
    tree: dict[str, Any] = {}
    for item in items:
        parts, raw = split_override(item)
        key = dotted_key(parts)
        try:
            value = load_yaml(raw) if raw != "" else ""
        except yaml.YAMLError as e:
            raise ConfigError(f"override {key}: value {raw!r} is not valid YAML: {_yaml_problem(e)}") from e
        except ConfigError as e:  # a key written twice in a mapping
            raise ConfigError(f"override {key}: value {raw!r}: {e}") from None
        node = tree
        *parents, leaf = parts
        for p in parents:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {key}: {p} is set to a value and used as a section")
        node[leaf] = _Replace(value) if isinstance(value, dict) else value
    return tree


def _cut_spec_hint(items: Sequence[str], message: str) -> str:
    """A hint for the first override of ``items`` that looks like a policy spec key cut at its own ``=``
    (``pool.scripted.threshold:T=2=1.5``: key ``pool.scripted.threshold:T``, value ``2=1.5``) and whose key
    ``message`` (a validation error) names: `` (quote a key that holds '=': pool.scripted."threshold:T=2"=1.5)``,
    with the item's own key and value. Empty if there is none."""
    for item in items:
        try:
            parts, raw = split_override(item)
        except ConfigError:
            continue
        if "=" in raw and '"' not in raw and ":" in parts[-1] and f"{dotted_key(parts)}:" in message:
            rest, _, value = raw.rpartition("=")
            suggestion = dotted_key([*parts[:-1], f"{parts[-1]}={rest}"]) + f"={value}"
            return f" (quote a key that holds '=': {suggestion})"
    return ""


class _Replace(dict):
    """A mapping given whole on the command line (``pool.scripted={random: 1}``): it replaces, not merges."""


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, _Replace):
            out[k] = dict(v)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = _plain(v)
    return out


def _merge_overrides(data: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the parsed overrides ``over`` merged in. A ``game.preset`` override is a new choice of rules:
    the game fields that preset sets are taken from it, not from ``data`` (a file's ``num_players: 3`` or
    ``opponent_chips: hidden`` would otherwise silently override ``--set game.preset=visible_chips``), unless an
    override sets them too."""
    game = over.get("game")
    name = game.get("preset") if isinstance(game, dict) else None
    if isinstance(name, str) and name in PRESETS and isinstance(data.get("game"), dict):
        data = {**data, "game": {k: v for k, v in data["game"].items() if k not in PRESETS[name] or k in game}}
    return _merge(data, over)


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """``data`` (a config as a nested dict) with ``overrides`` (``KEY.PATH=VALUE``) applied, not validated. A
    ``game.preset`` override takes the game fields it sets from the preset, not from ``data``, unless an override
    sets them too.

    Raises:
        ConfigError: for an override that does not parse (see :func:`parse_overrides`).
    """
    return _merge_overrides(data, parse_overrides(overrides))


def _plain(v: Any) -> Any:
    return {k: _plain(x) for k, x in v.items()} if isinstance(v, dict) else v


M = TypeVar("M", bound=BaseModel)


def changed_key(saved: Mapping[str, Any], mine: Mapping[str, Any], keys: Sequence[str]) -> tuple[str, Any, Any] | None:
    """The first dotted key of ``keys`` whose value in ``saved`` (a run's dumped config) is set and differs
    in ``mine``, as ``(key, saved value, my value)``; None if none does. Used to refuse a resume that
    changes what a checkpoint was trained with. A key naming a section (``game``) is narrowed to the first
    entry inside it that differs (``game.num_players``), so the message names what changed, not the section.

    >>> changed_key({"game": {"preset": "standard", "num_players": [3]}}, {"game": {"preset": "standard",
    ...     "num_players": [4]}}, ["game"])
    ('game.num_players', [3], [4])
    """
    for key in keys:
        a: Any = saved
        b: Any = mine
        for part in key.split("."):
            a, b = (a or {}).get(part), (b or {}).get(part)
        if a is not None and a != b:
            while isinstance(a, Mapping) and isinstance(b, Mapping):
                inner = next((k for k in (*a, *(k for k in b if k not in a)) if a.get(k) != b.get(k)), None)
                if inner is None:
                    break
                key, a, b = f"{key}.{inner}", a.get(inner), b.get(inner)
            return key, a, b
    return None


def _yaml_problem(e: yaml.YAMLError) -> str:
    """One line for a YAML error: where (1-based line and column) and what, without PyYAML's excerpt lines."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    context = getattr(e, "context", None)
    return f"{where}{problem}" + (f" ({context})" if context else "")


_YAML12_RESOLVED = ("bool", "int", "float")
_YAML11_ONLY_TAGS = frozenset({*(f"tag:yaml.org,2002:{t}" for t in _YAML12_RESOLVED), "tag:yaml.org,2002:timestamp"})


def _yaml12_resolvers(cls: type[yaml.resolver.BaseResolver], keep_yaml11: bool) -> None:
    """Give ``cls`` YAML 1.2's core resolvers for booleans, ints and floats (:data:`_YAML12_BOOL`, ...): in place of
    SafeLoader's YAML 1.1 ones (and its timestamps), or, with ``keep_yaml11``, after them (a dumper then quotes text
    that either rule would read as something else)."""
    cls.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if keep_yaml11 or tag not in _YAML11_ONLY_TAGS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    for tag, rx, first in (
        ("bool", _YAML12_BOOL, "tTfF"),
        ("int", _YAML12_INT, "-+0123456789"),
        ("float", _YAML12_FLOAT, "-+0123456789."),
    ):
        cls.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", rx, list(first))


class ConfigLoader(yaml.SafeLoader):
    """How every config file and ``--set`` value is read: ``yaml.SafeLoader`` with YAML 1.2's core rules for
    booleans and numbers (``010``, ``0x10``, ``1:30``, ``yes``, ``on`` and dates stay text; see
    :data:`PLAIN_DECIMAL_HINT`), and that refuses a key written twice in one mapping (plain YAML keeps the last one
    silently, so a pasted ``run:`` section would quietly replace the first)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(
                    f"line {key_node.start_mark.line + 1}: key {key!r} written twice in one mapping "
                    f"(first at line {seen[key]}): expected each key once"
                )
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


_yaml12_resolvers(ConfigLoader, keep_yaml11=False)


class _ConfigDumper(yaml.SafeDumper):
    """``yaml.SafeDumper`` that quotes text either YAML 1.1 or :class:`ConfigLoader` would read as a boolean or a
    number (``'1e5'``, ``'yes'``, ``'010'``), so that a run's ``config.yaml`` reads back the same with this loader
    and with plain ``yaml.safe_load``."""


_yaml12_resolvers(_ConfigDumper, keep_yaml11=True)


def load_yaml(text: str) -> Any:
    """``text`` read as a config is (:class:`ConfigLoader`).

    Raises:
        yaml.YAMLError: for text that is not YAML.
        ConfigError: for a key written twice in one mapping.
    """
    return yaml.load(text, Loader=ConfigLoader)


def load_config(
    path: str | Path | None = None,
    overrides: list[str] | None = None,
    model: type[M] = Config,
    *,
    default: Path = DEFAULT_CONFIG,
    overrides_said: str | None = None,
) -> M:
    """Read a YAML config, apply ``overrides`` (``KEY.PATH=VALUE``) and validate.

    Args:
        path: YAML file; ``None`` reads ``default``.
        overrides: dotted assignments applied on top of the file.
        model: the pydantic model to validate into (:class:`Config` for ``training.selfplay``; other entry
            points pass theirs, e.g. :class:`training.rllib_selfplay.RLlibConfig`).
        default: the file read when ``path`` is ``None`` (:data:`DEFAULT_CONFIG`).
        overrides_said: how a validation error names the overrides after the file's path (default
            ``" with overrides [...]"``), e.g. to tell the user's apart from a tool's own.

    Raises:
        ConfigError: if the path is empty, the file is missing, not UTF-8 text, empty or not a YAML mapping, or
            a key is unknown or ill-typed.
    """
    if isinstance(path, str) and not path.strip():
        raise ConfigError(f"config file: expected the path of a YAML file, got {path!r}")
    path = Path(path) if path is not None else default
    if not path.is_file():
        raise ConfigError(f"config file not found: expected an existing YAML file, got {path}")
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except ConfigError as e:
        raise ConfigError(f"config file {path}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {path} is not valid YAML: {_yaml_problem(e)}") from e
    except UnicodeDecodeError as e:
        line = e.object[: e.start].count(b"\n") + 1
        raise ConfigError(
            f"config file {path}: expected UTF-8 text, got the byte 0x{e.object[e.start]:02x} on line {line} "
            f"(byte {e.start + 1})"
        ) from None
    if data is None:  # nothing but blanks and comments: most likely not the file meant
        raise ConfigError(f"config file {path}: expected a mapping of config sections, got an empty file")
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path}: expected a mapping of sections, got {type(data).__name__}")
    if overrides_said is None:
        overrides_said = f" with overrides {overrides}" if overrides else ""
    source = str(path) + overrides_said
    tree = parse_overrides(overrides or [])
    merged = _merge_overrides(data, tree)
    try:
        return config_from_dict(merged, source=source, model=model, overrides=tree)
    except ConfigError as e:
        hint = _cut_spec_hint(overrides or [], str(e))
        if not hint:
            raise
        raise ConfigError(f"{e}{hint}") from None


def config_from_dict(
    data: dict[str, Any],
    source: str = "(dict)",
    model: type[M] = Config,
    *,
    overrides: Mapping[str, Any] | None = None,
) -> M:
    """Validate a nested dict into ``model`` (a :class:`Config`); raises :class:`ConfigError` naming each bad key.

    ``overrides`` (:func:`parse_overrides`' tree of what the user set on top of the file, already merged into
    ``data``) lets a check refuse what only an explicit setting gets wrong: a league key the weighting does not
    read (:data:`WEIGHTING_KEYS`)."""
    try:
        return model.model_validate(data, context={OVERRIDES_CONTEXT: overrides or {}})
    except ValidationError as e:
        raise ConfigError(_format_errors(e, source, model)) from None


def dump_config(config: BaseModel, path: str | Path) -> None:
    """Write the resolved config as YAML (every value, defaults included)."""
    Path(path).write_text(yaml.dump(config.model_dump(mode="json"), Dumper=_ConfigDumper, sort_keys=False))


def _flag_key_end(text: str) -> int:
    """Where the key of a ``--SECTION.KEY[=VALUE]`` flag (without its ``--``) ends: at its first ``=`` outside
    double quotes, else at the end of ``text``."""
    quoted = False
    for i, c in enumerate(text):
        if c == '"':
            quoted = not quoted
        elif c == "=" and not quoted:
            return i
    return len(text)


def _flag_key(key: str) -> str:
    """A flag's key as an override writes it: ``-`` read as ``_`` (``--ppo.learning-rate``), except inside
    double quotes, which a key part holding ``.`` or ``=`` is written in and which are taken literally."""
    pieces = key.split('"')  # the odd pieces are inside quotes
    return '"'.join(p if i % 2 else p.replace("-", "_") for i, p in enumerate(pieces))


def split_dotted_flags(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Turn ``--ppo.learning_rate 1e-4`` / ``--ppo.learning_rate=1e-4`` into overrides; return (rest, overrides).

    The key ends at the first ``=`` outside double quotes, so a quoted key part may hold ``=``:
    ``--pool.scripted."threshold:T=2" 1.5`` and ``--pool.scripted."threshold:T=2"=1.5`` both give
    ``pool.scripted."threshold:T=2"=1.5``.
    """
    rest, overrides = [], []
    for is_override, a in _dotted_flags(argv):
        (overrides if is_override else rest).append(a)
    return rest, overrides


def dotted_flags_as_set(argv: Sequence[str], flag: str = "--set") -> list[str]:
    """``argv`` with each ``--SECTION.KEY VALUE`` / ``--SECTION.KEY=VALUE`` flag written as ``flag KEY=VALUE`` in
    its place, so that a parser's ``--set`` (``action="append"``) holds every override in command-line order:
    of two for one key, the one typed last wins, whichever form each is written in.

    >>> dotted_flags_as_set(["cfg.yaml", "--run.seed", "4", "--set", "run.seed=3"])
    ['cfg.yaml', '--set', 'run.seed=4', '--set', 'run.seed=3']

    Raises:
        ConfigError: for a ``--SECTION.KEY`` flag without a value after it, or followed by another option.
    """
    out: list[str] = []
    for is_override, a in _dotted_flags(argv):
        out += [flag, a] if is_override else [a]
    return out


def _dotted_flags(argv: Sequence[str]) -> Iterator[tuple[bool, str]]:
    """Each argument of ``argv`` as ``(False, arg)``, except a ``--SECTION.KEY[=VALUE]`` flag and its value, which
    come as one ``(True, "KEY=VALUE")``.

    Raises:
        ConfigError: for a ``--SECTION.KEY`` flag without a value after it, or followed by another option (a token
            that starts with ``--``; a value that does is written ``--SECTION.KEY=VALUE``).
    """
    it = iter(argv)
    for a in it:
        end = _flag_key_end(a[2:]) + 2 if a.startswith("--") else 0
        if a.startswith("--") and "." in a[2:end]:
            key, eq, val = a[2:end], a[end : end + 1], a[end + 1 :]
            if not eq:
                val = next(it, None)
                if val is None:
                    raise ConfigError(f"{a}: expected a value after it, got nothing (the command line ends)")
                if val.startswith("--"):  # another option: taken as the value it made a folder named --set
                    raise ConfigError(
                        f"{a}: expected a value after it, got {val!r} (write {a}=VALUE for a value that starts "
                        "with '--')"
                    )
            yield True, f"{_flag_key(key)}={val}"
        else:
            yield False, a

"""The validated config of ``python -m training.rllib_selfplay`` (``configs/rllib.yaml``), importable without Ray.

The same YAML + ``--set`` machinery and section style as :mod:`training.config`; the game and evaluation
sections are the self-play ones. Steps are **env steps**: decisions of any seat (RLlib's
``num_env_steps_sampled``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from training.learning.config import (
    CONFIG_DIR,
    Bool,
    EvalSection,
    Float,
    GameSection,
    Int,
    PPOCommon,
    _Section,
    check_policy_specs,
)

DEFAULT_RLLIB_CONFIG: Path = CONFIG_DIR / "rllib.yaml"
LEARNER = "learner"
"""The module id of the trained policy; the frozen ones are ``snapshot_0 .. snapshot_{K-1}``."""


class RLlibRunSection(_Section):
    """Run bookkeeping. Steps are env steps: decisions of any seat."""

    name: str = Field("rllib", pattern=r"^[A-Za-z0-9_.-]+$")
    seed: Int = Field(0, ge=0, description="the run's random seed")
    total_env_steps: Int = Field(2_000_000, ge=1, description="env steps sampled in all (a resume continues)")
    checkpoint_every: Int = Field(10, ge=1, description="training iterations between checkpoints")
    keep_checkpoints: Int = Field(3, ge=1)
    runs_dir: str = "runs"
    torch_threads: Int = Field(1, ge=1)
    progress: Bool = True


class RLlibEnvSection(_Section):
    """What each seat observes and earns, and where games are sampled."""

    chip_memory: Bool = Field(True, description="observe every seat's chips, rebuilt from the public history")
    behaviour: Bool = Field(
        False,
        description="append every seat's public pass/take record of the deal to every seat's observation "
        "(nothanks_env.encoding.BEHAVIOUR_LAYOUT: 445 inputs instead of 389)",
    )
    reward: Literal["win", "rank", "penalty"] = Field(
        "win", description="nothanks_v0's reward mode (zero-sum; formulas in nothanks_env.outcome)"
    )
    env_runners: Int = Field(0, ge=0, description="remote EnvRunner actors (1 CPU each); 0 samples in the driver")
    envs_per_runner: Int = Field(8, ge=1, description="games stepped together by each EnvRunner")


class RLlibPoolSection(_Section):
    """Frozen snapshots of the learner as opponents (see :func:`map_seat`, :class:`SnapshotCallback`)."""

    snapshot_weight: Float = Field(0.3, ge=0.0, le=1.0, description="share of non-learner seats given to snapshots")
    snapshots: Int = Field(4, ge=1, description="frozen modules snapshot_0 .. snapshot_{K-1}")
    snapshot_every: Int = Field(100_000, ge=1, description="env steps between snapshots")


class RLlibPPOSection(PPOCommon):
    """RLlib PPO hyperparameters (``PPOConfig.training``); sizes are in env steps. The shared ones: PPOCommon."""

    train_batch_size: Int = Field(8192, ge=2, description="env steps sampled per training iteration")
    minibatch_size: Int = Field(1024, ge=2)
    num_epochs: Int = Field(4, ge=1)

    @model_validator(mode="after")
    def _minibatch_fits(self) -> RLlibPPOSection:
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(
                f"minibatch_size: expected <= train_batch_size {self.train_batch_size}, got {self.minibatch_size}"
            )
        return self


class RLlibConfig(_Section):
    """A whole RLlib self-play run (validated like :class:`training.config.Config`)."""

    run: RLlibRunSection = RLlibRunSection()
    game: GameSection = GameSection()
    env: RLlibEnvSection = RLlibEnvSection()
    pool: RLlibPoolSection = RLlibPoolSection()
    ppo: RLlibPPOSection = RLlibPPOSection()
    eval: EvalSection = EvalSection()

    @model_validator(mode="after")
    def _one_count(self) -> RLlibConfig:
        if len(self.game.num_players) != 1:
            raise ValueError(f"game.num_players: expected one player count, got {self.game.num_players}")
        special = self.game.game_config(self.num_players).special_cards
        if special:  # MaskedActorCritic plays pass/take only; training.selfplay trains special cards
            raise ValueError(
                f"game: expected a game without special cards (the RLlib path plays pass/take only; train "
                f"special cards with python -m training.selfplay), got special_cards {list(special)}"
            )
        return self

    @model_validator(mode="after")
    def _specs_load(self) -> RLlibConfig:
        """The evaluation opponents build at the run's table size (a bad spec is refused before Ray starts or a
        run folder exists), and none is a held-out bot: the evaluation picks the best checkpoint."""
        check_policy_specs(self.game, {"eval.opponents": self.eval.opponents})
        return self

    @property
    def num_players(self) -> int:
        return self.game.num_players[0]

    def module_ids(self) -> list[str]:
        """``learner`` then ``snapshot_0 .. snapshot_{K-1}``."""
        return [LEARNER, *snapshot_ids(self.pool.snapshots)]


def snapshot_ids(k: int) -> list[str]:
    return [f"snapshot_{i}" for i in range(k)]

"""The RLlib side of ``nothanks_v0``: the masking RLModule, the env creator, the snapshot callback, and the
weight export.

RLlib (new API stack) calls an :class:`~ray.rllib.core.rl_module.torch.TorchRLModule` with a batch whose
``Columns.OBS`` is the env's observation dict, batched: ``{"observation": float32 (B, OBS_SIZE),
"action_mask": int8 (B, 2)}``, ``OBS_SIZE + BEHAVIOUR_SIZE`` (445) values with ``behaviour``.
:class:`MaskedActorCritic` is such a module (RLlib's extension point: a ``TorchRLModule`` with
``setup``/``_forward`` and the ``ValueFunctionAPI`` that PPO needs):

- the actor is an MLP on ``observation`` -> 2 logits [PASS, TAKE]; an illegal action's logit is *replaced*
  by ``FLOAT_MIN`` (not added to), so no logit, however large, makes it probable, and RLlib's own
  ``TorchCategorical`` samples only legal actions. The mask reaches the module untouched because the
  env-to-module pipeline batches dict observations as they are (no ``FlattenObservations`` connector,
  which would fold the mask into the features);
- the critic is a separate MLP of the same shape on ``observation`` -> 1 value (win-share units).

The actor's layers are exactly those of :class:`training.checkpoints.MLPPolicy` (``Linear``, activation,
..., ``Linear`` to 2), so :func:`actor_weights` copies them into our checkpoint format unchanged; both
networks' input size is the observation's (:func:`training.checkpoints.network_sizes`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED, NUM_ENV_STEPS_SAMPLED_LIFETIME
from ray.rllib.utils.torch_utils import FLOAT_MIN

from training.checkpoints import network_sizes
from training.scale.rllib_config import LEARNER

ENV_NAME = "nothanks_v0"
"""The name the env creator is registered under with :func:`ray.tune.registry.register_env`."""

ACTIVATIONS = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}


def mlp(sizes: list[int], activation: str) -> torch.nn.Sequential:
    """``Linear(sizes[0], sizes[1])``, activation, ..., ``Linear(sizes[-2], sizes[-1])`` (no final activation)."""
    act = ACTIVATIONS[activation]
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(act())
    return torch.nn.Sequential(*layers)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with every illegal action's logit replaced by ``FLOAT_MIN`` (about -3.4e38).

    Args:
        logits: float32 (B, 2), [PASS, TAKE].
        mask: (B, 2), 1 = legal (any dtype). A row with no legal action (a finished game's last
            observation) gets ``FLOAT_MIN`` everywhere: a uniform, finite distribution that is never sampled.

    Returns:
        float32 (B, 2).
    """
    return torch.where(mask.bool(), logits, torch.full_like(logits, FLOAT_MIN))


def observation_size(shape: tuple[int, ...], behaviour: bool | None = None) -> int:
    """The input size of a network for observations of ``shape``: 389, or 445 with ``behaviour``.

    Args:
        shape: the ``observation`` space's shape, ``(n,)``.
        behaviour: the env's ``behaviour`` option, if known: then ``n`` must be its size; None accepts either.

    Raises:
        ValueError: naming the size expected and the one received.
    """
    sizes = {b: network_sizes(False, b)[0] for b in (False, True)}
    if behaviour is not None and tuple(shape) != (sizes[bool(behaviour)],):
        raise ValueError(
            f"observation space: expected ({sizes[bool(behaviour)]},) with behaviour "
            f"{'on' if behaviour else 'off'} (env.behaviour), got {tuple(shape)}"
        )
    if len(shape) != 1 or shape[0] not in sizes.values():
        raise ValueError(
            f"observation space: expected ({sizes[False]},), or ({sizes[True]},) with behaviour, got {tuple(shape)}"
        )
    return int(shape[0])


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """Actor-critic for ``nothanks_v0`` that masks illegal actions; one module serves every seat.

    ``model_config`` keys: ``net_arch`` (hidden sizes, default [256, 256]), ``activation`` (``"relu"`` or
    ``"tanh"``) and ``behaviour`` (optional bool: the env's ``behaviour`` option, checked against the
    observation space). The observation space must be the env's per-agent Dict space of a pass/take game;
    both networks take as many inputs as its ``observation`` holds: 389, or 445 with ``behaviour``.

    Raises:
        ValueError: for another observation or action space, an observation size that is neither 389 nor
            445 or that does not match ``behaviour``, or an unknown activation.
    """

    def setup(self) -> None:
        space = self.observation_space
        if not hasattr(space, "spaces") or set(space.spaces) != {"observation", "action_mask"}:
            raise ValueError(f"observation space: expected Dict(observation, action_mask) of nothanks_v0, got {space}")
        if getattr(self.action_space, "n", None) != 2:
            raise ValueError(
                f"action space: expected Discrete(2) (pass/take; special cards are not supported here), "
                f"got {self.action_space}"
            )
        cfg = self.model_config or {}
        hidden = list(cfg.get("net_arch", [256, 256]))
        activation = cfg.get("activation", "relu")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation: expected one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.obs_size = observation_size(space.spaces["observation"].shape, cfg.get("behaviour"))
        self.pi = mlp([self.obs_size, *hidden, 2], activation)
        self.vf = mlp([self.obs_size, *hidden, 1], activation)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: mask_logits(self.pi(obs["observation"]), obs["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """Value estimates, float32 (B,), of ``batch[Columns.OBS]["observation"]``."""
        return self.vf(batch[Columns.OBS]["observation"]).squeeze(-1)


def actor_weights(module: MaskedActorCritic) -> dict[str, torch.Tensor]:
    """The actor in :class:`training.checkpoints.MLPPolicy`'s ``layers.{i}`` naming (float32 CPU copies)."""
    linears = [m for m in module.pi if isinstance(m, torch.nn.Linear)]
    out = {}
    for i, lin in enumerate(linears):
        out[f"layers.{i}.weight"] = lin.weight.detach().cpu().float().clone().contiguous()
        out[f"layers.{i}.bias"] = lin.bias.detach().cpu().float().clone().contiguous()
    return out


def actor_weights_from_state(state: dict[str, Any]) -> dict[str, torch.Tensor]:
    """:func:`actor_weights` from a module state dict (``pi.{k}.weight``: tensors or numpy arrays)."""
    keys = sorted({int(k.split(".")[1]) for k in state if k.startswith("pi.")})
    out = {}
    for i, k in enumerate(keys):
        for part in ("weight", "bias"):
            out[f"layers.{i}.{part}"] = torch.as_tensor(np.asarray(state[f"pi.{k}.{part}"]), dtype=torch.float32)
    return out


def make_env(env_config: dict[str, Any]):
    """RLlib env creator: ``nothanks_v0.env(...)`` in RLlib's ``PettingZooEnv`` (AEC, one agent acts per step).

    ``env_config`` keys: ``game`` (a :class:`training.config.GameSection` dict with one player count),
    ``chip_memory`` (bool), ``behaviour`` (bool, default False: every seat's pass/take record appended to
    the observation) and ``reward`` (``"win"``, ``"rank"`` or ``"penalty"``). Every seat is paid its final
    reward when the game ends, whoever takes the last card.
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from nothanks_env import nothanks_v0
    from training.learning.config import GameSection

    game = GameSection.model_validate(env_config["game"])
    config = game.game_config(game.num_players[0])
    return PettingZooEnv(
        nothanks_v0.env(
            config=config,
            chip_memory=env_config["chip_memory"],
            behaviour=env_config.get("behaviour", False),
            reward=env_config["reward"],
        )
    )


class SnapshotCallback(RLlibCallback):
    """Freezes copies of the learner into the snapshot modules (RLlib's callback extension point).

    At start every slot gets the initial learner; then every ``env_config["snapshot_every"]`` env steps
    the learner is copied into slot ``(steps // every) % K``. The slot follows from the step count alone,
    so a resumed run continues the rotation. (Here rather than in :mod:`training.rllib_selfplay`, which
    imports Ray only once its command line is checked; it is still importable from there.)
    """

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        if algorithm.config.env_config.get("fill_snapshots", True):
            copy_learner(algorithm, [m for m in algorithm.config.policies if m != LEARNER])

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        every = algorithm.config.env_config["snapshot_every"]
        slots = sorted(m for m in algorithm.config.policies if m != LEARNER)
        runners = result.get(ENV_RUNNER_RESULTS, {})
        now = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
        before = now - int(runners.get(NUM_ENV_STEPS_SAMPLED, 0))
        if now // every > before // every:
            slot = slots[(now // every) % len(slots)]
            copy_learner(algorithm, [slot])
            result["snapshot_slot"] = slot


def copy_learner(algorithm: Any, module_ids: list[str]) -> None:
    """Set ``module_ids`` to the learner's current weights, on the learner and on every EnvRunner."""
    state = algorithm.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
    algorithm.set_state({"learner_group": {"learner": {"rl_module": {m: state for m in module_ids}}}})

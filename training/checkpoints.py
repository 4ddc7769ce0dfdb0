"""Checkpoints: atomic save, safe load, and the MLP policy that plays from them.

A checkpoint is a directory::

    step_000500000/
      policy.safetensors   actor weights only (what play and evaluation need), float32
      metadata.json        config, env version, observation layout, timesteps, eval results, versions,
                           the SHA-256 of every file in the directory, and ``metadata_sha256``: the
                           SHA-256 of the metadata itself (an edited value is refused on load)
      train_state.pt       (run checkpoints only) full policy + value net, optimizer, opponent pool and RNG
                           state; plain tensors and builtins, read back with ``torch.load(weights_only=True)``

It is written into a hidden ``.step_....tmp`` directory, flushed to disk and then renamed into place, so
a killed process leaves either the complete checkpoint or a ``.tmp`` directory that nothing loads.

Loading never unpickles arbitrary objects: weights come from safetensors, training state from
``torch.load(weights_only=True)``. Full SB3 ``.zip`` files unpickle code; do not load ones you did not make.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from nothanks_env import __version__ as ENV_VERSION
from nothanks_env import encoding as enc
from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS, NUM_SPECIAL_ACTIONS, SeatView
from nothanks_env.policy import Policy
from nothanks_env.vector import BatchView

CHECKPOINT_DIR: Path = Path(__file__).resolve().parent.parent / "checkpoints"
WEIGHTS_FILE = "policy.safetensors"
METADATA_FILE = "metadata.json"
TRAIN_STATE_FILE = "train_state.pt"
FORMAT_VERSION = 1

SHIPPED: dict[str, Path] = {
    "ppo-3p": CHECKPOINT_DIR / "ppo-3p",
    "ppo-3p-v6": CHECKPOINT_DIR / "ppo-3p-v6",
    "ppo-3p-v5": CHECKPOINT_DIR / "ppo-3p-v5",
    "ppo-3p-v4": CHECKPOINT_DIR / "ppo-3p-v4",
    "ppo-3p-v3": CHECKPOINT_DIR / "ppo-3p-v3",
    "ppo-3p-v2": CHECKPOINT_DIR / "ppo-3p-v2",
    "ppo-3p-v1": CHECKPOINT_DIR / "ppo-3p-v1",
    "ppo-3p-ens": CHECKPOINT_DIR / "ppo-3p-ens",
    "ppo-4p": CHECKPOINT_DIR / "ppo-4p",
    "ppo-5p": CHECKPOINT_DIR / "ppo-5p",
    "ppo-5p-v6": CHECKPOINT_DIR / "ppo-5p-v6",
    "ppo-4p-v5": CHECKPOINT_DIR / "ppo-45",
    "ppo-5p-v5": CHECKPOINT_DIR / "ppo-45",
    "ppo-4p-v4": CHECKPOINT_DIR / "ppo-45-v4",
    "ppo-5p-v4": CHECKPOINT_DIR / "ppo-45-v4",
    "ppo-4p-v3": CHECKPOINT_DIR / "ppo-45-v3",
    "ppo-5p-v3": CHECKPOINT_DIR / "ppo-45-v3",
    "ppo-4p-v2": CHECKPOINT_DIR / "ppo-45-v2",
    "ppo-5p-v2": CHECKPOINT_DIR / "ppo-45-v2",
    "ppo-4p-v1": CHECKPOINT_DIR / "ppo-45-v1",
    "ppo-5p-v1": CHECKPOINT_DIR / "ppo-45-v1",
    "ppo-mixed": CHECKPOINT_DIR / "ppo-mixed",
    "ppo-wildcards": CHECKPOINT_DIR / "ppo-wildcards",
}
"""Short names of the agents shipped in ``checkpoints/`` -> their checkpoint directories. ``ppo-4p`` is a network for
4 players only, made from the 4-5 player network ``ppo-4p-v5`` / ``ppo-5p-v5`` (one network trained on 4- and
5-player tables together). ``ppo-5p`` is a network for 5 players only: the parameter average of ``ppo-5p-v6`` and a
league fine-tune of it (``training.merge --average parameters``), of the same size; ``ppo-5p-v6``, the ``ppo-5p``
before it, was made from ``ppo-5p-v5`` by a league run at 5-player tables. ``ppo-4p-v4`` / ``ppo-5p-v4`` is the 4-5
player network ``ppo-4p-v5`` / ``ppo-5p-v5`` replaced, ``-v3`` the one before it, and so on. ``ppo-3p-v6`` is the
3-player network ``ppo-3p`` replaced, ``ppo-3p-v5`` the one before it, and so on; ``ppo-3p-ens`` the logit average of
``ppo-3p`` and a league run from scratch (``training.merge``), the rollout policy of ``best-3p``. ``ppo-wildcards``
plays only the ``wildcards`` preset, at 3 players."""

SHIPPED_SPECS: dict[str, str] = {
    # the rollout its table was measured with; when ppo-3p is replaced, pin this to the old network's new name
    "best-3p": "search:iters=8,confident=0.9,rollout=ppo-3p-ens",
    "best-3p-v1": "search:iters=8,confident=0.9,rollout=ppo-3p-v6",  # the best-3p it replaced
}
"""Short names of shipped agents that are compositions of other policies -> the policy spec they stand for
(:func:`training.specs.load_policy` resolves them)."""


class CheckpointError(ValueError):
    """A checkpoint that is incomplete, corrupted or made for another observation layout."""


class one_torch_thread:  # noqa: N801 - a context manager, named and used like a function
    """Run the torch work inside on one intra-op thread, then restore the thread count found.

    Every torch operation of a checkpoint's policy (building it, loading its weights, its forward passes) runs
    in here. With one thread torch's parallel loops run inline and never start its OpenMP thread pool, so

    - a process forked after a policy was loaded (``gymnasium.make_vec(..., vectorization_mode="async")`` with
      checkpoint opponents, on Linux's default ``fork``) does not inherit a started pool: with GNU OpenMP its
      first parallel torch operation then waited forever for the pool's threads, which a fork does not copy;
    - a forked child whose parent did start the pool (training code that imports this package) still loads and
      plays a checkpoint, as it never enters the pool;
    - these small batches stay fast: with torch's default thread count a forward pass was measured ~30x slower
      whenever the other core was busy.

    The count is process-wide while inside, and restored on the way out: the caller's own torch work is not
    changed, and nothing is set at import. A class rather than a generator: it wraps every forward pass, and
    ``contextlib.contextmanager`` cost a measured ~1.5 us (4%) of a one-row pass.
    """

    __slots__ = ("_threads",)

    def __enter__(self) -> None:
        self._threads = torch.get_num_threads()
        if self._threads > 1:
            torch.set_num_threads(1)

    def __exit__(self, *exc: object) -> None:
        if self._threads > 1:
            torch.set_num_threads(self._threads)


def observation_layout(behaviour: bool = False, special: bool = False) -> list[list[Any]]:
    """The current layout as ``[[piece name, size], ...]`` (stored in metadata, checked on load): with
    ``special`` the :data:`~nothanks_env.encoding.SPECIAL_LAYOUT` pieces follow the standard ones (configs
    with special cards), and with ``behaviour`` the :data:`~nothanks_env.encoding.BEHAVIOUR_LAYOUT` pieces last."""
    pieces = enc.LAYOUT + (enc.SPECIAL_LAYOUT if special else ()) + (enc.BEHAVIOUR_LAYOUT if behaviour else ())
    return [[p.name, p.size] for p in pieces]


def network_sizes(special: bool, behaviour: bool = False) -> tuple[int, int]:
    """(inputs, outputs) of a network: 389 inputs and 2 actions for the standard game, 499 and 125 with
    special cards (``wildcards``); :data:`~nothanks_env.encoding.BEHAVIOUR_SIZE` (56) more inputs with ``behaviour``."""
    inputs = (enc.SPECIAL_OBS_SIZE if special else enc.OBS_SIZE) + (enc.BEHAVIOUR_SIZE if behaviour else 0)
    return inputs, NUM_SPECIAL_ACTIONS if special else 2


def package_versions() -> dict[str, str]:
    """Versions of the packages a checkpoint depends on."""
    import platform

    out = {"python": platform.python_version(), "nothanks": ENV_VERSION, "numpy": np.__version__}
    out["torch"] = torch.__version__
    for mod in ("stable_baselines3", "sb3_contrib", "safetensors"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:  # pragma: no cover - optional at load time
            pass
    return out


# --------------------------------------------------------------------------- the policy


class MLPPolicy(Policy):
    """A feed-forward actor: observation -> hidden layers -> logits over the actions; batched forward.

    Standard networks take the 389-value observation and give 2 logits (PASS, TAKE); networks for the
    house special cards (``wildcards``) take the 499-value one and give 125 (:data:`nothanks_env.game.ACTION_PIECES`),
    play through :meth:`act_special` (one seat view of the scalar engine) and :meth:`act_observation`, and
    set :attr:`plays_special_cards`. The weights' shapes decide which (:func:`network_sizes`).

    The same network as the actor of SB3's ``MaskableActorCriticPolicy`` with ``net_arch=pi``; its
    weights are copied from there by :func:`actor_weights`.

    Args:
        weights: ``layers.{i}.weight`` / ``layers.{i}.bias`` tensors, the last layer with 2 outputs.
        activation: ``"relu"`` or ``"tanh"`` between hidden layers.
        chip_memory: encode observations with every seat's chips (see :mod:`nothanks_env.encoding`); must
            match how the weights were trained.
        behaviour: append every seat's public pass/take record (``encoding.BEHAVIOUR_LAYOUT``): inputs
            ``OBS_SIZE + BEHAVIOUR_SIZE`` (445) instead of ``OBS_SIZE`` (389); must match the weights.
        deterministic: argmax over legal logits (default); else sample from the masked softmax.
        seed: seeds sampling.
        name: display name.
        player_counts: the table sizes the weights were trained at (None: not known, any size plays);
            :meth:`act_batch` refuses other sizes.

    Raises:
        CheckpointError: for missing layers, an unknown activation, layer shapes that do not chain (naming the
            tensor, the shape expected and the one received), wrong input/output sizes, or weights that are not
            finite (NaN or inf).
    """

    stack: MLPStack | None = None
    """The :class:`MLPStack` this network is evaluated in during self-play rounds (set by the pool), or None."""

    def __init__(
        self,
        weights: Mapping[str, torch.Tensor],
        *,
        activation: str = "relu",
        chip_memory: bool = True,
        behaviour: bool = False,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "mlp",
        player_counts: Sequence[int] | None = None,
    ) -> None:
        super().__init__(seed)
        self.name = name
        self.player_counts: tuple[int, ...] | None = tuple(int(n) for n in player_counts) if player_counts else None
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.deterministic = deterministic
        self.activation = activation
        n = len(weights) // 2
        if n < 1 or any(f"layers.{i}.{k}" not in weights for i in range(n) for k in ("weight", "bias")):
            raise CheckpointError(f"weights: expected layers.0..layers.{n - 1} weight/bias, got {sorted(weights)}")
        act = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}.get(activation) if isinstance(activation, str) else None
        if act is None:
            raise CheckpointError(f"activation: expected 'relu' or 'tanh', got {activation!r}")
        shapes = {f"layers.{i}.weight": list(weights[f"layers.{i}.weight"].shape) for i in range(n)}
        flat = [k for k, shape in shapes.items() if len(shape) != 2]
        if flat:
            raise CheckpointError(f"weights: {flat[0]}: expected a 2-D shape [outputs, inputs], got {shapes[flat[0]]}")
        # layer i takes the outputs of layer i - 1: built so, a weight that does not chain is refused by load_weights
        sizes = [shapes["layers.0.weight"][1]] + [shape[0] for shape in shapes.values()]
        mods: list[torch.nn.Module] = []
        with one_torch_thread():  # see one_torch_thread: a process forked later must not inherit a started pool
            for i in range(n):
                mods.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
                if i < n - 1:
                    mods.append(act())
            self.net = torch.nn.Sequential(*mods)
        self.load_weights(weights)
        linears = self.linears
        sizes = (linears[0].in_features, linears[-1].out_features)
        if sizes not in (network_sizes(False, behaviour), network_sizes(True, behaviour)):
            (a, b), (c, d) = network_sizes(False, behaviour), network_sizes(True, behaviour)
            raise CheckpointError(
                f"weights: expected {a} inputs and {b} outputs (standard game) or {c} and {d} (special cards)"
                f"{' with behaviour on' if behaviour else ''}, got {sizes[0]} and {sizes[1]}"
            )
        self.obs_size, self.num_actions = sizes
        self.plays_special_cards = sizes == network_sizes(True, behaviour)
        with one_torch_thread():
            bad = [k for k, v in weights.items() if not bool(torch.isfinite(v).all())]
        if bad:
            raise CheckpointError(f"weights: expected finite numbers, got NaN or inf in {sorted(bad)}")
        self.net.eval()
        self.net.requires_grad_(False)

    @property
    def stochastic(self) -> bool:  # type: ignore[override]
        """True when it samples (``deterministic=False``): then each action draws from :attr:`rng`."""
        return not self.deterministic

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Raw logits, float32 (B, 2), for observations float32 (B, OBS_SIZE).

        Runs on one torch thread (:func:`one_torch_thread`): these batches are small, and with torch's default
        thread count a forward pass was measured ~30x slower whenever the other core was busy.
        """
        with one_torch_thread(), torch.inference_mode():
            out = self.net(torch.from_numpy(obs)).numpy()
        bad = ~np.isfinite(out).all(axis=1)
        if bad.any():
            raise ValueError(
                f"policy {self.name!r}: expected finite logits, got NaN or inf for {int(bad.sum())} of {len(out)} "
                f"observations (first: {out[bad][0].tolist()})"
            )
        return out

    def act_batch(self, view: BatchView) -> np.ndarray:
        """Masked argmax (or a sample) per game: int64 (B,), PASS (0) or TAKE (1), always legal.

        Raises:
            ValueError: if the table size is not one of :attr:`player_counts`, or the logits are not finite.
        """
        self._check_table(view.config)
        if self.plays_special_cards:
            raise ValueError(
                f"policy {self.name!r}: expected a table with special cards (it was trained on {NUM_SPECIAL_ACTIONS} "
                "actions), got a standard one (pass/take only)"
            )
        return self.act_observation(enc.encode_batch(view, self.chip_memory, self.behaviour), view.action_mask())

    def act_special(self, view: SeatView) -> int:
        """Action id for one seat view of a config with special cards (the viewer is to act); always legal.

        Raises:
            ValueError: if the network is a standard one (2 actions), or the table size is not one of
                :attr:`player_counts`.
        """
        self._check_table(view.config)
        if not self.plays_special_cards:
            raise ValueError(f"policy {self.name!r}: expected a network for special cards, got one with 2 actions")
        obs = enc.encode(view, self.chip_memory, behaviour=self.behaviour)[None]
        return int(self.act_observation(obs, enc.action_mask(view)[None])[0])

    def _check_table(self, config: Any) -> None:
        n = config.num_players
        if self.player_counts is not None and n not in self.player_counts:
            raise ValueError(
                f"policy {self.name!r}: expected a table of {list(self.player_counts)} players (what it was trained "
                f"at), got {n}"
            )

    def act_observation(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`act_batch` from encoded observations float32 (B, obs_size) and masks (B, num_actions).

        Only legal actions are ever returned: where one action is legal it is played without a draw.

        Raises:
            ValueError: if the network's logits are not finite (NaN or inf).
        """
        return self.act_from_logits(self.logits(obs), mask)

    def act_from_logits(self, logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`act_observation` from this network's logits float32 (B, num_actions) (e.g. computed for
        several networks at once by :class:`MLPStack`): int64 (B,), always legal."""
        legal = mask.astype(bool)
        if self.deterministic:
            return np.where(legal, logits, -np.inf).argmax(axis=1).astype(np.int64)
        if self.num_actions != 2:  # inverse-CDF draw from the masked softmax, one uniform per row
            cdf = np.cumsum(self._softmax(logits, mask), axis=1)
            u = self.rng.random(len(cdf))[:, None] * cdf[:, -1:]
            picked = np.minimum((cdf <= u).sum(axis=1), cdf.shape[1] - 1)
            return np.where(legal[np.arange(len(picked)), picked], picked, legal.argmax(axis=1)).astype(np.int64)
        p_take = self._softmax(logits, mask)[:, 1]
        sampled = (self.rng.random(len(p_take)) < p_take).astype(np.int64)
        return np.where(~legal[:, 0], 1, np.where(~legal[:, 1], 0, sampled)).astype(np.int64)

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The policy's distribution, the softmax over legal logits: float64 (B, 2), [P(pass), P(take)]."""
        return self._softmax(self.logits(obs), mask)

    @staticmethod
    def _softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = np.where(mask.astype(bool), logits.astype(np.float64), -np.inf)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def action_probabilities(self, view: SeatView) -> np.ndarray:
        """The sampling policy's probabilities for one seat view (the seat to act): float64 (num_actions,),
        [P(pass), P(take)] for a standard network, every action id's with special cards.

        Used by ``python -m training.replay --policy``. With ``deterministic=True`` the action played is
        the argmax of these probabilities.
        """
        if self.plays_special_cards:
            obs = enc.encode(view, self.chip_memory, behaviour=self.behaviour)[None]
            return self.probabilities(obs, enc.action_mask(view)[None])[0]
        batch = BatchView.from_seat_view(view)
        return self.probabilities(enc.encode_batch(batch, self.chip_memory, self.behaviour), batch.action_mask())[0]

    @property
    def linears(self) -> list[torch.nn.Linear]:
        """The network's linear layers, input first (``layers.{i}`` is the i-th)."""
        return [m for m in self.net if isinstance(m, torch.nn.Linear)]

    def load_weights(self, weights: Mapping[str, torch.Tensor]) -> None:
        """Copy ``layers.{i}.weight/bias`` tensors of this network's shapes into it, in place (e.g. the
        learner's newest actor into the collector's copy, without building a new network).

        Raises:
            CheckpointError: naming the tensor, if one is missing or its shape is not this network's.
        """
        pairs = [(f"layers.{i}.{k}", getattr(lin, k)) for i, lin in enumerate(self.linears) for k in ("weight", "bias")]
        for key, param in pairs:
            if key not in weights:
                raise CheckpointError(f"weights: expected tensor {key}, got tensors {sorted(weights)}")
            want, got = list(param.shape), list(weights[key].shape)
            if got != want:
                raise CheckpointError(f"weights: {key}: expected shape {want}{_shape_reason(key)}, got {got}")
        with one_torch_thread(), torch.no_grad():
            for key, param in pairs:
                param.copy_(weights[key])

    def weights(self) -> dict[str, torch.Tensor]:
        """The weights in the ``layers.{i}`` naming, contiguous CPU float32 copies."""
        out = {}
        for i, lin in enumerate(self.linears):
            out[f"layers.{i}.weight"] = lin.weight.detach().clone().contiguous()
            out[f"layers.{i}.bias"] = lin.bias.detach().clone().contiguous()
        return out


def _shape_reason(key: str) -> str:
    """Why tensor ``key`` (``layers.{i}.weight`` / ``.bias``) of a network has the shape it must have."""
    i, kind = int(key.split(".")[1]), key.rsplit(".", 1)[1]
    if kind == "bias":
        return f" (one value per output of layers.{i}.weight)"
    return f" (its inputs are the outputs of layers.{i - 1})" if i else ""


class MLPStack:
    """Several :class:`MLPPolicy` networks of one shape, evaluated together in one batched pass.

    The self-play pool's snapshots are such networks; each round of opponent moves would otherwise run one
    small forward pass per snapshot, and on small batches a pass costs its fixed overhead, not its
    arithmetic. Here each layer is one ``baddbmm`` over the networks: every network's rows are gathered
    into a zero-padded block (networks x most rows x inputs).

    Args:
        policies: networks with the same layer shapes, activation and observation options.

    Raises:
        ValueError: if they differ in shape, activation, ``chip_memory`` or ``behaviour``.
    """

    def __init__(self, policies: Sequence[MLPPolicy]) -> None:
        self.policies = list(policies)
        if not self.policies:
            raise ValueError("policies: expected at least one network, got none")
        first = self.policies[0]
        key = self.key(first)
        for pol in self.policies[1:]:
            if self.key(pol) != key:
                raise ValueError(f"policies: expected networks of one shape and options {key}, got {self.key(pol)}")
        self.chip_memory, self.behaviour = first.chip_memory, first.behaviour
        self.index = {id(p): k for k, p in enumerate(self.policies)}
        layers = [p.linears for p in self.policies]
        self.weights = [torch.stack([ls[i].weight.T for ls in layers]).contiguous() for i in range(len(layers[0]))]
        self.biases = [torch.stack([ls[i].bias[None] for ls in layers]) for i in range(len(layers[0]))]
        self.activation = torch.relu if first.activation == "relu" else torch.tanh

    @staticmethod
    def key(policy: MLPPolicy) -> tuple[Any, ...]:
        """What networks must share to be stacked: layer shapes, activation and observation options."""
        shapes = tuple(tuple(m.weight.shape) for m in policy.linears)
        return shapes, policy.activation, policy.chip_memory, policy.behaviour

    def logits(self, obs: np.ndarray, which: np.ndarray) -> np.ndarray:
        """Raw logits float32 (B, num_actions) of row ``i`` of ``obs`` (float32 (B, obs_size)) under network
        ``which[i]`` (int (B,), an index into :attr:`policies`)."""
        which = np.asarray(which, dtype=np.int64)
        counts = np.bincount(which, minlength=len(self.policies))
        order = np.argsort(which, kind="stable")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        grp = which[order]
        pos = np.arange(len(which)) - starts[grp]
        block = np.zeros((len(self.policies), int(counts.max()), obs.shape[1]), dtype=np.float32)
        block[grp, pos] = obs[order]
        with torch.inference_mode():
            h = torch.from_numpy(block)
            for i, (w, b) in enumerate(zip(self.weights, self.biases)):
                h = torch.baddbmm(b, h, w)
                if i < len(self.weights) - 1:
                    h = self.activation(h)
            out = h.numpy()
        logits = np.empty((len(which), out.shape[2]), dtype=np.float32)
        logits[order] = out[grp, pos]
        if not np.isfinite(logits).all():
            bad = sorted({self.policies[k].name for k in which[~np.isfinite(logits).all(axis=1)].tolist()})
            raise ValueError(f"policies {bad}: expected finite logits, got NaN or inf")
        return logits


def actor_weights(sb3_policy: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Copy the actor of an SB3 ``MaskableActorCriticPolicy`` (MLP extractor + action head).

    Returns:
        ``layers.{i}.weight/bias`` float32 CPU tensors, input OBS_SIZE, output 2 logits.
    """
    linears = [m for m in sb3_policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(sb3_policy.action_net)
    out = {}
    for i, lin in enumerate(linears):
        out[f"layers.{i}.weight"] = lin.weight.detach().cpu().float().clone().contiguous()
        out[f"layers.{i}.bias"] = lin.bias.detach().cpu().float().clone().contiguous()
    return out


def load_actor_weights(sb3_policy: torch.nn.Module, weights: dict[str, torch.Tensor], source: str = "weights") -> None:
    """Copy actor ``weights`` (as :func:`actor_weights` returns them) into an SB3 policy, in place.

    Raises:
        CheckpointError: naming ``source``, if the layer count or any shape differs from the policy's.
    """
    linears = [m for m in sb3_policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(sb3_policy.action_net)
    want = [tuple(lin.weight.shape) for lin in linears]
    got = [tuple(weights[f"layers.{i}.weight"].shape) for i in range(len(weights) // 2)]
    if want != got:
        raise CheckpointError(f"{source}: expected actor layer shapes {want} (this config's net_arch), got {got}")
    with torch.no_grad():
        for i, lin in enumerate(linears):
            lin.weight.copy_(weights[f"layers.{i}.weight"])
            lin.bias.copy_(weights[f"layers.{i}.bias"])


# --------------------------------------------------------------------------- saving


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


METADATA_DIGEST = "metadata_sha256"
"""Key of ``metadata.json`` holding the SHA-256 of the rest of the metadata (see :func:`metadata_digest`)."""


def metadata_digest(meta: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a checkpoint's metadata without its own :data:`METADATA_DIGEST` key.

    Computed over canonical JSON (sorted keys, no spaces), so it does not depend on the file's formatting
    but changes with any value: an edited ``chip_memory`` or layout no longer matches.
    """
    body = {k: v for k, v in meta.items() if k != METADATA_DIGEST}
    text = json.dumps(json.loads(json.dumps(body, default=str)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def write_metadata(directory: str | Path, meta: dict[str, Any]) -> None:
    """Write ``metadata.json`` into ``directory`` with its :data:`METADATA_DIGEST` (re)computed."""
    meta = {k: v for k, v in meta.items() if k != METADATA_DIGEST}
    meta[METADATA_DIGEST] = metadata_digest(meta)
    (Path(directory) / METADATA_FILE).write_text(json.dumps(meta, indent=2, sort_keys=False, default=str))


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(
    directory: str | Path,
    weights: Mapping[str, torch.Tensor],
    metadata: dict[str, Any],
    train_state: dict[str, Any] | None = None,
    *,
    overwrite: bool = False,
    extra_files: Mapping[str, str] | None = None,
) -> Path:
    """Write a checkpoint directory atomically: into ``.NAME.tmp`` beside it, then rename.

    Args:
        directory: the checkpoint directory to create.
        weights: actor weights (``layers.{i}.*``), see :func:`actor_weights`.
        metadata: JSON-able dict; must hold ``activation`` and ``chip_memory``. ``format``,
            ``observation_layout``, ``env_version``, ``package_versions`` and ``files`` (SHA-256 per file)
            are added.
        train_state: optional tensors/builtins for resuming (saved with ``torch.save``).
        overwrite: replace an existing checkpoint of that name (the old one stays whole until the swap).
        extra_files: file name -> text, written into the folder with the rest before the swap, so that the
            checkpoint never appears without them (e.g. distill's ``distill.json`` report). They are not
            listed in the metadata's ``files``.

    Returns:
        The checkpoint directory.

    Raises:
        FileExistsError: if ``directory`` exists and ``overwrite`` is false.
        ValueError: for an extra file that is not a plain file name or is one of the checkpoint's own files.
    """
    final = Path(directory)
    if final.is_symlink():  # written through the link, as a file would be: the link stays, its folder is replaced
        final = final.resolve()
    if final.exists() and not overwrite:
        raise FileExistsError(f"checkpoint {final} already exists; refusing to overwrite it")
    for key in ("activation", "chip_memory"):
        if key not in metadata:
            raise CheckpointError(f"metadata: expected key {key!r}, got keys {sorted(metadata)}")
    extra = dict(extra_files or {})
    own = (WEIGHTS_FILE, METADATA_FILE, TRAIN_STATE_FILE)
    bad = [n for n in extra if n in own or Path(n).name != n or n in ("", ".", "..")]
    if bad:
        raise ValueError(f"extra_files: expected plain file names other than {list(own)}, got {bad}")
    tmp = final.parent / f".{final.name}.tmp"
    _remove(tmp)
    tmp.mkdir(parents=True)
    save_file({k: v.contiguous() for k, v in weights.items()}, str(tmp / WEIGHTS_FILE))
    files = [WEIGHTS_FILE]
    if train_state is not None:
        torch.save(train_state, tmp / TRAIN_STATE_FILE)
        files.append(TRAIN_STATE_FILE)
    meta = dict(metadata)
    special = tuple(weights["layers.0.weight"].shape)[1] == enc.SPECIAL_OBS_SIZE
    meta.update(
        format=FORMAT_VERSION,
        env_version=ENV_VERSION,
        obs_size=network_sizes(special, bool(metadata.get("behaviour")))[0],
        num_actions=network_sizes(special)[1],
        observation_layout=observation_layout(bool(metadata.get("behaviour")), special),
        package_versions=package_versions(),
        files={f: _sha256(tmp / f) for f in files},
    )
    write_metadata(tmp, meta)
    # safetensors creates its file readable by the owner only (0600); give it the umask's mode, as every other
    # file of the checkpoint has, so a checkpoint can be shared like any file
    shutil.copymode(tmp / METADATA_FILE, tmp / WEIGHTS_FILE)
    for name, text in extra.items():
        (tmp / name).write_text(text)
    for f in [*files, METADATA_FILE, *extra]:
        _fsync(tmp / f)
    if final.exists():
        old = final.parent / f".{final.name}.old"
        _remove(old)
        os.rename(final, old)
        os.rename(tmp, final)
        shutil.rmtree(old)
    else:
        os.rename(tmp, final)
    _fsync(final.parent)
    return final


def _remove(path: Path) -> None:
    """Delete a leftover aside folder (``.NAME.tmp``/``.NAME.old``) if there is one; a link or file is unlinked."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def copy_checkpoint(src: str | Path, dst: str | Path, *, files: tuple[str, ...] | None = None) -> Path:
    """Copy a checkpoint atomically (e.g. to ``best``), optionally only some files (metadata always)."""
    src, dst = Path(src), Path(dst)
    meta = read_metadata(src)
    keep = set(files or meta["files"]) & set(meta["files"])
    tmp = dst.parent / f".{dst.name}.tmp"
    _remove(tmp)
    tmp.mkdir(parents=True)
    for f in keep:
        shutil.copy2(src / f, tmp / f)
    meta["files"] = {f: h for f, h in meta["files"].items() if f in keep}
    write_metadata(tmp, meta)
    _remove(dst)
    os.rename(tmp, dst)
    return dst


# --------------------------------------------------------------------------- loading


def resolve_checkpoint(path: str | Path) -> Path:
    """A checkpoint directory from a directory, its ``policy.safetensors`` / ``metadata.json``, or a short
    name in :data:`SHIPPED`; a leading ``~`` is the home directory.

    Raises:
        FileNotFoundError: naming the path and what was expected there.
    """
    if isinstance(path, str) and path in SHIPPED:
        path = SHIPPED[path]
    p = Path(path)
    try:
        p = p.expanduser()  # ~/runs/...: no shell expands it in a YAML config (run.init_from) or a quoted argument
    except RuntimeError:  # ~user of no such user: said as not found below
        pass
    if p.is_file() and p.name in (WEIGHTS_FILE, METADATA_FILE, TRAIN_STATE_FILE):
        p = p.parent
    if not p.is_dir():
        raise FileNotFoundError(
            f"checkpoint not found: {path} (expected a checkpoint directory with {WEIGHTS_FILE} and "
            f"{METADATA_FILE}, or one of the shipped names {sorted(SHIPPED)})"
        )
    for f in (WEIGHTS_FILE, METADATA_FILE):
        if not (p / f).is_file():
            hint = _run_folder_hint(p) if f == WEIGHTS_FILE else ""
            raise FileNotFoundError(f"checkpoint {p}: expected file {f}, which is missing{hint}")
    return p


def _run_folder_hint(p: Path) -> str:
    """For a directory laid out as a training run (``RUN/checkpoints/final``, ``best``, ``step_...``, as
    ``training.selfplay`` writes them) or as its ``checkpoints`` folder: ``"; this looks like a run folder: did you
    mean RUN/checkpoints/final?"``, naming its final checkpoint, else (a run not finished) its best, else its latest
    step checkpoint; ``""`` for any other directory. Said, never loaded in its place: which one is meant is the
    user's choice."""
    for folder, what in ((p / "checkpoints", "a run folder"), (p, "a run's checkpoints folder")):
        if not folder.is_dir():
            continue
        steps = [c for c in folder.glob("step_*") if c.name[5:].isdigit()]
        steps.sort(key=lambda c: int(c.name[5:]), reverse=True)  # the latest first
        for c in (folder / "final", folder / "best", *steps):
            if (c / WEIGHTS_FILE).is_file():
                yet = "" if c.name == "final" else " with no final checkpoint"
                return f"; this looks like {what}{yet}: did you mean {c}?"
    return ""


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a checkpoint (see :func:`resolve_checkpoint` for ``path``).

    Raises:
        FileNotFoundError: if there is no checkpoint there.
        CheckpointError: if the metadata is not valid JSON or misses required keys.
    """
    p = resolve_checkpoint(path)
    try:
        meta = json.loads((p / METADATA_FILE).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"checkpoint {p}: {METADATA_FILE} is corrupted ({e})") from e
    if not isinstance(meta, dict):
        raise CheckpointError(f"checkpoint {p}: {METADATA_FILE}: expected a JSON object, got {type(meta).__name__}")
    missing = [
        k for k in ("files", "activation", "chip_memory", "observation_layout", METADATA_DIGEST) if k not in meta
    ]
    if missing == [METADATA_DIGEST]:  # saved before metadata carried its own digest
        raise CheckpointError(
            f"checkpoint {p}: {METADATA_FILE}: expected keys {missing}, which are missing (a checkpoint saved "
            "before metadata was checksummed: if you trust it, add the digest with "
            "training.checkpoints.write_metadata(path, json.loads(metadata))"
        )
    if missing:
        raise CheckpointError(f"checkpoint {p}: {METADATA_FILE}: expected keys {missing}, which are missing")
    got = metadata_digest(meta)
    if meta[METADATA_DIGEST] != got:
        raise CheckpointError(
            f"checkpoint {p}: {METADATA_FILE} was edited or is corrupted ({METADATA_DIGEST} expected "
            f"{str(meta[METADATA_DIGEST])[:12]}..., got {got[:12]}... for its content)"
        )
    files = meta["files"]
    if not isinstance(files, dict) or WEIGHTS_FILE not in files:
        raise CheckpointError(
            f"checkpoint {p}: {METADATA_FILE}: files: expected the SHA-256 of every file, {WEIGHTS_FILE} "
            f"included, got {files!r}"
        )
    return meta


def verify_checkpoint(path: str | Path) -> dict[str, Any]:
    """Check every file's SHA-256 and the observation layout; return the metadata.

    Raises:
        FileNotFoundError: if the checkpoint or one of its files is missing.
        CheckpointError: on a hash mismatch (corrupted or truncated file), a different observation layout, or
            ``chip_memory``, ``behaviour`` or ``num_players`` of the wrong type or (table sizes) out of 3..7.
    """
    p = resolve_checkpoint(path)
    meta = read_metadata(p)
    unlisted = [f for f in (WEIGHTS_FILE, TRAIN_STATE_FILE) if (p / f).is_file() and f not in meta["files"]]
    if unlisted:
        raise CheckpointError(f"checkpoint {p}: {METADATA_FILE}: files: expected a SHA-256 for {unlisted}, got none")
    for f, digest in meta["files"].items():
        if not (p / f).is_file():
            raise FileNotFoundError(f"checkpoint {p}: expected file {f}, which is missing")
        got = _sha256(p / f)
        if got != digest:
            raise CheckpointError(
                f"checkpoint {p}: {f} is corrupted (SHA-256 expected {digest[:12]}..., got {got[:12]}...)"
            )
    for key in ("chip_memory", "behaviour"):  # read as flags: "no" or 0 must not pass for one
        if not isinstance(meta.get(key, False), bool):
            raise CheckpointError(f"checkpoint {p}: {METADATA_FILE}: {key}: expected true or false, got {meta[key]!r}")
    behaviour = meta.get("behaviour", False)
    counts = meta.get("num_players")  # absent, null or [] (a merge of networks of unknown sizes): any size plays
    if counts is not None and (
        not isinstance(counts, list)
        or not all(isinstance(n, int) and not isinstance(n, bool) and MIN_PLAYERS <= n <= MAX_PLAYERS for n in counts)
    ):
        raise CheckpointError(
            f"checkpoint {p}: {METADATA_FILE}: num_players: expected a list of table sizes in "
            f"{MIN_PLAYERS}..{MAX_PLAYERS} (the sizes it was trained at), got {counts!r}"
        )
    special = meta.get("num_actions") == NUM_SPECIAL_ACTIONS  # absent before special cards: a standard one
    if meta["observation_layout"] != observation_layout(behaviour, special):
        raise CheckpointError(
            f"checkpoint {p}: trained for observation layout {meta['observation_layout']}, "
            f"this package encodes {observation_layout(behaviour, special)}"
        )
    return meta


def load_checkpoint_policy(
    path: str | Path, *, deterministic: bool = True, seed: int | None = None, name: str | None = None
) -> MLPPolicy:
    """Build the policy of a checkpoint, reading only weights (safetensors) and metadata (JSON).

    Args:
        path: checkpoint directory, a file in it, or a shipped short name (:data:`SHIPPED`).
        deterministic: argmax over legal actions (default), else sample.
        seed: seeds sampling.
        name: display name; default the shipped name or the directory name.

    Returns:
        An :class:`MLPPolicy` that encodes observations as it was trained (``chip_memory`` and
        ``behaviour`` from metadata; ``behaviour`` absent means off),
        with a ``num_players`` attribute when it was trained at one table size.

    Raises:
        FileNotFoundError: no checkpoint at ``path``.
        CheckpointError: corrupted files or an incompatible observation layout.
    """
    p = resolve_checkpoint(path)
    meta = verify_checkpoint(p)
    try:
        weights = load_file(str(p / WEIGHTS_FILE))
    except (SafetensorError, OSError, ValueError) as e:
        raise CheckpointError(f"checkpoint {p}: {WEIGHTS_FILE} cannot be read ({e})") from e
    label = name or (str(path) if isinstance(path, str) and path in SHIPPED else p.name)
    counts = meta.get("num_players") or []  # checked by verify_checkpoint
    try:
        policy = MLPPolicy(
            weights,
            activation=meta["activation"],
            chip_memory=meta["chip_memory"],
            behaviour=meta.get("behaviour", False),
            deterministic=deterministic,
            seed=seed,
            name=label,
            player_counts=counts or None,
        )
    except CheckpointError as e:  # missing layers, shapes that do not chain, NaN: say which checkpoint
        raise CheckpointError(f"checkpoint {p}: {e}") from e
    if len(counts) == 1:  # trained at one table size (the attribute older callers read)
        policy.num_players = counts[0]
    return policy


def load_train_state(path: str | Path) -> dict[str, Any]:
    """The resume state of a run checkpoint, via ``torch.load(weights_only=True)`` after verification.

    Raises:
        FileNotFoundError: if the checkpoint has no train state.
        CheckpointError: if it is corrupted.
    """
    p = resolve_checkpoint(path)
    verify_checkpoint(p)
    if not (p / TRAIN_STATE_FILE).is_file():
        raise FileNotFoundError(f"checkpoint {p}: expected {TRAIN_STATE_FILE} to resume from, which is missing")
    try:
        return torch.load(p / TRAIN_STATE_FILE, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises several types for a bad file
        raise CheckpointError(f"checkpoint {p}: {TRAIN_STATE_FILE} cannot be read ({e})") from e

"""Random actor weights in the checkpoint naming (``layers.{i}.weight/bias``), shared by the tests."""

from __future__ import annotations

import torch

from nothanks_env import encoding as enc


def random_weights(sizes=(enc.OBS_SIZE, 16, 2), seed=0) -> dict[str, torch.Tensor]:
    """Weights and biases N(0, 0.1²) for an MLP of layer widths ``sizes``, reproducible from ``seed``."""
    g = torch.Generator().manual_seed(seed)
    return {
        k: torch.randn(*shape, generator=g) * 0.1
        for i in range(len(sizes) - 1)
        for k, shape in ((f"layers.{i}.weight", (sizes[i + 1], sizes[i])), (f"layers.{i}.bias", (sizes[i + 1],)))
    }

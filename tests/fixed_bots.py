"""Bots that return one fixed value for every decision, for the tests of how a bot's actions are read: a fraction
such as ``1.9`` is refused, not cut to a take, and ``1.0`` is TAKE. Shared by the play, web, wildcards and
Gymnasium env tests; the classes that take no argument also load as ``module:attr`` specs."""

from __future__ import annotations

import numpy as np

from nothanks_env.policy import Policy


class Returns(Policy):
    """Returns ``value`` for every decision: ``np.full`` of it from :meth:`act_batch`, the value itself from
    :meth:`act_special` (it plays special cards)."""

    plays_special_cards = True

    def __init__(self, value: object = 1.9, name: str = "returns") -> None:
        super().__init__()
        self.value, self.name = value, name

    def act_batch(self, view):
        return np.full(len(view), self.value)

    def act_special(self, view):
        return self.value


class FloatTake(Returns):
    """Plays pass/take only and returns 1.9, no action id (``int`` read it as TAKE)."""

    plays_special_cards = False

    def __init__(self) -> None:
        super().__init__(1.9, "float-take")


class WholeFloatTake(Returns):
    """Plays pass/take only and returns 1.0 (TAKE as an integral float, as from ``np.ones``), which evaluation
    accepts."""

    plays_special_cards = False

    def __init__(self) -> None:
        super().__init__(1.0, "whole-float-take")


class FloatBidder(Returns):
    """Plays special cards and returns 1.9 from both entry points (``int`` read it as action 1)."""

    def __init__(self) -> None:
        super().__init__(1.9, "float-bidder")

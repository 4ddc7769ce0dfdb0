"""A Policy that overrides only ``act()`` is played by its ``act()`` on every path that plays policies: evaluation
and the gauntlet, training.play's bots, the Gymnasium envs' opponents and the scalar self-play table.

The batched paths (evaluation, the gauntlet, the vector env) call ``act_batch`` and the single-decision paths
(training.play, the single-agent env) ``act_one``, which calls ``act_batch`` or ``act_special``. The base class's
``act_batch`` and ``act_special`` raised NotImplementedError, so such a bot played in evaluation at special-card
tables and in the scalar self-play table (which call ``act()``) and failed everywhere else.
"""

from __future__ import annotations

import io
from dataclasses import asdict

import numpy as np
import pytest

from nothanks_env.baselines import HeuristicPolicy
from nothanks_env.game import PASS, TAKE, Game, GameConfig, cards_to_mask
from nothanks_env.gym_env import SingleAgentEnv
from nothanks_env.gym_vector import NoThanksVectorEnv
from nothanks_env.policy import Policy
from nothanks_env.presets import PRESETS, resolve_config
from nothanks_env.scalar_table import ScalarLearnerTable
from nothanks_env.vector import BatchView

WILDCARDS = resolve_config(3, "wildcards")


def takes(own_chips, pot, face, held):
    """The rule both bots play at standard tables: take without chips, at a pot of 4 or more, or a card next to
    one held (bit masks: works on ints and on int64 arrays alike)."""
    near = (held >> (face - 1)) & 1 | (held >> (face + 1)) & 1
    return (own_chips == 0) | (pot >= 4) | (near == 1)


def special_choice(view) -> int:
    """The rule both bots play at special-card tables: one of the legal ids, picked by the view."""
    legal = view.legal_actions
    return legal[(view.pot + view.own_chips) % len(legal)]


class ActOnly(Policy):
    """Overrides only act(); counts its calls."""

    name = "bot"
    plays_special_cards = True

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def act(self, view):
        self.calls += 1
        if view.config.special_cards:
            return special_choice(view)
        held = cards_to_mask(view.cards[view.seat])
        return TAKE if takes(view.own_chips, view.pot, view.face_up_card, held) else PASS


class Batched(Policy):
    """The same rules written as the contract asks: act_batch, and act_special for special cards."""

    name = "bot"
    plays_special_cards = True

    def act_batch(self, view):
        held = view.cards[np.arange(len(view)), view.seat]
        return takes(view.own_chips, view.pot, view.face_up_card, held).astype(np.int64)

    def act_special(self, view):
        return special_choice(view)


def learner_action(mask) -> int:
    """The learner of the env paths: its first legal action (PASS whenever it holds a chip); PASS where nothing is
    legal (the vector env's row whose game ended, which ignores it)."""
    legal = np.flatnonzero(mask)
    return int(legal[0]) if len(legal) else PASS


def by_evaluate(bot, config=None):
    from training.evaluate import evaluate

    report = evaluate([bot], [HeuristicPolicy()], num_players=3, games=12, seed=0, config=config)
    return [asdict(p) for p in report.policies]


def by_gauntlet(bot):
    from training.gauntlet import gauntlet, parse_column

    report = gauntlet(bot, num_players=3, games=6, seed=0, columns=[parse_column("heuristic"), parse_column("random")])
    return [asdict(row.stats) for row in report.rows]


def by_play(bot):
    from training import play
    from training.tui import Display, stream_input

    game = Game(GameConfig(num_players=3, starting_seat=0))
    game.reset(seed=0)
    out = io.StringIO()
    result = play.play_game(
        game, 0, {1: bot, 2: bot}, display=Display(out, "plain"),
        input_fn=stream_input(io.StringIO("p\np\nt\n" * 100), out), save_path=None,
    )  # fmt: skip
    assert result.finished
    return result.record.actions


def by_single_env(bot, preset=None):
    env = SingleAgentEnv(num_players=3, preset=preset, opponents=bot)
    out = []
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(learner_action(info["action_mask"]))
            out.append((obs.tolist(), reward))
    return out


def by_vector_env(bot):
    envs = NoThanksVectorEnv(4, num_players=3, opponents=bot)
    obs, infos = envs.reset(seed=0)
    out = []
    for _ in range(40):
        obs, rewards, _, _, infos = envs.step(np.array([learner_action(m) for m in infos["action_mask"]]))
        out.append((obs.tolist(), rewards.tolist()))
    return out


def by_scalar_table(bot):
    seat = lambda idx: (np.zeros(len(idx), dtype=np.int64), np.zeros((len(idx), 3), dtype=np.int64))  # noqa: E731
    t = ScalarLearnerTable(WILDCARDS, 2, policy=[bot].__getitem__, seat=seat, seed=0)
    t.reset()
    out = []
    for _ in range(30):
        obs, mask = t.observe()
        out.append(obs.tolist())
        t.step(np.array([learner_action(m) for m in mask]))
    return out


PATHS = {
    "evaluate": by_evaluate,
    "gauntlet": by_gauntlet,
    "play": by_play,
    "single-env": by_single_env,
    "vector-env": by_vector_env,
    "evaluate-wildcards": lambda bot: by_evaluate(bot, WILDCARDS),
    "single-env-wildcards": lambda bot: by_single_env(bot, "wildcards"),
    "scalar-table-wildcards": by_scalar_table,
}


@pytest.mark.parametrize("path", list(PATHS))
def test_a_bot_overriding_only_act_plays_by_its_act_on_every_path(path):
    bot = ActOnly()
    played = PATHS[path](bot)
    assert bot.calls > 0  # its act() decided
    assert played == PATHS[path](Batched())  # as the same rule written as act_batch / act_special plays


def test_the_fallbacks_refuse_a_policy_that_overrides_neither_and_a_super_call_that_would_recurse():
    game = Game(GameConfig(num_players=3))
    game.reset(seed=0)
    view = game.seat_view(game.current_seat)
    with pytest.raises(NotImplementedError) as e:
        Policy().act(view)
    assert str(e.value) == "policy policy: expected a Policy subclass that overrides act_batch (or act), got neither"

    class Delegates(Policy):
        name = "delegates"
        plays_special_cards = True

        def act(self, view):
            return super().act(view)  # the base act() decides through act_batch: no rule of its own here

    with pytest.raises(NotImplementedError) as e:
        Delegates().act(view)
    assert str(e.value) == (
        "policy delegates: its act() calls Policy.act(), which decides through act_batch, which it does not "
        "override: override act_batch, or decide in act()"
    )
    special = Game(WILDCARDS)
    special.reset(seed=0)
    with pytest.raises(NotImplementedError) as e:
        Delegates().act(special.seat_view(special.current_seat))
    assert str(e.value) == (
        "policy delegates: its act() calls Policy.act(), which decides through act_special, which it does not "
        "override: override act_special, or decide in act()"
    )


def test_a_bot_overriding_only_act_batch_is_played_by_it_through_act():
    # the documented reverse: the base act() runs act_batch on a batch of one
    game = Game(GameConfig(num_players=3))
    game.reset(seed=3)
    batched, rows = Batched(), 0
    while not game.is_over:
        view = game.seat_view(game.current_seat)
        expected = int(batched.act_batch(BatchView.from_seat_view(view))[0])
        assert batched.act(view) == expected
        game.step(expected)
        rows += 1
    assert rows > 20


@pytest.mark.parametrize("preset", [p for p in PRESETS if not PRESETS[p].get("special_cards")])
@pytest.mark.parametrize("num_players", [3, 5, 7])
def test_a_batch_views_row_is_the_seat_view_it_was_made_from(preset, num_players):
    """BatchView.seat_view(i), which the act() fallback hands to act(), gives back Game.seat_view field by field."""
    config = resolve_config(num_players, preset)
    rng = np.random.default_rng(num_players)
    game = Game(config)
    checked = 0
    for seed in range(3):
        game.reset(seed=seed)
        while not game.is_over:
            view = game.seat_view(game.current_seat)
            assert BatchView.from_game(game).seat_view(0) == view
            assert BatchView.from_seat_view(view).seat_view(0) == view
            legal = view.legal_actions
            game.step(legal[int(rng.integers(len(legal)))])
            checked += 1
    assert checked > 60

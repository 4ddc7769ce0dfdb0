"""The learner-seat core: every finished game reported once, to the hook before its row is dealt again."""

from __future__ import annotations

import numpy as np
import pytest

from nothanks_env.baselines import AlwaysTakePolicy, NeverTakePolicy
from nothanks_env.game import PASS, TAKE, GameConfig
from nothanks_env.table import Finished, LearnerTable, act_grouped
from nothanks_env.vector import VectorGame


def test_table_reports_each_finished_game_once_before_dealing_again():
    cfg = GameConfig(num_players=3)
    seen: list[tuple[Finished, np.ndarray]] = []
    never = NeverTakePolicy()

    def seat(idx):
        return np.zeros(len(idx), dtype=np.int64), np.zeros((len(idx), 3), dtype=np.int64)

    table = LearnerTable(
        cfg, 8, policy=lambda _: never, seat=seat, seed=1, final_observations=True,
        on_finish=lambda fin: seen.append((fin, table.game.done[fin.rows].copy())),
    )  # fmt: skip
    table.reset()
    total = 0
    for _ in range(60):
        assert (table.game.seat == table.learner).all() and not table.game.done.any()
        fin = table.step(np.ones(8, dtype=np.int64))  # the learner takes everything
        assert len(set(fin.rows.tolist())) == len(fin)
        total += len(fin)
        for k in range(len(fin)):
            assert fin.penalties[k, 0] == fin.penalties[k].max() and fin.turns[k] == 24
            assert fin.opponents[k].tolist() == [-1, 0, 0]
    assert total == sum(len(f) for f, _ in seen) == 16
    assert all(done.all() for _, done in seen)  # the hook sees the finished game, not its successor
    assert seen[0][0].observation.shape == (len(seen[0][0]), 389)


def test_a_learner_that_never_gets_a_turn_is_an_error_not_a_hang(monkeypatch):
    monkeypatch.setattr("nothanks_env.table.MAX_UNPLAYED", 5)
    always = AlwaysTakePolicy()

    def seat(idx):  # the learner sits after seat 0, which starts and takes every card
        return np.ones(len(idx), dtype=np.int64), np.zeros((len(idx), 3), dtype=np.int64)

    table = LearnerTable(GameConfig(num_players=3, starting_seat=0), 2, policy=lambda _: always, seat=seat)
    with pytest.raises(RuntimeError, match="game 0: expected the learner to act in some game, got 5 games in a row"):
        table.reset()


def test_a_match_is_reported_once_at_its_end_with_the_match_totals():
    cfg = GameConfig(num_players=3, num_deals=3, starting_seat=0)
    never = NeverTakePolicy()

    def seat(idx):
        return np.zeros(len(idx), dtype=np.int64), np.zeros((len(idx), 3), dtype=np.int64)

    table = LearnerTable(cfg, 4, policy=lambda _: never, seat=seat, seed=2, final_observations=True)
    table.reset()
    found = []
    for _ in range(3 * 24):  # the learner takes every card of every deal: 24 turns a deal
        found.append(table.step(np.ones(4, dtype=np.int64)))
    fin = Finished.concat(found, 3)
    assert len(fin) == 4 and fin.turns.tolist() == [72] * 4
    # the learner (seat 0) takes every card it is offered. Deal 1: seat 0 starts; deal 2: seats 1 and 2
    # pass once before it takes; deal 3: seat 2 passes once. Never-take keeps its other chips.
    assert fin.penalties[:, 1:].tolist() == [[-11 - 10 - 11, -11 - 10 - 10]] * 4
    assert (fin.penalties[:, 0] > 3 * 30).all()
    assert [f.observation.shape for f in found if len(f)] == [(4, 389)]


def test_act_grouped_calls_each_policy_once_with_its_games_and_checks_them():
    calls: list[list[int]] = []

    class Recorder(AlwaysTakePolicy):
        def act_batch(self, view):
            calls.append(view.own_chips.tolist())
            return super().act_batch(view)

    vg = VectorGame(GameConfig(num_players=3), 5, seed=0)
    view = vg.view()
    view.own_chips[:] = [0, 1, 2, 3, 4]

    class Cheater(AlwaysTakePolicy):
        def act_batch(self, view):
            return np.full(len(view), PASS)

    pols = {0: Recorder(), 1: Recorder(), 2: NeverTakePolicy(), 3: Cheater()}
    acts = act_grouped(view, np.array([1, 0, 1, 0, 1]), pols.__getitem__)
    assert acts.tolist() == [TAKE] * 5 and calls == [[1, 3], [0, 2, 4]]
    with pytest.raises(ValueError, match="policy .*: expected legal actions"):
        act_grouped(view, np.array([3, 0, 0, 0, 0]), pols.__getitem__, checked=True)  # PASS with 0 chips
    assert act_grouped(view, np.array([0, 2, 2, 2, 2]), pols.__getitem__, checked=True).tolist() == [1, 0, 0, 0, 0]


def test_act_grouped_unchecked_refuses_a_fraction_and_a_wrong_shape_and_reads_whole_floats():
    # The unchecked path of self-play and the vector env assigned 1.9 into an int array: a TAKE. Int arrays of
    # the right shape still skip the check (the engine refuses an id out of range); all else is checked.
    from nothanks_env.policy import PolicyActionError

    class Returns:
        def __init__(self, name: str, out: object) -> None:
            self.name, self.out = name, out

        def act_batch(self, view):
            return self.out(len(view))

    class Stack:  # the interface of training.checkpoints.MLPStack that act_grouped reads
        chip_memory = behaviour = False

        def __init__(self) -> None:
            self.index: dict[int, int] = {}

        def logits(self, obs, which):
            return np.zeros((len(obs), 2), dtype=np.float32)

    class Net:
        name = "float-net"

        def __init__(self, stack: Stack) -> None:
            self.stack = stack
            stack.index[id(self)] = 0

        def act_from_logits(self, logits, mask):
            return np.full(len(logits), 1.9)

    view = VectorGame(GameConfig(num_players=3), 4, seed=0).view()
    pols = {
        0: Returns("fraction", lambda n: np.full(n, 1.9)),
        1: Returns("whole-float", lambda n: np.ones(n)),
        2: Returns("one-for-all", lambda n: np.ones(1, dtype=np.int64)),
        3: Returns("objects", lambda n: np.array([TAKE] * n, dtype=object)),
        4: Returns("two", lambda n: np.full(n, 2)),
        5: Net(Stack()),
    }
    assert act_grouped(view, np.array([1, 1, 1, 1]), pols.__getitem__).tolist() == [TAKE] * 4
    assert act_grouped(view, np.array([4, 4, 1, 1]), pols.__getitem__).tolist() == [2, 2, TAKE, TAKE]
    for ids, message in [
        ([1, 0, 0, 1], "policy fraction: expected whole action ids (PASS=0 or TAKE=1), got 2 of 2 that are not, "
         "the first 1.9"),
        ([2, 2, 2, 1], "policy one-for-all: expected actions of shape (3,), got (1,)"),
        ([3, 1, 1, 1], "policy objects: expected whole action ids (PASS=0 or TAKE=1), got 1"),  # as evaluation
        ([1, 5, 5, 1], "policy float-net: expected whole action ids (PASS=0 or TAKE=1), got 2 of 2 that are not, "
         "the first 1.9"),
    ]:  # fmt: skip
        with pytest.raises(PolicyActionError) as e:
            act_grouped(view, np.array(ids), pols.__getitem__)
        assert str(e.value) == message


def test_an_opponent_action_the_engine_refuses_names_the_opponent():
    # The engine's "actions[1]: expected PASS (0) or TAKE (1), got 2" named a row of the opponents' actions, which
    # read as the learner's; the table names the opponent policy, as act_grouped with checked does.
    from nothanks_env.policy import PolicyActionError

    class Two(NeverTakePolicy):
        name = "two"

        def act_batch(self, view):
            return np.where(view.own_chips > 0, 2, TAKE)

    never, two = NeverTakePolicy(), Two()

    def seat(idx):
        return np.zeros(len(idx), dtype=np.int64), np.array([[0, 0, 1]] * len(idx), dtype=np.int64)

    table = LearnerTable(GameConfig(num_players=3, starting_seat=0), 2, policy=[never, two].__getitem__, seat=seat)
    table.reset()
    before = table.game.pos.copy()
    with pytest.raises(PolicyActionError) as e:
        table.step(np.full(2, PASS))  # seat 1 passes, then seat 2 says 2
    assert str(e.value) == (
        "policy two: expected whole action ids (PASS=0 or TAKE=1), got 2 of 2 that are not, the first 2"
    )
    assert table.game.pos.tolist() == before.tolist() and table.game.seat.tolist() == [2, 2]  # seat 2 did not move


def test_the_scalar_table_refuses_a_networks_fraction_instead_of_cutting_it():
    # ScalarLearnerTable (self-play with special cards) stored act_observation's 1.9 in its int actions, a TAKE,
    # and broadcast one action to every game; it now reads them as LearnerTable does (guard_actions).
    from nothanks_env.policy import PolicyActionError
    from nothanks_env.scalar_table import ScalarLearnerTable

    class Net:
        chip_memory = behaviour = False

        def __init__(self, name: str, out) -> None:
            self.name, self.out = name, out

        def act_observation(self, obs, mask):
            assert obs.shape == (len(mask), 499) and mask.shape == (len(obs), 125)
            return self.out(mask)

    cfg = GameConfig(num_players=3, starting_seat=0, special_cards=("wild", "delete"))

    def play(net: Net) -> ScalarLearnerTable:
        passes = Net("passes", lambda mask: np.zeros(len(mask), dtype=np.int64))
        seat = lambda idx: (np.zeros(len(idx), dtype=np.int64), np.array([[-1, 0, 1]] * len(idx)))  # noqa: E731
        table = ScalarLearnerTable(cfg, 2, policy=[net, passes].__getitem__, seat=seat, seed=0)
        table.reset()
        assert [g.phase for g in table.games] == ["offer", "offer"]  # a number card up: PASS and TAKE legal
        table.step(np.full(2, PASS))  # seat 1 (net) acts next
        return table

    table = play(Net("whole-float", lambda mask: np.zeros(len(mask))))  # 0.0 is PASS
    assert [g.pot for g in table.games] == [3, 3] and [g.current_seat for g in table.games] == [0, 0]
    for out, message in [
        (lambda mask: np.full(len(mask), 1.9), "expected whole action ids (0..124), got 2 of 2 that are not, the "
         "first 1.9"),
        (lambda mask: np.zeros(1, dtype=np.int64), "expected actions of shape (2,), got (1,)"),
        (lambda mask: [0.5, 0], "expected whole action ids (0..124), got 1 of 2 that are not, the first 0.5"),
    ]:  # fmt: skip
        with pytest.raises(PolicyActionError) as e:
            play(Net("float-net", out))
        assert str(e.value) == f"policy float-net: {message}"


def test_the_scalar_table_checks_what_an_opponents_own_act_returns():
    # A bot overriding act() (not act_special) had its return stored in the int actions unchecked: 1.9 became 1, a
    # TAKE; a bid above its chips reached the engine and was refused naming no bot. Both are now read as Policy.act
    # reads (whole_actions), and legal in the phase, naming the bot and its seat.
    from nothanks_env.game import BID0, DROP, WILD, Deal
    from nothanks_env.policy import Policy, PolicyActionError
    from nothanks_env.scalar_table import ScalarLearnerTable

    class OwnAct(Policy):
        plays_special_cards = True

        def __init__(self, value: object, name: str) -> None:
            super().__init__()
            self.value, self.name = value, name

        def act(self, view):
            return self.value

    cfg = GameConfig(num_players=3, starting_seat=0, special_cards=("wild", "delete"))
    removed = (3, 4, 5, 6, 7, 8, 9, 11, 12)
    rest = sorted(c for c in cfg.all_cards if c not in removed and c != 20)

    def table(bot: Policy, front: tuple[int, ...]) -> ScalarLearnerTable:
        """2 games, learner in seat 0, ``bot`` in seats 1 and 2, each game dealt ``front`` first."""
        seat = lambda idx: (np.zeros(len(idx), dtype=np.int64), np.zeros((len(idx), 3), dtype=np.int64))  # noqa: E731
        t = ScalarLearnerTable(cfg, 2, policy=[bot].__getitem__, seat=seat, seed=0)
        t.reset()
        deck = (*front, *(c for c in (*rest, 20, WILD, -2) if c not in front))
        for g in t.games:
            g.reset(deals=[Deal(deck, removed)])
        return t

    t = table(OwnAct(0.0, "whole-float"), (20,))  # 0.0 is PASS
    t.step(np.full(2, PASS))  # every seat passes the 20: back at the learner, 3 chips on it
    assert [(g.pot, g.chips, g.current_seat) for g in t.games] == [(3, [10, 10, 10], 0)] * 2
    for bot, front, message in [
        (OwnAct(1.9, "act-1.9"), (20,), "policy act-1.9: expected whole action ids (0..124), got 1.9"),
        (OwnAct("take", "act-str"), (20,), "policy act-str: expected whole action ids (0..124), got 'take'"),
        (OwnAct(BID0 + 50, "over"), (WILD,), "policy over: expected a legal action in phase 'auction' (bid 1..11 "
         "or drop), got bid 50 with 11 chips"),
    ]:  # fmt: skip
        t = table(bot, front)
        with pytest.raises(PolicyActionError) as e:
            t.step(np.full(2, PASS if front == (20,) else BID0))  # the learner passes, or opens the auction at 0
        assert str(e.value) == f"opponent in seat 1 of game 0: {message}"
        assert [g.current_seat for g in t.games] == [1, 1]  # refused before the bot's action reached a game
        if front == (WILD,):
            assert [g.high_bid for g in t.games] == [0, 0] and t.games[0].phase == "auction"
    assert DROP in t.games[0].seat_view(1).legal_actions

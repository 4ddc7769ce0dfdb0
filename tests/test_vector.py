"""The batched engine (vector.py) against the scalar reference engine (game.py), move for move."""

from dataclasses import fields

import numpy as np
import pytest

from nothanks_env import encoding as enc
from nothanks_env.game import PASS, TAKE, Deal, Game, GameConfig, IllegalActionError, RuleError
from nothanks_env.vector import BatchView, VectorGame, card_points, ranks, winner_shares

CONFIGS = [
    GameConfig(num_players=3),
    GameConfig(num_players=5, opponent_chips="visible"),
    GameConfig(num_players=7),
    GameConfig(num_players=4, removed_face_up=(10, 20, 30), num_removed=6, starting_chips=10),
    GameConfig(num_players=6, num_removed=1),
    GameConfig(num_players=3, lowest_card=1, highest_card=12, num_removed=2, starting_chips=3),
    GameConfig(num_players=4, num_deals=3),
    GameConfig(num_players=5, num_deals=2, removed_face_up=(10, 20, 30), num_removed=6, starting_chips=10),
]


@pytest.mark.parametrize(
    "cfg", CONFIGS, ids=lambda c: f"p{c.num_players}-{c.lowest_card}-{c.highest_card}-d{c.num_deals}"
)
@pytest.mark.parametrize("chip_memory, behaviour", [(False, False), (True, False), (True, True)])
def test_vector_matches_scalar_engine_and_encoder(cfg, chip_memory, behaviour):
    b = 16
    vg = VectorGame(cfg, b, seed=3)
    games = []
    for i in range(b):
        g = Game(cfg)
        deals = [Deal(tuple(map(int, d)), tuple(map(int, r))) for d, r in zip(vg._decks[i], vg._removed[i])]
        g.reset(seed=0, deals=deals)
        g.current_seat = g.first_seat = int(vg.seat[i])
        games.append(g)
    rng = np.random.default_rng(7)
    steps = 0
    while not vg.done.all():
        live = np.flatnonzero(~vg.done)
        view = vg.view(live)
        obs = enc.encode_batch(view, chip_memory, behaviour)
        assert obs.shape == (len(live), enc.obs_size(cfg, behaviour))
        mask = view.action_mask()
        for j, i in enumerate(live):
            sv = games[i].seat_view(games[i].current_seat)
            np.testing.assert_array_equal(obs[j], enc.encode(sv, chip_memory=chip_memory, behaviour=behaviour))
            np.testing.assert_array_equal(mask[j], enc.action_mask(sv))
            np.testing.assert_array_equal(
                enc.encode_batch(BatchView.from_seat_view(sv), chip_memory, behaviour)[0], obs[j]
            )
            from_game, from_view = BatchView.from_game(games[i]), BatchView.from_seat_view(sv)
            for f in fields(BatchView):
                if f.name not in ("config", "over", "_obs_cache"):
                    np.testing.assert_array_equal(getattr(from_game, f.name), getattr(from_view, f.name), f.name)
        actions = np.where(rng.random(b) < 0.6, PASS, TAKE)
        legal = vg.legal_mask()
        actions = np.where(legal[np.arange(b), actions] == 1, actions, TAKE)
        ended = vg.step(actions)
        for i in live:
            deal_ended = games[i].step(int(actions[i]))
            assert (deal_ended and games[i].is_over) == bool(ended[i])
            assert games[i].deal_index == vg.deal_index[i]
        steps += len(live)
    for i, g in enumerate(games):
        assert g.is_over
        assert list(vg.final_penalties()[i]) == g.final_penalties()
        assert list(vg.penalties()[i]) == g.deal_penalties[-1]
        assert list(vg.chips[i]) == g.chips
    assert steps >= b * cfg.deck_size * cfg.num_deals
    for seat in range(cfg.num_players):  # the end of the game, from every seat: the terminal observations
        final = enc.encode_batch(vg.final_view(np.arange(b), np.full(b, seat)), chip_memory, behaviour)
        for i, g in enumerate(games):
            want = enc.encode(g.seat_view(seat), chip_memory=chip_memory, behaviour=behaviour)
            np.testing.assert_array_equal(final[i], want)
    with pytest.raises(RuleError, match="idx: expected finished games, got unfinished game 0"):
        VectorGame(cfg, 2, seed=0).final_view(np.array([0]), np.array([0]))


def test_batched_scores_and_shares():
    masks = np.array([[(1 << 20) | (1 << 21) | (1 << 22), (1 << 12) | (1 << 23) | (1 << 27)]], dtype=np.int64)
    assert card_points(masks, 3, 35).tolist() == [[20, 62]]
    pen = np.array([[5, 5, 9], [1, 2, 3]])
    np.testing.assert_allclose(winner_shares(pen), [[0.5, 0.5, 0], [1, 0, 0]])
    np.testing.assert_allclose(ranks(pen), [[1.5, 1.5, 3], [1, 2, 3]])


def test_vector_rejects_bad_input():
    vg = VectorGame(GameConfig(num_players=3, starting_chips=0), 2, seed=0)
    with pytest.raises(IllegalActionError, match="0 chips"):
        vg.step(np.array([PASS, TAKE]))
    with pytest.raises(IllegalActionError, match="expected PASS"):
        vg.step(np.array([2, TAKE]))
    with pytest.raises(IllegalActionError, match="shape"):
        vg.step(np.array([TAKE]))
    with pytest.raises(RuleError, match=r"config.special_cards: expected \(\) for the batched engine"):
        VectorGame(GameConfig(special_cards=("wild",)), 2)
    with pytest.raises(RuleError, match=r"expected shapes \(1, 2, 24\) and \(1, 2, 9\), got \(1, 24\)"):
        VectorGame(GameConfig(num_deals=2), 1).reset_games(
            np.ones(1, bool), deck=np.zeros((1, 24), int), removed_hidden=np.zeros((1, 9), int)
        )


def test_match_rotates_the_starting_seat_and_adds_penalties():
    vg = VectorGame(GameConfig(num_players=3, num_deals=3, starting_seat=2), 2, seed=5)
    starts, ends = [vg.seat.tolist()], 0
    while not vg.done.all():
        before = vg.deal_index.copy()
        ended = vg.step(np.full(2, TAKE))  # everyone takes: the seat to act never changes within a deal
        ends += int(ended.sum())
        if (vg.deal_index > before).any():
            starts.append(vg.seat.tolist())
    assert starts == [[2, 2], [0, 0], [1, 1]] and ends == 2
    assert vg.deal_index.tolist() == [2, 2]
    # every card of deal 3 went to seat 1, chips untouched: its last-deal penalty is the deck's points
    assert vg.penalties()[:, 1].tolist() == (card_points(vg.cards[:, 1], 3, 35) - 11).tolist()


def test_step_only_the_selected_games():
    vg = VectorGame(GameConfig(num_players=3, starting_seat=0), 3, seed=1)
    before = (vg.chips.copy(), vg.pot.copy(), vg.pos.copy(), vg.seat.copy())
    ended = vg.step(np.array([PASS, TAKE, 7]), which=np.array([True, False, False]))
    assert not ended.any()
    assert vg.chips[0].tolist() == [10, 11, 11] and vg.pot.tolist() == [1, 0, 0] and vg.seat.tolist() == [1, 0, 0]
    np.testing.assert_array_equal(vg.chips[1:], before[0][1:])  # unselected games keep their state
    np.testing.assert_array_equal(vg.pos, before[2])


def test_from_game_equals_from_seat_view_through_a_match():
    game = Game(GameConfig(num_players=4, num_deals=3, removed_face_up=(10,), num_removed=5))
    game.reset(seed=2)
    rng = np.random.default_rng(0)
    decisions = 0
    while not game.is_over:
        a, b = BatchView.from_game(game), BatchView.from_seat_view(game.seat_view(game.current_seat))
        for f in fields(BatchView):
            if f.name not in ("config", "over", "_obs_cache"):
                np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name), f.name)
        game.step(PASS if game.chips[game.current_seat] and rng.random() < 0.6 else TAKE)
        decisions += 1
    assert decisions > 3 * 20
    with pytest.raises(RuleError, match="game: expected a game in progress"):
        BatchView.from_game(game)

"""Rules engine: scripted move sequences with the expected state after each step, scores, config errors."""

from __future__ import annotations

import re

import pytest

from nothanks_env.game import (
    CHIPS_BY_PLAYERS,
    PASS,
    TAKE,
    Deal,
    Game,
    GameConfig,
    IllegalActionError,
    RuleError,
    mask_to_cards,
    score,
)

# 3 players, seat 0 starts; 3..11 removed face down; 12..35 played in this order.
DECK = (20, 21, 22, 12, 23, 27, 13, 14, 15, 16, 17, 18, 19, 24, 25, 26, 28, 29, 30, 31, 32, 33, 34, 35)
HIDDEN = (3, 4, 5, 6, 7, 8, 9, 10, 11)


def new_game(**kw) -> Game:
    cfg = GameConfig(**{"num_players": 3, "starting_seat": 0, **kw})
    g = Game(cfg)
    g.reset(seed=0, deals=[Deal(DECK, HIDDEN)])
    return g


def state(g: Game) -> tuple:
    return (g.current_seat, g.face_up_card, g.pot, list(g.chips), [mask_to_cards(m) for m in g.cards])


def test_scripted_sequence_state_after_each_step():
    g = new_game()
    assert state(g) == (0, 20, 0, [11, 11, 11], [[], [], []])
    script = [
        # (action, expected (current seat, face-up card, pot, chips, cards) after it)
        (PASS, (1, 20, 1, [10, 11, 11], [[], [], []])),
        (PASS, (2, 20, 2, [10, 10, 11], [[], [], []])),
        (TAKE, (2, 21, 0, [10, 10, 13], [[], [], [20]])),  # the taker turns the next card and acts again
        (TAKE, (2, 22, 0, [10, 10, 13], [[], [], [20, 21]])),
        (PASS, (0, 22, 1, [10, 10, 12], [[], [], [20, 21]])),
        (TAKE, (0, 12, 0, [11, 10, 12], [[22], [], [20, 21]])),
        (PASS, (1, 12, 1, [10, 10, 12], [[22], [], [20, 21]])),
        (PASS, (2, 12, 2, [10, 9, 12], [[22], [], [20, 21]])),
        (PASS, (0, 12, 3, [10, 9, 11], [[22], [], [20, 21]])),
        (TAKE, (0, 23, 0, [13, 9, 11], [[12, 22], [], [20, 21]])),
        (TAKE, (0, 27, 0, [13, 9, 11], [[12, 22, 23], [], [20, 21]])),
    ]
    for i, (action, expected) in enumerate(script):
        ended = g.step(action)
        assert not ended
        assert state(g) == expected, f"after step {i}"
        assert sum(g.chips) + g.pot == 33
    assert len(g.deck) == 24 - 5  # 5 taken; 27 is face up
    assert g.penalties() == [12 + 22 - 13, 0 - 9, 20 - 11]
    assert g.seat_view(1).cards_in_deck == 18
    assert g.seat_view(1).unseen == tuple(sorted((*DECK[6:], *HIDDEN)))


def test_pass_moves_one_chip_and_turn_clockwise_wrapping_around():
    g = new_game(num_players=5, starting_seat=3, num_removed=9)
    seats = []
    for _ in range(6):
        seats.append(g.current_seat)
        g.step(PASS)
    assert seats == [3, 4, 0, 1, 2, 3]
    assert g.pot == 6
    assert g.chips == [10, 10, 10, 9, 10]


def test_pass_at_zero_chips_raises_and_changes_nothing():
    g = new_game(starting_chips=0)
    assert g.legal_actions() == (TAKE,)
    assert g.seat_view(0).legal_actions == (TAKE,)
    before = state(g)
    with pytest.raises(IllegalActionError, match=r"action: expected TAKE \(1\) because seat 0 has 0 chips, got PASS"):
        g.step(PASS)
    assert state(g) == before
    g.step(TAKE)
    assert state(g) == (0, 21, 0, [0, 0, 0], [[20], [], []])


@pytest.mark.parametrize("action", [2, -1, True, None, "take"])
def test_action_outside_pass_take_raises(action):
    g = new_game()
    with pytest.raises(IllegalActionError, match="expected PASS"):
        g.step(action)


def test_step_after_the_end_raises():
    g = new_game()
    while not g.is_over:
        g.step(TAKE)
    assert g.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="match is over"):
        g.step(TAKE)


def test_all_24_cards_are_played_and_the_game_ends_at_the_last_take():
    g = Game(GameConfig(num_players=4))
    g.reset(seed=3)
    takes = 0
    while not g.is_over:
        assert len(g.deck) >= 1
        if g.legal_actions() == (TAKE,) or g.pot >= 2:
            takes += 1
            last = g.deck[0]
            ended = g.step(TAKE)
            assert ended == (takes == 24)
        else:
            g.step(PASS)
    assert takes == 24
    held = sorted(c for m in g.cards for c in mask_to_cards(m))
    assert held == sorted(g.deals[0].deck)
    assert last == g.deals[0].deck[-1]
    assert len(set(held) | set(g.deals[0].removed_hidden)) == 33


def test_score_examples():
    assert score([20, 21, 22], 0) == 20
    assert score([12, 23, 27], 12) == 50
    assert score([], 5) == -5
    assert score([35, 3, 34, 4, 10], 0) == 3 + 10 + 34
    with pytest.raises(RuleError, match="distinct"):
        score([5, 5], 0)
    with pytest.raises(RuleError, match="chips"):
        score([5], -1)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_chips_by_player_count(n):
    expected = {3: 11, 4: 11, 5: 11, 6: 9, 7: 7}[n]
    assert CHIPS_BY_PLAYERS[n] == expected
    cfg = GameConfig(num_players=n)
    assert cfg.chips_per_player == expected
    g = Game(cfg)
    g.reset(seed=1)
    assert g.chips == [expected] * n
    assert GameConfig(num_players=n, starting_chips=4).chips_per_player == 4


@pytest.mark.parametrize(
    ("kwargs", "field", "got"),
    [
        ({"num_players": 2}, "num_players", "2"),
        ({"num_players": 8}, "num_players", "8"),
        ({"starting_chips": -1}, "starting_chips", "-1"),
        ({"num_removed": 33}, "num_removed", "33"),
        ({"num_removed": -1}, "num_removed", "-1"),
        ({"removed_face_up": (2,)}, "removed_face_up", "2"),
        ({"removed_face_up": (36,)}, "removed_face_up", "36"),
        ({"removed_face_up": (10, 10)}, "removed_face_up", "(10, 10)"),
        ({"num_deals": 0}, "num_deals", "0"),
        ({"starting_seat": 3}, "starting_seat", "3"),
        ({"opponent_chips": "shown"}, "opponent_chips", "'shown'"),
        ({"lowest_card": 3, "highest_card": 40}, "highest_card - lowest_card + 1", "38"),
    ],
)
def test_config_errors_name_field_expected_and_got(kwargs, field, got):
    with pytest.raises(RuleError) as info:
        GameConfig(**kwargs)
    msg = str(info.value)
    assert msg.split(":")[0] == field
    assert "expected" in msg
    assert msg.endswith(f"got {got}"), msg


def test_deal_errors():
    cfg = GameConfig(num_players=3, starting_seat=0)
    g = Game(cfg)
    with pytest.raises(RuleError, match=r"deal.deck: expected 24 cards, got 23"):
        g.reset(deals=[Deal(DECK[:-1], HIDDEN)])
    with pytest.raises(RuleError, match=r"deal.removed_hidden: expected 9 cards, got 8"):
        g.reset(deals=[Deal(DECK, HIDDEN[:-1])])
    dup = (20, *DECK[1:-1], 20)
    with pytest.raises(RuleError, match=r"deal cards: expected each card of the box exactly once"):
        g.reset(deals=[Deal(dup, HIDDEN)])
    with pytest.raises(RuleError, match=r"deals: expected at most num_deals=1 deals, got 2"):
        g.reset(deals=[Deal(DECK, HIDDEN)] * 2)


def test_face_up_removals_are_never_dealt():
    cfg = GameConfig(num_players=3, removed_face_up=(10, 20, 30), num_removed=6, starting_chips=10)
    assert cfg.deck_size == 24
    for seed in range(20):
        g = Game(cfg)
        g.reset(seed=seed)
        deal = g.deals[0]
        assert not {10, 20, 30} & (set(deal.deck) | set(deal.removed_hidden))
        assert g.seat_view(0).removed_face_up == (10, 20, 30)
        assert 10 not in g.seat_view(0).unseen


def test_multi_deal_rotates_starting_seat_and_adds_penalties():
    g = Game(GameConfig(num_players=4, num_deals=3, starting_seat=1))
    g.reset(seed=5)
    starters = []
    ends = 0
    while not g.is_over:
        if g.deal_index == len(starters):
            starters.append(g.current_seat)
        # the starter takes every card of the deal: it alone scores
        ends += g.step(TAKE)
    assert starters == [1, 2, 3]
    assert ends == 3
    assert len(g.deals) == 3 and len({d.deck for d in g.deals}) == 3
    for i, deal_pen in enumerate(g.deal_penalties):
        starter = starters[i]
        assert deal_pen[starter] == score(g.deals[i].deck, 11)
        assert [p for s, p in enumerate(deal_pen) if s != starter] == [-11] * 3
    assert g.final_penalties() == [sum(d[s] for d in g.deal_penalties) for s in range(4)]
    assert g.final_penalties()[0] == -33
    ranks, winners = g.ranks_and_winners()
    assert winners == [0] and ranks[0] == 1.0


def test_random_starting_seat_comes_from_the_seed():
    seats = set()
    for seed in range(40):
        a, b = Game(GameConfig(num_players=5)), Game(GameConfig(num_players=5))
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.current_seat == b.current_seat and a.deals == b.deals
        seats.add(a.current_seat)
    assert seats == {0, 1, 2, 3, 4}


def test_ties_share_the_win():
    g = new_game(starting_chips=0)
    # seat 0 takes everything with 0 chips: the two others tie at 0 and seat 0 loses
    while not g.is_over:
        g.step(TAKE)
    ranks, winners = g.ranks_and_winners()
    assert winners == [1, 2]
    assert ranks == [3.0, 1.5, 1.5]


def test_seat_view_hides_opponent_chips_unless_visible():
    g = new_game()
    g.step(PASS)
    v = g.seat_view(1)
    assert v.chips == (None, 11, None) and v.own_chips == 11
    assert v.tracked_chips == (10, 11, 11)
    assert v.penalties == (0, -11, 0)
    v = new_game(opponent_chips="visible").seat_view(2)
    assert v.chips == (11, 11, 11)
    assert re.search("seat", repr(v))


def test_doc_examples_run():
    # The Game example printed each step's return (False ... True) where it showed no output, and failed.
    import doctest

    import nothanks_env.game

    result = doctest.testmod(nothanks_env.game, raise_on_error=False)
    assert result.failed == 0 and result.attempted > 0

"""Hypothesis properties of the rules engine over thousands of random legal games and rule variants."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nothanks_env.game import PASS, TAKE, Game, GameConfig, card_points, cards_to_mask, mask_to_cards, score


def reference_score(cards: list[int], chips: int) -> int:
    """Independent scorer: sort, walk, and count a card whenever it does not continue the previous one."""
    total, previous = 0, None
    for c in sorted(cards):
        if previous is None or c != previous + 1:
            total += c
        previous = c
    return total - chips


@st.composite
def configs(draw) -> GameConfig:
    n = draw(st.integers(3, 7))
    lo = draw(st.sampled_from([3, 3, 3, 1, 10]))
    hi = draw(st.integers(lo + 4, min(lo + 32, 60)))
    cards = list(range(lo, hi + 1))
    face_up = draw(st.lists(st.sampled_from(cards), unique=True, max_size=min(3, len(cards) - 2)))
    num_removed = draw(st.integers(0, len(cards) - len(face_up) - 1))
    return GameConfig(
        num_players=n,
        lowest_card=lo,
        highest_card=hi,
        removed_face_up=tuple(face_up),
        num_removed=num_removed,
        starting_chips=draw(st.one_of(st.none(), st.integers(0, 12))),
        num_deals=draw(st.integers(1, 2)),
        opponent_chips=draw(st.sampled_from(["hidden", "visible"])),
    )


def check_places(g: Game) -> None:
    """Every card of the box is in exactly one place: deck, face-down removals, face-up removals, a hand."""
    cfg = g.config
    places = [cards_to_mask(g.deck), cards_to_mask(g.removed_hidden), cards_to_mask(cfg.removed_face_up), *g.cards]
    union = 0
    for m in places:
        assert union & m == 0, "a card is in two places"
        union |= m
    assert union == cards_to_mask(cfg.all_cards)
    assert len(g.deck) + sum(len(mask_to_cards(m)) for m in g.cards) == cfg.deck_size


def play_and_check(cfg: GameConfig, seed: int, p_take: float) -> int:
    """Play one random legal match, checking the invariants at every step; return the number of decisions."""
    g = Game(cfg)
    g.reset(seed=seed)
    rng = random.Random(seed)
    n = cfg.num_players
    total_chips = n * cfg.chips_per_player
    decisions = takes = 0
    while not g.is_over:
        seat, deal = g.current_seat, g.deal_index
        chips = g.chips[seat]
        # the mask forbids PASS exactly at 0 chips, in the engine and in every seat's view
        assert g.legal_actions() == ((TAKE,) if chips == 0 else (PASS, TAKE))
        if decisions % 8 == 0:  # seat views are slower to build; sample them
            assert g.seat_view(seat).legal_actions == g.legal_actions()
            assert g.seat_view((seat + 1) % n).legal_actions == ()
        action = TAKE if chips == 0 or rng.random() < p_take else PASS
        if action == TAKE and len(g.deck) == 1:
            # last card of the deal: the penalties must match the independent scorer
            hands = [mask_to_cards(m) for m in g.cards]
            hands[seat].append(g.deck[0])
            final_chips = list(g.chips)
            final_chips[seat] += g.pot
            expected = [reference_score(h, c) for h, c in zip(hands, final_chips)]
            assert expected == [score(h, c) for h, c in zip(hands, final_chips)]
        ended = g.step(action)
        decisions += 1
        takes += action == TAKE
        if action == TAKE:
            assert ended == (takes == cfg.deck_size), "a deal ends exactly at its last take"
            if ended:
                assert g.deal_penalties[-1] == expected
                takes = 0
                assert g.is_over == (deal == cfg.num_deals - 1)
            else:
                assert g.current_seat == seat, "the taker acts next"
        else:
            assert not ended
            assert g.current_seat == (seat + 1) % n
        if not g.is_over:
            assert sum(g.chips) + g.pot == total_chips, "chips are conserved"
            check_places(g)
    assert len(g.deal_penalties) == cfg.num_deals
    assert g.final_penalties() == [sum(d[s] for d in g.deal_penalties) for s in range(n)]
    assert sum(h.action == TAKE for h in g.history) == cfg.deck_size * cfg.num_deals, "cards played"
    return decisions


# Each example plays several games: Hypothesis' own cost per example is larger than a game's.
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(), seed=st.integers(0, 2**32), p_take=st.floats(0.05, 1.0))
def test_random_legal_games_keep_the_invariants(cfg, seed, p_take):  # 1500 games
    for i, p in enumerate((p_take, 0.5, 0.15)):
        assert play_and_check(cfg, seed + i, p) >= cfg.deck_size * cfg.num_deals


@settings(max_examples=200, deadline=None)
@given(n=st.integers(3, 7), seed=st.integers(0, 2**32), p_take=st.floats(0.05, 1.0))
def test_standard_games_for_every_player_count(n, seed, p_take):  # 1000 games
    cfg = GameConfig(num_players=n)
    assert cfg.deck_size == 24
    for i in range(5):
        play_and_check(cfg, seed + i, p_take)


@settings(max_examples=300, deadline=None)
@given(cards=st.sets(st.integers(1, 60), max_size=30), chips=st.integers(0, 60))
def test_score_agrees_with_reference_scorer(cards, chips):
    assert score(cards, chips) == reference_score(list(cards), chips)
    assert card_points(cards_to_mask(cards)) == reference_score(list(cards), 0)

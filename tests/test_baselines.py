"""Scripted baselines: each decision rule on hand-made seat views, and the search bot's no-peeking test."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from nothanks_env.baselines import (
    BASELINES,
    AlwaysTakePolicy,
    HeuristicParams,
    HeuristicPolicy,
    NeverTakePolicy,
    RandomPolicy,
    SearchPolicy,
    ThresholdPolicy,
)
from nothanks_env.game import PASS, TAKE, Deal, Game, GameConfig
from nothanks_env.vector import BatchView, VectorGame, card_points, take_delta

CFG3 = GameConfig(num_players=3)


def make_view(
    face_up: int,
    pot: int,
    cards: list[list[int]],
    chips: list[int],
    *,
    seat: int = 0,
    cards_in_deck: int = 10,
    unseen: list[int] | None = None,
    config: GameConfig = CFG3,
) -> BatchView:
    """A batch of one view for ``seat`` to act; unseen defaults to every card not held and not face up."""
    masks = np.array([[sum(1 << c for c in cs) for cs in cards]], dtype=np.int64)
    held = {c for cs in cards for c in cs} | {face_up}
    if unseen is None:
        unseen = [c for c in config.all_cards if c not in held]
    face = np.array([face_up], dtype=np.int64)
    p = config.num_players
    return BatchView(
        config=config,
        seat=np.array([seat]),
        face_up_card=face,
        pot=np.array([pot]),
        own_chips=np.array([chips[seat]]),
        tracked_chips=np.array([chips], dtype=np.int64),
        cards=masks,
        card_points=card_points(masks, config.lowest_card, config.highest_card),
        take_delta=take_delta(masks, face),
        cards_in_deck=np.array([cards_in_deck]),
        unseen=np.array([sum(1 << c for c in unseen)], dtype=np.int64),
        match_penalties=np.zeros((1, p), dtype=np.int64),
        deals_left=np.zeros(1, dtype=np.int64),
    )


def act(policy, view: BatchView) -> int:
    return int(policy.act_batch(view)[0])


def stack(views: list[BatchView]) -> BatchView:
    """Concatenate batches of one into one batch (to check that rules are row-wise)."""
    fields = [
        "seat", "face_up_card", "pot", "own_chips", "tracked_chips", "cards", "card_points", "take_delta",
        "cards_in_deck", "unseen", "match_penalties", "deals_left",
    ]  # fmt: skip
    return BatchView(config=views[0].config, **{f: np.concatenate([getattr(v, f) for v in views]) for f in fields})


# ------------------------------------------------------------------------------------------ simple bots
def test_random_is_uniform_over_legal_actions_and_seeded():
    free = stack([make_view(20, 0, [[], [], []], [5, 5, 5])] * 2000)
    a = RandomPolicy(seed=1).act_batch(free)
    assert 0.45 < a.mean() < 0.55
    np.testing.assert_array_equal(a, RandomPolicy(seed=1).act_batch(free))
    assert not np.array_equal(a, RandomPolicy(seed=2).act_batch(free))
    broke = stack([make_view(20, 0, [[], [], []], [0, 5, 5])] * 100)
    assert (RandomPolicy(seed=1).act_batch(broke) == TAKE).all()


def test_never_and_always_take():
    rich, broke = make_view(3, 9, [[4], [], []], [5, 5, 5]), make_view(35, 0, [[], [], []], [0, 5, 5])
    assert act(NeverTakePolicy(), rich) == PASS
    assert act(NeverTakePolicy(), broke) == TAKE
    assert act(AlwaysTakePolicy(), rich) == TAKE


@pytest.mark.parametrize(
    ("face", "pot", "mine", "chips", "expected"),
    [
        (20, 14, [], 5, PASS),  # Δ − pot = 20 − 14 = 6 > 5
        (20, 15, [], 5, TAKE),  # 5 ≤ 5
        (20, 0, [19], 5, TAKE),  # Δ = 0 (extends 19)
        (20, 0, [21], 5, TAKE),  # Δ = 20 − 21 = −1
        (20, 0, [18, 22], 5, PASS),  # neighbours two apart do not help: Δ = 20
        (35, 0, [], 0, TAKE),  # forced at 0 chips
    ],
)
def test_threshold_rule(face, pot, mine, chips, expected):
    view = make_view(face, pot, [mine, [], []], [chips, 5, 5])
    assert act(ThresholdPolicy(T=5), view) == expected


def test_rules_are_row_wise():
    views = [make_view(20, p, [[], [], []], [5, 5, 5]) for p in range(0, 20)]
    got = ThresholdPolicy(T=5).act_batch(stack(views))
    assert got.tolist() == [act(ThresholdPolicy(T=5), v) for v in views] == [PASS] * 15 + [TAKE] * 5


# ------------------------------------------------------------------------------------------ heuristic
# Fixed parameters so that these tests do not move when the defaults are re-tuned.
PARAMS = dict(
    base=8.0, scarcity=3.0, scarce_chips=3, late=0.0, future=0.0, block=4.0, milk_opp_T=10.0, milk_min_chips=2
)


def heur(**kw) -> HeuristicPolicy:
    return HeuristicPolicy(**(PARAMS | kw))


def test_heuristic_threshold_part():
    h = heur(milk_opp_T=-99.0)  # opponents never "likely to take": no milking unless they are broke
    h_no_milk = heur(milk_min_chips=99)
    # card 30, pot 21: Δ − pot = 9 > base 8 -> PASS; pot 22: 8 ≤ 8 -> TAKE (when not milking).
    assert act(h_no_milk, make_view(30, 21, [[], [], []], [9, 9, 9])) == PASS
    assert act(h_no_milk, make_view(30, 22, [[], [], []], [9, 9, 9])) == TAKE
    # scarcity: with 1 chip the threshold is 8 + 3 * (3 - 1) = 14, so pot 16 (Δ − pot = 14) is taken.
    assert act(h_no_milk, make_view(30, 16, [[], [], []], [1, 9, 9])) == TAKE
    assert act(h_no_milk, make_view(30, 16, [[], [], []], [5, 9, 9])) == PASS
    # block: an opponent holds 31, so the threshold is 8 + 4 = 12; pot 18 (Δ − pot = 12) is taken.
    assert act(h_no_milk, make_view(30, 18, [[], [31], []], [9, 9, 9])) == TAKE
    assert act(h_no_milk, make_view(30, 18, [[], [], []], [9, 9, 9])) == PASS
    # forced
    assert act(h, make_view(35, 0, [[], [], []], [0, 9, 9])) == TAKE


def test_heuristic_milks_only_when_nobody_will_take():
    h = heur()
    # 20 extends our 19 (Δ = 0); opponents' Δ − pot ≥ 20 − 2 = 18 > 10: nobody takes it, so milk it.
    assert act(h, make_view(20, 0, [[19], [], []], [5, 5, 5])) == PASS
    # an opponent holding 21 (Δ = −1) would take it: take it now.
    assert act(h, make_view(20, 0, [[19], [21], []], [5, 5, 5])) == TAKE
    # a broke opponent must take it: take it now.
    assert act(h, make_view(20, 0, [[19], [], []], [5, 0, 10])) == TAKE
    # big pot: the next seat sees 11 chips, 20 − 11 = 9 ≤ 10, it would take: take now.
    assert act(h, make_view(20, 10, [[19], [], []], [5, 5, 5])) == TAKE
    # too few chips of our own to risk milking.
    assert act(h, make_view(20, 0, [[19], [], []], [1, 5, 9])) == TAKE


def test_heuristic_reads_opponent_chips_only_through_chip_memory():
    # Seat 1 is broke. With memory the bot knows and takes; without it, it estimates each opponent at half
    # of the chips neither its own nor in the pot ((33 - 5 - 0) / 2 = 14) and milks.
    view = make_view(20, 0, [[19], [], []], [5, 0, 10])
    assert act(heur(chip_memory=True), view) == TAKE
    assert act(heur(chip_memory=False), view) == PASS
    visible = make_view(20, 0, [[19], [], []], [5, 0, 10], config=GameConfig(num_players=3, opponent_chips="visible"))
    assert act(heur(chip_memory=False), visible) == TAKE


def test_heuristic_future_term_uses_unseen_cards():
    h = heur(future=6.0, milk_min_chips=99)
    # 21 and 19 unseen, all 10 unseen cards still in the deck (p = 1): threshold 8 + 6 * 2 = 20.
    unseen = [19, 21, 3, 4, 5, 6, 7, 8, 9, 10]
    assert act(h, make_view(20, 0, [[], [], []], [9, 9, 9], unseen=unseen, cards_in_deck=10)) == TAKE
    # the same with both neighbours already seen elsewhere: threshold 8 -> PASS.
    seen = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert act(h, make_view(20, 0, [[], [], []], [9, 9, 9], unseen=seen, cards_in_deck=10)) == PASS


def test_heuristic_name_records_parameters():
    assert HeuristicPolicy().name == "heuristic"
    assert HeuristicPolicy(base=1.5).name == "heuristic:base=1.5"
    with pytest.raises(TypeError, match="bogus"):
        HeuristicPolicy(bogus=1)


# ------------------------------------------------------------------------------------------ search
def test_search_takes_when_forced_and_plays_obvious_endgames():
    s = SearchPolicy(iters=8, seed=0)
    assert act(s, make_view(35, 0, [[], [], []], [0, 5, 5])) == TAKE
    # Last card: 35 with nothing on it and plenty of chips: a pass costs 1 point, a take 35.
    last = dict(cards_in_deck=0, unseen=list(range(3, 12)))
    assert act(s, make_view(35, 0, [[20], [21], [22]], [9, 9, 9], **last)) == PASS
    # Last card 23 extends our 22 with 6 chips on it, and joins seat 1's 24: if we pass, seat 1 takes it
    # (-1 point and 7 chips for it); if we take it we gain 6 points. Take.
    assert act(s, make_view(23, 6, [[22], [24], [21]], [9, 9, 9], **last)) == TAKE
    # With nobody else wanting it, letting it go round once more is worth 2 chips: the search milks it.
    assert act(s, make_view(23, 6, [[22], [20], [26]], [9, 9, 9], **last)) == PASS


class SurePass(NeverTakePolicy):
    """A rollout policy that reports its probabilities: P(pass) = ``p`` wherever passing is legal."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p, self.chip_memory = p, True

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.where(mask[:, :1], np.array([[self.p, 1 - self.p]]), np.array([[0.0, 1.0]]))


def test_search_skips_decisions_its_rollout_policy_is_sure_of():
    # Last card 23 extends our 22 with 6 chips on it and seat 1 would take it: searching takes it.
    view = make_view(23, 6, [[22], [24], [21]], [9, 9, 9], cards_in_deck=0, unseen=list(range(3, 12)))
    assert act(SearchPolicy(iters=8, seed=0, rollout=SurePass(0.95)), view) == TAKE  # confident=1: searched
    assert act(SearchPolicy(iters=8, seed=0, confident=0.9, rollout=SurePass(0.95)), view) == PASS  # skipped
    assert act(SearchPolicy(iters=8, seed=0, confident=0.9, rollout=SurePass(0.6)), view) == TAKE  # unsure
    assert SearchPolicy(confident=0.9).name == "search:confident=0.9"


def _states(n_games: int, seed: int):
    """Mid-game (game, history) pairs from heuristic self-play, with the deal each game used."""
    rng = random.Random(seed)
    out = []
    h = HeuristicPolicy()
    for _ in range(n_games):
        g = Game(CFG3)
        g.reset(seed=rng.randrange(10**6))
        actions = []
        stop = rng.randrange(5, 40)
        while not g.is_over and len(actions) < stop:
            a = h.act(g.seat_view(g.current_seat))
            actions.append(a)
            g.step(a)
        if not g.is_over and g.chips[g.current_seat] > 0:
            out.append((g, actions))
    return out


def _permuted_hidden(g: Game, actions: list[int], rng: random.Random) -> Game:
    """The same public history with the unseen cards (rest of the deck + hidden removals) reshuffled."""
    deal = g.deals[0]
    played = len(deal.deck) - len(g.deck) + 1  # taken cards plus the face-up one
    hidden = list(deal.deck[played:]) + list(deal.removed_hidden)
    while True:
        rng.shuffle(hidden)
        new = Deal(deck=deal.deck[:played] + tuple(hidden[: len(deal.deck) - played]),
                   removed_hidden=tuple(sorted(hidden[len(deal.deck) - played :])))  # fmt: skip
        if new != deal or not hidden:
            break
    g2 = Game(CFG3)
    g2.reset(seed=0, deals=[new])
    g2.current_seat = g2.first_seat = g.first_seat
    for a in actions:
        g2.step(a)
    return g2


@pytest.mark.parametrize("chip_memory", [True, False])
def test_search_never_reads_hidden_state(chip_memory):
    rng = random.Random(7)
    decisions = []
    for g, actions in _states(14, seed=3):
        g2 = _permuted_hidden(g, actions, rng)
        assert g2.deck[0] == g.deck[0] and g2.deck != g.deck or len(g.deck) <= 1  # the hidden part differs
        v1 = BatchView.from_seat_view(g.seat_view(g.current_seat))
        v2 = BatchView.from_seat_view(g2.seat_view(g2.current_seat))
        if not chip_memory:  # opponents' chips are hidden from it: give them other counts, same total
            me = int(v2.seat[0])
            opp = [s for s in range(3) if s != me]
            v2.tracked_chips[0, opp] = [0, v2.tracked_chips[0, opp].sum()]  # one broke opponent
            assert v2.tracked_chips[0].sum() == v1.tracked_chips[0].sum()
        bot = SearchPolicy(iters=6, chip_memory=chip_memory)
        bot.seed(11)
        a1 = act(bot, v1)
        bot.seed(11)
        assert act(bot, v2) == a1
        decisions.append(a1)
    assert len(decisions) >= 8 and set(decisions) == {PASS, TAKE}  # the test sees real choices


def test_search_without_chip_memory_ignores_opponent_chip_counts():
    # 20 extends our 19. Whether an opponent is broke decides the heuristic's milking (see above), so a
    # bot that let its fallback read the true counts would answer these two views differently.
    broke, even = [5, 0, 28], [5, 14, 14]
    for seed in range(3):
        bot = SearchPolicy(iters=4, chip_memory=False, min_z=99.0)  # always the fallback choice
        bot.seed(seed)
        a = act(bot, make_view(20, 0, [[19], [], []], broke))
        bot.seed(seed)
        assert act(bot, make_view(20, 0, [[19], [], []], even)) == a == PASS
    assert act(SearchPolicy(iters=4, chip_memory=True, min_z=99.0), make_view(20, 0, [[19], [], []], broke)) == TAKE


def test_stochastic_flags_tell_the_truth():
    """``Policy.stochastic`` decides whether the Gymnasium vector env copies a policy per sub-env."""
    vg = VectorGame(GameConfig(num_players=4), 256, seed=0)
    view = vg.view()
    for name, cls in BASELINES.items():
        kwargs = {"iters": 4} if name == "search" else {}
        a, b = cls(seed=1, **kwargs), cls(seed=2, **kwargs)
        differs = not np.array_equal(a.act_batch(view), b.act_batch(view))
        assert differs == cls.stochastic, name


def test_search_refuses_an_empty_model_T_range():
    with pytest.raises(ValueError, match=r"model_T: expected \(low, high\) with low <= high, got \(5, 1\)"):
        SearchPolicy(model_T=(5, 1))
    assert SearchPolicy(model_T=(3, 3)).model_T == (3, 3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confident": -1.0}, r"confident: expected a probability in \(0, 1\], got -1.0"),  # it searched nothing
        ({"confident": 1.5}, r"confident: expected a probability in \(0, 1\], got 1.5"),
        ({"confident": 0.0}, r"confident: expected a probability in \(0, 1\], got 0.0"),
        ({"p_model": 1.2}, r"p_model: expected a probability in \[0, 1\], got 1.2"),
    ],
)
def test_search_refuses_probabilities_out_of_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SearchPolicy(**kwargs)
    assert SearchPolicy(confident=1.0, p_model=0.0).confident == 1.0


def test_heuristic_declares_the_defaults_of_its_keyword_parameters():
    # policy specs check each heuristic:k=v against the kind of its default
    assert HeuristicPolicy.PARAM_DEFAULTS == dataclasses.asdict(HeuristicParams())
    assert tuple(HeuristicPolicy.PARAM_DEFAULTS) == HeuristicPolicy.PARAM_NAMES

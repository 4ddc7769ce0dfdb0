"""The ``behaviour`` observation option: every seat's public pass/take record of the deal."""

import numpy as np
import pytest
import torch
from pettingzoo.test import api_test

from nothanks_env import encoding as enc
from nothanks_env import nothanks_v0
from nothanks_env.game import BEHAVIOUR_FIELDS, PASS, TAKE, Deal, Game, GameConfig
from nothanks_env.vector import BatchView, VectorGame
from training import checkpoints as ckpt

DECK = (20, 21, 22, 12, 23, 27, 13, 14, 15, 16, 17, 18, 19, 24, 25, 26, 28, 29, 30, 31, 32, 33, 34, 35)
HIDDEN = (3, 4, 5, 6, 7, 8, 9, 10, 11)
# s0 passes 20 (pot 0), s1 passes 20 (pot 1), s2 takes 20 (pot 2) and 21 (pot 0: extends its run),
# s2 passes 22 (pot 0: it would extend the run, cost 0), s0 passes 22 (pot 1); s1 to act.
SCRIPT = [PASS, PASS, TAKE, TAKE, PASS, PASS]
# passes, free_takes, take_cost_max, take_raw_max, pass_cost_min, pass_raw_min
EXPECTED = {0: (2, 0, 0, 0, 20, 20), 1: (1, 0, 0, 0, 19, 19), 2: (1, 2, 18, 21, 0, 22)}


def scripted_game() -> Game:
    g = Game(GameConfig(num_players=3, starting_seat=0))
    g.reset(seed=0, deals=[Deal(DECK, HIDDEN)])
    for a in SCRIPT:
        g.step(a)
    return g


def test_records_follow_the_script_by_hand():
    g = scripted_game()
    assert len(BEHAVIOUR_FIELDS) == 6
    view = g.seat_view(1)
    assert view.behaviour == tuple(EXPECTED[s] for s in range(3))
    assert g.seat_view(0).behaviour == view.behaviour  # public: the same for every seat


def test_encoded_pieces_rotate_to_the_viewer_and_scale():
    g = scripted_game()
    obs = enc.encode(g.seat_view(1), chip_memory=True, behaviour=True)
    assert obs.shape == (enc.OBS_SIZE + enc.BEHAVIOUR_SIZE,) == (445,)
    np.testing.assert_array_equal(obs[: enc.OBS_SIZE], enc.encode(g.seat_view(1), chip_memory=True))
    parts = enc.split(obs)
    got = {name: parts[name][:3].tolist() for name in parts if name in {p.name for p in enc.BEHAVIOUR_LAYOUT}}
    f = np.float32
    # slots from seat 1's view: 0 = seat 1, 1 = seat 2, 2 = seat 0
    assert got == {
        "seat_passes": [f(1 / 55), f(1 / 55), f(2 / 55)],
        "seat_free_takes": [0.0, f(2 / 33), 0.0],
        "seat_took": [0.0, 1.0, 0.0],
        "seat_take_cost_max": [0.0, f(18 / 35), 0.0],
        "seat_take_raw_max": [0.0, f(21 / 35), 0.0],
        "seat_passed": [1.0, 1.0, 1.0],
        "seat_pass_cost_min": [f(19 / 35), 0.0, f(20 / 35)],
        "seat_pass_raw_min": [f(19 / 35), f(22 / 35), f(20 / 35)],
    }
    assert not obs[enc.OBS_SIZE :].reshape(8, 7)[:, 3:].any()  # absent seats stay zero


def test_a_forced_take_is_not_a_choice():
    g = Game(GameConfig(num_players=3, starting_seat=0, starting_chips=1))
    g.reset(seed=0, deals=[Deal(DECK, HIDDEN)])
    for a in (PASS, PASS, PASS, TAKE):  # seat 0 has no chip left: it must take
        g.step(a)
    assert g.seat_view(0).behaviour[0] == (1, 0, 0, 0, 20, 20)


def test_the_batched_engine_keeps_the_same_records_and_resets_them_each_deal():
    cfg = GameConfig(num_players=3, starting_seat=0, num_deals=2)
    vg = VectorGame(cfg, 1, seed=0)
    deck = np.array([[DECK, DECK]])
    vg.reset_games(np.ones(1, bool), deck=deck, removed_hidden=np.array([[HIDDEN, HIDDEN]]), first_seat=np.zeros(1))
    for a in SCRIPT:
        vg.step(np.array([a]))
    assert vg.view().behaviour[0].tolist() == [list(EXPECTED[s]) for s in range(3)]
    while vg.deal_index[0] == 0:
        vg.step(np.array([TAKE]))
    assert not vg.behaviour.any()  # the second deal starts with empty records
    sv = scripted_game().seat_view(1)
    assert BatchView.from_seat_view(sv).behaviour.tolist() == [[list(EXPECTED[s]) for s in range(3)]]


def test_views_without_records_are_refused_for_behaviour():
    g = scripted_game()
    view = BatchView.from_game(g)
    view.behaviour = None
    with pytest.raises(ValueError, match=r"view.behaviour: expected every seat's record"):
        enc.encode_batch(view, True, behaviour=True)


def test_aec_env_with_behaviour_passes_the_api_test_and_bounds_hold():
    e = nothanks_v0.env(num_players=4, behaviour=True, chip_memory=True)
    api_test(e, num_cycles=200)
    raw = nothanks_v0.raw_env(num_players=5, behaviour=True)
    space = raw.observation_space("player_0")["observation"]
    assert space.shape == (445,)
    rng = np.random.default_rng(0)
    raw.reset(seed=1)
    while not raw.game.is_over:
        obs = raw.observe(raw.agent_selection)
        assert space.contains(obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        raw.step(int(rng.choice(legal)))
    with pytest.raises(ValueError, match="behaviour: expected True or False, got 1"):
        nothanks_v0.raw_env(behaviour=1)


def test_checkpoints_record_behaviour_and_load_with_it(tmp_path):
    torch.manual_seed(0)
    sizes = [445, 16, 2]
    w = {}
    for i in range(2):
        w[f"layers.{i}.weight"] = torch.randn(sizes[i + 1], sizes[i])
        w[f"layers.{i}.bias"] = torch.randn(sizes[i + 1])
    path = ckpt.save_checkpoint(tmp_path / "b", w, {"activation": "relu", "chip_memory": True, "behaviour": True})
    meta = ckpt.verify_checkpoint(path)
    assert meta["obs_size"] == 445 and meta["observation_layout"][-1] == ["seat_pass_raw_min", 7]
    pol = ckpt.load_checkpoint_policy(path)
    assert pol.behaviour is True
    g = scripted_game()
    view = BatchView.from_game(g)
    obs = enc.encode_batch(view, True, True)
    assert pol.act_batch(view).tolist() == pol.act_observation(obs, view.action_mask()).tolist()
    with pytest.raises(
        ckpt.CheckpointError,
        match=r"expected 389 inputs and 2 outputs \(standard game\) or 499 and 125 \(special cards\), got 445 and 2",
    ):
        ckpt.MLPPolicy(w, behaviour=False)


def test_a_warm_start_without_behaviour_acts_as_before(tmp_path):
    from training.config import load_config
    from training.selfplay import init_actor_weights

    cfg = load_config(
        "configs/smoke.yaml", overrides=["env.behaviour=true", "run.init_from=ppo-3p-v2", "ppo.net_arch=[128,128]"]
    )
    weights = init_actor_weights(cfg)
    assert weights["layers.0.weight"].shape == (128, 445)
    assert not weights["layers.0.weight"][:, enc.OBS_SIZE :].any()
    widened = ckpt.MLPPolicy(weights, behaviour=True)
    original = ckpt.load_checkpoint_policy("ppo-3p-v2")
    g = scripted_game()
    view = BatchView.from_game(g)
    np.testing.assert_array_equal(
        widened.logits(enc.encode_batch(view, True, True)), original.logits(enc.encode_batch(view, True))
    )


def test_a_warm_start_into_wider_hidden_layers_acts_as_before_and_then_learns():
    from training.config import ConfigError, load_config
    from training.selfplay import init_actor_weights, widen_hidden

    cfg = load_config(
        "configs/smoke.yaml", overrides=["env.behaviour=true", "run.init_from=ppo-3p", "ppo.net_arch=[256,192]"]
    )
    weights = init_actor_weights(cfg)
    assert [tuple(weights[f"layers.{i}.weight"].shape) for i in range(3)] == [(256, 445), (192, 256), (2, 192)]
    assert not weights["layers.1.weight"][:128, 128:].any() and not weights["layers.2.weight"][:, 128:].any()
    new_in = weights["layers.0.weight"][128:]
    assert new_in.abs().max() <= 1 / 445**0.5 and new_in.std() > 0.01  # drawn, not zero
    widened = ckpt.MLPPolicy(weights, behaviour=True)
    original = ckpt.load_checkpoint_policy("ppo-3p")
    view = BatchView.from_game(scripted_game())
    obs = enc.encode_batch(view, True, True)
    np.testing.assert_allclose(widened.logits(obs), original.logits(obs), rtol=0, atol=1e-5)
    # the new units are live: with the last layer's zero columns set, the logits move
    weights["layers.2.weight"][:, 128:] = 1.0
    assert np.abs(ckpt.MLPPolicy(weights, behaviour=True).logits(obs) - original.logits(obs)).max() > 0.1
    with pytest.raises(ValueError, match=r"widths\[0\]: expected at least the checkpoint's 128, got 64"):
        widen_hidden(original.weights(), [64, 128])
    narrow = load_config("configs/smoke.yaml", overrides=["env.behaviour=true", "run.init_from=ppo-3p"])  # 32x32
    with pytest.raises(ConfigError, match=r"expected actor layer shapes \[\(32, 445\)"):
        init_actor_weights(narrow)


def test_search_worlds_start_from_the_view_records():
    from nothanks_env.baselines.heuristic import HeuristicPolicy
    from nothanks_env.baselines.search import SearchPolicy

    seen = []

    class Recorder(HeuristicPolicy):
        behaviour = True  # declares that it reads the records, as a network trained with them does

        def act_batch(self, view):
            seen.append(view.behaviour.copy())
            return super().act_batch(view)

    g = scripted_game()
    view = BatchView.from_game(g)  # seat 1 to act; seats 0 and 2 have records
    SearchPolicy(iters=4, rollout=Recorder(), seed=0).act_batch(view)
    assert len(seen[0]) == 1  # the search's own first guess, on the real view
    first = seen[1]  # the worlds, after the searching seat's PASS/TAKE, before anyone else acts
    assert first.shape == (2 * 4, 3, 6)
    for seat in (0, 2):
        assert (first[:, seat] == view.behaviour[0, seat]).all()
    assert not SearchPolicy(iters=4, seed=0)._world_game(view.config, 8).record_behaviour

    # a search over such a policy reads the records too: a search over it keeps them in its worlds (it played its
    # worlds without them, and the inner policy's encoder failed mid-game: "view.behaviour: expected every seat's
    # record", e.g. search:model=best-3p)
    seen.clear()
    inner = SearchPolicy(iters=1, rollout=Recorder(), seed=0)
    outer = SearchPolicy(iters=2, rollout=inner, seed=0)
    assert inner.behaviour and outer.behaviour and not SearchPolicy().behaviour
    outer.act_batch(view)
    assert len(seen) > 3 and all(b is not None and b.shape[1:] == (3, 6) for b in seen)
    assert outer._world_game(view.config, 8).record_behaviour


def test_records_can_be_switched_off_and_then_are_not_read_silently():
    vg = VectorGame(GameConfig(num_players=3), 8, seed=0, record_behaviour=False)
    for _ in range(20):
        vg.step(np.where(vg.action_mask()[:, PASS] == 1, PASS, TAKE))
    assert not vg.behaviour.any() and vg.view().behaviour is None
    with pytest.raises(ValueError, match=r"view.behaviour: expected every seat's record"):
        enc.encode_batch(vg.view(), True, behaviour=True)


def test_self_play_keeps_records_only_when_someone_reads_them():
    from training.learning.pool import OpponentPool
    from training.learning.vec_env import SelfPlayVecEnv
    from training.specs import load_policy

    cfg = GameConfig(num_players=3)

    def tables(behaviour, member):
        pool = OpponentPool({member: (1.0, {3: load_policy(member, num_players=3)})}, seed=0)
        env = SelfPlayVecEnv([cfg], 4, pool, behaviour=behaviour)
        return [t.game.record_behaviour for t in env.tables]

    assert tables(False, "heuristic") == [False]
    assert tables(True, "heuristic") == [True]
    assert tables(False, "ppo-3p") == [True]  # a pool member that reads them
    assert tables(False, "search:iters=1,rollout=ppo-3p") == [True]  # or one whose rollout does


def test_threshold_range_is_what_a_threshold_bot_could_have_done():
    from nothanks_env.baselines.search import threshold_range

    view = BatchView.from_game(scripted_game())
    lo, hi = threshold_range(view.behaviour[0])
    # s0 passed at cost 20 and s1 at 19 (T below that, the default low bound 0); s2 took at cost 18 but
    # passed at 0: no threshold fits, so the band between
    assert lo.tolist() == [0, 0, -1] and hi.tolist() == [19, 18, 18]
    f = {name: i for i, name in enumerate(BEHAVIOUR_FIELDS)}
    rec = np.zeros((3, len(BEHAVIOUR_FIELDS)), dtype=np.int64)
    rec[0, [f["free_takes"], f["take_cost_max"]]] = (2, 20)  # took at 20, never passed: T >= 20
    rec[1, [f["passes"], f["pass_cost_min"]]] = (3, -6)  # passed at -6, never took: T <= -7
    rec[2, [f["passes"], f["pass_cost_min"], f["free_takes"], f["take_cost_max"]]] = (1, 5, 1, 2)  # 2 <= T <= 4
    lo, hi = threshold_range(rec, (0, 14))
    assert lo.tolist() == [20, -7, 2] and hi.tolist() == [20, -7, 4]


def test_search_with_fit_T_models_thresholds_inside_each_seats_range():
    from nothanks_env.baselines.search import SearchPolicy, threshold_range

    view = BatchView.from_game(scripted_game())
    lo, hi = threshold_range(view.behaviour[0])
    fitted = SearchPolicy(iters=256, fit_T=True, seed=0)._draw_T(view, np.array([0]))
    assert fitted.shape == (1, 256, 3)
    for seat in range(3):
        assert fitted[0, :, seat].min() == lo[seat] and fitted[0, :, seat].max() == hi[seat]
    blind = SearchPolicy(iters=256, seed=0)._draw_T(view, np.array([0]))
    assert blind.min() == 0 and blind.max() == 14  # model_T, whatever the records say
    assert SearchPolicy(iters=4, fit_T=True).name == "search:iters=4,fit_T=True"

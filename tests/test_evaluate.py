"""Evaluation harness: statistics on a rigged case, seat rotation and duplicate deals, reproducibility, specs."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from nothanks_env.baselines import AlwaysTakePolicy, HeuristicPolicy, NeverTakePolicy, RandomPolicy, ThresholdPolicy
from nothanks_env.game import GameConfig
from nothanks_env.outcome import win_shares as winner_shares
from nothanks_env.policy import Policy
from nothanks_env.vector import card_points
from training import evaluate as ev
from training.specs import list_baselines, load_policy


def test_rigged_never_take_against_always_take():
    """One never-take N against one always-take object A in two seats; seat 0 acts first.

    Whoever of A is first to act takes all 24 cards (a taker acts again, and A always takes):
    - N in seat 0: N passes once (10 chips); seat 1 takes everything with that chip; seat 2 (A, 11 chips)
      wins alone. N: penalty -10, rank 2, win 0.
    - N in seat 1 or 2: the A in seat 0 takes everything; N and the other A tie at -11: win 1/2, rank 1.5.
    So A never wins from seat 0, wins 1/2 of a game in two from seat 1 and 1 + 1/2 in two from seat 2.
    """
    n, a = NeverTakePolicy(), AlwaysTakePolicy()
    rep = ev.evaluate([n], [a, a], num_players=3, games=300, seed=5)
    assert rep.games == 300 and rep.deals == 100
    rn, ra = rep["never-take"], rep["always-take"]
    assert rn.games == 300 and ra.games == 600
    assert rn.win_rate == pytest.approx(1 / 3) and rn.win_rate_ci == pytest.approx((1 / 3, 1 / 3))
    assert rn.seat_win_rates == pytest.approx([0.0, 0.5, 0.5])
    assert rn.mean_penalty == pytest.approx(-32 / 3) and rn.mean_rank == pytest.approx(5 / 3)
    assert ra.win_rate == pytest.approx(1 / 3) and ra.seat_win_rates == pytest.approx([0.0, 0.25, 0.75])
    # A's penalty per deal: (taker of all cards: points - 12) + (-11)  [N first]
    #                     + 2 x ((points - 11) + (-11))              [A first], over 6 seat-games.
    deck, _ = ev.deal_cards(GameConfig(num_players=3), 100, np.random.default_rng(5))
    masks = (np.int64(1) << deck).sum(axis=1)
    pts = card_points(masks, 3, 35)
    per_deal = ((pts - 12 - 11) + 2 * (pts - 11 - 11)) / 6
    assert ra.mean_penalty == pytest.approx(per_deal.mean())
    lo, hi = ra.mean_penalty_ci
    sem = per_deal.std(ddof=1) / np.sqrt(len(per_deal))
    assert lo == pytest.approx(per_deal.mean() - 1.984 * sem, rel=1e-3) and hi > ra.mean_penalty


class FirstCardRecorder(Policy):
    """Never-take that records the card it sees on the first decision of a game (seat 0, pot 0, full deck)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.first_cards: list[int] = []
        self.seats = np.zeros(3, dtype=int)

    def act_batch(self, view):
        first = (view.pot == 0) & (view.cards_in_deck == view.config.deck_size - 1) & (view.seat == 0)
        self.first_cards += view.face_up_card[first].tolist()
        np.add.at(self.seats, view.seat[(view.pot == view.seat) & (view.cards_in_deck == 23)], 1)
        return (view.own_chips == 0).astype(np.int64)


def test_seat_rotation_and_duplicate_deals_are_balanced():
    bots = [FirstCardRecorder(f"r{i}") for i in range(3)]
    rep = ev.evaluate(bots[:1], bots[1:], num_players=3, games=200, seed=1)  # rounded up to 201
    assert rep.games == 201 and rep.deals == 67
    deck, _ = ev.deal_cards(GameConfig(num_players=3), 67, np.random.default_rng(1))
    for b in bots:
        # every bot opened every deal exactly once from seat 0 ...
        assert sorted(b.first_cards) == sorted(deck[:, 0].tolist())
        # ... and made its first decision of a game from every seat equally often.
        assert b.seats.tolist() == [67, 67, 67]


def test_seed_fixes_everything_and_workers_do_not_matter():
    kw = dict(num_players=3, seed=3)
    a = ev.evaluate([RandomPolicy()], [ThresholdPolicy(), RandomPolicy()], games=120, **kw)
    b = ev.evaluate([RandomPolicy()], [ThresholdPolicy(), RandomPolicy()], games=120, **kw)
    c = ev.evaluate([RandomPolicy()], [ThresholdPolicy(), RandomPolicy()], games=120, seed=4, num_players=3)
    assert a.policies == b.policies
    assert a.policies != c.policies


@pytest.mark.slow
def test_worker_processes_give_the_same_report(monkeypatch):
    monkeypatch.setattr(ev, "CHUNK_DEALS", 20)  # the parent cuts the chunks: 60 deals -> 3 chunks
    games = 3 * 20 * 3
    one = ev.evaluate([RandomPolicy()], [ThresholdPolicy()], num_players=3, games=games, seed=2)
    two = ev.evaluate([RandomPolicy()], [ThresholdPolicy()], num_players=3, games=games, seed=2, workers=2)
    assert one.policies == two.policies


def test_report_api_json_csv_and_table(tmp_path):
    agent, bot = ThresholdPolicy(T=3), ThresholdPolicy()
    rep = ev.evaluate([agent], [bot], num_players=4, games=40, seed=0)
    assert set(rep.win_rate) == {"threshold:T=3", "threshold"}
    assert sum(p.win_rate * p.games for p in rep.policies) / rep.games == pytest.approx(1.0)
    assert rep["threshold"].role == "opponent" and rep["threshold"].games == 120
    rep.write_json(tmp_path / "r.json")
    rep.write_csv(tmp_path / "r.csv")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["games"] == 40 and data["policies"][0]["name"] == "threshold:T=3"
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert [r["name"] for r in rows] == ["threshold:T=3", "threshold"] and "seat_3_win_rate" in rows[0]
    assert rep.table().row_count == 2
    with pytest.raises(KeyError, match="expected one of"):
        rep["nobody"]


def test_same_names_are_told_apart_and_bad_lineups_rejected():
    rep = ev.evaluate([ThresholdPolicy()], [ThresholdPolicy(), ThresholdPolicy()], num_players=3, games=6, seed=0)
    assert [p.name for p in rep.policies] == ["threshold", "threshold#2", "threshold#3"]
    with pytest.raises(ValueError, match="lineup"):
        ev.evaluate([ThresholdPolicy()], [ThresholdPolicy()] * 3, num_players=3, games=6, seed=0)
    with pytest.raises(ValueError, match=r"got \['threshold'\] that play only pass/take"):
        ev.evaluate([ThresholdPolicy()], [RandomPolicy()], num_players=3, games=6, seed=0,
                    config=GameConfig(special_cards=("wild", "delete")))  # fmt: skip


class Cheater(Policy):
    name = "cheater"

    def act_batch(self, view):
        return np.zeros(len(view), dtype=np.int64)  # PASS even at 0 chips


def test_illegal_actions_name_the_policy():
    with pytest.raises(ValueError, match="policy cheater: expected legal actions"):
        ev.evaluate([Cheater()], [ThresholdPolicy()], num_players=3, games=3, seed=0)


def test_cli_writes_outputs(tmp_path, capsys):
    out = tmp_path / "o.json"
    rep = ev.main(["--players", "3", "--policy", "threshold:T=4", "--opponents", "random", "random",
                   "--games", "30", "--json", str(out), "--csv", str(tmp_path / "o.csv"), "--no-progress"])  # fmt: skip
    assert [p.name for p in rep.policies] == ["threshold:T=4", "random"]  # one opponent object in two seats
    assert json.loads(out.read_text())["policies"][1]["games"] == 60
    out_text = capsys.readouterr().out
    assert "threshold:T=4" in out_text and "30 games, 3 players" in out_text and "\n30 games in " in out_text
    assert "asked for" not in out_text and json.loads(out.read_text())["games_note"] == ""  # 30 = 10 deals x 3


def test_cli_says_when_and_why_it_plays_more_games_than_asked(tmp_path, capsys):
    """Every deal is played once per seat rotation, so 31 games at 3 players are 11 deals, 33 games: the
    printed line and the JSON report say how many were asked for and why more were played."""
    out = tmp_path / "o.json"
    rep = ev.main(["--policy", "threshold:T=4", "--opponents", "random", "--games", "31", "--json", str(out),
                   "--no-progress"])  # fmt: skip
    note = "31 games asked for, rounded up to a multiple of 3: 11 distinct deals, each played once per seat rotation"
    assert (rep.games, rep.deals, rep.games_requested, rep.rounding_note) == (33, 11, 31, note)
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("33 games in ") and last.endswith(f" games/s); {note}")
    data = json.loads(out.read_text())
    assert (data["games"], data["games_requested"], data["games_note"]) == (33, 31, note)
    matches = ev.evaluate([NeverTakePolicy()], [RandomPolicy()], num_players=3, games=4, seed=0,
                          config=GameConfig(num_players=3, num_deals=3))  # fmt: skip
    assert matches.games == 6 and matches.rounding_note == (
        "4 matches asked for, rounded up to a multiple of 3: 2 distinct matches, each played once per seat rotation"
    )


def test_cli_counts_matches_as_matches(capsys):
    rep = ev.main(["--preset", "match3", "--policy", "threshold:T=4", "--opponents", "random", "--games", "6",
                   "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    assert rep.played == "6 matches of 3 deals"
    assert "6 matches of 3 deals, 3 players" in out and "\n6 matches of 3 deals in " in out and "6 games" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policy", "search:rollout=(nonsense", "--opponents", "heuristic"], "expected balanced parentheses"),
        (["--policy", "nonsense", "--opponents", "heuristic"], "policy spec 'nonsense': expected a baseline"),
        (
            ["--players", "9", "--policy", "random", "--opponents", "random"],
            "--players: expected an int in 3..7, got 9",
        ),
        (["--policy", "random", "--opponents", "random", "random", "random"], "lineup: expected >= 1 candidate"),
        (["--preset", "nope", "--policy", "random"], "preset: expected one of ['match3', 'open_removed'"),
        (
            ["--preset", "wildcards", "--policy", "threshold"],
            "error: --preset wildcards: expected policies that play its special cards (random, heuristic, "
            "ppo-wildcards, or a checkpoint trained on them), got --policy threshold, which plays only pass/take: "
            "change --policy or --preset\n",
        ),
        (["--preset", "match3", "--deals", "0", "--policy", "random"], "argument --deals: expected an int >= 1, got 0"),
    ],
)
def test_cli_bad_input_is_one_error_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        ev.main([*argv, "--games", "3", "--no-progress"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_cli_policy_given_a_run_folder_names_its_final_checkpoint(tmp_path, capsys):
    import shutil

    from training.checkpoints import METADATA_FILE, WEIGHTS_FILE, resolve_checkpoint

    final = tmp_path / "run" / "checkpoints" / "final"
    final.mkdir(parents=True)
    for name in (WEIGHTS_FILE, METADATA_FILE):
        shutil.copy(resolve_checkpoint("ppo-3p") / name, final / name)
    run = str(tmp_path / "run")
    with pytest.raises(SystemExit) as e:
        ev.main(["--players", "3", "--policy", run, "--opponents", "heuristic", "--games", "3", "--no-progress"])
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        f"error: --policy: policy spec {run!r}: checkpoint {run}: expected file {WEIGHTS_FILE}, which is missing; "
        f"this looks like a run folder: did you mean {final}?\n"
    )


def test_cli_misspelt_policy_says_the_closest_name(capsys):
    with pytest.raises(SystemExit) as e:
        ev.main(["--players", "3", "--policy", "ppo-3q", "--opponents", "heuristic", "--games", "3", "--no-progress"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --policy: policy spec 'ppo-3q' (did you mean 'ppo-3p'?): expected a baseline (")
    assert "a shipped agent (ppo-3p, ppo-3p-ens, ppo-4p, " in err and err.count("\n") == 1


def test_bench_eval_reports_a_rate(capsys):
    class Args:
        games, workers, seed = 300, 1, 0

    assert ev.bench_eval(Args()) > 0
    assert "games/s" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------ specs
def test_load_policy_baselines_and_parameters():
    assert list_baselines() == [
        "random", "never-take", "always-take", "threshold", "heuristic", "search",
        "ratio", "blocker", "utility", "extort", "stochastic",
    ]  # fmt: skip
    t = load_policy("threshold:T=5")
    assert isinstance(t, ThresholdPolicy) and t.T == 5 and t.name == "threshold:T=5"
    h = load_policy("heuristic:base=6.5,chip_memory=False")
    assert h.params.base == 6.5 and h.chip_memory is False
    s = load_policy("search:iters=4", seed=1)
    assert s.iters == 4 and s.name == "search:iters=4"
    for spec in ("search", "search:iters=16,min_z=1.0", "heuristic:base=1.5", "threshold", "never-take"):
        assert load_policy(spec).name == spec  # names are canonical specs: tables say what was played
    r1, r2 = load_policy("random", seed=9), load_policy("random", seed=9)
    assert r1.rng.integers(1 << 30) == r2.rng.integers(1 << 30)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonsense", "expected a baseline"),
        ("threshold:X=1", r"threshold takes parameters \['T'\], got \['X'\]"),
        ("threshold:T", "key=value"),
        ("no_such_module_xyz:Policy", "cannot import module"),
        ("math:pi", "expected a Policy"),
        ("nothanks_env.baselines:Missing", "has no attribute"),
        ("", "non-empty"),
        ("search:rollout=nonsense", "parameter rollout: policy spec 'nonsense': expected a baseline"),
        ("search:model=(threshold:T=1", "expected balanced parentheses, got 1 unclosed"),
        ("search:rollout=ppo-mixed,iters=2)", r"expected balanced parentheses, got an extra '\)'"),
    ],
)
def test_load_policy_errors_name_the_spec(spec, message):
    with pytest.raises(ValueError, match=message):
        load_policy(spec)


def test_search_takes_nested_policy_specs():
    from nothanks_env.baselines import UtilityPolicy
    from training.checkpoints import MLPPolicy

    s = load_policy("search:iters=4,rollout=ppo-3p,model=(utility:extort_buffer=4.0,chip_memory=False)", seed=3)
    assert isinstance(s.rollout, MLPPolicy) and s.rollout.name == "ppo-3p"
    assert isinstance(s.model, UtilityPolicy) and s.model.extort_buffer == 4.0 and s.model.chip_memory is False
    assert s.iters == 4
    assert s.name == "search:iters=4,rollout=ppo-3p,model=(utility:extort_buffer=4.0,chip_memory=False)"
    assert load_policy(s.name).name == s.name  # the name is a spec that rebuilds it
    plain = load_policy("search:rollout=threshold")
    assert plain.model is plain.rollout and plain.rollout.name == "threshold"
    with pytest.raises(ValueError, match=r"expected a policy for 4 players, got one trained for \[3\] players"):
        load_policy("search:rollout=ppo-3p", num_players=4)


def test_composite_shipped_agents_resolve_to_their_spec():
    from nothanks_env.baselines import SearchPolicy
    from training.checkpoints import SHIPPED_SPECS

    best = load_policy("best-3p", num_players=3, seed=0)
    assert isinstance(best, SearchPolicy) and best.name == "best-3p"
    # pinned to the network its table was measured with, not to whatever ppo-3p names today
    assert load_policy(SHIPPED_SPECS["best-3p"]).rollout.name == best.rollout.name == "ppo-3p-ens"
    assert load_policy("best-3p-v1").rollout.name == "ppo-3p-v6"  # the one it replaced, as it was measured
    with pytest.raises(ValueError, match=r"expected a policy for 5 players, got one trained for \[3\] players"):
        load_policy("best-3p", num_players=5)
    with pytest.raises(
        ValueError, match=r"^policy spec 'best-4p' \(did you mean 'best-3p'\?\): .*a shipped agent \(.*best-3p"
    ):
        load_policy("best-4p")


def test_search_with_a_network_plays_legal_games():
    from training.evaluate import evaluate

    s = load_policy("search:iters=4,rollout=ppo-3p,model=utility", seed=0)
    rep = evaluate([s], [load_policy("heuristic")], num_players=3, games=6, seed=0)
    assert rep.games == 6 and 0.0 <= rep[s.name].win_rate <= 1.0


def test_load_policy_user_module_attr():
    p = load_policy("nothanks_env.baselines:NeverTakePolicy")
    assert isinstance(p, NeverTakePolicy)
    p = load_policy("tests.test_evaluate:Cheater")
    assert p.name == "cheater"


def test_report_files_are_written_into_new_folders(tmp_path):
    import csv
    import json

    from nothanks_env.baselines import NeverTakePolicy, RandomPolicy
    from training.evaluate import evaluate

    report = evaluate([NeverTakePolicy()], [RandomPolicy(seed=1)], num_players=3, games=30, seed=0)
    report.write_json(str(tmp_path / "a" / "b" / "eval.json"))
    report.write_csv(str(tmp_path / "c" / "eval.csv"))
    data = json.loads((tmp_path / "a" / "b" / "eval.json").read_text())
    assert data["games"] == 30
    rows = list(csv.DictReader(open(tmp_path / "c" / "eval.csv")))
    assert [r["name"] for r in rows] == ["never-take", "random"]


def test_matchups_played_together_report_as_evaluate_alone(monkeypatch):
    monkeypatch.setattr(ev, "CHUNK_DEALS", 8)  # several chunks per matchup
    cand, t2, rnd = ThresholdPolicy(T=4), ThresholdPolicy(T=2), RandomPolicy()
    kw = dict(num_players=3, games=60, seed=7)
    plans = [ev.plan_matchup([cand], [t2], **kw), ev.plan_matchup([cand], [rnd, t2], **kw)]
    played = ev.run_many(plans)
    assert [len(p) for p, _ in played] == [60, 60] and all(s > 0 for _, s in played)
    for plan, (penalties, seconds), opponents in zip(plans, played, ([t2], [rnd, t2])):
        alone = ev.evaluate([cand], opponents, **kw)
        assert plan.report(penalties, seconds).policies == alone.policies


def test_matches_are_played_as_the_scalar_engine_plays_them_and_scored_by_match_totals():
    from nothanks_env.game import Deal, Game
    from nothanks_env.presets import get_preset

    cfg = get_preset("match3", num_players=3)
    bots = [ThresholdPolicy(T=2), ThresholdPolicy(T=6), HeuristicPolicy()]
    m = ev.plan_matchup([bots[0]], bots[1:], num_players=3, games=6, seed=4, config=cfg)
    assert m.deck.shape == (6, 3, 24) and m.removed.shape == (6, 3, 9)
    penalties = ev.play_games(m.policies, cfg, m.deck, m.removed, m.seating)
    for g_no in range(6):
        game = Game(dataclasses.replace(cfg, starting_seat=0))
        game.reset(deals=[Deal(tuple(map(int, d)), tuple(map(int, r))) for d, r in zip(m.deck[g_no], m.removed[g_no])])
        starts = [game.current_seat]
        while not game.is_over:
            seat = game.current_seat
            if game.step(m.policies[m.seating[g_no, seat]].act(game.seat_view(seat))) and not game.is_over:
                starts.append(game.current_seat)
        assert starts == [0, 1, 2]  # the start moves one seat clockwise each deal
        assert penalties[g_no].tolist() == game.final_penalties()
    report = m.report(penalties, 1.0)
    wins = winner_shares(penalties)  # ties split
    assert report[bots[0].name].win_rate == pytest.approx(wins[m.seating == 0].sum() / 6)


def test_duplicate_seating_puts_every_slot_in_every_seat_once_per_deal():
    seating, deal = ev.duplicate_seating(np.array([[7, 8, 9], [1, 2, 3]]))
    assert deal.tolist() == [0, 0, 0, 1, 1, 1]
    assert seating.tolist() == [[7, 8, 9], [9, 7, 8], [8, 9, 7], [1, 2, 3], [3, 1, 2], [2, 3, 1]]


def _refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        ev.main(["--policy", "random", "--games", "3", "--no-progress", *argv])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.rstrip("\n")


def test_cli_refuses_outputs_before_any_game(tmp_path, capsys, monkeypatch):
    """An output that could not be written was found only after every game (a traceback, the report lost); an
    existing one was replaced silently. Both are refused before the first game now, and nothing is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.json").write_bytes(b'{"kept": 1}')
    (tmp_path / "afile").write_text("a file")
    assert _refused(["--json", "keep.json", "--csv", "new.csv"], capsys) == (
        "error: --json: expected a path that does not exist yet (pass --overwrite to replace it), got 'keep.json' "
        "(an existing file)"
    )
    assert _refused(["--json", "both.out", "--csv", "both.out"], capsys) == (
        "error: --csv: expected a path other than --json's, got 'both.out' (the same file)"
    )
    assert _refused(["--csv", "afile/x.csv"], capsys) == (
        "error: --csv: expected a path whose folders can be created, got 'afile/x.csv' ('afile' is not a folder)"
    )
    assert _refused(["--json", ""], capsys) == "error: --json: expected a file path, got '' (an empty path)"
    assert _refused(["--csv", " "], capsys) == "error: --csv: expected a file path, got ' ' (an empty path)"
    if Path("/proc/self").is_dir():
        assert _refused(["--json", "/proc/x.json"], capsys) == (
            "error: --json: expected a path in a writable folder, got '/proc/x.json' ('/proc' is not writable)"
        )
    assert (tmp_path / "keep.json").read_bytes() == b'{"kept": 1}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "keep.json"]


def test_cli_overwrite_replaces_an_existing_report(tmp_path, capsys):
    out = tmp_path / "keep.json"
    out.write_text("old")
    ev.main(["--policy", "random", "--games", "3", "--no-progress", "--json", str(out), "--overwrite"])
    assert json.loads(out.read_text())["games"] == 3


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--policy", "ppo-3p", "--preset", "wildcards"],
            "--preset wildcards: expected policies that play its special cards (random, heuristic, ppo-wildcards, or "
            "a checkpoint trained on them), got --policy ppo-3p, which plays only pass/take: change --policy or "
            "--preset",
        ),
        (
            ["--policy", "ppo-3p", "--opponents", "never-take", "heuristic", "never-take", "--preset", "wildcards"],
            "--preset wildcards: expected policies that play its special cards (random, heuristic, ppo-wildcards, or "
            "a checkpoint trained on them), got --policy ppo-3p and --opponents never-take, which play only "
            "pass/take: change --policy, --opponents or --preset",
        ),
        (
            ["--players", "4", "--policy", "threshold", "--opponents", "random", "--preset", "wildcards"],
            "--preset wildcards: expected policies that play its special cards (random, heuristic, or a checkpoint "
            "trained on them), got --policy threshold, which plays only pass/take: change --policy or --preset",
        ),  # ppo-wildcards plays 3 players only
    ],
    ids=["ppo-3p", "both-flags", "four-players"],
)
def test_wildcards_refuses_by_flag_who_cannot_play_and_says_who_can(argv, line, capsys):
    # it said "policies for ['wild', 'delete']: ... got ['ppo-3p'] that play only pass/take", naming no flag
    with pytest.raises(SystemExit) as e:
        ev.main([*argv, "--games", "3", "--no-progress"])
    assert e.value.code == 2
    assert capsys.readouterr().err == f"error: {line}\n"


def test_cli_reports_a_bots_illegal_action_in_one_line_and_refuses_a_huge_game_count(capsys):
    """A bot that passes at 0 chips was a ValueError traceback mid-run; 1e12 games tried to draw 80 TiB of deals."""
    import training.specs as specs

    for argv, want in [
        (
            ["--policy", "tests.test_evaluate:Cheater", "--opponents", "threshold", "--games", "30", "--no-progress"],
            "error: policy cheater: expected legal actions (PASS=0 needs a chip, TAKE=1), got ",
        ),
        (["--policy", "random", "--games", str(10**12)], "error: argument --games: expected an int in 1..10000000, "),
    ]:
        with pytest.raises(SystemExit) as exc:
            ev.main(argv)
        assert exc.value.code == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(want), err
    assert specs.load_policy("tests.test_evaluate:Cheater").name == "cheater"  # the spec above is the bot itself


def test_an_illegal_action_is_counted_and_the_first_one_shown():
    from nothanks_env.table import PolicyActionError, _check_actions

    with pytest.raises(PolicyActionError, match=r"^policy cheater: .*got 2 illegal of 4, the first 0 with 0 chips$"):
        _check_actions(Cheater(), np.array([1, 0, 1, 0]), np.array([3, 0, 5, 0]))
    # values that are no action ids are refused before the chips are looked at, fractions too (not cut to 1)
    with pytest.raises(
        PolicyActionError,
        match=r"^policy cheater: expected whole action ids \(PASS=0 or TAKE=1\), got 2 of 3 that are not, the first "
        r"2.0$",
    ):
        _check_actions(Cheater(), np.array([1, 2, 1.9]), np.array([3, 0, 5]))
    with pytest.raises(PolicyActionError, match=r"expected actions of shape \(3,\), got \(2,\)"):
        _check_actions(Cheater(), np.array([1, 0]), np.array([3, 0, 5]))
    _check_actions(Cheater(), np.array([1.0, 0.0, 1.0]), np.array([3, 1, 0]))  # integral floats are those ids

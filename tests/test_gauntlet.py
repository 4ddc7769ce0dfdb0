"""The gauntlet: declared columns, rows equal to training.evaluate, min and mean, files, bad input."""

from __future__ import annotations

import copy
import json
import os
import shutil

import numpy as np
import pytest

from nothanks_env.baselines import AlwaysTakePolicy, NeverTakePolicy, ThresholdPolicy
from training import gauntlet as gx
from training.evaluate import evaluate
from training.specs import load_policy


def test_the_standard_set_is_declared_once_and_names_what_plays():
    labels = [c.label for c in gx.STANDARD_COLUMNS]
    assert labels == list(gx.STANDARD_OPPONENTS) + ["+".join(t) for t in gx.MIXED_TABLES]
    assert len(set(labels)) == len(labels)
    for spec in gx.STANDARD_OPPONENTS:  # each spec is the name its policy reports
        assert load_policy(spec, num_players=3).name == spec
    assert {s for t in gx.MIXED_TABLES for s in t} <= set(gx.STANDARD_OPPONENTS)
    assert set(gx.GAMES_CAP) <= set(labels)
    assert gx.parse_column("search:iters=16").max_games == gx.GAMES_CAP["search:iters=16"]
    families = {spec.partition(":")[0] for spec in gx.STANDARD_OPPONENTS}
    assert families == {
        "random", "never-take", "threshold", "ratio", "stochastic", "blocker", "utility", "extort", "heuristic",
        "search",
    }  # fmt: skip
    assert any(load_policy(s).name.startswith("threshold:T=-") for s in gx.STANDARD_OPPONENTS)


def test_columns_fill_the_other_seats_cyclically():
    c = gx.parse_column(" utility + extort ")
    assert c.label == "utility+extort" and c.max_games is None
    assert c.seat_specs(3) == ["utility", "extort"] and c.seat_specs(5) == ["utility", "extort", "utility", "extort"]
    assert c.display(4) == "utility + extort + utility"
    assert gx.parse_column("heuristic").display(5) == "heuristic ×4"
    for bad in ("", "utility+", "+"):
        with pytest.raises(ValueError, match="column: expected a policy spec"):
            gx.parse_column(bad)


def test_tiny_standard_gauntlet_has_every_column_and_right_summary():
    rep = gx.gauntlet(ThresholdPolicy(T=4), num_players=3, games=6, seed=0, column_games={"search:iters=16": 3})
    assert [r.column for r in rep.rows] == [c.label for c in gx.STANDARD_COLUMNS]
    assert all(r.games == 6 and not r.capped for r in rep.rows if r.column != "search:iters=16")
    search = rep.rows[gx.STANDARD_OPPONENTS.index("search:iters=16")]
    assert search.games == 3 and search.capped and search.opponents == ["search:iters=16"] * 2
    rates = np.array([r.stats.win_rate for r in rep.rows])
    assert rep.min_row.stats.win_rate == rates.min() and rep.min_row is rep.rows[int(rates.argmin())]
    assert rep.mean_win_rate == pytest.approx(rates.mean())
    assert rep.mean_rank == pytest.approx(np.mean([r.stats.mean_rank for r in rep.rows]))
    assert rep.games_played == 6 * (len(rep.rows) - 1) + 3 and rep.parity == pytest.approx(1 / 3)
    assert rep.rows[0].column == "random" and rep.rows[0].stats.win_rate > 0.8  # 2 games out of 6 at worst
    assert all(r.stats.name == "threshold:T=4" and r.stats.role == "candidate" for r in rep.rows)


def test_a_column_is_exactly_training_evaluate_with_the_same_seed():
    cand = ThresholdPolicy(T=3)
    cols = [gx.parse_column("threshold:T=2+never-take"), gx.parse_column("random")]
    rep = gx.gauntlet(cand, num_players=4, games=40, seed=11, columns=cols)
    t2, nt, rnd = load_policy("threshold:T=2"), load_policy("never-take"), load_policy("random")
    mixed = evaluate([cand], [t2, nt, t2], num_players=4, games=40, seed=11)
    assert rep.rows[0].opponents == ["threshold:T=2", "never-take", "threshold:T=2"]
    assert rep.rows[0].stats == mixed.policies[0] and rep.rows[0].games == 40
    assert rep.rows[1].stats == evaluate([cand], [rnd], num_players=4, games=40, seed=11).policies[0]


def test_exact_values_on_a_rigged_column():
    # never-take against two seats of one always-take: 1/3 win share, penalty -32/3, rank 5/3 (test_evaluate).
    rep = gx.gauntlet(NeverTakePolicy(), num_players=3, games=30, seed=5, columns=[gx.Column(("always-take",))])
    s = rep.rows[0].stats
    assert s.win_rate == pytest.approx(1 / 3) and s.mean_penalty == pytest.approx(-32 / 3)
    assert s.mean_rank == pytest.approx(5 / 3) and rep.min_row.stats is s and rep.mean_win_rate == s.win_rate


@pytest.mark.slow
def test_workers_do_not_change_the_report():
    cols = [gx.parse_column(x) for x in ("random", "stochastic", "threshold+stochastic")]
    one = gx.gauntlet(ThresholdPolicy(), num_players=3, games=30, seed=2, columns=cols)
    two = gx.gauntlet(ThresholdPolicy(), num_players=3, games=30, seed=2, columns=cols, workers=2)
    assert [r.stats for r in one.rows] == [r.stats for r in two.rows]


def test_api_rejects_bad_arguments():
    cand, cols = AlwaysTakePolicy(), [gx.Column(("random",))]
    with pytest.raises(ValueError, match=r"column_games: expected labels among the columns \['random'\]"):
        gx.gauntlet(cand, num_players=3, games=3, seed=0, columns=cols, column_games={"nope": 3})
    with pytest.raises(ValueError, match="games of random: expected an int >= 1, got 0"):
        gx.gauntlet(cand, num_players=3, games=3, seed=0, columns=cols, column_games={"random": 0})
    with pytest.raises(ValueError, match="no repeats"):
        gx.gauntlet(cand, num_players=3, games=3, seed=0, columns=cols * 2)


def test_cli_writes_json_and_markdown_for_several_policies(tmp_path, capsys):
    out = tmp_path / "deep" / "g"
    argv = ["--players", "3", "--policy", "threshold:T=3", "never-take", "--columns", "random", "threshold+random"]
    argv += ["--games", "12", "--seed", "1", "--json", f"{out}.json", "--md", f"{out}.md", "--no-progress"]
    assert gx.main(argv) == 0
    data = json.loads((tmp_path / "deep" / "g.json").read_text())
    assert [r["policy"] for r in data["reports"]] == ["threshold:T=3", "never-take"]
    first = data["reports"][0]
    assert [r["column"] for r in first["rows"]] == ["random", "threshold+random"]
    assert first["summary"]["columns"] == 2 and first["parity"] == pytest.approx(1 / 3)
    rates = [r["stats"]["win_rate"] for r in first["rows"]]
    assert first["summary"]["min_win_rate"] == min(rates)
    assert first["summary"]["mean_win_rate"] == pytest.approx(sum(rates) / 2)
    md = (tmp_path / "deep" / "g.md").read_text()
    assert "| opponents | games | `threshold:T=3` | `never-take` |" in md  # the side-by-side table
    assert "| threshold + random | 12 |" in md and md.count("**minimum**") == 3
    assert "gauntlet of threshold:T=3" in capsys.readouterr().out


def test_games_rounded_up_to_whole_seat_rotations_are_reported(capsys):
    """A column plays every deal once per seat rotation: 10 games asked for at 3 players are 12, a cap of 4 plays
    6. The report, its Markdown, its JSON and the printed line say so."""
    cols = [gx.Column(("random",)), gx.Column(("always-take",), max_games=4)]
    rep = gx.gauntlet(NeverTakePolicy(), num_players=3, games=10, seed=0, columns=cols)
    assert [(r.games_requested, r.games, r.capped) for r in rep.rows] == [(10, 12, False), (4, 6, True)]
    note = (
        "Games rounded up to a multiple of 3 (every deal is played once per seat rotation): 10 asked for, 12 played; "
        "4 asked for, 6 played."
    )
    assert rep.rounding_note == note and rep.to_dict()["games_note"] == note
    assert rep.markdown().splitlines()[0] == (
        "`never-take`, 3 players: 12 games per column, seed 0, seats rotated, duplicate deals; parity 0.333. "
        f"{note} Capped (slow) columns, games played: `always-take` 6."
    )
    exact = gx.gauntlet(NeverTakePolicy(), num_players=3, games=9, seed=0, columns=cols[:1])
    assert exact.rows[0].games == 9 and exact.rounding_note == "" and exact.to_dict()["games_note"] == ""
    assert gx.main(["--policy", "never-take", "--columns", "random", "--games", "10", "--no-progress"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("12 games in ") and last.endswith(
        "worker(s)). Games rounded up to a multiple of 3 (every deal is played once per seat rotation): 10 asked for, "
        "12 played."
    )


def test_compare_markdown_bolds_the_best_and_needs_the_same_columns():
    cols = [gx.Column(("always-take",))]
    a = gx.gauntlet(NeverTakePolicy(), num_players=3, games=30, seed=5, columns=cols)
    b = gx.gauntlet(ThresholdPolicy(T=-2), num_players=3, games=30, seed=5, columns=cols)
    table = gx.compare_markdown([a, b])
    better = max((a, b), key=lambda r: r.mean_win_rate)
    assert f"**{better.mean_win_rate:.3f}**" in table.splitlines()[-1]
    c = gx.gauntlet(NeverTakePolicy(), num_players=3, games=3, seed=5, columns=[gx.Column(("random",))])
    with pytest.raises(ValueError, match="same columns"):
        gx.compare_markdown([a, c])


def test_compare_markdown_bolds_every_rate_that_prints_as_the_best():
    """Two rates 0.0001 apart print alike: both are bold, not one of two equal-looking figures."""
    cols = [gx.Column(("always-take",))]
    a = gx.gauntlet(NeverTakePolicy(), num_players=3, games=30, seed=5, columns=cols)
    b = copy.deepcopy(a)
    b.rows[0].stats.win_rate = a.rows[0].stats.win_rate - 0.0001
    c = copy.deepcopy(a)
    c.rows[0].stats.win_rate = a.rows[0].stats.win_rate - 0.01
    rate = a.rows[0].stats.win_rate
    row = gx.compare_markdown([a, b, c]).splitlines()[2]
    assert row == f"| always-take ×2 | 30 | **{rate:.3f}** | **{rate - 0.0001:.3f}** | {rate - 0.01:.3f} |"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "9", "--policy", "random"], "argument --players: expected an int in 3..7, got 9"),
        (["--policy", "nonsense"], "--policy: policy spec 'nonsense': expected a baseline"),
        (["--policy", "random", "--games", "0"], "argument --games: expected an int in 1..10000000, got 0"),
        (["--policy", "random", "--games", "x"], "argument --games: expected an int in 1..10000000, got 'x'"),
        # every --workers is one type: the gauntlet took any int and named no "argument", exploit and distill
        # had no upper bound
        (["--policy", "random", "--workers", "0"], "argument --workers: expected an int in 1..256, got 0"),
        (["--policy", "random", "--workers", "999"], "argument --workers: expected an int in 1..256, got 999"),
        (["--players", "3"], "--policy: expected at least one policy spec, got none"),
        (["--policy", "random", "--column-games", "random=lots"], "--column-games: expected LABEL=N"),
        (
            ["--policy", "random", "--columns", "random", "--column-games", "heuristic=5"],
            "--column-games: expected labels among the columns ['random'], got ['heuristic']",
        ),
        (["--policy", "random", "--columns", "nobody+random"], "--columns: policy spec 'nobody': expected a baseline"),
        (["--policy", "random", "--json", "."], "--json: expected a file path, got the directory '.'"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_code_2(argv, message, capsys):
    assert gx.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_list_prints_the_standard_columns(capsys):
    assert gx.main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == [c.label for c in gx.STANDARD_COLUMNS]


def test_tables_keep_every_figure_in_an_80_column_terminal():
    # rich used to cut the win rates to "…" (or drop the column) when long held-out names took the width.
    import io

    from rich.console import Console

    from training.evaluation.evaluate import evaluate
    from training.evaluation.gauntlet import HELDOUT_COLUMNS, gauntlet
    from training.specs import load_policy

    def render(table) -> str:
        out = io.StringIO()
        Console(file=out, width=80).print(table)
        return out.getvalue()

    columns = [c for c in HELDOUT_COLUMNS if len(c.opponents) == 2][:2]
    rep = gauntlet(load_policy("heuristic"), num_players=5, games=10, seed=0, columns=columns)
    text = render(rep.table())
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    for row in rep.rows:
        assert f"{row.stats.win_rate:.3f}" in text and f"[{row.stats.win_rate_ci[0]:.3f}, " in text
    assert f"{rep.mean_win_rate:.3f}" in text
    report = evaluate([load_policy("heuristic")], [load_policy("threshold:T=2")], num_players=5, games=10, seed=0)
    text = render(report.table(compact=True))
    assert "…" not in text and "heuristic" in text and "threshold:T" in text  # long names wrap, not cut
    for p in report.policies:
        assert f"{p.win_rate:.3f}" in text and f"{p.mean_rank:.2f}" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--columns", "random+heuristic+never-take+never-take"],
            "error: --columns: expected at most 2 specs joined by '+' at 3 players (one per other seat; fewer fill "
            "the seats in turn), got 'random+heuristic+never-take+never-take' (4 specs)",
        ),
        (
            ["--players", "4", "--columns", "random", "random+heuristic+never-take+random"],
            "error: --columns: expected at most 3 specs joined by '+' at 4 players (one per other seat; fewer fill "
            "the seats in turn), got 'random+heuristic+never-take+random' (4 specs)",
        ),
        (
            ["--columns", "random", "--column-games", "random=3", "random=9"],
            "error: --column-games: expected each column at most once, got 'random' twice ('random=3' and 'random=9')",
        ),
        (
            ["--columns", "random", "--json", "same", "--md", "same"],
            "error: --md: expected a path other than --json's, got 'same' (the same file)",
        ),
        (
            ["--columns", "random", "--md", "keep.md"],
            "error: --md: expected a path that does not exist yet (pass --overwrite to replace it), got 'keep.md' "
            "(an existing file)",
        ),
        (["--columns", "random", "--json", " "], "error: --json: expected a file path, got ' ' (an empty path)"),
        (
            ["--columns", "random", "--md", "afile/x.md"],
            "error: --md: expected a path whose folders can be created, got 'afile/x.md' ('afile' is not a folder)",
        ),
    ],
)
def test_refused_before_any_game_and_nothing_written(argv, message, capsys, tmp_path, monkeypatch):
    """Extra specs of a mixed table were dropped silently, a column given twice in --column-games kept the last
    count, and outputs were replaced silently or failed after every game."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.md").write_bytes(b"kept")
    (tmp_path / "afile").write_text("a file")
    assert gx.main(["--policy", "random", "--games", "3", "--no-progress", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err == message + "\n" and captured.out == ""  # no table: no game was played
    assert (tmp_path / "keep.md").read_bytes() == b"kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "keep.md"]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_an_output_in_a_folder_nothing_can_be_written_in_is_refused_first(capsys):
    assert gx.main(["--policy", "random", "--columns", "random", "--md", "/proc/x.md", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == "error: --md: expected a path in a writable folder, got '/proc/x.md' ('/proc' is not writable)\n"


def test_a_mixed_table_with_fewer_specs_fills_the_seats_in_turn_and_more_are_refused(tmp_path):
    cand = NeverTakePolicy()
    rep = gx.gauntlet(cand, num_players=4, games=4, seed=0, columns=[gx.parse_column("random+heuristic")])
    assert rep.rows[0].opponents == ["random", "heuristic", "random"]
    with pytest.raises(ValueError, match=r"columns: expected at most 2 specs joined by '\+' at 3 players"):
        gx.gauntlet(cand, num_players=3, games=3, seed=0, columns=[gx.parse_column("random+heuristic+random")])
    out = tmp_path / "g.md"
    out.write_text("old")
    argv = ["--policy", "never-take", "--columns", "random", "--games", "3", "--md", str(out), "--no-progress"]
    assert gx.main([*argv, "--overwrite"]) == 0
    assert out.read_text().startswith("`never-take`, 3 players")


def test_a_checkpoint_path_holding_a_plus_is_one_spec_of_a_column(tmp_path, capsys):
    # '+' joins a mixed table's specs: a checkpoint folder whose path held one was split, and refused as missing
    from training.checkpoints import METADATA_FILE, WEIGHTS_FILE, resolve_checkpoint

    folder = tmp_path / "a+b"
    folder.mkdir()
    for name in (WEIGHTS_FILE, METADATA_FILE):
        shutil.copy(resolve_checkpoint("ppo-3p") / name, folder / name)
    path = str(folder)
    assert gx.parse_column(path).opponents == (path,)
    assert gx.parse_column(f"{path}+random").opponents == (path, "random")
    assert gx.parse_column(f"random + {path}:deterministic=False+utility").opponents == (
        "random", f"{path}:deterministic=False", "utility",
    )  # fmt: skip
    assert gx.parse_column(str(tmp_path / "c+d")).opponents == (str(tmp_path / "c"), "d")  # no such path: split
    out = tmp_path / "g.json"
    argv = ["--players", "3", "--policy", "heuristic", "--columns", path, f"{path}+random", "--games", "3"]
    assert gx.main([*argv, "--json", str(out), "--no-progress"]) == 0, capsys.readouterr().err
    rows = json.loads(out.read_text())["reports"][0]["rows"]
    assert [r["column"] for r in rows] == [path, f"{path}+random"]
    assert [r["opponents"] for r in rows] == [[path, path], [path, "random"]]
    assert [r["games"] for r in rows] == [3, 3]


WILD_WHO = "(random, heuristic, ppo-wildcards, or a checkpoint trained on them)"
"""Who plays the special cards at 3 players, as the errors say it (training.variants.special_card_players)."""


def test_a_wildcards_gauntlet_names_every_column_that_cannot_play_and_the_flag_to_change(capsys, tmp_path):
    # it named only never-take, the first column to fail, and no flag
    out = tmp_path / "g.json"
    argv = ["--players", "3", "--policy", "heuristic", "--preset", "wildcards", "--json", str(out), "--no-progress"]
    assert gx.main(argv) == 2
    err = capsys.readouterr().err
    unable = [c.label for c in gx.STANDARD_COLUMNS if c.label not in ("random", "heuristic")]
    assert len(unable) == 22 and unable[:3] == ["never-take", "threshold:T=-2", "threshold:T=2"]
    assert err == (
        f"error: --preset wildcards: expected policies that play its special cards {WILD_WHO}, got 22 of the 24 "
        f"standard columns: {' '.join(unable)}, which play only pass/take: change --columns (e.g. --columns random "
        "heuristic) or --preset\n"
    )
    assert "search:iters=16 utility+extort heuristic+utility heuristic+extort blocker+ratio, which play" in err
    assert not out.exists()


def test_a_wildcards_gauntlet_names_the_policies_and_given_columns_that_cannot_play(capsys):
    argv = ["--policy", "ppo-3p", "heuristic", "--preset", "wildcards", "--columns", "utility", "heuristic",
            "random+heuristic", "--no-progress"]  # fmt: skip
    assert gx.main(argv) == 2
    assert capsys.readouterr().err == (
        f"error: --preset wildcards: expected policies that play its special cards {WILD_WHO}, got --policy ppo-3p "
        "and --columns utility, which play only pass/take: change --policy, --columns (e.g. --columns heuristic "
        "random+heuristic) or --preset\n"
    )
    # no column plays them: the example is the policies that do; held-out bots by class, as tables name them
    assert gx.main(["--players", "4", "--policy", "random", "--preset", "wildcards", "--heldout"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error: --preset wildcards: expected policies that play its special cards (random, heuristic, or a checkpoint "
        "trained on them), got all 23 held-out columns: LowCard Hoarder Clock ChipRich "
    )  # ppo-wildcards plays 3 players only
    assert err.endswith(
        " LetItRider+DeckRank, which play only pass/take: change --columns (e.g. --columns random heuristic) or "
        "--preset\n"
    )
    assert err.count("\n") == 1 and "training.evaluation.heldout:" not in err


def test_column_games_takes_the_short_names_the_tables_print():
    """Held-out columns are printed as LowCard; --column-games took only training.evaluation.heldout:LowCard."""
    cols = [
        gx.Column(("training.evaluation.heldout:LowCard",)),
        gx.Column(("random", "training.evaluation.heldout:Hoarder")),
    ]
    got = gx.resolve_column_games(cols, {"LowCard": 6, "random+Hoarder": 9})
    assert got == {"training.evaluation.heldout:LowCard": 6, "random+training.evaluation.heldout:Hoarder": 9}
    with pytest.raises(ValueError, match=r"got 'training.evaluation.heldout:LowCard' twice \(as 'LowCard' and "):
        gx.resolve_column_games(cols, {"LowCard": 6, "training.evaluation.heldout:LowCard": 9})
    with pytest.raises(ValueError, match=r"or their short names \['LowCard', 'random\+Hoarder'\]\), got \['Nope'\]"):
        gx.resolve_column_games(cols, {"Nope": 6})
    rep = gx.gauntlet(NeverTakePolicy(), num_players=3, games=3, seed=0, columns=cols[:1], column_games={"LowCard": 6})
    assert [r.games for r in rep.rows] == [6]


def test_a_plus_that_is_a_numbers_sign_stays_in_its_spec():
    """threshold:T=+3 was split into 'threshold:T=' and '3' (an error naming a spec nobody wrote)."""
    assert gx.parse_column("threshold:T=+3").opponents == ("threshold:T=+3",)
    assert gx.parse_column("stochastic:temp=1e+1").opponents == ("stochastic:temp=1e+1",)
    assert gx.parse_column("threshold:T=+3+random").opponents == ("threshold:T=+3", "random")
    assert gx.parse_column("threshold:T=2+threshold:T=12").opponents == ("threshold:T=2", "threshold:T=12")
    rep = gx.gauntlet(NeverTakePolicy(), num_players=3, games=3, seed=0, columns=[gx.parse_column("threshold:T=+3")])
    assert [r.games for r in rep.rows] == [3]


def test_reports_record_the_rules_played_as_evaluate_writes_them(tmp_path, capsys):
    """The JSON reports and the Markdown header said nothing of the preset, the deals or special cards: a match3
    gauntlet at 2 deals read as a standard one. Each report now records the preset and the config (the same dict
    as ``training.evaluate --json``), and the Markdown names the rules; a standard gauntlet's header is unchanged."""
    from training import evaluate as ev

    variant = ["--preset", "match3", "--deals", "2"]
    argv = [*variant, "--policy", "heuristic", "threshold", "--columns", "random", "--games", "3", "--no-progress"]
    assert gx.main([*argv, "--json", str(tmp_path / "g.json"), "--md", str(tmp_path / "g.md")]) == 0
    ev.main([*variant, "--policy", "heuristic", "--opponents", "random", "--games", "3", "--no-progress", "--json",
             str(tmp_path / "eval.json")])  # fmt: skip
    reports = json.loads((tmp_path / "g.json").read_text())["reports"]
    expected = json.loads((tmp_path / "eval.json").read_text())["config"]
    assert [(r["preset"], r["config"]) for r in reports] == [("match3", expected)] * 2
    assert expected["num_deals"] == 2 and {"policy", "num_players", "games", "rows", "summary"} <= set(reports[0])
    md = (tmp_path / "g.md").read_text().splitlines()
    assert md[0] == "Rules: match3, 2 deals (3 players)."  # the side-by-side table
    assert md[md.index("| opponents | games | win rate | 95% CI | mean penalty | mean rank |") - 2] == (
        "`heuristic`, 3 players (match3, 2 deals): 3 games per column, seed 0, seats rotated, duplicate deals; "
        "parity 0.333."
    )
    assert "gauntlet of heuristic, 3 players (match3, 2 deals) (parity 0.333)" in capsys.readouterr().out

    standard = gx.gauntlet(NeverTakePolicy(), num_players=3, games=3, seed=0, columns=[gx.Column(("random",))])
    assert (standard.preset, standard.variant, standard.to_dict()["config"]["num_deals"]) == ("standard", "", 1)
    assert standard.markdown().startswith("`never-take`, 3 players: 3 games per column")
    match = gx.gauntlet(NeverTakePolicy(), num_players=3, games=3, seed=0, columns=[gx.Column(("random",))],
                        config=gx.GameConfig(num_deals=3))  # fmt: skip
    assert (match.preset, match.variant) == ("match3", "match3, 3 deals")
    with pytest.raises(ValueError, match="expected the same rules for a side-by-side table"):
        gx.compare_markdown([standard, match])


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        (["random", "random"], "--columns: expected at least one column and no repeats, got ['random', 'random']"),
        (["random", "threshold + random", "threshold+random"],
         "--columns: expected at least one column and no repeats, got ['random', 'threshold+random', "
         "'threshold+random']"),
        (["random", ""], "--columns: expected a policy spec or specs joined by '+', got ''"),
        (["random+"], "--columns: expected a policy spec or specs joined by '+', got 'random+'"),
    ],
)  # fmt: skip
def test_bad_columns_are_refused_naming_the_flag(columns, message, capsys):
    """These were refused as "columns: ..." and "column: ...", not naming the option to change."""
    assert gx.main(["--policy", "heuristic", "--games", "3", "--no-progress", "--columns", *columns]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"

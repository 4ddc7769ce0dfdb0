"""League and ratings: a stronger bot rates above a weaker one; outputs are written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nothanks_env.baselines import NeverTakePolicy, RandomPolicy, ThresholdPolicy
from training import tournament as tm


def test_ratings_follow_ranks_exactly():
    # policy 0 always first, 1 and 2 always tied second, 3 always last; seats rotate.
    seating = np.array([[0, 1, 2], [1, 2, 3], [3, 0, 1], [2, 3, 0]] * 30)
    score = np.array([0, 5, 5, 9])
    ratings = tm.rate_games(4, seating, score[seating], seed=0)
    mu = [r.mu for r in ratings]
    assert mu[0] > mu[1] > mu[3] and mu[0] > mu[2] > mu[3]
    assert abs(mu[1] - mu[2]) < 1.0  # tied every time they met; they differ only by update order
    assert all(r.sigma < 25 / 3 for r in ratings)


def test_stronger_bot_rates_above_weaker_with_outputs(tmp_path):
    pool = [RandomPolicy(), ThresholdPolicy(), NeverTakePolicy()]
    res = tm.tournament(pool, num_players=3, games=600, seed=0)
    assert [r.stats.name for r in res.rows] == ["threshold", "never-take", "random"]
    top, last = res["threshold"], res["random"]
    assert top.rating.mu - 2 * top.rating.sigma > last.rating.mu + 2 * last.rating.sigma
    assert top.stats.win_rate_ci[0] > last.stats.win_rate_ci[1]
    assert top.stats.games == 600  # a pool of three at a table of three: everyone plays every game
    res.write(tmp_path)
    md = (tmp_path / "leaderboard.md").read_text()
    assert md.splitlines()[2].startswith("| 1 | threshold |")
    data = json.loads((tmp_path / "leaderboard.json").read_text())
    assert [r["name"] for r in data["rows"]] == ["threshold", "never-take", "random"] and "ordinal" in data["rows"][0]
    assert "mu" in (tmp_path / "leaderboard.csv").read_text().splitlines()[0]
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"


def test_tables_draw_distinct_policies_and_rotate_seats():
    pool = [ThresholdPolicy(T=t) for t in (0, 4, 8, 12, 16)]
    res = tm.tournament(pool, num_players=3, games=3000, seed=1)
    games = [r.stats.games for r in res.rows]
    assert sum(games) == 3 * 3000
    assert min(games) > 0.9 * 1800  # each of 5 policies is in 3/5 of the tables
    with pytest.raises(ValueError, match="at least 3"):
        tm.tournament(pool[:2], num_players=3, games=3, seed=0)


def test_cli(tmp_path, capsys):
    tm.main(["--players", "4", "--policies", "random", "threshold", "never-take", "threshold:T=2",
             "--games", "40", "--out", str(tmp_path), "--no-progress"])  # fmt: skip
    assert "| 1 |" in capsys.readouterr().out
    assert (tmp_path / "ratings.png").exists()


def test_games_rounded_up_to_whole_seat_rotations_are_reported(tmp_path, capsys):
    """Every table is played once per seat rotation: 10 games asked for at 3 players are 4 deals, 12 games, and
    the printed line and leaderboard.json say so."""
    tm.main(["--players", "3", "--policies", "random", "threshold", "never-take", "--games", "10", "--out",
             str(tmp_path), "--no-progress"])  # fmt: skip
    note = "10 games asked for, rounded up to a multiple of 3: 4 distinct deals, each played once per seat rotation"
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"12 games ({note}) in ")
    data = json.loads((tmp_path / "leaderboard.json").read_text())
    assert (data["games"], data["games_requested"], data["games_note"]) == (12, 10, note)
    exact = tm.tournament([RandomPolicy(), ThresholdPolicy(), NeverTakePolicy()], num_players=3, games=9, seed=0)
    assert (exact.games, exact.games_requested, exact.rounding_note) == (9, 9, "")


POOL = ["--policies", "random", "threshold", "never-take", "--games", "3", "--no-progress"]


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("", "--out: expected a folder path, got '' (an empty path)"),  # wrote into the current folder
        ("  ", "--out: expected a folder path, got '  ' (an empty path)"),
        ("/", "--out: expected a folder other than the filesystem root, got '/'"),
        ("afile", "--out: expected a directory, got the file 'afile'"),
        ("afile/sub", "--out: expected a path whose folders can be created, got 'afile/sub' ('afile' is not a folder)"),
        (
            "board",
            "--out: expected a folder without leaderboard.md, leaderboard.csv, leaderboard.json, ratings.png (pass "
            "--overwrite to replace them), got 'board', which holds leaderboard.json, ratings.png",
        ),
    ],
)
def test_cli_refuses_an_out_folder_before_any_game(out, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("a file")
    (tmp_path / "board").mkdir()
    (tmp_path / "board" / "leaderboard.json").write_bytes(b"kept")
    (tmp_path / "board" / "ratings.png").write_bytes(b"kept png")
    with pytest.raises(SystemExit) as e:
        tm.main([*POOL, "--out", out])
    captured = capsys.readouterr()
    assert e.value.code == 2 and captured.err == f"error: {message}\n" and captured.out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "board"]
    assert sorted(p.name for p in (tmp_path / "board").iterdir()) == ["leaderboard.json", "ratings.png"]
    assert (tmp_path / "board" / "leaderboard.json").read_bytes() == b"kept"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_cli_refuses_an_out_folder_that_cannot_be_created(capsys):
    with pytest.raises(SystemExit) as e:
        tm.main([*POOL, "--out", "/proc/x"])
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        "error: --out: expected a path in a writable folder, got '/proc/x' ('/proc' is not writable)\n"
    )


def test_cli_overwrite_replaces_the_leaderboard(tmp_path):
    (tmp_path / "leaderboard.json").write_text("old")
    tm.main([*POOL, "--out", str(tmp_path), "--overwrite"])
    assert json.loads((tmp_path / "leaderboard.json").read_text())["games"] == 3
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"


def test_outputs_record_the_rules_played_as_evaluate_writes_them(tmp_path, capsys):
    """leaderboard.json kept only num_players, games, ... rows: a match3 league at 2 deals read as a standard one.
    It now records the preset and the config (the same dict as ``training.evaluate --json``), and the Markdown
    names the rules; a standard league's Markdown is unchanged."""
    from training import evaluate as ev

    variant = ["--preset", "match3", "--deals", "2"]
    tm.main([*variant, "--policies", "random", "heuristic", "threshold", "--games", "6", "--out",
             str(tmp_path / "h"), "--no-progress"])  # fmt: skip
    ev.main([*variant, "--policy", "heuristic", "--opponents", "random", "--games", "3", "--no-progress", "--json",
             str(tmp_path / "eval.json")])  # fmt: skip
    data = json.loads((tmp_path / "h" / "leaderboard.json").read_text())
    assert list(data) == [
        "num_players", "games", "games_requested", "games_note", "preset", "config", "seed", "seconds", "rows"
    ]  # fmt: skip
    assert data["preset"] == "match3"
    assert data["config"] == json.loads((tmp_path / "eval.json").read_text())["config"]
    assert data["config"]["num_deals"] == 2 and data["config"]["special_cards"] == []
    md = (tmp_path / "h" / "leaderboard.md").read_text().splitlines()
    assert md[:2] == ["Rules: match3, 2 deals (3 players).", ""] and md[4].startswith("| 1 | ")
    assert "Rules: match3, 2 deals (3 players)." in capsys.readouterr().out

    tm.main([*POOL, "--out", str(tmp_path / "std")])
    data = json.loads((tmp_path / "std" / "leaderboard.json").read_text())
    assert data["preset"] == "standard" and data["config"]["num_deals"] == 1
    assert (tmp_path / "std" / "leaderboard.md").read_text().startswith("| # | policy |")


def test_the_api_names_the_preset_its_config_equals():
    from nothanks_env.presets import get_preset

    pool = [RandomPolicy(), ThresholdPolicy(), NeverTakePolicy(), ThresholdPolicy(T=2)]
    res = tm.tournament(pool, num_players=4, games=4, seed=0, config=get_preset("visible_chips", num_players=4))
    assert (res.preset, res.variant) == ("visible_chips", "visible_chips, opponent chips visible")
    assert res.markdown().splitlines()[0] == "Rules: visible_chips, opponent chips visible (4 players)."
    custom = tm.tournament(pool[:3], num_players=3, games=3, seed=0, config=get_preset("match3", num_removed=5))
    assert (custom.preset, custom.variant) == (None, "custom rules, 3 deals, 5 removed face down")
    standard = tm.tournament(pool[:3], num_players=3, games=3, seed=0)
    assert (standard.preset, standard.variant) == ("standard", "")

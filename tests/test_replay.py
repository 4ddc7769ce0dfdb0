"""Replaying records in the terminal (training.replay): hidden information, navigation, probabilities."""

from __future__ import annotations

import errno
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from test_play import DECK, REMOVED, run, scripted_game, tokens

from nothanks_env.baselines import NeverTakePolicy, RandomPolicy
from nothanks_env.game import PASS, TAKE, Game, GameConfig
from nothanks_env.policy import Policy
from nothanks_env.records import GameRecord, record_from_game
from training import play as rp_play
from training import replay as rp
from training.tui import Display, seat_names, stream_input


@pytest.fixture
def quit_record(tmp_path: Path) -> Path:
    """The scripted game of test_play, quit and saved after 11 decisions (chips then 8 / 10 / 13, pot 2)."""
    game, opponents = scripted_game()
    path = tmp_path / "quit.json"
    run(game, 0, opponents, ["p", "p", "p", "q", "y"], path, seed=0)
    return path


@pytest.fixture
def finished_record(tmp_path: Path) -> Path:
    game = Game(GameConfig(num_players=3, lowest_card=3, highest_card=10, num_removed=2, starting_chips=2))
    game.reset(seed=3)
    while not game.is_over:
        game.step(TAKE if game.pot >= 1 or game.chips[game.current_seat] == 0 else PASS)
    path = tmp_path / "done.json"
    record_from_game(game, seed=3, agents=["a", "b", "c"]).save(path)
    return path


def step_text(record: GameRecord, step: int, seat: int | None, style: str = "plain") -> str:
    out = io.StringIO()
    rp.show_step(Display(out, style), record, step, seat)
    return out.getvalue()


def test_game_at_rebuilds_each_step(quit_record):
    rec = GameRecord.load(quit_record)
    assert rp.game_at(rec, 0).history == []
    g = rp.game_at(rec, 11)
    assert g.chips == [8, 10, 13] and g.pot == 2 and g.face_up_card == 7
    assert rp.game_at(rec, 6).chips == [9, 9, 15]  # player_2 just took 5 with 5 chips
    with pytest.raises(ValueError, match=r"step: expected 0..11, got 12"):
        rp.game_at(rec, 12)


@pytest.mark.parametrize("style", ["plain", "rich"])
@pytest.mark.parametrize("step", [0, 6, 11])
def test_seat_view_hides_removed_cards_future_deck_and_hidden_chips(quit_record, style, step):
    rec = GameRecord.load(quit_record)
    game = rp.game_at(rec, step)
    hidden_cards = {str(c) for c in (*REMOVED, *DECK[3:6])}  # face-down removals and the next cards of the deck
    for seat in range(3):
        text = step_text(rec, step, seat, style)
        assert not tokens(text) & hidden_cards, text
        assert "removed face down" not in text and "deck (next first)" not in text
        others = {str(game.chips[i]) for i in range(3) if i != seat} - {str(game.chips[seat])}
        assert step == 0 or others, "the scenario must give the opponents chip counts of their own"
        # At step 11 the chips are 8 / 10 / 13 and no other number on seats 0 and 1's screens equals them
        # (seat 2 is left out: its own penalty 5 - 13 = -8 shows seat 0's chip count by coincidence).
        if step == 11 and seat != 2:
            assert not tokens(text) & others, text
            assert str(game.chips[seat]) in tokens(text)


@pytest.mark.parametrize("style", ["plain", "rich"])
def test_full_view_shows_everything(quit_record, style):
    rec = GameRecord.load(quit_record)
    text = step_text(rec, 11, None, style)
    assert {str(c) for c in REMOVED} <= tokens(text)
    assert {"24", "25", "26", "8", "10", "13"} <= tokens(text)
    assert "deck (next first): 24 25 26 3 4 8" in re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_step_shows_last_action_and_next_recorded_action(quit_record):
    rec = GameRecord.load(quit_record)
    text = step_text(rec, 6, None)
    assert "== step 6/11   full view ==" in text
    assert "last: player_2 took 5 with 5 chips" in text
    assert "to act: player_2   recorded: pass" in text
    assert "(record ends here)" in step_text(rec, 11, 0)


def test_print_all_prints_every_step_and_the_result(finished_record):
    rec = GameRecord.load(finished_record)
    out = io.StringIO()
    assert rp.main([str(finished_record), "--print-all", "--full"], out=out) == 0
    text = out.getvalue()
    steps = [int(s) for s in re.findall(r"^== step (\d+)/\d+", text, flags=re.M)]
    assert steps == list(range(len(rec.actions) + 1))
    assert re.findall(r"^deal \S+ over$", text, flags=re.M) == ["deal 1/1 over"]  # as training.play says it
    final = text.split("final results")[1]
    for seat, pen in enumerate(rec.penalties):
        assert re.search(rf"^player_{seat} \(\w\)\s+{pen}\s", final, flags=re.M)


def test_default_view_is_the_human_seat(quit_record):
    out = io.StringIO()
    rp.main([str(quit_record), "--print-all"], out=out)
    assert re.findall(r"view of player_\d", out.getvalue()) == ["view of player_0"] * 12
    out = io.StringIO()
    rp.main([str(quit_record), "--print-all", "--full"], out=out)
    assert "view of" not in out.getvalue() and out.getvalue().count("full view ==") == 12


def test_interactive_keys_move_and_switch_views(quit_record):
    out = io.StringIO()
    keys = ["n", "", "b", "g 9", "s 2", "f", "g5", "x", "g 99", "s 7", "b", "q", "n"]
    rp.main([str(quit_record), "--seat", "1"], input_fn=stream_input(io.StringIO("\n".join(keys) + "\n"), out), out=out)
    text = out.getvalue()
    shown = re.findall(r"== step (\d+)/11   (full view|view of player_\d) ==", text)
    assert shown == [
        ("0", "view of player_1"),
        ("1", "view of player_1"),
        ("2", "view of player_1"),
        ("1", "view of player_1"),
        ("9", "view of player_1"),
        ("9", "view of player_2"),
        ("9", "full view"),
        ("5", "full view"),
        ("4", "full view"),
    ]
    assert "unknown command 'x': type h for help" in text
    assert "go to which step? type g N with N in 0..11" in text
    assert "which seat? type s N with N in 0..2" in text


def test_interactive_ends_at_end_of_input_and_stays_in_bounds(quit_record):
    out = io.StringIO()
    rec = GameRecord.load(quit_record)
    keys = io.StringIO("b\ng 11\nn\n")
    rp.replay_loop(rec, display=Display(out, "plain"), input_fn=stream_input(keys, out), seat=0)
    text = out.getvalue()
    assert "already at the first step" in text and "already at the last step" in text
    assert re.findall(r"== step (\d+)/", text) == ["0", "11"]


def test_probabilities_of_a_deterministic_policy_are_one_hot(quit_record):
    view = rp.game_at(GameRecord.load(quit_record), 11).seat_view(0)
    p, source = rp.action_probabilities(NeverTakePolicy(), view)
    assert p.tolist() == [1.0, 0.0] and source == "estimated from 32 draws"


def test_probabilities_of_a_random_policy_are_estimated(quit_record):
    view = rp.game_at(GameRecord.load(quit_record), 11).seat_view(0)
    p, _ = rp.action_probabilities(RandomPolicy(seed=0), view, samples=2000)
    assert abs(p[0] - 0.5) < 0.05 and p.sum() == pytest.approx(1.0)


class Leaning(Policy):
    name = "leaning"

    def act_batch(self, view):
        return np.ones(len(view), dtype=np.int64)

    def action_probabilities(self, view):
        return np.array([0.25, 0.75])


def test_policy_probabilities_are_used_when_the_policy_gives_them(quit_record):
    rec = GameRecord.load(quit_record)
    view = rp.game_at(rec, 11).seat_view(0)
    p, source = rp.action_probabilities(Leaning(), view)
    assert p.tolist() == [0.25, 0.75] and source == "from the policy"
    out = io.StringIO()
    rp.show_step(Display(out, "plain"), rec, 11, 0, Leaning())
    assert "leaning: P(pass) = 0.25   P(take) = 0.75   (from the policy)" in out.getvalue()

    class Broken(Leaning):
        def action_probabilities(self, view):
            return np.array([0.5, 0.7])

    with pytest.raises(ValueError, match="summing to 1"):
        rp.action_probabilities(Broken(), view)


def test_policy_option_prints_probabilities_for_the_seat_to_act(quit_record):
    out = io.StringIO()
    rp.main([str(quit_record), "--print-all", "--policy", "never-take"], out=out)
    text = out.getvalue()
    assert text.count("never-take: P(pass) = 1.00   P(take) = 0.00") == 12


def test_main_rejects_bad_records_and_arguments(tmp_path: Path, quit_record, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something-else"}')
    for argv, message in [
        ([str(tmp_path / "missing.json")], "record: expected an existing game record (a JSON file), got"),
        ([str(bad)], "format: expected 'nothanks-record'"),
        ([str(quit_record), "--seat", "3"], "--seat: expected 0..2, got 3"),
        ([str(quit_record), "--seat", "1", "--full"], "not allowed with argument"),
    ]:
        with pytest.raises(SystemExit) as e:
            rp.main(argv, input_fn=lambda prompt: "q", out=io.StringIO())
        assert e.value.code == 2
        assert message in capsys.readouterr().err


def refused(argv: list[str], capsys) -> str:
    """The one ``error:`` line of a command refused with exit code 2."""
    with pytest.raises(SystemExit) as e:
        rp.main(argv, input_fn=lambda prompt: "q", out=io.StringIO())
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


def test_a_record_that_is_no_record_at_all_is_named_once(tmp_path: Path, capsys):
    # The line said "record" twice: "record: cannot replay X: record: expected valid JSON, got ...".
    broken, listed = tmp_path / "broken.json", tmp_path / "list.json"
    broken.write_text("{not json")
    listed.write_text("[1, 2]")
    assert refused([str(broken), "--print-all"], capsys) == (
        f"error: record: cannot replay {broken}: expected valid JSON, got a parse error: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)"
    )
    assert refused([str(listed)], capsys) == f"error: record: cannot replay {listed}: expected a JSON object, got list"


def test_a_record_path_that_is_no_readable_file_says_what_was_expected_and_got(tmp_path: Path, monkeypatch, capsys):
    # A folder printed the OS's words: "record: cannot replay X: [Errno 21] Is a directory: 'X'".
    folder, missing, inside_a_file = tmp_path / "games", tmp_path / "missing.json", tmp_path / "quit.json" / "x.json"
    folder.mkdir()
    (tmp_path / "quit.json").write_text("{}")
    assert (
        refused([str(folder)], capsys)
        == f"error: record: expected a game record (a JSON file), got {folder} (a directory)"
    )
    for path in (missing, inside_a_file):  # the latter was "[Errno 20] Not a directory: ..."
        assert refused([str(path)], capsys) == (
            f"error: record: expected an existing game record (a JSON file), got {path} (no such file)"
        )
    # a file this user may not read (raised here: chmod 000 does not stop a test run as root)
    locked = tmp_path / "locked.json"
    locked.write_text("{}")
    read_text = Path.read_text

    def denied(self: Path, *args, **kwargs) -> str:
        if self == locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", denied)
    assert refused([str(locked)], capsys) == (
        f"error: record: expected a readable game record (a JSON file), got {locked} (unreadable: Permission denied)"
    )


def test_a_record_that_contradicts_itself_is_refused(tmp_path: Path, finished_record, capsys):
    # Edited penalties or a cut action list used to replay with exit code 0 and no word of it.
    data = json.loads(finished_record.read_text())
    edited, cut = tmp_path / "edited.json", tmp_path / "cut.json"
    edited.write_text(json.dumps({**data, "penalties": [0, 0, 0]}))
    cut.write_text(json.dumps({**data, "actions": data["actions"][:-3]}))
    line = refused([str(edited), "--print-all"], capsys)
    assert f"record: cannot replay {edited}: penalties: expected [0, 0, 0] as recorded, got {data['penalties']}" in line
    line = refused([str(cut), "--print-all"], capsys)
    assert f"record: cannot replay {cut}: actions: expected the game to end after {len(data['actions']) - 3}" in line


def test_a_record_with_a_field_the_format_does_not_have_is_refused(tmp_path: Path, quit_record, capsys):
    # It loaded with the field ignored, where the server refused it.
    data = json.loads(quit_record.read_text())
    extra, deal = tmp_path / "extra.json", tmp_path / "deal.json"
    extra.write_text(json.dumps({**data, "probabilities": [0.5, 1.5]}))
    deal.write_text(json.dumps({**data, "deals": [{**data["deals"][0], "probs": [1.0]}]}))
    assert refused([str(extra), "--print-all"], capsys) == (
        f"error: record: cannot replay {extra}: probabilities: expected no such field (a record has format, version, "
        "config, seed, first_seat, deals, actions, penalties, agents), got [0.5, 1.5]"
    )
    assert refused([str(deal), "--print-all"], capsys) == (
        f"error: record: cannot replay {deal}: deals[0].probs: expected no such field (a deal has deck, "
        "removed_hidden), got [1.0]"
    )
    out = io.StringIO()
    assert rp.main([str(quit_record), "--print-all"], out=out) == 0 and "step 11/11" in out.getvalue()


def test_a_record_with_an_agent_per_seat_missing_is_refused(tmp_path: Path, finished_record, capsys):
    # It used to crash with an IndexError.
    data = json.loads(finished_record.read_text())
    short = tmp_path / "short.json"
    short.write_text(json.dumps({**data, "agents": ["a", "b"]}))
    line = refused([str(short), "--print-all"], capsys)
    assert "agents: expected a list of 3 strings (one per player, config.num_players=3) or null, got ['a', 'b']" in line


def test_policy_option_refuses_an_empty_spec_and_bad_parameters(finished_record, capsys):
    # "" used to mean no policy, while " " was refused.
    for spec in ("", " "):
        line = refused([str(finished_record), "--print-all", "--policy", spec], capsys)
        assert line == f"error: --policy: policy spec: expected a non-empty string, got {spec!r}"
    line = refused([str(finished_record), "--print-all", "--policy", "threshold:T=x"], capsys)
    assert line == "error: --policy: policy spec 'threshold:T=x': T: expected an integer, got 'x'"
    line = refused([str(finished_record), "--print-all", "--policy", ":foo"], capsys)  # was "Empty module name"
    assert line.startswith("error: --policy: policy spec ':foo': expected a baseline (random, ")
    assert line.endswith("or module:attr; got no module name before the ':'")


def test_policy_option_refuses_a_special_cards_network_on_a_standard_record(finished_record, capsys):
    # It used to crash with "RuntimeError: mat1 and mat2 shapes cannot be multiplied".
    line = refused([str(finished_record), "--print-all", "--policy", "ppo-wildcards"], capsys)
    assert line == (  # training.evaluate.check_plays's words, without a preset to suggest: the record has its rules
        "error: --policy: expected policies that play pass/take (a standard table), got ['ppo-wildcards'] "
        "trained on special cards (125 actions); shipped networks for 3 players: ppo-3p, ppo-3p-ens, ppo-mixed"
    )


@pytest.mark.parametrize("style", ["plain", "rich"])
def test_play_and_replay_both_call_the_human_you_and_replay_names_any_other_seat_it_shows(tmp_path: Path, style):
    # Replay called the seat play had called "player_1 (you)" "player_1 (human)" (the record's agent label). Before
    # that its legend (plain) or caption (rich) said "you" for whichever seat it showed: another seat keeps its name.
    path = tmp_path / "game.json"
    played = io.StringIO()
    argv = ["--opponents", "heuristic", "random", "--seed", "3", "--seat", "1", "--save", str(path), "--plain"]
    assert rp_play.main(argv, input_fn=stream_input(io.StringIO("t\n" * 40), played), out=played) == 0
    assert GameRecord.load(path).agents == ("heuristic", "human", "random")
    shown = played.getvalue()
    assert "player_1 (you)" in shown and "(human)" not in shown
    assert re.search(r"^player_1 \(you\)\s+\d+\s+\d", shown.split("== final results ==")[1], flags=re.M)
    rec = GameRecord.load(path)
    mine = re.sub(r"\x1b\[[0-9;]*m", "", step_text(rec, 3, 1, style))
    assert "(human)" not in mine
    assert ("* = you   > = to act" if style == "plain" else "your chips: ") in mine  # play's legend or caption
    other = re.sub(r"\x1b\[[0-9;]*m", "", step_text(rec, 3, 0, style))
    assert "(human)" not in other and "* = you" not in other and "your chips" not in other
    assert ("* = player_0 (heuristic)" if style == "plain" else "chips of player_0 (heuristic): ") in other
    if style == "rich":  # the table's rows name every seat
        assert "player_1 (you)" in mine and "player_1 (you)" in other
    out = io.StringIO()
    assert rp.main([str(path), "--print-all", "--plain"], out=out) == 0
    final = out.getvalue().split("final results")[-1]
    assert re.findall(r"^player_\d \(\w+\)", final, flags=re.M) == [
        "player_0 (heuristic)",
        "player_1 (you)",
        "player_2 (random)",
    ]
    assert "(human)" not in out.getvalue()


def test_a_record_that_names_seats_by_seat_is_not_labelled_twice():
    # The env's records (nothanks_v0 .record()) name each seat "player_i": replay showed "player_0 (player_0)".
    assert seat_names(3, ["player_0", "player_1", "player_2"]) == ["player_0", "player_1", "player_2"]
    assert seat_names(3, ["player_0", "human", "random"], you=1) == ["player_0", "player_1 (you)", "player_2 (random)"]
    # a record's human is "you", as play called it (replay said "player_1 (human)")
    assert seat_names(3, ["player_0", "human", "random"]) == ["player_0", "player_1 (you)", "player_2 (random)"]


def test_special_card_probabilities_refuse_a_fraction_or_an_illegal_draw_naming_the_policy():
    """Estimated from draws of act(): 1.9 was a TypeError in np.bincount, and an id the phase forbids was counted."""
    from nothanks_env.policy import PolicyActionError

    class Fixed(Policy):
        name = "fixed"
        plays_special_cards = True

        def __init__(self, action: object) -> None:
            super().__init__()
            self.action = action

        def act(self, view):  # noqa: ANN001 - the contract's SeatView
            return self.action

    game = Game(GameConfig(num_players=3, special_cards=("wild", "delete"), starting_seat=0))
    game.reset(seed=0)
    view = game.seat_view(game.current_seat)
    p, source = rp.special_probabilities(Fixed(PASS), view, samples=8)
    assert p[PASS] == 1.0 and p.sum() == 1.0 and source == "estimated from 8 draws"
    with pytest.raises(PolicyActionError, match=r"policy fixed: .*got 1.9"):
        rp.special_probabilities(Fixed(1.9), view, samples=8)
    illegal = next(a for a in range(view.config.num_actions) if a not in view.legal_actions)
    with pytest.raises(PolicyActionError, match=r"policy fixed: expected a legal action in phase"):
        rp.special_probabilities(Fixed(illegal), view, samples=8)


def test_options_that_would_do_nothing_are_refused(quit_record, capsys):
    """--samples without --policy was ignored, and --print-all printed from step 0 whatever --step said."""
    assert refused([str(quit_record), "--samples", "5"], capsys) == (
        "error: --samples: expected with --policy (it sets the draws that estimate that policy's probabilities), "
        "got --samples 5 without --policy"
    )
    assert refused([str(quit_record), "--step", "4", "--print-all"], capsys) == (
        "error: --step: expected without --print-all (which prints every step, from step 0), got --step 4 with "
        "--print-all"
    )
    assert refused([str(quit_record), "--print-all", "--step", "0"], capsys).startswith("error: --step: expected")
    # each where it means something
    out = io.StringIO()
    assert rp.main([str(quit_record), "--print-all", "--policy", "never-take", "--samples", "5"], out=out) == 0
    assert "step 11/11" in out.getvalue()
    out = io.StringIO()
    assert rp.main([str(quit_record), "--step", "4", "--full"], input_fn=lambda prompt: "q", out=out) == 0
    assert "step 4/11" in out.getvalue() and "step 0/11" not in out.getvalue()


@pytest.mark.parametrize(
    ("preset", "plain_header", "rich_title"),
    [("standard", "deal 1/1 over", "deal 1/1 over"), ("match3", "deal 3/3  match over", "deal 3/3  match over")],
)
def test_the_last_table_says_the_deal_is_over_in_a_one_deal_game(tmp_path: Path, preset, plain_header, rich_title):
    # Its header said "deal 1/1  match over" (rich: "deal 1/1   match over") where play says "deal 1/1 over".
    path = tmp_path / "game.json"
    argv = ["--preset", preset, "--seed", "3", "--seat", "1", "--save", str(path), "--plain"]
    played = io.StringIO()
    assert rp_play.main(argv, input_fn=stream_input(io.StringIO("t\n" * 300), played), out=played) == 0
    rec = GameRecord.load(path)
    last = len(rec.actions)
    plain = step_text(rec, last, 1, "plain")
    assert re.findall(r"^No Thanks!  3 players  (.*)$", plain, flags=re.M) == [plain_header]
    rich = re.sub(r"\x1b\[[0-9;]*m", "", step_text(rec, last, 1, "rich"))
    assert re.search(rf"^{re.escape(rich_title)}\s*$", rich, flags=re.M), rich
    if preset == "standard":  # one deal: no match to speak of
        assert "match over" not in plain and "match over" not in rich


@pytest.mark.parametrize(("preset", "deals"), [("standard", 1), ("match3", 3)])
def test_replay_says_what_play_said_when_each_deal_ended(tmp_path: Path, preset, deals):
    # replay titled a deal's summary "deal 1 over" where play said "deal 1/1 over" (and "deal 2 over" for 2/3)
    path = tmp_path / "game.json"
    played = io.StringIO()
    argv = ["--preset", preset, "--seed", "3", "--seat", "1", "--save", str(path), "--plain"]
    assert rp_play.main(argv, input_fn=stream_input(io.StringIO("t\n" * 300), played), out=played) == 0
    expected = [f"deal {d}/{deals} over" for d in range(1, deals + 1)]
    assert re.findall(r"^== (deal \S+ over) ==$", played.getvalue(), flags=re.M) == expected
    out = io.StringIO()
    assert rp.main([str(path), "--print-all", "--plain"], out=out) == 0
    assert re.findall(r"^(deal \S+ over)$", out.getvalue(), flags=re.M) == expected

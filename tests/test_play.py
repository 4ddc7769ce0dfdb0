"""Terminal play (training.play): the loop driven by scripted input, checked against the engine."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from fixed_bots import FloatBidder, FloatTake, WholeFloatTake

from nothanks_env.baselines import AlwaysTakePolicy, HeuristicPolicy, NeverTakePolicy
from nothanks_env.game import PASS, TAKE, Deal, Game, GameConfig
from nothanks_env.policy import Policy, PolicyActionError
from nothanks_env.records import GameRecord, replay
from training import play
from training.tui import Display, stream_input

# A fixed deal whose hidden parts are recognisable: the face-down removals are 27..35 and the three
# cards after the first three are 24, 25, 26, so none of them can appear by chance early in the deal.
REMOVED = tuple(range(27, 36))
DECK = (5, 6, 7, 24, 25, 26, 3, 4, *range(8, 24))
FIXED_DEAL = Deal(deck=DECK, removed_hidden=REMOVED)
P, T = PASS, TAKE


class Scripted(Policy):
    """Plays a fixed list of actions, one per decision."""

    name = "scripted"

    def __init__(self, actions: list[int]) -> None:
        super().__init__()
        self.actions = list(actions)

    def act_batch(self, view):
        return np.array([self.actions.pop(0)], dtype=np.int64)


def run(game, human, opponents, lines, save_path=None, **kw):
    out = io.StringIO()
    result = play.play_game(
        game,
        human,
        opponents,
        display=Display(out, "plain"),
        input_fn=stream_input(io.StringIO("".join(f"{x}\n" for x in lines)), out),
        save_path=save_path,
        **kw,
    )
    return result, out.getvalue()


def scripted_game(opponent_chips="hidden"):
    """Human = seat 0, who starts. After 11 decisions (the human passed 3 times): chips 8 / 10 / 13, pot 2,
    face-up 7; player_1 holds 6, player_2 holds 5."""
    game = Game(GameConfig(num_players=3, starting_seat=0, opponent_chips=opponent_chips))
    game.reset(seed=0, deals=[FIXED_DEAL])
    opponents = {1: Scripted([P, P, T, P]), 2: Scripted([P, T, P, P])}
    return game, opponents


def tokens(text: str) -> set[str]:
    return set(re.findall(r"(?<![\d_])\d+(?!\d)", re.sub(r"\x1b\[[0-9;]*m", "", text)))


def final_penalties_shown(text: str) -> list[int]:
    """Penalties in the printed final-results table, by seat."""
    block = text.split("== final results ==")[1]
    rows = re.findall(r"^player_(\d) \([^)]*\)\s+(-?\d+)\s+\d", block, flags=re.M)
    return [int(p) for _, p in sorted(rows)]


def test_parse_command_accepts_keys_and_words_in_any_case():
    assert [play.parse_command(s) for s in ("t", " TAKE ", "P", "pass", "h", "Help", "?", "q", "QUIT")] == [
        "take", "take", "pass", "pass", "help", "help", "help", "quit", "quit"
    ]  # fmt: skip
    assert [play.parse_command(s) for s in ("", "tak", "x", "take it", "1")] == [None] * 5


def test_complete_scripted_game(tmp_path: Path):
    # Human (seat 0) takes 10, passes on 4; never-take passes; always-take takes 4 with 2 chips and the rest.
    cfg = GameConfig(num_players=3, lowest_card=3, highest_card=10, num_removed=2, starting_chips=2, starting_seat=0)
    game = Game(cfg)
    game.reset(seed=0, deals=[Deal(deck=(10, 4, 5, 9, 3, 8), removed_hidden=(6, 7))])
    path = tmp_path / "g.json"
    result, text = run(game, 0, {1: NeverTakePolicy(), 2: AlwaysTakePolicy()}, ["t", "p"], path, seed=0)

    assert result.finished and result.saved_to == path
    assert game.final_penalties() == [10 - 1, -1, 3 + 8 - 4]
    assert "you took 10 with 0 chips" in text
    assert "you passed on 4 (pot now 1)" in text
    assert "player_1 passed on 4 (pot now 2)" in text
    assert "player_2 took 4 with 2 chips" in text
    assert "player_2 took 8 with 0 chips" in text
    assert final_penalties_shown(text) == [9, -1, 7]
    assert re.search(r"player_1 \(never-take\)\s+-1\s+1 \(winner\)", text)
    assert "winner: player_1 (never-take)" in text
    saved = GameRecord.load(path)
    assert saved.penalties == (9, -1, 7)
    assert saved.agents == ("human", "never-take", "always-take")
    assert saved.actions == (T, P, P, T, T, T, T, T)


def test_bad_input_is_refused_and_asked_again(tmp_path: Path):
    game, opponents = scripted_game()
    path = tmp_path / "unused.json"
    result, text = run(game, 0, opponents, ["banana", "", "  P  ", "q", "maybe", "n"], save_path=path)
    assert "unknown command 'banana': type t (take), p (pass), h (help) or q (quit)" in text
    assert "no command: type t" in text
    assert "please answer y or n" in text
    assert [h.action for h in game.history[:1]] == [PASS]  # only the valid "P" became an action
    assert not result.finished and result.saved_to is None
    assert not path.exists() and "not saved" in text


def test_pass_at_zero_chips_is_refused_with_the_reason():
    game = Game(GameConfig(num_players=3, starting_chips=0, starting_seat=0))
    game.reset(seed=0, deals=[FIXED_DEAL])
    result, text = run(game, 0, {1: HeuristicPolicy(), 2: HeuristicPolicy()}, ["p", "pass", "t"] + ["t"] * 30)
    assert text.count("you cannot pass: you have no chips left, so you must take the card (t)") == 2
    assert "pass: not allowed, you have no chips" in text
    assert game.history[0].seat == 0 and game.history[0].action == TAKE
    assert result.finished and all(h.action == TAKE for h in game.history)


def test_help_lists_the_commands():
    game, opponents = scripted_game()
    _, text = run(game, 0, opponents, ["h", "q"])
    assert "t, take" in text and "p, pass" in text and "q, quit" in text


def test_quit_and_save_writes_a_replayable_unfinished_record(tmp_path: Path):
    game, opponents = scripted_game()
    path = tmp_path / "sub" / "quit.json"
    result, text = run(game, 0, opponents, ["p", "p", "p", "q", "y"], path, seed=0)
    assert not result.finished and result.saved_to == path
    assert f"game saved to {path}" in text
    rec = GameRecord.load(path)
    assert rec.penalties is None
    assert rec.actions == (P, P, P, P, P, T, P, P, T, P, P)
    assert rec.deals == (FIXED_DEAL,)
    again = replay(rec)
    assert again.chips == [8, 10, 13] and again.pot == 2 and again.face_up_card == 7


def test_end_of_input_quits_without_saving_or_crashing(tmp_path: Path):
    game, opponents = scripted_game()
    path = tmp_path / "eof.json"
    result, text = run(game, 0, opponents, ["p"], path)
    assert not result.finished and result.saved_to is None and not path.exists()
    assert result.record.actions == (P, P, P) and "bye" in text


def last_turn(text: str) -> str:
    """The table and messages shown for the human's last decision."""
    return text.split("since your last decision:")[-1].split("your move")[0]


@pytest.mark.parametrize("style", ["plain", "rich"])
def test_seat_view_hides_removed_cards_future_deck_and_opponents_chips(style):
    game, opponents = scripted_game()
    out = io.StringIO()
    lines = io.StringIO("p\np\np\nq\n")
    play.play_game(game, 0, opponents, display=Display(out, style), input_fn=stream_input(lines, out), save_path=None)
    text = out.getvalue()
    assert game.chips == [8, 10, 13] and game.face_up_card == 7  # the state the last turn showed
    seen = tokens(text)
    assert not seen & {str(c) for c in REMOVED}
    assert not seen & {"24", "25", "26"}  # the next three cards of the deck
    assert "removed face down" not in text and "deck (next first)" not in text
    turn = tokens(last_turn(text))
    assert {"7", "8", "2"} <= turn  # face-up card, own chips, pot
    assert not turn & {"10", "13"}  # opponents' chips


def test_visible_chips_variant_shows_opponents_chips():
    game, opponents = scripted_game(opponent_chips="visible")
    _, text = run(game, 0, opponents, ["p", "p", "p", "q"])
    assert {"10", "13"} <= tokens(last_turn(text))
    assert not tokens(text) & {str(c) for c in REMOVED}


def test_saved_record_replays_to_the_penalties_shown(tmp_path: Path):
    game = Game(GameConfig(num_players=4))
    game.reset(seed=11)
    opponents = {1: HeuristicPolicy(), 2: HeuristicPolicy(), 3: NeverTakePolicy()}
    # Pass and take in turn; at 0 chips the pass is refused and the take goes through.
    result, text = run(game, 0, opponents, ["p", "t"] * 200, tmp_path / "full.json", seed=11)
    assert result.finished
    shown = final_penalties_shown(text)
    assert shown == game.final_penalties()
    assert list(replay(GameRecord.load(tmp_path / "full.json")).final_penalties()) == shown


def test_match_shows_totals_between_deals(tmp_path: Path):
    cfg = GameConfig(num_players=3, lowest_card=3, highest_card=8, num_removed=1, starting_chips=2, num_deals=2)
    game = Game(cfg)
    game.reset(seed=5)
    result, text = run(game, 0, {1: NeverTakePolicy(), 2: AlwaysTakePolicy()}, ["p", "t"] * 40, tmp_path / "m.json")
    assert result.finished
    assert "== deal 1/2 over ==" in text and "== deal 2/2 over ==" in text
    assert "deal 2 starts" in text
    first, second = game.deal_penalties
    block = text.split("== deal 1/2 over ==")[1].split("deal 2 starts")[0]
    for seat in range(3):  # penalty of deal 1, then the match total so far (equal after one deal)
        assert re.search(rf"player_{seat} .*\s{first[seat]}\s+{first[seat]}$", block, flags=re.M)
    final = text.split("== final results ==")[1]
    for seat in range(3):
        total = first[seat] + second[seat]
        assert re.search(rf"^player_{seat} .*\s{first[seat]}\s+{second[seat]}\s+{total}\s", final, flags=re.M)
    assert GameRecord.load(tmp_path / "m.json").penalties == tuple(game.final_penalties())


def test_main_plays_and_saves(tmp_path: Path):
    out = io.StringIO()
    path = tmp_path / "cli.json"
    argv = ["--opponents", "heuristic", "threshold:T=5", "--seed", "4", "--seat", "1", "--save", str(path)]
    assert play.main(argv, input_fn=stream_input(io.StringIO("t\n" * 30), out), out=out) == 0
    rec = GameRecord.load(path)
    assert rec.agents == ("heuristic", "human", "threshold:T=5")
    assert rec.seed == 4 and rec.penalties is not None
    assert "player_1: you" in out.getvalue()


def test_main_default_path_and_seat_come_from_the_seed(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outs = []
    for _ in range(2):
        out = io.StringIO()
        play.main(["--seed", "9", "--preset", "visible_chips"], input_fn=stream_input(io.StringIO("q\nn\n"), out),
                  out=out)  # fmt: skip
        outs.append(out.getvalue())
    assert outs[0] == outs[1]  # same seat, same deal
    out = io.StringIO()
    play.main(["--seed", "9"], input_fn=stream_input(io.StringIO("t\n" * 30), out), out=out)
    saved = list((tmp_path / "games").glob("nothanks__standard__9__*.json"))
    assert len(saved) == 1 and GameRecord.load(saved[0]).penalties is not None


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--players", "4", "--opponents", "heuristic", "random"],
            "expected 3 specs for 4 players (one per other seat), got 2",
        ),
        (["--opponents", "heuristic", "nonsense-bot"], "policy spec 'nonsense-bot'"),
        (["--players", "3", "--seat", "3"], "--seat: expected 0..2, got 3"),
        (["--players", "9"], "error: argument --players: expected an int in 3..7, got 9"),
    ],
)
def test_main_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        play.main(argv, input_fn=lambda prompt: "q", out=io.StringIO())
    assert e.value.code == 2
    assert message in capsys.readouterr().err


SPEC_EXPECTED = "expected a baseline (random, never-take, always-take, threshold, heuristic, search, ratio, blocker"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--opponents", "nosuch"], f"--opponents: policy spec 'nosuch': {SPEC_EXPECTED}"),
        (["--players", "4", "--opponents", "nosuch"], f"--opponents: policy spec 'nosuch': {SPEC_EXPECTED}"),
        (["--opponents", *["random"] * 6, "nosuch"], f"--opponents: policy spec 'nosuch': {SPEC_EXPECTED}"),
        (
            ["--opponents", "heuristic"],
            "--opponents: expected 2..6 specs, one per other seat (or --players N for a table of N), got 1: heuristic",
        ),
        (
            ["--players", "4", "--opponents", "heuristic"],
            "--opponents: expected 3 specs for 4 players (one per other seat), got 1: heuristic",
        ),
    ],
)
def test_a_bad_opponent_spec_or_count_is_one_error_line_naming_it(argv, message, capsys):
    """A spec that does not load is named with what specs are accepted, whatever the count; a wrong count of
    good specs is named as a count (one spec used to read as a 2-player table: 'num_players: ... got 2')."""
    with pytest.raises(SystemExit) as e:
        play.main(argv, input_fn=lambda prompt: "q", out=io.StringIO())
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and err.startswith(f"error: {message}"), err


class Bare:
    """A user policy with nothing but act_batch (what training.specs accepts from module:attr)."""

    def act_batch(self, view):
        return np.full(len(view), TAKE, dtype=np.int64)


def test_opponents_need_only_act_batch():
    game, _ = scripted_game()
    result, _ = run(game, 0, {1: Bare(), 2: Bare()}, ["p", "p"])
    assert result.finished and result.record.agents == ("human", "Bare", "Bare")
    assert game.history[1].seat == 1 and game.history[1].action == TAKE


class PassAlways(Policy):
    """Passes, even without a chip."""

    name = "pass-always"

    def act_batch(self, view):
        return np.zeros(len(view), dtype=np.int64)


def test_a_bot_returning_a_fraction_stops_the_game_naming_it():
    game, _ = scripted_game()
    with pytest.raises(PolicyActionError) as e:
        run(game, 0, {1: FloatTake(), 2: NeverTakePolicy()}, ["p"])
    assert str(e.value) == (
        "player_1 (float-take) at move 1: policy float-take: expected whole action ids (PASS=0 or TAKE=1), got 1.9"
    )
    assert [(h.seat, h.action) for h in game.history] == [(0, PASS)]  # no TAKE was played for it
    game, _ = scripted_game()
    result, _ = run(game, 0, {1: WholeFloatTake(), 2: NeverTakePolicy()}, ["p", "q", "n"])
    assert [(h.seat, h.action) for h in game.history[:3]] == [(0, PASS), (1, TAKE), (1, TAKE)]


@pytest.mark.parametrize(
    ("bot", "preset", "message"),
    [
        (
            FloatTake,
            "standard",
            "player_1 ({spec}) at move 1: policy float-take: expected whole action ids (PASS=0 or TAKE=1), got 1.9",
        ),
        (
            FloatBidder,
            "wildcards",
            "player_1 ({spec}) at move 1: policy float-bidder: expected whole action ids (0..124), got 1.9",
        ),
        (
            PassAlways,
            "standard",
            "player_1 ({spec}) at move 39: action: expected TAKE (1) because seat 1 has 0 chips, got PASS (0)",
        ),
    ],
)
def test_main_reports_a_bot_returning_no_legal_action_in_one_error_line(bot, preset, message, tmp_path, capsys):
    # int() cut 1.9 to 1 (a TAKE, or the bid 1 with special cards); an illegal action was a traceback
    spec = f"{__name__}:{bot.__name__}"  # as pytest imported this module
    argv = ["--opponents", spec, "heuristic", "--preset", preset, "--seed", "1", "--seat", "0", "--plain"]

    prompts = []

    def answer(prompt: str) -> str:  # pass while you can; save the unfinished game when asked
        prompts.append(prompt)
        if prompt.startswith("save the unfinished game?"):
            return "y"
        return "b 0" if "auction" in prompt else "t" if " 0 chips left" in prompt else "p"

    path = tmp_path / "g.json"
    with pytest.raises(SystemExit) as e:
        play.main([*argv, "--save", str(path)], input_fn=answer, out=io.StringIO())
    err = capsys.readouterr().err
    kept = f"; the unfinished game was saved to {path}"
    assert e.value.code == 2 and err == f"error: --opponents: {message.format(spec=spec)}{kept}\n"
    # the human's moves up to the bot's failure are kept, as a quit keeps them; the bot's action is not in it
    assert prompts[-1] == "save the unfinished game? [y/n]: "
    rec = GameRecord.load(path)
    move = int(message.split(" at move ")[1].split(":")[0])
    assert rec.penalties is None and len(rec.actions) == move and rec.agents == ("human", spec, "heuristic")


def test_a_failing_bot_offers_to_save_as_a_quit_does(tmp_path: Path):
    for lines, saved in [(["p", "maybe", "n"], False), (["p"], False), (["p", "y"], True)]:  # ["p"]: end of input
        game, _ = scripted_game()
        path = tmp_path / "bot.json"
        with pytest.raises(PolicyActionError) as e:
            run(game, 0, {1: FloatTake(), 2: NeverTakePolicy()}, lines, path, seed=0)
        kept = f"saved to {path}" if saved else "not saved"
        assert str(e.value) == (
            "player_1 (float-take) at move 1: policy float-take: expected whole action ids (PASS=0 or TAKE=1), got "
            f"1.9; the unfinished game was {kept}"
        )
        assert path.exists() == saved
        if saved:
            assert GameRecord.load(path).actions == (P,) and GameRecord.load(path).seed == 0
            path.unlink()


# ------------------------------------------------------------------ the wildcards variant (special cards)
def wildcards_game():
    """Human = seat 0, who starts: the wild is turned first, then 10, then the delete card."""
    from nothanks_env.game import DELETE, WILD
    from nothanks_env.presets import get_preset

    game = Game(get_preset("wildcards", starting_seat=0))
    deck = (WILD, 10, DELETE, *range(11, 34))
    game.reset(seed=0, deals=[Deal(deck=deck, removed_hidden=(3, 4, 5, 6, 7, 8, 9, 34, 35))])
    return game, {1: HeuristicPolicy(), 2: HeuristicPolicy()}


def test_wildcards_auction_bids_and_choices_are_asked_checked_and_applied():
    game, opponents = wildcards_game()
    lines = [
        "d",  # the opener may not drop before bidding: refused
        "b 0",  # the heuristics drop a wild they cannot use (worth -3 to an empty hand): won at 0
        "10",  # refused: 10 is not held, but the next prompt asks for the wild's value; 10 is fine
        "t",  # takes 10 (the wild at 10 scores once: 10 adds nothing)
        "b 12",  # refused: more than my 11 chips
        "bid 9",  # beats the heuristics' ceiling for a delete on an empty hand (7): they drop
        "11",  # refused: not one of my cards
        "10",  # discards 10
        "q",
        "n",
    ]
    result, text = run(game, 0, opponents, lines)
    assert not result.finished
    assert "you cannot drop yet: the opener must bid first (bid 0 or more)" in text
    assert "you named the wild 10" in text
    assert "bid 12: expected at most your 11 chips" in text
    assert "card 11: expected one of your cards (10)" in text
    assert "you discarded 10 (delete)" in text
    assert "player_1 dropped out of the delete auction" in text
    assert game.wild_value[0] == 10 and game.cards[0] == 0 and game.discarded == [10]
    assert game.paid == [9, 0, 0] and game.chips[0] == 2
    # the auction's state is shown before the human bids: high bid, bidder, who is still in
    assert "auction for the delete: you open: bid 0 or more" in text
    assert "still in: player_0 (you), player_1 (heuristic), player_2 (heuristic)   chips paid to auctions" in text
    assert "face-up card: 11  pot: 0" in text and "*> player_0     2 - ?=10 paid 9" in text


def test_wildcards_raise_war_and_refused_low_bid():
    game, opponents = wildcards_game()
    result, text = run(game, 0, opponents, ["0", "5", "t", "1", "3", "d", "q", "n"])
    # after my opening 1 the heuristics (holding nothing: a delete is worth 8 to them) raise to 2 and 3
    assert "player_1 bid 2 for the delete" in text and "player_2 bid 3 for the delete" in text
    assert "bid 3: expected at least 4 (more than the high bid 3)" in text
    assert "high bid 3 by player_2 (heuristic); bid 4 or more, or drop" in text
    assert game.wild_value[0] == 5 and game.cards[0] == 1 << 10
    assert game.paid == [0, 0, 7]  # the heuristics ran the price up to their ceiling (8 - 1)
    # player_2 won it with no card, so its next card taken (11) was discarded as it took it
    assert game.discarded == [11] and game.cards[2] == 1 << 12 and game.chips == [11, 11, 3]


def test_wildcards_record_replays_with_the_auction_in_words(tmp_path: Path):
    from training import replay as replay_cli

    game, opponents = wildcards_game()
    path = tmp_path / "w.json"
    run(game, 0, opponents, ["0", "5", "t", "bid 9", "10", "q", "y"], save_path=path)
    rec = GameRecord.load(path)
    assert rec.config.special_cards == ("wild", "delete")
    out = io.StringIO()
    assert replay_cli.main([str(path), "--print-all", "--plain", "--policy", "heuristic"], out=out) == 0
    text = out.getvalue()
    assert "last: player_0 named the wild 5" in text
    assert "last: player_0 discarded 10 (delete)" in text
    assert "auction for delete: high bid 9 by player_0; still in: player_0, player_1, player_2; player_1 to bid" in text
    assert "auction for delete: high bid 9 by player_0; still in: player_0, player_2; player_2 to bid" in text
    assert "heuristic: P(drop) = 1.00   (estimated from 32 draws)" in text
    assert "heuristic: P(delete 10) = 1.00   (estimated from 32 draws)" in text


def test_main_plays_wildcards_and_refuses_pass_take_opponents(tmp_path: Path, capsys):
    out = io.StringIO()
    assert play.main(["--preset", "wildcards", "--seed", "3", "--seat", "0", "--save", str(tmp_path / "g.json")],
                     input_fn=stream_input(io.StringIO("q\nn\n"), out), out=out) == 0  # fmt: skip
    assert "preset wildcards" in out.getvalue()
    with pytest.raises(SystemExit) as e:
        play.main(["--preset", "wildcards", "--opponents", "threshold:T=5", "heuristic"], input_fn=lambda p: "q",
                  out=io.StringIO())  # fmt: skip
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "error: --preset wildcards: expected policies that play its special cards (random, heuristic, ppo-wildcards, "
        "or a checkpoint trained on them), got --opponents threshold:T=5, which plays only pass/take: change "
        "--opponents or --preset\n"
    )


def test_main_refuses_a_wildcards_network_at_a_standard_table(capsys):
    # it named no network that plays there
    with pytest.raises(SystemExit) as e:
        play.main(["--opponents", "ppo-wildcards", "heuristic"], input_fn=lambda p: "q", out=io.StringIO())
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "error: --preset standard: expected policies that play pass/take (its table has no special cards), got "
        "--opponents ppo-wildcards, trained on special cards (125 actions): change --opponents or --preset "
        "(wildcards); shipped networks for 3 players: ppo-3p, ppo-3p-ens, ppo-mixed\n"
    )


def _no_input(prompt: str) -> str:
    raise AssertionError("the game started")


@pytest.mark.parametrize(
    ("save", "message"),
    [
        ("adir", "--save: expected a file path, got the directory 'adir'"),
        ("", "--save: expected a file path, got '' (an empty path)"),
        (
            "afile/x.json",
            "--save: expected a path whose folders can be created, got 'afile/x.json' ('afile' is not a folder)",
        ),
        (
            "keep.json",
            "--save: expected a path that does not exist yet (pass --overwrite to replace it), got 'keep.json' "
            "(an existing file)",
        ),
        pytest.param(
            "/proc/p.json",
            "--save: expected a path in a writable folder, got '/proc/p.json' ('/proc' is not writable)",
            marks=pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc"),
        ),
    ],
)
def test_main_refuses_a_save_path_before_the_game(save, message, tmp_path: Path, monkeypatch, capsys):
    """The whole game was played, then the record failed to save (a traceback, the game lost) or replaced a file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("a file")
    (tmp_path / "keep.json").write_bytes(b"an earlier game")
    with pytest.raises(SystemExit) as e:
        play.main(["--seed", "1", "--seat", "0", "--plain", "--save", save], input_fn=_no_input, out=io.StringIO())
    assert e.value.code == 2 and capsys.readouterr().err == f"error: {message}\n"
    assert (tmp_path / "keep.json").read_bytes() == b"an earlier game"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile", "keep.json"]


def test_main_overwrite_replaces_an_earlier_record(tmp_path: Path):
    path = tmp_path / "g.json"
    path.write_text("an earlier game")
    out = io.StringIO()
    argv = ["--seed", "4", "--seat", "0", "--save", str(path), "--overwrite"]
    assert play.main(argv, input_fn=stream_input(io.StringIO("t\n" * 30), out), out=out) == 0
    assert GameRecord.load(path).seed == 4


WILD_REFUSED = (
    "error: --preset wildcards: expected policies that play its special cards (random, heuristic, ppo-wildcards, or a "
    "checkpoint trained on them), got --opponents {}, which plays only pass/take: change --opponents or --preset"
)


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--opponents", "ppo-3p", "--preset", "wildcards"],
            WILD_REFUSED.format("ppo-3p") + "; also --opponents: expected 2..6 specs, one per other seat (or --players "
            "N for a table of N), got 1: ppo-3p",
        ),
        (
            ["--players", "3", "--opponents", "heuristic", "threshold", "heuristic", "--preset", "wildcards"],
            WILD_REFUSED.format("threshold") + "; also --opponents: expected 2 specs for 3 players (one per other "
            "seat), got 3: heuristic threshold heuristic",
        ),
        (
            ["--opponents", "heuristic", "--preset", "wildcards"],  # heuristic plays them: the count alone
            "error: --opponents: expected 2..6 specs, one per other seat (or --players N for a table of N), got 1: "
            "heuristic",
        ),
        (["--opponents", "ppo-3p", "ppo-3p", "--preset", "wildcards"], WILD_REFUSED.format("ppo-3p")),
    ],
    ids=["one-opponent", "three-at-three", "count-only", "variant-only"],
)
def test_a_wrong_count_at_a_wildcards_table_also_says_who_cannot_play_it(argv, line, capsys):
    # the count was the only error: fixing it, the user met the variant's next (no count of ppo-3p plays wildcards)
    with pytest.raises(SystemExit) as e:
        play.main(argv, input_fn=lambda prompt: "q", out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err == line + "\n"

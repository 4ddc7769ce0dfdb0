"""Game records: JSON export, replay to the identical end state, and errors on malformed records."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from nothanks_env import nothanks_v0
from nothanks_env.game import PASS, TAKE, Deal, Game, GameConfig
from nothanks_env.records import DEAL_FIELDS, RECORD_FIELDS, GameRecord, RecordError, record_from_game, replay


def random_env_game(seed: int, **kwargs):
    e = nothanks_v0.raw_env(**kwargs)
    e.reset(seed=seed)
    rng = random.Random(seed)
    while not e.game.is_over:
        e.step(TAKE if e.game.chips[e.game.current_seat] == 0 or rng.random() < 0.4 else PASS)
    return e


@pytest.mark.parametrize(
    "kwargs",
    [{"num_players": 3}, {"preset": "match3", "num_players": 5}, {"preset": "open_removed", "num_players": 7}],
)
def test_env_game_to_json_and_back_replays_to_the_identical_end_state(kwargs, tmp_path):
    for seed in range(5):
        e = random_env_game(seed, **kwargs)
        rec = e.record()
        assert rec.agents == tuple(e.possible_agents) and rec.seed == seed
        assert rec.penalties == tuple(e.game.final_penalties())
        path = tmp_path / f"game{seed}.json"
        rec.save(path)
        loaded = GameRecord.load(path)
        assert loaded == rec
        g = replay(loaded)
        assert g.is_over
        assert g.final_penalties() == e.game.final_penalties()
        assert g.deal_penalties == e.game.deal_penalties
        assert g.state() == e.game.state()
        assert [(h.seat, h.action, h.card, h.pot) for h in g.history] == [
            (h.seat, h.action, h.card, h.pot) for h in e.game.history
        ]
        assert record_from_game(g, seed=seed, agents=e.possible_agents) == rec


def test_json_format_fields():
    e = random_env_game(3, num_players=4)
    data = json.loads(e.record().to_json())
    assert data["format"] == "nothanks-record" and data["version"] == 1
    assert data["config"]["num_players"] == 4 and data["config"]["starting_seat"] is None
    assert data["first_seat"] == e.game.first_seat
    assert data["deals"] == [
        {"deck": list(e.game.deals[0].deck), "removed_hidden": list(e.game.deals[0].removed_hidden)}
    ]
    assert len(data["actions"]) == len(e.game.history) and set(data["actions"]) <= {0, 1}
    assert data["penalties"] == e.game.final_penalties()


def test_unfinished_game_replays_to_the_same_position():
    g = Game(GameConfig(num_players=5, num_deals=2))
    g.reset(seed=8)
    for a in [PASS, PASS, TAKE, PASS, TAKE, TAKE]:
        g.step(a)
    rec = GameRecord.from_json(record_from_game(g, seed=8).to_json())
    assert rec.penalties is None
    assert replay(rec).state() == g.state()


def good_record() -> dict:
    return random_env_game(1, num_players=3).record().to_dict()


@pytest.mark.parametrize(
    ("mutate", "pattern"),
    [
        (lambda d: d.update(format="chess"), r"format: expected 'nothanks-record', got 'chess'"),
        (lambda d: d.update(version=2), r"^version: expected the int 1, got 2$"),
        (lambda d: d.update(version=True), r"^version: expected the int 1, got True$"),  # it equals 1: it loaded
        (lambda d: d.update(version=1.0), r"^version: expected the int 1, got 1.0$"),
        (  # an unknown field was ignored: nothing read it, so nothing checked it
            lambda d: d.update(probabilities=[0.5, 1.5]),
            r"^probabilities: expected no such field \(a record has format, version, config, seed, first_seat, "
            r"deals, actions, penalties, agents\), got \[0.5, 1.5\]$",
        ),
        (
            lambda d: d.update(Actions=[1] * 200),
            r"^Actions: expected no such field \(a record has .*\), got \[1, 1, 1, .*, 1, 1\.\.\.$",
        ),
        (
            lambda d: d["deals"][0].update(probs=[1.0, -2.0]),
            r"^deals\[0\]\.probs: expected no such field \(a deal has deck, removed_hidden\), got \[1.0, -2.0\]$",
        ),
        (lambda d: d.pop("actions"), r"record: expected keys \['actions'\] to be present"),
        (lambda d: d["config"].update(num_players=9), r"config: num_players: expected an int in 3..7, got 9"),
        (lambda d: d["config"].update(colour="red"), r"config: .*colour"),
        (lambda d: d.update(seed="x"), r"seed: expected an int or null, got 'x'"),
        (lambda d: d.update(actions=[0, 2]), r"actions: expected a list of 0 \(pass\) / 1 \(take\)"),
        (lambda d: d.update(deals=[{"deck": [1]}]), r"deals: expected a list of"),
        (lambda d: d["deals"][0]["deck"].pop(), r"deals: deal.deck: expected 24 cards, got 23"),
        (lambda d: d.update(first_seat=5), r"first_seat: expected an int in 0..2, got 5"),
        (lambda d: d.update(penalties=[0, 0, 0]), r"penalties: expected \[0, 0, 0\] as recorded, got \["),
        (lambda d: d["actions"].pop(), r"actions: expected the game to end after"),
        (lambda d: d["actions"].append(1), r"actions: expected \d+ actions \(the match was over\)"),
        (
            lambda d: d.update(actions=[0] * 40),
            r"actions\[\d+\]: action: expected TAKE \(1\) because seat \d has 0 chips",
        ),
        (lambda d: d.update(agents=[1, 2, 3]), r"agents: expected a list of 3 strings .* or null, got \[1, 2, 3\]"),
        (  # used to load, and crash training.replay with an IndexError
            lambda d: d.update(agents=["a", "b"]),
            r"agents: expected a list of 3 strings \(one per player, config.num_players=3\) or null, got \['a', 'b'\]",
        ),
        (lambda d: d.update(agents=["a", "b", "c", "d"]), r"agents: expected a list of 3 strings"),
        (
            lambda d: d.update(penalties=[0, 0]),
            r"penalties: expected a list of 3 ints \(one per player, config.num_players=3\) or null, got \[0, 0\]",
        ),
    ],
)
def test_malformed_records_raise_clear_errors(mutate, pattern):
    data = good_record()
    mutate(data)
    with pytest.raises(RecordError, match=pattern):
        replay(GameRecord.from_json(json.dumps(data)))


def test_the_fields_a_record_is_read_with_are_the_fields_it_is_written_with():
    # a field added to to_dict but not to RECORD_FIELDS would make every record written unreadable
    for e in (random_env_game(5, num_players=3), random_env_game(6, preset="match3", num_players=4)):
        data = e.record().to_dict()
        assert tuple(data) == RECORD_FIELDS
        assert [tuple(d) for d in data["deals"]] == [DEAL_FIELDS] * len(e.game.deals)
        del data["agents"]  # may be left out
        assert GameRecord.from_dict(data) == dataclasses.replace(e.record(), agents=None)


def test_invalid_json_and_missing_deals():
    with pytest.raises(RecordError, match="expected valid JSON"):
        GameRecord.from_json("{not json")
    with pytest.raises(RecordError, match="record: expected a JSON object, got list"):
        GameRecord.from_json("[]")
    data = random_env_game(2, preset="match3").record().to_dict()
    data["deals"] = data["deals"][:1]
    with pytest.raises(RecordError, match=r"deals: expected deal 2 to be recorded before actions\[\d+\]"):
        replay(GameRecord.from_dict(data))


DEEP = '{"a":' * 100_000 + "1" + "}" * 100_000
"""Valid JSON too deep for Python's parser (a RecursionError, not a JSONDecodeError)."""


def test_json_nested_too_deep_and_bytes_that_are_not_utf8_are_record_errors(tmp_path):
    # The first was a RecursionError (replay exited 1 with a traceback, the server answered a plain-text 500),
    # the second a UnicodeDecodeError from load (the server's 500 too).
    with pytest.raises(RecordError) as e:
        GameRecord.from_json(DEEP)
    assert str(e.value) == (
        "record: expected a JSON record (an object a few levels deep), got JSON nested too deep to parse "
        "(maximum recursion depth exceeded while decoding a JSON object from a unicode string)"
    )
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(RecordError) as e:
        GameRecord.load(latin)
    assert str(e.value) == (
        "record: expected UTF-8 text (a JSON record), got bytes that are not UTF-8 ('utf-8' codec can't decode "
        "byte 0xff in position 12: invalid start byte)"
    )


def test_a_record_error_keeps_its_words_without_the_record_label_for_callers_that_name_the_record():
    import pickle

    with pytest.raises(RecordError) as e:
        GameRecord.from_json("[]")
    assert str(e.value) == "record: expected a JSON object, got list"
    assert e.value.detail == "expected a JSON object, got list"
    with pytest.raises(RecordError) as e:
        GameRecord.from_json('{"format": "other"}')
    assert str(e.value) == e.value.detail == "format: expected 'nothanks-record', got 'other'"  # a field: kept
    copy = pickle.loads(pickle.dumps(RecordError("expected valid JSON", whole=True)))
    assert (str(copy), copy.detail) == ("record: expected valid JSON", "expected valid JSON")


def test_replay_refuses_a_record_nested_too_deep_with_one_error_line(tmp_path, capsys):
    from training import replay as rp

    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    with pytest.raises(SystemExit) as e:
        rp.main([str(deep), "--print-all"])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: record: cannot replay {deep}: expected a JSON record (an object a few levels deep), got "
        "JSON nested too deep to parse (maximum recursion depth exceeded while decoding a JSON object from a unicode "
        "string)"
    ]


def test_fixed_deal_from_record_reproduces_the_deal_in_the_env():
    rec = random_env_game(4, num_players=3).record()
    e = nothanks_v0.raw_env(num_players=3, starting_seat=rec.first_seat)
    e.reset(options={"deals": [Deal(d.deck, d.removed_hidden) for d in rec.deals]})
    for a in rec.actions:
        e.step(a)
    assert e.game.final_penalties() == list(rec.penalties)

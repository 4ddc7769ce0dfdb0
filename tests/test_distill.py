"""Expert iteration's distillation step: record a teacher's decisions, fit a network to them, save it."""

import json
import os
import re
import shutil
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from netweights import random_weights
from procs import alive, start_with_workers, stop_and_wait, workers_left_after_kill

from nothanks_env.baselines.simple import NeverTakePolicy
from nothanks_env.game import GameConfig
from nothanks_env.vector import VectorGame
from training import checkpoints as ckpt
from training.learning import distill


def test_the_recorder_keeps_only_real_decisions_encoded_for_the_student():
    vg = VectorGame(GameConfig(num_players=3), 64, seed=1)
    rec = distill.Recorder(NeverTakePolicy(), chip_memory=True, behaviour=True)
    acted = forced = 0
    for _ in range(200):
        view = vg.view(np.flatnonzero(~vg.done)) if not vg.done.all() else None
        if view is None:
            break
        forced += int((view.own_chips <= 0).sum())
        acted += len(view)
        actions = np.zeros(vg.num_games, dtype=np.int64)
        actions[~vg.done] = rec.act_batch(view)
        vg.step(actions)
    obs = np.concatenate(rec.obs)
    assert obs.shape == (acted - forced, 445) and obs.dtype == np.float32  # behaviour on: 445 inputs
    assert np.concatenate(rec.masks).all()  # both actions legal in every kept decision
    assert (np.concatenate(rec.actions) == 0).all()  # never-take passes whenever it may


def test_each_decision_is_labelled_with_the_deal_it_comes_from():
    # the held-out unit is the deal: a wrong label would put decisions of one deal in another's group
    from nothanks_env.vector import deal_matches

    config = GameConfig(num_players=3)
    obs, mask, action, deal, _ = distill._generate(("heuristic", ["utility", "random"], "ppo-3p", 3, 20, 7))
    assert len(obs) > 500 and set(deal.tolist()) == set(range(20))
    deck, _ = deal_matches(config, 20, np.random.default_rng(7))  # the task's deals, drawn from its seed
    face = obs[:, :33].argmax(axis=1) + 3  # face_up_card, one-hot over cards 3..35
    position = config.deck_size - 1 - np.rint(obs[:, 36] * 33).astype(int)  # from cards_in_deck / 33
    assert (deck[deal, position] == face).all()


def test_fitting_a_network_to_never_take_makes_it_pass():
    data, _ = distill.generate("never-take", "ppo-3p", ["heuristic"], num_players=3, games=600, seed=0)
    assert len(data) > 1000 and (data.action == 0).all()
    assert (np.unique(data.game) == np.arange(200)).all()  # two tasks of 100 deals, each deal one group
    weights, report = distill.fit("ppo-3p", data, epochs=3, lr=3e-3, kl=0.0, holdout=0.5, seed=0)
    assert report.agree_before < 0.8  # ppo-3p takes plenty of cards a never-take bot would refuse
    assert report.agree_after > 0.99 and report.departures_fixed > 0.99
    assert weights["layers.0.weight"].shape == (128, 445)


def test_the_command_line_writes_a_loadable_checkpoint_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "student"
    argv = ["--teacher", "never-take", "--student", "ppo-3p", "--out", str(out), "--games", "600"]
    assert distill.main([*argv, "--epochs", "1", "--lr", "0.003", "--kl", "0", "--no-progress"]) == 0
    meta = ckpt.verify_checkpoint(out)
    assert meta["behaviour"] is True and meta["kind"] == "nothanks-distilled"
    assert meta["distilled"]["teacher"] == "never-take" and "eval" not in meta
    summary = json.loads((out / "distill.json").read_text())
    assert summary["fit"]["agree_after"] > summary["fit"]["agree_before"]
    policy = ckpt.load_checkpoint_policy(out)
    assert policy.obs_size == 445
    before = (out / "policy.safetensors").read_bytes()
    capsys.readouterr()
    assert distill.main(argv) == 2  # the directory exists: refused, nothing touched
    assert "--out: expected a folder that does not exist yet (pass --overwrite" in capsys.readouterr().err
    assert (out / "policy.safetensors").read_bytes() == before


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--kl", "-1"], "argument --kl: expected a finite number >= 0, got '-1'"),
        (["--kl", "nan"], "argument --kl: expected a finite number >= 0, got 'nan'"),  # was accepted: KL dropped
        (["--departure-weight", "0"], "argument --departure-weight: expected a finite number > 0, got '0'"),
        (["--departure-weight", "inf"], "argument --departure-weight: expected a finite number > 0, got 'inf'"),
        (["--lr", "nan"], "argument --lr: expected a finite number > 0, got 'nan'"),
        # finite but beyond what the float32 fit takes: Adam's traceback after every game had been played
        (["--lr", "1e39"], "argument --lr: expected a number <= 1e+30 (the fit is float32), got '1e39'"),
        (["--lr", "3e38"], "argument --lr: expected a number <= 1e+30 (the fit is float32), got '3e38'"),
        (["--kl", "1e39"], "argument --kl: expected a number <= 1e+30 (the fit is float32), got '1e39'"),
        (["--departure-weight", "1e39"],
         "argument --departure-weight: expected a number <= 1e+30 (the fit is float32), got '1e39'"),
        (["--holdout", "nan"], "--holdout: expected a share in (0, 1), got nan"),
        (["--holdout", "1"], "--holdout: expected a share in (0, 1), got 1.0"),
        (["--opponents", "heuristic+utility+extort"], "--opponents: expected one spec or 2 joined by '+'"),
        # it said "--opponents: column: expected ..."
        (["--opponents", "random+"], "error: --opponents: expected a policy spec or specs joined by '+', got "),
        (["--teacher", "nosuchbot"], "--teacher: "),
        (["--save-data", "/dev/null/d.npz"], "--save-data: expected a path whose folders can be created, got "),
    ],
)  # fmt: skip
def test_bad_input_is_one_error_line(tmp_path, capsys, extra, message):
    argv = ["--teacher", "heuristic", "--student", "ppo-3p", "--out", str(tmp_path / "x"), *extra]
    assert distill.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_a_heavier_departure_weight_follows_more_of_the_teachers_corrections():
    data, _ = distill.generate("never-take", "ppo-3p", ["heuristic"], num_players=3, games=600, seed=0)
    fixed = {}
    for w in (1.0, 10.0):  # a strong pull back to the start (kl=1) and one short epoch: weight decides
        _, report = distill.fit("ppo-3p", data, epochs=1, lr=3e-4, kl=1.0, holdout=0.5, departure_weight=w, seed=0)
        fixed[w] = report.departures_fixed
    assert fixed[1.0] < 0.7 and fixed[10.0] > 0.85  # measured 0.52 and 0.91


def test_each_table_can_have_its_own_teacher():
    data, _ = distill.generate(
        "never-take", "ppo-3p", ["heuristic", "random"], num_players=3, games=3000, seed=0,
        teacher_of={"random": "always-take"},
    )  # fmt: skip
    # tasks against random were taught by always-take (TAKE = 1), the others by never-take (PASS = 0)
    per_deal = {g: set(data.action[data.game == g].tolist()) for g in np.unique(data.game)}
    assert {frozenset(v) for v in per_deal.values()} == {frozenset({0}), frozenset({1})}
    with pytest.raises(ValueError, match="--teacher-of: expected tables among --opponents"):
        distill.generate("never-take", "ppo-3p", ["heuristic"], num_players=3, games=300, seed=0,
                         teacher_of={"utility": "always-take"})  # fmt: skip


def test_decisions_saved_once_can_be_fitted_again(tmp_path, capsys):
    data_file = tmp_path / "decisions.npz"
    first = ["--teacher", "never-take", "--student", "ppo-3p", "--games", "600", "--epochs", "1", "--no-progress"]
    assert distill.main([*first, "--out", str(tmp_path / "a"), "--save-data", str(data_file)]) == 0
    assert " teacher decisions in " in capsys.readouterr().out
    saved = distill.Decisions.load(data_file)
    assert saved.obs.shape[1] == 445 and saved.mask.dtype == bool and (saved.action == 0).all()
    # a second fit from the file: no games played, the same decisions (no --teacher: it would be refused)
    again = ["--student", "ppo-3p", "--out", str(tmp_path / "b"), "--no-progress"]
    assert distill.main([*again, "--load-data", str(data_file), "--epochs", "1"]) == 0
    summary = json.loads((tmp_path / "b" / "distill.json").read_text())
    assert summary["generate_seconds"] == 0 and summary["fit"]["decisions"] == len(saved)
    assert capsys.readouterr().out.startswith(f"{len(saved):,} teacher decisions loaded from 1 file(s); ")
    assert distill.main([*again[:-1], "--out", str(tmp_path / "c"), "--load-data", str(tmp_path / "none.npz")]) == 2
    assert "--load-data: expected an .npz of decisions" in capsys.readouterr().err


def test_decisions_of_two_table_sizes_fit_one_student_together(tmp_path):
    # the 4-5 player network (ppo-4p-v5; ppo-4p and ppo-5p play one size each): one file per table size, one fit on both
    files = []
    for players in (4, 5):
        f = tmp_path / f"d{players}.npz"
        args = ["--teacher", "never-take", "--student", "ppo-4p-v5", "--players", str(players), "--games",
                str(2 * 100 * players), "--epochs", "1", "--no-progress"]  # fmt: skip
        assert distill.main([*args, "--out", str(tmp_path / f"s{players}"), "--save-data", str(f)]) == 0
        files.append(f)
    parts = [distill.Decisions.load(f) for f in files]
    both = distill.Decisions.concat(parts)
    assert len(both) == len(parts[0]) + len(parts[1])
    # game indices stay distinct across files, so a held-out game is never split
    assert (np.unique(parts[0].game) == np.arange(200)).all()  # 2 tasks of 100 deals
    assert (np.unique(both.game) == np.arange(400)).all()
    out = tmp_path / "both"
    # no --teacher and no --players: both belong to the games already played, not to this fit
    assert distill.main(["--student", "ppo-4p-v5", "--out", str(out), "--no-progress", "--epochs", "1",
                         "--load-data", *map(str, files)]) == 0  # fmt: skip
    summary = json.loads((out / "distill.json").read_text())
    assert summary["data"] == [str(f) for f in files] and summary["num_players"] is None
    assert summary["teacher"] is None and summary["opponents"] is None and summary["teacher_of"] is None
    assert summary["games"] is None and [p.num_players for p in parts] == [4, 5]
    assert summary["fit"]["decisions"] == len(both)


def test_saved_decisions_are_never_overwritten_nor_fitted_to_a_student_of_another_table_size(tmp_path, capsys):
    data_file = tmp_path / "d3.npz"
    args = ["--teacher", "never-take", "--student", "ppo-3p", "--games", "600", "--epochs", "1", "--no-progress"]
    assert distill.main([*args, "--out", str(tmp_path / "a"), "--save-data", str(data_file)]) == 0
    before = data_file.read_bytes()
    capsys.readouterr()
    assert distill.main([*args, "--out", str(tmp_path / "b"), "--save-data", str(data_file)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: --save-data: expected a path that does not exist yet (pass --overwrite to replace it), got "
        f"{str(data_file)!r} (an existing file)\n"
    )
    assert data_file.read_bytes() == before and not (tmp_path / "b").exists()
    # 3-player decisions do not fit the 4-5 player network (ppo-4p-v5)
    assert distill.main(["--student", "ppo-4p-v5", "--out", str(tmp_path / "c"), "--load-data", str(data_file)]) == 2
    assert capsys.readouterr().err == (
        f"error: --load-data: expected decisions at a table size the student plays ([4, 5]), got 3-player "
        f"decisions in {str(data_file)!r}\n"
    )
    assert not (tmp_path / "c").exists()


def test_teacher_is_needed_when_games_are_played(tmp_path, capsys):
    assert distill.main(["--student", "ppo-3p", "--out", str(tmp_path / "x"), "--games", "600"]) == 2
    assert capsys.readouterr().err == "error: --teacher: expected a policy spec (needed unless --load-data), got none\n"
    assert not (tmp_path / "x").exists()


# ------------------------------------------------------------------ damaged data and a fit that diverges
def _decisions(n: int = 400, seed: int = 0) -> distill.Decisions:
    """Made-up decisions the size ppo-3p reads (445 inputs), 10 to a deal: enough to fit on, nothing played."""
    rng = np.random.default_rng(seed)
    obs = rng.random((n, 445), dtype=np.float32)
    return distill.Decisions(obs, np.ones((n, 2), bool), rng.integers(0, 2, n), np.arange(n) // 10, 3)


def _arrays(data: distill.Decisions, **changes: object) -> dict:
    arrays = {"obs": data.obs, "mask": data.mask, "action": data.action, "game": data.game}
    return {k: v for k, v in (arrays | changes).items() if v is not None}


def _damaged(path, kind: str) -> None:
    data = _decisions()
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        data.save(path)
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif kind == "npy":
        with open(path, "wb") as f:
            np.save(f, data.obs)
    elif kind == "text":
        path.write_text("hi")
    else:
        n = len(data)
        changes = {
            "nan": {"obs": np.where(np.arange(445) == 5, np.nan, data.obs).astype(np.float32)},
            "lengths": {"action": data.action[:-1]},
            "action": {"action": np.where(np.arange(n) == 3, 7, data.action)},
            "strings": {"obs": np.full((n, 445), "a")},
            "mask": {"mask": data.mask.astype(np.int64) * 2},
            "keys": {"action": None, "game": None},
            "encoding": {"encoding": np.array("not json")},
            "encoding keys": {"encoding": np.array(json.dumps({"chip_memory": True}))},
            "rules": {"rules": np.array("[]")},
        }[kind]
        np.savez(path, **_arrays(data, **changes))


@pytest.mark.parametrize(
    "kind, message",
    [
        ("empty", "expected an .npz of decisions written by --save-data, got '{f}' (an empty file)"),
        ("truncated", "got '{f}' (not an .npz archive: truncated, or of another format)"),
        ("npy", "got '{f}' (not an .npz archive: an .npy file of one array)"),
        ("text", "got '{f}' (not an .npz archive: truncated, or of another format)"),
        ("nan", "expected finite numbers in obs, got 400 NaN or infinite value(s) in '{f}'"),
        ("lengths", "expected obs, mask, action and game of one length (a row per decision), got lengths "
                    "[400, 400, 399, 400] in '{f}'"),
        ("action", "expected action values in 0..1 (pass, take), got 7 in '{f}'"),
        ("strings", "expected numbers in obs, got dtype <U1 in '{f}'"),
        ("mask", "expected mask values 0/1 or true/false, got 2 in '{f}'"),
        ("keys", "expected the arrays obs, mask, action, game, got ['mask', 'obs'] (no action, game) in '{f}'"),
        ("encoding", "expected encoding as a JSON object (text), got array('not json', dtype='<U8') in '{f}'"),
        ("encoding keys", "expected an encoding of chip_memory and behaviour (true/false) and observation_layout "
                          "([[piece, size], ...]), got {{'chip_memory': True}} in '{f}'"),
        ("rules", "expected rules as a JSON object (text), got array('[]', dtype='<U2') in '{f}'"),
    ],
)  # fmt: skip
def test_damaged_saved_decisions_are_one_error_line_naming_the_file(tmp_path, capsys, kind, message):
    # each used to be a traceback (EOFError, BadZipFile, TypeError, IndexError...) or, for NaN, a checkpoint of NaN
    f = tmp_path / "d.npz"
    _damaged(f, kind)
    before = f.read_bytes()
    out = tmp_path / "out"
    assert distill.main(["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --load-data: ") and message.format(f=f) in err and err.count("\n") == 1
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]
    assert f.read_bytes() == before


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--lr", "1e30"], "try a smaller --lr than 1e+30 or --kl than 0.1"),
        (["--lr", "1e30", "--kl", "1e30"], "try a smaller --lr than 1e+30 or --kl than 1e+30"),
    ],
)
def test_a_fit_that_diverges_writes_no_checkpoint(tmp_path, capsys, extra, message):
    # it used to write a checkpoint of NaN weights, with exit code 0, that every loader then refused
    f = tmp_path / "d.npz"
    _decisions().save(f)
    out = tmp_path / "out"
    argv = ["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--no-progress", "--epochs", "2", *extra]
    assert distill.main(argv) == 2
    err = capsys.readouterr().err
    assert re.match(r"error: fit: the (loss|weights) became NaN or infinite at epoch \d of 2 \(", err)
    assert message in err
    assert err.endswith("); no checkpoint was written\n") and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]  # no --out, no .out.tmp
    with pytest.raises(ValueError, match="kl: expected a finite number >= 0, got nan"):
        distill.fit("ppo-3p", _decisions(), kl=float("nan"))  # the library refuses it too


def test_made_up_decisions_load_and_fit(tmp_path):
    # the files the tests above damage are valid as made: what they refuse is the damage
    f = tmp_path / "d.npz"
    _decisions().save(f)
    data = distill.Decisions.load(f, ckpt.read_metadata(ckpt.resolve_checkpoint("ppo-3p")))
    assert len(data) == 400 and data.num_players == 3 and data.mask.dtype == bool
    np.savez(tmp_path / "ints.npz", **_arrays(_decisions(), mask=np.ones((400, 2), np.int64)))  # 0/1 masks pass
    assert distill.Decisions.load(tmp_path / "ints.npz").mask.all()
    assert distill.main(["--student", "ppo-3p", "--out", str(tmp_path / "out"), "--load-data", str(f),
                         "--epochs", "1", "--no-progress"]) == 0  # fmt: skip
    json.loads((tmp_path / "out" / "distill.json").read_text())


# ------------------------------------------------------------------ one deal in one file; data for another student
@pytest.mark.parametrize("given_as", ["twice", "another spelling", "a link"])
def test_a_file_given_twice_is_refused(tmp_path, capsys, monkeypatch, given_as):
    # each copy's games got ids of their own and were split independently: most held-out decisions had a twin in
    # the fit, and the held-out agreement was mostly training accuracy
    _no_work(monkeypatch)
    f = tmp_path / "d.npz"
    _decisions().save(f)
    second = {
        "twice": str(f),
        "another spelling": f"{tmp_path}/./d.npz",
        "a link": str(tmp_path / "link.npz"),
    }[given_as]
    if given_as == "a link":
        os.symlink(f, second)
    argv = ["--student", "ppo-3p", "--out", str(tmp_path / "out"), "--no-progress", "--load-data", str(f), second]
    assert distill.main(argv) == 2
    got = f"{str(f)!r} twice" if given_as == "twice" else f"{str(f)!r} and {second!r}, the same file"
    assert capsys.readouterr().err == f"error: --load-data: expected each file at most once, got {got}\n"
    assert not (tmp_path / "out").exists()


def test_a_copy_or_deals_played_again_are_refused(tmp_path, capsys, monkeypatch):
    _no_work(monkeypatch)
    first, copy, again = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"
    _decisions().save(first)
    shutil.copy(first, copy)  # byte for byte
    # 20 of the 40 deals of the first file (their decisions in the order recorded), 20 others
    parts = [_decisions().take(np.flatnonzero(_decisions().game < 20)), _decisions(200, seed=5)]
    distill.Decisions.concat(parts).save(again)
    argv = ["--student", "ppo-3p", "--out", str(tmp_path / "out"), "--no-progress", "--load-data", str(first)]
    assert distill.main([*argv, str(copy)]) == 2
    assert capsys.readouterr().err == (
        f"error: --load-data: expected files of different decisions, got {str(first)!r} and {str(copy)!r} holding "
        "the same ones (a copy: each deal would be both fitted and held out)\n"
    )
    assert distill.main([*argv, str(again)]) == 2
    assert capsys.readouterr().err == (
        f"error: --load-data: expected files of different deals, got 20 of the 40 deals of {str(again)!r} also in "
        f"{str(first)!r} (played again, e.g. with the same --seed: a held-out deal's twin would be fitted)\n"
    )
    assert not (tmp_path / "out").exists()
    # a file of other deals is fitted together with the first
    _decisions(seed=9).save(other := tmp_path / "d.npz")
    both = distill.load_decisions([str(first), str(other)])
    assert len(both) == 800 and (np.unique(both.game) == np.arange(80)).all()


def test_the_same_seed_with_more_games_plays_the_same_deals_again(tmp_path):
    # the --games 600 file begins with the --games 300 file's 100 deals (the same task seeds): a leak as a copy is
    few, _ = distill.generate("heuristic", "ppo-3p", ["heuristic"], num_players=3, games=300, seed=0)
    more, _ = distill.generate("heuristic", "ppo-3p", ["heuristic"], num_players=3, games=600, seed=0)
    few.save(tmp_path / "few.npz")
    more.save(tmp_path / "more.npz")
    files = [str(tmp_path / "few.npz"), str(tmp_path / "more.npz")]
    with pytest.raises(ValueError, match=r"got 100 of the 200 deals of '.*more\.npz' also in '.*few\.npz'"):
        distill.load_decisions(files)
    other, _ = distill.generate("heuristic", "ppo-3p", ["heuristic"], num_players=3, games=300, seed=1)
    other.save(tmp_path / "other.npz")
    assert len(distill.load_decisions([files[0], str(tmp_path / "other.npz")])) == len(few) + len(other)


def _student_without_chip_memory(tmp_path) -> str:
    """A 3-player checkpoint that reads 445 values, as ppo-3p does, but without chip memory."""
    meta = {"activation": "relu", "chip_memory": False, "behaviour": True, "num_players": [3]}
    return str(ckpt.save_checkpoint(tmp_path / "nomem", random_weights((445, 16, 2)), meta))


def test_decisions_record_their_encoding_and_another_students_is_refused(tmp_path, capsys):
    # the file held no encoding: decisions encoded with chip memory trained a student without it, silently (the
    # sizes match); now --save-data records it and --load-data compares it with the student's, by name
    data, _ = distill.generate("heuristic", "ppo-3p", ["heuristic"], num_players=3, games=300, seed=0)
    ppo = ckpt.read_metadata(ckpt.resolve_checkpoint("ppo-3p"))
    assert data.encoding == {"chip_memory": True, "behaviour": True, "observation_layout": ppo["observation_layout"]}
    assert data.rules == {
        "num_removed": 9, "removed_face_up": [], "starting_chips": None, "lowest_card": 3, "highest_card": 35,
        "num_deals": 1, "starting_seat": None, "opponent_chips": "hidden", "special_cards": [],
    }  # fmt: skip
    f = tmp_path / "d.npz"
    data.save(f)
    back = distill.Decisions.load(f, ppo)
    assert back.encoding == data.encoding and back.rules == data.rules and back.num_players == 3
    nomem = _student_without_chip_memory(tmp_path)
    for student, option in ((nomem, "chip_memory"), ("ppo-3p-v2", "behaviour")):  # v2: 389 inputs, no behaviour
        out = tmp_path / "out"
        assert distill.main(["--student", student, "--out", str(out), "--load-data", str(f), "--no-progress"]) == 2
        assert capsys.readouterr().err == (
            f"error: --load-data: expected observations encoded for the student ({option}=False), got observations "
            f"encoded with {option}=True in {str(f)!r}\n"
        )
        assert not out.exists()
    # a file saved before the encoding was recorded still loads; only its size is checked, which chip_memory keeps
    old = tmp_path / "old.npz"
    np.savez(old, obs=data.obs, mask=data.mask, action=data.action, game=data.game, num_players=np.int64(3))
    loaded = distill.Decisions.load(old, ckpt.read_metadata(nomem))
    assert loaded.encoding is None and loaded.rules is None and len(loaded) == len(data)
    with pytest.raises(ValueError, match=r"expected observations of 389 values \(the student's\), got 445"):
        distill.Decisions.load(old, ckpt.read_metadata(ckpt.resolve_checkpoint("ppo-3p-v2")))


def test_decisions_of_other_rules_are_refused(tmp_path, capsys):
    data = _decisions()
    data.encoding = distill.student_encoding(ckpt.read_metadata(ckpt.resolve_checkpoint("ppo-3p")))
    data.rules = distill.played_rules() | {"num_removed": 5}
    data.save(f := tmp_path / "d.npz")
    out = tmp_path / "out"
    assert distill.main(["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        "error: --load-data: expected decisions played under the standard rules distillation plays (num_removed=9), "
        f"got num_removed=5 in {str(f)!r}\n"
    )
    data.rules = distill.played_rules()
    data.save(f)
    assert distill.Decisions.load(f).rules["num_removed"] == 9


def test_a_teacher_given_twice_for_one_table_is_refused(tmp_path, capsys, monkeypatch):
    # the last one was kept, silently: distill.json said teacher_of {"random": "ppo-3p-v1"}
    _no_work(monkeypatch)
    argv = [
        "--teacher", "heuristic", "--student", "ppo-3p", "--out", str(tmp_path / "out"), "--opponents", "heuristic",
        "random", "--teacher-of", "random", "ppo-3p", "--teacher-of", "random", "ppo-3p-v1", "--no-progress",
    ]  # fmt: skip
    assert distill.main(argv) == 2
    assert capsys.readouterr().err == (
        "error: --teacher-of: expected each table at most once, got 'random' twice ('ppo-3p' and 'ppo-3p-v1')\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag", ["--lr", "--kl", "--departure-weight"])
def test_a_value_the_float32_fit_cannot_take_is_refused_before_any_game(tmp_path, capsys, monkeypatch, flag):
    # --lr 1e39 (or 3e38: Adam's first step is 10 x lr) played every game, then ended in Adam's traceback "value
    # cannot be converted to type float without overflow"; --departure-weight 1e39 in the same one
    fit = distill.fit
    _no_work(monkeypatch)
    argv = ["--teacher", "heuristic", "--student", "ppo-3p", "--out", str(tmp_path / "out"), "--games", "300"]
    assert distill.main([*argv, flag, "1e39"]) == 2
    assert capsys.readouterr().err == (
        f"error: argument {flag}: expected a number <= 1e+30 (the fit is float32), got '1e39'\n"
    )
    assert list(tmp_path.iterdir()) == []
    name = flag[2:].replace("-", "_")
    with pytest.raises(ValueError, match=rf"^{name}: expected a number <= 1e\+30 \(the fit is float32\), got 1e\+39$"):
        fit("ppo-3p", _decisions(), **{name: 1e39})  # the library refuses it too


# ------------------------------------------------------------------ --out: the shared output check, and --overwrite
def _no_work(monkeypatch) -> None:
    """Make playing and fitting fail loudly: a refusal must come before either."""

    def called(*args, **kwargs):
        raise AssertionError("the work started before the outputs were checked")

    monkeypatch.setattr(distill, "generate", called)
    monkeypatch.setattr(distill, "fit", called)


def _shared_line(out, *, overwrite: bool = False) -> str:
    """The line :func:`training.cli.check_outputs` makes of ``--out out`` (the one copy of the check)."""
    from training.cli import check_outputs

    with pytest.raises(ValueError) as e:
        check_outputs({"--out": str(out)}, overwrite=overwrite, files_in=distill.out_files(), whole_folder=True)
    return f"error: {e.value}\n"


def test_an_existing_out_is_refused_in_the_shared_words_before_any_game(tmp_path, capsys, monkeypatch):
    # distill had a check of its own ("expected a new directory, ... which exists") and no --overwrite for --out
    out = tmp_path / "student"
    out.mkdir()
    (out / "policy.safetensors").write_bytes(b"kept")
    _no_work(monkeypatch)
    argv = ["--teacher", "never-take", "--student", "ppo-3p", "--out", str(out), "--games", "600", "--no-progress"]
    assert distill.main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: --out: expected a folder that does not exist yet (pass --overwrite to replace it), got {str(out)!r} "
        "(an existing folder)\n"
    )
    assert err == _shared_line(out)
    assert (out / "policy.safetensors").read_bytes() == b"kept" and sorted(tmp_path.iterdir()) == [out]


def test_overwrite_never_replaces_a_folder_holding_other_files(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    _no_work(monkeypatch)
    argv = ["--teacher", "never-take", "--student", "ppo-3p", "--out", str(out), "--no-progress", "--overwrite"]
    assert distill.main(argv) == 2
    err = capsys.readouterr().err
    assert err == _shared_line(out, overwrite=True)
    assert err == (
        "error: --out: expected a folder to replace that holds only policy.safetensors, metadata.json, distill.json "
        f"(--overwrite replaces the folder whole), got {str(out)!r}, which also holds notes.txt\n"
    )
    assert (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("kind", ["parent is a file", "save-data inside out"])
def test_an_out_that_cannot_be_written_is_refused_before_any_game(tmp_path, capsys, monkeypatch, kind):
    # an --out under a file used to play every game and fit, then end in a NotADirectoryError traceback (exit 1)
    _no_work(monkeypatch)
    (tmp_path / "f").write_text("a file")
    if kind == "parent is a file":
        out, extra = tmp_path / "f" / "x", []
        message = (
            f"error: --out: expected a path whose folders can be created, got {str(out)!r} "
            f"({str(tmp_path / 'f')!r} is not a folder)\n"
        )
    else:  # the folder is replaced whole: the decisions saved in it would be lost with it
        out = tmp_path / "o"
        extra = ["--save-data", str(out / "d.npz")]
        message = (
            f"error: --save-data: expected a file outside --out {str(out)!r} (that folder is written whole, as a "
            f"checkpoint), got {str(out / 'd.npz')!r}\n"
        )
    argv = ["--teacher", "never-take", "--student", "ppo-3p", "--out", str(out), "--no-progress", *extra]
    assert distill.main(argv) == 2
    assert capsys.readouterr().err == message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_overwrite_replaces_a_distilled_checkpoint_whole(tmp_path, capsys):
    f = tmp_path / "d.npz"
    _decisions().save(f)
    out = tmp_path / "out"
    argv = ["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--epochs", "1", "--no-progress"]
    assert distill.main([*argv, "--seed", "1"]) == 0
    first = (out / "policy.safetensors").read_bytes()
    assert distill.main([*argv, "--seed", "2"]) == 2  # without --overwrite: refused, kept
    assert (out / "policy.safetensors").read_bytes() == first
    capsys.readouterr()
    assert distill.main([*argv, "--seed", "2", "--overwrite"]) == 0
    assert capsys.readouterr().out.endswith(f"Wrote {out}\n")
    assert json.loads((out / "distill.json").read_text())["seed"] == 2
    assert ckpt.verify_checkpoint(out)["distilled"]["seed"] == 2
    assert (out / "policy.safetensors").read_bytes() != first  # another split and order: other weights
    assert sorted(p.name for p in out.iterdir()) == ["distill.json", "metadata.json", "policy.safetensors"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz", "out"]  # no .out.tmp or .out.old left


def test_a_stop_right_after_the_swap_leaves_the_checkpoint_with_its_own_report(tmp_path, monkeypatch):
    # distill.json was written after the checkpoint had been swapped into place: a stop between the two left the
    # new network without a report (the old report went with the old folder). It is now written inside the swap.
    f = tmp_path / "d.npz"
    _decisions().save(f)
    out = tmp_path / "out"
    argv = ["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--epochs", "1", "--no-progress"]
    assert distill.main([*argv, "--seed", "1"]) == 0
    real_save = ckpt.save_checkpoint

    def save_then_stop(*args, **kwargs):
        real_save(*args, **kwargs)
        raise KeyboardInterrupt  # Ctrl-C the moment the new folder is in place

    monkeypatch.setattr(ckpt, "save_checkpoint", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        distill.main([*argv, "--seed", "2", "--overwrite"])
    assert sorted(p.name for p in out.iterdir()) == ["distill.json", "metadata.json", "policy.safetensors"]
    report = json.loads((out / "distill.json").read_text())
    assert report["seed"] == 2 and report == ckpt.verify_checkpoint(out)["distilled"]  # the new pair, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz", "out"]


def test_a_checkpoint_s_extra_files_are_plain_names_other_than_its_own(tmp_path):
    weights = {"layers.0.weight": torch.zeros(2, 389), "layers.0.bias": torch.zeros(2)}
    meta = {"activation": "tanh", "chip_memory": True}
    for name in ("metadata.json", "sub/report.json", ".."):
        with pytest.raises(ValueError, match=r"extra_files: expected plain file names other than"):
            ckpt.save_checkpoint(tmp_path / "c", weights, meta, extra_files={name: "{}"})
    assert list(tmp_path.iterdir()) == []  # refused before anything is written


@pytest.mark.parametrize("student_as", ["folder", "file in it"])
def test_the_students_own_folder_is_refused_as_out_even_with_overwrite(tmp_path, capsys, monkeypatch, student_as):
    # a student folder holding only a checkpoint's files passed the output check: --overwrite replaced the student
    # it was reading, and the new distill.json named as its student the distilled network itself
    f = tmp_path / "d.npz"
    _decisions().save(f)
    student = tmp_path / "student"
    common = ["--out", str(student), "--load-data", str(f), "--epochs", "1", "--no-progress"]
    assert distill.main(["--student", "ppo-3p", *common]) == 0
    before = {p.name: p.read_bytes() for p in student.iterdir()}
    capsys.readouterr()
    _no_work(monkeypatch)
    given = str(student) if student_as == "folder" else str(student / "metadata.json")
    out = str(tmp_path / "." / "student") + "/"  # another spelling of the same folder
    assert distill.main(["--student", given, "--out", out, *common[2:], "--overwrite"]) == 2
    assert capsys.readouterr().err == (
        "error: --out: expected a folder other than the --student checkpoint's (--out is replaced whole, and the "
        f"student is read from it), got {out!r}, the folder of --student {given!r}\n"
    )
    assert {p.name: p.read_bytes() for p in student.iterdir()} == before


# ------------------------------------------------------------------ stopping (as tests/test_evaluate_stop.py)
STOP_BOUND = 20.0
"""Seconds a stopped distillation may take to end. It takes a second or two, but the stop runs at the machine's pace:
on a busy machine (the whole suite on two cores, load 6) a stop test once took 11 s. The bound stays well below the
half minute that finishing the teacher's running tasks took on an idle machine (each is 300 games of a searching
teacher; longer on a busy one), so that bug still fails."""


def _slow_distill(tmp_path) -> list[str]:
    """``python -m training.distill`` with a searching teacher (about 10 s a task) on two workers, to be stopped."""
    return [
        sys.executable, "-m", "training.distill", "--teacher", "search:iters=16", "--student", "ppo-3p",
        "--out", str(tmp_path / "out"), "--opponents", "utility", "--games", "120000", "--workers", "2",
        "--save-data", str(tmp_path / "d.npz"), "--no-progress",
    ]  # fmt: skip


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="finds pool workers in /proc")
@pytest.mark.parametrize(
    ("signum", "whole_group"),
    [(signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["ctrl-c", "sigterm"],
)
def test_a_stop_ends_the_teachers_games_at_once_with_one_line_and_writes_nothing(tmp_path, signum, whole_group):
    # SIGINT waited for the tasks being played (33 s when sent to the command alone) and printed a KeyboardInterrupt
    # traceback (the workers' own too, for Ctrl-C to the group); SIGTERM killed it without a word, its workers
    # playing on
    proc, workers = start_with_workers(_slow_distill(tmp_path), tmp_path)
    out, err, took = stop_and_wait(proc, signum, whole_group)
    assert took < STOP_BOUND, f"{took:.1f} s"
    assert proc.returncode == 128 + signum  # 130 for Ctrl-C, 143 for SIGTERM
    assert err == f"{signal.Signals(signum).name}: stopped; nothing more is played or written\n"
    assert out == ""
    assert not any(alive(w) for w in workers)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no --out, no --save-data, nothing half-written


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="finds pool workers in /proc")
def test_the_teachers_workers_end_with_a_killed_parent(tmp_path):
    proc, workers = start_with_workers(_slow_distill(tmp_path), tmp_path)
    assert workers_left_after_kill(proc, workers, STOP_BOUND) == []


def test_two_workers_record_the_same_decisions_as_one():
    one, _ = distill.generate("heuristic", "ppo-3p", ["utility", "random"], num_players=3, games=1200, seed=4)
    two, _ = distill.generate(
        "heuristic", "ppo-3p", ["utility", "random"], num_players=3, games=1200, seed=4, workers=2
    )
    assert len(one) > 2000 and np.array_equal(one.game, two.game)
    assert np.array_equal(one.obs, two.obs) and np.array_equal(one.action, two.action)


def test_a_stop_while_saving_decisions_leaves_no_half_written_file(tmp_path, monkeypatch):
    path = tmp_path / "d.npz"
    first = _decisions(seed=1)
    first.save(path)
    saved = path.read_bytes()

    def write_half_then_stop(file, **arrays):
        file.write(saved[: len(saved) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", write_half_then_stop)
    with pytest.raises(KeyboardInterrupt):
        _decisions(seed=2).save(path)
    with pytest.raises(KeyboardInterrupt):
        _decisions(seed=2).save(tmp_path / "new")  # ".npz" is added, as NumPy does
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]  # no new.npz, no .d.npz.tmp
    assert path.read_bytes() == saved  # the earlier file is whole
    monkeypatch.undo()
    _decisions(seed=2).save(tmp_path / "new")
    assert np.array_equal(distill.Decisions.load(tmp_path / "new.npz").obs, _decisions(seed=2).obs)
    assert np.array_equal(distill.Decisions.load(path).obs, first.obs)


def test_a_distilled_merge_is_no_longer_labelled_a_merge(tmp_path):
    # the student's "merged" record was kept at the top of the result's metadata, as if it still were the average
    from training.learning import merge

    assert merge.main(["--members", "ppo-3p-v1", "ppo-3p-v2", "--out", str(tmp_path / "m")]) == 0
    out = tmp_path / "d"
    argv = ["--teacher", "never-take", "--student", str(tmp_path / "m"), "--out", str(out), "--games", "600"]
    assert distill.main([*argv, "--epochs", "1", "--no-progress"]) == 0
    meta = ckpt.verify_checkpoint(out)
    assert "merged" not in meta and meta["kind"] == "nothanks-distilled"
    assert meta["distilled"]["student_merged"]["weights"] == [0.5, 0.5]
    assert [m["name"] for m in meta["distilled"]["student_merged"]["members"]] == ["ppo-3p-v1", "ppo-3p-v2"]


def test_the_student_checkpoint_is_read_once_and_fitted_as_before(tmp_path, monkeypatch):
    """main read --student to check it, then fit read it again for the network it trains."""
    from safetensors.torch import load_file

    f = tmp_path / "d.npz"
    _decisions().save(f)
    out = tmp_path / "out"
    argv = ["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--epochs", "1", "--no-progress"]
    real = ckpt.load_checkpoint_policy
    loads = []

    def counted(path, **kwargs):
        loads.append(str(path))
        return real(path, **kwargs)

    monkeypatch.setattr(ckpt, "load_checkpoint_policy", counted)
    assert distill.main(argv) == 0
    assert loads == ["ppo-3p"]
    # the same fit as the library's own load of the student
    args = distill.build_parser().parse_args(argv)
    data = distill.load_decisions([str(f)], ckpt.read_metadata(ckpt.resolve_checkpoint("ppo-3p")))
    weights, report = distill.fit(
        "ppo-3p", data, epochs=1, lr=args.lr, kl=args.kl, holdout=args.holdout,
        departure_weight=args.departure_weight, seed=args.seed,
    )  # fmt: skip
    assert len(loads) == 2  # fit loads it when not given one
    saved = load_file(str(out / ckpt.WEIGHTS_FILE))
    assert sorted(saved) == sorted(weights) and all(torch.equal(saved[k], weights[k]) for k in weights)
    summary = json.loads((out / "distill.json").read_text())
    assert summary["fit"]["agree_after"] == report.agree_after and summary["fit"]["losses"] == report.losses


@pytest.mark.parametrize(
    ("extra", "got"),
    [
        (["--teacher", "ppo-3p", "--opponents", "utility", "--players", "5"],
         "--teacher ppo-3p, --players 5 and --opponents utility"),
        (["--players", "3"], "--players 3"),  # the default value, typed: refused too
        (["--play", "4", "--games", "600"], "--players 4 and --games 600"),  # an abbreviation is the flag
        (["--teacher-of", "random", "always-take", "--save-data", "x.npz", "--workers", "2"],
         "--teacher-of random always-take, --save-data x.npz and --workers 2"),
    ],
)  # fmt: skip
def test_options_for_the_teachers_games_are_refused_with_load_data(extra, got, tmp_path, capsys):
    """With --load-data no game is played: --teacher, --opponents, --players (and the other options of the games)
    were accepted and silently ignored, the fit run on the saved decisions as if they had not been typed."""
    f = tmp_path / "d.npz"
    _decisions().save(f)
    out = tmp_path / "out"
    argv = ["--student", "ppo-3p", "--out", str(out), "--load-data", str(f), "--epochs", "1", "--no-progress", *extra]
    assert distill.main(argv) == 2
    assert capsys.readouterr().err == (
        "error: --load-data: expected none of the options for the teacher's games with it (it fits on decisions "
        f"played before, at the table size and against the tables they were played with), got {got}\n"
    )
    assert not out.exists()
    # what they left at their defaults is not refused
    assert distill.main(argv[: argv.index("--no-progress") + 1]) == 0 and (out / "distill.json").is_file()

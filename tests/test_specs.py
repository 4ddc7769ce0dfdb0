"""Policy specs live in the env package; ``training.specs`` re-exports them for the command lines."""

from __future__ import annotations

import pytest

import training.specs
from nothanks_env import specs


def test_training_specs_reexports_the_env_packages_parser():
    assert training.specs.load_policy is specs.load_policy
    assert training.specs.list_baselines() == specs.list_baselines()
    assert training.specs.spec_param("utility:extort_buffer=4") == "(utility:extort_buffer=4)"


def test_nested_specs_still_load_through_training_specs():
    spec = "search:rollout=ppo-3p,model=(utility:extort_buffer=4)"
    pol = training.specs.load_policy(spec, num_players=3)
    assert pol.name == spec
    assert pol.rollout.name == "ppo-3p" and pol.model.name == "utility:extort_buffer=4"


def test_a_parameter_given_twice_is_refused_not_overwritten():
    # The last value used to win silently: threshold:T=2,T=3 built threshold:T=3.
    import pytest

    for spec, key in [
        ("threshold:T=2,T=3", "T"),
        ("search:rollout=ppo-3p,iters=4,rollout=heuristic", "rollout"),
        ("search:model=(threshold:T=1,T=1)", "T"),  # inside a nested spec too
    ]:
        with pytest.raises(ValueError, match=rf"expected each parameter once, got '{key}' twice"):
            specs.load_policy(spec, num_players=3)
    assert specs.load_policy("threshold:T=2", num_players=3).name == "threshold:T=2"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        # each was loaded as if the empty one were not there (threshold:,T=3 as threshold:T=3)
        ("threshold:,T=3", "expected parameters as key=value,key=value, got an empty parameter (parameter 1 of 2 in "
         "',T=3')"),
        ("threshold:T=3,", "expected parameters as key=value,key=value, got an empty parameter (parameter 2 of 2 in "
         "'T=3,')"),
        ("search:iters=2,,fit_T=True", "expected parameters as key=value,key=value, got an empty parameter "
         "(parameter 2 of 3 in 'iters=2,,fit_T=True')"),
        ("ppo-3p:,deterministic=False", "expected parameters as key=value,key=value, got an empty parameter "
         "(parameter 1 of 2 in ',deterministic=False')"),
    ],
)  # fmt: skip
def test_an_empty_parameter_is_refused(spec, message):
    with pytest.raises(ValueError) as e:
        specs.load_policy(spec, num_players=3)
    assert str(e.value) == f"policy spec {spec.strip()!r}: {message}"


def test_a_name_with_an_empty_parameter_list_is_the_name():
    # "heuristic:" has always meant heuristic; "best-3p:" said it took no parameters and got ''.
    assert specs.load_policy("best-3p:", num_players=3).name == "best-3p"
    assert specs.load_policy("ppo-3p:", num_players=3).name == "ppo-3p"
    assert specs.load_policy("heuristic:", num_players=3).name == "heuristic"
    assert specs.load_policy("search:model=(threshold:)", num_players=3).model.name == "threshold"


def test_names_without_a_colon_still_load():
    for name in ("threshold", "heuristic", "search", "ppo-3p", "best-3p"):
        assert specs.load_policy(name, num_players=3).name == name
    assert specs.load_policy("search:rollout=threshold", num_players=3).rollout.name == "threshold"


NOT_A_NUMBER = [
    # Each used to load and crash once games started (numpy's _UFuncNoLoopError on a str dtype, or
    # "'>' not supported between instances of 'str' and 'int'").
    ("threshold:T=", "T: expected an integer, got ''"),
    ("threshold:T=abc", "T: expected an integer, got 'abc'"),
    ("threshold:T=x", "T: expected an integer, got 'x'"),
    ("threshold:T=nan", "T: expected an integer, got 'nan'"),
    ("threshold:T=inf", "T: expected an integer, got 'inf'"),
    ("threshold:T=5.5", "T: expected an integer, got 5.5"),
    ("ratio:r=abc", "r: expected a finite number, got 'abc'"),
    ("ratio:r=nan", "r: expected a finite number, got 'nan'"),
    ("ratio:r=1e999", "r: expected a finite number, got inf"),
    ("stochastic:temp=True", "temp: expected a finite number, got True"),
    ("search:iters=abc", "iters: expected an integer, got 'abc'"),
    ("heuristic:base=x", "base: expected a finite number, got 'x'"),  # a **params baseline
    ("heuristic:scarce_chips=2.5", "scarce_chips: expected an integer, got 2.5"),
    ("heuristic:chip_memory=maybe", "chip_memory: expected True or False, got 'maybe'"),  # was silently True
    ("ratio:runs=1", "runs: expected True or False, got 1"),
    ("search:model_T=(1,x)", "model_T: expected 2 values in parentheses like (0, 14), got '(1,x)'"),
    ("search:model=(threshold:T=x)", "parameter model: policy spec 'threshold:T=x': T: expected an integer, got 'x'"),
    ("threshold:T=1e3", "T: expected an integer, got 1000.0"),
]

INT_FORM = "decimal digits, optionally signed, without leading zeros, '_' or a 0x/0o/0b prefix (like 30, -2 or +3)"
FLOAT_FORM = "decimal, optionally signed, with an optional exponent, without leading zeros or '_' (like 0.5 or 1e-3)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        # 3_0 played T=30 (Python's int() and literals take '_'); 02 said "expected an integer, got '02'"
        ("threshold:T=3_0", f"T: expected an integer written in {INT_FORM}, got '3_0'"),
        ("threshold:T=02", f"T: expected an integer written in {INT_FORM}, got '02'"),
        ("threshold:T=0x1e", f"T: expected an integer written in {INT_FORM}, got '0x1e'"),  # played T=30
        ("threshold:T=- 3", f"T: expected an integer written in {INT_FORM}, got '- 3'"),  # played T=-3
        ("search:iters=1_000", f"iters: expected an integer written in {INT_FORM}, got '1_000'"),
        ("ratio:r=0_5", f"r: expected a finite number written in {FLOAT_FORM}, got '0_5'"),  # played r=5.0
        ("ratio:r=1_0.5", f"r: expected a finite number written in {FLOAT_FORM}, got '1_0.5'"),
        ("ratio:r=05", f"r: expected a finite number written in {FLOAT_FORM}, got '05'"),
        ("ratio:r=00.5", f"r: expected a finite number written in {FLOAT_FORM}, got '00.5'"),  # played r=0.5
    ],
)
def test_numbers_python_reads_but_specs_do_not_write_so_are_refused_naming_the_form(spec, message):
    with pytest.raises(ValueError) as e:
        specs.load_policy(spec, num_players=3)
    assert str(e.value) == f"policy spec {spec!r}: {message}"


def test_a_parameter_that_is_not_of_its_kind_is_refused_when_the_spec_is_parsed():
    import re

    import pytest

    for spec, message in NOT_A_NUMBER:
        with pytest.raises(ValueError, match=re.escape(f"policy spec {spec!r}: {message}")):
            specs.load_policy(spec, num_players=3)


def test_numbers_of_the_right_kind_still_load():
    assert specs.load_policy("threshold:T=-2", num_players=3).name == "threshold:T=-2"
    assert specs.load_policy("threshold:T=+3", num_players=3).T == 3  # a lineup and the gauntlet write T=+3
    assert specs.load_policy("threshold:T=0", num_players=3).T == 0
    assert specs.load_policy("stochastic:temp=1e+1", num_players=3).temp == 10.0
    assert specs.load_policy("ratio:r=.5", num_players=3).r == 0.5
    assert specs.load_policy("ratio:r=1e-05", num_players=3).name == "ratio:r=1e-05"  # the name loads back
    assert specs.load_policy("search:model_T=(1, 5)", num_players=3).model_T == (1, 5)
    assert specs.load_policy("ratio:r=1", num_players=3).name == "ratio:r=1"  # an int where a float is the default
    assert specs.load_policy("stochastic:T=2,temp=0.5", num_players=3).name == "stochastic:T=2,temp=0.5"
    assert specs.load_policy("heuristic:base=8,scarce_chips=3", num_players=3).name == "heuristic:base=8,scarce_chips=3"
    assert specs.load_policy("search:model_T=(1,5),fit_T=True", num_players=3).model_T == (1, 5)
    assert specs.load_policy("ppo-3p:deterministic=False", num_players=3).deterministic is False


def test_a_module_attr_spec_without_a_module_says_what_a_spec_is():
    # It used to surface importlib's bare "Empty module name".
    import pytest

    for spec in (":foo", ":x", " :x"):
        with pytest.raises(ValueError) as e:
            specs.load_policy(spec)
        text = str(e.value)
        assert text.startswith(f"policy spec {spec.strip()!r}: expected a baseline (random, "), text
        assert "a shipped agent (ppo-3p" in text and "an existing checkpoint path, or module:attr" in text
        assert text.endswith("got no module name before the ':'")


def test_an_error_in_a_shipped_composite_names_the_short_name_as_written():
    # It named only the expanded spec ('search:iters=8,...'), which the user never wrote.
    from training.checkpoints import SHIPPED_SPECS

    expanded = SHIPPED_SPECS["best-3p"]
    rollout = expanded.partition("rollout=")[2]
    for written in ("best-3p", "best-3p:"):
        with pytest.raises(ValueError) as err:
            specs.load_policy(written, num_players=4)
        assert str(err.value) == (
            f"policy spec 'best-3p' (= {expanded!r}): parameter rollout: policy spec {rollout!r}: "
            "expected a policy for 4 players, got one trained for [3] players; shipped networks for 4 players: "
            "ppo-4p, ppo-mixed"
        )


def _checkpoint_at(folder) -> None:
    """A copy of the shipped ppo-3p checkpoint (its two files) at ``folder``."""
    import shutil

    from training.checkpoints import METADATA_FILE, WEIGHTS_FILE, resolve_checkpoint

    folder.mkdir(parents=True)
    for name in (WEIGHTS_FILE, METADATA_FILE):
        shutil.copy(resolve_checkpoint("ppo-3p") / name, folder / name)


def test_the_checkpoint_files_are_the_ones_checkpoints_write():
    from training.checkpoints import METADATA_FILE, WEIGHTS_FILE

    assert specs.CHECKPOINT_FILES == (WEIGHTS_FILE, METADATA_FILE)


def test_a_checkpoint_folder_with_a_colon_in_its_path_is_a_checkpoint(tmp_path, monkeypatch):
    # The ':' was read as the start of parameters when what comes before it is a baseline's name:
    # 'heuristic:v2' said "expected parameters as key=value,key=value, got 'v2'", and no path with a ':' could
    # take ':deterministic=False'.
    monkeypatch.chdir(tmp_path)
    _checkpoint_at(tmp_path / "heuristic:v2")
    _checkpoint_at(tmp_path / "runs" / "a:b" / "checkpoints" / "final")
    (tmp_path / "threshold:T=2").mkdir()  # a folder of that name, but no checkpoint: still the baseline
    for spec, name in [
        ("heuristic:v2", "heuristic:v2"),
        ("heuristic:v2/metadata.json", "heuristic:v2"),
        ("runs/a:b/checkpoints/final", "final"),
        (str(tmp_path / "runs" / "a:b" / "checkpoints" / "final"), "final"),
    ]:
        policy = specs.load_policy(spec, num_players=3)
        assert type(policy).__name__ == "MLPPolicy" and policy.name == name and policy.deterministic is True
    for spec, name in [
        ("heuristic:v2:deterministic=False", "heuristic:v2:deterministic=False"),
        ("runs/a:b/checkpoints/final:deterministic=False", "final:deterministic=False"),  # as without, + parameters
    ]:
        policy = specs.load_policy(spec, num_players=3)
        assert policy.deterministic is False and policy.name == name
    search = specs.load_policy("search:rollout=heuristic:v2,iters=2", num_players=3)
    assert type(search.rollout).__name__ == "MLPPolicy" and search.rollout.name == "heuristic:v2"
    assert type(specs.load_policy("threshold:T=2", num_players=3)).__name__ == "ThresholdPolicy"
    assert type(specs.load_policy("heuristic", num_players=3)).__name__ == "HeuristicPolicy"


def test_a_path_with_a_colon_that_does_not_exist_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "heuristic:empty").mkdir()
    absent = str(tmp_path / "x:y")
    cases = [
        (
            "runs/a:c/checkpoints/final",
            "expected an existing checkpoint directory (or a file in one) or a policy spec, got neither: no such "
            "path ('runs/a:c' does not exist), and read as a spec, 'runs/a' before the ':' is not a baseline, a "
            "shipped agent or an existing path",
        ),
        (
            absent,
            "expected an existing checkpoint directory (or a file in one) or a policy spec, got neither: no such "
            f"path ({absent!r} does not exist), and read as a spec, {str(tmp_path / 'x')!r} before the ':' is not "
            "a baseline, a shipped agent or an existing path",
        ),
        (
            "runs/a:c/final:deterministic=False",
            "expected an existing checkpoint directory (or a file in one) or a policy spec, got neither: no such "
            "path ('runs/a:c' does not exist), and read as a checkpoint with parameters, the path 'runs/a:c/final' "
            "before ':deterministic=False' does not exist ('runs/a:c' is missing)",
        ),
        (
            "no_such_module_xyz:z",
            "cannot import module 'no_such_module_xyz' (No module named 'no_such_module_xyz'); nor is it an "
            "existing path (no 'no_such_module_xyz:z')",
        ),
        (
            "heuristic:v3",
            "expected parameters as key=value,key=value, got 'v3'; nor is it an existing path (no 'heuristic:v3')",
        ),
        (
            "heuristic:empty",
            "expected parameters as key=value,key=value, got 'empty'; the path heuristic:empty exists but holds no "
            "checkpoint (expected a directory with policy.safetensors and metadata.json, or a file in one)",
        ),
    ]
    for spec, message in cases:
        with pytest.raises(ValueError) as e:
            specs.load_policy(spec, num_players=3)
        assert str(e.value) == f"policy spec {spec!r}: {message}"
    with pytest.raises(ValueError) as e:  # parameters: no word of paths
        specs.load_policy("threshold:T=x", num_players=3)
    assert str(e.value) == "policy spec 'threshold:T=x': T: expected an integer, got 'x'"


def _shipped_clause(text: str) -> str:
    return text.partition("a shipped agent (")[2].partition("), an existing checkpoint path")[0]


@pytest.mark.parametrize(
    ("spec", "close"),
    [("ppo-3q", "ppo-3p"), ("best3p", "best-3p"), ("heuristc", "heuristic"), ("heuristc:x=1", "heuristic"),
     ("ppo-3q:deterministic=False", "ppo-3p"), ("stochastik:T=2", "stochastic")],
)  # fmt: skip
def test_a_misspelt_name_says_the_closest_baseline_or_shipped_agent(spec, close):
    # It listed every baseline and shipped agent without saying which one was meant.
    with pytest.raises(ValueError) as e:
        specs.load_policy(spec, num_players=3)
    text = str(e.value)
    assert text.startswith(f"policy spec {spec!r} (did you mean {close!r}?): expected a baseline (random, "), text
    assert text.endswith("an existing checkpoint path, or module:attr") and "\n" not in text
    with pytest.raises(ValueError) as e:  # nested: the inner spec says it
        specs.load_policy(f"search:rollout={spec.partition(':')[0]}", num_players=3)
    assert f"parameter rollout: policy spec {spec.partition(':')[0]!r} (did you mean {close!r}?)" in str(e.value)


def test_a_name_close_to_none_gets_no_hint():
    with pytest.raises(ValueError) as e:
        specs.load_policy("nosuch")
    assert str(e.value).startswith("policy spec 'nosuch': expected a baseline (random, ")
    assert "did you mean" not in str(e.value)


def test_the_shipped_agents_are_listed_with_their_older_versions_as_ranges():
    # It listed all 20 names one by one (ppo-3p, ppo-3p-v6, ppo-3p-v5, ...).
    from training.checkpoints import SHIPPED, SHIPPED_SPECS

    with pytest.raises(ValueError) as e:
        specs.load_policy("nosuch")
    clause = _shipped_clause(str(e.value))
    assert clause == (
        "ppo-3p, ppo-3p-ens, ppo-4p, ppo-5p, ppo-mixed, ppo-wildcards, best-3p; "
        "older versions ppo-3p-v1..v6, ppo-4p-v1..v5, ppo-5p-v1..v6, best-3p-v1"
    )
    named = set()  # every shipped name is said, none more
    for item in clause.replace("; older versions", ",").split(", "):
        base, _, versions = item.partition("-v")
        lo, _, hi = versions.partition("..v")
        named |= {f"{base}-v{v}" for v in range(int(lo), int(hi or lo) + 1)} if versions else {item}
    assert named == {*SHIPPED, *SHIPPED_SPECS}


def test_versions_are_folded_into_ranges_only_where_they_run():
    assert specs._versions_listed(["a", "a-v2", "a-v1", "b"]) == "a, b; older versions a-v1..v2"
    assert specs._versions_listed(["a", "a-v1", "a-v3", "c-v2"]) == "a, c-v2; older versions a-v1, a-v3"
    assert specs._versions_listed(["a", "a-v1"]) == "a; older versions a-v1"
    assert specs._versions_listed(["a", "b"]) == "a, b"


def test_a_search_over_a_special_cards_network_is_refused_when_the_spec_loads():
    # it loaded, then failed mid-game with the network's own error (a traceback from evaluate, a half-made run
    # folder from selfplay and exploit, an HTTP 500 from serve)
    with pytest.raises(ValueError) as e:
        specs.load_policy("search:iters=2,rollout=ppo-wildcards")
    assert str(e.value).endswith(
        "rollout: expected a policy that plays pass/take (the search plays tables without special cards), got "
        "'ppo-wildcards', a network trained on special cards (125 actions)"
    )
    with pytest.raises(ValueError, match=r"model: expected a policy that plays pass/take"):
        specs.load_policy("search:model=ppo-wildcards")


def test_a_search_plays_the_table_sizes_of_its_rollout_and_model():
    from nothanks_env.policy import supported_player_counts

    # serve listed search:rollout=ppo-3p as playing any size, then failed with HTTP 500 at 4 players
    assert supported_player_counts(specs.load_policy("search:iters=2,rollout=ppo-3p")) == (3,)
    assert supported_player_counts(specs.load_policy("search:iters=2,rollout=ppo-mixed,model=ppo-4p-v5")) == (4, 5)
    assert supported_player_counts(specs.load_policy("search:iters=2,rollout=ppo-mixed,model=ppo-5p")) == (5,)
    assert supported_player_counts(specs.load_policy("search:iters=2,rollout=ppo-mixed,model=ppo-4p")) == (4,)
    assert supported_player_counts(specs.load_policy("search:iters=2")) is None  # the heuristic plays any
    with pytest.raises(ValueError, match=r"expected a policy for 4 players, got one trained for \[3\] players"):
        specs.load_policy("search:iters=2,rollout=ppo-3p", num_players=4)


def test_a_shipped_name_wins_over_a_folder_named_like_it_in_every_form(tmp_path, monkeypatch):
    # evaluate, gauntlet and run.init_from read ./ppo-3p-v1 (a 256x256 merge here) where merge --members and
    # distill --student read the shipped network; every table labelled both "ppo-3p-v1"
    from training.checkpoints import resolve_checkpoint
    from training.learning import merge

    monkeypatch.chdir(tmp_path)
    assert merge.main(["--members", "ppo-3p-v1", "ppo-3p-v2", "--out", "ppo-3p-v1"]) == 0

    def width(spec: str) -> int:
        return specs.load_policy(spec).net[0].out_features

    assert width("ppo-3p-v1") == width("ppo-3p-v1:deterministic=False") == 128  # the shipped one
    assert width("./ppo-3p-v1") == width("./ppo-3p-v1:deterministic=False") == 256  # the folder, as a path
    assert resolve_checkpoint("ppo-3p-v1") != (tmp_path / "ppo-3p-v1").resolve()


def test_a_leading_tilde_is_the_home_directory(tmp_path, monkeypatch):
    # '~' made a spec a path but was never expanded: "--policy '~/ck/x'" and a YAML "run.init_from: ~/ck/x" (no
    # shell expands either) said that the path does not exist.
    from training.checkpoints import resolve_checkpoint

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # no folder named '~' here either
    _checkpoint_at(tmp_path / "home" / "ck" / "x")
    for spec, name, deterministic in [
        ("~/ck/x", "x", True),
        ("~/ck/x/metadata.json", "x", True),
        ("~/ck/x:deterministic=False", "x:deterministic=False", False),
    ]:
        policy = specs.load_policy(spec, num_players=3)
        assert type(policy).__name__ == "MLPPolicy" and policy.name == name and policy.deterministic is deterministic
    search = specs.load_policy("search:rollout=~/ck/x,iters=2", num_players=3)
    assert type(search.rollout).__name__ == "MLPPolicy" and search.rollout.name == "x"
    assert resolve_checkpoint("~/ck/x") == tmp_path / "home" / "ck" / "x"
    with pytest.raises(ValueError) as e:
        specs.load_policy("~/ck/y", num_players=3)
    where = tmp_path / "home" / "ck" / "y"
    assert str(e.value) == (
        f"policy spec '~/ck/y': the path ~/ck/y ({where}) does not exist (expected an existing checkpoint directory "
        "or a file in one)"
    )
    with pytest.raises(FileNotFoundError, match=r"checkpoint not found: ~/ck/y \(expected a checkpoint directory"):
        resolve_checkpoint("~/ck/y")


def test_a_shipped_network_at_another_size_names_the_shipped_networks_for_that_size():
    """ppo-4p became a 4-player network and ppo-5p a 5-player one: at the other size the refusal says what to write."""
    with pytest.raises(ValueError) as e:
        specs.load_policy("ppo-4p", num_players=5)
    assert str(e.value) == (
        "policy spec 'ppo-4p': expected a policy for 5 players, got one trained for [4] players; shipped networks "
        "for 5 players: ppo-5p, ppo-mixed"
    )
    with pytest.raises(ValueError) as e:
        specs.load_policy("ppo-5p", num_players=4)
    assert str(e.value) == (
        "policy spec 'ppo-5p': expected a policy for 4 players, got one trained for [5] players; shipped networks "
        "for 4 players: ppo-4p, ppo-mixed"
    )
    # the 4-5 player network they replaced plays both sizes under its -v5 names
    from nothanks_env.policy import supported_player_counts

    for name in ("ppo-4p-v5", "ppo-5p-v5"):
        assert supported_player_counts(specs.load_policy(name, num_players=4)) == (4, 5)
    assert supported_player_counts(specs.load_policy("ppo-5p", num_players=5)) == (5,)
    with pytest.raises(ValueError) as e:  # no shipped network plays 6: nothing to suggest
        specs.load_policy("ppo-mixed", num_players=6)
    assert str(e.value).endswith("got one trained for [3, 4, 5] players")


def test_the_shipped_networks_named_for_another_size_are_of_the_refused_ones_variant():
    # ppo-4p at 3 players named ppo-wildcards, which plays only the wildcards preset (refused at a standard table)
    with pytest.raises(ValueError) as e:
        specs.load_policy("ppo-4p", num_players=3)
    assert str(e.value) == (
        "policy spec 'ppo-4p': expected a policy for 3 players, got one trained for [4] players; shipped networks "
        "for 3 players: ppo-3p, ppo-3p-ens, ppo-mixed"
    )
    with pytest.raises(ValueError) as e:  # it named ppo-4p and ppo-mixed, which a wildcards table refuses
        specs.load_policy("ppo-wildcards", num_players=4)
    assert str(e.value) == (
        "policy spec 'ppo-wildcards': expected a policy for 4 players, got one trained for [3] players"
    )


PASS_TAKE_AT_WILD = "that plays special cards, got one trained for {} players that plays only pass/take"
WILD_AT_STANDARD = (
    "that plays pass/take (the table has no special cards), got one trained for {} players on special cards (125 "
    "actions)"
)


@pytest.mark.parametrize(
    ("spec", "n", "special", "refusal", "hint"),
    [
        ("ppo-4p", 3, False, ", got one trained for [4] players",
         "; shipped networks for 3 players: ppo-3p, ppo-3p-ens, ppo-mixed"),
        # a wildcards table: it named ppo-3p, ppo-3p-ens, ppo-mixed, which that table refuses; and it said only that
        # the size was wrong, where ppo-4p cannot play the special cards either
        ("ppo-4p", 3, True, " " + PASS_TAKE_AT_WILD.format("[4]"),
         "; shipped special-card networks for 3 players: ppo-wildcards"),
        # it named ppo-4p and ppo-mixed; no shipped network plays special cards at 4 players: nothing to suggest
        ("ppo-3p", 4, True, " " + PASS_TAKE_AT_WILD.format("[3]"), ""),
        # a standard table: it named nothing (no special-card network for 4 players)
        ("ppo-wildcards", 4, False, " " + WILD_AT_STANDARD.format("[3]"),
         "; shipped networks for 4 players: ppo-4p, ppo-mixed"),
    ],
)  # fmt: skip
def test_the_shipped_networks_named_for_another_size_are_those_of_the_table_asked_for(spec, n, special, refusal, hint):
    with pytest.raises(ValueError) as e:
        specs.load_policy(spec, num_players=n, special_cards=special)
    assert str(e.value) == f"policy spec {spec!r}: expected a policy for {n} players{refusal}{hint}"


def test_a_network_refused_for_its_size_and_its_variant_names_both():
    # ppo-4p at a 3-player wildcards table was refused for its size alone (the hint named ppo-wildcards unexplained)
    with pytest.raises(ValueError) as e:
        specs.load_policy("ppo-4p", num_players=3, special_cards=True)
    assert str(e.value) == (
        "policy spec 'ppo-4p': expected a policy for 3 players that plays special cards, got one trained for [4] "
        "players that plays only pass/take; shipped special-card networks for 3 players: ppo-wildcards"
    )
    with pytest.raises(ValueError) as e:  # the table's variant not told: the size alone, as before
        specs.load_policy("ppo-4p", num_players=3)
    assert str(e.value).startswith("policy spec 'ppo-4p': expected a policy for 3 players, got one trained for [4]")
    with pytest.raises(ValueError) as e:  # a composite names its part, which says both
        specs.load_policy("search:rollout=ppo-4p", num_players=3, special_cards=True)
    assert "'ppo-4p': expected a policy for 3 players that plays special cards, got one trained for [4]" in str(e.value)


def _table(n: int, special: bool):
    from nothanks_env.presets import resolve_config

    return resolve_config(num_players=n, preset="wildcards" if special else "standard")


@pytest.mark.parametrize(
    ("spec", "n", "special"),
    [
        ("ppo-4p", 3, False),  # a wrong size: the standard networks of the table named
        ("ppo-4p", 3, True),  # a wildcards table: the size and the variant refused, ppo-wildcards named
        ("ppo-3p", 4, True),
        ("ppo-wildcards", 4, False),
        ("search:rollout=ppo-4p", 3, True),  # a composite passes the table to its part
        ("best-3p", 4, True),  # a shipped composite too
    ],
)
def test_a_table_gives_the_refusals_and_hints_of_its_size_and_variant(spec, n, special):
    # the callers that have a GameConfig built num_players= and special_cards= from it by hand; table= says the same
    with pytest.raises(ValueError) as by_keywords:
        specs.load_policy(spec, num_players=n, special_cards=special)
    with pytest.raises(ValueError) as by_table:
        specs.load_policy(spec, table=_table(n, special))
    assert str(by_table.value) == str(by_keywords.value)
    with pytest.raises(ValueError) as both:  # the keywords that agree with the table may be given too
        specs.load_policy(spec, table=_table(n, special), num_players=n, special_cards=special)
    assert str(both.value) == str(by_keywords.value)


def test_a_table_loads_what_plays_it():
    assert specs.load_policy("ppo-3p", table=_table(3, False)).name == "ppo-3p"
    assert specs.load_policy("ppo-wildcards", table=_table(3, True), num_players=3).name == "ppo-wildcards"
    pol = specs.load_policy("threshold:T=5", table=_table(5, False), seed=3)
    assert pol.name == "threshold:T=5"


def test_a_table_and_keywords_that_contradict_it_are_refused_naming_both():
    with pytest.raises(ValueError) as e:
        specs.load_policy("heuristic", table=_table(4, False), num_players=3)
    assert str(e.value) == (
        "load_policy: expected num_players to be the table's (table.num_players=4) or not given, got num_players=3"
    )
    with pytest.raises(ValueError) as e:
        specs.load_policy("heuristic", table=_table(3, True), special_cards=False)
    assert str(e.value) == (
        "load_policy: expected special_cards to be the table's (table.special_cards=('wild', 'delete'), so True) or "
        "not given, got special_cards=False"
    )
    with pytest.raises(ValueError, match=r"^load_policy: table: expected a GameConfig or None, got dict$"):
        specs.load_policy("heuristic", table={"num_players": 3})


def test_shipped_networks_hint_names_the_networks_of_a_table():
    assert specs.shipped_networks_hint(3, special_cards=False) == (
        "; shipped networks for 3 players: ppo-3p, ppo-3p-ens, ppo-mixed"
    )
    wild = specs.shipped_networks_hint(3, special_cards=True)
    assert wild == "; shipped special-card networks for 3 players: ppo-wildcards"
    assert specs.shipped_networks_hint(6, special_cards=False) == ""
    assert specs.other_sizes_hint("runs/x/final", 4, special_cards=False) == ""  # not a shipped name


def test_shipped_networks_are_listed_by_table_size_and_variant():
    assert specs.shipped_networks(3, special_cards=False) == ["ppo-3p", "ppo-3p-ens", "ppo-mixed"]
    assert specs.shipped_networks(3, special_cards=True) == ["ppo-wildcards"]
    assert specs.shipped_networks(4, special_cards=False) == ["ppo-4p", "ppo-mixed"]
    assert specs.shipped_networks(5, special_cards=False) == ["ppo-5p", "ppo-mixed"]
    assert specs.shipped_networks(4, special_cards=True) == specs.shipped_networks(6, special_cards=False) == []

"""The web API (training.web): games through FastAPI's test client, checked against the engine.

Scripted games use a small box (cards 3..10, 2 removed face down, 2 chips each) so that every value in a
response can be worked out by hand.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web tests need the web extra: pip install -e '.[web]'")
httpx = pytest.importorskip("httpx", reason="the web tests need httpx (web extra)")

from fastapi.testclient import TestClient  # noqa: E402
from fixed_bots import FloatTake, Returns, WholeFloatTake  # noqa: E402

from nothanks_env.game import Deal, Game, GameConfig  # noqa: E402
from nothanks_env.policy import Policy, act_one  # noqa: E402
from nothanks_env.records import GameRecord, replay  # noqa: E402
from nothanks_env.table import PolicyActionError  # noqa: E402
from training import serve  # noqa: E402
from training.web.app import create_app  # noqa: E402
from training.web.games import GameStore, PolicyCatalog, PolicyInfo, new_session  # noqa: E402

SMALL = GameConfig(num_players=3, lowest_card=3, highest_card=10, num_removed=2, starting_chips=2, starting_seat=0)
SMALL_DEAL = Deal(deck=(10, 4, 5, 9, 3, 8), removed_hidden=(6, 7))


@pytest.fixture(scope="module")
def catalog() -> PolicyCatalog:
    return PolicyCatalog(extra=["always-take", "threshold:T=5"])


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_client(catalog: PolicyCatalog, **store_kw) -> TestClient:
    return TestClient(create_app(catalog, GameStore(**store_kw), records_dir=None))


def add_game(client: TestClient, config: GameConfig, opponents: list[str], deals: list[Deal], seat: int = 0) -> str:
    """A game with fixed deals, added to the app's store as POST /api/games would; returns its id."""
    app = client.app
    session = new_session(config, opponents, app.state.catalog, seed=0, seat=seat, deals=deals)
    app.state.store.add(session)
    session.play_opponents()
    return session.id


def act(client: TestClient, game_id: str, action: str, move: int):
    return client.post(f"/api/games/{game_id}/actions", json={"action": action, "move": move})


# ---------------------------------------------------------------------------------------------- play


def test_scripted_game_values_move_by_move_and_the_record(catalog):
    # Human (seat 0) takes 10, passes on 4; never-take passes; always-take takes 4 with 2 chips and the rest.
    client = make_client(catalog)
    gid = add_game(client, SMALL, ["never-take", "always-take"], [SMALL_DEAL])

    view = client.get(f"/api/games/{gid}").json()
    assert (view["face_up_card"], view["pot"], view["move"], view["to_act"], view["cards_in_deck"]) == (10, 0, 0, 0, 5)
    assert view["legal_actions"] == ["pass", "take"] and view["take_cost"] == 10
    assert [p["chips"] for p in view["players"]] == [2, None, None]
    assert [p["label"] for p in view["players"]] == ["you", "never-take", "always-take"]
    assert view["chips_shown"] == "hidden" and view["deck"] is None and view["removed_hidden"] is None

    r = act(client, gid, "take", 0)
    assert r.status_code == 200
    body = r.json()
    assert body["moves"] == [{"seat": 0, "action": "take", "card": 10, "special": None, "pot": 0, "deal": 0}]
    view = body["view"]
    assert (view["face_up_card"], view["pot"], view["move"], view["take_cost"]) == (4, 0, 1, 4)
    assert view["players"][0]["cards"] == [10] and view["players"][0]["penalty"] == 10 - 2

    r = act(client, gid, "pass", 1)
    assert r.status_code == 200
    body = r.json()
    assert [(m["seat"], m["action"], m["card"], m["pot"]) for m in body["moves"]] == [
        (0, "pass", 4, 0), (1, "pass", 4, 1), (2, "take", 4, 2),
        (2, "take", 5, 0), (2, "take", 9, 0), (2, "take", 3, 0), (2, "take", 8, 0),
    ]  # fmt: skip
    view = body["view"]
    assert view["over"] and view["to_act"] is None and view["legal_actions"] == [] and view["take_cost"] is None
    assert view["outcome"] == {"penalties": [9, -1, 7], "ranks": [3.0, 1.0, 2.0], "winners": [1]}
    assert [p["chips"] for p in view["players"]] == [1, 1, 4]  # counted for the score: shown at the end
    assert view["players"][2]["runs"] == [[3, 5], [8, 9]] and view["players"][2]["card_points"] == 11

    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200
    record = GameRecord.from_dict(r.json())
    assert record.actions == (1, 0, 0, 1, 1, 1, 1, 1)
    assert record.agents == ("human", "never-take", "always-take")
    assert record.penalties == (9, -1, 7) == tuple(replay(record).final_penalties())
    assert record.deals == (SMALL_DEAL,)


def test_full_game_against_baselines_through_post_games(catalog):
    client = make_client(catalog, seed=11)
    r = client.post("/api/games", json={"players": 4, "seat": 2, "opponents": ["heuristic", "threshold", "random"]})
    assert r.status_code == 201, r.text
    created = r.json()
    gid, view = created["id"], created["view"]
    assert len(gid) >= 24 and view["seat"] == 2 and view["num_players"] == 4
    assert [p["label"] for p in view["players"]] == ["heuristic", "threshold", "you", "random"]
    assert all(m["seat"] != 2 for m in created["moves"])  # only opponents move before your first turn
    session = client.app.state.store.get(gid)
    moves_seen = len(created["moves"])
    rng = np.random.default_rng(0)
    while not view["over"]:
        game = session.game
        assert view["to_act"] == 2 == game.current_seat
        assert (view["face_up_card"], view["pot"], view["move"]) == (game.face_up_card, game.pot, len(game.history))
        assert view["players"][2]["chips"] == game.chips[2]
        assert view["legal_actions"] == (["pass", "take"] if game.chips[2] else ["take"])
        assert [p["chips"] for i, p in enumerate(view["players"]) if i != 2] == [None] * 3
        action = view["legal_actions"][int(rng.integers(len(view["legal_actions"])))]
        body = act(client, gid, action, view["move"]).json()
        assert body["moves"][0]["seat"] == 2 and body["moves"][0]["action"] == action
        moves_seen += len(body["moves"])
        view = body["view"]
    record = GameRecord.from_dict(client.get(f"/api/games/{gid}/record").json())
    assert len(record.actions) == moves_seen == view["move"]
    assert list(replay(record).final_penalties()) == view["outcome"]["penalties"]
    best = min(view["outcome"]["penalties"])
    assert view["outcome"]["winners"] == [i for i, p in enumerate(view["outcome"]["penalties"]) if p == best]
    assert record.agents == ("heuristic", "threshold", "human", "random")


def test_seat_is_drawn_from_the_seed_with_the_terminal_rule(catalog):
    from training.play import default_seat

    client = make_client(catalog, seed=5)
    seed = GameStore(seed=5).next_seed()  # the seed the app's store hands to its first game
    view = client.post("/api/games", json={"opponents": ["random", "random"]}).json()["view"]
    assert view["seat"] == default_seat(seed, 3)


def test_perfect_memory_and_visible_chips_show_the_true_counts(catalog):
    client = make_client(catalog, seed=3)
    for body, shown in (({"perfect_memory": True}, "counted"), ({"preset": "visible_chips"}, "visible")):
        created = client.post("/api/games", json={"opponents": ["heuristic", "heuristic"], **body}).json()
        session = client.app.state.store.get(created["id"])
        view = created["view"]
        for _ in range(6):
            assert view["chips_shown"] == shown
            assert [p["chips"] for p in view["players"]] == session.game.chips
            view = act(client, created["id"], view["legal_actions"][0], view["move"]).json()["view"]
            if view["over"]:
                break


def test_policies_and_presets_are_listed(catalog):
    client = make_client(catalog)
    policies = {p["spec"]: p for p in client.get("/api/policies").json()}
    assert list(policies)[:5] == ["random", "never-take", "threshold", "heuristic", "search"]
    assert policies["ppo-3p"]["kind"] == "agent" and policies["ppo-3p"]["num_players"] == 3
    assert policies["ppo-mixed"]["num_players"] is None and policies["ppo-mixed"]["player_counts"] == [3, 4, 5]
    assert policies["ppo-3p"]["player_counts"] == [3] and policies["heuristic"]["player_counts"] is None
    assert policies["threshold:T=5"]["kind"] == "custom"
    assert policies["never-take"]["description"].startswith('"No thanks!" until forced')
    presets = {p["name"]: p for p in client.get("/api/presets").json()}
    assert presets["six_player_one_removed"]["num_players"] == 6
    assert presets["open_removed"]["settings"]["removed_face_up"] == [10, 20, 30]


def test_policy_descriptions_are_whole_sentences(catalog):
    # They were the docstrings' first source lines: "... TAKE when out of chips; with", "... unless an opponent".
    client = make_client(catalog)
    described = {p["spec"]: p["description"] for p in client.get("/api/policies").json() if p["kind"] == "baseline"}
    assert described["random"] == (
        "Uniform over the legal actions: PASS or TAKE with probability 1/2 each, TAKE when out of chips; with "
        "special cards, uniform over every legal id (bids, drops and choices)."
    )
    assert described["utility"] == (
        "Utility bot: values a whole position, takes when taking raises its utility, milks unless an opponent "
        "would take (our version of the utility bots that led a public bot tournament)."
    )
    assert described["heuristic"] == (
        "Run-aware heuristic; the exact rule is in the module docstring of heuristic."  # no Sphinx markup
    )
    assert described["threshold"] == "Greedy threshold bot: TAKE iff Δ(c) − pot ≤ T, or when out of chips."
    for spec, text in described.items():
        assert text.endswith(".") and "\n" not in text and "`" not in text and "  " not in text, (spec, text)


def test_catalog_refuses_an_extra_spec_that_does_not_load():
    with pytest.raises(ValueError, match="policy spec 'no-such-bot'"):
        PolicyCatalog(extra=["no-such-bot"], shipped=[])


# ---------------------------------------------------------------------------------------------- errors


def assert_error(response, status: int, *fragments: str) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ({"players": 9, "opponents": ["random"] * 8}, ["players: expected less than or equal to 7, got 9"]),
        ({"players": 3, "opponents": ["random"]}, ["opponents: expected 2 policy specs for 3 players, got 1"]),
        ({"opponents": ["random", "nope"]}, ["opponents[1]: expected one of ['random', 'never-take'", "got 'nope'"]),
        ({"opponents": ["random", "random"], "seat": 3}, ["seat: expected an int in 0..2 or null", "got 3"]),
        ({"opponents": ["random", "random"], "preset": "chess"}, ["preset: expected one of [", "got 'chess'"]),
        ({"players": 4, "opponents": ["ppo-3p"] * 3}, ["opponents[0]: 'ppo-3p' plays 3 players only, got a 4-player"]),
        # it was listed as playing any size, and a 6-player game with it was an HTTP 500
        (
            {"players": 6, "opponents": ["ppo-mixed"] * 5},
            ["opponents[0]: 'ppo-mixed' plays 3, 4 or 5 players only, got a 6-player table"],
        ),
        ({"opponents": ["random", "random"], "colour": "red"}, ['colour: expected no such field, got "red"']),
        ({"players": "three", "opponents": []}, ["players: expected a valid integer", 'got "three"']),
        ({}, ["opponents: expected a value (required), got none"]),
        ({"opponents": ["/etc/passwd", "random"]}, ["opponents[0]: expected one of", "got '/etc/passwd'"]),
    ],
)
def test_bad_new_game_bodies_are_refused_with_what_was_wrong(catalog, body, fragments):
    client = make_client(catalog)
    assert_error(client.post("/api/games", json=body), 422, *fragments)
    assert len(client.app.state.store) == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": 4, "opponents": ["ppo-3p"] * 3},
         "opponents[0]: 'ppo-3p' plays 3 players only, got a 4-player table; shipped networks for 4 players: ppo-4p, "
         "ppo-mixed"),
        ({"players": 3, "preset": "wildcards", "opponents": ["ppo-4p", "heuristic"]},
         "opponents[0]: 'ppo-4p' plays 4 players only and only pass/take, got a 3-player table with special cards; "
         "shipped special-card networks for 3 players: ppo-wildcards"),
        ({"players": 4, "opponents": ["heuristic", "ppo-wildcards", "heuristic"]},
         "opponents[1]: 'ppo-wildcards' plays 3 players only and only special cards, got a standard 4-player table; "
         "shipped networks for 4 players: ppo-4p, ppo-mixed"),
        ({"players": 3, "opponents": ["heuristic", "ppo-wildcards"]},
         "opponents[1]: expected a policy that plays pass/take (a standard table), got 'ppo-wildcards', which plays "
         "only the wildcards variant (choose preset 'wildcards'); shipped networks for 3 players: ppo-3p, "
         "ppo-3p-ens, ppo-mixed"),
    ],
)  # fmt: skip
def test_a_network_that_cannot_play_the_table_names_the_networks_that_can_as_the_command_lines_do(
    catalog, body, message
):
    # the server said only "'ppo-3p' plays 3 players only, got a 4-player table": no shipped network to use
    # instead, which every command line names (nothanks_env.specs.load_policy), nor the variant it cannot play
    client = make_client(catalog)
    r = client.post("/api/games", json=body)
    assert r.status_code == 422 and r.json()["error"] == message
    match = {k: v for k, v in body.items() if k != "opponents"} | {"policies": [*body["opponents"], "heuristic"]}
    r = client.post("/api/matches", json=match)  # agents' games: the same words
    assert r.status_code == 422 and r.json()["error"] == message.replace("opponents[", "policies[", 1)


def test_invalid_json_and_wrong_types_name_the_problem(catalog):
    client = make_client(catalog)
    r = client.post("/api/games", content=b'{"opponents": [', headers={"Content-Type": "application/json"})
    assert_error(r, 422, "body: expected valid JSON, got a parse error")
    gid = add_game(client, SMALL, ["never-take", "always-take"], [SMALL_DEAL])
    assert_error(act(client, gid, "fold", 0), 422, "action: expected 'pass' or 'take', got 'fold'")
    r = client.post(f"/api/games/{gid}/actions", json={"action": "take"})
    assert_error(r, 422, "move: expected a value (required), got none")
    assert client.get(f"/api/games/{gid}").json()["move"] == 0  # refused requests leave the game unchanged


# pydantic's lax mode converted these silently (seat true -> 1, players 3.0 -> 3, "yes" -> true, "0" -> 0)
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seat": True}, "seat: expected a valid integer, got true"),
        ({"seat": "1"}, 'seat: expected a valid integer, got "1"'),
        ({"players": 3.0}, "players: expected a valid integer, got 3.0"),
        ({"players": "3"}, 'players: expected a valid integer, got "3"'),
        ({"perfect_memory": "yes"}, 'perfect_memory: expected a valid boolean, got "yes"'),
        ({"perfect_memory": 1}, "perfect_memory: expected a valid boolean, got 1"),
        ({"preset": 3}, "preset: expected a valid string, got 3"),
    ],
)
def test_new_game_fields_of_the_wrong_json_type_are_refused_not_converted(catalog, change, message):
    client = make_client(catalog)
    body = {"players": 3, "preset": "standard", "seat": 1, "opponents": ["heuristic", "heuristic"], **change}
    r = client.post("/api/games", json=body)
    assert_error(r, 422, message)
    assert r.json()["errors"] == [message]
    assert len(client.app.state.store) == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"move": "0"}, 'move: expected a valid integer, got "0"'),
        ({"move": 0.0}, "move: expected a valid integer, got 0.0"),
        ({"move": False}, "move: expected a valid integer, got false"),
        ({"action": 1}, "action: expected a valid string, got 1"),
    ],
)
def test_action_fields_of_the_wrong_json_type_are_refused_and_leave_the_game_unchanged(catalog, change, message):
    client = make_client(catalog)
    gid = add_game(client, SMALL, ["never-take", "always-take"], [SMALL_DEAL])
    before = client.get(f"/api/games/{gid}").content
    r = client.post(f"/api/games/{gid}/actions", json={"action": "take", "move": 0, **change})
    assert_error(r, 422, message)
    assert client.get(f"/api/games/{gid}").content == before
    assert act(client, gid, "take", 0).status_code == 200  # the same action with the right types is applied


@pytest.mark.parametrize(
    ("path", "change", "message"),
    [
        ("/api/replay", {"seat": True}, "seat: expected a valid integer, got true"),
        ("/api/replay", {"step": 1.0}, "step: expected a valid integer, got 1.0"),
        ("/api/replay", {"step": "1"}, 'step: expected a valid integer, got "1"'),
        ("/api/matches", {"seed": 4.0}, "seed: expected a valid integer, got 4.0"),
        ("/api/matches", {"players": True}, "players: expected a valid integer, got true"),
    ],
)
def test_replay_and_match_fields_of_the_wrong_json_type_are_refused(catalog, path, change, message):
    client = make_client(catalog)
    if path == "/api/replay":
        body = {"record": finished_record(client), "step": 1, "seat": 1}
    else:
        body = {"players": 3, "policies": ["random", "random", "random"], "seed": 4}
    assert client.post(path, json=body).status_code == 200  # the same body with the right types is served
    assert_error(client.post(path, json={**body, **change}), 422, message)


def test_unknown_game_and_unknown_path(catalog):
    client = make_client(catalog)
    for r in (client.get("/api/games/nope"), act(client, "nope", "take", 0), client.get("/api/games/nope/record")):
        assert_error(r, 404, "game: expected the id of a live game, got 'nope'")
    assert_error(client.get("/api/nothing"), 404, "path: expected an API route or a page, got '/api/nothing'")


def test_stale_move_illegal_pass_finished_game_and_early_record_leave_the_game_unchanged(catalog):
    client = make_client(catalog)
    broke = GameConfig(**{**SMALL.__dict__, "starting_chips": 0})
    gid = add_game(client, broke, ["never-take", "always-take"], [SMALL_DEAL])
    before = client.get(f"/api/games/{gid}").content
    assert json.loads(before)["legal_actions"] == ["take"]
    assert_error(act(client, gid, "pass", 0), 409, "expected TAKE (1) because seat 0 has 0 chips, got PASS (0)")
    assert_error(act(client, gid, "take", 5), 409, "move: expected 0 (the game's current move), got 5")
    assert_error(client.get(f"/api/games/{gid}/record"), 409, "record: expected a finished game, got one running")
    assert client.get(f"/api/games/{gid}").content == before

    assert act(client, gid, "take", 0).status_code == 200
    assert_error(act(client, gid, "take", 0), 409, "move: expected 1")
    gid2 = add_game(client, SMALL, ["never-take", "always-take"], [SMALL_DEAL])
    act(client, gid2, "take", 0)
    view = act(client, gid2, "pass", 1).json()["view"]
    assert view["over"]
    assert_error(act(client, gid2, "take", view["move"]), 409, "action: expected a running game, got one that is over")


def test_oversized_bodies_are_refused_with_413(catalog):
    client = TestClient(create_app(catalog, GameStore(), records_dir=None, max_body_bytes=1000))
    big = {"opponents": ["random", "random"], "pad": "x" * 2000}
    assert_error(client.post("/api/games", json=big), 413, "body: expected at most 1000 bytes, got Content-Length")

    def chunks():
        for _ in range(4):
            yield b" " * 400

    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert_error(r, 413, "body: expected at most 1000 bytes, got more than 1000 (streamed)")
    assert len(client.app.state.store) == 0


def test_a_full_server_refuses_new_games_with_503_and_keeps_the_live_ones(catalog):
    client = make_client(catalog, max_games=2, seed=0)
    ids = [client.post("/api/games", json={"opponents": ["random", "random"]}).json()["id"] for _ in range(2)]
    r = client.post("/api/games", json={"opponents": ["random", "random"]})
    assert_error(r, 503, "games: expected fewer than 2 live games (the server's limit), got 2")
    assert r.headers["Retry-After"] == "60"
    assert all(client.get(f"/api/games/{i}").status_code == 200 for i in ids)


def test_idle_games_expire_and_free_their_place(catalog):
    clock = FakeClock()
    client = make_client(catalog, max_games=2, idle_seconds=60, clock=clock, seed=0)
    old = client.post("/api/games", json={"opponents": ["random", "random"]}).json()["id"]
    clock.now += 50
    kept = client.post("/api/games", json={"opponents": ["random", "random"]}).json()["id"]
    clock.now += 50  # old: idle 100 s; kept: idle 50 s
    assert client.get(f"/api/games/{kept}").status_code == 200  # touching it resets its idle time
    assert_error(client.get(f"/api/games/{old}"), 404, "expired after 60 s idle")
    assert client.post("/api/games", json={"opponents": ["random", "random"]}).status_code == 201
    clock.now += 61
    assert_error(client.get(f"/api/games/{kept}"), 404, "expired")
    assert len(client.app.state.store) == 0


class Crash(Policy):
    """A user's bot with a bug: every decision raises."""

    name = "crash"

    def act_batch(self, view):
        raise RuntimeError("no rule for this card")


class AlwaysPass(Policy):
    """Passes even with 0 chips, which the rules refuse."""

    name = "always-pass"

    def act_batch(self, view):
        return np.zeros(len(view), dtype=np.int64)


def never_take(view) -> np.ndarray:
    """never-take's actions: PASS while the seat has a chip, else TAKE."""
    return np.where(view.action_mask()[:, 0] == 1, 0, 1).astype(np.int64)


class CrashInDealTwo(Policy):
    """Passes while it can (as never-take), but raises once, on its first decision in a match's second deal of
    three after a test arms it: a passing fault (a timeout, say), which a copy loaded again does not repeat."""

    name = "crash-in-deal-two"
    armed = False

    def act_batch(self, view):
        if CrashInDealTwo.armed and view.deals_left[0] == 1:
            CrashInDealTwo.armed = False
            raise RuntimeError("lost track in deal 2")
        return never_take(view)


class TwoTake(Policy):
    """Returns 2, out of the range of PASS/TAKE."""

    name = "two-take"

    def act_batch(self, view):
        return np.full(len(view), 2, dtype=np.int64)


class Remembering(Policy):
    """A bot with a memory of the game: it keeps every card it is asked about, and takes only at its second
    decision of a game (or without a chip)."""

    name = "remembering"

    def reset(self):
        self.seen = []

    def act_batch(self, view):
        self.seen.append(int(view.face_up_card[0]))
        return np.where(len(self.seen) == 2, 1, never_take(view)).astype(np.int64)


class FlakyOnce(Policy):
    """never-take, but raises once, on its first decision about card 4 after a test arms it (a passing fault)."""

    name = "flaky-once"
    armed = False

    def act_batch(self, view):
        if FlakyOnce.armed and view.face_up_card[0] == 4:
            FlakyOnce.armed = False
            raise RuntimeError("timed out")
        return never_take(view)


class Drifting(Policy):
    """Not reproducible from its seed: it counts its decisions in the class, across games. Takes at the first,
    raises at the third, passes (while it can) otherwise."""

    name = "drifting"
    calls = 0

    def act_batch(self, view):
        Drifting.calls += 1
        if Drifting.calls == 3:
            raise RuntimeError("drifted")
        return np.where(Drifting.calls == 1, 1, never_take(view)).astype(np.int64)


# resolved as the server resolves a user's module:attr spec; __name__ is this module as pytest imported it
BOTS = (Crash, AlwaysPass, CrashInDealTwo, FloatTake, WholeFloatTake, TwoTake, Remembering, FlakyOnce, Drifting)
CRASH, ALWAYS_PASS, CRASH_IN_DEAL_TWO, FLOAT_TAKE, WHOLE_FLOAT_TAKE, TWO_TAKE, REMEMBERING, FLAKY_ONCE, DRIFTING = (
    f"{__name__}:{c.__name__}" for c in BOTS
)


@pytest.fixture(scope="module")
def failing_catalog() -> PolicyCatalog:
    specs = ["always-take", CRASH, ALWAYS_PASS, CRASH_IN_DEAL_TWO, FLOAT_TAKE, WHOLE_FLOAT_TAKE, TWO_TAKE]
    return PolicyCatalog(extra=[*specs, REMEMBERING, FLAKY_ONCE, DRIFTING], shipped=[])


def test_an_opponent_failing_in_the_opening_moves_is_a_json_500_and_takes_no_place(failing_catalog, caplog):
    # The game used to stay live (its id never sent) until it expired, holding one of --max-games' places.
    client = make_client(failing_catalog, max_games=1, seed=0)
    first = Game(GameConfig(num_players=3))
    first.reset(seed=GameStore(seed=0).next_seed())  # the seed of the app's first game
    assert first.current_seat == 0  # so never-take (seat 0) passes at move 0, then the crash (seat 1) acts
    body = {"players": 3, "seat": 2, "opponents": ["never-take", CRASH]}
    with caplog.at_level("ERROR", logger="training.web.app"):
        r = client.post("/api/games", json=body)
    assert_error(r, 500)
    assert r.json() == {
        "error": f"opponents[1]: expected {CRASH!r} (seat 1) to return a legal action at move 1, got RuntimeError: "
        "no rule for this card; the game was not created"
    }
    assert len(client.app.state.store) == 0
    [logged] = [rec for rec in caplog.records if rec.name == "training.web.app"]
    assert logged.exc_info[0] is RuntimeError  # the server log keeps the bot's traceback
    ok = client.post("/api/games", json={"players": 3, "seat": 2, "opponents": ["never-take", "never-take"]})
    assert ok.status_code == 201, ok.text  # the only place on the server is still free
    assert len(client.app.state.store) == 1


def test_an_opponent_failing_in_reply_to_a_move_undoes_the_move(failing_catalog):
    client = make_client(failing_catalog)
    gid = add_game(client, SMALL, ["never-take", CRASH], [SMALL_DEAL])  # seat 0 (you) acts first
    before = client.get(f"/api/games/{gid}").content
    for _ in range(2):  # the retry fails the same way: the game is not wedged at seat 2's turn
        r = act(client, gid, "pass", 0)  # you pass, never-take passes, the crash raises at move 2
        assert_error(r, 500)
        assert r.json()["error"] == (
            f"opponents[1]: expected {CRASH!r} (seat 2) to return a legal action at move 2, got RuntimeError: no "
            "rule for this card; your action 'pass' was undone: the game is back at move 0"
        )
        assert client.get(f"/api/games/{gid}").content == before
    view = json.loads(before)
    assert (view["move"], view["to_act"], view["pot"], view["players"][0]["chips"]) == (0, 0, 0, 2)
    r = act(client, gid, "take", 0)  # a taker turns the next card and acts again: the crash is not asked
    assert r.status_code == 200, r.text
    assert r.json()["moves"] == [{"seat": 0, "action": "take", "card": 10, "special": None, "pot": 0, "deal": 0}]
    assert r.json()["view"]["move"] == 1 and len(client.app.state.store) == 1


def test_a_move_undone_mid_match_leaves_the_game_a_game_without_the_failure_would_be(failing_catalog, monkeypatch):
    # The undo replays the game from its seed: the third deal, shuffled when it starts, must be the same.
    def play(opponents: list[str]) -> tuple[GameRecord, list[str]]:
        client = make_client(failing_catalog, seed=3)
        body = {"preset": "match3", "seat": 0, "opponents": opponents}
        created = client.post("/api/games", json=body).json()
        view, errors = created["view"], []
        while not view["over"]:
            action = "take" if view["take_cost"] <= 6 or view["legal_actions"] == ["take"] else "pass"
            r = act(client, created["id"], action, view["move"])
            if r.status_code == 500:
                errors.append(r.json()["error"])
                assert client.get(f"/api/games/{created['id']}").json() == view
                continue  # the same action again: the bot fails only once
            view = r.json()["view"]
        return GameRecord.from_dict(client.get(f"/api/games/{created['id']}/record").json()), errors

    monkeypatch.setattr(CrashInDealTwo, "armed", True)
    failed, errors = play(["never-take", CRASH_IN_DEAL_TWO])
    clean, no_errors = play(["never-take", "never-take"])
    assert no_errors == [] and len(errors) == 1
    assert f"opponents[1]: expected {CRASH_IN_DEAL_TWO!r} (seat 2)" in errors[0]
    assert "got RuntimeError: lost track in deal 2; your action" in errors[0]
    assert len(failed.deals) == 3
    assert (failed.deals, failed.actions, failed.penalties) == (clean.deals, clean.actions, clean.penalties)


def test_a_bot_returning_a_fraction_is_a_json_500_and_its_move_is_undone(failing_catalog):
    # int(1.9) made it TAKE; evaluation refuses 1.9 (a PolicyActionError) and so does the server now
    client = make_client(failing_catalog)
    gid = add_game(client, SMALL, ["never-take", FLOAT_TAKE], [SMALL_DEAL])
    before = client.get(f"/api/games/{gid}").content
    r = act(client, gid, "pass", 0)  # you pass, never-take passes, the float bot answers 1.9 at move 2
    assert_error(r, 500)
    assert r.json()["error"] == (
        f"opponents[1]: expected {FLOAT_TAKE!r} (seat 2) to return a legal action at move 2, got PolicyActionError: "
        "policy float-take: expected whole action ids (PASS=0 or TAKE=1), got 1.9; your action 'pass' was undone: "
        "the game is back at move 0"
    )
    assert client.get(f"/api/games/{gid}").content == before


def test_a_bot_returning_integral_floats_plays_them_as_actions(failing_catalog):
    client = make_client(failing_catalog)
    gid = add_game(client, SMALL, ["never-take", WHOLE_FLOAT_TAKE], [SMALL_DEAL])
    r = act(client, gid, "pass", 0)
    assert r.status_code == 200, r.text
    assert [(m["seat"], m["action"], m["card"], m["pot"]) for m in r.json()["moves"]] == [
        (0, "pass", 10, 0), (1, "pass", 10, 1), (2, "take", 10, 2), (2, "take", 4, 0), (2, "take", 5, 0),
        (2, "take", 9, 0), (2, "take", 3, 0), (2, "take", 8, 0),
    ]  # fmt: skip


def test_act_one_checks_the_scalar_entry_point_of_special_cards():
    game = Game(GameConfig(num_players=3, special_cards=("wild",)))
    game.reset(seed=0)
    assert game.phase == "offer" and game.legal_actions() == (0, 1)  # 1.9 would be cut to TAKE
    assert act_one(Returns(np.float64(1.0), "bidder"), game) == 1
    for bad, shown in [(1.9, "1.9"), (np.float64(np.nan), "nan"), (-1, "-1"), ("1", "'1'")]:
        with pytest.raises(PolicyActionError) as e:
            act_one(Returns(bad, "bidder"), game)
        assert (
            str(e.value) == f"policy bidder: expected whole action ids (0..{game.config.num_actions - 1}), got {shown}"
        )


def test_an_undone_move_is_forgotten_by_the_bots_too(failing_catalog, monkeypatch):
    # The rewind put the game back but kept the bots: the remembering bot still held the cards of the undone
    # move, and decided differently from a game that never saw it.
    def play(armed: bool) -> tuple[list[list], list[dict], list[int]]:
        monkeypatch.setattr(FlakyOnce, "armed", armed)
        client = make_client(failing_catalog)
        gid = add_game(client, SMALL, [REMEMBERING, FLAKY_ONCE], [SMALL_DEAL])
        assert act(client, gid, "pass", 0).status_code == 200  # the remembering bot passes on 10, then flaky
        errors = []
        r = act(client, gid, "pass", 3)
        if r.status_code == 500:  # it takes 10, passes on 4, and flaky fails on 4: all undone
            errors.append(r.json()["error"])
            assert client.get(f"/api/games/{gid}").json()["move"] == 3
            assert client.app.state.store.get(gid).policies[1].seen == [10]
            r = act(client, gid, "pass", 3)  # the same move again: flaky does not fail twice
        assert r.status_code == 200, r.text
        moves = [[m["seat"], m["action"], m["card"], m["pot"]] for m in r.json()["moves"]]
        return moves, errors, client.app.state.store.get(gid).policies[1].seen

    moves, errors, seen = play(armed=True)
    assert len(errors) == 1 and errors[0].startswith(f"opponents[1]: expected {FLAKY_ONCE!r} (seat 2)")
    assert "got RuntimeError: timed out; your action 'pass' was undone: the game is back at move 3" in errors[0]
    fresh_moves, no_errors, fresh_seen = play(armed=False)
    assert no_errors == [] and (moves, seen) == (fresh_moves, fresh_seen)
    assert moves == [[0, "pass", 10, 3], [1, "take", 10, 4], [1, "pass", 4, 0], [2, "pass", 4, 1]]
    assert seen == [10, 10, 4]


def test_bots_that_cannot_be_put_back_stop_the_game_with_a_clear_error(failing_catalog, monkeypatch):
    monkeypatch.setattr(Drifting, "calls", 0)
    client = make_client(failing_catalog)
    gid = add_game(client, SMALL, ["never-take", DRIFTING], [SMALL_DEAL])
    r = act(client, gid, "pass", 0)  # never-take passes, drifting takes 10 (its 1st call), passes on 4 (2nd)
    assert r.status_code == 200 and r.json()["view"]["move"] == 4, r.text
    r = act(client, gid, "pass", 4)  # never-take passes, drifting raises (3rd); asked again for move 2, it passes
    assert_error(r, 500)
    undone = (
        f"opponents[1]: expected {DRIFTING!r} (seat 2) to return a legal action at move 6, got RuntimeError: drifted; "
        "your action 'pass' was undone: the game is back at move 4"
    )
    cannot = (
        f"opponents[1]: expected {DRIFTING!r} (seat 2) to decide move 2 again as it did ('take', from the same seed "
        "and views), got 'pass'"
    )
    assert (
        r.json()["error"] == f"{undone}, but its opponents could not be put back with it ({cannot}): start a new game"
    )
    view = client.get(f"/api/games/{gid}").json()
    assert (view["move"], view["to_act"], view["players"][0]["chips"]) == (4, 0, 1)
    r = act(client, gid, "take", 4)
    assert_error(r, 409)
    assert r.json()["error"] == (
        "action: expected a game that can go on, got one stopped at move 4 because its opponents could not be put "
        f"back after an undone move ({cannot}); start a new game"
    )
    assert client.get(f"/api/games/{gid}").json() == view


def test_a_match_with_a_bot_that_passes_at_zero_chips_is_a_json_500(failing_catalog):
    client = TestClient(create_app(failing_catalog, GameStore(), records_dir=None, max_matches=1))
    first = Game(GameConfig(num_players=3))
    first.reset(seed=1)
    assert first.current_seat == 0  # everyone passes 11 rounds; then seat 0 has no chip left and passes again
    body = {"players": 3, "policies": [ALWAYS_PASS, "never-take", "never-take"], "seed": 1}
    r = client.post("/api/matches", json=body)
    assert_error(r, 500)
    assert r.json()["error"] == (
        f"policies[0]: expected {ALWAYS_PASS!r} (seat 0) to return a legal action at move "
        f"{3 * first.config.chips_per_player}, got IllegalActionError: action: expected TAKE (1) because seat 0 has "
        "0 chips, got PASS (0)"
    )
    body["policies"] = ["never-take"] * 3
    assert client.post("/api/matches", json=body).status_code == 200  # the failed match gave its slot back


def test_a_replay_policy_that_raises_is_a_json_500(failing_catalog):
    client = make_client(failing_catalog)
    record = finished_record(client)
    r = client.post("/api/replay", json={"record": record, "step": 1, "policy": CRASH})
    assert_error(r, 500)
    assert r.json()["error"] == (
        f"policy: expected {CRASH!r} to give P(pass), P(take) for seat 0 at step 1, got RuntimeError: no rule for "
        "this card"
    )


@pytest.mark.parametrize(
    ("spec", "name", "got"),
    [
        (TWO_TAKE, "two-take", "got 32 of 32 that are not, the first 2"),  # bincount made P(pass) = P(take) = 0
        (FLOAT_TAKE, "float-take", "got 32 of 32 that are not, the first 1.9"),  # bincount raised a TypeError
    ],
)
def test_a_replay_policy_whose_draws_are_no_actions_is_a_json_500(failing_catalog, spec, name, got):
    client = make_client(failing_catalog)
    record = finished_record(client)
    r = client.post("/api/replay", json={"record": record, "step": 1, "policy": spec})
    assert_error(r, 500)
    assert r.json()["error"] == (
        f"policy: expected {spec!r} to give P(pass), P(take) for seat 0 at step 1, got PolicyActionError: policy "
        f"{name}: expected whole action ids (PASS=0 or TAKE=1), {got}"
    )
    ok = client.post("/api/replay", json={"record": record, "step": 1, "policy": WHOLE_FLOAT_TAKE})
    assert ok.status_code == 200 and ok.json()["probabilities"] == [0.0, 1.0], ok.text


# ---------------------------------------------------------------------------------------------- concurrency


def test_concurrent_games_are_independent_and_one_move_wins_a_race(catalog):
    client = make_client(catalog, seed=1)
    games = [client.post("/api/games", json={"opponents": ["heuristic", "threshold"]}).json() for _ in range(4)]

    def play_out(created):
        view, gid = created["view"], created["id"]
        while not view["over"]:
            view = act(client, gid, view["legal_actions"][-1], view["move"]).json()["view"]
        return gid, view

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(play_out, games))
    for gid, view in results:
        record = GameRecord.from_dict(client.get(f"/api/games/{gid}/record").json())
        assert list(replay(record).final_penalties()) == view["outcome"]["penalties"]
        assert all(a == 1 for a, h in zip(record.actions, replay(record).history) if h.seat == view["seat"])

    gid = client.post("/api/games", json={"opponents": ["never-take", "never-take"]}).json()["id"]
    move = client.get(f"/api/games/{gid}").json()["move"]
    with ThreadPoolExecutor(4) as pool:
        codes = sorted(pool.map(lambda _: act(client, gid, "pass", move).status_code, range(4)))
    assert codes == [200, 409, 409, 409]


class SlowPolicy(Policy):
    """Takes ``delay`` seconds per decision, then passes while it can."""

    name = "slow"
    delay = 1.5

    def act_batch(self, view):
        time.sleep(self.delay)
        return np.where(view.action_mask()[:, 0] == 1, 0, 1).astype(np.int64)


def test_a_slow_policy_does_not_block_other_requests(catalog, monkeypatch):
    slow_catalog = PolicyCatalog(shipped=[])
    slow_catalog.policies["slow"] = PolicyInfo("slow", "custom", "sleeps", None)
    original = slow_catalog.load
    monkeypatch.setattr(
        slow_catalog,
        "load",
        lambda spec, n, seed, where, special=False: SlowPolicy() if spec == "slow" else original(spec, n, seed, where),
    )
    app = create_app(slow_catalog, GameStore(seed=0), records_dir=None)
    gid = add_game(TestClient(app), SMALL, ["slow", "never-take"], [SMALL_DEAL])  # seat 0 acts first
    with serve.serve_in_background(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        done = threading.Event()

        def slow_move():
            http.post(f"api/games/{gid}/actions", json={"action": "pass", "move": 0})  # seat 1 then sleeps
            done.set()

        thread = threading.Thread(target=slow_move)
        thread.start()
        time.sleep(0.3)
        t0 = time.perf_counter()
        assert http.get("api/policies").status_code == 200
        elapsed = time.perf_counter() - t0
        assert not done.is_set() and elapsed < 1.0, f"a request waited {elapsed:.2f} s behind a slow policy"
        thread.join(timeout=30)
        assert done.is_set()


# ---------------------------------------------------------------------------------------------- leaks


def test_paired_deals_differing_in_hidden_cards_give_byte_identical_responses(catalog):
    # Two deals that differ only in which of 33 and 34 is removed face down and which is the last card.
    # Until that last card is turned, the viewing seat must not be able to tell them apart.
    head = (20, 21, 22, 12, 23, 27, *range(13, 20), 24, 25, 26, 28, 29, 30, 31, 32, 3, 35)
    deal_a = Deal(deck=(*head, 33), removed_hidden=(*range(4, 12), 34))
    deal_b = Deal(deck=(*head, 34), removed_hidden=(*range(4, 12), 33))
    config = GameConfig(num_players=4, num_removed=9, starting_seat=1)
    assert set(deal_a.deck) | set(deal_a.removed_hidden) == set(deal_b.deck) | set(deal_b.removed_hidden)
    deal_a.validate(config)
    deal_b.validate(config)
    client = make_client(catalog)
    opponents = ["heuristic", "threshold", "heuristic"]
    ga = add_game(client, config, opponents, [deal_a], seat=2)
    gb = add_game(client, config, opponents, [deal_b], seat=2)
    compared = 0
    ra, rb = client.get(f"/api/games/{ga}"), client.get(f"/api/games/{gb}")
    while True:
        va, vb = ra.json(), rb.json()
        view_a = va.get("view", va)
        if view_a["over"] or view_a["face_up_card"] in (33, 34):
            break
        assert ra.content == rb.content, f"responses differ at move {view_a['move']}"
        for text in (ra.text, client.get(f"/api/games/{ga}").text):
            data = json.loads(text)
            view = data.get("view", data)
            assert view["deck"] is None and view["removed_hidden"] is None and "seed" not in text
            assert [p["chips"] for p in view["players"] if p["seat"] != 2] == [None] * 3
        compared += 1
        action = "take" if view_a["take_cost"] <= 4 or view_a["legal_actions"] == ["take"] else "pass"
        ra, rb = act(client, ga, action, view_a["move"]), act(client, gb, action, view_a["move"])
    assert compared >= 10
    assert (
        view_a["face_up_card"] == 33 and vb.get("view", vb)["face_up_card"] == 34
    )  # only the last card told them apart
    assert client.get(f"/api/games/{ga}/record").status_code == 409  # the record (deals, seed) waits for the end


# ---------------------------------------------------------------------------------------------- watch


def finished_record(client: TestClient) -> dict:
    gid = add_game(client, SMALL, ["never-take", "always-take"], [SMALL_DEAL])
    act(client, gid, "take", 0)
    act(client, gid, "pass", 1)
    return client.get(f"/api/games/{gid}/record").json()


def test_replay_steps_from_a_seat_or_the_full_view_with_probabilities(catalog):
    client = make_client(catalog)
    record = finished_record(client)
    r = client.post("/api/replay", json={"record": record, "step": 2, "seat": 1, "policy": "never-take"})
    assert r.status_code == 200, r.text
    step = r.json()
    assert (step["step"], step["total"], step["recorded_action"]) == (2, 8, "pass")
    assert step["last_move"] == {"seat": 0, "action": "pass", "card": 4, "special": None, "pot": 0, "deal": 0}
    assert step["probabilities"] == [1.0, 0.0] and step["probability_source"] == "estimated from 32 draws"
    view = step["view"]
    assert view["seat"] == 1 and view["deck"] is None and [p["chips"] for p in view["players"]] == [None, 2, None]
    assert step["labels"] == ["human", "never-take", "always-take"]

    full = client.post("/api/replay", json={"record": record, "step": 2}).json()["view"]
    assert full["seat"] is None and full["deck"] == [5, 9, 3, 8] and full["removed_hidden"] == [6, 7]
    assert [p["chips"] for p in full["players"]] == [1, 2, 2] and full["chips_shown"] == "all"

    end = client.post("/api/replay", json={"record": record, "step": 8, "policy": "heuristic"}).json()
    assert end["view"]["outcome"]["penalties"] == [9, -1, 7] and end["recorded_action"] is None
    assert end["probabilities"] is None


def test_replay_probabilities_of_a_shipped_agent_come_from_the_network(catalog):
    client = make_client(catalog)
    step = client.post("/api/replay", json={"record": finished_record(client), "step": 1, "policy": "ppo-3p"}).json()
    p = step["probabilities"]
    assert step["probability_source"] == "from the policy" and abs(p[0] + p[1] - 1) < 1e-9 and 0 < p[1] < 1


@pytest.mark.parametrize(
    ("change", "status", "fragment"),
    [
        ({"step": 9}, 422, "step: expected 0..8, got 9"),
        ({"step": -1}, 422, "step: expected greater than or equal to 0, got -1"),
        ({"seat": 3}, 422, "seat: expected an int in 0..2 or null (full view), got 3"),
        ({"policy": "nope"}, 422, "policy: expected one of ["),
        ({"record": {"format": "chess"}}, 422, "record: format: expected 'nothanks-record', got 'chess'"),
        ({"record": "penalties"}, 422, "record: expected a valid dictionary"),
    ],
)
def test_bad_replay_requests(catalog, change, status, fragment):
    client = make_client(catalog)
    body = {"record": finished_record(client), "step": 0, **change}
    assert_error(client.post("/api/replay", json=body), status, fragment)


def test_a_replay_request_whose_record_lacks_keys_names_the_record_once(catalog):
    # It said "record: record: expected keys [...]".
    client = make_client(catalog)
    r = client.post("/api/replay", json={"record": {"format": "nothanks-record", "version": 1}, "step": 0})
    assert r.status_code == 422 and r.json()["error"] == (
        "record: expected keys ['config', 'seed', 'first_seat', 'deals', 'actions', 'penalties'] to be present, got "
        "keys ['format', 'version']"
    )


def test_replay_probabilities_from_draws_that_pass_without_a_chip_are_a_json_500(failing_catalog):
    # they showed P(pass) = 1 for a seat whose only legal action is take
    client = make_client(failing_catalog)
    gid = add_game(client, SMALL, ["never-take", "never-take"], [SMALL_DEAL])
    act(client, gid, "pass", 0)
    view = act(client, gid, "pass", 3).json()["view"]  # everyone passed twice: no chip left, you must take
    while not view["over"]:
        view = act(client, gid, "take", view["move"]).json()["view"]
    record = client.get(f"/api/games/{gid}/record").json()
    r = client.post("/api/replay", json={"record": record, "step": 6, "policy": ALWAYS_PASS})
    assert_error(r, 500)
    assert r.json()["error"] == (
        f"policy: expected {ALWAYS_PASS!r} to give P(pass), P(take) for seat 0 at step 6, got PolicyActionError: "
        "policy always-pass: expected legal actions (PASS=0 needs a chip, TAKE=1), got PASS in 32 of 32 draws with "
        "0 chips"
    )
    ok = client.post("/api/replay", json={"record": record, "step": 5, "policy": ALWAYS_PASS})
    assert ok.status_code == 200 and ok.json()["probabilities"] == [1.0, 0.0], ok.text  # seat 2 had a chip


RECORD_HAS = "a record has format, version, config, seed, first_seat, deals, actions, penalties, agents"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.update(probabilities=[0.5, 1.5]),
            f"record: probabilities: expected no such field ({RECORD_HAS}), got [0.5, 1.5]",
        ),
        (
            lambda r: r["deals"][0].update(probs=[1.0, -2.0]),
            "record: deals[0].probs: expected no such field (a deal has deck, removed_hidden), got [1.0, -2.0]",
        ),
        (lambda r: r.update(version=True), "record: version: expected the int 1, got True"),
        (lambda r: r.update(version=1.0), "record: version: expected the int 1, got 1.0"),
    ],
)
def test_replay_records_with_fields_nothing_checks_are_refused(catalog, change, message):
    # from_dict ignored unknown fields and took true and 1.0 for version 1: a request could send anything there
    # (GameRecord.from_dict refuses them now, for every reader of records)
    client = make_client(catalog)
    record = finished_record(client)
    change(record)
    r = client.post("/api/replay", json={"record": record, "step": 1, "policy": "never-take"})
    assert_error(r, 422)
    assert r.json() == {"error": message}


def test_a_record_that_does_not_replay_is_refused(catalog):
    client = make_client(catalog)
    record = finished_record(client)
    record["penalties"] = [0, 0, 0]
    assert_error(client.post("/api/replay", json={"record": record}), 422, "record: penalties: expected [0, 0, 0]")


def test_saved_records_are_listed_and_served_by_name_only(catalog, tmp_path):
    client = make_client(catalog)
    GameRecord.from_dict(finished_record(client)).save(tmp_path / "one.json")
    (tmp_path / "notes.txt").write_text("not a record")
    (tmp_path / "broken.json").write_text("{")
    client = TestClient(create_app(catalog, GameStore(), records_dir=tmp_path))
    assert client.get("/api/records").json() == ["broken.json", "one.json"]
    assert client.get("/api/records/one.json").json()["penalties"] == [9, -1, 7]
    assert_error(client.get("/api/records/broken.json"), 422, "record broken.json: expected valid JSON")
    assert_error(client.get("/api/records/notes.txt"), 404, "record: expected one of the 2 saved records")
    assert client.get("/api/records/..%2F..%2Fetc%2Fpasswd").status_code == 404


NESTING_ERROR = (
    "JSON nested too deep to parse (maximum recursion depth exceeded while decoding a JSON object from a unicode "
    "string)"
)


def test_saved_records_nested_too_deep_or_not_utf8_are_json_422s(catalog, tmp_path):
    # Both were a plain-text 500 "Internal Server Error" (a RecursionError, a UnicodeDecodeError).
    (tmp_path / "deep.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    (tmp_path / "latin.json").write_bytes(b'{"format": "\xff"}')
    client = TestClient(create_app(catalog, GameStore(), records_dir=tmp_path))
    r = client.get("/api/records/deep.json")
    assert r.status_code == 422 and r.json() == {
        "error": f"record deep.json: expected a JSON record (an object a few levels deep), got {NESTING_ERROR}"
    }
    r = client.get("/api/records/latin.json")
    assert r.status_code == 422 and r.json() == {
        "error": "record latin.json: expected UTF-8 text (a JSON record), got bytes that are not UTF-8 "
        "('utf-8' codec can't decode byte 0xff in position 12: invalid start byte)"
    }


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/replay", b'{"record": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}"),
        ("/api/games", b'{"opponents": ["random", ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"]}"),
    ],
)
def test_bodies_nested_too_deep_are_422s_saying_so(catalog, path, body):
    # They were a 400 {"error": "There was an error parsing the body"} (FastAPI's words, not the README's 422).
    r = make_client(catalog).post(path, content=body, headers={"Content-Type": "application/json"})
    message = f"body: expected a JSON body a few levels deep, got {NESTING_ERROR}"
    assert r.status_code == 422 and r.json() == {"error": message, "errors": [message]}


def test_bodies_that_are_not_utf8_are_422s_saying_so(catalog):
    r = make_client(catalog).post(
        "/api/replay", content=b'{"record": "\xff"}', headers={"Content-Type": "application/json"}
    )
    message = (
        "body: expected JSON text in UTF-8, got bytes that are not UTF-8 ('utf-8' codec can't decode byte 0xff in "
        "position 12: invalid start byte)"
    )
    assert r.status_code == 422 and r.json() == {"error": message, "errors": [message]}


def test_agent_matches_return_a_replayable_record(catalog):
    client = make_client(catalog)
    body = {"players": 3, "policies": ["ppo-3p", "heuristic", "threshold:T=5"], "seed": 4}
    r = client.post("/api/matches", json=body)
    assert r.status_code == 200, r.text
    record = GameRecord.from_dict(r.json())
    assert record.agents == ("ppo-3p", "heuristic", "threshold:T=5") and record.seed == 4
    assert record.penalties == tuple(replay(record).final_penalties())
    assert client.post("/api/matches", json=body).json() == r.json()  # the seed fixes the game
    assert_error(client.post("/api/matches", json={"policies": ["random"]}), 422, "policies: expected 3 policy specs")


def test_agent_matches_are_limited_to_a_few_at_once(catalog):
    client = TestClient(create_app(catalog, GameStore(), records_dir=None, max_matches=1))
    body = {"policies": ["random", "random", "random"], "seed": 0}
    client.app.state.match_slots.acquire()  # a match in progress
    r = client.post("/api/matches", json=body)
    assert_error(r, 503, "matches: expected fewer than 1 agent games running at once (the server's limit), got 1")
    client.app.state.match_slots.release()
    assert client.post("/api/matches", json=body).status_code == 200


def test_a_three_deal_match_adds_the_deals_up(catalog):
    client = make_client(catalog, seed=2)
    created = client.post("/api/games", json={"preset": "match3", "opponents": ["heuristic", "threshold"]}).json()
    view, deals_seen = created["view"], {created["view"]["deal"]}
    while not view["over"]:
        view = act(client, created["id"], "take" if view["take_cost"] < 8 else view["legal_actions"][0], view["move"])
        view = view.json()["view"]
        deals_seen.add(view["deal"])
        assert len(view["deal_penalties"]) == (3 if view["over"] else view["deal"])
    assert deals_seen == {0, 1, 2} and view["num_deals"] == 3
    totals = [sum(d[i] for d in view["deal_penalties"]) for i in range(3)]
    assert view["outcome"]["penalties"] == totals == [p["match_penalty"] for p in view["players"]]
    record = GameRecord.from_dict(client.get(f"/api/games/{created['id']}/record").json())
    assert len(record.deals) == 3 and list(replay(record).final_penalties()) == totals


# ---------------------------------------------------------------------------------------------- page, docs, CLI


def test_page_and_offline_api_docs_are_served(catalog):
    client = make_client(catalog)
    page = client.get("/")
    assert page.status_code == 200 and 'id="setup"' in page.text and "app.js" in page.text
    assert client.get("/app.js").status_code == 200 and client.get("/style.css").status_code == 200
    docs = client.get("/docs")
    assert docs.status_code == 200 and "cdn" not in docs.text.lower()
    scripts = [part.split('"')[0] for part in docs.text.split('src="')[1:]]
    assert scripts and all(client.get(s).status_code == 200 for s in scripts)
    spec = client.get("/openapi.json").json()
    assert {"/api/games", "/api/games/{game_id}/actions", "/api/games/{game_id}/record", "/api/policies"} <= set(
        spec["paths"]
    )


def test_serve_cli_refuses_bad_arguments(capsys, tmp_path):
    record = tmp_path / "game.json"
    record.write_text("{}")
    with pytest.raises(SystemExit) as e:  # it started and served an empty list under 'Watch'
        serve.main(["--records", str(record)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == f"error: --records: expected a folder of saved game records, got the file {record}\n"
    with pytest.raises(SystemExit) as e:
        serve.main(["--opponents", "no-such-bot"])
    assert e.value.code == 2 and "policy spec 'no-such-bot'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        serve.main(["--max-games", "0"])
    assert e.value.code == 2  # refused while parsing, naming the flag (GameStore's own check stays for the API)
    assert capsys.readouterr().err == "error: argument --max-games: expected an int in 1..100000, got 0\n"


def test_serve_cli_refuses_a_port_in_use_with_one_error_line_before_uvicorn_starts(capsys, monkeypatch):
    # This used to end in uvicorn's own log line and exit code 3, with no error: line.
    import socket

    import uvicorn

    def no_server(*args, **kwargs):
        raise AssertionError("uvicorn was started")

    monkeypatch.setattr(uvicorn.Server, "run", no_server)
    monkeypatch.setattr(uvicorn, "run", no_server)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as e:
            serve.main(["--port", str(port)])
    assert e.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(
        f"error: --port {port}: expected a free port, got one already in use on 127.0.0.1 (Address already in use"
    )


def test_serve_cli_hands_its_bound_socket_to_uvicorn(monkeypatch, capsys):
    import uvicorn

    seen = {}

    def fake_run(self, sockets=None):
        seen["port"] = sockets[0].getsockname()[1]
        seen["config_port"] = self.config.port
        self.started = True

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    # uvicorn.Config applies its logging config (logging.config.dictConfig), which shuts down every handler
    # already installed, pytest's log capture among them: later tests in this worker then failed on closed files
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    assert serve.main(["--port", "0", "--log-level", "warning"]) == 0
    assert 0 < seen["port"] == seen["config_port"]
    assert capsys.readouterr().out.startswith(f"No Thanks! on http://127.0.0.1:{seen['port']}/")


# ---------------------------------------------------------------------------------------------- wildcards
def test_wildcards_table_auction_and_choices_move_by_move(catalog):
    from nothanks_env.game import DELETE, WILD
    from nothanks_env.presets import get_preset

    client = make_client(catalog)
    config = get_preset("wildcards", starting_seat=0)
    deal = Deal(deck=(WILD, 10, DELETE, *range(11, 34)), removed_hidden=(3, 4, 5, 6, 7, 8, 9, 34, 35))
    gid = add_game(client, config, ["heuristic", "heuristic"], [deal])
    view = client.get(f"/api/games/{gid}").json()
    assert view["phase"] == "auction" and view["face_up_card"] is None and view["take_cost"] is None
    assert view["auction"] == {"card": "wild", "high_bid": None, "high_bidder": None, "in_auction": [True] * 3}
    assert view["legal_actions"] == [f"bid {k}" for k in range(12)]  # the opener may not drop
    assert_error(act(client, gid, "drop", 0), 409, "action 'drop': action: expected one of")
    assert_error(act(client, gid, "bid N", 0), 422, "action: expected one of 'pass', 'take', 'bid N', 'drop'")

    body = act(client, gid, "bid 0", 0).json()  # the heuristics drop a wild they cannot use: won at 0
    assert [(m["seat"], m["action"], m["special"]) for m in body["moves"]] == [
        (0, "bid 0", "wild"), (1, "drop", "wild"), (2, "drop", "wild")
    ]  # fmt: skip
    view = body["view"]
    assert view["phase"] == "choose_value" and view["auction"]["card"] == "wild"
    assert view["legal_actions"] == [f"value {v}" for v in range(3, 36)]

    view = act(client, gid, "value 10", 3).json()["view"]
    assert view["phase"] == "offer" and view["face_up_card"] == 10 and view["auction"] is None
    assert view["players"][0]["wild_value"] == 10 and view["players"][0]["card_points"] == 10
    assert view["take_cost"] == 0  # the wild already counts as 10

    view = act(client, gid, "take", 4).json()["view"]
    assert view["auction"]["card"] == "delete" and view["phase"] == "auction"
    body = act(client, gid, "bid 9", 5).json()  # above the heuristics' ceiling for a delete (7): they drop
    view = body["view"]
    assert view["phase"] == "choose_discard" and view["legal_actions"] == ["delete 10"]
    assert view["players"][0]["paid"] == 9 and view["players"][0]["chips"] == 2
    view = act(client, gid, "delete 10", 8).json()["view"]
    assert view["discarded"] == [10] and view["players"][0]["cards"] == [] and view["face_up_card"] == 11


def test_wildcards_games_refuse_pass_take_policies_and_matches_replay(catalog):
    client = make_client(catalog, seed=3)
    r = client.post("/api/games", json={"preset": "wildcards", "opponents": ["heuristic", "threshold:T=5"]})
    assert_error(r, 422, "opponents[1]: expected a policy that plays special cards")
    listed = {p["spec"]: p["plays_special_cards"] for p in client.get("/api/policies").json()}
    assert listed["heuristic"] and listed["random"] and not listed["threshold"] and not listed["ppo-3p"]
    only = {p["spec"]: p["special_only"] for p in client.get("/api/policies").json()}
    assert only["ppo-wildcards"] and listed["ppo-wildcards"] and not only["heuristic"] and not only["ppo-3p"]
    r = client.post("/api/games", json={"opponents": ["heuristic", "ppo-wildcards"]})  # a standard table
    assert_error(r, 422, "opponents[1]: expected a policy that plays pass/take (a standard table), got 'ppo-wildcards'")
    r = client.post("/api/games", json={"preset": "wildcards", "opponents": ["ppo-wildcards", "heuristic"]})
    assert r.status_code == 201, r.text
    created = client.post("/api/games", json={"preset": "wildcards", "opponents": ["heuristic", "random"]})
    assert created.status_code == 201, created.text
    body = {"preset": "wildcards", "policies": ["heuristic", "random", "heuristic"], "seed": 5}
    record = client.post("/api/matches", json=body).json()
    rec = GameRecord.from_dict(record)
    assert rec.config.special_cards == ("wild", "delete") and rec.penalties == tuple(replay(rec).final_penalties())
    step = client.post("/api/replay", json={"record": record, "step": len(rec.actions), "seat": None}).json()
    assert step["view"]["over"] and step["view"]["outcome"]["penalties"] == list(rec.penalties)
    bids = [a for a in rec.actions if a >= 2]
    assert bids  # the two special cards were auctioned (unless both were removed) and named in the replay
    r = client.post("/api/replay", json={"record": record, "step": 0, "policy": "heuristic"})
    assert_error(r, 422, "policy: expected null for a record with special cards")


def test_a_search_over_a_network_is_offered_at_that_networks_table_sizes_only():
    # a search over ppo-3p was listed with num_players null; a 4-player game with it was an HTTP 500
    client = make_client(PolicyCatalog(extra=["search:iters=1,rollout=ppo-3p"], shipped=[]))
    listed = {p["spec"]: p for p in client.get("/api/policies").json()}
    assert listed["search:iters=1,rollout=ppo-3p"]["player_counts"] == [3]
    body = {"players": 4, "opponents": ["search:iters=1,rollout=ppo-3p"] * 3}
    assert_error(
        client.post("/api/games", json=body), 422,
        "opponents[0]: 'search:iters=1,rollout=ppo-3p' plays 3 players only, got a 4-player table",
    )  # fmt: skip

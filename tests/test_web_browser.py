"""The page in a real headless browser: Playwright drives Debian's chromium through a whole game.

Playwright's own browser download is not reachable here, so the test points Playwright at the system
chromium (``apt-get install chromium``; ``.ci/run`` installs it). Without chromium or the playwright package
the test skips and says why, unless ``NOTHANKS_REQUIRE_BROWSER=1`` (set by ``.ci/run``) turns that into a
failure. Screenshots are kept in the test's tmp dir (printed with ``-s``).
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from nothanks_env.records import GameRecord, replay

CHROMIUM = Path(os.environ.get("NOTHANKS_CHROMIUM", "/usr/bin/chromium"))
REQUIRED = os.environ.get("NOTHANKS_REQUIRE_BROWSER") == "1"
# Headless flags for this machine's closed network: without the background-networking ones chromium keeps
# trying to reach Google's hosts.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"NOTHANKS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[test]')")
    try:
        import fastapi  # noqa: F401
    except ImportError:
        _unavailable("the web extra is not installed (pip install -e '.[web]')")
    if not (CHROMIUM.exists() or shutil.which(str(CHROMIUM))):
        _unavailable(f"no chromium at {CHROMIUM} (apt-get install chromium, or set NOTHANKS_CHROMIUM)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@contextmanager
def opened_page(browser, app, **page_options):
    """The page served by ``app``, loaded and ready, in a new tab of ``browser``; yields ``(page, errors, url)``:
    ``errors`` collects the page's uncaught JavaScript errors (each test asserts it empty at its end), ``url`` is
    the server's root (for the API)."""
    from training.serve import serve_in_background

    with serve_in_background(app) as url:
        page = browser.new_page(viewport={"width": 1000, "height": 900}, **page_options)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("body[data-ready=true]", timeout=15000)
        yield page, errors, url


def seat_names(page, table: str) -> list[str]:
    """The seat names a seat table (``#table`` at play, ``#watch-table`` in the replay) shows, by seat."""
    return page.eval_on_selector_all(f"{table} tr[data-seat] td:first-child", "cells => cells.map(c => c.textContent)")


def test_play_a_whole_game_by_clicking_then_check_the_table_against_the_record(browser, tmp_path):
    import httpx

    from training.web.app import create_app
    from training.web.games import GameStore

    app = create_app(store=GameStore(seed=7), records_dir=None)
    with opened_page(browser, app, accept_downloads=True) as (page, errors, url):
        page.select_option("#players", "3")
        page.select_option("#seat", "0")
        page.select_option("#opponent-0", "ppo-3p")
        page.select_option("#opponent-1", "heuristic")
        page.click("#start")
        page.wait_for_selector("#game:not([hidden])")
        played_as = ["player_0 (you)", "player_1 (ppo-3p)", "player_2 (heuristic)"]
        assert seat_names(page, "#table") == played_as

        clicks = 0
        while page.get_attribute("#game", "data-over") != "true":
            move = page.get_attribute("#game", "data-move")
            page.wait_for_selector("#take:enabled")
            cost = int(page.inner_text("#take-cost").split("by ")[1].split()[0])
            button = "#pass" if page.is_enabled("#pass") and cost > 6 else "#take"
            page.click(button)
            clicks += 1
            page.wait_for_function("m => document.getElementById('game').dataset.move !== m", arg=move)
            if clicks == 8:
                page.screenshot(path=tmp_path / "serve-midgame.png", full_page=True)
            assert clicks < 400, "the game did not end"
        page.screenshot(path=tmp_path / "serve-final.png", full_page=True)
        print(f"screenshots: {tmp_path / 'serve-midgame.png'}, {tmp_path / 'serve-final.png'}")

        assert page.is_hidden("#error"), page.inner_text("#error")
        assert page.is_visible("#final")
        # a one-deal game: its deal is over, as the terminal says (it said "deal 1/1 · match over")
        assert page.inner_text("#status").startswith("deal 1/1 over") and "match" not in page.inner_text("#status")
        game_id = page.get_attribute("#game", "data-game-id")
        record = GameRecord.from_dict(httpx.get(f"{url}api/games/{game_id}/record").json())
        assert record.agents == ("human", "ppo-3p", "heuristic")
        penalties = list(replay(record).final_penalties())
        shown = [int(page.inner_text(f"#results tr[data-seat='{i}'] .penalty")) for i in range(3)]
        assert shown == penalties == list(record.penalties)
        winners = [i for i, p in enumerate(penalties) if p == min(penalties)]
        assert [
            i for i in range(3) if "winner" in (page.get_attribute(f"#results tr[data-seat='{i}']", "class") or "")
        ] == winners
        human_moves = sum(1 for h in replay(record).history if h.seat == 0)
        assert human_moves == clicks

        with page.expect_download() as download:
            page.click("#download")
        saved = tmp_path / "downloaded.json"
        download.value.save_as(saved)
        assert json.loads(saved.read_text()) == record.to_dict()

        page.click(".tab[data-tab=watch]")
        page.set_input_files("#upload", str(saved))
        page.wait_for_selector("#watch:not([hidden])")
        assert page.inner_text("#step-label") == f"step 0/{len(record.actions)}"
        # the human's seat is named as it was during the game: the record's agent label "human" is not shown (it
        # was "player_0 (human)")
        assert seat_names(page, "#watch-table") == played_as
        page.click("#next")
        page.wait_for_function("() => document.getElementById('step-label').textContent.startsWith('step 1/')")
        assert "removed face down: " + " ".join(map(str, record.deals[0].removed_hidden)) in page.inner_text(
            "#watch-hidden"
        )
        page.click("#last")
        page.wait_for_function(
            "n => document.getElementById('step-label').textContent === `step ${n}/${n}`", arg=len(record.actions)
        )
        assert f"penalties {', '.join(map(str, penalties))}" in page.inner_text("#watch-status")
        assert page.inner_text("#watch-status").startswith("deal 1/1 over")
        assert not errors, errors
        page.close()


def test_play_wildcards_by_clicking_bids_drops_and_choices(browser, tmp_path):
    import httpx

    from training.web.app import create_app
    from training.web.games import GameStore

    app = create_app(store=GameStore(seed=1), records_dir=None)
    with opened_page(browser, app) as (page, errors, url):
        page.select_option("#preset", "wildcards")
        page.select_option("#seat", "0")
        offered = page.eval_on_selector_all("#opponent-0 option", "os => os.map(o => o.value)")
        assert "heuristic" in offered and "random" in offered and "threshold" not in offered and "ppo-3p" not in offered
        page.select_option("#opponent-0", "heuristic")
        page.select_option("#opponent-1", "random")
        page.click("#start")
        page.wait_for_selector("#game:not([hidden])")

        clicks, auctions, refused = 0, [], False
        while page.get_attribute("#game", "data-over") != "true":
            move = page.get_attribute("#game", "data-move")
            if page.is_visible("#auction-actions"):
                auctions.append(page.inner_text("#auction-status"))
                if not refused:  # a bid the rules forbid is refused on the page, nothing is sent
                    page.fill("#bid-amount", "99")
                    page.click("#bid")
                    assert "bid 99: expected" in page.inner_text("#error")
                    assert page.get_attribute("#game", "data-move") == move
                    refused = True
                if page.is_enabled("#drop"):
                    page.click("#drop")
                else:  # the opener bids the least it may
                    page.fill("#bid-amount", page.get_attribute("#bid-amount", "min"))
                    page.click("#bid")
            elif page.is_visible("#choice-actions"):
                page.click("#choose")
            else:
                page.wait_for_selector("#take:enabled")
                cost = int(page.inner_text("#take-cost").split("by ")[1].split()[0])
                page.click("#pass" if page.is_enabled("#pass") and cost > 6 else "#take")
            clicks += 1
            page.wait_for_function("m => document.getElementById('game').dataset.move !== m", arg=move)
            assert clicks < 400, "the game did not end"
        page.screenshot(path=tmp_path / "serve-wildcards.png", full_page=True)

        assert refused and any(a.startswith("auction for the") for a in auctions), auctions
        assert page.is_hidden("#error"), page.inner_text("#error")
        game_id = page.get_attribute("#game", "data-game-id")
        record = GameRecord.from_dict(httpx.get(f"{url}api/games/{game_id}/record").json())
        assert record.config.special_cards == ("wild", "delete")
        penalties = list(replay(record).final_penalties())
        shown = [int(page.inner_text(f"#results tr[data-seat='{i}'] .penalty")) for i in range(3)]
        assert shown == penalties == list(record.penalties)
        assert sum(1 for h in replay(record).history if h.seat == 0) == clicks
        assert not errors, errors
        page.close()


@pytest.mark.parametrize(
    ("agents", "expected"),
    [
        (None, ["player_0", "player_1", "player_2"]),  # a record without agents: /api/replay labels seats player_i
        # the env's records name a seat by itself
        (["player_0", "heuristic", "human"], ["player_0", "player_1 (heuristic)", "player_2 (you)"]),
    ],
)
def test_the_replay_names_seats_as_the_terminal_replay_does(browser, tmp_path, agents, expected):
    # a record without agents showed "player_0 (player_0)": the page showed the label /api/replay fills in for a
    # seat without one, where python -m training.replay drops a label that is the seat's own name
    from nothanks_env.game import Game, GameConfig
    from nothanks_env.records import record_from_game
    from training.people.tui import seat_names as terminal_names
    from training.web.app import create_app
    from training.web.games import GameStore

    game = Game(GameConfig(num_players=3))
    game.reset(seed=0)
    game.step(1)  # a take, then a pass: a replay with moves in it
    game.step(0)
    saved = tmp_path / "record.json"
    saved.write_text(json.dumps(record_from_game(game, seed=0, agents=agents).to_dict()))
    assert terminal_names(3, agents) == expected

    app = create_app(store=GameStore(seed=0), records_dir=None)
    with opened_page(browser, app) as (page, errors, url):
        page.click(".tab[data-tab=watch]")
        page.set_input_files("#upload", str(saved))
        page.wait_for_selector("#watch:not([hidden])")
        assert seat_names(page, "#watch-table") == expected
        page.click("#last")
        page.wait_for_function("() => document.getElementById('step-label').textContent === 'step 2/2'")
        assert seat_names(page, "#watch-table") == expected
        assert not errors, errors
        page.close()

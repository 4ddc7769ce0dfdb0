"""Live games of the web server: one human seat against policies, held in memory under unguessable ids.

The server holds the whole state (:class:`Session`); the browser gets only :mod:`training.web.views` of
it. :class:`GameStore` bounds the number of live games: a game idle for longer than ``idle_seconds``
expires, and when the store is still full a new game is refused (:class:`StoreFull`, HTTP 503) rather than
an older game being dropped. Every method is thread-safe: the app steps games in worker threads, so a slow
policy never blocks the event loop, and each game has its own lock, so two requests for one game are
applied one after the other (the second then sees that its ``move`` is stale).

An offered policy that raises, or returns an action the rules refuse (``1.9`` too: no fraction is cut off), is
a :class:`PolicyFailed` (HTTP 500) naming its spec and seat, never a silent substitute move: the human's move
it failed to answer is undone, its policies put back with it (:meth:`Session.rewind`: they remember nothing
of the undone move); a new game whose opening moves fail is not kept.

Which policies can be seated is fixed when the server starts (:class:`PolicyCatalog`): the scripted
baselines, the shipped agents and the specs given on the command line. A request names one of those specs;
it cannot load a file or import a module of its choosing.
"""

from __future__ import annotations

import inspect
import random
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from nothanks_env.baselines import BASELINES
from nothanks_env.game import Deal, Game, GameConfig, HistoryEntry, IllegalActionError, describe_action
from nothanks_env.policy import Policy, act_one, special_cards_only, supported_player_counts
from nothanks_env.records import GameRecord, record_from_game
from nothanks_env.specs import other_sizes_hint, shipped_networks_hint
from training.people.play import default_seat
from training.people.tui import HUMAN
from training.specs import load_policy

DEFAULT_MAX_GAMES: int = 64
DEFAULT_IDLE_SECONDS: float = 30 * 60.0

BASELINE_SPECS: tuple[str, ...] = tuple(name for name in BASELINES if name != "always-take")
"""Baselines offered by default, each at its default parameters: every scripted baseline but ``always-take``
(a rigged opponent for tests)."""


class WebError(Exception):
    """A request the server refuses. ``status`` is the HTTP status; the message says what was expected and got."""

    status: int = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class GameNotFound(WebError):
    """No live game has this id (never created, or expired)."""

    status = 404


class StoreFull(WebError):
    """The server holds its maximum of live games."""

    status = 503


class Conflict(WebError):
    """The request does not fit the game's state: a stale move, an illegal action, a finished or running game."""

    status = 409


class PolicyFailed(WebError):
    """An offered policy failed: it raised, or returned an action the rules refuse. The server's fault, not the
    request's (HTTP 500); the original exception is the ``__cause__``."""

    status = 500


MAX_FAILURE_CHARS: int = 300
"""A failing policy's own message is cut to this length in the error sent back."""


def policy_failure(where: str, expected: str, error: BaseException) -> PolicyFailed:
    """The error for an offered policy that failed: ``"{where}: expected {expected}, got {Type}: {message}"``."""
    detail = f"{type(error).__name__}: {error}"
    if len(detail) > MAX_FAILURE_CHARS:
        detail = detail[: MAX_FAILURE_CHARS - 3] + "..."
    return PolicyFailed(f"{where}: expected {expected}, got {detail}")


def doc_summary(obj: object) -> str:
    """The first paragraph of ``obj``'s docstring on one line, as plain text: whole sentences, never cut at the
    end of a source line (a summary often runs over two); Sphinx markup (``:mod:`x```, double backquotes)
    becomes its text. Empty without a docstring."""
    first = inspect.cleandoc(getattr(obj, "__doc__", None) or "").split("\n\n")[0]
    text = " ".join(first.split())
    text = re.sub(r":[a-z]+:`~?\.?([^`]+)`", r"\1", text)  # :mod:`.heuristic` -> heuristic
    return text.replace("``", "")


@dataclass(frozen=True)
class PolicyInfo:
    """One policy that can be seated: ``spec`` as accepted by :func:`training.specs.load_policy`."""

    spec: str
    kind: str  # "baseline", "agent" or "custom"
    description: str
    num_players: int | None  # the only table size it plays, or None for any
    plays_special_cards: bool = False  # plays the wildcards variant (bids, drops, choices)
    special_only: bool = False  # plays only the wildcards variant (a network trained on it: 125 actions)
    player_counts: list[int] | None = None  # the table sizes it plays (ppo-mixed: 3, 4, 5), or None for any


class PolicyCatalog:
    """The policy specs a request may name, checked once by loading each.

    Args:
        extra: more specs offered (from ``python -m training.serve --opponents``); any spec that
            :func:`training.specs.load_policy` accepts, checkpoint paths and ``module:attr`` included.
        shipped: shipped agents to offer; default every entry of ``training.checkpoints.SHIPPED``.

    Raises:
        ValueError: if an extra spec does not load (the message names it).
    """

    def __init__(self, extra: Sequence[str] = (), shipped: Sequence[str] | None = None) -> None:
        if shipped is None:
            from training.checkpoints import SHIPPED

            shipped = list(SHIPPED)
        self.policies: dict[str, PolicyInfo] = {}
        for spec in BASELINE_SPECS:
            summary = doc_summary(BASELINES[spec])
            special = bool(getattr(BASELINES[spec], "plays_special_cards", False))
            self.policies[spec] = PolicyInfo(spec, "baseline", summary, None, special)
        for spec in shipped:
            self._add(spec, "agent", "A shipped agent; how it was made and measured is in checkpoints/README.md.")
        for spec in extra:
            if spec not in self.policies:
                self._add(spec, "custom", "offered by this server's --opponents")

    def _add(self, spec: str, kind: str, description: str) -> None:
        policy = load_policy(spec)
        counts = supported_player_counts(policy)  # a checkpoint's, or a search's over one
        special = bool(getattr(policy, "plays_special_cards", False))
        only = special_cards_only(policy)
        one = counts[0] if counts is not None and len(counts) == 1 else None
        self.policies[spec] = PolicyInfo(
            spec, kind, description, one, special, only, None if counts is None else list(counts)
        )

    def load(self, spec: str, num_players: int, seed: int | None, where: str, special: bool = False) -> Policy:
        """A fresh policy for one seat of one game (``special``: of a config with special cards).

        Raises:
            WebError: (422) naming ``where`` if ``spec`` is not offered, cannot play ``num_players`` seats, or
                plays only pass/take at a table with special cards, or only special cards at a standard one. As on
                the command lines, a refusal for the size says the variant too when that does not fit either, and
                names the shipped networks that play the table (:func:`nothanks_env.specs.other_sizes_hint`, for a
                shipped name), as does a refusal at a standard table (:func:`nothanks_env.specs.shipped_networks_hint`).
            PolicyFailed: (500) naming ``where`` if an offered spec no longer loads.
        """
        info = self.policies.get(spec)
        if info is None:
            raise WebError(f"{where}: expected one of {list(self.policies)}, got {spec!r}", 422)
        if info.player_counts is not None and num_players not in info.player_counts:
            *rest, last = map(str, info.player_counts)
            sizes = f"{', '.join(rest)} or {last}" if rest else last
            # a table it cannot play for its variant too says so (as the command lines' load_policy), and the
            # shipped networks that play the table end the line, as they end the command lines' refusal
            plays, got = f"{sizes} players only", f"a {num_players}-player table"
            if special and not info.plays_special_cards:
                plays, got = f"{plays} and only pass/take", f"{got} with special cards"
            elif not special and info.special_only:
                plays, got = f"{plays} and only special cards", f"a standard {num_players}-player table"
            hint = other_sizes_hint(spec, num_players, special_cards=special)
            raise WebError(f"{where}: {spec!r} plays {plays}, got {got}{hint}", 422)
        if special and not info.plays_special_cards:
            raise WebError(
                f"{where}: expected a policy that plays special cards (one with plays_special_cards in /api/policies),"
                f" got {spec!r}, which plays only pass/take",
                422,
            )
        if not special and info.special_only:
            raise WebError(
                f"{where}: expected a policy that plays pass/take (a standard table), got {spec!r}, which plays "
                "only the wildcards variant (choose preset 'wildcards')"
                + shipped_networks_hint(num_players, special_cards=False),
                422,
            )
        try:
            return load_policy(spec, num_players=num_players, seed=seed)
        except Exception as e:  # it loaded when the server started: a file since removed, a user module's own bug
            raise policy_failure(where, f"{spec!r} to load as it did when the server started", e) from e


def step_policy(policy: Policy, game: Game, where: str, spec: str) -> None:
    """Apply ``policy``'s action for the seat to act (``spec`` in ``where`` of the request).

    Raises:
        PolicyFailed: if the policy raises or returns an action the rules refuse; the game is then unchanged.
    """
    try:
        game.step(act_one(policy, game))
    except Exception as e:  # any exception: an offered policy may be a user's module:attr
        expected = f"{spec!r} (seat {game.current_seat}) to return a legal action at move {len(game.history)}"
        raise policy_failure(where, expected, e) from e


def reset_policies(policies: dict[int, Policy], specs: Sequence[str], where: Callable[[int], str]) -> None:
    """Call ``reset()`` on every policy that has one (``specs[seat]`` names the policy of ``seat`` in ``where(seat)``).

    Raises:
        PolicyFailed: if a reset raises.
    """
    for i, p in policies.items():
        if callable(getattr(p, "reset", None)):
            try:
                p.reset()
            except Exception as e:
                raise policy_failure(where(i), f"{specs[i]!r} (seat {i}) to reset for a new game", e) from e


def load_opponents(
    config: GameConfig, specs: Sequence[str], seat: int, catalog: PolicyCatalog, seed: int
) -> dict[int, Policy]:
    """Fresh policies for every seat but the human's ``seat``, reset for a new game: ``specs[i]`` in seat ``i``,
    seeded ``seed + 1 + i`` and named in errors ``opponents[k]`` (the request's field), as a new game seats them.

    Raises:
        WebError: (422) for a spec that is not offered or cannot play this table (:meth:`PolicyCatalog.load`).
        PolicyFailed: (500) if a policy fails to load or to reset.
    """
    n = config.num_players
    special = bool(config.special_cards)

    def where(i: int) -> str:
        return f"opponents[{i - (i > seat)}]"

    policies = {i: catalog.load(specs[i], n, seed + 1 + i, where(i), special) for i in range(n) if i != seat}
    reset_policies(policies, specs, where)
    return policies


def action_ids(config: GameConfig) -> dict[str, int]:
    """Action name -> id for ``config`` (names as :func:`nothanks_env.game.describe_action` gives them)."""
    return {describe_action(config, a): a for a in range(config.num_actions)}


@dataclass
class Session:
    """One live game: the engine, the human's seat and a policy for every other seat.

    Attributes:
        id: unguessable id (``secrets.token_urlsafe``), the only key to the game.
        game: the engine, after reset.
        seat: the human's seat.
        policies: seat -> policy, for every seat but ``seat``.
        labels: a label by seat: ``"you"`` or the policy spec.
        specs: the policy spec by seat (``"human"`` for the human), kept in the record.
        seed: the game's seed (never sent before the end; it is in the record).
        catalog: where the policies came from; :meth:`rewind` loads them again from it.
        perfect_memory: show opponents' chips as counted from public chip movements.
        deals: the fixed deals the game was reset with (tests; the others are shuffled from ``seed``).
        stopped: why the game cannot go on (its policies could not be put back by :meth:`rewind`), or None.
        last_active: store clock reading of the latest request.
        lock: serializes requests on this game.
    """

    id: str
    game: Game
    seat: int
    policies: dict[int, Policy]
    labels: list[str]
    specs: list[str]
    seed: int
    catalog: PolicyCatalog
    perfect_memory: bool = False
    deals: tuple[Deal, ...] = ()
    stopped: str | None = None
    last_active: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def opponent_field(self, seat: int) -> str:
        """Where the policy of ``seat`` was named in the request: ``"opponents[k]"`` (the human's seat is skipped)."""
        return f"opponents[{seat - (seat > self.seat)}]"

    def play_opponents(self) -> list[HistoryEntry]:
        """Step the policies until it is the human's turn or the match is over; returns their decisions.

        Raises:
            PolicyFailed: if a policy raises or returns an illegal action (it is not replaced by a legal one);
                the decisions before it stay applied (:meth:`act` undoes them, a new game is dropped).
        """
        start = len(self.game.history)
        while not self.game.is_over and self.game.current_seat != self.seat:
            seat = self.game.current_seat
            step_policy(self.policies[seat], self.game, self.opponent_field(seat), self.specs[seat])
        return self.game.history[start:]

    def rewind(self, moves: int) -> None:
        """Put the game and its policies back as they were after the game's first ``moves`` decisions.

        The game is replayed from its seed and fixed deals, so the deals still to come are those of a game that
        never went further (the engine draws them from one seeded RNG as each deal starts). The policies are
        loaded again (same specs, same seeds), reset, and asked again for each of their decisions on the same
        views, so what they keep between decisions (an RNG, a memory of the game) is what policies that never
        saw the undone moves keep.

        Raises:
            PolicyFailed: if a policy fails to load, to reset or to decide again, or decides other than it did.
                The game is put back all the same, but its policies cannot be: the session is :attr:`stopped`
                and :meth:`act` refuses further actions.
        """
        history = self.game.history[:moves]
        game = Game(self.game.config)
        game.reset(seed=self.seed, deals=self.deals or None)
        failure: PolicyFailed | None = None
        policies: dict[int, Policy] = {}
        try:
            policies = load_opponents(game.config, self.specs, self.seat, self.catalog, self.seed)
        except PolicyFailed as e:
            failure = e
        except WebError as e:  # it was seated when the game started: a 422 now is the server's fault too
            failure = PolicyFailed(str(e))
            failure.__cause__ = e
        for entry in history:
            if failure is None and game.current_seat != self.seat:
                try:
                    self._decide_again(policies, game, entry.action)
                except PolicyFailed as e:
                    failure = e
            game.step(entry.action)
        self.game = game
        if failure is not None:
            self.stopped = str(failure)
            raise failure
        self.policies = policies

    def _decide_again(self, policies: dict[int, Policy], game: Game, recorded: int) -> None:
        """Ask the policy of the seat to act in ``game`` for the decision it took there before (``recorded``).

        Raises:
            PolicyFailed: if it raises, or decides otherwise (it is not reproducible from its seed).
        """
        seat, move = game.current_seat, len(game.history)
        where, spec = self.opponent_field(seat), self.specs[seat]
        try:
            again = act_one(policies[seat], game)
        except Exception as e:  # any exception: an offered policy may be a user's module:attr
            raise policy_failure(where, f"{spec!r} (seat {seat}) to decide move {move} again", e) from e
        if again != recorded:
            config = game.config
            raise PolicyFailed(
                f"{where}: expected {spec!r} (seat {seat}) to decide move {move} again as it did "
                f"({describe_action(config, recorded)!r}, from the same seed and views), got "
                f"{describe_action(config, again)!r}"
            )

    def act(self, action: str, move: int) -> list[HistoryEntry]:
        """Apply the human's ``action`` if ``move`` is the current move, then the policies'.

        ``action`` is named as :func:`nothanks_env.game.describe_action` names it: ``"pass"``, ``"take"``,
        and with special cards ``"bid N"``, ``"drop"``, ``"value N"``, ``"delete N"``.

        Returns:
            Every decision this applied, the human's first.

        Raises:
            Conflict: for a finished or :attr:`stopped` game, a stale ``move`` or an illegal action; the game is
                left unchanged.
            WebError: (422) for an action name that is no action of this variant.
            PolicyFailed: if a policy fails in reply; the human's action and the replies before it are undone,
                so the game and its policies are as they were before the request (:meth:`rewind`; when the
                policies cannot be put back, the message says so and the game is :attr:`stopped`).
        """
        game = self.game
        if self.stopped is not None:
            raise Conflict(
                f"action: expected a game that can go on, got one stopped at move {len(game.history)} because its "
                f"opponents could not be put back after an undone move ({self.stopped}); start a new game"
            )
        if game.is_over:
            raise Conflict(f"action: expected a running game, got one that is over after {len(game.history)} moves")
        if move != len(game.history):
            raise Conflict(f"move: expected {len(game.history)} (the game's current move), got {move}: reload the game")
        if game.current_seat != self.seat:  # play_opponents always hands the turn back; kept as a guard
            raise Conflict(f"action: expected seat {game.current_seat} to act, got an action for seat {self.seat}")
        ids = action_ids(game.config)
        if action not in ids:
            shown = "one of 'pass', 'take', 'bid N', 'drop', 'value N', 'delete N'" if game.config.special_cards else (
                "'pass' or 'take'")  # fmt: skip
            raise WebError(f"action: expected {shown}, got {action[:40]!r}", 422)
        start = len(game.history)
        try:
            game.step(ids[action])
        except IllegalActionError as e:
            raise Conflict(f"action {action!r}: {e}") from e
        try:
            self.play_opponents()
        except PolicyFailed as e:
            undone = f"{e}; your action {action!r} was undone: the game is back at move {start}"
            try:
                self.rewind(start)
            except PolicyFailed as r:
                stopped = f"{undone}, but its opponents could not be put back with it ({r}): start a new game"
                raise PolicyFailed(stopped) from e.__cause__
            raise PolicyFailed(undone) from e.__cause__
        return game.history[start:]

    def record(self) -> GameRecord:
        """The finished game's record (:mod:`nothanks_env.records`).

        Raises:
            Conflict: while the game is running (the record holds the hidden cards).
        """
        if not self.game.is_over:
            raise Conflict(
                f"record: expected a finished game, got one running at move {len(self.game.history)} "
                f"(deal {self.game.deal_index + 1} of {self.game.config.num_deals})"
            )
        return record_from_game(self.game, seed=self.seed, agents=self.specs)


def new_session(
    config: GameConfig,
    opponents: Sequence[str],
    catalog: PolicyCatalog,
    *,
    seed: int,
    seat: int | None = None,
    perfect_memory: bool = False,
    deals: Sequence[Deal] | None = None,
) -> Session:
    """Set up a game: seat the human (from the seed unless given), load the policies, deal.

    The policies do not move yet: call :meth:`Session.play_opponents`. Seeds follow ``training.play``:
    the human's seat from :func:`training.play.default_seat`, the policy in seat ``i`` seeded ``seed + 1 + i``.

    Args:
        config: the rules.
        opponents: one offered policy spec per other seat, in seat order.
        catalog: the offered policies.
        seed: seeds the deals, the seat and the policies.
        seat: the human's seat, or None to draw it from the seed.
        perfect_memory: see :class:`Session`.
        deals: fixed deals (tests).

    Raises:
        WebError: (422) for a seat out of range, the wrong number of opponents or a spec not offered.
        PolicyFailed: (500) if an offered policy fails to load or to reset.
    """
    n = config.num_players
    if seat is None:
        seat = default_seat(seed, n)
    if not 0 <= seat < n:
        raise WebError(f"seat: expected an int in 0..{n - 1} or null (drawn from the seed), got {seat}", 422)
    if len(opponents) != n - 1:
        raise WebError(f"opponents: expected {n - 1} policy specs for {n} players, got {len(opponents)}", 422)
    others = [i for i in range(n) if i != seat]
    specs = [HUMAN] * n
    labels = ["you"] * n
    for i, spec in zip(others, opponents):
        specs[i] = labels[i] = spec
    policies = load_opponents(config, specs, seat, catalog, seed)
    game = Game(config)
    game.reset(seed=seed, deals=deals)
    fixed = tuple(deals or ())
    return Session(secrets.token_urlsafe(18), game, seat, policies, labels, specs, seed, catalog, perfect_memory, fixed)


def play_match(config: GameConfig, specs: Sequence[str], catalog: PolicyCatalog, *, seed: int) -> GameRecord:
    """Play a whole game between offered policies (one spec per seat) and return its record.

    Raises:
        WebError: (422) for the wrong number of specs or a spec not offered.
        PolicyFailed: (500) if a policy fails to load or reset, raises, or returns an illegal action.
    """
    n = config.num_players
    if len(specs) != n:
        raise WebError(f"policies: expected {n} policy specs for {n} players, got {len(specs)}", 422)
    special = bool(config.special_cards)
    policies = {i: catalog.load(spec, n, seed + 1 + i, f"policies[{i}]", special) for i, spec in enumerate(specs)}
    reset_policies(policies, specs, lambda i: f"policies[{i}]")
    game = Game(config)
    game.reset(seed=seed)
    while not game.is_over:
        seat = game.current_seat
        step_policy(policies[seat], game, f"policies[{seat}]", specs[seat])
    return record_from_game(game, seed=seed, agents=list(specs))


class GameStore:
    """Live games by id, at most ``max_games`` of them; games idle for ``idle_seconds`` expire.

    Args:
        max_games: the most live games; a new game beyond it is refused with :class:`StoreFull`.
        idle_seconds: a game with no request for this long is dropped (checked on every request).
        clock: seconds, monotonic (tests pass a fake clock).
        seed: seeds the games' seeds (reproducible servers); None draws each from the OS.

    Raises:
        ValueError: for ``max_games < 1`` or ``idle_seconds <= 0``.
    """

    def __init__(
        self,
        max_games: int = DEFAULT_MAX_GAMES,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        seed: int | None = None,
    ) -> None:
        if max_games < 1:
            raise ValueError(f"max_games: expected an int >= 1, got {max_games}")
        if idle_seconds <= 0:
            raise ValueError(f"idle_seconds: expected seconds > 0, got {idle_seconds}")
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._seeds = random.Random(seed) if seed is not None else random.SystemRandom()
        self._games: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def next_seed(self) -> int:
        """A seed for the next game, 0..2**31-1."""
        with self._lock:
            return self._seeds.randrange(2**31)

    def _expire(self, now: float) -> None:
        dead = [k for k, s in self._games.items() if now - s.last_active > self.idle_seconds]
        for k in dead:
            del self._games[k]

    def add(self, session: Session) -> None:
        """Hold ``session`` under its id.

        Raises:
            StoreFull: when ``max_games`` games are live after the idle ones expired.
        """
        with self._lock:
            now = self.clock()
            self._expire(now)
            if len(self._games) >= self.max_games:
                raise StoreFull(
                    f"games: expected fewer than {self.max_games} live games (the server's limit), got "
                    f"{len(self._games)}; try again once idle games expire (after {self.idle_seconds:g} s idle)"
                )
            session.last_active = now
            self._games[session.id] = session

    def remove(self, game_id: str) -> None:
        """Drop the game ``game_id`` if it is live (a game whose creation failed after :meth:`add`)."""
        with self._lock:
            self._games.pop(game_id, None)

    def get(self, game_id: str) -> Session:
        """The live game ``game_id``, marked active now.

        Raises:
            GameNotFound: for an unknown or expired id.
        """
        with self._lock:
            now = self.clock()
            self._expire(now)
            session = self._games.get(game_id)
            if session is None:
                raise GameNotFound(
                    f"game: expected the id of a live game, got {game_id[:40]!r} "
                    f"(unknown, or expired after {self.idle_seconds:g} s idle)"
                )
            session.last_active = now
            return session

"""The FastAPI app: a JSON API over :mod:`training.web.games` and the page in ``static/``.

Routes (OpenAPI at ``/docs``, served from the ``fastapi-offline`` package, so it works without internet):

==========================================  ====================================================================
``GET  /api/policies``                      the specs that can be seated (baselines, shipped agents, extras)
``GET  /api/presets``                       the rule variants
``POST /api/games``                         new game: players, preset, seat, opponents -> id, view, moves
``GET  /api/games/{id}``                    the human seat's view
``POST /api/games/{id}/actions``            ``{"action": "pass"|"take", "move": N}`` -> moves applied, view
``GET  /api/games/{id}/record``             the game record, once the game is over
``POST /api/replay``                        a record, a step and a seat (or the full view) -> that step
``GET  /api/records``, ``/api/records/X``   the saved records in the server's records folder
``POST /api/matches``                       a whole game between policies -> its record
==========================================  ====================================================================

Errors are JSON ``{"error": "what: expected X, got Y"}`` (validation errors add ``"errors"``, one line per
problem): 404 unknown game, 409 a request that does not fit the game's state (stale move, illegal action,
finished or running game, or one stopped because its opponents could not be put back after a failure), 413 a
body over the limit, 422 a malformed body (JSON nested too deep to parse, or not UTF-8, too; a value of the
wrong JSON type too: ``true`` or ``3.0`` for an int, ``"yes"`` for a boolean, ``"0"`` for a move are refused,
not converted; a record with a field the record format does not have), 500 an offered policy that failed (it
raised or returned an illegal action, ``1.9`` included; the error names its spec and what it raised, the server
log has the traceback), 503 the server is full. A refused or failed request leaves the game unchanged: a game
whose opening moves fail is not created, and a move whose replies fail is undone, the opponents' memory of it
too. Endpoints that step policies are plain ``def`` functions, which FastAPI runs in its worker threads, so a
slow policy does not block other requests.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS, GameConfig, RuleError, describe_action
from nothanks_env.presets import PRESETS, preset_problem, resolve_config
from nothanks_env.records import GameRecord, RecordError, replay
from training.people.replay import action_probabilities, game_at
from training.web.games import (
    GameStore,
    PolicyCatalog,
    PolicyFailed,
    Session,
    WebError,
    new_session,
    play_match,
    policy_failure,
)
from training.web.views import ActionName, GameView, Move, full_view, move_of, seat_view

STATIC_DIR: Path = Path(__file__).resolve().parent / "static"
DEFAULT_MAX_BODY_BYTES: int = 64 * 1024
"""Largest request body accepted (bytes): a record of a long 3-deal match is a few KB."""
DEFAULT_MAX_MATCHES: int = 2
"""Agent-vs-agent games computed at once; a whole game of search bots takes seconds of CPU."""
STRICT = ConfigDict(extra="forbid", strict=True)
"""Request bodies: no unknown fields, and no conversions between JSON types (pydantic's lax mode read ``true``
as seat 1, ``3.0`` as 3 players, ``"yes"`` as true and ``"0"`` as move 0), as the config files refuse them
(training.learning.config)."""

log = logging.getLogger(__name__)


class NewGame(BaseModel):
    """Body of ``POST /api/games``."""

    model_config = STRICT
    players: int | None = Field(
        None, ge=MIN_PLAYERS, le=MAX_PLAYERS, description="seats; default the preset's count, else 3"
    )
    preset: str = Field("standard", description="a rule variant from /api/presets")
    seat: int | None = Field(None, description="your seat, 0..players-1; default drawn from the game's seed")
    opponents: list[str] = Field(description="one policy spec from /api/policies per other seat, in seat order")
    perfect_memory: bool = Field(False, description="show opponents' hidden chips as counted from public moves")


class GameCreated(BaseModel):
    """Response of ``POST /api/games``."""

    id: str = Field(description="the game's unguessable id; keep it secret, it is the only key to the game")
    moves: list[Move] = Field(description="decisions the opponents took before your first turn")
    view: GameView


class ActionRequest(BaseModel):
    """Body of ``POST /api/games/{id}/actions``."""

    model_config = STRICT
    action: ActionName = Field(
        description="'pass' (No thanks!: one chip on the card) or 'take'; with special cards also 'bid N' (chips), "
        "'drop', 'value N' (the wild's value), 'delete N' (the card to discard): one of the view's legal_actions"
    )
    move: int = Field(description="the view's 'move' this action answers; a stale one is refused (409)")


class ActionResult(BaseModel):
    """Response of ``POST /api/games/{id}/actions``."""

    moves: list[Move] = Field(description="every decision this request applied: yours, then the opponents'")
    view: GameView


class PolicyEntry(BaseModel):
    """One policy that can be seated."""

    spec: str
    kind: str = Field(description="'baseline', 'agent' (shipped checkpoint) or 'custom' (server's --opponents)")
    description: str
    num_players: int | None = Field(description="the only table size it plays; null for any")
    plays_special_cards: bool = Field(False, description="it plays the wildcards variant (auctions and choices)")
    special_only: bool = Field(False, description="it plays only the wildcards variant (a network trained on it)")
    player_counts: list[int] | None = Field(None, description="the table sizes it plays; null for any")


class PresetEntry(BaseModel):
    """One rule variant."""

    name: str
    settings: dict[str, Any] = Field(description="the GameConfig fields it sets")
    num_players: int = Field(description="its default player count")


class ReplayRequest(BaseModel):
    """Body of ``POST /api/replay``."""

    model_config = STRICT
    record: dict[str, Any] = Field(description="a game record (nothanks_env.records format, no other fields)")
    step: int = Field(0, ge=0, description="the table after this many recorded actions")
    seat: int | None = Field(None, description="whose view; null for the full view (hidden cards shown)")
    policy: str | None = Field(None, description="a spec from /api/policies: its P(pass), P(take) for the seat to act")


class ReplayStep(BaseModel):
    """Response of ``POST /api/replay``."""

    step: int
    total: int = Field(description="recorded actions; steps run 0..total")
    last_move: Move | None = Field(description="the decision that led to this step")
    recorded_action: ActionName | None = Field(description="what the seat to act did next in the record")
    probabilities: tuple[float, float] | None = Field(description="the policy's [P(pass), P(take)]")
    probability_source: str | None
    labels: list[str]
    view: GameView


class MatchRequest(BaseModel):
    """Body of ``POST /api/matches``."""

    model_config = STRICT
    players: int | None = Field(None, ge=MIN_PLAYERS, le=MAX_PLAYERS, description="default the preset's, else 3")
    preset: str = "standard"
    policies: list[str] = Field(description="one policy spec from /api/policies per seat")
    seed: int | None = Field(None, ge=0, description="default drawn by the server")


def _preset_config(preset: str, players: int | None) -> GameConfig:
    problem = preset_problem(preset)
    if problem is not None:
        raise WebError(f"preset: {problem}", 422)
    try:
        config = resolve_config(num_players=players, preset=preset)
    except RuleError as e:
        raise WebError(str(e), 422) from e
    return config


def _parse_record(data: dict[str, Any]) -> GameRecord:
    """A request's record, parsed (:meth:`GameRecord.from_dict` refuses fields the format does not have) and
    replayed to its recorded result.

    Raises:
        WebError: (422) ``"record: <what was wrong>"``.
    """
    try:
        record = GameRecord.from_dict(data)
        replay(record)  # it replays to its recorded result
    except RecordError as e:
        raise WebError(f"record: {e.detail}", 422) from e
    return record


def _describe_validation_error(err: dict[str, Any]) -> str:
    where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
    got = json.dumps(err.get("input"), default=str)
    if len(got) > 80:
        got = got[:77] + "..."
    kind = err.get("type")
    if kind == "missing":
        return f"{where}: expected a value (required), got none"
    if kind == "extra_forbidden":
        return f"{where}: expected no such field, got {got}"
    if kind == "json_invalid":
        return f"body: expected valid JSON, got a parse error ({err.get('ctx', {}).get('error', 'invalid')})"
    msg = str(err.get("msg", "invalid"))
    if msg.startswith("Input should be "):
        msg = "expected " + msg[len("Input should be ") :]
    return f"{where}: {msg}, got {got}"


def _describe_body_failure(cause: Exception) -> str:
    """What was wrong with a request body FastAPI could not read as JSON other than by a syntax error (which is a
    ``json_invalid`` validation error): it answers those with a bare 400 ``"There was an error parsing the body"``,
    raised from ``cause``; the app answers 422 with this line instead, as for any malformed body."""
    if isinstance(cause, RecursionError):  # {"a": {"a": ...}} a thousand levels deep
        return f"body: expected a JSON body a few levels deep, got JSON nested too deep to parse ({cause})"
    if isinstance(cause, UnicodeDecodeError):
        return f"body: expected JSON text in UTF-8, got bytes that are not UTF-8 ({cause})"
    return f"body: expected valid JSON, got a parse error ({type(cause).__name__}: {cause})"


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``max_bytes`` with 413, by Content-Length or as they stream."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self, got: str) -> str:
        return f"body: expected at most {self.max_bytes} bytes, got {got}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            response = JSONResponse({"error": self._message(f"Content-Length {length.decode()[:20]}")}, 413)
            await response(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:  # FastAPI re-raises HTTPException from body reading
                    raise StarletteHTTPException(413, self._message(f"more than {self.max_bytes} (streamed)"))
            return message

        await self.app(scope, limited, send)


def create_app(
    catalog: PolicyCatalog | None = None,
    store: GameStore | None = None,
    *,
    records_dir: Path | None = Path("games"),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_matches: int = DEFAULT_MAX_MATCHES,
) -> FastAPI:
    """Build the app.

    Args:
        catalog: the policies that can be seated; default the baselines and the shipped agents.
        store: where live games are held; default :class:`GameStore` with its default limits.
        records_dir: folder of saved records offered by ``/api/records`` (``training.play`` saves to
            ``games/``); None offers none.
        max_body_bytes: largest request body accepted.
        max_matches: agent-vs-agent games played at once; more are refused with 503.

    Returns:
        The app; ``app.state.store``, ``app.state.catalog`` and ``app.state.match_slots`` (a semaphore of
        ``max_matches``) hold the store, the catalog and the running matches.
    """
    catalog = PolicyCatalog() if catalog is None else catalog
    store = GameStore() if store is None else store  # an empty store is falsy (len 0): no `or` here
    app = FastAPIOffline(
        title="No Thanks!",
        summary="Play No Thanks! against agents, watch records and agent-vs-agent games.",
        version="0.1.0",
    )
    app.state.store = store
    app.state.catalog = catalog
    app.state.match_slots = match_slots = threading.BoundedSemaphore(max_matches)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError) -> JSONResponse:
        if isinstance(exc, PolicyFailed):  # the server's fault: its operator needs the policy's traceback
            log.error("%s %s: %s", request.method, request.url.path, exc, exc_info=exc.__cause__ or exc)
        headers = {"Retry-After": "60"} if exc.status == 503 else None
        return JSONResponse({"error": str(exc)}, exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [_describe_validation_error(e) for e in exc.errors()]
        return JSONResponse({"error": "; ".join(errors), "errors": errors}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and isinstance(exc.__cause__, Exception):  # FastAPI's "error parsing the body"
            errors = [_describe_body_failure(exc.__cause__)]
            return JSONResponse({"error": errors[0], "errors": errors}, 422)
        message = (
            exc.detail if exc.status_code != 404 else f"path: expected an API route or a page, got {request.url.path!r}"
        )
        return JSONResponse({"error": str(message)}, exc.status_code, headers=getattr(exc, "headers", None))

    def view_of(session: Session) -> GameView:
        return seat_view(session.game, session.seat, session.labels, perfect_memory=session.perfect_memory)

    @app.get("/api/policies", response_model=list[PolicyEntry], tags=["setup"])
    def list_policies() -> list[PolicyEntry]:
        """The policy specs that can be seated."""
        return [PolicyEntry(**vars(p)) for p in catalog.policies.values()]

    @app.get("/api/presets", response_model=list[PresetEntry], tags=["setup"])
    def list_presets() -> list[PresetEntry]:
        """The rule variants (nothanks_env.presets)."""
        out = []
        for name, settings in PRESETS.items():
            out.append(PresetEntry(name=name, settings=dict(settings), num_players=settings.get("num_players", 3)))
        return out

    @app.post("/api/games", response_model=GameCreated, status_code=201, tags=["play"])
    def create_game(body: NewGame) -> GameCreated:
        """Start a game: you take one seat, the opponents the others. Returns the id and your view."""
        config = _preset_config(body.preset, body.players)
        session = new_session(
            config,
            body.opponents,
            catalog,
            seed=store.next_seed(),
            seat=body.seat,
            perfect_memory=body.perfect_memory,
        )
        with session.lock:
            store.add(session)  # first: a full server refuses before any policy runs
            try:
                moves = session.play_opponents()
                config = session.game.config
                return GameCreated(id=session.id, moves=[move_of(m, config) for m in moves], view=view_of(session))
            except PolicyFailed as e:  # its id never reaches the client: it must not hold a place until it expires
                store.remove(session.id)
                raise PolicyFailed(f"{e}; the game was not created") from e.__cause__
            except BaseException:
                store.remove(session.id)
                raise

    @app.get("/api/games/{game_id}", response_model=GameView, tags=["play"])
    def get_game(game_id: str) -> GameView:
        """Your view of the game."""
        session = store.get(game_id)
        with session.lock:
            return view_of(session)

    @app.post("/api/games/{game_id}/actions", response_model=ActionResult, tags=["play"])
    def post_action(game_id: str, body: ActionRequest) -> ActionResult:
        """Your action; the opponents then move until your next turn or the end."""
        session = store.get(game_id)
        with session.lock:
            moves = session.act(body.action, body.move)
            return ActionResult(moves=[move_of(m, session.game.config) for m in moves], view=view_of(session))

    @app.get("/api/games/{game_id}/record", tags=["play"])
    def get_record(game_id: str) -> JSONResponse:
        """The game record (nothanks_env.records JSON), once the game is over."""
        session = store.get(game_id)
        with session.lock:
            return JSONResponse(session.record().to_dict())

    @app.post("/api/replay", response_model=ReplayStep, tags=["watch"])
    def replay_step(body: ReplayRequest) -> ReplayStep:
        """One step of a record, from one seat's view or the full view, with a policy's probabilities."""
        record = _parse_record(body.record)
        total = len(record.actions)
        n = record.config.num_players
        if body.step > total:
            raise WebError(f"step: expected 0..{total}, got {body.step}", 422)
        if body.seat is not None and not 0 <= body.seat < n:
            raise WebError(f"seat: expected an int in 0..{n - 1} or null (full view), got {body.seat}", 422)
        game = game_at(record, body.step)
        labels = list(record.agents) if record.agents and len(record.agents) == n else [f"player_{i}" for i in range(n)]
        view = full_view(game, labels) if body.seat is None else seat_view(game, body.seat, labels)
        probs, source = None, None
        if body.policy is not None and record.config.special_cards:
            raise WebError(
                "policy: expected null for a record with special cards (the probabilities shown are P(pass), "
                f"P(take)), got {body.policy!r}",
                422,
            )
        if body.policy is not None and not game.is_over:
            policy = catalog.load(body.policy, n, 0, "policy")
            try:
                p, source = action_probabilities(policy, game.seat_view(game.current_seat))
            except Exception as e:  # any exception: an offered policy may be a user's module:attr
                expected = f"{body.policy!r} to give P(pass), P(take) for seat {game.current_seat} at step {body.step}"
                raise policy_failure("policy", expected, e) from e
            probs = (float(p[0]), float(p[1]))
        return ReplayStep(
            step=body.step,
            total=total,
            last_move=move_of(game.history[-1], record.config) if game.history else None,
            recorded_action=None if body.step == total else describe_action(record.config, record.actions[body.step]),
            probabilities=probs,
            probability_source=source,
            labels=labels,
            view=view,
        )

    def saved_records() -> dict[str, Path]:
        if records_dir is None or not records_dir.is_dir():
            return {}
        return {p.name: p for p in sorted(records_dir.glob("*.json")) if p.is_file()}

    @app.get("/api/records", response_model=list[str], tags=["watch"])
    def list_records() -> list[str]:
        """Names of the saved records in the server's records folder, newest name last."""
        return list(saved_records())

    @app.get("/api/records/{name}", tags=["watch"])
    def get_saved_record(name: str) -> JSONResponse:
        """One saved record."""
        saved = saved_records()
        if name not in saved:
            raise WebError(
                f"record: expected one of the {len(saved)} saved records (/api/records), got {name[:80]!r}", 404
            )
        try:
            return JSONResponse(GameRecord.load(saved[name]).to_dict())
        except (OSError, RecordError) as e:
            raise WebError(f"record {name}: {e.detail if isinstance(e, RecordError) else e}", 422) from e

    @app.post("/api/matches", tags=["watch"])
    def play_agents(body: MatchRequest) -> JSONResponse:
        """Play a whole game between policies; returns its record, to step through with /api/replay."""
        config = _preset_config(body.preset, body.players)
        seed = body.seed if body.seed is not None else store.next_seed()
        if not match_slots.acquire(blocking=False):
            raise WebError(
                f"matches: expected fewer than {max_matches} agent games running at once (the server's limit), "
                f"got {max_matches}; try again in a moment",
                503,
            )
        try:
            return JSONResponse(play_match(config, body.policies, catalog, seed=seed).to_dict())
        finally:
            match_slots.release()

    app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="page")
    return app

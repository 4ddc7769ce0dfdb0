"""Game records: export any game as JSON and replay it to the identical end state.

A record holds the config, the seed, the seat that started deal 0, every deal (deck order and face-down
removals), every action in order, and the final match penalties (``None`` if the game was unfinished).
Replaying needs no seed: the deals and the first seat fix everything, and the seed is kept for reference.

JSON format (version 1)::

    {"format": "nothanks-record", "version": 1,
     "config": {"num_players": 3, "num_removed": 9, ...every GameConfig field...},
     "seed": 7, "first_seat": 2,
     "deals": [{"deck": [27, 5, ...], "removed_hidden": [3, 11, ...]}],
     "actions": [0, 0, 1, ...],              # 0 = PASS, 1 = TAKE (special cards: game.ACTION_PIECES)
     "penalties": [48, 61, 35],              # match totals, penalty points; null if unfinished
     "agents": ["player_0", "player_1", "player_2"]}   # optional

A field not listed here, in the record or in a deal, is refused (:class:`RecordError`), not ignored.

Example:
    >>> from nothanks_env.game import Game, GameConfig, TAKE
    >>> g = Game(GameConfig(num_players=3)); g.reset(seed=1)
    >>> while not g.is_over:
    ...     _ = g.step(TAKE)
    >>> rec = GameRecord.from_json(record_from_game(g, seed=1).to_json())
    >>> replay(rec).final_penalties() == g.final_penalties()
    True
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nothanks_env.game import Deal, Game, GameConfig, IllegalActionError, RuleError

RECORD_FORMAT: str = "nothanks-record"
RECORD_VERSION: int = 1
RECORD_FIELDS: tuple[str, ...] = (
    "format", "version", "config", "seed", "first_seat", "deals", "actions", "penalties", "agents"
)  # fmt: skip
"""The fields of a record (:meth:`GameRecord.to_dict`); ``agents`` may be left out, no other field may be added."""
DEAL_FIELDS: tuple[str, ...] = ("deck", "removed_hidden")
"""The fields of each of a record's ``deals``."""


class RecordError(ValueError):
    """A malformed record, or one whose actions do not replay to its recorded result.

    The message starts with what was wrong: a field (``actions[3]: ...``), or ``record:`` when the record as a whole
    is at fault (``record: expected valid JSON, got ...``; raised with ``whole=True``).

    Attributes:
        detail: the message without that ``record:`` label (the whole message otherwise), for a caller whose own
            words already name the record: ``record: cannot replay PATH: expected valid JSON, got ...``.
    """

    def __init__(self, message: str, *, whole: bool = False) -> None:
        super().__init__(f"record: {message}" if whole else message)
        self.detail: str = message


@dataclass(frozen=True)
class GameRecord:
    """One game (a match of ``config.num_deals`` deals), enough to replay it exactly.

    Attributes:
        config: the rule variant.
        seed: the seed the game was reset with (``None`` if unseeded); informational.
        first_seat: the seat that acted first in deal 0.
        deals: every deal that was started, in order.
        actions: every action id in order (0 = PASS, 1 = TAKE; with special cards also bids, drops and
            choices, see :data:`nothanks_env.game.ACTION_PIECES`), across deals.
        penalties: final match totals per seat (penalty points), or ``None`` if the game was unfinished.
        agents: optional agent names by seat.
        version: record format version.
    """

    config: GameConfig
    seed: int | None
    first_seat: int
    deals: tuple[Deal, ...]
    actions: tuple[int, ...]
    penalties: tuple[int, ...] | None
    agents: tuple[str, ...] | None = None
    version: int = RECORD_VERSION

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (see the module docstring for the format)."""
        cfg = dataclasses.asdict(self.config)
        cfg["removed_face_up"] = list(self.config.removed_face_up)
        cfg["special_cards"] = list(self.config.special_cards)
        return {
            "format": RECORD_FORMAT,
            "version": self.version,
            "config": cfg,
            "seed": self.seed,
            "first_seat": self.first_seat,
            "deals": [{"deck": list(d.deck), "removed_hidden": list(d.removed_hidden)} for d in self.deals],
            "actions": list(self.actions),
            "penalties": None if self.penalties is None else list(self.penalties),
            "agents": None if self.agents is None else list(self.agents),
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as a JSON string."""
        return json.dumps(self.to_dict(), indent=indent)

    @staticmethod
    def from_dict(data: Any) -> GameRecord:
        """Parse and validate :meth:`to_dict` output.

        A field the format does not have (:data:`RECORD_FIELDS`, and :data:`DEAL_FIELDS` in a deal) is refused,
        not ignored: nothing would read it, so nothing would check it. ``version`` must be the int 1 (``true``
        and ``1.0`` only equal it).

        Raises:
            RecordError: naming the field, what was expected and what was got.
        """
        if not isinstance(data, dict):
            raise RecordError(f"expected a JSON object, got {type(data).__name__}", whole=True)
        if data.get("format") != RECORD_FORMAT:
            raise RecordError(f"format: expected {RECORD_FORMAT!r}, got {data.get('format')!r}")
        version = data.get("version")
        if not _is_int(version) or version != RECORD_VERSION:
            raise RecordError(f"version: expected the int {RECORD_VERSION}, got {version!r}")
        _refuse_unknown_fields(data, RECORD_FIELDS, "", "a record")
        missing = [k for k in ("config", "seed", "first_seat", "deals", "actions", "penalties") if k not in data]
        if missing:
            raise RecordError(f"expected keys {missing} to be present, got keys {sorted(data)}", whole=True)
        cfg = data["config"]
        if not isinstance(cfg, dict):
            raise RecordError(f"config: expected a JSON object, got {cfg!r}")
        try:
            config = GameConfig(**{**cfg, "removed_face_up": tuple(cfg.get("removed_face_up", ()))})
        except (TypeError, RuleError) as e:
            raise RecordError(f"config: {e}") from e
        seed = data["seed"]
        if seed is not None and not _is_int(seed):
            raise RecordError(f"seed: expected an int or null, got {seed!r}")
        if not _is_int(data["first_seat"]):
            raise RecordError(f"first_seat: expected an int, got {data['first_seat']!r}")
        deals = data["deals"]
        if not isinstance(deals, list) or not all(
            isinstance(d, dict) and _int_list(d.get("deck")) and _int_list(d.get("removed_hidden")) for d in deals
        ):
            raise RecordError(f"deals: expected a list of {{'deck': [int], 'removed_hidden': [int]}}, got {deals!r}")
        for i, deal in enumerate(deals):
            _refuse_unknown_fields(deal, DEAL_FIELDS, f"deals[{i}].", "a deal")
        na = config.num_actions
        if not _int_list(data["actions"]) or any(not 0 <= a < na for a in data["actions"]):
            what = "0 (pass) / 1 (take)" if na == 2 else f"action ids in 0..{na - 1}"
            raise RecordError(f"actions: expected a list of {what}, got {data['actions']!r}")
        penalties = data["penalties"]
        n = config.num_players
        if penalties is not None and not (_int_list(penalties) and len(penalties) == n):
            raise RecordError(
                f"penalties: expected a list of {n} ints (one per player, config.num_players={n}) or null, "
                f"got {penalties!r}"
            )
        agents = data.get("agents")
        if agents is not None and not (
            isinstance(agents, list) and all(isinstance(a, str) for a in agents) and len(agents) == n
        ):
            raise RecordError(
                f"agents: expected a list of {n} strings (one per player, config.num_players={n}) or null, "
                f"got {agents!r}"
            )
        return GameRecord(
            config=config,
            seed=seed,
            first_seat=data["first_seat"],
            deals=tuple(Deal(tuple(d["deck"]), tuple(d["removed_hidden"])) for d in deals),
            actions=tuple(data["actions"]),
            penalties=None if penalties is None else tuple(penalties),
            agents=None if agents is None else tuple(agents),
        )

    @staticmethod
    def from_json(text: str) -> GameRecord:
        """Parse a JSON string; raises :class:`RecordError` on invalid JSON, JSON nested too deep for Python's
        parser (a record is a few levels deep; ``{"a": {"a": ...}}`` 100,000 levels deep was a RecursionError)
        or invalid content."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(f"expected valid JSON, got a parse error: {e}", whole=True) from e
        except RecursionError as e:
            raise RecordError(
                f"expected a JSON record (an object a few levels deep), got JSON nested too deep to parse ({e})",
                whole=True,
            ) from e
        return GameRecord.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write the record as indented JSON (UTF-8)."""
        Path(path).write_text(self.to_json(indent=1) + "\n", encoding="utf-8")

    @staticmethod
    def load(path: str | Path) -> GameRecord:
        """Read a record written by :meth:`save`.

        Raises:
            OSError: the file cannot be read (FileNotFoundError: there is none).
            RecordError: it is no UTF-8 text, or no valid record (:meth:`from_json`).
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise RecordError(
                f"expected UTF-8 text (a JSON record), got bytes that are not UTF-8 ({e})", whole=True
            ) from e
        return GameRecord.from_json(text)


def record_from_game(game: Game, seed: int | None = None, agents: list[str] | None = None) -> GameRecord:
    """Record ``game`` as played so far (finished or not).

    Args:
        game: a game after :meth:`Game.reset`.
        seed: the seed it was reset with, kept for reference.
        agents: optional agent names by seat.
    """
    return GameRecord(
        config=game.config,
        seed=seed,
        first_seat=game.first_seat,
        deals=tuple(game.deals),
        actions=tuple(h.action for h in game.history),
        penalties=tuple(game.final_penalties()) if game.is_over else None,
        agents=None if agents is None else tuple(agents),
    )


def replay(record: GameRecord) -> Game:
    """Replay a record and return the game in its end state.

    The recorded first seat replaces a random starting seat, so no seed is needed.

    Raises:
        RecordError: if the deals do not fit the config, an action is illegal, actions go past the end,
            or the game ends (or not) with other penalties than recorded.
    """
    cfg = record.config
    if not 0 <= record.first_seat < cfg.num_players:
        raise RecordError(f"first_seat: expected an int in 0..{cfg.num_players - 1}, got {record.first_seat}")
    if cfg.starting_seat is not None and cfg.starting_seat != record.first_seat:
        raise RecordError(f"first_seat: expected config.starting_seat={cfg.starting_seat}, got {record.first_seat}")
    if not 1 <= len(record.deals) <= cfg.num_deals:
        raise RecordError(f"deals: expected 1..{cfg.num_deals} deals, got {len(record.deals)}")
    game = Game(dataclasses.replace(cfg, starting_seat=record.first_seat))
    try:
        game.reset(seed=record.seed, deals=list(record.deals))
    except RuleError as e:
        raise RecordError(f"deals: {e}") from e
    for i, action in enumerate(record.actions):
        if game.is_over:
            raise RecordError(f"actions: expected {i} actions (the match was over), got {len(record.actions)}")
        if game.deal_index >= len(record.deals):
            raise RecordError(
                f"deals: expected deal {game.deal_index + 1} to be recorded before actions[{i}], "
                f"got {len(record.deals)} deals"
            )
        try:
            game.step(action)
        except IllegalActionError as e:
            raise RecordError(f"actions[{i}]: {e}") from e
    game.config = cfg  # report the recorded config (starting seat possibly None), not the replay's
    if record.penalties is None:
        return game
    if not game.is_over:
        raise RecordError(
            f"actions: expected the game to end after {len(record.actions)} actions (penalties were recorded), "
            f"got it still running in deal {game.deal_index + 1} of {cfg.num_deals}"
        )
    if tuple(game.final_penalties()) != tuple(record.penalties):
        raise RecordError(f"penalties: expected {list(record.penalties)} as recorded, got {game.final_penalties()}")
    return game


def _refuse_unknown_fields(data: dict[str, Any], fields: tuple[str, ...], where: str, what: str) -> None:
    """Raise for the first key of ``data`` not among ``fields``, named ``{where}{key}`` (``deals[0].probs``).

    Raises:
        RecordError: ``"<where><key>: expected no such field (<what> has <fields>), got <value>"``, the key cut
            to 40 characters and the value to 80.
    """
    for key, value in data.items():
        if key not in fields:
            got = repr(value)
            got = got if len(got) <= 80 else got[:77] + "..."
            raise RecordError(
                f"{where}{str(key)[:40]}: expected no such field ({what} has {', '.join(fields)}), got {got}"
            )


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_list(x: object) -> bool:
    return isinstance(x, list) and all(_is_int(v) for v in x)

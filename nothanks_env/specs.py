"""Policy specs: one string names any policy on a command line or in a config.

Syntax, tried in this order:

=============================  ===========================================================================
spec                           meaning
=============================  ===========================================================================
``NAME`` / ``NAME:k=v,k=v``    a scripted baseline (:data:`nothanks_env.baselines.BASELINES`) with keyword
                               parameters, e.g. ``threshold:T=5``, ``search:iters=64,chip_memory=False``;
                               values are of the kind of the parameter's default: ``True``/``False`` for a
                               flag, an integer where the default is one, a finite number where it is a
                               float, numbers in parentheses for a tuple (``model_T=(1,5)``). Numbers are
                               written plainly: an integer in decimal digits (``30``, ``-2``, ``+3``; no
                               leading zeros, ``_`` or ``0x``), a float in decimal with an optional exponent
                               (``0.5``, ``-2``, ``1e-3``, ``1e+1``; no leading zeros or ``_``). No
                               parameter may be empty (``threshold:,T=3`` is refused); a ``:``
                               with nothing after it is the name alone (``threshold:``).
                               Parameters that take a *policy* (the search bot's ``rollout`` and
                               ``model``) take a nested spec, in parentheses when it has its own
                               ``:`` parameters: ``search:rollout=ppo-3p,model=(utility:extort_buffer=4)``
``PATH``                       a checkpoint file or directory that exists on disk; one whose path holds
                               a ``:`` (``runs/a:b/checkpoints/final``, ``heuristic:v2``) is tried first,
                               before the ``:`` is read as the start of parameters; a leading ``~`` is
                               the home directory (``~/runs/a/checkpoints/final``), also where no shell
                               expands it (a YAML config)
``PATH:deterministic=False``   a checkpoint (a path, with a ``:`` in it too, or a shipped ``SHORT`` name)
                               that samples its action from the network's softmax instead of the argmax;
                               named as without them, plus the parameters (``final:deterministic=False``)
``module:attr``                a user policy: ``attr`` of importable ``module`` is a :class:`Policy`
                               subclass or instance, or a zero-argument factory returning a policy
``SHORT``                      a shipped checkpoint (``training.checkpoints.SHIPPED``) or a shipped
                               composite agent, itself a spec (``training.checkpoints.SHIPPED_SPECS``,
                               e.g. ``best-3p``: search with the network as rollout policy); it wins over
                               a folder of the same name in the working directory (write ``./ppo-3p``
                               for that folder), as a baseline's name does and as every tool reads it
=============================  ===========================================================================

Checkpoints load through ``training.checkpoints.load_checkpoint_policy``, imported only when a spec names
one (it needs torch, the ``train`` extra); baselines and ``module:attr`` specs need only the base install.
This module lives in the env package so that the Gymnasium envs take opponents as specs;
``training.specs`` re-exports it for the command lines.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import pathlib
import re

from nothanks_env.baselines import BASELINES
from nothanks_env.game import GameConfig, did_you_mean
from nothanks_env.policy import Policy, check_player_count, special_cards_only, supported_player_counts


def list_baselines() -> list[str]:
    """Names of the scripted baselines, in order of strength (weakest first, roughly)."""
    return list(BASELINES)


POLICY_PARAMS: dict[str, tuple[str, ...]] = {"search": ("rollout", "model")}
"""Baseline name -> its parameters whose value is itself a policy spec."""


def _split_top(spec: str, text: str) -> list[str]:
    """Split ``text`` at the commas outside parentheses and brackets, each item stripped (empty ones kept)."""
    items, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"policy spec {spec!r}: expected balanced parentheses, got an extra {ch!r}")
        if ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise ValueError(f"policy spec {spec!r}: expected balanced parentheses, got {depth} unclosed")
    items.append("".join(cur))
    return [i.strip() for i in items]


_INT = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
"""An integer as a spec writes it: decimal digits, no leading zero, an optional sign (``T=+3`` is used)."""
_FLOAT = re.compile(r"[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A float as a spec writes it (an :data:`_INT` is one too): decimal, no leading zero, an optional exponent
(``0.5``, ``.5``, ``-2``, ``1e-3``, ``1e+1``, ``1e-05`` as Python prints it)."""
INT_FORM = "decimal digits, optionally signed, without leading zeros, '_' or a 0x/0o/0b prefix (like 30, -2 or +3)"
FLOAT_FORM = "decimal, optionally signed, with an optional exponent, without leading zeros or '_' (like 0.5 or 1e-3)"
"""How a spec writes a number, in the error refusing one Python reads but a spec does not (``02``, ``3_0``)."""


def _scalar(raw: str) -> object:
    """``True``/``False``, an int (:data:`_INT`) or a float (:data:`_FLOAT`) as written, else ``raw`` itself."""
    if raw in ("True", "False"):
        return raw == "True"
    if _INT.fullmatch(raw):
        try:
            return int(raw)
        except ValueError:  # over Python's 4300 digits: kept as written, refused as no integer
            return raw
    if _FLOAT.fullmatch(raw):
        return float(raw)
    return raw


def _value(raw: str) -> object:
    """A parameter's value as written: a :func:`_scalar`, or a tuple of them in parentheses (``(1, 5)``), else
    ``raw`` itself (for :func:`_check_kinds` to refuse). Not Python's ``int()``/``float()``/``ast.literal_eval``:
    they read ``3_0`` and ``0x1e`` as 30 (``int()`` ``02`` as 2)."""
    if raw.startswith("(") and raw.endswith(")"):
        items = [item.strip() for item in raw[1:-1].split(",")]
        if items == [""]:
            return ()
        values = [_scalar(item) for item in items]
        return raw if any(isinstance(v, str) for v in values) else tuple(values)
    return _scalar(raw)


def _read_as_number(raw: str) -> bool:
    """Whether Python reads ``raw`` as a finite number (``int()``, ``float()`` or a literal: ``02``, ``3_0``,
    ``0x1e``, ``- 3``) that a spec does not write so (:data:`_INT`, :data:`_FLOAT`)."""
    for read in (int, float, ast.literal_eval):
        try:
            value = read(raw)
        except (ValueError, SyntaxError, TypeError, RecursionError):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return True
    return False


def _parse_params(spec: str, text: str, nested: tuple[str, ...] = ()) -> dict[str, object]:
    """``text``, the parameters after a spec's ``:``, as a dict; none of them empty (a ``:`` with nothing after
    it is the name alone: ``threshold:`` is ``threshold``).

    Raises:
        ValueError: for ``threshold:,T=3`` or ``threshold:T=3,``: ``"... got an empty parameter (parameter 1 of 2
            in ',T=3')"``.
    """
    params: dict[str, object] = {}
    items = _split_top(spec, text)
    if items == [""]:  # "heuristic:" has always meant "heuristic" (CHANGELOG), so do "best-3p:" and "ppo-3p:"
        return params
    for i, item in enumerate(items):
        if not item:
            raise ValueError(
                f"policy spec {spec!r}: expected parameters as key=value,key=value, got an empty parameter "
                f"(parameter {i + 1} of {len(items)} in {text!r})"
            )
        key, sep, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key:
            raise ValueError(f"policy spec {spec!r}: expected parameters as key=value,key=value, got {item!r}")
        if key in params:
            raise ValueError(f"policy spec {spec!r}: expected each parameter once, got {key!r} twice")
        if key in nested:
            params[key] = raw[1:-1].strip() if raw.startswith("(") and raw.endswith(")") else raw
            continue
        params[key] = _value(raw)
    return params


def _expected_kind(value: object, default: object) -> str | None:
    """What a parameter whose default is ``default`` takes, if ``value`` is not of that kind; else None.

    A flag (bool default) takes ``True`` or ``False``; an int default an integer; a float default any finite
    int or float; a tuple default a tuple of as many items, each of the kind of the default's item. Other
    defaults (``None``, strings) are not checked here.
    """
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "True or False"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if isinstance(default, float):
        finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return None if finite else "a finite number"
    if isinstance(default, tuple):
        fits = isinstance(value, tuple) and len(value) == len(default)
        if fits and all(_expected_kind(v, d) is None for v, d in zip(value, default)):
            return None
        return f"{len(default)} values in parentheses like {default!r}"
    return None


def _check_kinds(spec: str, params: dict[str, object], defaults: dict[str, object]) -> None:
    """Refuse a parameter value that is not of the kind of the parameter's default (see :func:`_expected_kind`).

    Raises:
        ValueError: ``"policy spec 'threshold:T=x': T: expected an integer, got 'x'"``.
    """
    for key, value in params.items():
        expected = _expected_kind(value, defaults.get(key))
        if isinstance(value, str) and expected in ("an integer", "a finite number") and _read_as_number(value):
            expected += f" written in {INT_FORM if expected == 'an integer' else FLOAT_FORM}"  # 02, 3_0, 0x1e
        if expected is not None:
            raise ValueError(f"policy spec {spec!r}: {key}: expected {expected}, got {value!r}")


def _param_defaults(cls: type) -> dict[str, object]:
    """The parameters a baseline takes in a spec, with their defaults: its constructor's keyword parameters but
    ``seed``, and for a ``**params`` constructor those of its ``PARAM_DEFAULTS``."""
    out: dict[str, object] = {}
    for pname, p in inspect.signature(cls).parameters.items():
        if p.kind is p.VAR_KEYWORD:
            out |= getattr(cls, "PARAM_DEFAULTS", None) or dict.fromkeys(getattr(cls, "PARAM_NAMES", ()))
        elif pname != "seed" and p.kind is not p.VAR_POSITIONAL:
            out[pname] = None if p.default is p.empty else p.default
    return out


def spec_param(spec: str) -> str:
    """``spec`` as the value of a nested policy parameter: in parentheses if it has parameters of its own."""
    return f"({spec})" if any(c in spec for c in ",:=") else spec


def _baseline(
    spec: str, name: str, text: str, seed: int | None, num_players: int | None, special_cards: bool | None = None
) -> Policy:
    cls = BASELINES[name]
    nested = POLICY_PARAMS.get(name, ())
    params = _parse_params(spec, text, nested) if ":" in spec else {}  # "threshold", not "threshold:"
    defaults = _param_defaults(cls)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"policy spec {spec!r}: {name} takes parameters {list(defaults)}, got {unknown}")
    _check_kinds(spec, {k: v for k, v in params.items() if k not in nested}, defaults)
    for k, key in enumerate(nested):
        if key in params:
            try:
                params[key] = load_policy(
                    str(params[key]),
                    num_players=num_players,
                    seed=None if seed is None else seed + 7919 * (k + 1),
                    special_cards=special_cards,
                )
            except ValueError as e:
                raise ValueError(f"policy spec {spec!r}: parameter {key}: {e}") from e
    try:
        return cls(seed=seed, **params)
    except (TypeError, ValueError) as e:  # a parameter of the wrong type or out of range
        raise ValueError(f"policy spec {spec!r}: {e}") from e


def _is_policy(obj: object) -> bool:
    return callable(getattr(obj, "act_batch", None))


def _user_policy(spec: str) -> Policy:
    module_name, _, attr = spec.partition(":")
    if not module_name.strip():
        raise ValueError(f"{_expected_forms(spec)}; got no module name before the ':'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"policy spec {spec!r}: cannot import module {module_name!r} ({e}){_not_a_path(spec)}") from e
    try:
        obj = getattr(module, attr)
    except AttributeError as e:
        raise ValueError(f"policy spec {spec!r}: module {module_name!r} has no attribute {attr!r}") from e
    if inspect.isclass(obj) or (callable(obj) and not _is_policy(obj)):
        try:
            obj = obj()
        except TypeError as e:
            raise ValueError(f"policy spec {spec!r}: {attr} must build with no arguments ({e})") from e
    if not _is_policy(obj):
        raise ValueError(
            f"policy spec {spec!r}: expected a Policy (an object with act_batch), got {type(obj).__name__}"
        )
    return obj


def _path(spec: str) -> pathlib.Path:
    """``spec`` as a path, a leading ``~`` (or ``~user``) expanded to the home directory: no shell expands it in
    a YAML config (``run.init_from: ~/runs/a/checkpoints/final``) or a quoted argument. As written when there is
    no such home."""
    path = pathlib.Path(spec)
    try:
        return path.expanduser()
    except RuntimeError:  # ~user of no such user, or no home directory known
        return path


def _exists(spec: str) -> bool:
    try:
        return _path(spec).exists()
    except (OSError, ValueError):  # a name too long for the file system, a null byte
        return False


CHECKPOINT_FILES: tuple[str, ...] = ("policy.safetensors", "metadata.json")
"""The files of a checkpoint directory (``training.checkpoints.WEIGHTS_FILE`` and ``METADATA_FILE``, named here
so that telling a checkpoint on disk needs no torch)."""


def _holds_checkpoint(spec: str) -> bool:
    """Whether ``spec`` is an existing checkpoint directory (one holding :data:`CHECKPOINT_FILES`, or either of
    them: the loader then names the missing one) or one of those files."""
    try:
        path = _path(spec)
        if path.is_file():
            return path.name in CHECKPOINT_FILES
        return path.is_dir() and any((path / name).is_file() for name in CHECKPOINT_FILES)
    except (OSError, ValueError):  # a name too long for the file system, a null byte
        return False


def _first_missing(spec: str) -> str:
    """The shortest leading part of the path ``spec`` that does not exist (``runs/a:c`` of
    ``runs/a:c/checkpoints/final`` when ``runs`` exists)."""
    path = _path(spec)
    for part in (*reversed(path.parents), path):
        if str(part) != "." and not _exists(str(part)):
            return str(part)
    return spec


def _no_such_path(spec: str, head: str, tail: str) -> str:
    """The error for ``spec``, a path with a ``:`` in it (``runs/a:c/final``) that does not exist: that no such
    path exists, and why it is no spec either, read as ``NAME:params`` or as ``PATH:key=value``."""
    said = (
        f"policy spec {spec!r}: expected an existing checkpoint directory (or a file in one) or a policy spec, got "
        f"neither: no such path ({_first_missing(spec)!r} does not exist), and"
    )
    path, _, params = spec.rpartition(":")
    if "=" in params and _looks_like_path(path):  # /tmp/run:deterministic=False
        if _exists(path):
            where = "holds no checkpoint"
        else:
            missing = _first_missing(path)
            where = "does not exist" + (f" ({missing!r} is missing)" if missing != path else "")
        return f"{said} read as a checkpoint with parameters, the path {path!r} before ':{params}' {where}"
    try:
        module = _checkpoints(spec)
        names = {*getattr(module, "SHIPPED", {}), *getattr(module, "SHIPPED_SPECS", {})}
    except ValueError:  # no training package: no shipped agent
        names = set()
    if head in names or _exists(head):
        return f"{said} read as a spec, {tail!r} after the ':' is not key=value parameters"
    return f"{said} read as a spec, {head!r} before the ':' is not a baseline, a shipped agent or an existing path"


def _not_a_path(spec: str) -> str:
    """The clause added to the error of a spec with a ``:`` that could have been meant as a path: that no such
    path exists, or that the one that does holds no checkpoint."""
    if _exists(spec):
        return (
            f"; the path {spec} exists but holds no checkpoint (expected a directory with "
            f"{' and '.join(CHECKPOINT_FILES)}, or a file in one)"
        )
    return f"; nor is it an existing path (no {_first_missing(spec)!r})"


def _looks_like_path(spec: str) -> bool:
    """A spec that can only mean a file: a path separator, a leading ``.`` or ``~``, or a checkpoint file name."""
    return (
        "/" in spec
        or "\\" in spec
        or spec.startswith((".", "~"))
        or spec.endswith((".safetensors", ".json", ".pt", ".zip"))
    )


CHECKPOINT_PARAMS: dict[str, object] = {"deterministic": True}
"""Parameters a checkpoint spec takes after a ``:`` (``ppo-3p:deterministic=False``), with their defaults."""


def _is_checkpoint(spec: str, head: str) -> bool:
    """``head`` names a checkpoint: a shipped network's short name, or an existing path that is no shipped name
    (``best-3p`` is a search, whatever folder is called so)."""
    if _exists(head):
        return head in getattr(_checkpoints(spec), "SHIPPED", {}) or head not in _shipped_names(spec)
    if _looks_like_path(head):
        return False
    return head in getattr(_checkpoints(spec), "SHIPPED", {})


def _checkpoint_with_params(spec: str, head: str, text: str) -> Policy:
    """A checkpoint with the parameters of :data:`CHECKPOINT_PARAMS` (``deterministic=False``: it samples)."""
    params = _parse_params(spec, text)
    unknown = sorted(set(params) - set(CHECKPOINT_PARAMS))
    if unknown:
        raise ValueError(
            f"policy spec {spec!r}: a checkpoint takes parameters {list(CHECKPOINT_PARAMS)}, got {unknown}"
        )
    _check_kinds(spec, params, CHECKPOINT_PARAMS)
    deterministic = bool(params.get("deterministic", CHECKPOINT_PARAMS["deterministic"]))
    shipped = head in getattr(_checkpoints(spec), "SHIPPED", {})  # the shipped network, not a folder named so
    target = _path(head) if _exists(head) and not shipped else head
    policy = _load_checkpoint(spec, target, deterministic=deterministic)
    # named as without parameters (a shipped name, else the folder's name), the parameters kept, so that tables say
    # that it samples: ppo-3p:deterministic=False, final:deterministic=False (not the whole path of one and the
    # folder name of the other; training.evaluate.label_by_path tells folders of the same name apart)
    policy.name = f"{policy.name}:{text}"
    return policy


def _load_checkpoint(spec: str, target: str | pathlib.Path, deterministic: bool = True) -> Policy:
    """The checkpoint at ``target`` (a path, or a shipped short name given as a str); a path that exists but
    holds no checkpoint is a ValueError naming ``spec``."""
    try:
        return _checkpoints(spec).load_checkpoint_policy(target, deterministic=deterministic)
    except FileNotFoundError as e:
        raise ValueError(f"policy spec {spec!r}: {e}") from e


def _checkpoints(spec: str):
    try:
        return importlib.import_module("training.checkpoints")
    except ImportError as e:
        raise ValueError(
            f"policy spec {spec!r}: not a baseline ({', '.join(BASELINES)}) and checkpoints cannot be loaded "
            f"because training.checkpoints is not available ({e})"
        ) from e


def _shipped_names(spec: str) -> list[str]:
    """Short names of the shipped agents, networks (``SHIPPED``) then composites (``SHIPPED_SPECS``)."""
    module = _checkpoints(spec)
    return [*getattr(module, "SHIPPED", {}), *getattr(module, "SHIPPED_SPECS", {})]


def _close_name(spec: str) -> str:
    """``" (did you mean 'x'?)"`` naming the baseline or shipped agent closest to the name before the spec's
    ``:`` (``heuristc:T=5`` -> ``heuristic``, ``ppo-3q`` -> ``ppo-3p``), or ``""`` when none is close."""
    try:
        shipped = _shipped_names(spec)
    except ValueError:  # no training package: no shipped agent
        shipped = []
    return did_you_mean(spec.partition(":")[0].strip(), [*BASELINES, *shipped])


def _versions_listed(names: list[str]) -> str:
    """``names``, each ``NAME-vN`` whose ``NAME`` is one of them listed last as an older version, a run of them
    as ``NAME-vLO..vHI``: ``['ppo-3p', 'ppo-3p-v2', 'ppo-3p-v1', 'x']`` -> ``"ppo-3p, x; older versions
    ppo-3p-v1..v2"`` (versions not in a run listed one by one: ``ppo-3p-v1, ppo-3p-v3``)."""
    versions: dict[str, list[int]] = {}
    current = []
    for name in names:
        base, sep, number = name.rpartition("-v")
        if sep and number.isdigit() and base in names:
            versions.setdefault(base, []).append(int(number))
        else:
            current.append(name)
    older = []
    for base in current:
        vs = sorted(versions.get(base, []))
        if len(vs) > 1 and vs == list(range(vs[0], vs[-1] + 1)):
            older.append(f"{base}-v{vs[0]}..v{vs[-1]}")
        else:
            older += [f"{base}-v{v}" for v in vs]
    return ", ".join(current) + (f"; older versions {', '.join(older)}" if older else "")


def _expected_forms(spec: str) -> str:
    """``"policy spec '<spec>': expected a baseline (...), a shipped agent (...), ..."``: every form a spec takes,
    with the closest baseline or shipped name after the spec (``policy spec 'ppo-3q' (did you mean 'ppo-3p'?)``)
    and the shipped networks' older versions as ranges (``ppo-3p-v1..v6``)."""
    return (
        f"policy spec {spec!r}{_close_name(spec)}: expected a baseline ({', '.join(BASELINES)}) optionally with "
        f"':key=value,...', a shipped agent ({_versions_listed(_shipped_names(spec)) or 'none shipped'}), "
        "an existing checkpoint path, or module:attr"
    )


def _named_as_written(short: str, expanded: str, message: str) -> str:
    """An error about the spec a shipped short name expands to, naming the short name as written too:
    ``policy spec 'best-3p' (= 'search:...'): parameter rollout: ...`` (the user never wrote ``search:...``)."""
    said = f"policy spec {expanded!r}"
    rest = message.removeprefix(said) if message.startswith(said) else f": {message}"
    return f"policy spec {short!r} (= {expanded!r}){rest}"


def load_policy(
    spec: str,
    *,
    num_players: int | None = None,
    seed: int | None = None,
    special_cards: bool | None = None,
    table: GameConfig | None = None,
) -> Policy:
    """Build the policy a spec names (syntax in the module docstring).

    Args:
        spec: the policy spec.
        num_players: table size it will play at; a policy with a ``num_players`` attribute (e.g. a
            checkpoint trained for one size) is checked against it.
        seed: seeds the policy's RNG (:meth:`Policy.seed`), where it has one.
        special_cards: whether the table it will play has special cards (``config.special_cards``), for the
            hint of a shipped network refused at ``num_players``: the shipped networks named are those that play
            such a table at that size. ``None`` (not known): those of the refused network's own kind.
        table: the rules of the table it will play, for a caller that has them: ``num_players`` is then
            ``table.num_players`` and ``special_cards`` is ``bool(table.special_cards)``, as if passed so
            (``load_policy(spec, table=config)`` is ``load_policy(spec, num_players=config.num_players,
            special_cards=bool(config.special_cards))``). ``None``: the two keywords alone say what is known.

    Returns:
        The policy. Baselines' ``name`` is their canonical spec (``threshold:T=5``).

    Raises:
        ValueError: naming the spec received and what is valid, for an unknown name, bad parameters,
            a path that does not exist or holds no checkpoint, a corrupted checkpoint, a module or
            attribute that cannot be imported, an object that is not a policy, or a player-count mismatch;
            naming both values, for a ``num_players`` or ``special_cards`` that contradicts ``table``; for a
            ``table`` that is not a :class:`~nothanks_env.game.GameConfig`.
    """
    if table is not None:
        num_players, special_cards = _table_keywords(table, num_players, special_cards)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"policy spec: expected a non-empty string, got {spec!r}")
    spec = spec.strip()
    head, sep, tail = spec.partition(":")
    path, _, params = spec.rpartition(":")
    if sep and _holds_checkpoint(spec):  # runs/a:b/final, heuristic:v2: the whole string is a checkpoint on disk
        policy = _load_checkpoint(spec, _path(spec))
    elif ":" in path and "=" in params and _holds_checkpoint(path):  # runs/a:b/final:deterministic=False
        policy = _checkpoint_with_params(spec, path, params)
    elif head in BASELINES:
        try:
            policy = _baseline(spec, head, tail, seed, num_players, special_cards)
        except ValueError as e:
            if "=" in tail:  # threshold:T=x: parameters, not a path
                raise
            raise ValueError(f"{e}{_not_a_path(spec)}") from e  # heuristic:v2 may have meant a folder
    elif _exists(spec) and spec not in _shipped_names(spec):  # a shipped name wins over a folder named like it
        policy = _load_checkpoint(spec, _path(spec))
    elif sep and "=" in tail and _is_checkpoint(spec, head):
        policy = _checkpoint_with_params(spec, head, tail)
    elif sep and _looks_like_path(spec):
        raise ValueError(_no_such_path(spec, head, tail))
    elif _looks_like_path(spec):
        expanded = "" if str(_path(spec)) == spec else f" ({_path(spec)})"  # where ~ led
        raise ValueError(
            f"policy spec {spec!r}: the path {spec}{expanded} does not exist (expected an existing checkpoint "
            "directory or a file in one)"
        )
    elif sep and tail and "=" not in tail:
        policy = _user_policy(spec)
    else:
        shipped = getattr(_checkpoints(spec), "SHIPPED", {})
        composite = getattr(_checkpoints(spec), "SHIPPED_SPECS", {})
        if sep and not tail.strip() and (head in composite or head in shipped):
            spec = head  # "best-3p:" and "ppo-3p:" name no parameters, as "heuristic:" does for a baseline
        elif head in composite and sep:
            raise ValueError(
                f"policy spec {spec!r}: {head} is a composite agent (the spec {composite[head]!r}) and takes no "
                f"parameters; write that spec out with yours instead, got {tail!r}"
            )
        if spec in composite:
            try:
                policy = load_policy(composite[spec], num_players=num_players, seed=seed, special_cards=special_cards)
            except ValueError as e:
                raise ValueError(_named_as_written(spec, composite[spec], str(e))) from e
            policy.name = spec  # tables say the short name; SHIPPED_SPECS says what it is
        elif spec not in shipped:
            raise ValueError(_expected_forms(spec))
        else:
            policy = _checkpoints(spec).load_checkpoint_policy(spec)  # the short name labels the policy
    if seed is not None and callable(getattr(policy, "seed", None)):
        policy.seed(seed)
    if num_players is not None:
        try:
            check_player_count(policy, num_players, f"policy spec {spec!r}")
        except ValueError as e:
            table_special = special_cards_only(policy) if special_cards is None else special_cards
            hint = other_sizes_hint(spec, num_players, special_cards=table_special)
            raise ValueError(f"{_wrong_variant_too(spec, policy, num_players, special_cards) or e}{hint}") from None
    return policy


def _table_keywords(table: GameConfig, num_players: int | None, special_cards: bool | None) -> tuple[int, bool]:
    """:func:`load_policy`'s ``num_players`` and ``special_cards`` read from ``table``, where a caller passed the
    table's rules; either keyword given too must say what the table says.

    Raises:
        ValueError: for a ``table`` that is not a :class:`~nothanks_env.game.GameConfig` (as
            :func:`nothanks_env.presets.resolve_config` refuses a ``config``), and for a keyword that contradicts
            it: ``"load_policy: expected num_players to be the table's (table.num_players=4) or not given, got
            num_players=3"``, and so for ``special_cards``.
    """
    if not isinstance(table, GameConfig):
        raise ValueError(f"load_policy: table: expected a GameConfig or None, got {type(table).__name__}")
    has_special = bool(table.special_cards)
    if num_players is not None and num_players != table.num_players:
        raise ValueError(
            f"load_policy: expected num_players to be the table's (table.num_players={table.num_players}) or not "
            f"given, got num_players={num_players}"
        )
    if special_cards is not None and special_cards != has_special:
        raise ValueError(
            f"load_policy: expected special_cards to be the table's (table.special_cards={table.special_cards!r}, "
            f"so {has_special}) or not given, got special_cards={special_cards}"
        )
    return table.num_players, has_special


def _wrong_variant_too(spec: str, policy: object, num_players: int, special_cards: bool | None) -> str | None:
    """The refusal of a network at a table size it was not trained for when it cannot play the table's variant
    either (``special_cards``, when the caller told :func:`load_policy`), stating both: ``ppo-4p`` at a 3-player
    wildcards table plays neither 3 players nor special cards. None when only the size is wrong (or the variant is
    not known)."""
    counts = list(supported_player_counts(policy) or ())
    label = f"policy spec {spec!r}: expected a policy for {num_players} players"
    if special_cards and not getattr(policy, "plays_special_cards", False):
        return f"{label} that plays special cards, got one trained for {counts} players that plays only pass/take"
    if special_cards is False and special_cards_only(policy):
        return (
            f"{label} that plays pass/take (the table has no special cards), got one trained for {counts} players on "
            f"special cards ({getattr(policy, 'num_actions', '?')} actions)"
        )
    return None


def shipped_networks(num_players: int, *, special_cards: bool) -> list[str]:
    """The shipped networks (today's names, not the ``-vN`` versions) that play a table of ``num_players`` seats
    with special cards (``special_cards``: trained on them, more actions than pass/take, ``ppo-wildcards``) or
    without (the standard game and its other variants), read from their metadata as the loader reads it (no
    ``num_actions``, from before special cards: pass/take); ``[]`` without the ``training`` package.

    Example:
        >>> shipped_networks(4, special_cards=False)
        ['ppo-4p', 'ppo-mixed']
    """
    import json

    try:
        shipped = getattr(importlib.import_module("training.checkpoints"), "SHIPPED", {})
    except ImportError:  # no training package: no shipped network
        return []
    names = []
    for name, folder in shipped.items():
        if re.search(r"-v\d+$", name):
            continue
        try:
            metadata = json.loads((pathlib.Path(folder) / "metadata.json").read_text())
        except (OSError, ValueError):
            continue
        if (
            num_players in (metadata.get("num_players") or [])
            and (metadata.get("num_actions") not in (None, 2)) == special_cards
        ):
            names.append(name)
    return names


def shipped_networks_hint(num_players: int, *, special_cards: bool) -> str:
    """How a refusal of a policy at a table ends, naming what plays there: ``"; shipped networks for 4 players:
    ppo-4p, ppo-mixed"``, the :func:`shipped_networks` for ``num_players`` seats with special cards
    (``special_cards``: ``"; shipped special-card networks for 3 players: ppo-wildcards"``) or without; ``""`` when
    none does.

    Example:
        >>> shipped_networks_hint(4, special_cards=False)
        '; shipped networks for 4 players: ppo-4p, ppo-mixed'
    """
    names = shipped_networks(num_players, special_cards=special_cards)
    variant = "special-card networks" if special_cards else "networks"
    return f"; shipped {variant} for {num_players} players: {', '.join(names)}" if names else ""


def other_sizes_hint(spec: str, num_players: int, *, special_cards: bool) -> str:
    """For a shipped network's short name refused at ``num_players``: ``"; shipped networks for 5 players: ppo-5p,
    ppo-mixed"``, the :func:`shipped_networks` that play the table (``special_cards``: it has special cards); ``""``
    when none does, or for a spec that is not a shipped name. Every refusal of a table size ends so: the command
    lines' (:func:`load_policy`) and the web API's.

    ``special_cards`` is the table's variant when the caller told :func:`load_policy`: ``ppo-4p`` at a 3-player
    wildcards table names ``ppo-wildcards``, and ``ppo-wildcards`` at a standard 4-player table names ``ppo-4p,
    ppo-mixed``. Otherwise it is the refused network's own kind, the likelier variant of the table."""
    shipped = getattr(_checkpoints(spec), "SHIPPED", {})
    if spec not in shipped:
        return ""
    return shipped_networks_hint(num_players, special_cards=special_cards)

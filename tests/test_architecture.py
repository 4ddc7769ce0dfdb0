"""Which module may import which (docs/architecture.md): every import, lazy ones included, read with ``ast``.

A module may import modules of its own layer or of a lower one, never of a higher one. The layers are
listed once, here and in docs/architecture.md (a test holds the two tables equal).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS: dict[str, int] = {
    # 0: the rules, standard library only
    "nothanks_env.game": 0,
    # 1: the batched rules and what is computed from finished or recorded games
    "nothanks_env.vector": 1,
    "nothanks_env.outcome": 1,
    "nothanks_env.presets": 1,
    "nothanks_env.records": 1,
    "nothanks_env.render": 1,
    "nothanks_env.wrappers": 1,
    # 2: the observation layout and the policy interface
    "nothanks_env.encoding": 2,
    "nothanks_env.policy": 2,
    # 3: what drives policies and keeps observations: observer, learner table, baselines, specs
    "nothanks_env.observer": 3,
    "nothanks_env.table": 3,
    "nothanks_env.baselines": 3,
    "nothanks_env.specs": 3,
    # 4: the environments and the package's front door
    "nothanks_env.env": 4,
    "nothanks_env.nothanks_v0": 4,
    "nothanks_env.gym_env": 4,
    "nothanks_env.gym_vector": 4,
    "nothanks_env": 4,
    # 5: training, evaluation and the tools for people
    "training": 5,
}
"""Layer of each module or package (a package's modules share its layer unless listed themselves)."""

OUR_PACKAGES = ("nothanks_env", "training")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    """The layer of ``module``: its own entry, else its closest listed package's."""
    name = module
    while name:
        if name in LAYERS:
            return LAYERS[name]
        name = name.rpartition(".")[0]
    raise KeyError(f"{module}: expected a module listed in LAYERS (add it to the table and the docs), got none")


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in ``path``, anywhere in it; ``from pkg import mod`` names ``pkg.mod``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                as_path = ROOT / Path(*sub.split("."))
                is_module = as_path.with_suffix(".py").is_file() or (as_path / "__init__.py").is_file()
                out.append((node.lineno, sub if is_module else node.module))
    return out


def sources(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "static" not in p.parts)


def upward_imports(package: str) -> list[str]:
    found = []
    for path in sources(package):
        me = module_name(path)
        for line, other in imports(path):
            if other.split(".")[0] in OUR_PACKAGES and layer(other) > layer(me):
                found.append(f"{path.relative_to(ROOT)}:{line}: {me} (layer {layer(me)}) imports {other} "
                             f"(layer {layer(other)})")  # fmt: skip
    return found


def test_every_module_has_a_layer():
    for package in OUR_PACKAGES:
        for path in sources(package):
            layer(module_name(path))


@pytest.mark.parametrize("package", OUR_PACKAGES)
def test_no_import_goes_up_a_layer(package):
    assert upward_imports(package) == []


def test_the_rules_engine_imports_the_standard_library_only():
    third_party = [
        m for _, m in imports(ROOT / "nothanks_env" / "game.py") if m.split(".")[0] not in sys.stdlib_module_names
    ]
    assert third_party == [] and "__future__" in sys.stdlib_module_names


def test_the_engines_import_no_encoding_env_or_training():
    for name in ("game.py", "vector.py", "outcome.py"):
        above = ("nothanks_env.encoding", "nothanks_env.env", "nothanks_env.observer", "training")
        bad = [m for _, m in imports(ROOT / "nothanks_env" / name) if m.startswith(above)]
        assert bad == [], name


def test_the_check_fails_on_an_import_that_goes_back_up(tmp_path, monkeypatch):
    """The test above can fail: a copy of the engine that imports the env is caught, with its line."""
    fake = tmp_path / "nothanks_env"
    fake.mkdir()
    (fake / "game.py").write_text(
        (ROOT / "nothanks_env" / "game.py").read_text() + "\n\ndef f():\n    import training.cli\n"
    )
    for name in ("env.py", "__init__.py"):
        (fake / name).write_text("")
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "cli.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = upward_imports("nothanks_env")
    assert len(found) == 1 and "nothanks_env.game (layer 0) imports training.cli (layer 5)" in found[0]


def test_the_layer_table_in_the_docs_matches():
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = re.findall(r"^\| (\d) \| (.+?) \|", text, flags=re.M)
    documented = {name.strip("` "): int(n) for n, names in rows for name in names.split(",")}
    assert documented == LAYERS


def test_every_old_training_name_is_its_moved_module():
    import importlib

    aliases = {}
    for path in sorted((ROOT / "training").glob("*.py")):
        found = re.search(r'import_module\("(training\.\w+\.\w+)"\)', path.read_text())
        if found:
            aliases[f"training.{path.stem}"] = found.group(1)
    documented = set(re.findall(r"python -m (training\.\w+)", (ROOT / "README.md").read_text()))
    assert documented - {"training.X"} <= set(aliases)  # "training.X" is the README's own placeholder
    assert len(aliases) == 24
    for old, new in aliases.items():
        assert importlib.import_module(old) is importlib.import_module(new), old

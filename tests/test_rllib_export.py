"""``training.rllib_selfplay --export PATH --out DIR``: DIR is checked by :func:`training.cli.check_outputs` before
the RLlib checkpoint is read, and replaced only with ``--overwrite``, only when it holds nothing but a checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="needs the ray extra: pip install -e '.[ray]'")

from training import rllib_selfplay as rs  # noqa: E402


@pytest.fixture
def exports(monkeypatch) -> list[tuple[str, str, bool]]:
    """Calls of :func:`rs.export` (which is not run: these tests check what happens before it)."""
    calls: list[tuple[str, str, bool]] = []

    def fake_export(path, out, *, overwrite=False):
        calls.append((str(path), str(out), overwrite))
        return Path(out)

    monkeypatch.setattr(rs, "export", fake_export)
    return calls


def test_an_existing_out_is_refused_before_the_checkpoint_is_read(tmp_path, exports, capsys):
    out = tmp_path / "agent"
    out.mkdir()
    (out / "metadata.json").write_text("{}")
    assert rs.main(["--export", "runs/some-run", "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"error: --out: expected a folder that does not exist yet (pass --overwrite to replace it), got {str(out)!r} "
        "(an existing folder)"
    ]
    assert exports == [] and (out / "metadata.json").read_text() == "{}"


def test_overwrite_replaces_a_checkpoint_but_never_a_folder_holding_more(tmp_path, exports, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("kept")
    assert rs.main(["--export", "runs/some-run", "--out", str(run), "--overwrite"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "error: --out: expected a folder to replace that holds only policy.safetensors, metadata.json, train_state.pt "
        f"(--overwrite replaces the folder whole), got {str(run)!r}, which also holds config.yaml"
    ]
    assert exports == [] and (run / "config.yaml").read_text() == "kept"
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "policy.safetensors").write_bytes(b"old")
    assert rs.main(["--export", "runs/some-run", "--out", str(agent), "--overwrite"]) == 0
    assert exports == [("runs/some-run", str(agent), True)]
    assert rs.main(["--export", "runs/some-run", "--out", str(tmp_path / "new")]) == 0
    assert exports[-1] == ("runs/some-run", str(tmp_path / "new"), False)


def test_overwrite_without_export_is_refused(capsys):
    assert rs.main(["--overwrite"]) == 2
    assert capsys.readouterr().err == (
        "error: --overwrite: expected only with --export (it replaces an existing --out), got --overwrite "
        "without --export\n"
    )

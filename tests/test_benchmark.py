"""training.benchmark env: every level runs the chosen preset; levels without special cards say so."""

from __future__ import annotations

import math

from training import benchmark


def test_env_levels_run_wildcards_and_the_batched_ones_print_a_dash(capsys):
    rates = {name: fn(3, 0.05, benchmark.time.process_time, "wildcards") for name, fn in benchmark.ENV_LEVELS}
    assert math.isnan(rates["vector_engine"]) and math.isnan(rates["vector_encode"])
    assert all(rates[k] > 0 for k in ("engine", "aec_env", "seat_view+encode", "encode"))
    benchmark.main(["env", "--seconds", "0.05", "--players", "3", "--preset", "wildcards", "--clock", "cpu"])
    out = capsys.readouterr().out
    assert "preset wildcards" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("3 "))
    cells = row.split()
    assert cells[2] == "-" and cells[6] == "-" and all(c != "-" for c in cells[1:2] + cells[3:6])

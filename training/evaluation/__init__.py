"""Measuring policies: evaluate, the gauntlet, the tournament, exploitability probes, heuristic tuning."""

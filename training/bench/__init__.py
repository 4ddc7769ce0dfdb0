"""Benchmarks of the engines, encoders and training loops."""

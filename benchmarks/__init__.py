"""Benchmark scripts (each measures a peer in the same run and prints ratios)."""

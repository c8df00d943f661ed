"""Latency figures shared by the benchmarks that drive the bot through the fake Discord."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (``0.99`` for p99)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(seconds: Sequence[float]) -> str:
    """``median X ms, p99 Y ms`` of answer times given in seconds."""
    return (
        f"median {statistics.median(seconds) * 1000:.1f} ms,"
        f" p99 {percentile(seconds, 0.99) * 1000:.1f} ms"
    )

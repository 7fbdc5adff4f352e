"""How honest a reader's confidence is: reliability tables and expected calibration error.

A square's reading carries one confidence. For each field (kind, letter, rotation, token, and
the square as a whole) the benchmark keeps, per square the field applies to, that confidence
and whether the field was read right. Binned by confidence, the observed accuracy of each bin
should match its mean confidence: a reader that says 0.9 should be right 9 times in 10. The
expected calibration error (ECE) is the gap, bin by bin, weighted by the bin's share of the
squares; ``wrong_at`` counts the confident mistakes, the ones a table would not ask about.
"""

from __future__ import annotations

from typing import Any

import numpy as np

BIN_EDGES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)


class Reliability:
    """Confidences and rightness of one field over many squares."""

    def __init__(self) -> None:
        self.confidence: list[float] = []
        self.right: list[bool] = []

    def add(self, confidence: float, right: bool) -> None:
        self.confidence.append(float(confidence))
        self.right.append(bool(right))

    def extend(self, other: "Reliability") -> None:
        self.confidence += other.confidence
        self.right += other.right

    def table(self) -> dict[str, Any]:
        """Per bin ``[lo, hi)`` (the last closed): squares, mean confidence, observed accuracy;
        the ECE in per cent, the squares wrong at confidence 0.5 and 0.9 or more."""
        conf = np.asarray(self.confidence, float)
        right = np.asarray(self.right, bool)
        n = len(conf)
        rows = []
        ece = 0.0
        for k, (lo, hi) in enumerate(zip(BIN_EDGES[:-1], BIN_EDGES[1:])):
            last = k == len(BIN_EDGES) - 2
            inside = (conf >= lo) & ((conf <= hi) if last else (conf < hi))
            m = int(inside.sum())
            if not m:
                continue
            mean, acc = float(conf[inside].mean()), float(right[inside].mean())
            ece += m / n * abs(acc - mean)
            rows.append({"bin": f"{lo:.2f}-{hi:.2f}", "squares": m, "mean_confidence": round(mean, 4),
                         "accuracy": round(acc, 4), "wrong": int(m - right[inside].sum())})
        return {
            "squares": n,
            "wrong": int(n - right.sum()),
            "ece_pct": round(100.0 * ece, 3) if n else None,
            "wrong_at_0.5_or_more": int(((conf >= 0.5) & ~right).sum()),
            "wrong_at_0.9_or_more": int(((conf >= 0.9) & ~right).sum()),
            "bins": rows,
        }

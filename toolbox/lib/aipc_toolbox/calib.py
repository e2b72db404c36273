"""Calibration-set checks shared by the quantize scripts of every target.

A calibration sample whose largest magnitude is far above the others (a hot sensor pixel, an
image that skipped normalisation) stretches the INT8 range of every tensor it reaches; with
MinMax calibration the normal values then fall into a few quantisation steps and the INT8 model
collapses without any error. `outliers()` finds such samples by a robust rule:

    sample i is an outlier when max|x_i| > factor x median_j(max|x_j|)

and prints one `aipc-warning: calibration outlier: ...` line per sample (docs/toolbox.md),
whether or not the caller then drops them.
"""
import numpy as np

from .emit import warn


def sample_max(sample):
    """Largest |x| over all tensors of one calibration input tuple."""
    return max(float(np.max(np.abs(np.asarray(t)))) if np.asarray(t).size else 0.0 for t in sample)


def _num(x):
    """1.0, 16.0, 10000.0, 0.0031: a float as people write it (always with a decimal point)."""
    return repr(float(round(x, 4))) if abs(x) < 1e15 else f"{x:.3g}"


def outliers(samples, factor=20.0, quiet=False):
    """Indices of outlier samples, their max|x|, and the median max|x|; prints the warnings."""
    maxes = np.array([sample_max(s) for s in samples], dtype=np.float64)
    median = float(np.median(maxes)) if len(maxes) else 0.0
    found = []
    for i, m in enumerate(maxes):
        if (median > 0 and m > factor * median) or (median == 0 and m > 0 and len(maxes) > 2):
            found.append(i)
            if not quiet:
                ratio = f"{m / median:.1f}x" if median > 0 else "infinitely larger than"
                warn("calibration outlier", f"sample {i} max|x| {_num(m)} is {ratio} the median max|x| {_num(median)}")
    return found, maxes, median

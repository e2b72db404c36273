"""Comparison metrics of an artifact's outputs against the eager PyTorch model (numpy only).

`cosine` is the **global cosine**: one cosine between the reference and the artifact outputs of
all samples, flattened (AIPC's definition). `cosine_mean` (the mean of the per-sample cosines)
and `cosine_min` (the worst sample) are reported next to it. Global was chosen because it is the
one that shows an INT8 collapse more: on examples/digits-calib-outlier (log-probability outputs,
one calibration sample with a hot pixel) it was consistently the lower of the two (0.899 vs
0.916 at a 1e4 pixel; 0.946 vs 0.961 at 300), and on clean models both agree to 1e-4.
Even so, cosine on log-probabilities or biased logits can stay above 0.95 while the top-1 class
flips for many samples; that is why the INT8 gate also needs `top1_agreement` and
`acc_drop_points`.
"""
import numpy as np


def _2d(a):
    a = np.asarray(a, dtype=np.float64)
    return a.reshape(a.shape[0], -1) if a.ndim > 1 else a.reshape(-1, 1)


def cosine_per_sample(ref, out):
    r, o = _2d(ref), _2d(out)
    nr, no = np.linalg.norm(r, axis=1), np.linalg.norm(o, axis=1)
    dot = (r * o).sum(axis=1)
    cos = np.where((nr > 0) & (no > 0), dot / np.maximum(nr * no, 1e-300), np.where((nr == 0) & (no == 0), 1.0, 0.0))
    return cos


def cosine_global(ref, out):
    r, o = np.asarray(ref, np.float64).ravel(), np.asarray(out, np.float64).ravel()
    nr, no = np.linalg.norm(r), np.linalg.norm(o)
    if nr == 0 or no == 0:
        return 1.0 if nr == no else 0.0
    return float(r @ o / (nr * no))


def top1(out):
    return _2d(out).argmax(axis=1)


def compare(ref, out, labels=None):
    """All metrics for one output tensor pair (first dim = samples). Without `labels` (eval data
    with no labels: synthetic inputs, `aipc init`'s hooks) the task accuracy is measured against
    the eager model's own classes (`task_labels` "eager": task_acc_ref 1, acc_drop_points =
    100 x (1 - top1_agreement)), so the accuracy gates measure something rather than fail on a
    missing metric; `task_labels` "given" otherwise."""
    ref, out = np.asarray(ref), np.asarray(out)
    if ref.shape != out.shape:
        raise ValueError(f"output shape {out.shape} differs from the eager model's {ref.shape}")
    cos = cosine_per_sample(ref, out)
    m = {
        "samples": int(ref.shape[0]),
        "cosine": cosine_global(ref, out),
        "cosine_mean": float(cos.mean()),
        "cosine_min": float(cos.min()),
        "max_abs_err": float(np.abs(ref.astype(np.float64) - out.astype(np.float64)).max()) if ref.size else 0.0,
        "top1_agreement": float((top1(ref) == top1(out)).mean()),
    }
    m["task_labels"] = "given" if labels is not None else "eager"
    labels = top1(ref) if labels is None else np.asarray(labels).reshape(-1)
    acc_ref = float((top1(ref) == labels).mean())
    acc_out = float((top1(out) == labels).mean())
    m["task_acc_ref"] = acc_ref
    m["task_acc_target"] = acc_out
    m["acc_drop_points"] = round(100.0 * (acc_ref - acc_out), 6)
    return m


def percentile_ms(samples_s, q):
    return float(np.percentile(np.asarray(samples_s) * 1000.0, q))

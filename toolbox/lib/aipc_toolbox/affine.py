"""Is what the app feeds an affine map of what the model was evaluated on? The value-range fault
class of the app's input contract: preprocessing that scales by another constant (÷255 for data
that is 0..16), forgets a normalisation (no mean/std), normalises per channel with other
statistics, or feeds the channels in another order (BGR for RGB).

`fit(app, ref)` compares two arrays holding the **same samples** in the same order — the app's
feed (aipc.toml `app_eval_data`, built by the app's own preprocessing from the raw form of
eval_data's samples) and eval_data's model-ready inputs — and finds the simplest map
`ref ≈ f(app)` of three, by least squares over every element:

- `scalar`: ref = a·app + b (one scale and offset for the whole input);
- `per-channel`: ref[:, c] = a_c·app[:, c] + b_c along axis 1 (image channels, or the features
  of a (N, F) table: a per-feature standardisation);
- `channel-mix`: ref[:, c] = Σ_k A_ck·app[:, k] + b_c for 2–4 channels with spatial dims (a
  channel order swap, with or without a rescale).

A map is taken when what it leaves unexplained is at most `MAX_RESIDUAL` of ref's spread (RMS
of the residual over ref's standard deviation): rounding to 8 bits leaves ~0.4 %, any other
preprocessing difference (a transpose, a crop, a resize, clipping) leaves far more, and is not
affine. Nothing is tuned to a project: the thresholds are fractions of the data's own spread.
"""
from dataclasses import dataclass

import numpy as np

MAX_RESIDUAL = 0.01  # residual RMS / ref std above which a map does not explain the difference
IDENTITY_TOLERANCE = 1e-3  # |scale - 1| and |shift| / std below which the feed already is ref
MAX_CHANNELS = 4096  # per-channel maps beyond this many channels are not tried
MIX_CHANNELS = (2, 4)  # channel-mixing maps for this many channels (with spatial dims) only
MAX_ELEMENTS = 4_000_000  # elements compared at most: an even stride over the samples beyond it


@dataclass(frozen=True)
class Fit:
    """`ref ≈ map(app)`: `kind` ("scalar", "per-channel", "channel-mix"), `scale` (a float, a
    list per channel, or a C×C list of lists), `shift` (a float or a list per channel), and
    `residual` (RMS of what the map leaves, over ref's standard deviation)."""

    kind: str
    scale: object
    shift: object
    residual: float

    def identity(self):
        """True when the map changes nothing worth a repair (the feed already matches)."""
        scale, shift = np.asarray(self.scale, dtype=np.float64), np.asarray(self.shift, dtype=np.float64)
        eye = np.eye(scale.shape[0]) if scale.ndim == 2 else np.ones_like(scale)
        return bool(np.all(np.abs(scale - eye) <= IDENTITY_TOLERANCE) and np.all(np.abs(shift) <= IDENTITY_TOLERANCE))

    def describe(self):
        """`x 15.94 + 0`, `per channel x [..] + [..]`, `channels mixed by [[..]] + [..]`."""
        if self.kind == "scalar":
            return f"x {_num(self.scale)} {_signed(self.shift)}"
        if self.kind == "per-channel":
            return f"per channel (axis 1) x {_nums(self.scale)} + {_nums(self.shift)}"
        return f"channels mixed by [{', '.join(_nums(row) for row in self.scale)}] + {_nums(self.shift)}"


def _num(v):
    return f"{float(v):.6g}"


def _signed(v):
    v = float(v)
    return f"- {abs(v):.6g}" if v < 0 else f"+ {v:.6g}"


def _nums(values, shown=8):
    values = [float(v) for v in values]
    text = ", ".join(f"{v:.6g}" for v in values[:shown])
    return f"[{text}{', …' if len(values) > shown else ''}]"


def _residual(ref, mapped, spread):
    return float(np.sqrt(np.mean((ref - mapped) ** 2)) / spread)


def _scalar(x, y):
    """(a, b) of y ≈ a·x + b; None when x is constant and y is not."""
    vx = float(x.var())
    if vx == 0.0:
        return (1.0, float(y.mean() - x.mean())) if float(y.var()) == 0.0 else None
    a = float(((x - x.mean()) * (y - y.mean())).mean() / vx)
    return a, float(y.mean() - a * x.mean())


def _per_channel(x, y):
    channels = x.shape[1]
    xs = np.moveaxis(x, 1, 0).reshape(channels, -1)
    ys = np.moveaxis(y, 1, 0).reshape(channels, -1)
    fits = [_scalar(xs[c], ys[c]) for c in range(channels)]
    if any(f is None for f in fits):
        return None
    return [f[0] for f in fits], [f[1] for f in fits]


def _mix(x, y):
    channels = x.shape[1]
    xs = np.moveaxis(x, 1, -1).reshape(-1, channels)
    ys = np.moveaxis(y, 1, -1).reshape(-1, channels)
    design = np.concatenate([xs, np.ones((xs.shape[0], 1))], axis=1)
    solution, *_ = np.linalg.lstsq(design, ys, rcond=None)
    return solution[:channels].T.tolist(), solution[channels].tolist()


def _clean(values, magnitude=0.0):
    """`values` (a float or nested lists) at 7 significant digits (float32's), with what is below 1e-6 of the
    largest magnitude (theirs, or `magnitude` when larger) set to 0 — float32 data fits with
    errors of ~1e-7 — : the numbers a repair writes into the app's source."""
    a = np.asarray(values, dtype=np.float64)
    big = max(float(np.abs(a).max()) if a.size else 0.0, magnitude)
    a = np.where(np.abs(a) <= 1e-6 * big, 0.0, a)
    cleaned = np.vectorize(lambda v: float(f"{v:.7g}"))(a) if a.size else a
    return cleaned.tolist() if a.ndim else float(cleaned)


def apply(x, scale, shift):
    """`map(x)` in float64, for a numpy array `x` with channels on axis 1."""
    x = np.asarray(x, dtype=np.float64)
    scale, shift = np.asarray(scale, dtype=np.float64), np.asarray(shift, dtype=np.float64)
    if scale.ndim == 2:
        y = np.einsum("ck,nk...->nc...", scale, x)
    elif scale.ndim == 1:
        y = x * scale.reshape((1, -1) + (1,) * (x.ndim - 2))
    else:
        y = x * scale
    if shift.ndim == 1:
        return y + shift.reshape((1, -1) + (1,) * (x.ndim - 2))
    return y + shift


def fit(app, ref):
    """The simplest map with `ref ≈ map(app)` (a Fit), or (None, why) when none explains the
    difference. Returns (Fit or None, reason)."""
    x, y = np.asarray(app), np.asarray(ref)
    if x.shape != y.shape:
        return None, f"the app feeds {tuple(x.shape)} where eval_data holds {tuple(y.shape)} (fix the shape first)"
    if x.ndim and x.size > MAX_ELEMENTS:
        stride = -(-x.size // MAX_ELEMENTS)
        x, y = x[::stride], y[::stride]
    x, y = x.astype(np.float64), y.astype(np.float64)
    if not x.size or not (np.isfinite(x).all() and np.isfinite(y).all()):
        return None, "the arrays are empty or hold NaN/inf"
    spread = float(y.std())
    if spread == 0.0:
        return None, "eval_data's input is constant"
    best = None
    candidates = [("scalar", lambda: _scalar(x.reshape(-1), y.reshape(-1)))]
    if x.ndim >= 2 and 1 < x.shape[1] <= MAX_CHANNELS:
        candidates.append(("per-channel", lambda: _per_channel(x, y)))
    if x.ndim >= 3 and MIX_CHANNELS[0] <= x.shape[1] <= MIX_CHANNELS[1]:
        candidates.append(("channel-mix", lambda: _mix(x, y)))
    for kind, solve in candidates:
        solved = solve()
        if solved is None:
            continue
        scale, shift = solved
        residual = _residual(y, apply(x, scale, shift), spread)
        if best is None or residual < best.residual:
            best = Fit(kind, scale, shift, residual)
        if residual <= MAX_RESIDUAL:
            scale, shift = _clean(scale), _clean(shift, spread + abs(float(y.mean())))
            return Fit(kind, scale, shift, _residual(y, apply(x, scale, shift), spread)), ""
    if best is None:
        return None, "no map fits (a constant feed)"
    return None, (f"not an affine map of eval_data's inputs: the best ({best.kind}) leaves {100 * best.residual:.1f}% "
                  "of their spread (another element order, crop, resize or clipping)")


def to_numpy(x):
    """A torch tensor or array-like as a numpy array."""
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def stacked(items, position):
    """Input `position` of every input tuple in `items`, concatenated on dim 0; None when the
    tuples' shapes do not stack."""
    try:
        return np.concatenate([to_numpy(item[position]) for item in items])
    except (ValueError, IndexError):
        return None


def builder_at(builders, position):
    """The first traced builder (aipc_toolbox/builders.py) of input `position` among the input
    tuples' builders, or None."""
    return next((b[position] for b in builders if position < len(b) and b[position] is not None), None)


def app_feed(project):
    """(the input tuples the app feeds, their builders) from aipc.toml app_eval_data (the raw form
    of eval_data's samples, through the app's own preprocessing). Raises ToolError when
    app_eval_data is not set."""
    from .emit import ToolError

    traced = project.traced_app_eval_data()
    if traced is None:
        raise ToolError("aipc.toml names no app_eval_data (the app's own feed of eval_data's raw samples, with their "
                        "labels): the app's values have nothing to be measured against; add it, or rewrite the "
                        "function that builds the input with replace_function")
    items, _, builders = traced
    return items, builders


def measure_app_feed(project, position):
    """(Fit or None, reason, builder or None) of what the app feeds as input `position` (aipc.toml
    app_eval_data, every tuple) against eval_data's inputs: the same samples, so `fit` says what
    map turns the one into the other. Raises ToolError when app_eval_data is not set."""
    from .emit import ToolError

    items, builders = app_feed(project)
    inputs, _ = project.eval_data()
    if position >= len(inputs):
        raise ToolError(f"eval_data returns {len(inputs)} inputs; there is no input {position} to compare")
    app = stacked(items, position)
    if app is None:
        return None, "the app's input tuples do not stack on dim 0 (different shapes)", None
    fit_found, why = fit(app, to_numpy(inputs[position]))
    return fit_found, why, builder_at(builders, position)

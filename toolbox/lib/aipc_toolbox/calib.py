"""Calibration-set checks shared by the quantize scripts of every target.

INT8 calibration sets each tensor's range from what the calibration inputs make it take. Two
faults ruin it silently (no error, an INT8 model that disagrees with eager):

- a few samples on another scale than what the model is fed (a hot sensor pixel, an image that
  skipped normalisation): with MinMax they stretch every range they reach, and the normal values
  fall into a few quantisation steps;
- the whole set (or most of it) on another scale: the calibration function does not prepare
  its inputs the way the application and the eval data do, so every range is wrong.

`audit()` compares the calibration inputs with a *reference*: the inputs the model is evaluated
on (eval_data, else example_inputs), one sample per batch row. No factor is tuned to an example:
per sample it takes max|x| on a log2 scale (one step = one bit of INT8 resolution) and uses the
reference's own spread, Tukey's fences (quartiles +- 1.5 x the interquartile range), with the
range floored at one bit, so a sample costing less than about a bit of resolution is never
flagged. It prints, whether or not the caller then drops anything (docs/toolbox.md):

    aipc-warning: calibration outlier: sample i max|x| M is Rx the median max|x| m of the reference ...
    aipc-warning: calibration scale: k of n calibration samples ... (set-level: the function must change)
    aipc-warning: calibration coverage: k of n eval inputs lie more than one bit above every calibration sample ...

The coverage line is the other set-level fault: every calibration sample is on the right scale,
but the set covers only a narrow part of what the model is evaluated on (one stretch of the
data, one operating regime, one class). Static INT8 ranges are then set from
that part and clip the rest. It is judged with the same two constants: most reference samples
(SET_FRACTION) lie more than one bit (MIN_SPREAD_BITS) above the largest calibration sample,
i.e. their values would be clipped to less than half.

Without a reference (no eval or example inputs, or fewer than 4 samples) the calibration set is
compared with itself, which finds a few outliers but cannot see a set on the wrong scale.
"""
import numpy as np

from .emit import ToolError, note, warn

# Below this many reference samples the quartiles mean little: the calibration set is its own reference.
MIN_REFERENCE = 4
# Tukey's fence multiplier (the textbook constant, not tuned here).
TUKEY = 1.5
# The interquartile range, in bits, is floored at this: less than ~one bit of INT8 resolution is harmless.
MIN_SPREAD_BITS = 1.0
# Above this fraction of flagged samples the problem is the set, not a few samples.
SET_FRACTION = 0.5


def _floats(sample):
    return [np.asarray(t, dtype=np.float64) for t in sample if np.asarray(t).dtype.kind == "f"]


def sample_max(sample):
    """Largest |x| over the float tensors of one input tuple (0.0 when it has none)."""
    return max((float(np.max(np.abs(t))) for t in _floats(sample) if t.size), default=0.0)


def sample_stats(sample):
    """(max|x|, mean, std) over the float tensors of one input tuple."""
    values = [t.ravel() for t in _floats(sample) if t.size]
    if not values:
        return 0.0, 0.0, 0.0
    flat = np.concatenate(values)
    return float(np.max(np.abs(flat))), float(flat.mean()), float(flat.std())


def per_row(inputs):
    """One input tuple per batch row of a tuple of batched tensors (the reference samples)."""
    arrays = [np.asarray(t.detach().cpu().numpy() if hasattr(t, "detach") else t) for t in inputs]
    if not arrays or arrays[0].ndim == 0:
        return [tuple(arrays)] if arrays else []
    rows = arrays[0].shape[0]
    return [tuple(a[i:i + 1] if a.ndim and a.shape[0] == rows else a for a in arrays) for i in range(rows)]


def _num(x):
    """1.0, 16.0, 10000.0, 0.0031: a float as people write it (always with a decimal point)."""
    return repr(float(round(x, 4))) if abs(x) < 1e15 else f"{x:.3g}"


def _bits(values):
    """log2 of positive values; zeros (an all-zero sample) map far below any fence."""
    return np.log2(np.maximum(np.asarray(values, dtype=np.float64), 1e-30))


class Audit:
    """What `audit` found: flagged sample indices, whether the whole set is off, the figures."""

    def __init__(self, outliers, set_off, maxes, median, reference_median, reference_name, outside=()):
        self.outliers = outliers
        self.outside = list(outside)  # samples outside the reference's range, on either side
        self.set_off = set_off
        self.maxes = maxes
        self.median = median
        self.reference_median = reference_median
        self.reference_name = reference_name
        self.scale_line = None  # the set-level line, when the whole set is off (inspect prints it again)

    def droppable(self):
        """Samples that may be dropped: the outliers, unless the set itself is off (then none)."""
        return [] if self.set_off else list(self.outliers)


def _fences(reference_values):
    """(low, high) in bits: Tukey's fences of the reference's values on a log2 scale, their
    interquartile range floored at MIN_SPREAD_BITS."""
    q1, q3 = np.percentile(_bits(reference_values), [25, 75])
    spread = max(q3 - q1, MIN_SPREAD_BITS)
    return q1 - TUKEY * spread, q3 + TUKEY * spread


def _typical(sample, statistic):
    """The typical magnitude of one input tuple: median |x| (or mean |x|) over its float values."""
    values = [np.abs(t.ravel()) for t in _floats(sample) if t.size]
    if not values:
        return 0.0
    return float(statistic(np.concatenate(values)))


def typical_in_range(samples, reference):
    """Whether the typical magnitude of `samples` as a group (the median over them of each
    sample's median |x|; mean |x| when some reference sample has a zero median, as sparse inputs
    do) lies inside the reference samples' range of it (the same fences as max|x|). A sample
    whose max|x| alone was far off, brought into range by shrinking it whole, lands far below:
    its max was a few extreme values, not its scale. Judged for the group, since one row of a few
    features may sit near zero by chance."""
    if len(reference) < MIN_REFERENCE or not samples:
        return True
    statistic = np.median
    ref = [_typical(r, statistic) for r in reference]
    if min(ref) <= 0.0:
        statistic = np.mean
        ref = [_typical(r, statistic) for r in reference]
    if max(ref) <= 0.0:
        return True
    low, high = _fences(ref)
    group = float(np.median(_bits([_typical(s, statistic) for s in samples])))
    return low <= group <= high


def audit(samples, reference=None, reference_name="eval inputs", quiet=False, source="calibration_data", suffix=None):
    """Compare calibration `samples` (input tuples) with `reference` samples; print the warnings.
    `source` names the calibration function in the set-level line (e.g. `calibration_data
    (pipeline/quant.py cases())`), so the evidence can point at it; `suffix` ends that line (the
    project's functions that would prepare the set, calib_prep.py)."""
    stats = [sample_stats(s) for s in samples]
    maxes = np.array([m for m, _, _ in stats], dtype=np.float64)
    median = float(np.median(maxes)) if len(maxes) else 0.0
    if reference is None or len(reference) < MIN_REFERENCE:
        reference, reference_name = samples, "calibration set"
    ref_stats = [sample_stats(s) for s in reference]
    ref_maxes = np.array([m for m, _, _ in ref_stats], dtype=np.float64)
    ref_median = float(np.median(ref_maxes)) if len(ref_maxes) else 0.0
    if not len(maxes) or not len(ref_maxes) or ref_median == 0.0:
        return Audit([], False, maxes, median, ref_median, reference_name)
    low, high = _fences(ref_maxes)
    bits = _bits(maxes)
    # Only a sample above the range stretches INT8 ranges; the set is off when most samples lie
    # outside the reference's range on either side.
    flagged = [i for i, b in enumerate(bits) if b > high]
    outside = [i for i, b in enumerate(bits) if b > high or b < low]
    own = reference_name == "calibration set"
    set_off = not own and len(outside) > SET_FRACTION * len(samples)
    scale_line = None
    if not quiet:
        if set_off:
            ref_mean = float(np.mean([m for _, m, _ in ref_stats]))
            ref_std = float(np.mean([s for _, _, s in ref_stats]))
            cal_mean = float(np.mean([m for _, m, _ in stats]))
            cal_std = float(np.mean([s for _, _, s in stats]))
            scale_line = (f"{len(outside)} of {len(samples)} calibration samples lie outside the {reference_name}' range: "
                          f"median max|x| {_num(median)} is {median / ref_median:.3g}x the {reference_name}' {_num(ref_median)} "
                          f"(mean {_num(cal_mean)} vs {_num(ref_mean)}, std {_num(cal_std)} vs {_num(ref_std)}); "
                          f"{source} does not prepare its inputs the way the model is fed"
                          + (f"; {suffix}" if suffix else ""))
            warn("calibration scale", scale_line)
        else:
            for i in flagged:
                m = maxes[i]
                warn("calibration outlier",
                     f"sample {i} max|x| {_num(m)} is {m / ref_median:.1f}x the median max|x| {_num(ref_median)} "
                     f"of the {reference_name} (outside their spread: {_num(2.0 ** low)} .. {_num(2.0 ** high)})")
    result = Audit(flagged, set_off, maxes, median, ref_median, reference_name, outside)
    result.scale_line = scale_line
    return result


def coverage(samples, reference, reference_name="eval inputs", source="calibration_data"):
    """The calibration-coverage line when most `reference` samples lie more than one bit above
    the largest calibration sample (see the module docstring), else None. Nothing is judged with
    fewer than MIN_REFERENCE reference samples."""
    if reference is None or len(reference) < MIN_REFERENCE or not samples:
        return None
    cal_max = max(sample_max(s) for s in samples)
    ref_maxes = np.array([sample_max(r) for r in reference], dtype=np.float64)
    if cal_max <= 0.0 or not np.any(ref_maxes > 0.0):
        return None
    beyond = int(np.sum(_bits(ref_maxes) > float(_bits([cal_max])[0]) + MIN_SPREAD_BITS))
    if beyond <= SET_FRACTION * len(reference):
        return None
    return (f"{beyond} of {len(reference)} {reference_name} lie more than one bit above every calibration sample "
            f"(largest calibration max|x| {_num(cal_max)}, median {reference_name} max|x| {_num(float(np.median(ref_maxes)))}, "
            f"largest {_num(float(np.max(ref_maxes)))}): {source} draws its {len(samples)} samples from a narrower part "
            "of the data than the model is evaluated on, so static INT8 ranges clip the rest")


def reference_samples(project):
    """The samples the model is evaluated on, one per batch row: eval_data's inputs, else
    example_inputs; with a name for the messages. None when the project gives neither."""
    if project.get("eval_data"):
        inputs, _labels = project.eval_data()
        return per_row(inputs), "eval inputs"
    return per_row(project.example_inputs()), "example inputs"


def checked_samples(project, samples, drop_outliers, quiet=False):
    """What both quantize scripts do with the project's calibration samples: audit them against
    the reference, say what is kept and why, and drop the outliers when asked (never a whole set
    on the wrong scale: that is the calibration function's fault). Returns (audit, kept).
    quiet: a dynamic format, which uses no calibration: the figures are measured, nothing is
    printed (a line about the calibration set would name a repair that format does not need)."""
    reference, reference_name = reference_samples(project)
    file, function = project.spec_file("calibration_data")
    source = f"calibration_data ({file} {function}())"
    for key in ("calibration_prep", "calibration_prep_outside"):
        if project.get(key):
            source += f" with {key} {project.get(key)}"
    suffix = partial = None
    first = audit(samples, reference, reference_name, quiet=True)
    if first.set_off or (first.outside and not drop_outliers):
        from . import calib_prep

        # The project's own step that prepares the reference: applied to every sample when most
        # are off; to the samples outside only when it would push prepared ones out, or when
        # only a fraction is off and the step brings exactly those into range, spread included.
        found = calib_prep.candidates(project, samples, reference_name) if first.set_off else []
        scoped = calib_prep.scoped_candidates(project, samples, reference_name)
        if found:
            suffix = calib_prep.line(found, reference_name, scoped)
        elif scoped and not first.set_off:
            partial = calib_prep.partial_line(scoped, len(samples), reference_name, source)
        else:
            # No array step of the project brings them into range: a step that takes what a
            # loader returns (a record with its unit) may be what the calibration path skips.
            from . import loader_steps

            skipped = loader_steps.missing(project, reference_name)
            if skipped and first.set_off:
                suffix = loader_steps.line(skipped, reference_name)
            elif first.set_off:
                # Nor a loader step: the calibration path may read through the wrong one of two
                # sibling accessors of a data class (calib_sibling.py).
                from . import calib_sibling

                siblings = calib_sibling.find(project, reference, reference_name, len(first.outside))
                if siblings:
                    suffix = siblings[0].describe(reference_name)
            elif skipped:
                partial = (f"{len(first.outside)} of {len(samples)} calibration samples lie outside the "
                           f"{reference_name}' range and {source} does not prepare them the way the model is fed; "
                           + loader_steps.line(skipped, reference_name))
    result = audit(samples, reference, reference_name, quiet=quiet, source=source, suffix=suffix)
    if quiet:
        dropped = set(result.droppable()) if drop_outliers else set()
        return result, [s for i, s in enumerate(samples) if i not in dropped]
    if partial:
        warn("calibration scale", partial)
        result.scale_line = partial
    if not result.scale_line and not result.outside:
        narrow = coverage(samples, reference, reference_name, source)
        if narrow:
            warn("calibration coverage", narrow)
            result.scale_line = "coverage: " + narrow
    if result.set_off and drop_outliers:
        note("drop_outliers does not apply: most calibration samples are off, so the calibration "
             "function itself must prepare its inputs the way the model is fed")
    elif result.outliers and not drop_outliers and not result.set_off:
        note(f"keeping {len(result.outliers)} outlier sample(s) {result.outliers}: INT8 ranges will be stretched "
             "by them (drop_outliers=true leaves them out; moving_average=true dampens them)")
    dropped = set(result.droppable()) if drop_outliers else set()
    return result, [s for i, s in enumerate(samples) if i not in dropped]


def refuse_needless_drop(result, drop_outliers, dynamic_format):
    """quantize's drop_outliers=true when it would drop nothing: refused before anything is built,
    so the caller learns that the INT8 error comes from elsewhere (the 270M model, offered it
    beside a per-layer analysis for a whole-model collapse, spent an attempt on the same artifact
    rebuilt)."""
    if not drop_outliers:
        return
    if dynamic_format:
        why = "this INT8 format quantizes activations at run time and uses no calibration data"
    elif result.set_off:
        why = ("most calibration samples are off, and a whole set is never dropped: the calibration "
               "function must prepare its inputs the way the model is fed")
    elif not result.droppable():
        why = (f"none of the {len(result.maxes)} calibration samples is an outlier against the "
               f"{result.reference_name}")
    else:
        return
    raise ToolError(f"drop_outliers: {why}, so dropping changes nothing; nothing was built. "
                    "The INT8 error comes from elsewhere: use another repair the evidence names")


def calibration_fields(scale_line):
    """inspect's view of an INT8 artifact's calibration: `calibration_ok` 0 when quantize found
    the whole calibration set on another scale or covering a narrow part of the data (recorded
    with the artifact; a coverage line starts with "coverage: "), and that line again, so the
    build stage's gate fails with the evidence that names the calibration function."""
    if scale_line and scale_line.startswith("coverage: "):
        warn("calibration coverage", scale_line[len("coverage: "):])
    elif scale_line:
        warn("calibration scale", scale_line)
    return {"calibration_ok": int(not scale_line)}

"""The application's own inference path on an artifact (aipc.toml `app_eval_data`).

compare measures an artifact on the project's model-ready eval_data. That cannot see the app's
preprocessing: a repair of the input contract that gives the right dtype and shape but the wrong
values (a reshape instead of a transpose, another scale) runs, and passes every gate on eval
data, while the deployed app classifies noise. `app_eval_data` returns what the app feeds the
deployed model, built by its own preprocessing from raw samples whose labels are known; each
input tuple goes to the artifact unchanged, as the app would send it, and the task accuracy of
those outputs is compared with the eager model's accuracy on eval_data (the reference):

- app_path_checked: 1 when aipc.toml names app_eval_data (else 0, and nothing is measured);
- app_acc_target: accuracy of the artifact on the app's feed;
- app_acc_eager: accuracy of the eager model on the same feed, when the model takes it (a low
  value here too says the feed itself is wrong, not the artifact);
- app_acc_drop_points = 100 x (eager accuracy on eval_data - app_acc_target): app_eval_data holds
  the raw form of eval_data's samples, so the two accuracies compare (another sample set would
  differ by chance); app_top1_agreement, when the sample counts match, compares class by class;
- app_path_ok: 1 when the drop is within max_app_drop_points, or when nothing is checked.

When the drop is over budget, one `aipc-warning: app path accuracy:` line names the function of
the app that built the inputs (file:line, found by following the app's call,
aipc_toolbox/builders.py) and the value statistics of its feed next to eval_data's, so the repair
goes where the app prepares its inputs. When, for an input, the app's feed is an affine map of
eval_data's (a scale and offset, per channel, or a channel order: aipc_toolbox/affine.py), a
second line says so with the map measured, `aipc-warning: app path affine:`, so the repair can be
that map applied where the input is built (fix_input_feed `value_range`). When no map fits, a
step of eval_data's own path that turns what the app feeds into eval_data's values
(aipc_toolbox/skipped_step.py) is named in a third line, `aipc-warning: app path skipped step:`,
so the repair can be that step applied where the input is built (fix_input_feed `via`). When
the app makes its input with a function of its own that, replaced by a step of eval_data's path
given the same arguments, would feed eval_data's values (a vendored copy that diverged), a
fourth line names both, `aipc-warning: app path diverged step:` (fix_input_feed `via` with
`instead`).
"""
import numpy as np

from . import affine, diverged_step, emit, feed, skipped_step

APP_SAMPLES_MAX = 100_000  # samples run through the app's path at most (bounded memory)


def _stats(arrays):
    """min / max / mean / std of a list of arrays, float64, over every element."""
    lo, hi, total, total_sq, n = np.inf, -np.inf, 0.0, 0.0, 0
    for a in arrays:
        x = np.asarray(a, dtype=np.float64)
        if not x.size:
            continue
        lo, hi = min(lo, float(x.min())), max(hi, float(x.max()))
        total, total_sq, n = total + float(x.sum()), total_sq + float((x * x).sum()), n + x.size
    if not n:
        return None
    mean = total / n
    return {"min": lo, "max": hi, "mean": mean, "std": float(np.sqrt(max(total_sq / n - mean * mean, 0.0)))}


def _fmt(s):
    return f"range [{s['min']:.4g}, {s['max']:.4g}], mean {s['mean']:.4g}, std {s['std']:.4g}"


def _top1(outputs):
    return np.concatenate([np.asarray(y).reshape(np.asarray(y).shape[0], -1).argmax(axis=1) for y in outputs])


def _eager_accuracy(model, items, labels):
    """The eager model on the app's feed; None when it does not take it as given."""
    import torch

    try:
        with torch.no_grad():
            outs = [model(*[torch.as_tensor(np.ascontiguousarray(affine.to_numpy(t))) for t in item]) for item in items]
    except Exception as e:  # noqa: BLE001 -- any failure means "the eager model does not take this feed"
        emit.note(f"app path: the eager model does not take the app's feed as given ({emit.describe(e)})")
        return None
    outs = [o[0] if isinstance(o, (tuple, list)) else o for o in outs]
    return float((_top1([affine.to_numpy(o) for o in outs]) == labels).mean())


def _input_names(project, count):
    """aipc.toml input_names for `count` inputs, else input_0, input_1, ..."""
    try:
        return project.input_names(count)
    except emit.ToolError:
        return [f"input_{i}" for i in range(count)]


def affine_faults(project, items, builders, reference_inputs):
    """For each input whose app feed (all tuples of `items` concatenated on dim 0) maps onto
    eval_data's by an affine map that is not the identity: (input name, builder or None, Fit)."""
    faults = []
    count = len(items[0]) if items else 0
    names = _input_names(project, count)
    for position in range(min(count, len(reference_inputs))):
        app = affine.stacked(items, position)
        if app is None:
            continue  # tuples of different shapes: no paired comparison
        fit, _ = affine.fit(app, affine.to_numpy(reference_inputs[position]))
        if fit is not None and not fit.identity():
            faults.append((names[position], affine.builder_at(builders, position), fit))
    return faults


def skipped_steps(project, items, builders, reference_inputs):
    """For each input the app feeds in a raw form that a step of eval_data's own path converts
    (aipc_toolbox/skipped_step.py): (input name, builder or None, the best Step)."""
    count = len(items[0]) if items else 0
    names = _input_names(project, count)
    found, traced_eval = [], skipped_step.eval_path(project)
    for position in range(min(count, len(reference_inputs))):
        steps = skipped_step.find(project, items, position, reference_inputs, traced_eval)
        if steps:
            found.append((names[position], affine.builder_at(builders, position), steps[0]))
    return found


def _searched(what, search):
    """`search()`, or [] with a note when the project's code fails under it: the searches are a
    diagnosis beside the measured app path, which stands whatever they find."""
    try:
        return search()
    except Exception as e:  # noqa: BLE001 -- the project's own data code runs under the trace
        emit.note(f"app path: the search for {what} stopped: {emit.describe(e)}; the measurement above stands")
        return []


def diverged_steps(project, count, reference_inputs):
    """For each input the app makes with its own function where eval_data's path makes it with a
    step of the project (a stale or diverged copy, aipc_toolbox/diverged_step.py): (input name,
    the innermost Substitute)."""
    names = _input_names(project, count)
    found, traced_eval = [], skipped_step.eval_path(project)
    for position in range(min(count, len(reference_inputs))):
        substitutes = diverged_step.find_substitutes(project, position, lambda: project._call("app_eval_data"),
                                                    reference_inputs, traced_eval)
        if substitutes:
            found.append((names[position], substitutes[0]))
    return found


def strided_feed(project, items, builders):
    """Warn (`aipc-warning: input not contiguous`, feed.py) for each input the app feeds as a
    non-contiguous view, naming the function that built it; True when one was found. For a runtime
    that reads the buffer in memory order (ExecuTorch): there such a feed either fails in the
    runtime or gives other values, and the repair is where the app builds it."""
    count = len(items[0]) if items else 0
    names, origin, found = _input_names(project, count), feed.where(project), set()
    for index, item in enumerate(items):
        for position, x in enumerate(item):
            if position in found:
                continue
            built = builders[index][position] if index < len(builders) and position < len(builders[index]) else None
            if feed.check_contiguous(built.origin() if built else origin, index, x, names[position], False):
                found.add(position)
    return bool(found)


def measure(project, artifact, run_items, reference, max_drop_points, model=None, takes_strides=True):
    """Run the app's feed through the artifact: `run_items(list of tuples of inputs as the app
    built them)` returns the artifact's outputs for each (first = the logits): all at once, so a
    device runs them in one job. `reference` holds what compare measured
    on eval_data: "acc" (the eager model's accuracy), "inputs" (eval_data's input tensors, for
    the statistics), "outputs" (the eager model's first output, for the per-sample agreement
    when the app's feed holds the same samples) and "artifact_acc" (the artifact's own accuracy
    on eval_data, optional); `model` (optional) the eager model, run on the same feed. Returns the
    app_* metrics.

    When the artifact scores on the app's feed as it does on eval_data (within the budget) while
    both are under the eager model, the drop is the artifact's own (an INT8 build that lost
    accuracy), not the app's preprocessing: the gate still fails, but the line that blames the
    app's input function is not printed, so the evidence is the artifact's accuracy (a probe
    project's INT8 collapse was classified as the app's preprocessing and repaired there).

    `takes_strides` False (a runtime that reads an input's buffer in memory order): an app feed
    holding a non-contiguous view is named (strided_feed) and not run, so the evidence is the
    view and where it was built, not the runtime's error or silently other values."""
    reference_acc = reference["acc"]
    traced = project.traced_app_eval_data()
    if traced is None:
        emit.note("app path: not checked (aipc.toml names no app_eval_data)")
        return {"app_path_checked": 0, "app_path_ok": 1}
    items, labels, builders = traced
    if labels.shape[0] > APP_SAMPLES_MAX:
        raise emit.ToolError(f"app_eval_data returns {labels.shape[0]} samples; at most {APP_SAMPLES_MAX} are run")
    if reference_acc is None:
        raise emit.ToolError("app_eval_data is set, but eval_data has no labels: the app's accuracy has no reference; "
                             "return (inputs, labels) from eval_data")
    if not takes_strides and strided_feed(project, items, builders):
        emit.note(f"app path: not run on {artifact}: the app feeds a non-contiguous view (above), which this runtime "
                  "reads in memory order")
        return {"app_path_checked": 1, "app_path_ok": 0, "app_samples": int(labels.shape[0]), "app_inputs_contiguous": 0}
    outputs = [affine.to_numpy(ys[0]) for ys in run_items(list(items))]
    acc = float((_top1(outputs) == labels).mean())
    eager_acc = _eager_accuracy(model, items, labels) if model is not None else None
    drop = round(100.0 * (reference_acc - acc), 6)
    ok = drop <= max_drop_points
    origin = feed.where(project)
    emit.note(f"{artifact} through the app's own feed ({len(labels)} samples of app_eval_data): accuracy {acc:.4f}, "
              f"eager on eval_data {reference_acc:.4f} ({drop:+.2f} points drop)"
              + (f"; eager on the app's feed {eager_acc:.4f}" if eager_acc is not None else ""))
    m = {"app_path_checked": 1, "app_path_ok": int(ok), "app_samples": int(labels.shape[0]),
         "app_acc_target": acc, "app_acc_drop_points": drop}
    if eager_acc is not None:
        m["app_acc_eager"] = eager_acc
    eager_top1 = _top1([affine.to_numpy(reference["outputs"])])
    if eager_top1.shape[0] == labels.shape[0]:
        # The same samples as eval_data (as the key's doc asks): class by class agreement.
        m["app_top1_agreement"] = float((_top1(outputs) == eager_top1).mean())
    artifact_acc = reference.get("artifact_acc")
    if not ok and artifact_acc is not None and 100.0 * (artifact_acc - acc) <= max_drop_points:
        emit.note(f"app path: the app's feed scores {acc:.4f} on {artifact}, as the artifact does on eval_data "
                  f"({artifact_acc:.4f}): the drop is the artifact's own accuracy, not the app's preprocessing")
        m["app_drop_is_artifact"] = 1
    elif not ok:
        built = next((b for item in builders for b in item if b is not None), None)
        where = f"{built.file}:{built.line} {built.function}()" if built else origin
        app_stats = _stats(affine.to_numpy(item[0]) for item in items)
        ref_stats = _stats([affine.to_numpy(reference["inputs"][0])])
        stats = (f"; the app feeds {_fmt(app_stats)}, eval_data holds {_fmt(ref_stats)}"
                 if app_stats and ref_stats else "")
        emit.warn("app path accuracy",
                  f"{artifact} through the app's own feed scores {acc:.4f}, the eager model {reference_acc:.4f} on eval_data "
                  f"({drop:+.2f} points drop, budget {max_drop_points}): the inputs are built by {where}{stats}. "
                  "Repair the preprocessing in that function so that it feeds what the model was trained on")
        m["app_builder"] = where
        affine_found = affine_faults(project, items, builders, reference["inputs"])
        for name, built, fit in affine_found:
            source = f"{built.file}:{built.line} {built.function}()" if built else where
            emit.warn("app path affine",
                      f"input {name} as the app feeds it (built by {source}) maps onto eval_data's inputs by "
                      f"{fit.describe()} ({fit.kind}, {100 * fit.residual:.2f}% residual): the app scales, offsets or "
                      "orders its values differently from eval_data; that map, applied to what the function returns, "
                      "gives what the model was trained on")
            m["app_affine_input"] = name
        skipped = [] if affine_found else _searched("a step the app skips", lambda: skipped_steps(
            project, items, builders, reference["inputs"]))
        for name, built, step in skipped:
            source = f"{built.file}:{built.line} {built.function}()" if built else where
            emit.warn("app path skipped step",
                      f"input {name} as the app feeds it (built by {source}) is what eval_data converts with "
                      f"{step.describe()}")
            m["app_skipped_step"] = step.reference
        if not affine_found and not skipped:
            for name, substitute in _searched("a step the app's own copy diverged from", lambda: diverged_steps(
                    project, len(items[0]) if items else 0, reference["inputs"])):
                emit.warn("app path diverged step", f"input {name} as the app feeds it is made by {substitute.describe()}")
                m["app_diverged_step"] = f"{substitute.file}:{substitute.line} {substitute.function}"
    return m

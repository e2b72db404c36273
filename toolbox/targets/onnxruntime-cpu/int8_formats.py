"""onnxruntime-cpu target, tool `int8_formats`: which INT8 format is fastest here, and accurate.

An INT8 artifact is not always faster than FP32: which graph form (QDQ or QOperator), activation
type, weight granularity and set of quantized ops the CPU's integer kernels take depends on the
model and the CPU (ortquant.py). This tool builds every format of this target from
build/model.onnx (the calibration settings of the current build/model_int8.onnx are reused, so a
choice of the accuracy stage is kept), checks each against the eager model on the project's
eval_data with the INT8 accuracy gates' thresholds, then times each with FP32 in the same run:
rounds of a few runs per artifact, in turn, so that a noisy neighbour slows them all alike.

The fastest format that passes is written to build/model_int8.onnx when it is faster than the
one there, and `aipc-warning: int8 format: ...` names it and the aipc.toml setting that makes
quantize build it again (`int8_format`); the checks of the stage then decide. When no passing
format is faster than FP32, `aipc-warning: int8 not faster: ...` says so: shipping FP32, a smaller
model or another budget is a human's call.

Metrics: fp32_p50_ms, formats ({format: {p50_ms, ratio_to_fp32, cosine, top1_agreement,
acc_drop_points, passes} or {error}}), best_format, best_p50_ms, best_ratio_to_fp32,
previous_format, replaced (1/0), latency_budget_ms, best_within_budget.
"""
import os
import shutil
import time

import numpy as np

from aipc_toolbox import emit, metrics
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import eager_outputs, rebatch, take

FP32, INT8, OUT_DIR = "build/model.onnx", "build/model_int8.onnx", "build/int8_formats"


def accuracy(path, inputs, ref, labels):
    """Metrics of one artifact against the eager outputs (compare.py's definitions)."""
    from ortcommon import run_all, session

    out = run_all(session(path), [t.numpy() for t in inputs])
    return metrics.compare(ref[0], out[0], labels)


def passes(m, a):
    return (m["cosine"] >= a["min_cosine"] and m["top1_agreement"] >= a["min_top1_agreement"]
            and m.get("acc_drop_points", 0.0) <= a["max_acc_drop_points"])


def interleaved_p50(paths, arrays, threads, max_s, block=10):
    """Median latency in ms of each artifact, timed in rounds of `block` runs per artifact in turn
    until max_s seconds have passed (at least 5 rounds)."""
    from ortcommon import feed, session

    sessions = {}
    for path in paths:
        s = session(path, threads=threads)
        inputs = feed(s, arrays)
        for _ in range(10):
            s.run(None, inputs)
        sessions[path] = (s, inputs)
    times = {path: [] for path in paths}
    deadline, rounds = time.monotonic() + max_s, 0
    while rounds < 5 or time.monotonic() < deadline:
        for path, (s, inputs) in sessions.items():
            for _ in range(block):
                t0 = time.perf_counter()
                s.run(None, inputs)
                times[path].append(time.perf_counter() - t0)
        rounds += 1
    return {path: float(np.percentile(t, 50) * 1000) for path, t in times.items()}


def body(a):
    from ortcommon import fixed_batch, require_artifact, session
    from ortquant import CALIB_KEYS, FORMATS, build, calibration_feeds, pre_processed, project_format, recorded

    src = require_artifact(FP32, "FP32 model", hint="call export first")
    p = Project()
    wanted = project_format(p)
    previous, calib = (recorded(INT8) if os.path.isfile(INT8) else (None, {}))
    calib = {k: calib[k] for k in CALIB_KEYS if k in calib}
    emit.note("calibration settings " + (f"of {INT8} reused: {calib}" if calib else "by default (no recorded INT8 build)"))
    feeds, _audit, given, kept = calibration_feeds(p, src, bool(calib.get("drop_outliers")))
    inputs, labels = p.eval_data()
    inputs = take(inputs, a["samples"])
    labels = None if labels is None else labels[: inputs[0].shape[0]].numpy()
    ref = eager_outputs(p.load_model(), inputs)

    os.makedirs(OUT_DIR, exist_ok=True)
    rows, built = {}, {}
    tmp, pre, _mode = pre_processed(src)
    with tmp:
        for fmt in a["formats"] or list(FORMATS):
            path = os.path.join(OUT_DIR, f"{fmt}.onnx")
            try:
                build(pre, path, fmt, feeds, calib)
                m = accuracy(path, inputs, ref, labels)
            except Exception as e:  # noqa: BLE001 - one format failing says nothing of the others
                rows[fmt] = {"error": emit.describe(e)}
                emit.note(f"{fmt}: failed: {rows[fmt]['error']}")
                continue
            rows[fmt] = {k: m[k] for k in ("cosine", "top1_agreement", "acc_drop_points") if k in m}
            rows[fmt]["passes"] = int(passes(m, a))
            built[fmt] = path

    threads = a["threads"] or p.get("threads", 1)
    sess = session(src)
    arrays = [t.numpy() for t in rebatch(p.example_inputs(), fixed_batch(sess) or 1)]
    del sess
    p50 = interleaved_p50([src, *built.values()], arrays, threads, a["max_s"])
    fp32 = p50[src]
    for fmt, path in built.items():
        rows[fmt].update(p50_ms=round(p50[path], 4), ratio_to_fp32=round(p50[path] / fp32, 3))
    emit.note(f"FP32 {src}: p50 {fp32:.4f} ms ({threads} thread(s), measured in turn with every format)")
    for fmt, r in rows.items():
        if "error" not in r:
            emit.note(f"{fmt}: p50 {r['p50_ms']:.4f} ms ({r['ratio_to_fp32']:.2f}x FP32), cosine {r['cosine']:.4f}, "
                      f"top-1 agreement {r['top1_agreement']:.4f}" + (f", {r['acc_drop_points']:+.2f} points drop" if "acc_drop_points" in r else "")
                      + ("" if r["passes"] else " — fails the accuracy thresholds"))

    passing = sorted((r["p50_ms"], fmt) for fmt, r in rows.items() if r.get("passes"))
    out = {"fp32_p50_ms": round(fp32, 4), "formats": rows, "previous_format": previous, "project_format": wanted,
           "threads": threads, "calib_samples": kept, "dropped_samples": given - kept, "replaced": 0}
    budget = p.get("latency_budget_ms")
    if budget:
        out["latency_budget_ms"] = float(budget)
    if not passing:
        emit.warn("int8 not faster", "no INT8 format passes the accuracy thresholds (cosine >= "
                  f"{a['min_cosine']}, top-1 agreement >= {a['min_top1_agreement']}, drop <= {a['max_acc_drop_points']} points)")
        return out
    best_ms, best = passing[0]
    out.update(best_format=best, best_p50_ms=best_ms, best_ratio_to_fp32=round(best_ms / fp32, 3))
    if budget:
        out["best_within_budget"] = int(best_ms <= budget)
    if best_ms >= fp32:
        emit.warn("int8 not faster", f"the fastest INT8 format passing the accuracy thresholds, {best}, runs at p50 "
                  f"{best_ms:.4f} ms, FP32 at {fp32:.4f} ms on {threads} thread(s): INT8 does not pay here; ship FP32 "
                  "(aipc.toml quantize = \"none\") if it meets the budget, else the model or the budget must change")
        return out
    current = rows.get(previous or "", {})
    if previous != best and (not current.get("passes") or best_ms < current.get("p50_ms", float("inf"))):
        shutil.copyfile(built[best], INT8)
        out["replaced"] = 1
    timing = (f"{best} p50 {best_ms:.4f} ms ({best_ms / fp32:.2f}x of FP32 {fp32:.4f} ms"
              + (f"; {previous} {current['p50_ms']:.4f} ms" if "p50_ms" in current and previous != best else "") + ")")
    if wanted != best:
        emit.warn("int8 format", timing + " passes the accuracy thresholds" + (f" and is now {INT8}" if out["replaced"] else "")
                  + f"; aipc.toml [project] int8_format = \"{best}\" keeps it"
                  + ("; quantize = \"int8\" ships it" if p["quantize"] != "int8" else ""))
    else:
        emit.note(f"{timing}: aipc.toml int8_format already asks for the fastest format that passes")
    if budget and best_ms > budget:
        emit.warn("no int8 format within budget", f"the fastest INT8 format passing the accuracy thresholds, {best}, "
                  f"runs at p50 {best_ms:.4f} ms > {budget} ms budget: the model or the budget must change")
    return out


if __name__ == "__main__":
    emit.main("int8_formats", __file__, "performance", body)

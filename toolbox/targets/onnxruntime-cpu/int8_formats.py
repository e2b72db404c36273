"""onnxruntime-cpu target, tool `int8_formats`: which INT8 format is fastest here, and accurate.

An INT8 artifact is not always faster than FP32: which graph form (QDQ or QOperator), activation
type, weight granularity and set of quantized ops the CPU's integer kernels take depends on the
model and the CPU (ortquant.py). This tool builds every format of this target from
build/model.onnx into build/int8_formats/ (the calibration settings of the current
build/model_int8.onnx are reused, so a choice of the accuracy stage is kept), checks each against
the eager model on the project's eval_data with the INT8 accuracy gates' thresholds, then times
each with FP32 in the same run (aipc_toolbox/int8_choice.py).

The fastest format that passes is written to build/model_int8.onnx when it is faster than the
one there, or when the one there fails the thresholds (an accurate INT8 artifact replaces an
inaccurate one even when it is not faster than FP32: the latency gate decides that), and `aipc-warning: int8 format: ...` names it and the aipc.toml setting that makes
quantize build it again (`int8_format`); the checks of the stage then decide. When no passing
format is faster than FP32, `aipc-warning: int8 not faster: ...` says so: shipping FP32, a smaller
model or another budget is a human's call.

Metrics: fp32_p50_ms, formats ({format: {p50_ms, ratio_to_fp32, cosine, top1_agreement,
acc_drop_points, passes} or {error}}), best_format, best_p50_ms, best_ratio_to_fp32,
previous_format, project_format, replaced (1/0), latency_budget_ms, best_within_budget.
"""
import os
import shutil

from aipc_toolbox import emit, int8_choice
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import rebatch

FP32, INT8, OUT_DIR = "build/model.onnx", "build/model_int8.onnx", "build/int8_formats"


def body(a):
    from ortcommon import batching, feed, fixed_batch, require_artifact, run_all, session
    from ortquant import FORMATS, build, calibration_feeds, pre_processed, project_format, recorded_calibration

    src = require_artifact(FP32, "FP32 model")
    p = Project()
    wanted = project_format(p)
    previous, calib = recorded_calibration(INT8)
    feeds, audit, given, kept = calibration_feeds(p, src, bool(calib.get("drop_outliers")))
    arrays, labels, ref = int8_choice.eager_reference(p, a["samples"], lambda _rows: batching(session(src)))
    os.makedirs(OUT_DIR, exist_ok=True)
    tmp, pre, _mode = pre_processed(src)

    def build_one(fmt):
        path = os.path.join(OUT_DIR, f"{fmt}.onnx")
        build(pre, path, fmt, feeds, calib, chosen_by="int8_formats", calibration_scale=audit.scale_line)
        return path

    with tmp:
        rows, built = int8_choice.build_and_check(a["formats"] or list(FORMATS), build_one,
                                                  lambda path: run_all(session(path), arrays), ref, labels, a)
    threads = a["threads"] or p.get("threads", 1)
    sess = session(src)
    example = [t.numpy() for t in rebatch(p.example_inputs(), fixed_batch(sess) or 1)]
    del sess
    runners = {}
    for path in (src, *built.values()):
        s = session(path, threads=threads)
        runners[path] = (lambda s=s, f=feed(s, example): s.run(None, f))
    p50 = int8_choice.interleaved_p50(runners, a["max_s"])
    out = int8_choice.decide(rows, built, p50, src, a, {
        "previous": previous, "wanted": wanted, "quantize": p["quantize"], "budget": p.get("latency_budget_ms"),
        "threads": threads, "int8": INT8, "replace": lambda path: shutil.copyfile(path, INT8)})
    out.update(calib_samples=kept, dropped_samples=given - kept)
    return out


if __name__ == "__main__":
    emit.main("int8_formats", __file__, "performance", body)

"""executorch-xnnpack target, tool `int8_formats`: which INT8 format XNNPACK runs fastest, and accurate.

Builds every format of quantize.py's FORMATS (static per-channel, static per-tensor, dynamic
per-channel) with the `quantize` tool's own code into build/int8_formats/ (reusing the
calibration settings the current build/model_int8.pte's sidecar records, so a choice of the
accuracy stage is kept), checks each against the eager model on the project's eval_data with
the INT8 accuracy gates' thresholds, then times each with FP32 in the same run
(aipc_toolbox/int8_choice.py). The fastest that passes becomes build/model_int8.pte (with its
sidecar) when it is faster than the one there, or when the one there fails the thresholds; the lines it prints and the metrics are the
onnxruntime-cpu tool's (toolbox/targets/onnxruntime-cpu/int8_formats.py).
"""
import json
import os
import shutil

from aipc_toolbox import emit, int8_choice
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import rebatch

FP32, INT8, OUT_DIR = "build/model.pte", "build/model_int8.pte", "build/int8_formats"


def body(a):
    import etcommon  # sets QNN_SDK_ROOT before executorch is imported
    import quantize

    fp32 = etcommon.require_artifact(FP32)
    p = Project()
    wanted = quantize.project_format(p)
    side = (etcommon.read_sidecar(INT8) if os.path.isfile(INT8) else None) or {}
    recorded = side.get("quantize") or {}
    previous = recorded.get("format") if side else None
    calib = {k: recorded[k] for k in quantize.CALIB_KEYS if k in recorded}
    int8_choice.calibration_note(INT8, calib)
    arrays, labels, ref = int8_choice.eager_reference(
        p, a["samples"], lambda rows: etcommon.batching(etcommon.read_sidecar(FP32), rows))
    os.makedirs(OUT_DIR, exist_ok=True)

    def build_one(fmt):
        path = os.path.join(OUT_DIR, f"{fmt}.pte")
        quantize.body({"format": fmt, "per_channel": None, "observer": calib.get("observer", "histogram"),
                       "moving_average": bool(calib.get("moving_average")), "drop_outliers": bool(calib.get("drop_outliers")),
                       "nodes_to_exclude": list(calib.get("nodes_to_exclude") or []),
                       "dynamic_batch": None, "dynamic_seq": None, "output": path})
        side_path = etcommon.sidecar_path(path)  # mark it measured here (inspect tells it from a stale build)
        with open(side_path) as f:
            side = json.load(f)
        side.setdefault("quantize", {})["chosen_by"] = "int8_formats"
        with open(side_path, "w") as f:
            json.dump(side, f, indent=1)
        return path

    def outputs(path):
        return etcommon.run_all(etcommon.load_method(path), arrays, etcommon.read_sidecar(path))

    rows, built = int8_choice.build_and_check(a["formats"] or list(quantize.FORMATS), build_one, outputs, ref, labels, a)
    threads = a["threads"] or p.get("threads", 1)
    etcommon.set_threads(threads)
    runners = {}
    for path in (fp32, *built.values()):
        s = etcommon.read_sidecar(path) or {}
        ex = p.example_inputs()
        batch = 1 if s.get("dynamic_batch") else int(s.get("example_batch") or ex[0].shape[0])
        method, example = etcommon.load_method(path), list(rebatch(ex, batch))
        runners[path] = (lambda m=method, x=example: m.execute(x))
    p50 = int8_choice.interleaved_p50(runners, a["max_s"])

    def replace(path):
        shutil.copyfile(path, INT8)
        shutil.copyfile(etcommon.sidecar_path(path), etcommon.sidecar_path(INT8))

    return int8_choice.decide(rows, built, p50, fp32, a, {
        "previous": previous, "wanted": wanted, "quantize": p["quantize"], "budget": p.get("latency_budget_ms"),
        "threads": threads, "int8": INT8, "replace": replace})


if __name__ == "__main__":
    emit.main("int8_formats", __file__, "performance", body)

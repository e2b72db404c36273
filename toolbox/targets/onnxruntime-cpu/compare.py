"""onnxruntime-cpu target, tool `compare`: the artifact against eager PyTorch on real samples.

Runs the project's eval_data through the eager model (the reference, FP32) and through the
artifact in onnxruntime, then compares the first output (the logits):
- cosine: one cosine over all samples' outputs, flattened (AIPC's definition); cosine_mean: the
  mean of the per-sample cosines; cosine_min: the worst sample (aipc_toolbox/metrics.py says why);
- max_abs_err; top1_agreement: share of samples whose arg-max class is the same;
- task_acc_ref / task_acc_target: accuracy against the labels; acc_drop_points = 100 x (ref - target)
  (without labels, against the eager model's classes: task_labels "eager", aipc_toolbox/metrics.py);
- samples;
- app_path_checked, app_path_ok, app_acc_target, app_acc_drop_points (and app_acc_eager): the same
  artifact through the app's own feed (aipc.toml app_eval_data, aipc_toolbox/app_path.py);
- only when it is measured: conditioning_checked, fp64_eager_cosine, fp64_artifact_cosine, ill_conditioned (and
  diverging_module / diverging_source): for a float artifact off eager, whether that is the model's
  own rounding (aipc_toolbox/conditioning.py).
`--artifact build/model_int8.onnx` compares the INT8 artifact (kind: int8).
"""
import time

import numpy as np

from aipc_toolbox import app_path, conditioning, emit, metrics
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import eager_outputs, take


def body(a):
    from ortcommon import batching
    from ortcommon import feed as feed_dict
    from ortcommon import is_quantized, require_artifact, run_all, run_many, session

    path = require_artifact(a["artifact"])
    p = Project()
    inputs, labels = p.eval_data()
    inputs = take(inputs, a["samples"])
    labels = labels[: inputs[0].shape[0]] if labels is not None else None
    model = p.load_model()
    sess = session(path)
    t0 = time.monotonic()
    ref = eager_outputs(model, inputs, *batching(sess))
    eager_s = time.monotonic() - t0
    t0 = time.monotonic()
    out = run_all(sess, [t.numpy() for t in inputs])
    target_s = time.monotonic() - t0
    if len(out) != len(ref):
        raise emit.ToolError(f"{path} has {len(out)} outputs, the eager model {len(ref)}")
    m = metrics.compare(ref[0], out[0], None if labels is None else labels.numpy())
    emit.note(
        f"{path} vs eager on {m['samples']} samples: cosine {m['cosine']:.6f} (per-sample mean {m['cosine_mean']:.6f}, "
        f"min {m['cosine_min']:.6f}), max_abs_err {m['max_abs_err']:.3g}, top-1 agreement {m['top1_agreement']:.4f}"
        + f", accuracy {m['task_acc_ref']:.4f} -> {m['task_acc_target']:.4f} ({m['acc_drop_points']:+.2f} points drop)"
        + ("" if labels is not None else " against the eager model's classes (eval_data has no labels)")
    )

    if not is_quantized(path):
        # A float artifact off eager: is it the export, or the model's own rounding?
        m.update(conditioning.measure(model, inputs, ref[0], out[0], *batching(sess)))

    def run_items(items):
        return run_many(sess, [feed_dict(sess, [t if isinstance(t, np.ndarray) else t.numpy() for t in item])
                               for item in items])

    reference = {"acc": m["task_acc_ref"] if labels is not None else None, "inputs": inputs, "outputs": ref[0],
                 "artifact_acc": m["task_acc_target"] if labels is not None else None}
    m.update(app_path.measure(p, path, run_items, reference, a["max_app_drop_points"], model))
    m.update({"artifact": path, "kind": "int8" if is_quantized(path) else "fp32",
              "eager_s": round(eager_s, 3), "target_s": round(target_s, 3)})
    return m


if __name__ == "__main__":
    emit.main("compare", __file__, "accuracy", body)

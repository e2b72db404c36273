"""executorch-xnnpack target, tool `compare`: a .pte against eager PyTorch on real samples.

Runs the project's eval_data through the eager model (the FP32 reference) and through the
.pte with executorch.runtime (in chunks the artifact accepts: its static batch, padded, or up
to its dynamic batch maximum; the eager model runs in the same chunks, so a model whose answer
depends on its batch is compared batch for batch), then compares the first output:
- cosine: one cosine over all samples' outputs, flattened (AIPC's definition); cosine_mean: the
  mean of the per-sample cosines; cosine_min: the worst sample (aipc_toolbox/metrics.py says why);
- max_abs_err; top1_agreement; task_acc_ref / task_acc_target; acc_drop_points = 100 x (ref - target)
  (without labels, against the eager model's classes: task_labels "eager", aipc_toolbox/metrics.py);
- samples;
- app_path_checked, app_path_ok, app_acc_target, app_acc_drop_points (and app_acc_eager): the same
  artifact through the app's own feed (aipc.toml app_eval_data, aipc_toolbox/app_path.py);
- only when it is measured: conditioning_checked, fp64_eager_cosine, fp64_artifact_cosine, ill_conditioned (and
  diverging_module / diverging_source): for a float artifact off eager, whether that is the model's
  own rounding (aipc_toolbox/conditioning.py).
`--artifact build/model_int8.pte` compares the INT8 artifact.
"""
import time

import numpy as np

from aipc_toolbox import app_path, conditioning, emit, metrics
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import eager_outputs, take


def body(a):
    import etcommon

    path = etcommon.require_artifact(a["artifact"])
    p = Project()
    side = etcommon.read_sidecar(path)
    if side is None:
        ex = p.example_inputs()
        side = {"dynamic_batch": False, "example_batch": int(ex[0].shape[0])}
        emit.note(f"no {etcommon.sidecar_path(path)}: assuming the static batch of the example inputs ({side['example_batch']})")
    inputs, labels = p.eval_data()
    inputs = take(inputs, a["samples"])
    labels = labels[: inputs[0].shape[0]] if labels is not None else None
    model = p.load_model()
    t0 = time.monotonic()
    ref = eager_outputs(model, inputs, *etcommon.batching(side, inputs[0].shape[0]))
    eager_s = time.monotonic() - t0
    method = etcommon.load_method(path)
    t0 = time.monotonic()
    out = etcommon.run_all(method, [t.numpy() for t in inputs], side)
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

    if not side.get("quantized"):
        # A float artifact off eager: is it the export, or the model's own rounding?
        m.update(conditioning.measure(model, inputs, ref[0], out[0], *etcommon.batching(side, inputs[0].shape[0])))

    def run_items(items):
        import torch

        return etcommon.execute_many(method, [[torch.from_numpy(t) if isinstance(t, np.ndarray) else t for t in item]
                                              for item in items])

    reference = {"acc": m["task_acc_ref"] if labels is not None else None, "inputs": inputs, "outputs": ref[0],
                 "artifact_acc": m["task_acc_target"] if labels is not None else None}
    m.update(app_path.measure(p, path, run_items, reference, a["max_app_drop_points"], model, takes_strides=False))
    m.update({"artifact": path, "kind": "int8" if side.get("quantized") else "fp32",
              "eager_s": round(eager_s, 3), "target_s": round(target_s, 3)})
    return m


if __name__ == "__main__":
    emit.main("compare", __file__, "accuracy", body)

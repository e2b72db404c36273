"""qairt-* targets, tool `compare`: the artifact against eager PyTorch on real samples. The
project's eval_data runs through the eager model (FP32 reference) and through the SDK's runtime
(on the device when the session has one), in chunks of the net's fixed batch: qairt-qnn's FP
library on the CPU backend (libQnnCpu.so) and INT8 context binary on the HTP backend
(libQnnHtp.so) with qnn-net-run; qairt-snpe's FP DLC on the CPU runtime and quantized DLC on the
DSP runtime (--use_dsp) with snpe-net-run.

Metrics: ran, finite (1/0), and aipc_toolbox/metrics.py's cosine, cosine_mean, cosine_min,
max_abs_err, top1_agreement, task_acc_ref, task_acc_target, acc_drop_points, samples; kind.
"""
import numpy as np

from aipc_toolbox import emit, metrics
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import eager_outputs, take


def body(a):
    import qnncommon as q

    path = a["artifact"]
    net = q.net_of(path)
    p = Project()
    inputs, labels = p.eval_data()
    inputs = take(inputs, a["samples"])
    labels = labels[: inputs[0].shape[0]] if labels is not None else None
    ref = eager_outputs(p.load_model(), inputs, net["inputs"][0]["dims"][0], True)  # the chunks run_all runs
    out = q.run_all(path, [t.numpy() for t in inputs])
    finite = all(np.isfinite(o).all() for o in out)
    m = metrics.compare(ref[0], out[0], None if labels is None else labels.numpy())
    q_ = net.get("quantization")
    bits = f" (activations {q_['act_bw']} bit, weights {q_['weight_bw']} bit)" if q_ else ""
    emit.note(f"{path}{bits} ({q.runtime_tool(path)}) vs eager on {m['samples']} samples: cosine {m['cosine']:.6f} (min {m['cosine_min']:.6f}), "
              f"top-1 agreement {m['top1_agreement']:.4f}, accuracy {m['task_acc_ref']:.4f} -> {m['task_acc_target']:.4f} "
              f"({m['acc_drop_points']:+.2f} points drop)")
    m.update({"artifact": path, "ran": 1, "finite": int(finite), "kind": "int8" if net.get("quantization") else "fp"})
    return m


if __name__ == "__main__":
    emit.main("compare", __file__, "accuracy", body)

"""qairt-snpe target, tool `convert`: the FP DLC. `qairt-converter` turns build/model.onnx into
build/snpe/model.dlc (`--preserve_io`, `--float_bitwidth`; every dynamic input fixed with
`--source_model_input_shape <name> <dims>` to the project's example inputs' sizes), and the DLC's
description (inputs, outputs, ops) is written beside it as build/snpe/model.dlc.json, from the
ONNX artifact (qairt-qnn's qnncommon.describe_onnx), for compare and profile to feed it.

Metrics: converted (1), ops (op -> count), dlc_bytes, float_bitwidth.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qairt-qnn"))

from aipc_toolbox import emit  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402


def body(a):
    import qnncommon as q

    if not os.path.isfile(q.ONNX):
        raise emit.ToolError(f"{q.ONNX} does not exist: call export first")
    p = Project()
    os.makedirs(os.path.dirname(q.FP_DLC), exist_ok=True)
    q.run_tool("qairt-converter", ["--input_network", q.ONNX, "--output_path", q.FP_DLC, "--preserve_io",
                                   "--float_bitwidth", a["float_bitwidth"]]
               + q.fixed_dims(p, "--source_model_input_shape"))
    if not os.path.isfile(q.FP_DLC) or os.path.getsize(q.FP_DLC) == 0:
        raise emit.ToolError(f"qairt-converter exited 0 but wrote no {q.FP_DLC}")
    net = q.describe_onnx(p)
    net.update({"float_bitwidth": a["float_bitwidth"], "quantization": None})
    q.write_net(q.FP_DLC, net)
    return {"converted": 1, "artifact": q.FP_DLC, "ops": net["ops"], "dlc_bytes": os.path.getsize(q.FP_DLC),
            "float_bitwidth": a["float_bitwidth"]}


if __name__ == "__main__":
    emit.main("convert", __file__, "convert", body)

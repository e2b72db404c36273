"""qairt-qnn target, tool `convert`: the FP model for QNN. `qnn-onnx-converter` turns
build/model.onnx into build/qnn/fp/model.cpp, model.bin and model_net.json (`--preserve_io`,
`--float_bitwidth`; every dynamic input fixed with `-d <name> <dims>` to the project's example
inputs' sizes), then `qnn-model-lib-generator` builds build/qnn/fp/libs/x86_64-linux-clang/libmodel.so.

Metrics: converted (1), ops (op -> count), lib_bytes, float_bitwidth.
"""
import os

from aipc_toolbox import emit
from aipc_toolbox.project import Project


def body(a):
    import qnncommon as q

    if not os.path.isfile(q.ONNX):
        raise emit.ToolError(f"{q.ONNX} does not exist: call export first")
    p = Project()
    q.run_tool("qnn-onnx-converter", ["--input_network", q.ONNX, "--output_path", q.FP_CPP, "--preserve_io",
                                      "--float_bitwidth", a["float_bitwidth"]] + q.fixed_dims(p))
    stem = os.path.splitext(q.FP_CPP)[0]
    q.run_tool("qnn-model-lib-generator", ["-c", q.FP_CPP, "-b", stem + ".bin", "-o", "build/qnn/fp/libs", "-t", q.HOST])
    net = q.net_of(q.FP_LIB)
    return {"converted": 1, "artifact": q.FP_LIB, "ops": net["ops"], "lib_bytes": os.path.getsize(q.FP_LIB),
            "float_bitwidth": a["float_bitwidth"]}


if __name__ == "__main__":
    emit.main("convert", __file__, "convert", body)

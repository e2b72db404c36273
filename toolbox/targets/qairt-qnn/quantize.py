"""qairt-qnn target, tool `quantize`: the INT8 model for the HTP. The project's calibration data
(aipc.toml calibration_data) is written as raw float32 files with an input list; the converter
quantizes with it (`--input_list`, `--act_bw`, `--weight_bw`) into build/qnn/int8/model_int8.cpp,
the library is built, and `qnn-context-binary-generator` prepares it offline for the HTP backend
(libQnnHtp.so): build/qnn/int8/output/model_int8.bin.

Metrics: quantized (1), calibration_samples, act_bw, weight_bw, context_bytes.
"""
import os

from aipc_toolbox import emit
from aipc_toolbox.project import Project


def body(a):
    import qnncommon as q

    if not os.path.isfile(q.ONNX):
        raise emit.ToolError(f"{q.ONNX} does not exist: call export first")
    p = Project()
    names = [n for n, _ in q.graph_inputs()]
    calib = [[t.numpy() for t in item] for item in p.calibration_data()]
    lst = q.write_input_list(calib, names, "build/qnn/calib")
    emit.note(f"{len(calib)} calibration samples of {p.cfg['calibration_data']} written to {lst}")
    q.run_tool("qnn-onnx-converter", ["--input_network", q.ONNX, "--output_path", q.INT8_CPP, "--preserve_io",
                                      "--input_list", lst, "--act_bw", a["act_bw"], "--weight_bw", a["weight_bw"]]
               + q.fixed_dims(p))
    stem = os.path.splitext(q.INT8_CPP)[0]
    q.run_tool("qnn-model-lib-generator", ["-c", q.INT8_CPP, "-b", stem + ".bin", "-o", "build/qnn/int8/libs", "-t", q.HOST])
    q.run_tool("qnn-context-binary-generator", ["--backend", q.backend("libQnnHtp.so"), "--model", q.INT8_LIB,
                                                "--binary_file", "model_int8", "--output_dir", "build/qnn/int8/output"])
    return {"quantized": 1, "artifact": q.INT8_CONTEXT, "calibration_samples": len(calib), "act_bw": a["act_bw"],
            "weight_bw": a["weight_bw"], "context_bytes": os.path.getsize(q.INT8_CONTEXT)}


if __name__ == "__main__":
    emit.main("quantize", __file__, "quantize", body)

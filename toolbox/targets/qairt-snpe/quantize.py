"""qairt-snpe target, tool `quantize`: the quantized DLC for the DSP/HTP runtime. The project's
calibration data (aipc.toml calibration_data) is written as raw float32 files with an input list,
and `snpe-dlc-quant` quantizes build/snpe/model.dlc with it (`--act_bitwidth`,
`--weights_bitwidth`, `--enable_htp` to prepare the HTP graph offline) into
build/snpe/model_int8.dlc; its description (the FP DLC's, plus the bit widths and the number of
calibration samples) goes beside it as model_int8.dlc.json.

Metrics: quantized (1), calibration_samples, act_bw, weight_bw, dlc_bytes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qairt-qnn"))

from aipc_toolbox import emit  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402


def body(a):
    import qnncommon as q

    net = q.net_of(q.FP_DLC)  # names `convert` when the FP DLC is not there
    p = Project()
    names = [i["name"] for i in net["inputs"]]
    calib = [[t.numpy() for t in item] for item in p.calibration_data()]
    lst = q.write_input_list(calib, names, "build/snpe/calib")
    emit.note(f"{len(calib)} calibration samples of {p.cfg['calibration_data']} written to {lst}")
    q.run_tool("snpe-dlc-quant", ["--input_dlc", q.FP_DLC, "--input_list", lst, "--output_dlc", q.INT8_DLC,
                                  "--act_bitwidth", a["act_bw"], "--weights_bitwidth", a["weight_bw"], "--enable_htp"])
    if not os.path.isfile(q.INT8_DLC) or os.path.getsize(q.INT8_DLC) == 0:
        raise emit.ToolError(f"snpe-dlc-quant exited 0 but wrote no {q.INT8_DLC}")
    net["quantization"] = {"act_bw": a["act_bw"], "weight_bw": a["weight_bw"], "calibration_samples": len(calib)}
    q.write_net(q.INT8_DLC, net)
    return {"quantized": 1, "artifact": q.INT8_DLC, "calibration_samples": len(calib), "act_bw": a["act_bw"],
            "weight_bw": a["weight_bw"], "dlc_bytes": os.path.getsize(q.INT8_DLC)}


if __name__ == "__main__":
    emit.main("quantize", __file__, "quantize", body)

"""split adaptation, tool `build_backbone`: cut the project's model at aipc.toml `split_head`,
apply the quantization restoration asked for (argument `restoration`, else aipc.toml
`restoration`: "none", "per_channel", "cle", "cle+per_channel"), then build the runtime's FP32 backbone
(build/backbone.onnx | .pte) and its INT8 backbone (build/backbone_int8.*), calibrated on the
project's calibration_data. build/backbone.json records how (restoration, seconds, hashes).

Cross-layer equalization changes the float weights, never the float function: the equalized
backbone's output is compared with the original's and the build stops if it moved.

Metrics: built (1/0), restoration, cle_pairs, export_s, quantize_s, fp32_bytes, int8_bytes.
"""
import json
import os

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib


def body(a):
    p = Project()
    b = splitlib.backend()
    split = splitlib.Split(p)
    chosen = splitlib.restorations(p, a)
    example = p.example_inputs()
    backbone = split.backbone
    cle_pairs, ranges = 0, None
    if "cle" in chosen:
        backbone, cle_pairs, ranges = splitlib.cross_layer_equalize(backbone, example)
        if not cle_pairs:
            emit.warn("restoration not applied", "cle found no pair of consecutive convolutions to equalize in the backbone")
    fp32, int8 = splitlib.artifact_paths()
    calib = p.calibration_data()
    note(f"backbone = {type(split.model).__name__} with {split.head_path!r} replaced by an identity; "
         f"restoration: {', '.join(chosen) or 'none'}")
    export_s = b.export(backbone, example, fp32)
    extra = {"backbone": backbone, "example": example} if b.RUNTIME == "executorch-xnnpack" else {}
    quantize_s = b.quantize(fp32, int8, calib, "per_channel" in chosen, **extra)
    side = {
        "runtime": b.RUNTIME, "split_head": split.head_path, "restoration": splitlib.restoration_name(chosen), "cle_pairs": cle_pairs,
        "cle_ranges": ranges, "export_s": round(export_s, 3), "quantize_s": round(quantize_s, 3),
        "fp32": {"artifact": fp32, "sha256": splitlib.sha256(fp32), "bytes": os.path.getsize(fp32)},
        "int8": {"artifact": int8, "sha256": splitlib.sha256(int8), "bytes": os.path.getsize(int8)},
    }
    with open(splitlib.SIDECAR, "w") as f:
        json.dump(side, f, indent=1)
    note(f"wrote {fp32}, {int8} and {splitlib.SIDECAR}")
    return {"built": 1, "restoration": splitlib.restoration_name(chosen), "cle_pairs": cle_pairs, "export_s": side["export_s"],
            "quantize_s": side["quantize_s"], "fp32_bytes": side["fp32"]["bytes"], "int8_bytes": side["int8"]["bytes"]}


if __name__ == "__main__":
    emit.main("build_backbone", __file__, "backbone", body)

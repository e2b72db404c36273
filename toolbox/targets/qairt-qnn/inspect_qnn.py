"""qairt-* targets, tool `inspect_qnn` (qairt-snpe's `inspect_dlc`): describe a QAIRT artifact
(qairt-qnn's FP model library or INT8 context binary, qairt-snpe's FP or quantized DLC): present
and non-empty, its file kind (ELF for a real SDK's library; aipc's test stand-in writes its own
container), and its description (the QNN converter's _net.json beside its source, or the DLC's
sidecar: inputs, outputs, ops, quantization).

Metrics: exists, bytes, kind (elf / standin / other), quantized (1/0), fixed_shapes (1 when every
input has static dims), inputs, outputs, ops.
"""
import os

from aipc_toolbox import emit


def body(a):
    import qnncommon as q

    path = a["artifact"]
    net = q.net_of(path)
    with open(path, "rb") as f:
        head = f.read(16)
    kind = "elf" if head.startswith(b"\x7fELF") else "standin" if head.startswith(b"QNN-STANDIN") else "other"
    size = os.path.getsize(path)
    fixed = all(d > 0 for i in net["inputs"] for d in i["dims"])
    emit.note(f"{path}: {size} bytes ({kind}); inputs {[(i['name'], i['dims']) for i in net['inputs']]}; "
              f"outputs {[(o['name'], o['dims']) for o in net['outputs']]}; "
              + (f"quantized (act {net['quantization']['act_bw']} bit, weights {net['quantization']['weight_bw']} bit, "
                 f"{net['quantization']['calibration_samples']} calibration samples)" if net.get("quantization") else "float"))
    return {"artifact": path, "exists": int(size > 0), "bytes": size, "kind": kind,
            "quantized": int(bool(net.get("quantization"))), "fixed_shapes": int(fixed),
            "inputs": net["inputs"], "outputs": net["outputs"], "ops": net["ops"]}


if __name__ == "__main__":
    emit.main("inspect_qnn", __file__, "inspect", body)

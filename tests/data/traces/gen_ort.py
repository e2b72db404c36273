"""Record real onnxruntime-cpu toolchain failures with full tracebacks, one file per case.

Run in the onnxruntime-cpu venv from a scratch copy of this file (short paths):
`python gen_ort.py` writes ort--*.txt there (scratch files under ./_scratch). Each case runs
in a child process and records what a toolbox script prints on failure: the toolchain's own
output (C++ lines on fd 2 included) and the full traceback.
"""
import os, subprocess, sys, traceback, warnings
import numpy as np
import torch

os.makedirs("_scratch", exist_ok=True)
CASES = {}


def case(name, fn):
    CASES[name] = fn


def record(name):
    """Run one case in a child process so that C++ output on fd 2 is captured too."""
    out = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True)
    text = (out.stdout + out.stderr).replace(os.getcwd() + "/", "").replace(sys.prefix, "venv")
    # torch shortens paths in "Caused by: (...)" by cutting their start.
    cwd = os.getcwd() + "/"
    for k in range(1, len(cwd)):
        text = text.replace("(" + cwd[k:], "(")
    with open(f"{PREFIX}--{name}.txt", "w") as f:
        f.write(text)
    print(name, len(text.splitlines()), "lines, exit", out.returncode)


PREFIX = "ort"


class Branch(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


def dynamo_data_dependent():
    torch.onnx.export(Branch(), (torch.randn(2, 4),), "_scratch/branch.onnx", dynamo=True)


class DataPtr(torch.nn.Module):
    def forward(self, x):
        return x * (x.data_ptr() % 2)


def dynamo_data_ptr():
    torch.onnx.export(DataPtr(), (torch.randn(4, 2),), "_scratch/ptr.onnx", dynamo=True)


class Median(torch.nn.Module):
    def forward(self, x):
        return torch.median(x, dim=1).values


def dynamo_median():
    torch.onnx.export(Median(), (torch.randn(2, 5),), "_scratch/median.onnx", dynamo=True)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.conv(x).mean(dim=(2, 3)))


def opset13_drift():
    torch.onnx.export(Net().eval(), (torch.randn(2, 3, 16, 16),), "_scratch/net13.onnx",
                      dynamo=True, opset_version=13, input_names=["input"])
    import onnx
    print("opset_import", [(o.domain, o.version) for o in onnx.load("_scratch/net13.onnx").opset_import])


def export_net():
    torch.onnx.export(Net().eval(), (torch.randn(2, 3, 16, 16),), "_scratch/net.onnx",
                      dynamo=True, input_names=["input"], output_names=["logits"],
                      dynamic_shapes={"x": {0: torch.export.Dim("batch", min=1, max=64)}})


def calibration_wrong_name():
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter([{"images": np.random.randn(2, 3, 16, 16).astype(np.float32)}])

        def get_next(self):
            return next(self.items, None)

    quantize_static("_scratch/net.onnx", "_scratch/net_int8.onnx", Reader(),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8)


def external_data_missing():
    import onnx, onnxruntime as ort
    m = onnx.load("_scratch/net.onnx")
    onnx.save_model(m, "_scratch/ext.onnx", save_as_external_data=True,
                    all_tensors_to_one_file=True, location="ext.onnx.data", size_threshold=0)
    os.remove("_scratch/ext.onnx.data")
    ort.InferenceSession("_scratch/ext.onnx", providers=["CPUExecutionProvider"])


class FFT(torch.nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()


def legacy_unsupported():
    warnings.simplefilter("ignore")
    torch.onnx.export(FFT(), (torch.randn(8),), "_scratch/fft.onnx", dynamo=False, opset_version=17)


def ort_wrong_rank():
    import onnxruntime as ort
    s = ort.InferenceSession("_scratch/net.onnx", providers=["CPUExecutionProvider"])
    s.run(None, {"input": np.zeros((3, 16, 16), np.float32)})


case("dynamo-data-dependent", dynamo_data_dependent)
case("dynamo-data-ptr", dynamo_data_ptr)
case("dynamo-median", dynamo_median)
case("opset13-drift", opset13_drift)
case("calibration-wrong-input-name", calibration_wrong_name)
case("external-data-missing", external_data_missing)
case("legacy-unsupported-op", legacy_unsupported)
case("wrong-rank", ort_wrong_rank)

if __name__ == "__main__":
    # `gen.py` records every case, `gen.py A B` only those; `--case A` is the child run.
    if sys.argv[1:2] == ["--case"]:
        try:
            CASES[sys.argv[2]]()
            print("(no exception)")
        except Exception:
            traceback.print_exc()
            sys.exit(1)
    else:
        export_net()
        for name in sys.argv[1:] or CASES:
            record(name)

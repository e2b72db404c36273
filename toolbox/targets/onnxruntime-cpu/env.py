"""onnxruntime-cpu target, tool `env`: the env stage's check. Imports the pinned toolchain, checks the
environment, loads the project from aipc.toml [project] and runs the eager model once on its
example inputs (a missing weights file shows here: run `python train.py`).

Metrics: toolchain_ok, project_ok, eager_ok (1/0); versions.
"""
import os

os.environ.setdefault("QNN_SDK_ROOT", "")  # never let ExecuTorch's Qualcomm backend download an SDK

from aipc_toolbox import emit, envcheck  # noqa: E402

MODULES = [("torch", "torch"), ("onnx", "onnx"), ("onnxscript", "onnxscript"), ("onnxruntime", "onnxruntime"), ("sklearn", "scikit-learn")]


def body(a):
    return envcheck.check(MODULES)


if __name__ == "__main__":
    emit.main("env", __file__, "env", body)

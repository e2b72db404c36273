"""qairt-qnn target, tool `env`: the env stage's check. The build host's Python toolchain
(onnxruntime-cpu's venv: torch, onnx, onnxruntime), the QAIRT SDK ($QAIRT_SDK_ROOT: its
version and the tools and backends this flow calls, docs/qairt.md), and the project loading and
running eagerly on its example inputs.

Metrics: toolchain_ok, project_ok, eager_ok, eager_deterministic (envcheck), sdk_ok (1/0),
sdk_version, sdk_missing (what is not there).
"""
import os

os.environ.setdefault("QNN_SDK_ROOT", "")  # never let ExecuTorch's Qualcomm backend download an SDK

from aipc_toolbox import emit, envcheck  # noqa: E402

MODULES = [("torch", "torch"), ("onnx", "onnx"), ("onnxscript", "onnxscript"), ("onnxruntime", "onnxruntime")]
TOOLS = ["qnn-onnx-converter", "qnn-model-lib-generator", "qnn-context-binary-generator", "qnn-net-run", "qnn-profile-viewer"]
BACKENDS = ["libQnnCpu.so", "libQnnHtp.so"]


def body(a):
    import qnncommon

    out = envcheck.check(MODULES)
    root = qnncommon.sdk_root()  # names QAIRT_SDK_ROOT when it is not set
    missing = [t for t in TOOLS if not os.path.isfile(os.path.join(root, "bin", qnncommon.HOST, t))]
    missing += [b for b in BACKENDS if not os.path.isfile(os.path.join(root, "lib", qnncommon.HOST, b))]
    version = qnncommon.sdk_version()
    emit.note(f"QAIRT SDK {root}: {version}" + (f"; missing: {', '.join(missing)}" if missing else "; tools and backends present"))
    if "stand-in" in version:
        emit.note("this is aipc's test stand-in for the SDK (tests/data/qairt-standin), not the Qualcomm SDK")
    out.update({"sdk_ok": int(not missing), "sdk_version": version, "sdk_missing": missing})
    return out


if __name__ == "__main__":
    emit.main("env", __file__, "env", body)

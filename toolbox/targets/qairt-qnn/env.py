"""qairt-* targets, tool `env`: the env stage's check. The build host's Python toolchain
(onnxruntime-cpu's venv: torch, onnx, onnxruntime), the QAIRT SDK ($QAIRT_SDK_ROOT: its
version and the tools and backends the session's target's flow calls, docs/qairt.md), and the
project loading and running eagerly on its example inputs.

Metrics: toolchain_ok, project_ok, eager_ok, eager_deterministic (envcheck), sdk_ok (1/0),
sdk_version, sdk_missing (what is not there).
"""
import os

os.environ.setdefault("QNN_SDK_ROOT", "")  # never let ExecuTorch's Qualcomm backend download an SDK

from aipc_toolbox import emit, envcheck  # noqa: E402

MODULES = [("torch", "torch"), ("onnx", "onnx"), ("onnxscript", "onnxscript"), ("onnxruntime", "onnxruntime")]
# Per flow (the engine names the session's target in $AIPC_TARGET): the tools in bin/<host>, the
# backends in lib/<host>. Keep in step with src/doctor.rs.
TOOLS = {"qairt-qnn": ["qnn-onnx-converter", "qnn-model-lib-generator", "qnn-context-binary-generator", "qnn-net-run",
                       "qnn-profile-viewer"],
         "qairt-snpe": ["qairt-converter", "snpe-dlc-quant", "snpe-dlc-info", "snpe-net-run", "snpe-diagview"]}
BACKENDS = {"qairt-qnn": ["libQnnCpu.so", "libQnnHtp.so"], "qairt-snpe": []}


def body(a):
    import qnncommon

    out = envcheck.check(MODULES)
    root = qnncommon.sdk_root()  # names QAIRT_SDK_ROOT when it is not set
    target = os.environ.get("AIPC_TARGET", "")
    target = target if target in TOOLS else "qairt-qnn"
    missing = [t for t in TOOLS[target] if not os.path.isfile(os.path.join(root, "bin", qnncommon.HOST, t))]
    missing += [b for b in BACKENDS[target] if not os.path.isfile(os.path.join(root, "lib", qnncommon.HOST, b))]
    version = qnncommon.sdk_version()
    emit.note(f"QAIRT SDK {root}: {version}" + (f"; missing: {', '.join(missing)}" if missing else "; tools and backends present"))
    if "stand-in" in version:
        emit.note("this is aipc's test stand-in for the SDK (tests/data/qairt-standin), not the Qualcomm SDK")
    out.update({"sdk_ok": int(not missing), "sdk_version": version, "sdk_missing": missing})
    return out


if __name__ == "__main__":
    emit.main("env", __file__, "env", body)

"""Shared helpers of the qairt-* targets' scripts (qairt-qnn here, qairt-snpe imports this file):
the QAIRT SDK ($QAIRT_SDK_ROOT, docs/qairt.md), its tools run with their output streamed, the
artifacts of both flows (QNN: model library and HTP context binary; SNPE: FP and quantized DLC)
and what each runs in, raw-file input lists, and executing an artifact with qnn-net-run or
snpe-net-run through device_runner.py (on the session's device when there is one, else in a job
folder on the build host)."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from aipc_toolbox import device
from aipc_toolbox.emit import ToolError, note

HOST = "x86_64-linux-clang"
ONNX = "build/model.onnx"
FP_CPP = "build/qnn/fp/model.cpp"
FP_LIB = f"build/qnn/fp/libs/{HOST}/libmodel.so"
INT8_CPP = "build/qnn/int8/model_int8.cpp"
INT8_LIB = f"build/qnn/int8/libs/{HOST}/libmodel_int8.so"
INT8_CONTEXT = "build/qnn/int8/output/model_int8.bin"
FP_DLC = "build/snpe/model.dlc"
INT8_DLC = "build/snpe/model_int8.dlc"
# artifact -> the description it is read with (the QNN converter's _net.json; for a DLC the
# sidecar convert/quantize write beside it), then what runs it: qnn-net-run with a library
# (--model) or a context (--retrieve_context) on a backend, or snpe-net-run on a runtime.
ARTIFACTS = {
    FP_LIB: {"net": "build/qnn/fp/model_net.json", "runner": "qnn", "context": False, "backend": "libQnnCpu.so",
             "built_by": "convert"},
    INT8_CONTEXT: {"net": "build/qnn/int8/model_int8_net.json", "runner": "qnn", "context": True,
                   "backend": "libQnnHtp.so", "built_by": "quantize"},
    FP_DLC: {"net": FP_DLC + ".json", "runner": "snpe", "runtime": "cpu", "built_by": "convert"},
    INT8_DLC: {"net": INT8_DLC + ".json", "runner": "snpe", "runtime": "dsp", "built_by": "quantize"},
}
# The (FP, INT8) artifacts of each target's flow; the engine names the target in $AIPC_TARGET.
FLOWS = {"qairt-qnn": (FP_LIB, INT8_CONTEXT), "qairt-snpe": (FP_DLC, INT8_DLC)}
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device_runner.py")


def flow():
    """(FP, INT8) artifacts of the session's target (qairt-qnn when run outside a session)."""
    return FLOWS.get(os.environ.get("AIPC_TARGET", ""), FLOWS["qairt-qnn"])


def runtime_tool(artifact):
    """The SDK tool that executes `artifact`: qnn-net-run or snpe-net-run."""
    return "snpe-net-run" if ARTIFACTS[artifact]["runner"] == "snpe" else "qnn-net-run"


def sdk_root():
    """The SDK folder, or a ToolError that names the variable (env.qnn_sdk_missing)."""
    root = os.environ.get("QAIRT_SDK_ROOT") or os.environ.get("QNN_SDK_ROOT")
    if not root:
        raise ToolError("QAIRT_SDK_ROOT environment variable not set: install the Qualcomm AI Runtime SDK and "
                        "export QAIRT_SDK_ROOT=<its folder> before `aipc run` (docs/qairt.md); it is never downloaded here")
    if not os.path.isdir(root):
        raise ToolError(f"QAIRT_SDK_ROOT={root} is not a folder (docs/qairt.md)")
    return root


def tool(name):
    path = os.path.join(sdk_root(), "bin", HOST, name)
    if not os.path.isfile(path):
        raise ToolError(f"{name} is not in the SDK at {path}: QAIRT_SDK_ROOT must be an SDK with tools for {HOST}")
    return path


def backend(name):
    path = os.path.join(sdk_root(), "lib", HOST, name)
    if not os.path.isfile(path):
        raise ToolError(f"{name} is not in the SDK at {path}")
    return path


def sdk_version():
    path = os.path.join(sdk_root(), "version.txt")
    if os.path.isfile(path):
        with open(path) as f:
            return f.read().strip()
    return "unknown (no version.txt)"


def run_tool(name, args):
    """Run an SDK tool with its output streamed; a non-zero exit is a ToolError whose message is
    the tool's last error line (its whole output is above it for the classifier)."""
    cmd = [tool(name)] + [str(a) for a in args]
    note("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    if proc.returncode != 0:
        lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
        errors = [l for l in lines if "ERROR" in l or "error" in l.lower()]
        raise ToolError(f"{name} exited {proc.returncode}: " + ((errors or lines or ["no output"])[-1]).strip())
    return proc.stdout


def graph_inputs(path=ONNX):
    """[(name, dims with 0 for a dynamic dim)] of the ONNX model's inputs."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    return [(v.name, [d.dim_value if d.HasField("dim_value") else 0 for d in v.type.tensor_type.shape.dim])
            for v in model.graph.input if v.name not in inits]


def fixed_dims(project, flag="-d"):
    """`<flag> name dims` for every input with a dynamic dim: the project's example inputs' sizes
    (`-d` for qnn-onnx-converter, `--source_model_input_shape` for qairt-converter)."""
    args = []
    examples = project.example_inputs()
    for (name, dims), ex in zip(graph_inputs(), examples):
        if any(d <= 0 for d in dims):
            args += [flag, name, ",".join(str(s) for s in ex.shape)]
    return args


def describe_onnx(project):
    """What a DLC's sidecar holds, from the ONNX artifact itself (the SDK's DLC is not read
    here): the inputs with every dynamic dim fixed to the example inputs' sizes, the outputs'
    names and dims from one onnxruntime run on zeros of those sizes, and the op counts."""
    import onnx
    import onnxruntime as ort

    examples = project.example_inputs()
    inputs = []
    for (name, dims), ex in zip(graph_inputs(), examples):
        inputs.append({"name": name, "dims": [int(s) for s in ex.shape] if any(d <= 0 for d in dims) else dims,
                       "dtype": "float32"})
    sess = ort.InferenceSession(ONNX, providers=["CPUExecutionProvider"])
    ys = sess.run(None, {i["name"]: np.zeros(i["dims"], np.float32) for i in inputs})
    outputs = [{"name": o.name, "dims": list(y.shape)} for o, y in zip(sess.get_outputs(), ys)]
    ops = {}
    for node in onnx.load(ONNX, load_external_data=False).graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return {"inputs": inputs, "outputs": outputs, "ops": ops}


def write_net(artifact, net):
    """Write the sidecar description of a DLC (ARTIFACTS[artifact]["net"])."""
    with open(ARTIFACTS[artifact]["net"], "w") as f:
        json.dump(net, f, indent=1)


def write_input_list(calls, names, folder):
    """Raw float32 files of every call and the input list naming them (`name:=path`)."""
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    lst = os.path.join(folder, "input_list.txt")
    with open(lst, "w") as f:
        for c, call in enumerate(calls):
            words = []
            for i, a in enumerate(call):
                path = os.path.abspath(os.path.join(folder, f"s{c}_{i}.raw"))
                np.ascontiguousarray(np.asarray(a), dtype=np.float32).tofile(path)
                words.append(f"{names[i]}:={path}")
            f.write(" ".join(words) + "\n")
    return lst


def net_of(artifact):
    """The converter's _net.json of an artifact (inputs, outputs, quantization)."""
    if artifact not in ARTIFACTS:
        raise ToolError(f"{artifact} is not a QAIRT artifact: one of {', '.join(ARTIFACTS)}")
    path = ARTIFACTS[artifact]["net"]
    if not os.path.isfile(artifact) or not os.path.isfile(path):
        raise ToolError(f"{artifact} (or {path}) does not exist: call {ARTIFACTS[artifact]['built_by']} first")
    with open(path) as f:
        return json.load(f)


_local_jobs = [0]


def execute(artifact, calls, profiling=False):
    """Run `calls` (lists of arrays, each of the net's fixed shapes) through qnn-net-run or
    snpe-net-run on the artifact; returns (outputs per call, result dict)."""
    how = ARTIFACTS[artifact]
    net = net_of(artifact)
    job = {"artifact": os.path.basename(artifact), "runner": how["runner"],
           "input_names": [i["name"] for i in net["inputs"]], "inputs": [len(c) for c in calls],
           "outputs": net["outputs"], "profiling": profiling}
    if how["runner"] == "snpe":
        job["runtime"] = how["runtime"]
    else:
        job.update({"context": how["context"], "backend": how["backend"]})
    arrays, _ = device.pack_calls(calls)
    if device.remote():
        result, outputs = device.run_job(RUNNER, job, arrays, [artifact])
        return device.unpack_outputs(outputs, len(calls)), result
    _local_jobs[0] += 1
    folder = os.path.abspath(os.path.join("build", ".qnn-run", f"{os.getpid()}-{_local_jobs[0]}"))
    os.makedirs(folder)
    try:
        with open(os.path.join(folder, "job.json"), "w") as f:
            json.dump(job, f)
        np.savez(os.path.join(folder, "inputs.npz"), **arrays)
        sdk_root()
        proc = subprocess.run([sys.executable, RUNNER, "job.json", os.path.dirname(os.path.abspath(artifact))],
                              cwd=folder, capture_output=True, text=True)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        if proc.returncode != 0:
            lines = [l for l in proc.stderr.splitlines() if l.strip()]
            raise ToolError(f"{runtime_tool(artifact)} on {artifact} failed: "
                            + (lines[-1].strip() if lines else f"exit {proc.returncode}"))
        with open(os.path.join(folder, "out", "result.json")) as f:
            result = json.load(f)
        with np.load(os.path.join(folder, "out", "outputs.npz"), allow_pickle=False) as data:
            outputs = {k: data[k] for k in data.files}
        return device.unpack_outputs(outputs, len(calls)), result
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_all(artifact, inputs):
    """Batched inputs (numpy, first dim = samples) through the artifact in chunks of its fixed
    batch; one qnn-net-run / snpe-net-run for all chunks. Returns one array per output."""
    from aipc_toolbox.tensors import chunks

    net = net_of(artifact)
    batch = net["inputs"][0]["dims"][0]
    parts = list(chunks(inputs, batch, True))
    results, _ = execute(artifact, [list(part) for part, _ in parts])
    outs = None
    for (_, used), ys in zip(parts, results):
        ys = [np.asarray(y)[:used] for y in ys]
        outs = [[y] for y in ys] if outs is None else [o + [y] for o, y in zip(outs, ys)]
    return [np.concatenate(o) for o in outs]

"""qairt-qnn runner: runs qnn-net-run on a model library or a context binary, ON THE DEVICE when
the session has one (aipc.toml [device], docs/device.md) or on the build host in a job folder
otherwise. Standalone: numpy and the QAIRT SDK only ($QAIRT_SDK_ROOT, or $QNN_SDK_ROOT, on the
machine it runs on; its bin/ and lib/ folder for this machine are $AIPC_QNN_HOST, default
x86_64-linux-clang, e.g. aarch64-ubuntu-gcc9.4 on a Linux board).

Usage: `python3 device_runner.py job.json <artifact folder>` in the job folder, which holds
inputs.npz (call c's inputs c{c}_{i}). job.json: {"artifact": "libmodel.so" | "model.bin",
"context": bool, "backend": "libQnnCpu.so" | "libQnnHtp.so", "input_names": [...], "inputs": [n, …],
"outputs": [{"name", "dims"}], "profiling": bool}. Writes out/outputs.npz (call c's outputs
c{c}_{k}) and out/result.json (executions_us with profiling). qnn-net-run's own output and errors
go to stdout/stderr as they are.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np


def sdk():
    root = os.environ.get("QAIRT_SDK_ROOT") or os.environ.get("QNN_SDK_ROOT")
    if not root:
        sys.exit("QAIRT_SDK_ROOT environment variable not set (nor QNN_SDK_ROOT) on this machine")
    host = os.environ.get("AIPC_QNN_HOST", "x86_64-linux-clang")
    return os.path.join(root, "bin", host), os.path.join(root, "lib", host)


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    bins, libs = sdk()
    artifact = os.path.join(os.path.abspath(sys.argv[2]), job["artifact"])
    data = np.load("inputs.npz", allow_pickle=False)
    os.makedirs("raw", exist_ok=True)
    with open("input_list.txt", "w") as lst:
        for c, n in enumerate(job["inputs"]):
            words = []
            for i in range(n):
                path = os.path.abspath(f"raw/c{c}_{i}.raw")
                np.ascontiguousarray(data[f"c{c}_{i}"], dtype=np.float32).tofile(path)
                words.append(f"{job['input_names'][i]}:={path}")
            lst.write(" ".join(words) + "\n")
    cmd = [os.path.join(bins, "qnn-net-run"), "--retrieve_context" if job.get("context") else "--model", artifact,
           "--backend", os.path.join(libs, job["backend"]), "--input_list", "input_list.txt", "--output_dir", "out_qnn"]
    if job.get("profiling"):
        cmd += ["--profiling_level", "basic"]
    print("$ " + " ".join(cmd), flush=True)
    rc = subprocess.call(cmd)
    if rc != 0:
        sys.exit(f"qnn-net-run exited {rc}")
    outputs = {}
    for c in range(len(job["inputs"])):
        for k, o in enumerate(job["outputs"]):
            name = o["name"].replace(":", "_").replace("/", "_") + ".raw"
            path = os.path.join("out_qnn", f"Result_{c}", name)
            if not os.path.isfile(path):
                sys.exit(f"qnn-net-run wrote no {path}")
            outputs[f"c{c}_{k}"] = np.fromfile(path, dtype=np.float32).reshape(o["dims"])
    os.makedirs("out", exist_ok=True)
    np.savez("out/outputs.npz", **outputs)
    result = {"runtime": "qnn-net-run", "backend": job["backend"]}
    if job.get("profiling"):
        viewer = subprocess.run([os.path.join(bins, "qnn-profile-viewer"), "--input_log",
                                 os.path.join("out_qnn", "qnn-profiling-data_0.log")], capture_output=True, text=True)
        if viewer.returncode != 0:
            sys.stderr.write(viewer.stderr)
            sys.exit(f"qnn-profile-viewer exited {viewer.returncode}")
        blocks = re.findall(r"Execute Stats \(Execution \d+\):\s*-*\s*NetRun: (\d+) us", viewer.stdout)
        result["executions_us"] = [int(t) for t in blocks]
    with open("out/result.json", "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()

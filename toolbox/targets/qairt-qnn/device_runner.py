"""qairt-* runner: runs qnn-net-run on a model library or a context binary (qairt-qnn), or
snpe-net-run on a DLC (qairt-snpe), ON THE DEVICE when the session has one (aipc.toml [device],
docs/device.md) or on the build host in a job folder otherwise. Standalone: numpy and the QAIRT
SDK only ($QAIRT_SDK_ROOT, or $QNN_SDK_ROOT, on the machine it runs on; its bin/ and lib/ folder
for this machine are $AIPC_QNN_HOST, default x86_64-linux-clang, e.g. aarch64-ubuntu-gcc9.4 on a
Linux board).

Usage: `python3 device_runner.py job.json <artifact folder>` in the job folder, which holds
inputs.npz (call c's inputs c{c}_{i}). job.json: {"artifact": "libmodel.so" | "model.bin" |
"model.dlc", "runner": "qnn" | "snpe", "context": bool and "backend": "libQnnCpu.so" |
"libQnnHtp.so" (qnn), "runtime": "cpu" | "dsp" (snpe), "input_names": [...], "inputs": [n, …],
"outputs": [{"name", "dims"}], "profiling": bool}. Writes out/outputs.npz (call c's outputs
c{c}_{k}) and out/result.json (executions_us with profiling: qnn-profile-viewer's "NetRun" or
snpe-diagview's "Total Inference Time" per execution). The SDK tools' own output and errors go to
stdout/stderr as they are.
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
    snpe = job.get("runner") == "snpe"
    tool, out_dir = ("snpe-net-run", "out_snpe") if snpe else ("qnn-net-run", "out_qnn")
    if snpe:
        cmd = [os.path.join(bins, tool), "--container", artifact, "--input_list", "input_list.txt", "--output_dir", out_dir]
        if job.get("runtime") == "dsp":
            cmd.append("--use_dsp")
        if job.get("profiling"):
            cmd += ["--perf_profile", "burst", "--profiling_level", "basic"]
    else:
        cmd = [os.path.join(bins, tool), "--retrieve_context" if job.get("context") else "--model", artifact,
               "--backend", os.path.join(libs, job["backend"]), "--input_list", "input_list.txt", "--output_dir", out_dir]
        if job.get("profiling"):
            cmd += ["--profiling_level", "basic"]
    print("$ " + " ".join(cmd), flush=True)
    rc = subprocess.call(cmd)
    if rc != 0:
        sys.exit(f"{tool} exited {rc}")
    outputs = {}
    for c in range(len(job["inputs"])):
        for k, o in enumerate(job["outputs"]):
            name = o["name"].replace(":", "_").replace("/", "_") + ".raw"
            path = os.path.join(out_dir, f"Result_{c}", name)
            if not os.path.isfile(path):
                sys.exit(f"{tool} wrote no {path}")
            outputs[f"c{c}_{k}"] = np.fromfile(path, dtype=np.float32).reshape(o["dims"])
    os.makedirs("out", exist_ok=True)
    np.savez("out/outputs.npz", **outputs)
    result = {"runtime": tool, "backend": job.get("runtime") if snpe else job["backend"]}
    if job.get("profiling"):
        if snpe:
            viewer, log = "snpe-diagview", os.path.join(out_dir, "SNPEDiag_0.log")
            pattern = r"Execute Stats \(Execution \d+\):\s*-*\s*Total Inference Time: (\d+) us"
        else:
            viewer, log = "qnn-profile-viewer", os.path.join(out_dir, "qnn-profiling-data_0.log")
            pattern = r"Execute Stats \(Execution \d+\):\s*-*\s*NetRun: (\d+) us"
        shown = subprocess.run([os.path.join(bins, viewer), "--input_log", log], capture_output=True, text=True)
        if shown.returncode != 0:
            sys.stderr.write(shown.stderr)
            sys.exit(f"{viewer} exited {shown.returncode}")
        result["executions_us"] = [int(t) for t in re.findall(pattern, shown.stdout)]
    with open("out/result.json", "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()

"""onnxruntime-cpu device runner: runs ON THE DEVICE (aipc.toml [device], docs/device.md), with
numpy and onnxruntime only: no aipc_toolbox, no torch, no project code.

Usage (from aipc's job): `python3 device_runner.py job.json <artifact folder>`, in the job's
folder, which holds inputs.npz (call c's inputs are c{c}_{i}). job.json:
  {"op": "run", "artifact": "model.onnx", "threads": null, "inputs": [n0, n1, ...]}
      runs every call, writes out/outputs.npz (call c's outputs c{c}_{k}) and out/result.json;
  {"op": "time", "artifact": ..., "threads": 2, "inputs": [n], "warmup": 5, "iters": 50, "max_s": 20}
      times call 0 (wall clock around session.run), out/result.json has times_ms.
A runtime error (a wrong input rank, say) is raised as is: its traceback is on stderr.
"""
import json
import os
import platform
import sys
import time

import numpy as np
import onnxruntime as ort


def session(path, threads):
    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])


def feed(sess, arrays):
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(arrays):
        raise ValueError(f"the artifact has {len(names)} inputs ({', '.join(names)}), the project gives {len(arrays)}")
    return dict(zip(names, arrays))


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    path = os.path.join(sys.argv[2], job["artifact"])
    t0 = time.perf_counter()
    sess = session(path, job.get("threads"))
    result = {"load_ms": (time.perf_counter() - t0) * 1000, "runtime": f"onnxruntime {ort.__version__}",
              "host": platform.node(), "machine": platform.machine()}
    data = np.load("inputs.npz", allow_pickle=False)
    calls = [[data[f"c{c}_{i}"] for i in range(n)] for c, n in enumerate(job["inputs"])]
    os.makedirs("out", exist_ok=True)
    if job["op"] == "run":
        outputs, run_ms = {}, []
        for c, arrays in enumerate(calls):
            t0 = time.perf_counter()
            ys = sess.run(None, feed(sess, arrays))
            run_ms.append((time.perf_counter() - t0) * 1000)
            for k, y in enumerate(ys):
                outputs[f"c{c}_{k}"] = np.asarray(y)
        np.savez("out/outputs.npz", **outputs)
        result["run_ms"] = run_ms
    elif job["op"] == "time":
        inputs = feed(sess, calls[0])
        for _ in range(int(job.get("warmup", 5))):
            sess.run(None, inputs)
        times, deadline = [], time.monotonic() + float(job.get("max_s", 20))
        for _ in range(int(job.get("iters", 50))):
            t0 = time.perf_counter()
            sess.run(None, inputs)
            times.append((time.perf_counter() - t0) * 1000)
            if time.monotonic() > deadline and len(times) >= 5:
                break
        result["times_ms"] = times
    else:
        raise ValueError(f"unknown op {job['op']!r}")
    with open("out/result.json", "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()

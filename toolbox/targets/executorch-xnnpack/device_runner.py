"""executorch-xnnpack device runner: runs ON THE DEVICE (aipc.toml [device], docs/device.md),
with numpy and ExecuTorch's Python runtime only (`executorch.runtime`, which brings torch for
its tensors): no aipc_toolbox, no project code.

Usage (from aipc's job): `python3 device_runner.py job.json <artifact folder>`, in the job's
folder, which holds inputs.npz (call c's inputs are c{c}_{i}). job.json:
  {"op": "run", "artifact": "model.pte", "threads": null, "inputs": [n0, n1, ...]}
      executes `forward` on every call, writes out/outputs.npz (call c's outputs c{c}_{k}) and
      out/result.json;
  {"op": "time", "artifact": ..., "threads": 2, "inputs": [n], "warmup": 5, "iters": 50, "max_s": 20}
      times call 0 (wall clock around execute), out/result.json has times_ms.
A runtime error is raised as is: its traceback is on stderr.
"""
import json
import os
import platform
import sys
import time

import numpy as np


def set_threads(n):
    try:
        from executorch.extension.pybindings.portable_lib import _threadpool_get_thread_count, _unsafe_reset_threadpool
    except ImportError:
        return None
    _unsafe_reset_threadpool(int(n))
    return _threadpool_get_thread_count()


def main():
    import torch
    from executorch.runtime import Runtime

    with open(sys.argv[1]) as f:
        job = json.load(f)
    path = os.path.join(sys.argv[2], job["artifact"])
    threads = set_threads(job["threads"]) if job.get("threads") else None
    t0 = time.perf_counter()
    method = Runtime.get().load_program(path).load_method("forward")
    result = {"load_ms": (time.perf_counter() - t0) * 1000, "runtime": "executorch.runtime", "threads": threads,
              "host": platform.node(), "machine": platform.machine()}
    data = np.load("inputs.npz", allow_pickle=False)
    calls = [[torch.from_numpy(np.ascontiguousarray(data[f"c{c}_{i}"])) for i in range(n)]
             for c, n in enumerate(job["inputs"])]
    os.makedirs("out", exist_ok=True)
    if job["op"] == "run":
        outputs, run_ms = {}, []
        for c, tensors in enumerate(calls):
            t0 = time.perf_counter()
            ys = method.execute(tensors)
            run_ms.append((time.perf_counter() - t0) * 1000)
            for k, y in enumerate(ys):
                outputs[f"c{c}_{k}"] = y.detach().numpy().copy()
        np.savez("out/outputs.npz", **outputs)
        result["run_ms"] = run_ms
    elif job["op"] == "time":
        inputs = calls[0]
        for _ in range(int(job.get("warmup", 5))):
            method.execute(inputs)
        times, deadline = [], time.monotonic() + float(job.get("max_s", 20))
        for _ in range(int(job.get("iters", 50))):
            t0 = time.perf_counter()
            method.execute(inputs)
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

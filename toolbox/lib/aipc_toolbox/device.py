"""Executing an artifact on the session's device (aipc.toml `[device]`, docs/device.md).

When the device is the build host (no `[device]`, or kind "local") nothing here is used: the
scripts run the runtime in-process. For an ssh or adb device aipc sets `AIPC_DEVICE_SOCKET` (a
Unix socket of the engine, the only way out of the sandbox) and `AIPC_DEVICE` (its name). A
script then writes a job folder under build/.device/ — the target's standalone device runner
(`device_runner.py`: numpy and the runtime only, no torch project code), `job.json` and the
inputs as `inputs.npz` — and asks the engine to run it there with the artifact's files. The
engine pushes, runs, pulls `out/` back (`result.json`, `outputs.npz`) and cleans up.

Input arrays of call c are `c{c}_{i}` in inputs.npz; its outputs come back as `c{c}_{k}`.

A runner that fails on the device (the runtime rejects an input, say) is reported as a local
failure would be: its stderr (with the runtime's own message) is printed and the script fails
with it. A device that cannot be reached ends the session (exit 3); the script only reports it.
"""
import itertools
import json
import os
import shutil
import socket
import sys

import numpy as np

from aipc_toolbox.emit import ToolError, note

_jobs = itertools.count()


class DeviceError(ToolError):
    """The device or its connection failed (after aipc's retries)."""


def remote():
    """True when executions go to a device other than the build host."""
    return bool(os.environ.get("AIPC_DEVICE_SOCKET"))


def name():
    return os.environ.get("AIPC_DEVICE", "the build host")


def _ask(request):
    path = os.environ["AIPC_DEVICE_SOCKET"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(path)
        except OSError as e:
            raise DeviceError(f"cannot reach aipc's device link at {path}: {e}") from None
        s.sendall((json.dumps(request) + "\n").encode())
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
            if data.endswith(b"\n"):
                break
    text = b"".join(chunks).decode("utf-8", "replace").strip()
    if not text:
        raise DeviceError("aipc's device link closed without an answer")
    return json.loads(text)


def run_job(runner, job, arrays, bundle, timeout_s=None):
    """Run the device runner script `runner` on the device with `job` (written as job.json) and
    `arrays` (name -> ndarray, written as inputs.npz); `bundle` lists the artifact's files, which
    the runner finds in the folder given as its second argument. Returns (result, outputs):
    out/result.json as a dict and out/outputs.npz as a dict of arrays."""
    job_dir = os.path.abspath(os.path.join("build", ".device", f"{os.getpid()}-{next(_jobs)}"))
    os.makedirs(job_dir)
    try:
        shutil.copyfile(runner, os.path.join(job_dir, "device_runner.py"))
        with open(os.path.join(job_dir, "job.json"), "w") as f:
            json.dump(job, f)
        np.savez(os.path.join(job_dir, "inputs.npz"), **{k: np.ascontiguousarray(v) for k, v in arrays.items()})
        reply = _ask({"job_dir": job_dir, "bundle": [os.path.abspath(b) for b in bundle], "timeout_s": timeout_s})
        if not reply.get("ok"):
            raise DeviceError(reply.get("error") or "the device link refused the job")
        timing = (f"on {reply.get('device', name())}: push {reply.get('push_s', 0):.2f} s"
                  f"{' (artifact pushed)' if reply.get('pushed_bundle') else ''}, run {reply.get('run_s', 0):.2f} s, "
                  f"pull {reply.get('pull_s', 0):.2f} s" + (f", {reply['retries']} step(s) retried after a lost connection"
                                                             if reply.get("retries") else ""))
        if reply.get("exit_code", 1) != 0:
            # The runtime's own message, for the log and the classifier, as a local run prints it.
            sys.stderr.write(reply.get("stderr", ""))
            sys.stderr.flush()
            last = [l for l in reply.get("stderr", "").splitlines() if l.strip()]
            raise ToolError(f"the device runner failed {timing} (exit {reply.get('exit_code')}): "
                            + (last[-1].strip() if last else "no output"))
        note(timing)
        out = os.path.join(job_dir, "out")
        with open(os.path.join(out, "result.json")) as f:
            result = json.load(f)
        outputs = {}
        npz = os.path.join(out, "outputs.npz")
        if os.path.isfile(npz):
            with np.load(npz, allow_pickle=False) as data:
                outputs = {k: data[k] for k in data.files}
        return result, outputs
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)


def pack_calls(calls):
    """[[array, ...], ...] -> the inputs.npz dict and the count of inputs per call."""
    arrays = {}
    for c, call in enumerate(calls):
        for i, a in enumerate(call):
            arrays[f"c{c}_{i}"] = np.asarray(a)
    return arrays, [len(call) for call in calls]


def unpack_outputs(outputs, calls):
    """The outputs.npz dict -> one list of arrays per call."""
    result = []
    for c in range(calls):
        k, ys = 0, []
        while f"c{c}_{k}" in outputs:
            ys.append(outputs[f"c{c}_{k}"])
            k += 1
        result.append(ys)
    return result

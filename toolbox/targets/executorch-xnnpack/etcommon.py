"""Shared helpers of the executorch-xnnpack scripts: lowering to a .pte with the XNNPACK
partitioner, the delegation sidecar JSON, and running a .pte with executorch.runtime.

A .pte does not say which ops were delegated: that is only known while lowering
(executorch.devtools.backend_debug.get_delegation_info on the lowered graph). So export.py and
quantize.py write it next to the artifact as `<artifact>.json` (with the artifact's sha256), and
inspect_artifact.py reads it back, refusing a sidecar whose hash does not match the .pte.
"""
import os

os.environ.setdefault("QNN_SDK_ROOT", "")  # the Qualcomm backend must never try to download an SDK

import json

import numpy as np

from aipc_toolbox.artifact import require_artifact  # noqa: F401 (the target scripts import it from here)
from aipc_toolbox.emit import ToolError, note, warn

# Graph nodes that are not compute: tuple unpacking, symbolic sizes, runtime asserts.
BOOKKEEPING = (
    "getitem", "sym_size", "sym_numel", "sym_stride", "sym_constrain_range", "_assert", "aten__assert",
    "aten_sym_size", "aten_sym_numel", "aten_sym_constrain", "aten__local_scalar_dense", "executorch_call_delegate",
)


def sha256(path):
    from aipc_toolbox.report import sha256 as file_sha256

    return file_sha256(path)


def sidecar_path(artifact):
    return artifact + ".json"


def is_bookkeeping(op):
    return op.startswith(BOOKKEEPING)


def _origins(node, limit=64):
    """ATen ops (`aten.pad.default`) a lowered node was derived from, by its `from_node`
    provenance: the op of the exported graph that a decomposition turned into this node."""
    out, stack = [], list(node.meta.get("from_node") or [])
    while stack and len(out) < limit:
        src = stack.pop()
        target = str(getattr(src, "target", "") or "")
        if target.startswith("aten.") and target not in out:
            out.append(target)
        stack.extend(getattr(src, "from_node", None) or [])
    return out


def source_ops(graph_module):
    """The ATen ops the non-delegated compute nodes of a lowered graph come from (their own op
    and what a decomposition made them from), in graph order: a left-over `slice_scatter` names
    the `aten.pad.default` it was decomposed from."""
    out = []
    for node in graph_module.graph.nodes:
        # a node's name spells its op as the delegation report does (aten_sym_size_int, getitem_2)
        if node.op != "call_function" or is_bookkeeping(node.name):
            continue
        for op in _origins(node):
            if op not in out:
                out.append(op)
    return out


def delegation_summary(edge):
    """Delegation facts of a lowered EdgeProgramManager (get_delegation_info)."""
    from executorch.devtools.backend_debug import get_delegation_info

    info = get_delegation_info(edge.exported_program().graph_module)
    per_op = []
    for op, b in sorted(info.delegation_by_operator.items()):
        per_op.append({"op": op, "delegated": int(b.delegated), "non_delegated": int(b.non_delegated)})
    compute = [r for r in per_op if not is_bookkeeping(r["op"])]
    delegated = sum(r["delegated"] for r in compute)
    non_delegated = sum(r["non_delegated"] for r in compute)
    leftover = [r["op"] for r in compute if r["non_delegated"]]
    total = delegated + non_delegated
    return {
        "delegated_subgraphs": int(info.num_delegated_subgraphs),
        "delegated_nodes": int(info.num_delegated_nodes),
        "non_delegated_nodes": int(info.num_non_delegated_nodes),
        "compute_ops": total,
        "delegated_compute_ops": delegated,
        "non_delegated_compute_ops": non_delegated,
        "delegated_ratio": round(delegated / total, 6) if total else 0.0,
        "non_delegated_ops": leftover,
        "source_ops": source_ops(edge.exported_program().graph_module) if leftover else [],
        "per_op": per_op,
        "summary": info.get_summary().strip(),
    }


def warn_partial(d, rewritten=(), offer=True):
    """`aipc-warning: partial delegation: ...`, then `aipc-warning: rewritable op: ...` when a
    left-over op, or the op it was decomposed from (`source_ops`), is in the operator rewrite
    library (and was not rewritten already). `offer` False: the partial delegation is printed,
    no rewrite (the project accepts its ratio)."""
    if d["non_delegated_compute_ops"]:
        warn("partial delegation",
             f"{d['non_delegated_compute_ops']} of {d['compute_ops']} compute ops not delegated: {', '.join(d['non_delegated_ops'])}")
        from aipc_toolbox.rewrites import warn_rewritable

        if offer:
            warn_rewritable([*d["non_delegated_ops"], *(d.get("source_ops") or ())], rewritten)


def io_meta(ep):
    """Input/output shapes and dtypes of an ExportedProgram's user inputs/outputs."""
    def desc(node):
        v = node.meta.get("val")
        return {"shape": [int(d) if str(d).isdigit() else str(d) for d in v.shape],
                "dtype": str(v.dtype).replace("torch.", "")} if v is not None and hasattr(v, "shape") else {}

    user = set(ep.graph_signature.user_inputs)
    nodes = {n.name: n for n in ep.graph.nodes}
    ins = [desc(n) for n in ep.graph.nodes if n.op == "placeholder" and n.name in user]
    outs = []
    for n in ep.graph.nodes:
        if n.op == "output":
            outs = [desc(a) for a in n.args[0] if hasattr(a, "meta")]
    del nodes
    return {"inputs": ins, "outputs": outs[: len(ep.graph_signature.user_outputs)]}


def lower_and_save(ep, path, meta, rewritten=()):
    """Lower an ExportedProgram with XNNPACK, write the .pte and its sidecar; returns the sidecar dict.
    A lowering error naming an op of the operator rewrite library (not among `rewritten`) prints
    `aipc-warning: rewritable op: ...` before it is re-raised; one naming no op prints it for the
    library ops the graph holds."""
    import time

    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    from aipc_toolbox.emit import note as emit_note
    from aipc_toolbox.rewrites import find, warn_for_exception, warn_rewritable

    t0 = time.monotonic()
    try:
        edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    except Exception as exc:
        if not warn_for_exception(exc, rewritten):
            # A pass failed without naming an op (XNNPACK's ChannelsLastTaggedReshapePass on a
            # PReLU over a 3-D input): the library ops this graph holds are the candidates.
            held = [k for k in find(ep) if k not in rewritten]
            if held:
                emit_note("the lowering error names no operator; the graph holds ops the rewrite "
                          f"library replaces, which may avoid the failing pass: {', '.join(held)}")
                warn_rewritable(held, rewritten)
        raise
    deleg = delegation_summary(edge)
    prog = edge.to_executorch()
    lower_s = time.monotonic() - t0
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(prog.buffer)
    note(deleg["summary"])
    for r in deleg["per_op"]:
        note(f"  {r['op']}: delegated {r['delegated']}, not delegated {r['non_delegated']}")
    warn_partial(deleg, rewritten)
    side = {"artifact": path, "sha256": sha256(path), "bytes": os.path.getsize(path), "lower_s": round(lower_s, 3),
            "delegation": deleg, **io_meta(ep), **meta}
    with open(sidecar_path(path), "w") as f:
        json.dump(side, f, indent=1)
    note(f"wrote {path} ({side['bytes']} bytes) and {sidecar_path(path)} (delegation info; a .pte does not carry it)")
    return side


def read_sidecar(path):
    """The sidecar of a .pte, checked against the file's hash (None when absent)."""
    sp = sidecar_path(path)
    if not os.path.isfile(sp):
        return None
    with open(sp) as f:
        side = json.load(f)
    if side.get("sha256") != sha256(path):
        raise ToolError(f"{sp} describes a different {path} (sha256 mismatch): the .pte was rebuilt or copied without "
                        "its sidecar; re-run export/quantize to write both")
    return side


def dynamic_shapes(inputs, dynamic, batch_max, seq=False, seq_max=64, extra=()):
    from aipc_toolbox.tensors import dynamic_shapes as shapes

    return shapes(inputs, dynamic, seq, batch_max, seq_max, extra)


class DeviceMethod:
    """The program's `forward` on the session's device, with the calls the scripts make on a
    loaded method: execute (one device job), execute_many (one job for many calls) and time
    (timed on the device). See aipc_toolbox/device.py."""

    RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device_runner.py")

    def __init__(self, path, threads=None):
        self.path, self.threads = path, threads

    def execute_many(self, calls):
        import torch

        from aipc_toolbox import device

        arrays, counts = device.pack_calls([[t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t) for t in call]
                                            for call in calls])
        job = {"op": "run", "artifact": os.path.basename(self.path), "threads": self.threads, "inputs": counts}
        _, outputs = device.run_job(self.RUNNER, job, arrays, [self.path])
        return [[torch.from_numpy(y) for y in ys] for ys in device.unpack_outputs(outputs, len(calls))]

    def execute(self, inputs):
        return self.execute_many([inputs])[0]

    def time(self, inputs, warmup, iters, max_s):
        """Latencies in ms of `forward` on the device."""
        import torch

        from aipc_toolbox import device

        arrays, counts = device.pack_calls([[t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t) for t in inputs]])
        job = {"op": "time", "artifact": os.path.basename(self.path), "threads": self.threads, "inputs": counts,
               "warmup": warmup, "iters": iters, "max_s": max_s}
        result, _ = device.run_job(self.RUNNER, job, arrays, [self.path])
        return np.array(result["times_ms"], dtype=float)


def load_method(path, threads=None):
    """`forward` of the program: loaded in-process, or a DeviceMethod when the session runs on a
    device (aipc.toml [device]; `threads` is then the device's XNNPACK threadpool size)."""
    from aipc_toolbox import device

    if device.remote():
        return DeviceMethod(path, threads)
    from executorch.runtime import Runtime

    return Runtime.get().load_program(path).load_method("forward")


def execute_many(method, calls):
    """Outputs of every call: one device job for all of them on a device, else in turn."""
    if isinstance(method, DeviceMethod):
        return method.execute_many(calls)
    return [method.execute(call) for call in calls]


def program_meta(path):
    """Method metadata read without loading the method (no kernels needed)."""
    from executorch.runtime import Runtime

    prog = Runtime.get().load_program(path)
    meta = prog.metadata("forward")
    ti = lambda t: {"shape": list(t.sizes()), "dtype": str(t.dtype()).replace("ScalarType.", "").lower()}  # noqa: E731
    return {"methods": sorted(prog.method_names),
            "inputs": [ti(meta.input_tensor_meta(i)) for i in range(meta.num_inputs())],
            "outputs": [ti(meta.output_tensor_meta(i)) for i in range(meta.num_outputs())]}


def batching(side, rows):
    """The chunks an artifact with sidecar `side` is run in, as (rows per chunk, padded): up to its
    dynamic batch maximum, else its static batch padded (`rows`, the inputs' own count, when the
    sidecar knows neither). The eager reference is run in the same chunks."""
    dyn = bool(side and side.get("dynamic_batch"))
    size = (side or {}).get("batch_max", 64) if dyn else (side or {}).get("example_batch")
    return (size or rows), not dyn


def run_all(method, inputs, side):
    """Run batched numpy inputs through a loaded method in chunks the artifact accepts."""
    import torch

    from aipc_toolbox.tensors import chunks

    parts = list(chunks(inputs, *batching(side, np.asarray(inputs[0]).shape[0])))
    results = execute_many(method, [[torch.from_numpy(np.ascontiguousarray(p)) for p in part] for part, _ in parts])
    outs = None
    for (_, used), ys in zip(parts, results):
        ys = [y.detach().numpy()[:used].copy() for y in ys]
        outs = [[y] for y in ys] if outs is None else [o + [y] for o, y in zip(outs, ys)]
    return [np.concatenate(o) for o in outs]


def set_threads(n):
    """XNNPACK threadpool size (ExecuTorch pybindings; experimental API)."""
    try:
        from executorch.extension.pybindings.portable_lib import _threadpool_get_thread_count, _unsafe_reset_threadpool
    except ImportError:
        return None
    _unsafe_reset_threadpool(int(n))
    return _threadpool_get_thread_count()

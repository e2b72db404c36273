"""Shared helpers of the onnxruntime-cpu scripts: artifact checks, an onnxruntime session on the
CPU execution provider (in-process, or on the session's device through aipc_toolbox.device when
aipc.toml has an ssh/adb [device]), and running batched inputs through it."""
import os

import numpy as np

from aipc_toolbox.artifact import require_artifact  # noqa: F401 (the target scripts import it from here)
from aipc_toolbox.emit import ToolError, warn

PROVIDERS = ["CPUExecutionProvider"]


def external_files(model, model_path):
    """External-data files the model references: [(location, exists)]."""
    import onnx
    from onnx.external_data_helper import _get_all_tensors

    base = os.path.dirname(os.path.abspath(model_path))
    locs = []
    for t in _get_all_tensors(model):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            for kv in t.external_data:
                if kv.key == "location" and kv.value not in [l for l, _ in locs]:
                    locs.append((kv.value, os.path.isfile(os.path.join(base, kv.value))))
    return locs


def check_external(model, model_path):
    """Warn (aipc-warning) about every missing external-data file; returns (files, all_present)."""
    files = external_files(model, model_path)
    for loc, ok in files:
        if not ok:
            side = os.path.join(os.path.dirname(model_path), loc)
            warn("external data missing", f"{model_path} references {side}, which does not exist")
    return [l for l, _ in files], all(ok for _, ok in files)


def artifact_bytes(model_path):
    """Size of the .onnx plus its external-data files."""
    import onnx

    total = os.path.getsize(model_path)
    m = onnx.load(model_path, load_external_data=False)
    for loc, ok in external_files(m, model_path):
        if ok:
            total += os.path.getsize(os.path.join(os.path.dirname(model_path), loc))
    return total


def relative_source_paths(model_path):
    """Rewrite the source locations the exporter stores on each node (the
    `pkg.torch.onnx.stack_trace` metadata: absolute paths of the worktree and of the venv) as
    paths relative to the project and to `<venv>`, and save the model again. The artifact then
    depends only on the project, not on where it was built: the same project gives the same bytes
    in any worktree (a re-run, a colleague's machine) while keeping the file:line of every node."""
    import sys

    import onnx

    prefixes = [(os.getcwd().rstrip(os.sep) + os.sep, ""), (sys.prefix.rstrip(os.sep), "<venv>")]

    def clean(text):
        for prefix, replacement in prefixes:
            text = text.replace(prefix, replacement)
        return text

    def walk(graph):
        changed = 0
        for node in graph.node:
            for prop in node.metadata_props:
                new = clean(prop.value)
                if new != prop.value:
                    prop.value = new
                    changed += 1
            if node.doc_string:
                node.doc_string = clean(node.doc_string)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    changed += walk(attr.g)
                for g in attr.graphs:
                    changed += walk(g)
        return changed

    model = onnx.load(model_path, load_external_data=False)
    if walk(model.graph):
        onnx.save_model(model, model_path)


def default_opset(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


class _Arg:
    """An input or output as onnxruntime describes it (name, shape, type string)."""

    def __init__(self, name, shape, type_):
        self.name, self.shape, self.type = name, shape, type_


def _ort_type(elem_type):
    import onnx

    dt = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    return "tensor(" + {"float32": "float", "float64": "double"}.get(dt.name, dt.name) + ")"


class DeviceSession:
    """The artifact on the session's device, with the calls the scripts make on a local session:
    get_inputs / get_outputs (read from the ONNX graph here), run (one device job), run_many
    (one job for many feeds) and time (timed on the device). See aipc_toolbox/device.py."""

    RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device_runner.py")

    def __init__(self, path, threads=None):
        import onnx

        model = onnx.load(path, load_external_data=False)
        inits = {i.name for i in model.graph.initializer}

        def args(values):
            out = []
            for v in values:
                t = v.type.tensor_type
                dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim]
                out.append(_Arg(v.name, dims, _ort_type(t.elem_type)))
            return out

        self.path, self.threads = path, threads
        self._inputs = args(v for v in model.graph.input if v.name not in inits)
        self._outputs = args(model.graph.output)
        self.bundle = [path] + [os.path.join(os.path.dirname(path), loc) for loc, ok in external_files(model, path) if ok]

    def get_inputs(self):
        return self._inputs

    def get_outputs(self):
        return self._outputs

    def _ordered(self, feed_dict):
        return [feed_dict[i.name] for i in self._inputs if i.name in feed_dict]

    def run_many(self, feeds):
        from aipc_toolbox import device

        calls = [self._ordered(f) for f in feeds]
        arrays, counts = device.pack_calls(calls)
        job = {"op": "run", "artifact": os.path.basename(self.path), "threads": self.threads, "inputs": counts}
        _, outputs = device.run_job(self.RUNNER, job, arrays, self.bundle)
        return device.unpack_outputs(outputs, len(calls))

    def run(self, _names, feed_dict):
        return self.run_many([feed_dict])[0]

    def time(self, feed_dict, warmup, iters, max_s):
        """Latencies in ms of session.run on the device."""
        from aipc_toolbox import device

        arrays, counts = device.pack_calls([self._ordered(feed_dict)])
        job = {"op": "time", "artifact": os.path.basename(self.path), "threads": self.threads, "inputs": counts,
               "warmup": warmup, "iters": iters, "max_s": max_s}
        result, _ = device.run_job(self.RUNNER, job, arrays, self.bundle)
        return np.array(result["times_ms"], dtype=float)


def run_many(sess, feeds):
    """Outputs of every feed dict: one device job for all of them on a device, else in turn."""
    if isinstance(sess, DeviceSession):
        return sess.run_many(feeds)
    return [sess.run(None, f) for f in feeds]


def session(path, threads=None, optimized=True):
    """An onnxruntime session on the CPU execution provider: in-process, or a DeviceSession when
    the session runs on a device (aipc.toml [device]). `optimized=False` (in-process only): no
    graph optimizations, each node run as written (the analysis of a model's intermediate tensors,
    which onnxruntime's fusions would otherwise rename or fold)."""
    from aipc_toolbox import device

    if device.remote() and optimized:
        return DeviceSession(path, threads)
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    if not optimized:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, sess_options=opts, providers=PROVIDERS)


def fixed_batch(sess):
    """The artifact's batch size when its first input has a fixed first dim, else None."""
    shape = sess.get_inputs()[0].shape
    return shape[0] if shape and isinstance(shape[0], int) else None


def feed(sess, arrays):
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(arrays):
        raise ToolError(f"the artifact has {len(names)} inputs ({', '.join(names)}), the project gives {len(arrays)}")
    return dict(zip(names, arrays))


def batching(sess, size=64):
    """The chunks the session is run in, as (rows per chunk, padded): its fixed batch, padded,
    else `size` rows. The eager reference is run in the same chunks."""
    fb = fixed_batch(sess)
    return (fb or size), fb is not None


def run_all(sess, inputs, size=64):
    """Run batched numpy inputs through the session; returns one array per output."""
    from aipc_toolbox.tensors import chunks

    parts = list(chunks(inputs, *batching(sess, size)))
    results = run_many(sess, [feed(sess, list(part)) for part, _ in parts])
    outs = None
    for (_, used), result in zip(parts, results):
        ys = [np.asarray(y)[:used] for y in result]
        outs = [[y] for y in ys] if outs is None else [o + [y] for o, y in zip(outs, ys)]
    return [np.concatenate(o) for o in outs]


def is_quantized(path):
    import onnx

    from ortquant import int8_node_count

    return int8_node_count(onnx.load(path, load_external_data=False)) > 0

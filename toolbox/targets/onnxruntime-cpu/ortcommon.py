"""Shared helpers of the onnxruntime-cpu scripts: artifact checks, an onnxruntime session on the
CPU execution provider, and running batched inputs through it."""
import os

import numpy as np

from aipc_toolbox.emit import ToolError, warn

PROVIDERS = ["CPUExecutionProvider"]


def require_artifact(path, what="artifact", hint="call export first"):
    if not os.path.isfile(path):
        raise ToolError(f"{what} {path} does not exist (cwd {os.getcwd()}); {hint}")
    return path


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


def session(path, threads=None):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
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


def run_all(sess, inputs, size=64):
    """Run batched numpy inputs through the session; returns one array per output."""
    from aipc_toolbox.tensors import chunks

    fb = fixed_batch(sess)
    size = fb or size
    outs = None
    for part, used in chunks(inputs, size, fb is not None):
        ys = [np.asarray(y)[:used] for y in sess.run(None, feed(sess, list(part)))]
        outs = [[y] for y in ys] if outs is None else [o + [y] for o, y in zip(outs, ys)]
    return [np.concatenate(o) for o in outs]


def is_quantized(path):
    import onnx

    from ortquant import int8_node_count

    return int8_node_count(onnx.load(path, load_external_data=False)) > 0

"""executorch-xnnpack target, tool `int8_sensitivity`: which layers INT8 hurts, and the fewest of
them kept in float that bring the INT8 program within the accuracy thresholds.

The onnxruntime-cpu tool of the same name does this on ONNX graphs; here the graphs are PT2E's:

1. Per-layer error report: the float program as quantize captures it and its quantized reference
   (prepare_pt2e, calibration, convert_pt2e: Q/DQ around float ops, run in Python) run on the
   calibration batches under a torch.fx Interpreter that keeps every node's output. Each tensor
   of the quantized reference is compared with the float one of the same node (signal-to-
   quantization-noise ratio, SQNR, dB; higher is better), and each node gets the error it adds:
   the SQNR of its activation inputs as it reads them (after their Q/DQ) less the SQNR of its
   output as its consumers read it. Weights are scored too (their dequantized values against
   the float ones). A dynamic format is analysed on the static per-channel build.
2. What the task loses (aipc_toolbox/task_rank.py): each tensor the quantized reference rounds
   (converted with its weights unfolded: each weight is a float constant through its quantize
   node) is applied alone, every other quantize node passed through, under the same
   Interpreter; the output is compared with the float model's. The costliest tensors come
   first, each with the ops that write and read it.
3. Accuracy-controlled mixed precision: those groups are kept in float
   (quantize's nodes_to_exclude: the XNNPACK quantizer's filter skips them), 1, 2, 4, ... then the
   fewest that pass, each one a real .pte (quantize's own code) compared with the eager model on
   eval_data at the INT8 gates' thresholds; then each of those is put back in INT8 when the set
   still passes without it (int8_choice.fewest_in_float). The passing one becomes build/model_int8.pte, its
   sidecar recording the float nodes and that this tool chose them; inspect then asks for the
   choice to be recorded in aipc.toml (`int8_float_nodes`).

Every build uses quantize's default calibration settings, the ones `quantize {}` rebuilds with
once aipc.toml records the choice (the last build's own settings are not reused), and a set that
keeps every quantized node in float is never taken (that is no INT8 model).

A calibration set with outliers or on another scale than the eval inputs (aipc_toolbox/calib.py)
makes every layer look bad: the tool refuses and prints the calibration line, whose repair comes
first. When no set passes, the tool fails (the `int8 mixed precision` line says so) and leaves
build/model_int8.pte as it was.

Writes build/int8_sensitivity.json (every node's score and inputs, the builds tried). Metrics as
the onnxruntime-cpu tool: format, analysed_format, nodes, worst, tried, float_nodes, float_count,
passes, replaced.
"""
import copy
import json
import os
import shutil
import tempfile

import numpy as np

from aipc_toolbox import emit, int8_choice, task_rank
from aipc_toolbox.project import Project

FP32, INT8, REPORT = "build/model.pte", "build/model_int8.pte", "build/int8_sensitivity.json"


def _is(node, names):
    return node.op == "call_function" and any(n in str(node.target) for n in names)


def _dequantize(node):
    return _is(node, ("dequantize_per_tensor", "dequantize_per_channel"))


def _quantize(node):
    return _is(node, ("quantize_per_tensor", "quantize_per_channel")) and not _dequantize(node)


def _values(module, batches):
    """Every tensor-valued node output of `module` over `batches`, flattened and concatenated."""
    import torch

    seen = {}

    class Keep(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if isinstance(out, torch.Tensor) and out.is_floating_point():
                seen.setdefault(n.name, []).append(out.detach().float().reshape(-1).numpy().copy())
            return out

    with torch.no_grad():
        for batch in batches:
            Keep(module).run(*batch)
    return {name: np.concatenate(parts) for name, parts in seen.items()}


def _sqnr(ref, got):
    if ref is None or got is None or ref.shape != got.shape:
        return None
    signal = max(float(np.linalg.norm(ref)), np.finfo(np.float32).eps)
    noise = max(float(np.linalg.norm(ref - got)), np.finfo(np.float32).eps)
    return round(float(min(20 * np.log10(signal / noise), 200.0)), 2)


def node_scores(float_module, quantized, batches):
    """Score every op of the quantized reference that reads a dequantized tensor by the dB it
    loses (inputs as read, less its output as read). A list of dicts, the largest loss first."""
    fvals, qvals = _values(float_module, batches), _values(quantized, batches)
    fnodes = {n.name: n for n in float_module.graph.nodes}

    def as_read(node):
        """The value the consumers of `node` read: after its Q/DQ when it has one."""
        for user in node.users:
            if _quantize(user):
                dq = next((u for u in user.users if _dequantize(u)), None)
                if dq is not None:
                    return qvals.get(dq.name)
        return qvals.get(node.name)

    scored = []
    for node in quantized.graph.nodes:
        if node.op != "call_function" or _quantize(node) or _dequantize(node) or node.name not in fnodes:
            continue
        twin = fnodes[node.name]
        inputs, reads_int8 = [], False
        for arg, farg in zip(node.args, twin.args):
            if not hasattr(arg, "op") or not hasattr(farg, "op"):
                continue
            reads_int8 = reads_int8 or _dequantize(arg)
            db = _sqnr(fvals.get(farg.name), qvals.get(arg.name))
            if db is None:
                continue
            kind = "weight" if farg.op == "get_attr" else "activation"
            inputs.append({"kind": kind, "tensor": farg.name, "sqnr_db": db})
        if not reads_int8:
            continue
        acts = [i["sqnr_db"] for i in inputs if i["kind"] == "activation"]
        in_db = min(acts) if acts else 200.0
        out_db = _sqnr(fvals.get(node.name), as_read(node))
        target = str(node.target)
        scored.append({"node": node.name, "op": target.split(".")[-2] if target.count(".") >= 2 else target,
                       "loss_db": round(in_db - out_db, 2) if out_db is not None else 0.0, "input_sqnr_db": in_db,
                       "output_sqnr_db": out_db, "inputs": inputs})
    scored.sort(key=lambda s: -s["loss_db"])
    return scored


# Ops that pass one input through (an activation, a reshape): the tensor a node reads is
# quantized where the op before them writes it, so keeping the node in float also keeps those.
PASS_THROUGH = ("relu", "hardtanh", "clamp", "leaky_relu", "view", "reshape", "flatten", "permute", "squeeze",
                "unsqueeze", "dropout", "max_pool", "clone", "_to_copy", "contiguous")


def float_group(float_module, scored):
    """For each scored node, the nodes to keep in float with it: back from each of its activation
    inputs through pass-through ops to the op that writes the tensor, so that the tensor it reads
    is not quantized either (the XNNPACK quantizer annotates an op's output where it is written)."""
    nodes = {n.name: n for n in float_module.graph.nodes}
    for s in scored:
        extra = []
        for i in s["inputs"]:
            if i["kind"] != "activation":
                continue
            for name in _writer_walk(nodes.get(i["tensor"])):
                if name != s["node"] and name not in extra:
                    extra.append(name)
        s["with"] = extra


def _writer_walk(node):
    """`node` and, while it is a pass-through op, the ops before it, up to the one that writes the
    tensor (the XNNPACK quantizer rounds a tensor where it is written)."""
    out = []
    while node is not None and node.op == "call_function" and node.name not in out:
        out.append(node.name)
        if not any(t in str(node.target) for t in PASS_THROUGH) or not node.args or not hasattr(node.args[0], "op"):
            break
        node = node.args[0]
    return out


def quantization_points(float_module, reference, scored):
    """Every tensor the quantized reference (converted without folding its weights, so each
    weight is a float constant, batch norms folded in, through a quantize node) rounds, as
    task_rank.Point: an activation's quantize node (its group: the op that writes the tensor,
    back through pass-through ops, and the ops that read it) or a weight's (its group: the ops
    that read it). Returns (points, the quantize nodes of each point's tensor)."""
    fnodes = {n.name: n for n in float_module.graph.nodes}
    rank_of = {s["node"]: i for i, s in enumerate(scored)}
    points, applied = [], {}
    for node in reference.graph.nodes:
        if not _quantize(node) or not hasattr(node.args[0], "op"):
            continue
        src = node.args[0]
        reads = [u.name for d in node.users if _dequantize(d) for u in d.users if u.op == "call_function"]
        kind = "weight" if src.op == "get_attr" else "activation"
        tensor = src.target if kind == "weight" else src.name
        writer = _writer_walk(src) if kind == "activation" else []
        nodes = [n for n in dict.fromkeys(writer + reads) if n in fnodes and fnodes[n].op == "call_function"]
        if not nodes:
            continue
        if tensor not in applied:
            points.append(task_rank.Point(tensor, kind, nodes, min(rank_of.get(n, len(scored)) for n in nodes)))
        applied.setdefault(tensor, set()).add(node.name)
    return points, applied


def alone_runner(reference, batches, applied):
    """task_rank's `alone`: the reference run on `batches` with only one point's quantize nodes
    applied (every other one, and its dequantize, passes the float tensor through); its first
    output."""
    import torch

    class Alone(torch.fx.Interpreter):
        def __init__(self, names):
            super().__init__(reference)
            self.names = names

        def run_node(self, n):
            if _quantize(n) and n.name not in self.names:
                return self.env[n.args[0]]
            if _dequantize(n) and _quantize(n.args[0]) and n.args[0].name not in self.names:
                return self.env[n.args[0]]
            return super().run_node(n)

    def first_tensor(out):
        while isinstance(out, (tuple, list)):
            out = out[0]
        return out.detach().float().numpy()

    def alone(point):
        names = set() if point is None else applied[point.tensor]
        with torch.no_grad():
            return np.concatenate([first_tensor(Alone(names).run(*batch)) for batch in batches])

    return alone


def body(a):
    import etcommon  # sets QNN_SDK_ROOT before executorch is imported
    import quantize

    etcommon.require_artifact(FP32)
    p = Project()
    side = (etcommon.read_sidecar(INT8) if os.path.isfile(INT8) else None) or {}
    recorded = side.get("quantize") or {}
    calib = int8_choice.project_calibration(INT8, {k: recorded[k] for k in quantize.CALIB_KEYS if k in recorded})
    fmt = quantize.project_format(p)
    analysed = "static-channel" if quantize.FORMATS[fmt][1] else fmt
    base = sorted(set(calib.get("nodes_to_exclude") or []) | set(p.get("int8_float_nodes") or []))
    args = {"format": analysed, "per_channel": None, "observer": calib.get("observer", "histogram"),
            "moving_average": bool(calib.get("moving_average")), "drop_outliers": bool(calib.get("drop_outliers")),
            "nodes_to_exclude": base, "dynamic_batch": None, "dynamic_seq": None}
    q = quantize.plan(p, args)
    int8_choice.refuse_unsound_calibration(q.audit, calib)
    float_module, _applied = quantize.capture(q)
    quantize.check_node_names(float_module.graph, base, p)
    # The reference keeps in float what every build of `base` does (with XNNPACK's closure).
    reference = quantize.pt2e_convert(copy.deepcopy(float_module), q.cal, q.config,
                                      quantize.xnnpack_float_closure(float_module.graph, base)[0], fold_quantize=False)
    one = _values(float_module, q.cal[:1])
    batches = q.cal[: int8_choice.analysis_batches(len(q.cal), sum(v.nbytes for v in one.values()), a["batches"])]
    del one
    scored = node_scores(float_module, reference, batches)
    if not scored:
        raise emit.ToolError(f"{FP32}: no quantized op with a float counterpart to score in the {analysed} build")
    float_group(float_module, scored)
    int8_choice.print_scores(scored, analysed, len(batches), a["report_top"])
    points, applied = quantization_points(float_module, reference, scored)
    groups, alone_rows = task_rank.ranked_groups(
        points, alone_runner(reference, batches, applied), base,
        [[s["node"], *s["with"]] for s in scored if s["node"] not in base], a["report_top"])
    limit = int8_choice.group_limit(groups, base, a["max_float_nodes"])
    arrays, labels, ref = int8_choice.eager_reference(
        p, a["samples"], lambda rows: etcommon.batching(etcommon.read_sidecar(FP32), rows))
    with tempfile.TemporaryDirectory() as tmp:
        def build_with(nodes):
            path = os.path.join(tmp, f"float_{len(nodes)}_{abs(hash(tuple(nodes)))}.pte")
            quantize.body({**args, "format": fmt, "nodes_to_exclude": nodes, "output": path})
            return path

        def outputs(path):
            return etcommon.run_all(etcommon.load_method(path), arrays, etcommon.read_sidecar(path))

        found = int8_choice.fewest_in_float(groups, base, limit, build_with, outputs, ref, labels, a,
                                            [s["node"] for s in scored])
        if found[0] is not None:
            path = found[2][found[0]][0]
            with open(etcommon.sidecar_path(path)) as f:
                kept_side = json.load(f)
            kept_side.setdefault("quantize", {})["chosen_by"] = "int8_sensitivity"
            kept_side["artifact"] = INT8
            shutil.copyfile(path, INT8)
            with open(etcommon.sidecar_path(INT8), "w") as f:
                json.dump(kept_side, f, indent=1)
    report = {"format": fmt, "analysed_format": analysed, "calibration_batches": len(batches), "base_float_nodes": base,
              "alone": alone_rows,
              "thresholds": {k: a[k] for k in ("min_cosine", "min_top1_agreement", "max_acc_drop_points")}}
    return int8_choice.mixed_precision_result(REPORT, report, scored, found, a, INT8, fmt)


if __name__ == "__main__":
    emit.main("int8_sensitivity", __file__, "accuracy", body)

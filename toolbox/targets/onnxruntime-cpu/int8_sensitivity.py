"""onnxruntime-cpu target, tool `int8_sensitivity`: which layers INT8 hurts, and the fewest of them
kept in float that bring the INT8 model within the accuracy thresholds.

1. Per-layer error report (onnxruntime.quantization.qdq_loss_debug): the FP32 model (pre-processed
   as quantize does) and a QDQ build of it run on the calibration samples with every tensor saved;
   each tensor of the QDQ model is compared with the float model's (signal-to-quantization-noise
   ratio, SQNR, dB; higher is better), each quantized weight with its float values. A node's score
   is the error it adds: the SQNR of its activation inputs as it reads them (after their Q/DQ)
   less the SQNR of its output. QOperator and dynamic formats have no Q/DQ pairs to read: the
   report is made on the QDQ build with the same activation type, and the exclusions then apply to
   the project's format.
2. What the task loses (aipc_toolbox/task_rank.py): each tensor the QDQ build rounds (an
   activation's QuantizeLinear, a quantized initializer) is applied alone: the float model with
   that one pair (or weight DequantizeLinear) inserted, its parameters the QDQ build's; the output
   is compared with the float model's. The costliest tensors come first, each with the nodes
   that write and read it.
3. Accuracy-controlled mixed precision: those groups are kept in float
   (quantize's nodes_to_exclude), 1, 2, 4, ... of them, then the fewest that pass, each build
   compared with the eager model on eval_data at the INT8 gates' thresholds, until one passes or
   max_float_nodes is reached; then each of those is put back in INT8 when the set still passes
   without it (int8_choice.fewest_in_float). The passing build becomes build/model_int8.onnx,
   recording which nodes are float and that this tool chose them (`aipc.chosen_by`); inspect then asks for the
   choice to be recorded in aipc.toml (`int8_float_nodes`), so quantize builds it again.

Every build uses quantize's default calibration settings, the ones `quantize {}` rebuilds with
once aipc.toml records the choice (the last build's own settings are not reused), and a set that
keeps every quantized node in float is never taken (that is no INT8 model).

A calibration set with outliers or on another scale than the eval inputs (aipc_toolbox/calib.py)
makes every layer look bad: the tool refuses and prints the calibration line, whose repair comes
first.

Writes build/int8_sensitivity.json (the report: every node's score and tensors, the builds tried).
Metrics: format, analysed_format, nodes (quantized nodes scored), worst (the 5 largest losses:
node, op, loss_db, output_sqnr_db), tried ({count: cosine, top1_agreement, acc_drop_points, passes}), float_nodes (the kept
set, when one passes), passes (1/0), replaced (1/0). When no set passes, the tool fails (the
`int8 mixed precision` line says so) and leaves build/model_int8.onnx as it was.
"""
import os
import shutil

import numpy as np

from aipc_toolbox import emit, int8_choice, task_rank
from aipc_toolbox.project import Project

FP32, INT8, REPORT = "build/model.onnx", "build/model_int8.onnx", "build/int8_sensitivity.json"
Q_SUFFIX = "_quantized"  # onnxruntime's name for a quantized initializer (TENSOR_NAME_QUANT_SUFFIX)


def _analysis_format(fmt, formats):
    """The QDQ format whose Q/DQ pairs stand for `fmt`'s quantization."""
    form, act = formats[fmt][0], formats[fmt][1]
    if form == "QDQ":
        return fmt
    return "qdq-u8s8" if act in (None, "QUInt8") else "qdq-s8s8"


def _db(db):
    return round(float(db), 2) if np.isfinite(db) else 200.0


def _consumers(graph):
    """{tensor name: the nodes of `graph` that read it}."""
    out = {}
    for n in graph.node:
        for i in n.input:
            out.setdefault(i, []).append(n)
    return out


def _writer_walk(producer, tensor):
    """The node that writes `tensor` and, while it is a pass-through op, the nodes before it (by
    `producer`, {tensor: node}), up to the one whose output is quantized."""
    out, node = [], producer.get(tensor)
    while node is not None and node.name and node.name not in out:
        out.append(node.name)
        if node.op_type not in PASS_THROUGH or not node.input:
            break
        node = producer.get(node.input[0])
    return out


def node_scores(pre, qdq, feeds, workdir):
    """Score every node of the QDQ model `qdq` that reads a dequantized tensor by the error it adds:
    the SQNR (dB, QDQ model against float model) of its activation inputs as it reads them (after
    their Q/DQ), less the SQNR of its output. The SQNR of a tensor is energy-weighted, so a tensor
    with one huge channel can look fine while its small channels are lost to the INT8 range; the
    node that reads it shows the loss. Returns (a list of dicts, the largest loss first; the calibration batches run): as many batches
    as keep the saved tensors within int8_choice.ANALYSIS_BYTES per model."""
    import onnx
    from onnxruntime.quantization import qdq_loss_debug as dbg

    from ortquant import feeds_reader

    float_aug, qdq_aug = os.path.join(workdir, "float_aug.onnx"), os.path.join(workdir, "qdq_aug.onnx")
    dbg.modify_model_output_intermediate_tensors(pre, float_aug)
    dbg.modify_model_output_intermediate_tensors(qdq, qdq_aug)
    one = dbg.collect_activations(float_aug, feeds_reader(feeds[:1]))
    feeds = feeds[: int8_choice.analysis_batches(len(feeds), sum(sum(a.nbytes for a in v) for v in one.values()))]
    del one
    float_acts = dbg.collect_activations(float_aug, feeds_reader(feeds))
    qdq_acts = dbg.collect_activations(qdq_aug, feeds_reader(feeds))
    # The augmented models keep the intermediate tensors only: add the graph outputs (the last
    # node's loss is often the one that matters). Without graph optimizations, as the augmented
    # models run: on some QDQ transformer graphs onnxruntime's constant folding fails to
    # initialise ("Attempt to replace the existing tensor").
    for model, acts in ((pre, float_acts), (qdq, qdq_acts)):
        from ortcommon import session

        sess = session(model, optimized=False)
        names = [o.name for o in sess.get_outputs()]
        for feed in feeds:
            for name, value in zip(names, sess.run(names, feed)):
                acts.setdefault(name, []).append(np.asarray(value, dtype=np.float32).reshape(-1))
    # A scalar weight (a 0-d constant a transformer multiplies by) comes back dequantized as a
    # numpy scalar, which onnxruntime's own error function cannot take: compare flat arrays.
    weight_err = dbg.compute_weight_error(
        dbg.create_weight_matching(pre, qdq),
        lambda f, d: dbg.compute_signal_to_quantization_noice_ratio(np.asarray(f, np.float32).reshape(-1),
                                                                   np.asarray(d, np.float32).reshape(-1)))

    def sqnr(float_name, qdq_name):
        if float_name not in float_acts or qdq_name not in qdq_acts:
            return None
        return _db(dbg.compute_signal_to_quantization_noice_ratio(float_acts[float_name], qdq_acts[qdq_name]))

    m = onnx.load(qdq, load_external_data=False)
    producer = {o: n for n in m.graph.node for o in n.output}
    # A tensor as the rest of the QDQ graph reads it: after its Q/DQ when it has one. (onnxruntime
    # folds a Relu into the Q/DQ of the op before it, so the op's own output there is pre-Relu.)
    consumers = _consumers(m.graph)
    as_read = {}
    for n in m.graph.node:
        if n.op_type == "QuantizeLinear":
            dq = next((c for c in consumers.get(n.output[0], []) if c.op_type == "DequantizeLinear"), None)
            if dq is not None:
                as_read[n.input[0]] = dq.output[0]
    scored = []
    for node in m.graph.node:
        if node.op_type in ("QuantizeLinear", "DequantizeLinear") or not node.name:
            continue
        inputs, quantized = [], False
        for name in node.input:
            dq = producer.get(name)
            if dq is not None and dq.op_type == "DequantizeLinear":
                quantized = True
                q = producer.get(dq.input[0])
                if q is not None and q.op_type == "QuantizeLinear":
                    db = sqnr(q.input[0], name)
                    if db is not None:
                        inputs.append({"kind": "activation", "tensor": q.input[0], "sqnr_db": db})
                elif dq.input[0].endswith(Q_SUFFIX) and dq.input[0][: -len(Q_SUFFIX)] in weight_err:
                    tensor = dq.input[0][: -len(Q_SUFFIX)]
                    inputs.append({"kind": "weight", "tensor": tensor, "sqnr_db": _db(weight_err[tensor])})
            else:
                db = sqnr(name, name)
                if db is not None:
                    inputs.append({"kind": "activation (float)", "tensor": name, "sqnr_db": db})
        if not quantized:
            continue
        # A quantized graph output is renamed at its producer (`<name>_QuantizeLinear_Input`).
        outputs = [db for db in (sqnr(o.removesuffix(dbg.QUANT_INPUT_SUFFIX), as_read.get(o, o)) for o in node.output)
                   if db is not None]
        acts = [i["sqnr_db"] for i in inputs if i["kind"].startswith("activation")]
        in_db = min(acts) if acts else 200.0
        out_db = min(outputs) if outputs else None
        loss = in_db - out_db if out_db is not None else 0.0
        scored.append({"node": node.name, "op": node.op_type, "loss_db": round(loss, 2), "input_sqnr_db": in_db,
                       "output_sqnr_db": out_db, "inputs": inputs})
    scored.sort(key=lambda s: -s["loss_db"])
    return scored, len(feeds)


# Ops that pass one input through (an activation, a reshape): the tensor a node reads is
# quantized where the op before them writes it, so keeping the node in float also keeps those.
PASS_THROUGH = {"Relu", "Clip", "LeakyRelu", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Identity",
                "MaxPool", "Dropout"}


def float_group(pre, scored):
    """For each scored node, the nodes to keep in float with it: back from each of its activation
    inputs through pass-through ops to the op that writes the tensor (in the float model `pre`),
    so that the tensor it reads is not quantized either."""
    import onnx

    m = onnx.load(pre, load_external_data=False)
    producer = {o: n for n in m.graph.node for o in n.output}
    for s in scored:
        extra = []
        for i in s["inputs"]:
            if not i["kind"].startswith("activation"):
                continue
            for name in _writer_walk(producer, i["tensor"]):
                if name != s["node"] and name not in extra:
                    extra.append(name)
        s["with"] = extra


def quantization_points(pre, qdq, scored):
    """Every tensor the QDQ model `qdq` rounds, as task_rank.Point: an activation's QuantizeLinear
    (its group: the node that writes the tensor, back through pass-through ops in the float model
    `pre`, and the nodes that read its dequantized value) or a quantized initializer's
    DequantizeLinear (a weight or bias; its group: the nodes that read it)."""
    import onnx

    m = onnx.load(qdq, load_external_data=False)
    pre_nodes = onnx.load(pre, load_external_data=False).graph.node
    pre_names = {n.name for n in pre_nodes}
    pre_producer = {o: n for n in pre_nodes for o in n.output}
    producer = {o: n for n in m.graph.node for o in n.output}
    consumers = _consumers(m.graph)
    rank_of = {s["node"]: i for i, s in enumerate(scored)}
    points = []

    def readers(dq_nodes):
        return [c.name for d in dq_nodes for c in consumers.get(d.output[0], [])
                if c.op_type not in ("QuantizeLinear", "DequantizeLinear")]

    def point(tensor, kind, nodes):
        nodes = [n for n in dict.fromkeys(nodes) if n in pre_names]
        if nodes:
            points.append(task_rank.Point(tensor, kind, nodes, min(rank_of.get(n, len(scored)) for n in nodes)))

    for n in m.graph.node:
        if n.op_type == "QuantizeLinear":
            dqs = [c for c in consumers.get(n.output[0], []) if c.op_type == "DequantizeLinear"]
            # A quantized graph output is renamed at its producer (`<name>_QuantizeLinear_Input`).
            if not dqs:
                continue
            written = _writer_walk(pre_producer, n.input[0].removesuffix("_QuantizeLinear_Input"))
            point(n.input[0], "activation", written + readers(dqs))
        elif n.op_type == "DequantizeLinear" and n.input[0] not in producer and n.input[0].endswith(Q_SUFFIX):
            point(n.input[0][: -len(Q_SUFFIX)], "weight", readers([n]))
    return points


def alone_runner(pre, qdq, feeds, workdir):
    """task_rank's `alone`: the float model `pre` with one point's rounding inserted, the
    QuantizeLinear/DequantizeLinear pair (or a weight's DequantizeLinear) and its parameters
    copied from the QDQ model `qdq`; `alone(None)` is the float model. Built on the float model,
    not by passing the QDQ model's other pairs through: onnxruntime folds a Relu into the pair
    after the op before it, so a pair passed through would drop the Relu. Returns the first
    output over `feeds`, concatenated."""
    import onnx
    from onnx import helper

    from ortcommon import session

    m, base = onnx.load(qdq), onnx.load(pre)
    inits = {i.name: i for i in m.graph.initializer}
    consumers = _consumers(m.graph)

    def copied(node, inputs, outputs):
        return helper.make_node(node.op_type, inputs, outputs, name=f"{node.name}_alone",
                                **{a.name: helper.get_attribute_value(a) for a in node.attribute})

    def with_point(point):
        g = onnx.ModelProto()
        g.CopyFrom(base)
        nodes, extra = [], []
        for n in base.graph.node:
            nodes.append(onnx.NodeProto())
            nodes[-1].CopyFrom(n)
        if point.kind == "weight":
            dq = next(n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.input[0] == point.tensor + Q_SUFFIX)
            kept = [i for i in g.graph.initializer if i.name != point.tensor]
            del g.graph.initializer[:]
            g.graph.initializer.extend(kept)
            extra.append(copied(dq, list(dq.input), [point.tensor]))
            needed = dq.input
        else:
            q = next(n for n in m.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == point.tensor)
            dq = next(c for c in consumers.get(q.output[0], []) if c.op_type == "DequantizeLinear")
            tensor = point.tensor.removesuffix("_QuantizeLinear_Input")
            writers = [n for n in nodes if tensor in n.output]
            if writers:
                # The writer's output is renamed; the rounded value takes the tensor's name.
                raw = f"{tensor}_alone_float"
                for w in writers:
                    w.output[list(w.output).index(tensor)] = raw
                extra += [copied(q, [raw, *q.input[1:]], [f"{tensor}_alone_q"]),
                          copied(dq, [f"{tensor}_alone_q", *dq.input[1:]], [tensor])]
            else:
                # A graph input: its readers read the rounded copy.
                rounded = f"{tensor}_alone_dq"
                for n in nodes:
                    for k, name in enumerate(n.input):
                        if name == tensor:
                            n.input[k] = rounded
                extra += [copied(q, [tensor, *q.input[1:]], [f"{tensor}_alone_q"]),
                          copied(dq, [f"{tensor}_alone_q", *dq.input[1:]], [rounded])]
            needed = [*q.input[1:], *dq.input[1:]]
        have = {i.name for i in g.graph.initializer}
        g.graph.initializer.extend(inits[n] for n in dict.fromkeys(needed) if n in inits and n not in have)
        del g.graph.node[:]
        # Topological order: each inserted node right after the one that writes what it reads;
        # those that read only initializers or a graph input go first.
        order, pending = [], list(extra)

        def place(node):
            order.append(node)
            for e in [e for e in pending if any(i in node.output for i in e.input)]:
                pending.remove(e)
                place(e)

        for n in nodes:
            place(n)
        g.graph.node.extend(pending + order)
        return g

    def alone(point):
        path = os.path.join(workdir, "alone.onnx")
        onnx.save(base if point is None else with_point(point), path)
        sess = session(path, optimized=False)  # as node_scores: each node as written
        name = sess.get_outputs()[0].name
        return np.concatenate([np.asarray(sess.run([name], feed)[0], dtype=np.float32) for feed in feeds])

    return alone


def body(a):
    from ortcommon import batching, require_artifact, run_all, session
    from ortquant import FORMATS, build, calibration_feeds, pre_processed, project_format, recorded_calibration

    src = require_artifact(FP32, "FP32 model")
    p = Project()
    fmt = project_format(p)
    previous, recorded = recorded_calibration(INT8, note=False)
    calib = int8_choice.project_calibration(INT8, recorded)
    feeds, audit, given, kept = calibration_feeds(p, src, bool(calib.get("drop_outliers")))
    int8_choice.refuse_unsound_calibration(audit, calib)
    base = sorted(set(calib.get("nodes_to_exclude") or []) | set(p.get("int8_float_nodes") or []))
    arrays, labels, ref = int8_choice.eager_reference(p, a["samples"], lambda _rows: batching(session(src)))
    analysed = _analysis_format(fmt, FORMATS)
    tmp, pre, _mode = pre_processed(src)
    with tmp:
        qdq = os.path.join(tmp.name, "analysis_qdq.onnx")
        build(pre, qdq, analysed, feeds, {**calib, "nodes_to_exclude": base})
        scored, batches = node_scores(pre, qdq, feeds, tmp.name)
        if not scored:
            raise emit.ToolError(f"{FP32} has no quantized node with a named input to score in the {analysed} build")
        float_group(pre, scored)
        int8_choice.print_scores(scored, analysed, batches, a["report_top"])
        groups, alone_rows = task_rank.ranked_groups(
            quantization_points(pre, qdq, scored), alone_runner(pre, qdq, feeds[:batches], tmp.name), base,
            [[s["node"], *s["with"]] for s in scored if s["node"] not in base], a["report_top"])
        limit = int8_choice.group_limit(groups, base, a["max_float_nodes"])

        def build_with(nodes):
            path = os.path.join(tmp.name, f"float_{len(nodes)}_{abs(hash(tuple(nodes)))}.onnx")
            build(pre, path, fmt, feeds, {**calib, "nodes_to_exclude": nodes}, chosen_by="int8_sensitivity",
                  calibration_scale=audit.scale_line)
            return path

        found = int8_choice.fewest_in_float(groups, base, limit, build_with, lambda path: run_all(session(path), arrays),
                                            ref, labels, a, [s["node"] for s in scored])
        if found[0] is not None:
            # The candidates live in the temporary folder: only the kept one becomes the artifact.
            shutil.copyfile(found[2][found[0]][0], INT8)
    report = {"format": fmt, "analysed_format": analysed, "calibration_samples": kept, "base_float_nodes": base,
              "alone": alone_rows,
              "thresholds": {k: a[k] for k in ("min_cosine", "min_top1_agreement", "max_acc_drop_points")}}
    out = int8_choice.mixed_precision_result(REPORT, report, scored, found, a, INT8, fmt)
    out["previous_format"] = previous
    return out


if __name__ == "__main__":
    emit.main("int8_sensitivity", __file__, "accuracy", body)

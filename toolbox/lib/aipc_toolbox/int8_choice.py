"""Choosing an INT8 format by measurement: the part of the `int8_formats` tool both targets share.

A target script supplies how to build one format into a file, how to run an artifact on the
eval inputs, and how to time one run; this module builds and checks every format, times them
with FP32 in turn (rounds of a few runs per artifact, so that a noisy neighbour slows them all
alike), keeps the fastest format that passes the accuracy thresholds, and prints the lines the
signature table (toolbox/targets/common/int8-formats.toml) reads:

    aipc-warning: int8 format: <format> p50 X ms (Rx of FP32 Y ms; <previous> Z ms) passes the accuracy thresholds ...; aipc.toml [project] int8_format = "<format>" keeps it
    aipc-warning: int8 not faster: ...
    aipc-warning: no int8 format within budget: ...
"""
import json
import time

import numpy as np

from . import emit, metrics


def project_format(p, target, formats, default):
    """The format aipc.toml asks for (`int8_format`, else the target's `default`), checked against
    the target's `formats`."""
    fmt = p.get("int8_format") or default
    if fmt not in formats:
        raise emit.ToolError(f"{p._where('int8_format')}: int8_format = {fmt!r} is not an {target} format; "
                             "use one of " + ", ".join(formats))
    return fmt


def eager_reference(p, samples, batching):
    """The project's eval inputs (the first `samples`, all when None) as numpy arrays, their labels
    (or None) and the eager model's outputs on them: what every format is compared with.
    `batching(rows)` gives the chunks the artifacts are run in, (rows per chunk, padded); the eager
    model runs in the same ones (tensors.eager_outputs says why)."""
    from .tensors import eager_outputs, take

    inputs, labels = p.eval_data()
    inputs = take(inputs, samples)
    labels = None if labels is None else labels[: inputs[0].shape[0]].numpy()
    return [t.numpy() for t in inputs], labels, eager_outputs(p.load_model(), inputs, *batching(inputs[0].shape[0]))


def calibration_note(artifact, recorded):
    emit.note("calibration settings " + (f"of {artifact} reused: {recorded}" if recorded else "by default (no recorded INT8 build)"))


def project_calibration(artifact, recorded):
    """The calibration settings int8_sensitivity measures with: quantize's defaults, which is what
    `quantize {}` builds once aipc.toml records the chosen float nodes. The settings of the last
    build (`recorded`: a method, moving average, outliers dropped by one call) are not reused: a
    choice measured under them would not be the one the rebuild makes (measured: a search under a
    moving-average calibration kept 7 of 9 nodes in float, the default build needs 2)."""
    if recorded:
        emit.note(f"calibration settings: quantize's defaults, as quantize {{}} rebuilds; {artifact}'s {recorded} are not reused")
    else:
        emit.note("calibration settings: quantize's defaults, as quantize {} rebuilds")
    return {}


def format_fields(artifact, built, wanted, chosen_by):
    """inspect's fields for an INT8 artifact built in format `built` when aipc.toml asks for
    `wanted`, and its line when they differ: the artifact int8_formats measured and kept is
    recorded with set_project_option; one built before the setting changed is rebuilt."""
    if built != wanted:
        if chosen_by == "int8_formats" and built:
            emit.warn("int8 format chosen", f"{artifact} is {built}, the fastest accurate format int8_formats measured; "
                      f"aipc.toml int8_format asks for {wanted}: aipc.toml [project] int8_format = \"{built}\" keeps it")
        else:
            emit.warn("int8 artifact stale", f"built as {built or 'an unrecorded format'}, aipc.toml int8_format asks for "
                      f"{wanted}: quantize {{}} builds it again")
    return {"int8_format": built, "int8_format_matches": int(built == wanted)}


def float_nodes_fields(artifact, built, wanted, chosen_by):
    """inspect's fields for the nodes an INT8 artifact keeps in float (`built`, as recorded) against
    aipc.toml int8_float_nodes (`wanted`), and its line when they disagree: the mixed precision
    int8_sensitivity measured and kept is recorded with set_project_option; an artifact that
    quantizes a node aipc.toml keeps in float is rebuilt. Nodes left in float by a quantize
    argument (nodes_to_exclude) are the caller's choice and not flagged."""
    import json

    built, wanted = sorted(set(built or [])), sorted(set(wanted or []))
    quantized = [n for n in wanted if n not in built]
    unrecorded = [n for n in built if n not in wanted] if chosen_by == "int8_sensitivity" else []
    if unrecorded:
        emit.warn("int8 float nodes chosen", f"{artifact} keeps {len(built)} node(s) in float, the fewest "
                  "int8_sensitivity measured to bring the INT8 model within the accuracy thresholds; aipc.toml does "
                  f"not record them: int8_float_nodes = {json.dumps(built)}")
    elif quantized:
        emit.warn("int8 float nodes stale", f"{artifact} quantizes {json.dumps(quantized)}, which aipc.toml "
                  "int8_float_nodes keeps in float: quantize {} builds it again")
    return {"int8_float_nodes": built, "int8_float_nodes_match": int(not quantized and not unrecorded)}


def refuse_unsound_calibration(audit, calib):
    """A per-layer error report needs sound calibration ranges: a set on another scale than the
    eval inputs, or outliers the recorded build did not drop, make every layer look sensitive
    (aipc_toolbox/calib.py printed their lines above); that repair comes first."""
    if audit.scale_line:
        raise emit.ToolError("the calibration set is on another scale than the eval inputs (the calibration scale line "
                             "above): every layer would look sensitive; repair the calibration data first")
    if audit.outliers and not calib.get("drop_outliers"):
        raise emit.ToolError(f"calibration samples {audit.outliers} are outliers (the calibration outlier lines above): "
                             "their ranges would make every layer look sensitive; quantize {\"drop_outliers\": true} first")


def counts(limit):
    """1, 2, 4, ... up to `limit` (included): how many groups a mixed-precision search keeps in float."""
    k, out = 1, []
    while k < limit:
        out.append(k)
        k *= 2
    return out + [limit]


def group_limit(groups, base, max_nodes):
    """How many of the leading `groups` a search may keep in float: the most whose nodes, beside
    those `base` already keeps, number at most `max_nodes` (the tool's max_float_nodes, a count
    of nodes: a group is a rounded tensor's writer and readers, often more than one node).
    Raises when there is no group, or when the first alone is larger than `max_nodes`."""
    if not groups:
        raise emit.ToolError(f"every scored node is already in float ({list(base)}): nothing left to keep in float")
    kept, k = set(base), 0
    for group in groups:
        kept |= set(group)
        if len(kept - set(base)) > max_nodes:
            break
        k += 1
    if not k:
        raise emit.ToolError(f"the costliest group alone keeps {len(set(groups[0]) - set(base))} node(s) in float "
                             f"({', '.join(groups[0])}), more than max_float_nodes = {max_nodes}; raise it")
    return k


# The most builds the pruning pass of a mixed-precision search makes (each is a quantize and an
# eval run): a bound on its time, not a threshold on the result.
PRUNE_TRIES = 8


def fewest_in_float(groups, base, limit, build, outputs, ref, labels, a, quantized_nodes=()):
    """Accuracy-controlled mixed precision: keep the first k `groups` (node lists, the costliest
    first: task_rank) in float beside `base`, for k = 1, 2, 4, ... then bisect to the fewest k that
    passes the thresholds in `a`; then prune: each of those k groups, the least costly first, is
    put back in INT8 when the set still passes without it (each group was measured alone, so
    the first k may hold one the passing set does not need once the others are float).
    `build(nodes)` builds an INT8 artifact with `nodes` in float and returns its path;
    `outputs(path)` runs it on the eval inputs. A set that keeps every node of
    `quantized_nodes` (the scored ones) in float is no INT8 model and never passes (measured: a
    search that reached it "passed" with cosine 1.0 and an artifact without one INT8 node); nor
    does a set whose artifact the runtime refuses to run (`outputs` raises RuntimeError).
    Returns (k or None, {k: metrics}, {k: (path, nodes)}); after pruning, builds[k] is the pruned
    set and tried[k]["pruned"] lists the groups put back in INT8."""
    tried, builds = {}, {}
    every_quantized = set(quantized_nodes)
    refused = []  # the sets the runtime would not run, with its error

    def nodes_of(indices):
        nodes = list(base)
        for i in indices:
            nodes += [n for n in groups[i] if n not in nodes]
        return nodes

    def measure(nodes, label):
        """Build and compare `nodes` in float; (row, path), row None when no INT8 node is left."""
        if every_quantized and every_quantized <= set(nodes):
            emit.note(f"{label} ({len(nodes)} node(s)) leave no node in INT8: not a mixed precision")
            return None, None
        try:
            path = build(nodes)
        except RuntimeError as e:
            # The toolchain would not lower this mix (a rule of the delegate the target's
            # quantize does not know yet): like a set that does not run, it fails.
            emit.note(f"{label} ({len(nodes)} node(s)): the toolchain does not build it ({e}); counted as failing")
            refused.append(f"{label}: {e}")
            return {"passes": 0, "float_nodes": len(nodes), "does_not_build": 1}, None
        try:
            got = outputs(path)
        except RuntimeError as e:
            # The runtime refused this mix (XNNPACK would not create a depthwise convolution
            # whose input stayed float beside INT8 weights): a set that does not run fails, and
            # the search goes on to the next.
            emit.note(f"{label} ({len(nodes)} node(s)): the artifact does not run on the runtime ({e}); "
                      "counted as failing")
            refused.append(f"{label}: {e}")
            return {"passes": 0, "float_nodes": len(nodes), "does_not_run": 1}, path
        m = metrics.compare(ref[0], got[0], labels)
        row = {key: m[key] for key in ("cosine", "top1_agreement", "acc_drop_points") if key in m}
        row["passes"], row["float_nodes"] = int(passes(m, a)), len(nodes)
        emit.note(f"{label} ({len(nodes)} node(s)): cosine {row['cosine']:.4f}, top-1 agreement "
                  f"{row['top1_agreement']:.4f}" + (f", {row['acc_drop_points']:+.2f} points drop" if "acc_drop_points" in row else "")
                  + ("" if row["passes"] else " — fails the accuracy thresholds"))
        return row, path

    def attempt(k):
        if k in tried:
            return tried[k]["passes"]
        nodes = nodes_of(range(k))
        row, path = measure(nodes, f"the {k} worst kept in float")
        if row is None:
            tried[k] = {"passes": 0, "float_nodes": len(nodes), "no_int8_left": 1}
            return 0
        tried[k], builds[k] = row, (path, nodes)
        return row["passes"]

    low, high = 0, None
    for k in counts(limit):
        if attempt(k):
            high = k
            break
        low = k
    if high is not None:
        while high - low > 1:
            mid = (low + high) // 2
            if attempt(mid):
                high = mid
            else:
                low = mid
    if high is None and refused and all(row.get("does_not_run") or row.get("does_not_build") or row.get("no_int8_left")
                                          for row in tried.values()):
        # Not one set ran: that is a fault of the build or the runtime, not an answer.
        raise emit.ToolError(f"no mixed-precision set runs on the runtime ({len(refused)} tried; first: {refused[0]}); "
                             "check that the INT8 artifact quantize builds loads, then report the error")
    if high is not None and high > 1:
        _prune(high, tried, builds, nodes_of, measure)
    return high, tried, builds


def _prune(k, tried, builds, nodes_of, measure):
    """Put back in INT8 each of the k groups (the least bad first, at most PRUNE_TRIES tries)
    whose removal keeps the set passing; updates tried[k] and builds[k] when any is."""
    kept, dropped = list(range(k)), []
    for i in list(reversed(range(k)))[:PRUNE_TRIES]:
        if len(kept) == 1:
            break
        trial = [j for j in kept if j != i]
        row, path = measure(nodes_of(trial), f"without the group ranked {i + 1}")
        if row is not None and row["passes"]:
            kept, best = trial, (row, path, nodes_of(trial))
            dropped.append(i + 1)
    if dropped:
        row, path, nodes = best
        tried[k] = {**row, "pruned": dropped, "unpruned_float_nodes": tried[k]["float_nodes"]}
        builds[k] = (path, nodes)
        emit.note(f"pruned: the groups ranked {dropped} went back to INT8 and the set still passes: "
                  f"{len(nodes)} node(s) in float")


# What the per-layer report may keep of one model's intermediate tensors: it saves every tensor of
# the float model and of the quantized one for each calibration batch it runs, which for a
# transformer at 224x224 exceeded the sandbox's memory on 16 batches.
ANALYSIS_BYTES = 2**30


def analysis_batches(available, one_batch_bytes, wanted=None, budget=ANALYSIS_BYTES):
    """How many calibration batches the per-layer report runs: `wanted` (default: all
    `available`), fewer when the intermediate tensors of that many batches (`one_batch_bytes`
    each, per model) would exceed `budget`; at least one. Says so when it cuts."""
    wanted = available if wanted is None else min(wanted, available)
    fit = max(1, int(budget // max(one_batch_bytes, 1)))
    if fit < wanted:
        emit.note(f"per-layer report on {fit} of {wanted} calibration batches: the intermediate tensors of one batch "
                  f"take {one_batch_bytes / 2**20:.1f} MB per model, the report keeps at most {budget / 2**20:.0f} MB")
        return fit
    return wanted


def print_scores(scored, analysed, batches, top):
    """The per-layer report's lines: the nodes that lose the most."""
    emit.note(f"per-layer INT8 error ({analysed} build against the float model on {batches} calibration batches; SQNR in "
              f"dB, higher is better), {len(scored)} quantized nodes; the largest losses:")
    for s in scored[:top]:
        emit.note(f"  {s['node']} ({s['op']}): loses {s['loss_db']:.1f} dB (inputs {s['input_sqnr_db']:.1f} dB -> output "
                  + ("?" if s["output_sqnr_db"] is None else f"{s['output_sqnr_db']:.1f}") + " dB); "
                  + ", ".join(f"{i['kind']} {i['tensor']} {i['sqnr_db']:.1f} dB" for i in s["inputs"])
                  + (f"; kept in float with {', '.join(s['with'])}" if s.get("with") else ""))


def mixed_precision_result(report_path, report, scored, found, a, artifact, fmt):
    """Write the report, print the outcome, return the tool's fields; raises when nothing passed.
    `found`: (k or None, tried, builds) from fewest_in_float."""
    import json

    high, tried, builds = found
    report.update(nodes=scored, tried={str(k): v for k, v in sorted(tried.items())},
                  limit=max((v["float_nodes"] for v in tried.values()), default=0))
    out = {"format": fmt, "analysed_format": report["analysed_format"], "nodes": len(scored),
           "worst": [{k: s[k] for k in ("node", "op", "loss_db", "output_sqnr_db")} for s in scored[:5]],
           "tried": report["tried"], "passes": 0, "replaced": 0, "report": report_path}
    if high is None:
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)
        emit.warn("int8 mixed precision", f"no set of up to {report['limit']} node(s) kept in float brings the INT8 model "
                  f"within the accuracy thresholds (cosine >= {a['min_cosine']}, top-1 agreement >= {a['min_top1_agreement']}, "
                  f"drop <= {a['max_acc_drop_points']} points); the per-layer report is {report_path}")
        raise emit.ToolError(f"no mixed precision within {report['limit']} float node(s) passes; {artifact} is unchanged")
    nodes = builds[high][1]
    report["float_nodes"] = nodes
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    how = "the fewest of the worst that pass" + (", then pruned" if tried[high].get("pruned") else "")
    emit.note(f"{artifact}: {fmt} with {len(nodes)} node(s) in float, {how} (report: {report_path})")
    record = "set_project_option " + json.dumps({"key": "int8_float_nodes", "value": sorted(nodes)})
    emit.note(f"record the choice so every quantize keeps it: {record}, then quantize {{}}")
    # The engine offers the calls a result names next (docs/toolbox.md, "next_calls").
    out["next_calls"] = [record + "  (records the measured mixed precision, so quantize builds it again)"]
    out.update(passes=1, replaced=1, float_nodes=nodes, float_count=len(nodes),
               **{f"chosen_{k}": v for k, v in tried[high].items() if k != "float_nodes"})
    return out


def passes(m, a):
    """Whether comparison metrics `m` meet the thresholds in the tool arguments `a`."""
    return (m["cosine"] >= a["min_cosine"] and m["top1_agreement"] >= a["min_top1_agreement"]
            and m.get("acc_drop_points", 0.0) <= a["max_acc_drop_points"])


def interleaved_p50(runners, max_s, block=10, warmup=10):
    """Median ms of each runner (a no-argument callable doing one inference), timed in rounds of
    `block` runs per runner in turn until max_s seconds have passed (at least 5 rounds)."""
    for run in runners.values():
        for _ in range(warmup):
            run()
    times = {key: [] for key in runners}
    deadline, rounds = time.monotonic() + max_s, 0
    while rounds < 5 or time.monotonic() < deadline:
        for key, run in runners.items():
            for _ in range(block):
                t0 = time.perf_counter()
                run()
                times[key].append(time.perf_counter() - t0)
        rounds += 1
    return {key: float(np.percentile(t, 50) * 1000) for key, t in times.items()}


def build_and_check(formats, build, outputs, ref, labels, a):
    """Build each format (`build(fmt)` -> path) and compare its outputs (`outputs(path)` -> list of
    arrays) with the eager ones. Returns (rows {fmt: metrics + passes, or error}, {fmt: path})."""
    rows, built = {}, {}
    for fmt in formats:
        try:
            path = build(fmt)
            m = metrics.compare(ref[0], outputs(path)[0], labels)
        except Exception as e:  # noqa: BLE001 - one format failing says nothing of the others
            rows[fmt] = {"error": emit.describe(e)}
            emit.note(f"{fmt}: failed: {rows[fmt]['error']}")
            continue
        rows[fmt] = {k: m[k] for k in ("cosine", "top1_agreement", "acc_drop_points") if k in m}
        rows[fmt]["passes"] = int(passes(m, a))
        built[fmt] = path
    return rows, built


# Two formats whose medians are within this fraction of each other are the same speed here: the
# project's own format is kept rather than switched (and recorded) on timing noise.
SAME_SPEED = 0.05


def decide(rows, built, p50, fp32_key, a, ctx):
    """Fill in the timings, print the table, pick the fastest passing format and say what to do.

    ctx: previous (format of the current INT8 artifact), wanted (aipc.toml's), quantize (the
    project's setting), budget, threads, int8 (the INT8 artifact's path), replace(path) (makes
    `path` the INT8 artifact). Returns the result fields."""
    fp32 = p50[fp32_key]
    for fmt, path in built.items():
        rows[fmt].update(p50_ms=round(p50[path], 4), ratio_to_fp32=round(p50[path] / fp32, 3))
    emit.note(f"FP32: p50 {fp32:.4f} ms ({ctx['threads']} thread(s), measured in turn with every format)")
    for fmt, r in rows.items():
        if "error" not in r:
            emit.note(f"{fmt}: p50 {r['p50_ms']:.4f} ms ({r['ratio_to_fp32']:.2f}x FP32), cosine {r['cosine']:.4f}, "
                      f"top-1 agreement {r['top1_agreement']:.4f}"
                      + (f", {r['acc_drop_points']:+.2f} points drop" if "acc_drop_points" in r else "")
                      + ("" if r["passes"] else " — fails the accuracy thresholds"))
    out = {"fp32_p50_ms": round(fp32, 4), "formats": rows, "previous_format": ctx["previous"],
           "project_format": ctx["wanted"], "threads": ctx["threads"], "replaced": 0}
    budget = ctx["budget"]
    if budget:
        out["latency_budget_ms"] = float(budget)
    passing = sorted((p50[built[fmt]], fmt) for fmt, r in rows.items() if r.get("passes"))
    if not passing:
        emit.warn("int8 not faster", "no INT8 format passes the accuracy thresholds (cosine >= "
                  f"{a['min_cosine']}, top-1 agreement >= {a['min_top1_agreement']}, drop <= {a['max_acc_drop_points']} points)")
        return out
    best_ms, best = passing[0]
    wanted_ms = next((ms for ms, fmt in passing if fmt == ctx["wanted"]), None)
    if best != ctx["wanted"] and wanted_ms is not None and wanted_ms <= best_ms * (1 + SAME_SPEED):
        # Medians this close, measured in turn on a shared machine, do not rank the formats: the
        # one aipc.toml asks for stays, and nothing needs recording.
        emit.note(f"{best} p50 {best_ms:.4f} ms and the project's {ctx['wanted']} {wanted_ms:.4f} ms are within "
                  f"{SAME_SPEED:.0%} of each other: the timing does not tell them apart, {ctx['wanted']} stays")
        best_ms, best = wanted_ms, ctx["wanted"]
    out.update(best_format=best, best_p50_ms=round(best_ms, 4), best_ratio_to_fp32=round(best_ms / fp32, 3))
    if budget:
        out["best_within_budget"] = int(best_ms <= budget)
    previous = ctx["previous"]
    current = rows.get(previous or "", {})
    if best_ms >= fp32 and current.get("passes"):
        emit.warn("int8 not faster", f"the fastest INT8 format passing the accuracy thresholds, {best}, runs at p50 "
                  f"{best_ms:.4f} ms, FP32 at {fp32:.4f} ms on {ctx['threads']} thread(s): INT8 does not pay here; ship FP32 "
                  "(aipc.toml quantize = \"none\") if it meets the budget, else the model or the budget must change")
        return out
    if best_ms >= fp32:
        # The current INT8 artifact fails the accuracy thresholds: an accurate one replaces it even
        # when it is not faster than FP32 (the latency gate then decides whether INT8 pays).
        emit.note(f"{best} passes the accuracy thresholds and {previous or 'the current format'} does not; {best} is not "
                  f"faster than FP32 here (p50 {best_ms:.4f} ms against {fp32:.4f} ms): the latency gate decides whether INT8 pays")
    if previous != best and (not current.get("passes") or best_ms < p50.get(built.get(previous), float("inf"))):
        ctx["replace"](built[best])
        out["replaced"] = 1
    timing = (f"{best} p50 {best_ms:.4f} ms ({best_ms / fp32:.2f}x of FP32 {fp32:.4f} ms"
              + (f"; {previous} {current['p50_ms']:.4f} ms" if "p50_ms" in current and previous != best else "") + ")")
    if ctx["wanted"] != best:
        emit.warn("int8 format", timing + " passes the accuracy thresholds"
                  + (f" and is now {ctx['int8']}" if out["replaced"] else "")
                  + f"; aipc.toml [project] int8_format = \"{best}\" keeps it"
                  + ("; quantize = \"int8\" ships it" if ctx["quantize"] != "int8" else ""))
        # The engine offers the calls a result names next (docs/toolbox.md, "next_calls"): without
        # the record, a later quantize {} rebuilt the failing default format over the accurate one
        # it had just measured (ZooBench, tinynet-e on ExecuTorch: dynamic-channel at cosine 0.999,
        # then quantize {} back to static-channel at 0.29).
        record = "set_project_option " + json.dumps({"key": "int8_format", "value": best})
        out["next_calls"] = [record + "  (records the measured format, so quantize builds it again)"]
    else:
        emit.note(f"{timing}: aipc.toml int8_format already asks for the fastest format that passes"
                  + ("; quantize = \"int8\" ships it" if ctx["quantize"] != "int8" and best_ms < fp32 else ""))
    if ctx["quantize"] != "int8" and best_ms < fp32:
        # A project that ships FP32 has no INT8 stage behind it (the contract skips the INT8
        # checks while quantize = "none"): shipping this one brings the INT8 gates back in.
        ship = "set_project_option " + json.dumps({"key": "quantize", "value": "int8"})
        out.setdefault("next_calls", []).append(ship + "  (ships the INT8 artifact; the stage's INT8 checks then gate it)")
    if budget and best_ms > budget:
        emit.warn("no int8 format within budget", f"the fastest INT8 format passing the accuracy thresholds, {best}, "
                  f"runs at p50 {best_ms:.4f} ms > {budget} ms budget: the model or the budget must change")
    return out

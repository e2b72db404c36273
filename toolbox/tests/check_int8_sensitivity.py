#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""INT8 mixed precision (int8_sensitivity.py of the target of the venv it runs in, and what
quantize and inspect do with aipc.toml int8_float_nodes), run for real on a small trained MLP
written to a temporary folder. One hidden unit of one layer is scaled up and the next layer reads it scaled down: the
float function is the same, but one INT8 range must now cover a channel hundreds of times larger
than the others (the outlier-channel fault of real models):

- the default INT8 build fails the accuracy thresholds; the per-layer report ranks first the node
  that reads the outlier tensor; kept in float with the ops that write what it reads, it passes
  alone, and the artifact records the float nodes;
- inspect names the choice (`int8 float nodes chosen`, matched by the signature table, its fix a
  set_project_option call with the nodes as JSON); once aipc.toml records them, quantize {} keeps
  them in float and the artifact matches; one that quantizes a recorded node is `stale`;
- a calibration set with an outlier sample is refused (that repair comes first), and impossible
  thresholds end in the `int8 mixed precision` line and a failed call, the artifact unchanged.
"""
import json
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

from checklib import ROOT, check, main, run_script

try:
    import onnxruntime  # noqa: F401

    TARGET_NAME, EXT, WORST, PRODUCER = "onnxruntime-cpu", "onnx", "node_linear_4", "node_linear_3"
except ImportError:
    TARGET_NAME, EXT, WORST, PRODUCER = "executorch-xnnpack", "pte", "linear_4", "linear_3"
TARGET = ROOT / "toolbox" / "targets" / TARGET_NAME
INT8 = f"build/model_int8.{EXT}"

# The hooks both test projects share (each defines `data(n, seed)`).
HOOKS = '''

def sample():
    return (data(4, 2)[0],)


def held_out():
    x, y = data(256, 3)
    return (x,), y


def calibration():
    x, _ = data(64, 4)
    return [(x[i:i + 8],) for i in range(0, 64, 8)]
'''

NET = '''
import torch
from torch import nn


def data(n, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(4, 16, generator=torch.Generator().manual_seed(0)) * 2.0
    y = torch.randint(0, 4, (n,), generator=g)
    return centers[y] + torch.randn(n, 16, generator=g), y


def build():
    torch.manual_seed(0)
    layers = [nn.Linear(16, 64), nn.ReLU()]
    for _ in range(5):
        layers += [nn.Linear(64, 64), nn.ReLU()]
    net = nn.Sequential(*layers, nn.Linear(64, 4))
    x, y = data(512, 1)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(150):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    with torch.no_grad():
        unit = int(net[:8](x).mean(0).argmax())
        net[6].weight[unit] *= 400.0
        net[6].bias[unit] *= 400.0
        net[8].weight[:, unit] /= 400.0
    return net.eval()

''' + HOOKS + '''

def calibration_with_outlier():
    cases = calibration()
    cases[3] = (cases[3][0] * 150.0,)
    return cases
'''

TOML = '''target = "{target}"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
calibration_data = "net:{calibration}"
input_names = ["x"]
output_names = ["y"]
quantize = "int8"
{extra}
'''

# A log-power front end inside the network (two fixed DFT projections, re*re + im*im, log): the
# classes differ only in a faint tone 40 dB under a loud one. One INT8 range over the power
# tensor (set by the loud tone) rounds every faint bin to zero, and so does the range of each
# product before it: no single node kept in float helps, every one of those tensors alone costs
# the task.
CHAIN_NET = '''
import math

import torch
from torch import nn

SAMPLES, BINS, TONES = 64, 32, (11, 19, 27)


def data(n, seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(SAMPLES, dtype=torch.float32)
    y = torch.randint(0, len(TONES), (n,), generator=g)
    phase = torch.rand(n, 2, generator=g) * 2 * math.pi
    loud = 0.8 * torch.sin(2 * math.pi * 3 * t / SAMPLES + phase[:, :1])
    tone = torch.tensor(TONES, dtype=torch.float32)[y][:, None]
    faint = 0.008 * torch.sin(2 * math.pi * tone * t / SAMPLES + phase[:, 1:])
    return loud + faint + 0.0005 * torch.randn(n, SAMPLES, generator=g), y


class Spectrum(nn.Module):
    def __init__(self):
        super().__init__()
        k = torch.arange(BINS, dtype=torch.float32)[:, None]
        n = torch.arange(SAMPLES, dtype=torch.float32)
        self.re = nn.Linear(SAMPLES, BINS, bias=False)
        self.im = nn.Linear(SAMPLES, BINS, bias=False)
        with torch.no_grad():
            self.re.weight.copy_(torch.cos(2 * math.pi * k * n / SAMPLES))
            self.im.weight.copy_(-torch.sin(2 * math.pi * k * n / SAMPLES))

    def forward(self, x):
        re, im = self.re(x), self.im(x)
        return torch.log(re * re + im * im + 1e-6)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.spectrum = Spectrum()
        self.head = nn.Sequential(nn.Linear(BINS, 32), nn.ReLU(), nn.Linear(32, len(TONES)))

    def forward(self, x):
        return self.head(self.spectrum(x))


def build():
    torch.manual_seed(0)
    net = Net()
    x, y = data(512, 1)
    opt = torch.optim.Adam(net.head.parameters(), lr=1e-2)
    for _ in range(150):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    return net.eval()
''' + HOOKS

_DIR = None


def project(extra="", calibration="calibration"):
    """The project folder, exported once; aipc.toml rewritten for each check."""
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix="aipc-int8-sensitivity-"))
        (_DIR / "net.py").write_text(NET)
    (_DIR / "aipc.toml").write_text(TOML.format(target=TARGET_NAME, extra=extra, calibration=calibration))
    if not (_DIR / "build" / f"model.{EXT}").is_file():
        tool("export.py", {})
    return _DIR


def tool(script, args):
    """Run a target script in the project; (last JSON line, whole output)."""
    return run_script(TARGET, _DIR, script, args)


def signature(sig_id):
    entries = []
    for table in (TARGET / "signatures.toml", ROOT / "toolbox" / "targets" / "common" / "int8-mixed-precision.toml"):
        with open(table, "rb") as f:
            entries += tomllib.load(f)["signature"]
    entry = next(s for s in entries if s["id"] == sig_id)
    return re.compile(entry["regex"]), entry["fixes"]


def float_nodes(path):
    """(float nodes, chosen_by) the INT8 artifact records."""
    if EXT == "pte":
        settings = json.loads(Path(f"{path}.json").read_text()).get("quantize", {})
        return sorted(settings.get("nodes_to_exclude", [])), settings.get("chosen_by")
    import onnx

    props = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return sorted(json.loads(props.get("aipc.quantize", "{}")).get("nodes_to_exclude", [])), props.get("aipc.chosen_by")


def int8_passes(res):
    return res["cosine"] >= 0.95 and res["top1_agreement"] >= 0.98 and res["acc_drop_points"] <= 1.0


@check
def mixed_precision_keeps_the_fewest_worst_nodes_in_float_and_passes():
    d = project()
    tool("quantize.py", {})
    before, out = tool("compare.py", {"artifact": INT8})
    assert not int8_passes(before), "the fault must show: " + out
    res, out = tool("int8_sensitivity.py", {})
    assert res["ok"] and res["passes"] == 1 and res["replaced"] == 1, out
    # The node that reads the outlier tensor loses the most (the 5th Linear of the graph); kept in
    # float with the Linear that writes the tensor (and the ReLU between), it passes alone.
    assert res["worst"][0]["node"] == WORST, res["worst"]
    assert res["worst"][0]["loss_db"] > 4 * max(abs(w["loss_db"]) for w in res["worst"][1:]), res["worst"]
    assert {WORST, PRODUCER} <= set(res["float_nodes"]) and res["float_count"] <= 3 < res["nodes"], res
    assert list(res["tried"]) == ["1"] and res["tried"]["1"]["passes"] == 1, res["tried"]
    nodes, chosen_by = float_nodes(d / INT8)
    assert nodes == sorted(res["float_nodes"]) and chosen_by == "int8_sensitivity", (nodes, chosen_by)
    after, out = tool("compare.py", {"artifact": INT8})
    assert int8_passes(after), out
    report = json.loads((d / "build" / "int8_sensitivity.json").read_text())
    assert report["float_nodes"] == res["float_nodes"] and len(report["nodes"]) == res["nodes"], report
    # The result names the call that records the choice (the engine offers it next).
    [record] = res["next_calls"]
    tool_name, args = record.split("  (")[0].split(" ", 1)
    assert tool_name == "set_project_option", record
    assert json.loads(args) == {"key": "int8_float_nodes", "value": sorted(res["float_nodes"])}, record


@check
def a_chain_whose_faint_values_carry_the_task_is_found_by_what_the_task_loses():
    d = Path(tempfile.mkdtemp(prefix="aipc-int8-chain-"))
    try:
        (d / "net.py").write_text(CHAIN_NET)
        (d / "aipc.toml").write_text(TOML.format(target=TARGET_NAME, extra="", calibration="calibration"))
        res, out = run_script(TARGET, d, "export.py", {})
        assert res["ok"], out
        res, out = run_script(TARGET, d, "quantize.py", {})
        assert res["ok"], out
        before, out = run_script(TARGET, d, "compare.py", {"artifact": INT8})
        assert not int8_passes(before), "the fault must show: " + out
        res, out = run_script(TARGET, d, "int8_sensitivity.py", {})
        assert res["ok"] and res["passes"] == 1 and res["replaced"] == 1, out
        after, out = run_script(TARGET, d, "compare.py", {"artifact": INT8})
        assert int8_passes(after), out
        report = json.loads((d / "build" / "int8_sensitivity.json").read_text())
        first = report["alone"][0]
        assert first["kind"] == "activation" and first["cosine"] < 0.9, report["alone"][:4]
        print(json.dumps({k: res[k] for k in ("float_nodes", "tried", "nodes")}))
    finally:
        shutil.rmtree(d, ignore_errors=True)


@check
def inspect_asks_for_the_choice_to_be_recorded_then_quantize_keeps_it():
    d = project()
    if float_nodes(d / INT8)[1] != "int8_sensitivity":
        tool("quantize.py", {})
        tool("int8_sensitivity.py", {})
    chosen, _ = float_nodes(d / INT8)
    res, out = tool("inspect_artifact.py", {"artifact": INT8})
    assert res["int8_float_nodes_match"] == 0, out
    regex, fixes = signature("quant.int8_float_nodes_chosen")
    m = regex.search(out)
    assert m and json.loads(m["nodes"]) == chosen, out
    call = fixes[0].replace("${nodes}", m["nodes"]).split("  (")[0]
    assert json.loads(call.split(" ", 1)[1]) == {"key": "int8_float_nodes", "value": chosen}, call
    project(extra=f"int8_float_nodes = {json.dumps(chosen)}")
    res, out = tool("inspect_artifact.py", {"artifact": INT8})
    assert res["int8_float_nodes_match"] == 1 and "int8 float nodes" not in out, out
    res, out = tool("quantize.py", {})
    assert float_nodes(d / INT8)[0] == chosen, out
    res, out = tool("compare.py", {"artifact": INT8})
    assert int8_passes(res), out
    # A build that quantizes a recorded node is stale.
    project()
    tool("quantize.py", {})
    project(extra=f"int8_float_nodes = {json.dumps(chosen)}")
    res, out = tool("inspect_artifact.py", {"artifact": INT8})
    assert res["int8_float_nodes_match"] == 0, out
    m = signature("quant.int8_float_nodes_stale")[0].search(out)
    assert m and json.loads(m["nodes"]) == chosen, out
    project()


@check
def a_set_that_keeps_every_quantized_node_in_float_never_passes():
    import numpy as np

    from aipc_toolbox import int8_choice

    ref = [np.eye(4)]
    built = []

    def build(nodes):
        built.append(list(nodes))
        return nodes

    def outputs(nodes):
        # Only the all-float build matches eager: the search must not take it.
        return [ref[0] if set(nodes) >= {"a", "b", "c"} else np.ones((4, 4))]

    a = {"min_cosine": 0.95, "min_top1_agreement": 0.98, "max_acc_drop_points": 1.0}
    k, tried, _ = int8_choice.fewest_in_float([["a"], ["b"], ["c"]], [], 3, build, outputs, ref, None, a, ["a", "b", "c"])
    assert k is None and tried[3]["passes"] == 0 and tried[3]["no_int8_left"] == 1, tried
    assert all(set(n) != {"a", "b", "c"} for n in built), built


@check
def max_float_nodes_counts_nodes_not_groups():
    """A group is a tensor's writer and readers; the budget is nodes beside the recorded ones."""
    from aipc_toolbox import emit, int8_choice
    groups = [["a", "b"], ["b", "c"], ["d", "e", "f"], ["g"]]
    assert int8_choice.group_limit(groups, [], 3) == 2
    assert int8_choice.group_limit(groups, [], 6) == 3
    assert int8_choice.group_limit(groups, ["a", "b"], 1) == 2  # recorded nodes are not counted
    assert int8_choice.group_limit(groups, [], 99) == 4
    for limit, base, text in ((1, [], "costliest group alone keeps 2 node(s)"), (5, ["x"], None)):
        try:
            int8_choice.group_limit(groups if text else [], base, limit)
        except emit.ToolError as e:
            assert (text or "nothing left to keep in float") in str(e), e
        else:
            raise AssertionError("no error")


@check
def groups_the_passing_set_does_not_need_go_back_to_int8():
    """The worst-first search keeps the 3 worst groups in float (the 2 worst fail); only the
    third matters to accuracy: pruning puts the other two back in INT8."""
    import numpy as np

    from aipc_toolbox import int8_choice

    ref = [np.eye(4)]

    def outputs(nodes):
        return [ref[0] if "c" in nodes else np.ones((4, 4))]

    a = {"min_cosine": 0.95, "min_top1_agreement": 0.98, "max_acc_drop_points": 1.0}
    groups = [["a"], ["b"], ["c"], ["d"], ["e"]]
    k, tried, builds = int8_choice.fewest_in_float(groups, ["base"], 5, lambda nodes: list(nodes), outputs, ref, None, a,
                                                   ["a", "b", "c", "d", "e"])
    assert k == 3, (k, tried)
    assert builds[3][1] == ["base", "c"], builds[3]
    assert tried[3]["passes"] == 1 and tried[3]["pruned"] == [2, 1] and tried[3]["unpruned_float_nodes"] == 4, tried[3]


@check
def the_tensor_whose_rounding_alone_costs_the_task_most_comes_first():
    """task_rank measures each rounded tensor alone: the one that costs the task comes first even
    when the per-layer report ranks it last; equal costs keep the report's order; points the time
    budget leaves unmeasured follow in the report's order; groups drop what is already float and
    repeats, then take the report's groups not yet covered."""
    import contextlib
    import io

    import numpy as np

    from aipc_toolbox import task_rank

    ref = np.eye(4) + 0.1

    def alone(point):
        if point is not None and point.tensor == "t_faint":
            return np.ones((4, 4))
        return ref

    def points():
        return [task_rank.Point("t_a", "activation", ["a", "b"], 0), task_rank.Point("t_w", "weight", ["b"], 1),
                task_rank.Point("t_faint", "activation", ["x", "y"], 7), task_rank.Point("t_c", "activation", ["base", "c"], 2)]

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        ranked, measured = task_rank.rank(points(), alone)
        assert measured == 4 and [p.tensor for p in ranked] == ["t_faint", "t_a", "t_w", "t_c"], ranked
        assert ranked[0].cosine < 0.9 and ranked[1].cosine == 1.0, ranked
        groups = task_rank.groups(ranked, ["base"], [["a", "b"], ["d"], ["b", "a"]])
        assert groups == [["x", "y"], ["a", "b"], ["b"], ["c"], ["d"]], groups
        ranked, measured = task_rank.rank(points(), alone, budget_s=-1.0)
        assert measured == 1 and [p.tensor for p in ranked] == ["t_a", "t_w", "t_c", "t_faint"], ranked
        assert ranked[3].cosine is None and task_rank.report_rows(ranked)[0]["tensor"] == "t_a"


@check
def a_set_the_runtime_refuses_to_run_fails_and_the_search_goes_on():
    """XNNPACK refused to load one mixed-precision program (a depthwise convolution whose input
    stayed float beside INT8 weights); the search counts it as failing instead of stopping."""
    import numpy as np

    from aipc_toolbox import int8_choice

    ref = [np.eye(4)]

    def outputs(nodes):
        if nodes == ["a", "b"]:
            raise RuntimeError("Failed to load method forward, error: 0x:1")
        return [ref[0] if "c" in nodes else np.ones((4, 4))]

    a = {"min_cosine": 0.95, "min_top1_agreement": 0.98, "max_acc_drop_points": 1.0}
    groups = [["a"], ["b"], ["c"], ["d"], ["e"]]
    k, tried, builds = int8_choice.fewest_in_float(groups, [], 5, lambda nodes: list(nodes), outputs, ref, None, a,
                                                   ["a", "b", "c", "d", "e"])
    assert tried[2] == {"passes": 0, "float_nodes": 2, "does_not_run": 1}, tried
    assert k == 3 and builds[3][1] == ["c"], (k, builds)


@check
def a_search_in_which_no_set_runs_fails_with_the_runtime_error():
    import numpy as np

    from aipc_toolbox import emit, int8_choice

    def outputs(nodes):
        raise RuntimeError("Failed to load method forward, error: 0x:1")

    a = {"min_cosine": 0.95, "min_top1_agreement": 0.98, "max_acc_drop_points": 1.0}
    try:
        int8_choice.fewest_in_float([["a"], ["b"], ["c"]], [], 3, lambda nodes: list(nodes), outputs, [np.eye(4)],
                                    None, a, ["a", "b", "c"])
    except emit.ToolError as e:
        assert "no mixed-precision set runs" in str(e) and "0x:1" in str(e), e
    else:
        raise AssertionError("a search in which nothing ran returned an answer")


@check
def the_choice_is_measured_with_the_calibration_quantize_rebuilds_with():
    project(extra="")
    tool("quantize.py", {"moving_average": True} if TARGET_NAME == "onnxruntime-cpu" else {"observer": "minmax"})
    res, out = tool("int8_sensitivity.py", {})
    assert res["ok"] and "calibration settings: quantize's defaults" in out and "are not reused" in out, out
    project(extra=f"int8_float_nodes = {json.dumps(sorted(res['float_nodes']))}")
    after, out = tool("quantize.py", {})
    cmp_, out = tool("compare.py", {"artifact": INT8})
    assert int8_passes(cmp_), out
    project()


@check
def calibration_outliers_come_first_and_impossible_thresholds_fail_the_call():
    d = project(calibration="calibration_with_outlier")
    tool("quantize.py", {})
    res, out = tool("int8_sensitivity.py", {})
    assert not res["ok"] and "drop_outliers" in res["error"], out
    assert "aipc-warning: calibration outlier: sample 3" in out, out
    project()
    tool("quantize.py", {})
    kept = (d / INT8).read_bytes()
    res, out = tool("int8_sensitivity.py", {"max_float_nodes": 4, "min_cosine": 1.01})
    assert not res["ok"] and (d / INT8).read_bytes() == kept, out
    m = signature("quant.int8_no_mixed_precision")[0].search(out)
    assert m and m["count"] == str(res_count(d)), out
    # A float node the graph does not have is refused, not silently ignored.
    project(extra='int8_float_nodes = ["no_such_node"]')
    res, out = tool("quantize.py", {})
    assert not res["ok"] and "no_such_node" in res["error"], out
    project()


def res_count(d):
    """Nodes in the largest set the failed search tried (its report)."""
    return json.loads((d / "build" / "int8_sensitivity.json").read_text())["limit"]


@check
def the_per_layer_report_runs_as_many_batches_as_its_memory_budget_holds():
    """It saves every intermediate tensor of two models per batch: a transformer at 224x224 took
    260 MB per batch and model, and 16 batches exceeded the sandbox's memory."""
    import contextlib
    import io

    from aipc_toolbox import int8_choice

    mb = 2**20
    assert int8_choice.analysis_batches(16, 10 * mb, budget=1024 * mb) == 16
    assert int8_choice.analysis_batches(16, 10 * mb, wanted=4, budget=1024 * mb) == 4
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        assert int8_choice.analysis_batches(16, 260 * mb, budget=1024 * mb) == 3
        assert int8_choice.analysis_batches(16, 4096 * mb, budget=1024 * mb) == 1, "at least one batch"
    assert "per-layer report on 3 of 16 calibration batches" in buf.getvalue(), buf.getvalue()


if __name__ == "__main__":
    try:
        main()
    finally:
        if _DIR is not None:
            shutil.rmtree(_DIR, ignore_errors=True)

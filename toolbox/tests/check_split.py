#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""The split-adaptation flow's pieces (toolbox/flows/split-adaptation/splitlib.py) on several
model shapes, and the flow's scripts run for real on a small project in a temporary folder:

- the split: a head at the top level, inside a Sequential ("classifier.2"), a head that is a
  Sequential; head(backbone(x)) equals the model; a wrong or missing split_head is refused with
  the Linear modules as candidates; the new head keeps the head's layers and gets one output per
  new class;
- cross-layer equalization keeps the float function on a plain stack, on depthwise-separable
  blocks and on a residual block (where it must not equalize across the addition), and evens out
  per-channel weight ranges that were made to differ by 100x;
- feature metrics: identical features give cosine 1 and channel error 0, a channel crushed to
  zero gives the worst channel;
- the scripts (split, build_backbone, compare_features, restoration_sweep, extract_features,
  train_head, evaluate_adaptation, adaptation_cost) on this venv's runtime, including
  restoration_sweep naming the restoration that passes on a backbone whose channel ranges are
  imbalanced.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn

from checklib import ROOT, check, main, raises

FLOW = ROOT / "toolbox" / "flows" / "split-adaptation"
sys.path.insert(0, str(FLOW))
RUNTIME = "executorch-xnnpack" if "executorch-xnnpack" in sys.prefix else "onnxruntime-cpu"
os.environ["AIPC_RUNTIME"] = RUNTIME
os.environ["AIPC_RUNTIME_DIR"] = str(ROOT / "toolbox" / "targets" / RUNTIME)

import splitlib  # noqa: E402


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = nn.Sequential(nn.Dropout(0.1), nn.Linear(4, 8), nn.Linear(8, 3))

    def forward(self, x):
        return self.classifier(self.features(x))


class FakeProject:
    def __init__(self, model, head, **cfg):
        self.model, self.cfg = model, {"split_head": head, "adapt_seed": 0, "adapt_epochs": 50, "adapt_lr": 0.05,
                                       "adapt_optimizer": "adam", "restoration": "none", **cfg}

    def get(self, key, default=None):
        v = self.cfg.get(key)
        return default if v is None else v

    def __getitem__(self, key):
        return self.cfg[key]

    def load_model(self):
        return self.model.eval()

    def _where(self, key):
        return "aipc.toml:3"


def x(n=6):
    return torch.randn(n, 1, 8, 8, generator=torch.Generator().manual_seed(n))


@check
def split_at_nested_paths_makes_the_model():
    for head in ("classifier", "classifier.2"):
        s = splitlib.Split(FakeProject(Nested(), head))
        with torch.no_grad():
            assert torch.allclose(s.head(s.backbone(x())), s.model(x()), atol=1e-6), head
    # A module that is not the last one applied: the model does not run without it.
    s = splitlib.Split(FakeProject(Nested(), "classifier.1"))
    raises(lambda: splitlib.verify_split(s, (x(),)), "not the last module applied; candidates: classifier.2")
    # One whose output is post-processed: the parts differ from the whole.
    class Scaled(Nested):
        def forward(self, x):
            return 2 * super().forward(x)

    err, _ = splitlib.verify_split(splitlib.Split(FakeProject(Scaled(), "classifier")), (x(),))
    assert err > 1e-3, err


@check
def a_wrong_or_missing_split_head_lists_the_candidates():
    raises(lambda: splitlib.Split(FakeProject(Nested(), "classifer")), "candidates: classifier.2, classifier.1, classifier")
    raises(lambda: splitlib.Split(FakeProject(Nested(), None)), "split_head is not set")
    raises(lambda: splitlib.Split(FakeProject(Nested(), "classifier.7")), "no module at that path")


@check
def the_new_head_keeps_the_layers_and_gets_the_new_classes():
    s = splitlib.Split(FakeProject(Nested(), "classifier"))
    head = s.new_head(5, seed=0)
    assert isinstance(head, nn.Sequential) and head[2].out_features == 5 and head[1].out_features == 8
    assert torch.equal(head[1].weight, s.head[1].weight)  # the inner layer keeps its trained weights
    single = splitlib.Split(FakeProject(Nested(), "classifier.2")).new_head(7, seed=0)
    assert isinstance(single, nn.Linear) and single.out_features == 7


def dwsep(imbalance):
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten())
    with torch.no_grad():
        for bn in (net[1], net[4], net[7]):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
        if imbalance:
            s = 10.0 ** torch.linspace(-1, 1, 8)
            net[4].weight.mul_(s)
            net[4].bias.mul_(s)
            net[6].weight.div_(s.view(1, -1, 1, 1))
    return net.eval()


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = nn.Conv2d(4, 4, 3, padding=1)
        self.b = nn.Conv2d(4, 4, 3, padding=1)
        self.c = nn.Conv2d(4, 4, 1)
        self.stem = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        y = self.b(torch.relu(self.a(x)))
        return self.c(torch.relu(x + y))


@check
def cle_keeps_the_float_function_on_several_shapes():
    for net, at_least in ((dwsep(False), 2), (dwsep(True), 2), (Residual(), 1)):
        out, pairs, _ = splitlib.cross_layer_equalize(net, (x(),))
        assert pairs >= at_least, (type(net).__name__, pairs)
        with torch.no_grad():
            assert torch.allclose(out(x(4)), net(x(4)), rtol=1e-4, atol=1e-5)
    _, pairs, _ = splitlib.cross_layer_equalize(Residual(), (x(),))
    assert pairs == 1, pairs


@check
def cle_evens_out_imbalanced_channel_ranges():
    _, _, ranges = splitlib.cross_layer_equalize(dwsep(True), (x(),))
    assert ranges["range_ratio_before"] > 20 and ranges["range_ratio_after"] < ranges["range_ratio_before"] / 5, ranges


@check
def feature_metrics_find_the_worst_channel():
    ref = torch.randn(50, 6, generator=torch.Generator().manual_seed(1)).numpy()
    same = splitlib.feature_metrics(ref, ref.copy())
    assert same["cosine_min"] > 0.999999 and same["channel_err_max"] < 1e-9
    bad = ref.copy()
    bad[:, 4] = 0.0
    m = splitlib.feature_metrics(ref, bad)
    assert m["worst_channel"] == 4 and m["channel_err_max"] > 0.9, m


@check
def restoration_names_are_checked():
    p = FakeProject(Nested(), "classifier")
    assert splitlib.restorations(p, {"restoration": "cle+per_channel"}) == ["cle", "per_channel"]
    assert splitlib.restorations(p, {"restoration": None}) == []
    assert splitlib.restoration_name(["cle", "per_channel"]) == "cle+per_channel"
    raises(lambda: splitlib.restorations(p, {"restoration": "bias_correction"}), "is not one of cle, per_channel")


PROJECT_MODEL = '''
import torch
from torch import nn


def load_model():
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 3))
    with torch.no_grad():
        for bn in (net[1], net[4], net[7]):
            bn.running_var.uniform_(0.5, 2.0, generator=torch.Generator().manual_seed(2))
        s = 10.0 ** ((2 * torch.rand(8, generator=torch.Generator().manual_seed(3)) - 1) * 1.5)
        net[4].weight.mul_(s)
        net[4].bias.mul_(s)
        net[6].weight.div_(s.view(1, -1, 1, 1))
    return net.eval()


def _x(n, seed):
    return torch.rand(n, 1, 8, 8, generator=torch.Generator().manual_seed(seed))


def example():
    return (_x(1, 0),)


def eval_data():
    return (_x(64, 1),), None


def calib():
    return [(_x(1, 100 + i),) for i in range(32)]


def adapt():
    tx, vx = _x(60, 5), _x(30, 6)
    label = lambda t: (t.mean(dim=(1, 2, 3)) * 3 // 1.5).clamp(0, 1).long()
    return tx, label(tx), vx, label(vx)
'''

PROJECT_TOML = '''target = "split-{runtime}"
[project]
model = "net:load_model"
example_inputs = "net:example"
eval_data = "net:eval_data"
calibration_data = "net:calib"
adapt_data = "net:adapt"
split_head = "11"
adapt_epochs = 80
adapt_lr = 0.05
'''


def run_flow_script(project, script, args=None):
    import json
    import subprocess

    env = dict(os.environ, AIPC_TARGET_DIR=str(ROOT / "toolbox" / "targets" / f"split-{RUNTIME}"),
               AIPC_TOOLBOX=str(ROOT / "toolbox"), PYTHONPATH=str(ROOT / "toolbox" / "lib"), QNN_SDK_ROOT="")
    r = subprocess.run([sys.executable, str(FLOW / script), "--args-json", json.dumps(args or {})], cwd=project,
                       env=env, capture_output=True, text=True, timeout=900)
    out = r.stdout + r.stderr
    last = [line for line in r.stdout.splitlines() if line.startswith("{")]
    assert last, f"{script} printed no JSON line:\n{out}"
    return json.loads(last[-1]), out


@check
def the_flow_scripts_run_on_this_runtime():
    tmp = Path(tempfile.mkdtemp(prefix="aipc-check-split-"))
    try:
        (tmp / "net.py").write_text(PROJECT_MODEL)
        (tmp / "aipc.toml").write_text(PROJECT_TOML.format(runtime=RUNTIME))
        r, out = run_flow_script(tmp, "split_check.py")
        assert r["split_ok"] == 1 and r["feature_dim"] == 16, out
        r, out = run_flow_script(tmp, "build_backbone.py")
        assert r.get("built") == 1 and r["restoration"] == "none", out
        plain, out = run_flow_script(tmp, "compare_features.py")
        assert plain.get("fp32_cosine_min", 0) > 0.999, out
        sweep, out = run_flow_script(tmp, "restoration_sweep.py")
        rows = {row["restoration"]: row for row in sweep["measured"]}
        assert set(rows) == {"none", "per_channel", "cle", "cle+per_channel"}, out
        assert rows["cle"]["cosine_mean"] > rows["none"]["cosine_mean"], out
        if sweep["best"] is not None:
            assert "aipc-warning: restoration chosen:" in out, out
            [record] = sweep["next_calls"]
            assert record.startswith('set_project_option {"key": "restoration", "value": "%s"}' % sweep["best"]), sweep
        else:
            assert "next_calls" not in sweep, sweep
        r, out = run_flow_script(tmp, "build_backbone.py", {"restoration": "cle"})
        assert r["cle_pairs"] >= 2, out
        cle, out = run_flow_script(tmp, "compare_features.py")
        assert cle["restoration"] == "cle" and cle["cosine_mean"] >= plain["cosine_mean"], (plain, cle)
        r, out = run_flow_script(tmp, "train_head.py")
        assert r.get("ok") is False and "call extract_features first" in out, out
        r, out = run_flow_script(tmp, "extract_features.py")
        assert r["extracted"] == 1 and r["train_samples"] == 60 and r["classes"] == 2, out
        r, out = run_flow_script(tmp, "train_head.py")
        assert r["trained"] == 1 and 0 <= r["test_acc"] <= 1, out
        r, out = run_flow_script(tmp, "evaluate_adaptation.py")
        assert {"acc", "ref_acc", "full_ft_acc", "within_budget"} <= set(r), out
        r, out = run_flow_script(tmp, "adaptation_cost.py", {"repeats": 1})
        assert r["measured"] == 1 and r["ratio"] > 0 and r["within_budget"] == 1, out
        # A rebuilt backbone makes the cached features stale: refused, with the call that refreshes them.
        run_flow_script(tmp, "build_backbone.py")
        r, out = run_flow_script(tmp, "train_head.py")
        assert r.get("ok") is False and "extract_features again" in out, out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

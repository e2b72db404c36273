#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""Numerical conditioning (aipc_toolbox/conditioning.py), run for real in the venv it runs in:

- a model whose output is a sum of large terms minus their large offset (catastrophic
  cancellation) exports faithfully, yet its FP32 artifact is off eager (the runtime sums in
  another order than torch's cascade): compare says the model is ill-conditioned, names the
  module where the rounding error grows (class, file:line) and its line matches the signature
  table's `accuracy.ill_conditioned`; the same holds in-process with the exact (float64) result as
  the "artifact", whatever order this CPU's kernels sum in;
- a well-conditioned model with a structural difference (the "artifact" computes another
  activation) is not called ill-conditioned, and a clean export is not measured at all.
"""
import copy
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

import numpy as np
import torch
from torch import nn

from checklib import ROOT, check, main, run_script, venv_target
from aipc_toolbox import conditioning
from aipc_toolbox.tensors import eager_outputs

TARGET_NAME, EXT, TARGET = venv_target()

NET = '''
import torch
from torch import nn


class BandSum(nn.Module):
    """Per-band sum of a wide expansion that carries a large offset, the offset removed after:
    terms near 1e4 whose sum is compared with width x 1e4 (catastrophic cancellation)."""

    def __init__(self, bands, width):
        super().__init__()
        self.up = nn.Linear(bands, bands * width)
        self.bands, self.width = bands, width
        with torch.no_grad():
            self.up.bias.add_(1e4)

    def forward(self, x):
        h = self.up(x).view(x.shape[0], self.bands, self.width)
        return (h.sum(-1) - 1e4 * self.width) * 10.0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Linear(16, 8)
        self.bands = BandSum(8, 1024)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(torch.tanh(self.bands(torch.relu(self.stem(x)))))


def build():
    return Net().eval()


def rows():
    return torch.randn(64, 16, generator=torch.Generator().manual_seed(1))


def sample():
    return (rows()[:1],)


def held_out():
    return (rows(),), None
'''

TOML = '''target = "{target}"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
input_names = ["x"]
output_names = ["y"]
quantize = "none"
'''


def signature():
    with open(ROOT / "toolbox" / "targets" / "common" / "numerics.toml", "rb") as f:
        table = tomllib.load(f)
    return re.compile(next(s["regex"] for s in table["signature"] if s["id"] == "accuracy.ill_conditioned"))


def well_conditioned():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()


@check
def an_ill_conditioned_model_is_named_with_the_module_where_rounding_grows():
    d = Path(tempfile.mkdtemp(prefix="aipc-conditioning-"))
    try:
        (d / "net.py").write_text(NET)
        (d / "aipc.toml").write_text(TOML.format(target=TARGET_NAME))
        res, out = run_script(TARGET, d, "export.py", {})
        assert res["ok"], out
        res, out = run_script(TARGET, d, "compare.py", {"artifact": f"build/model.{EXT}"})
        assert res["ok"], out
        assert res["conditioning_checked"] == 1 and res["ill_conditioned"] == 1, res
        assert res["fp64_eager_cosine"] < 0.9999, res
        assert res["diverging_module"] == "bands", res
        assert res["diverging_source"].startswith("net.py:"), res
        m = signature().search(out)
        assert m, out
        assert m["module"] == "bands" and m["module_class"] == "BandSum", m.groupdict()
        line = int(m["source"].split(":")[1])
        assert "def forward" in (d / "net.py").read_text().splitlines()[line - 1], m["source"]
    finally:
        shutil.rmtree(d, ignore_errors=True)


@check
def the_exact_result_as_artifact_is_called_ill_conditioned_in_process():
    scope = {}
    exec(NET, scope)
    model = scope["build"]()
    x = torch.randn(32, 16, generator=torch.Generator().manual_seed(4))
    ref = eager_outputs(model, (x,))[0]
    exact = eager_outputs(copy.deepcopy(model).double(), (x.double(),))[0].astype(np.float32)
    m = conditioning.measure(model, (x,), ref, exact)
    assert m["ill_conditioned"] == 1 and m["fp64_artifact_cosine"] > m["fp64_eager_cosine"], m
    assert m["diverging_module"] == "bands", m


@check
def a_structural_difference_is_not_blamed_on_conditioning():
    model = well_conditioned()
    x = torch.randn(32, 16, generator=torch.Generator().manual_seed(2))
    ref = eager_outputs(model, (x,))[0]
    with torch.no_grad():
        wrong = model[2](torch.tanh(model[0](x))).numpy()  # another activation: what an export bug does
    m = conditioning.measure(model, (x,), ref, wrong)
    assert m["conditioning_checked"] == 1 and m["ill_conditioned"] == 0, m
    assert m["fp64_eager_cosine"] > 0.999999, m
    assert "diverging_module" not in m, m


@check
def a_clean_artifact_is_not_measured():
    model = well_conditioned()
    x = torch.randn(8, 16, generator=torch.Generator().manual_seed(3))
    ref = eager_outputs(model, (x,))[0]
    assert conditioning.measure(model, (x,), ref, ref + np.float32(1e-7)) == {}


@check
def a_model_that_cannot_run_in_float64_is_reported_not_measured():
    class Float32Only(nn.Module):
        def forward(self, x):
            if x.dtype != torch.float32:
                raise TypeError("this kernel takes float32 only")
            return x * 2

    x = torch.randn(4, 3)
    ref = (x * 2).numpy()
    assert conditioning.measure(Float32Only(), (x,), ref, -ref) == {}


if __name__ == "__main__":
    main()

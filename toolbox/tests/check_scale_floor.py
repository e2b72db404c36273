#!/usr/bin/env python3
# aipc-venvs: executorch-xnnpack
"""executorch-xnnpack quantize: activations under the XNNPACK config's scale floor.

XNNPACK's quantization config floors every activation scale at eps = 2^-12, so a tensor whose
calibrated range is much smaller gets a few INT8 steps or none: a net whose activations shrink
layer by layer then collapses with no error (ZooBench: timm's tinynet-e, cosine 0.18). These
checks build such a net (a fixed-seed MLP whose first layers are scaled down), show that the floor
really collapses it (so the checks can fail), and that quantize.py finds the tensors under the
floor, calibrates again below them, lowers with XNNPACK and gives a .pte that matches eager. A net
with ordinary ranges is calibrated once, with the config's own eps.
"""
import sys
import tempfile
from pathlib import Path

from checklib import MLP_DATA, MLP_TOML, ROOT, check, main, run_script

TARGET = ROOT / "toolbox" / "targets" / "executorch-xnnpack"
sys.path.insert(0, str(TARGET))

import quantize  # noqa: E402

NET = '''
import torch
from torch import nn

SHRINK = {shrink}


def build():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    with torch.no_grad():
        for layer in (net[0], net[2]):
            layer.weight.mul_(SHRINK)
            layer.bias.mul_(SHRINK)
        net[4].bias.zero_()  # the logits are made of the small activations alone
    return net.eval()
''' + MLP_DATA


def _net(shrink):
    namespace = {}
    exec(compile(NET.format(shrink=shrink), "net.py", "exec"), namespace)
    return namespace


def _converted(shrink, lowered_floor):
    """(eager outputs, quantized reference outputs, scale_floor's report) on the held-out rows."""
    import torch
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    ns = _net(shrink)
    model, x = ns["build"](), ns["rows"]()
    cal = ns["calibration"]()
    config = quantize._config(True, "histogram", False)
    captured = torch.export.export(model, ns["sample"]()).module()
    report = {}
    if lowered_floor:
        converted = quantize.pt2e_convert(captured, cal, config, report=report)
    else:  # the config as XNNPACK gives it, nothing measured
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import XNNPACKQuantizer

        prepared = prepare_pt2e(captured, XNNPACKQuantizer().set_global(config))
        with torch.no_grad():
            for batch in cal:
                prepared(*batch)
        converted = convert_pt2e(prepared)
    with torch.no_grad():
        return model(x), torch.cat([converted(x[i:i + 4]) for i in range(0, 96, 4)]), report


def _cosine(a, b):
    import torch

    return float(torch.nn.functional.cosine_similarity(a.flatten(1), b.flatten(1)).mean())


@check
def the_floor_collapses_a_net_of_small_activations_and_the_lowered_one_does_not():
    eager, floored, _ = _converted(3e-3, lowered_floor=False)
    assert _cosine(eager, floored) < 0.9, _cosine(eager, floored)
    eager, lowered, report = _converted(3e-3, lowered_floor=True)
    assert report["under_floor"] >= 2 and report["observer_eps"] < report["config_eps"] == 2 ** -12, report
    assert report["smallest_range"] < 255 * 2 ** -12, report
    assert _cosine(eager, lowered) >= 0.99, _cosine(eager, lowered)


@check
def ordinary_ranges_keep_the_configs_floor():
    eager, converted, report = _converted(1.0, lowered_floor=True)
    assert report["under_floor"] == 0 and report["observer_eps"] == report["config_eps"], report
    assert _cosine(eager, converted) >= 0.99


@check
def quantize_lowers_it_with_xnnpack_and_the_pte_matches_eager():
    with tempfile.TemporaryDirectory() as d:
        Path(d, "net.py").write_text(NET.format(shrink=3e-3))
        Path(d, "aipc.toml").write_text(MLP_TOML.format(target="executorch-xnnpack", extra=""))
        res, out = run_script(TARGET, d, "export.py", {})
        assert res["ok"], out
        res, out = run_script(TARGET, d, "quantize.py", {})
        assert res["ok"] and res["activations_under_floor"] >= 2 and res["observer_eps"] < 2 ** -12, out
        assert "aipc-warning: activation range under the scale floor:" in out, out
        res, out = run_script(TARGET, d, "compare.py", {"artifact": "build/model_int8.pte"})
        assert res["ok"] and res["cosine"] >= 0.99, out


if __name__ == "__main__":
    main()

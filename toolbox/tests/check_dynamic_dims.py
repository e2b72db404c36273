#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""Checks of aipc_toolbox.tensors.export_program: a dim of aipc.toml dynamic_dims is declared
1..max; when the model's code needs a narrower range (a pool needs a few frames) the export keeps
the dim dynamic over the range the code allows and says so; when the code fixes the dim, the
export fails with torch's own reason.

Run with either target's venv: `python check_dynamic_dims.py`.
"""
import contextlib
import io
import sys

from checklib import ROOT, check, main

sys.path.insert(0, str(ROOT / "toolbox" / "lib"))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from aipc_toolbox.tensors import export_program  # noqa: E402


class PooledFrames(nn.Module):
    """A conv stack over (batch, 1, frames, bands): two blocks pooled by 2, a third conv, then
    the mean over frames and bands. It needs at least 4 frames (and a pooled size other than 1),
    so the declared range 1..max is refused."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)

        def block(c_in, c_out, pool):
            layers = [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]
            return nn.Sequential(*layers, *([nn.MaxPool2d(2)] if pool else []))

        self.body = nn.Sequential(block(1, 4, True), block(4, 8, True), block(8, 8, False))
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.body(x).mean(dim=(2, 3)))


class FixedFrames(nn.Module):
    """Code that fixes the frames to the example's size (a reshape to constants)."""

    def forward(self, x):
        return x.reshape(2, 3 * 16).sum(-1)


def _range(ep, dim):
    name = ep.graph_signature.user_inputs[0]
    node = next(n for n in ep.graph.nodes if n.op == "placeholder" and n.name == name)
    size = node.meta["val"].shape[dim]
    bounds = ep.range_constraints[size.node.expr]
    return int(bounds.lower), int(bounds.upper)


@check
def a_range_the_code_narrows_stays_dynamic_over_what_it_allows():
    model, x = PooledFrames().eval(), torch.randn(2, 1, 16, 8)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ep, shapes = export_program(model, (x,), extra=[(0, 2, 64)])
    assert _range(ep, 2) == (4, 64), _range(ep, 2)
    assert "dynamic_dims: the declared range 1..max does not fit the model's code" in buf.getvalue(), buf.getvalue()
    assert "input x dim 2: 4..64" in buf.getvalue(), buf.getvalue()
    longer = torch.randn(2, 1, 40, 8)
    assert torch.allclose(ep.module()(longer), model(longer), atol=1e-6)
    # the shapes returned export the same module again (quantize re-exports the converted model)
    again = torch.export.export(model, (x,), dynamic_shapes=shapes)
    assert _range(again, 2) == (4, 64)


@check
def a_dim_the_code_fixes_fails_with_torchs_reason():
    try:
        export_program(FixedFrames(), (torch.randn(2, 3, 16),), extra=[(0, 2, 64)])
    except Exception as e:  # noqa: BLE001 - torch's own error is the point
        assert "specialized it to be a constant (16)" in str(e), str(e)[:500]
    else:
        raise AssertionError("a dim the code fixes was exported")


@check
def a_range_the_code_allows_is_exported_as_declared():
    model = nn.Sequential(nn.Conv1d(3, 4, 3, padding=1), nn.ReLU()).eval()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ep, _ = export_program(model, (torch.randn(2, 3, 16),), extra=[(0, 2, 64)])
    assert _range(ep, 2)[1] == 64 and "declared range" not in buf.getvalue(), buf.getvalue()


@check
def no_dynamic_dims_is_a_plain_export():
    ep, shapes = export_program(PooledFrames().eval(), (torch.randn(2, 1, 16, 8),))
    assert shapes is None
    node = next(n for n in ep.graph.nodes if n.op == "placeholder" and n.name == ep.graph_signature.user_inputs[0])
    assert tuple(node.meta["val"].shape) == (2, 1, 16, 8)


if __name__ == "__main__":
    main()

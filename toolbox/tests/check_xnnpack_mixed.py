#!/usr/bin/env python3
# aipc-venvs: executorch-xnnpack
"""executorch-xnnpack quantize: which float/INT8 mixes XNNPACK can build.

A mixed-precision set that keeps a convolution in float while the op reading its output (or the
op writing its input) stays INT8 is refused by XNNPACK: the first lowers but does not load
("Failed to create convolution node ... xnn_status_invalid_parameter"), the second does not
lower ("Weight and Input should both be quantized"). Each such set cost int8_sensitivity a build
that could not pass (measured on a log-power front end). These checks build a small
conv -> square -> conv network for real, show that both mixes fail as they are (so the checks
can fail), and that quantize's closure (`xnnpack_float_closure`) makes each load and match eager;
and that the closure adds nothing where nothing is needed (linear layers, no convolution kept).
"""
import os
import sys
import tempfile

from checklib import ROOT, check, main

TARGET = ROOT / "toolbox" / "targets" / "executorch-xnnpack"
sys.path.insert(0, str(TARGET))

import quantize  # noqa: E402


def _nets():
    import torch
    from torch import nn

    class ConvSquareConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.front, self.back = nn.Conv1d(1, 8, 5), nn.Conv1d(8, 4, 3)

        def forward(self, x):
            y = self.front(x)
            return self.back(y * y)

    class LinearSquareLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.front, self.back = nn.Linear(6, 8), nn.Linear(8, 4)

        def forward(self, x):
            y = self.front(x)
            return self.back(y * y)

    torch.manual_seed(0)
    return {"conv": (ConvSquareConv().eval(), torch.randn(4, 1, 32)),
            "linear": (LinearSquareLinear().eval(), torch.randn(4, 6))}


def _build_and_run(model, x, float_nodes):
    """Quantize with `float_nodes` kept in float, lower with XNNPACK, load and run: the output,
    or the error (a string) of the step that failed."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    captured = torch.export.export(model, (x,)).module()
    converted = quantize.pt2e_convert(captured, [(x,)], quantize._config(True, "histogram", False), float_nodes)
    try:
        program = to_edge_transform_and_lower(torch.export.export(converted, (x,)),
                                              partitioner=[XnnpackPartitioner()]).to_executorch()
    except RuntimeError as e:
        return f"lowering: {e}"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.pte")
        with open(path, "wb") as f:
            f.write(program.buffer)
        try:
            return Runtime.get().load_program(path).load_method("forward").execute([x])[0]
        except RuntimeError as e:
            return f"loading: {e}"


def _graph(model, x):
    import torch
    return torch.export.export(model, (x,)).module().graph


@check
def a_float_convolution_beside_int8_ops_builds_once_its_tensors_are_float():
    import torch
    model, x = _nets()["conv"]
    graph = _graph(model, x)
    names = [n.name for n in graph.nodes if n.op == "call_function"]
    assert names == ["conv1d", "mul", "conv1d_1"], names
    ref = model(x)
    for conv, fails_at in (("conv1d", "loading"), ("conv1d_1", "lowering")):
        as_is = _build_and_run(model, x, [conv])
        assert isinstance(as_is, str) and as_is.startswith(fails_at), (conv, as_is)
        closed, joined = quantize.xnnpack_float_closure(graph, [conv])
        assert joined == ["mul"] and closed == sorted([conv, "mul"]), (conv, closed, joined)
        out = _build_and_run(model, x, closed)
        assert not isinstance(out, str), (conv, out)
        cos = torch.nn.functional.cosine_similarity(out.flatten(), ref.flatten(), dim=0).item()
        assert cos > 0.99, (conv, cos)


@check
def the_closure_adds_nothing_where_xnnpack_needs_nothing():
    nets = _nets()
    model, x = nets["linear"]
    graph = _graph(model, x)
    for kept in (["linear"], ["linear_1"], ["mul"], []):
        assert quantize.xnnpack_float_closure(graph, kept) == (sorted(kept), []), kept
        assert not isinstance(_build_and_run(model, x, kept), str), kept
    model, x = nets["conv"]
    assert quantize.xnnpack_float_closure(_graph(model, x), ["mul"]) == (["mul"], [])
    # Both convolutions and what is between them: already closed.
    assert quantize.xnnpack_float_closure(_graph(model, x), ["conv1d", "mul", "conv1d_1"])[1] == []


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""The operator rewrite library (aipc_toolbox/rewrites.py), checked against the real toolchain of
the venv it runs in (onnxruntime-cpu: torch.onnx + onnxruntime; executorch-xnnpack: ExecuTorch
with the XNNPACK partitioner + executorch.runtime).

For every library entry:
- numeric: the replacement equals the original op on the entry's generated inputs (fixed seeds,
  odd sizes, negative dims, ties) within the entry's tolerance (exact where it says so); index
  outputs are compared on tie-free inputs only (torch's choice among ties is its own);
- toolchain: a tiny module using the op (functional, method, helper-method and inside-an-expression
  code shapes) exports with the rewrite, the artifact runs and matches eager; without the rewrite
  the same module does what NEEDED records for this venv (fails, stays undelegated, or passes), and
  NEEDED holds a failure or undelegated op in at least one venv for every entry, so each entry is
  proven necessary by one of the two runs.
Plus the name normalisation, find(), the unknown-op refusal and the absent-op note.
"""
import os
import re
import sys
import tempfile

from checklib import ROOT, check, main, raises

os.environ.setdefault("QNN_SDK_ROOT", "")

import torch  # noqa: E402
from torch import nn  # noqa: E402

from aipc_toolbox import rewrites  # noqa: E402

try:
    import onnxruntime  # noqa: F401

    VENV = "ort"
except ImportError:
    VENV = "et"
if VENV == "et":
    sys.path.insert(0, str(ROOT / "toolbox" / "targets" / "executorch-xnnpack"))

# What each toolchain does with the op WITHOUT the rewrite (probed; the table in rewrites.py):
# "fail" = export/lowering raises, "undelegated" = lowers but the op stays on portable kernels,
# "ok" = exports, runs and matches. With the rewrite, "delegated" entries lower fully to XNNPACK.
NEEDED = {
    "aten.median.dim": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.median.default": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.nanmedian.dim": {"ort": "fail", "et": "fail"},
    "aten.kthvalue.default": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.mode.default": {"ort": "fail", "et": "fail"},
    "aten.cummax.default": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.cummin.default": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.logcumsumexp.default": {"ort": "ok", "et": "fail", "delegated": True},
    "aten.histc.default": {"ort": "ok", "et": "fail"},
    "aten.bucketize.Tensor": {"ort": "ok", "et": "fail"},
    "aten.searchsorted.Tensor": {"ort": "fail", "et": "fail"},
    "aten.erfinv.default": {"ort": "fail", "et": "fail"},
    "aten._cdist_forward.default": {"ort": "fail", "et": "undelegated", "delegated": True},
    "aten._linalg_eigh.default": {"ort": "fail", "et": "fail"},
    "aten.prelu.default": {"ort": "ok", "et": "fail", "delegated": True},
    "aten.softplus.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.mish.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.elu.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.adaptive_avg_pool2d.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.upsample_nearest2d.vec": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.sort.default": {"ort": "ok", "et": "fail", "delegated": True},
    "aten.sort.stable": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.argsort.default": {"ort": "ok", "et": "fail"},  # the rank counting's comparisons stay on portable kernels
    "aten.topk.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.roll.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.mean.dim": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.adaptive_max_pool2d.default": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.avg_pool2d.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.native_layer_norm.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.native_group_norm.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.scaled_dot_product_attention.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.unbind.int": {"ort": "ok", "et": "undelegated"},  # a slice of a permuted tensor may still need a layout copy
    "aten.select.int": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.expand.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.amax.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.amin.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.var.correction": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.sum.dim_IntList": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.pow.Tensor_Scalar": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.pow.Tensor_Tensor": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.reciprocal.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.mm.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.cumsum.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.cumprod.default": {"ort": "fail", "et": "fail", "delegated": True},
    "aten.pad.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.max_pool1d.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.avg_pool1d.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.adaptive_avg_pool1d.default": {"ort": "ok", "et": "undelegated", "delegated": True},
    "aten.adaptive_max_pool1d.default": {"ort": "ok", "et": "fail", "delegated": True},
}


class GemPool(nn.Module):
    """the power step of generalised-mean pooling with a learned exponent (a parameter): pow with a tensor exponent"""

    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.tensor(3.0))
        self.inverse = nn.Parameter(torch.tensor(1.0 / 3.0))

    def forward(self, x):
        return (x.clamp(min=1e-6).pow(self.p) * 0.5 + 0.25).pow(self.inverse)


class MedianFilter(nn.Module):
    """helper method called from forward, method call form"""

    def _filter(self, x):
        return x.median(dim=1).values

    def forward(self, x):
        return torch.relu(self._filter(x)) + 1.0


class Fn(nn.Module):
    def __init__(self, fn, **buffers):
        super().__init__()
        self.fn = fn
        for k, v in buffers.items():
            self.register_buffer(k, v)

    def forward(self, x):
        return self.fn(self, x)


class NormBlock(nn.Module):
    """A transformer block's norm (nn.LayerNorm) and a functional one over the last two dims."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc, self.norm = nn.Linear(8, 16), nn.LayerNorm(16)

    def forward(self, x):
        return nn.functional.layer_norm(self.norm(self.fc(x)), (5, 16))


class GroupNormBlock(nn.Module):
    """A conv stack's nn.GroupNorm, then a functional group norm without affine in a helper."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.norm = nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(4, 8)

    def _renorm(self, x):
        return nn.functional.group_norm(x, 2, eps=1e-6)

    def forward(self, x):
        return self._renorm(torch.relu(self.norm(self.conv(x))))


class Attention(nn.Module):
    """Attention as a transformer block writes it: q, k, v projections split into heads, then
    scaled_dot_product_attention, no mask."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.q, self.k, self.v, self.out = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = (p(x).reshape(b, n, 2, c // 2).transpose(1, 2) for p in (self.q, self.k, self.v))
        y = nn.functional.scaled_dot_product_attention(q, k, v)
        return self.out(y.transpose(1, 2).reshape(b, n, c))


class RingPad(nn.Module):
    """A ring of sensors: a conv with padding_mode="circular", then a reflect pad written with
    F.pad in a helper before a second conv, and a replicate-padded 2-D conv."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.ring = nn.Conv1d(3, 4, 5, padding=2, padding_mode="circular")
        self.edge = nn.Conv1d(4, 4, 3)
        self.plane = nn.Conv2d(1, 2, 3, padding=1, padding_mode="replicate")

    def _mirrored(self, h):
        return nn.functional.pad(h, (1, 1), mode="reflect")

    def forward(self, x):
        h = torch.relu(self.edge(self._mirrored(torch.relu(self.ring(x)))))
        return self.plane(h.reshape(h.shape[0], 1, h.shape[1], h.shape[2])).flatten(1)


class ShapeSpectrum(nn.Module):
    """Covariance of each group of 3-D points and its eigenvalues (point-cloud shape features)."""

    def forward(self, x):
        centred = x - x.mean(-2, keepdim=True)
        cov = centred.transpose(-1, -2) @ centred / x.shape[-2]
        return torch.linalg.eigvalsh(cov)


class CdistHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.centers = nn.Parameter(torch.randn(5, 4, generator=torch.Generator().manual_seed(3)))

    def _dist(self, x):
        return torch.cdist(x, self.centers)

    def forward(self, x):
        return -self._dist(x) * 0.5


class MeanHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean(dim=(2, 3)))


def _x(*shape, seed=0, ties=False):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 5, shape, generator=g).float() if ties else torch.randn(*shape, generator=g)


SEQ = torch.linspace(-1.5, 1.5, 7)
# key -> (module, example input); code shapes vary: functional torch.x(...), method t.x(...),
# helper method, part of a bigger expression.
MODULES = {
    "aten.median.dim": lambda: (MedianFilter(), _x(2, 9, 5)),
    "aten.median.default": lambda: (Fn(lambda s, x: x - torch.median(x)), _x(3, 7)),
    "aten.nanmedian.dim": lambda: (Fn(lambda s, x: torch.nanmedian(x, dim=-1, keepdim=True).values * 2.0), _x(4, 7)),
    # keepdim: the kept dim must lower to a delegated op too (a probe left unsqueeze_copy out).
    "aten.kthvalue.default": lambda: (Fn(lambda s, x: x - x.kthvalue(3, dim=1, keepdim=True)[0]), _x(2, 6, 3, ties=True)),
    "aten.mode.default": lambda: (Fn(lambda s, x: torch.mode(x, 1).values + 0.5), _x(3, 8, ties=True)),
    "aten.cummax.default": lambda: (Fn(lambda s, x: x.cummax(1).values - x), _x(2, 7, 3)),
    "aten.cummin.default": lambda: (Fn(lambda s, x: torch.cummin(x, dim=0)[0]), _x(5, 4, ties=True)),
    "aten.logcumsumexp.default": lambda: (Fn(lambda s, x: torch.logcumsumexp(x, dim=-1)), _x(3, 9)),
    "aten.histc.default": lambda: (Fn(lambda s, x: torch.histc(x, bins=6, min=-2, max=2) / x.numel()), _x(4, 9)),
    "aten.bucketize.Tensor": lambda: (Fn(lambda s, x: torch.bucketize(x, s.bounds) * 2, bounds=SEQ), _x(3, 5)),
    "aten.searchsorted.Tensor": lambda: (Fn(lambda s, x: torch.searchsorted(s.seq, x), seq=SEQ), _x(2, 6)),
    "aten.erfinv.default": lambda: (Fn(lambda s, x: torch.tanh(x).erfinv() * 2.0), _x(3, 8)),
    "aten._cdist_forward.default": lambda: (CdistHead(), _x(6, 4)),
    "aten._linalg_eigh.default": lambda: (ShapeSpectrum(), _x(4, 9, 3)),
    # A 1-D conv stack's PReLU (3-D input), activations after a linear layer, a 2-D head that
    # pools to a grid, a decoder's nearest upsampling, and sorting / top-k over a feature dim.
    "aten.prelu.default": lambda: (nn.Sequential(nn.Conv1d(3, 4, 3), nn.PReLU(4)), _x(2, 3, 16)),
    "aten.softplus.default": lambda: (nn.Sequential(nn.Linear(8, 8), nn.Softplus()), _x(3, 8)),
    "aten.mish.default": lambda: (nn.Sequential(nn.Linear(8, 8), nn.Mish()), _x(3, 8)),
    "aten.elu.default": lambda: (nn.Sequential(nn.Linear(8, 8), nn.ELU()), _x(3, 8)),
    "aten.adaptive_avg_pool2d.default": lambda: (nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.AdaptiveAvgPool2d(2)),
                                                 _x(1, 3, 8, 8)),
    "aten.upsample_nearest2d.vec": lambda: (nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.Upsample(scale_factor=2)),
                                            _x(1, 3, 6, 6)),
    "aten.sort.default": lambda: (Fn(lambda s, x: torch.sort(x, -1).values * 2.0), _x(3, 10)),
    "aten.sort.stable": lambda: (Fn(lambda s, x: torch.sort(x, dim=1, stable=True, descending=True).values), _x(3, 12, 2)),
    "aten.argsort.default": lambda: (Fn(lambda s, x: torch.argsort(x, -1).float()), _x(3, 10)),
    "aten.topk.default": lambda: (Fn(lambda s, x: torch.topk(x, 3, -1).values), _x(4, 16)),
    "aten.roll.default": lambda: (Fn(lambda s, x: x.roll(2, -1) + torch.roll(x, shifts=-1, dims=0)), _x(3, 7)),
    "aten.mean.dim": lambda: (MeanHead(), _x(2, 3, 5, 7)),
    "aten.adaptive_max_pool2d.default": lambda: (nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveMaxPool2d((3, 2)), nn.Flatten()),
                                                 _x(2, 3, 9, 8)),
    # A ResNet-D shortcut (ceil_mode, padding excluded) and a padded pool that counts its padding.
    "aten.avg_pool2d.default": lambda: (nn.Sequential(nn.Conv2d(3, 4, 3), nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False),
                                                      nn.AvgPool2d(3, 2, padding=1), nn.Flatten()), _x(2, 3, 10, 9)),
    # A transformer block's norm (nn.LayerNorm) and a functional one over the last two dims.
    "aten.native_layer_norm.default": lambda: (NormBlock(), _x(2, 5, 8)),
    "aten.native_group_norm.default": lambda: (GroupNormBlock(), _x(2, 3, 6, 5)),
    "aten.scaled_dot_product_attention.default": lambda: (Attention(), _x(2, 5, 8)),
    # A ViT's qkv split: heads and q/k/v out of one projection, unbound on the leading dim.
    "aten.unbind.int": lambda: (Fn(lambda s, x: sum(torch.relu(t) for t in x.reshape(2, 5, 3, 2, 4).permute(2, 0, 3, 1, 4).unbind(0))),
                                _x(2, 5, 24)),
    "aten.select.int": lambda: (Fn(lambda s, x: torch.relu(x[:, -1]) + x.select(1, 0)), _x(2, 4, 6)),
    # A class token broadcast over the batch, and a column repeated past 5 (expand_as).
    "aten.expand.default": lambda: (Fn(lambda s, x: torch.cat([s.token.expand(x.shape[0], -1, -1),
                                                                x - x.narrow(2, 0, 1).expand_as(x)], 1) * 2.0,
                                       token=torch.ones(1, 1, 8)), _x(3, 4, 8)),
    "aten.amax.default": lambda: (Fn(lambda s, x: torch.relu(x).amax(dim=(2, 3)) * 2.0), _x(2, 3, 5, 7)),
    "aten.amin.default": lambda: (Fn(lambda s, x: x - torch.amin(x, dim=-1, keepdim=True)), _x(3, 11)),
    "aten.var.correction": lambda: (Fn(lambda s, x: x / x.std(dim=1, keepdim=True) + x.var(-1)[..., None]), _x(2, 9, 4)),
    # A vector norm written three ways (torch.linalg, torch.norm, a sum of squares), divided by broadcast.
    "aten.sum.dim_IntList": lambda: (Fn(lambda s, x: x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
                                        + torch.norm(x, p=1, dim=1, keepdim=True) - (x * x).sum(dim=(0, 1))), _x(3, 8)),
    "aten.pow.Tensor_Scalar": lambda: (Fn(lambda s, x: x ** 2 - torch.pow(x.abs() + 1.0, -0.5) + x.pow(3)), _x(2, 4, 6)),
    "aten.pow.Tensor_Tensor": lambda: (GemPool(), _x(2, 4, 6).abs()),
    "aten.reciprocal.default": lambda: (Fn(lambda s, x: 1.0 / (x.abs() + 0.5) - x), _x(2, 4, 6)),
    # A cosine head's product with a computed, transposed matrix, and torch.mm with a buffer.
    "aten.mm.default": lambda: (Fn(lambda s, x: x @ (s.p * 2.0).t() + torch.mm(x, s.q) + (x.reshape(2, 2, 8) @ s.q).reshape(4, 5),
                                   p=_x(5, 8, seed=3), q=_x(8, 5, seed=4)), _x(4, 8)),
    # A running total over time (method form) and one over channels (functional, in an expression).
    "aten.cumsum.default": lambda: (Fn(lambda s, x: torch.relu(x).cumsum(-1) * 0.5 + torch.cumsum(x, dim=1)), _x(2, 7, 9)),
    # A survival curve: the running product of per-step survival probabilities.
    "aten.cumprod.default": lambda: (Fn(lambda s, x: torch.cumprod(1.0 - torch.sigmoid(x), dim=1) * 2.0), _x(4, 6)),
    "aten.pad.default": lambda: (RingPad(), _x(2, 3, 16)),
    # A 1-D CNN's pools over time: between convolutions (padded, strided), and at the head.
    "aten.max_pool1d.default": lambda: (nn.Sequential(nn.Conv1d(3, 4, 3), nn.MaxPool1d(2), nn.ReLU(), nn.MaxPool1d(3, 2, 1)),
                                        _x(2, 3, 20)),
    "aten.avg_pool1d.default": lambda: (nn.Sequential(nn.Conv1d(3, 4, 3), nn.AvgPool1d(2), nn.AvgPool1d(3, 2, 1, ceil_mode=True)),
                                        _x(2, 3, 21)),
    "aten.adaptive_avg_pool1d.default": lambda: (nn.Sequential(nn.Conv1d(3, 4, 3), nn.AdaptiveAvgPool1d(1), nn.Flatten()),
                                                 _x(2, 3, 18)),
    "aten.adaptive_max_pool1d.default": lambda: (nn.Sequential(nn.Conv1d(3, 4, 3), nn.AdaptiveMaxPool1d(4), nn.Flatten()),
                                                 _x(2, 3, 18)),
}
TOL = {"aten.erfinv.default": 1e-4, "aten._linalg_eigh.default": 1e-4, "aten.softplus.default": 1e-5,
       "aten.mish.default": 1e-5, "aten.elu.default": 1e-5, "aten.adaptive_avg_pool2d.default": 1e-5, "aten._cdist_forward.default": 1e-5, "aten.logcumsumexp.default": 1e-5,
       "aten.mean.dim": 1e-5, "aten.var.correction": 1e-5, "aten.avg_pool2d.default": 1e-5,
       "aten.native_layer_norm.default": 1e-5, "aten.native_group_norm.default": 1e-5,
       "aten.scaled_dot_product_attention.default": 1e-5, "aten.sum.dim_IntList": 1e-5, "aten.mm.default": 1e-5, "aten.cumsum.default": 1e-5, "aten.cumprod.default": 1e-5,
       "aten.avg_pool1d.default": 1e-5, "aten.adaptive_avg_pool1d.default": 1e-5}


def _tie_free(args):
    """No repeated value and no NaN in any float argument (torch's index among ties or in an
    all-NaN row is its own choice)."""
    for a in args:
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel() > 1:
            if torch.isnan(a).any() or torch.unique(a).numel() != a.numel():
                return False
    return True


def _close(ref, got, rtol, atol):
    if ref.shape != got.shape or ref.dtype != got.dtype:
        return f"shape/dtype {tuple(ref.shape)} {ref.dtype} vs {tuple(got.shape)} {got.dtype}"
    if ref.is_floating_point():
        ok = torch.allclose(ref.double(), got.double(), rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = torch.equal(ref, got)
    return None if ok else f"max err {(ref.double() - got.double()).abs().nan_to_num(0.0).max().item():.3g}"


def _numeric(key):
    e = rewrites.LIBRARY[key]
    op = e.overloads()[0]
    for seed in (0, 1):
        g = torch.Generator().manual_seed(seed)
        for args, kw in e.inputs(g):
            ref, got = op(*args, **kw), e.fn(*args, **kw)
            refs = ref if isinstance(ref, (tuple, list)) else (ref,)
            gots = got if isinstance(got, (tuple, list)) else (got,)
            assert len(refs) == len(gots), f"{key}: {len(gots)} outputs, the op has {len(refs)}"
            for i, (r, o) in enumerate(zip(refs, gots)):
                if e.outputs is not None and i not in e.outputs and not _tie_free(args):
                    continue
                bad = _close(r, o, e.rtol, e.atol)
                shapes = [tuple(a.shape) if hasattr(a, "shape") else a for a in args]
                assert bad is None, f"{key} output {i} on {shapes} {kw} (seed {seed}): {bad}"


def _export(model, x, keys, path):
    """Export with (keys) or without (None) the rewrite through this venv's toolchain; returns
    (outputs of the artifact as tensors, non-delegated ops or None)."""
    ep = torch.export.export(model, (x,))
    if keys:
        ep, applied, absent = rewrites.apply(ep, keys)
        assert applied == list(keys) and not absent, (applied, absent)
        assert not {k for k in keys if not rewrites.LIBRARY[k].keeps_op} & set(rewrites.find(ep))
    if VENV == "ort":
        import onnxruntime as ort

        torch.onnx.export(ep, (x,), path + ".onnx", dynamo=True)
        sess = ort.InferenceSession(path + ".onnx", providers=["CPUExecutionProvider"])
        outs = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
        return [torch.from_numpy(o) for o in outs], None
    import etcommon
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    try:
        edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    except Exception as e:  # noqa: BLE001 - what the export script names then (etcommon.lower_and_save)
        raise RuntimeError(f"{e} (library ops of the graph: {' '.join(rewrites.find(ep))})") from e
    left = etcommon.delegation_summary(edge)["non_delegated_ops"]
    with open(path + ".pte", "wb") as f:
        f.write(edge.to_executorch().buffer)
    try:
        outs = etcommon.load_method(path + ".pte").execute([x])
    except RuntimeError as e:
        # Lowered, but the runtime has no kernel for an op left off the delegate (error 0x14):
        # export's partial-delegation line names those ops before anything runs.
        raise RuntimeError(f"{e} (not delegated: {' '.join(left)})") from e
    return list(outs), left


def _toolchain(key):
    need = NEEDED[key]
    assert "fail" in (need["ort"], need["et"]) or "undelegated" in (need["ort"], need["et"]), \
        f"{key}: NEEDED shows no toolchain that needs the rewrite"
    model, x = MODULES[key]()
    model.eval()
    ep = torch.export.export(model, (x,))
    assert key in rewrites.find(ep), f"{key} not found in the module's graph: {sorted(rewrites.graph_ops(ep))}"
    with torch.no_grad():
        ref = model(x)
    with tempfile.TemporaryDirectory() as tmp:
        outs, left = _export(model, x, [key], os.path.join(tmp, "with"))
        tol = TOL.get(key, 1e-6)
        bad = _close(ref, outs[0].to(ref.dtype) if ref.dtype == torch.int32 else outs[0], tol, tol)
        assert bad is None, f"{key}: artifact with the rewrite differs from eager: {bad}"
        if VENV == "et" and need.get("delegated"):
            assert not left, f"{key}: the rewritten graph left {left} on portable kernels"
        try:
            outs, left = _export(model, x, None, os.path.join(tmp, "without"))
            got = "undelegated" if left else ("ok" if _close(ref, outs[0], tol, tol) is None else "wrong")
        except Exception as e:  # noqa: BLE001 - the toolchain's refusal is the point
            got = "fail"
            names = rewrites.ops_in_message(str(e)) or [w.strip("()[],;:") for w in str(e).split() if w.startswith("aten")]
            assert rewrites.hint_line(names), f"{key}: the toolchain's error names no library op: {str(e)[:300]}"
        assert got == need[VENV], f"{key} without the rewrite in {VENV}: {got}, expected {need[VENV]}"


for _key in rewrites.LIBRARY:
    def _n(key=_key):
        _numeric(key)

    def _t(key=_key):
        _toolchain(key)

    _slug = _key.replace(".", "_")
    _n.__name__ = f"numeric_{_slug}"
    _t.__name__ = f"toolchain_{_slug}"
    check(_n)
    check(_t)


@check
def var_and_std_overloads_match():
    aten = torch.ops.aten
    table = rewrites.LIBRARY["aten.var.correction"].table()
    x = _x(3, 9, 5)
    for op, args, kw in [(aten.var.dim, (x, [1], True, True), {}), (aten.var.dim, (x, [-1], False), {}),
                         (aten.std.dim, (x, [1, 2], True, False), {}), (aten.std.correction, (x, [0]), {"correction": 0}),
                         (aten.std.correction, (x,), {"keepdim": True})]:
        bad = _close(op(*args, **kw), table[op](*args, **kw), 1e-5, 1e-6)
        assert bad is None, f"{op} {kw}: {bad}"


@check
def alias_overloads_match():
    """The aliases with their own replacement: vector norm, matmul, expand_as."""
    aten = torch.ops.aten
    inf = float("inf")
    x, y = _x(4, 6), _x(3, 5, 7, seed=2)
    cases = [
        ("aten.sum.dim_IntList", aten.linalg_vector_norm.default,
         [((x, 2, [1], True), {}), ((y, 2.0), {}), ((y, 1, [-1]), {}), ((y, inf, [0, 2], True), {}), ((x, -inf, [0]), {})]),
        ("aten.mm.default", aten.matmul.default,
         [((x, _x(6, 3, seed=5)), {}), ((y, _x(7, 2, seed=6)), {}), ((_x(2, 3, 4, 5, seed=7), _x(2, 3, 5, 6, seed=8)), {}),
          ((x, _x(3, 6, seed=9).t()), {})]),
        ("aten.expand.default", aten.expand_as.default, [((_x(4, 1), x), {}), ((_x(1, 5, 7), y), {}), ((x, x), {})]),
    ]
    for key, op, inputs in cases:
        table = rewrites.LIBRARY[key].table()
        for args, kw in inputs:
            bad = _close(op(*args, **kw), table[op](*args, **kw), 1e-5, 1e-6)
            assert bad is None, f"{op} on {[tuple(a.shape) if hasattr(a, 'shape') else a for a in args]}: {bad}"
    # Orders the entry does not take stay as they are.
    assert rewrites.LIBRARY["aten.sum.dim_IntList"].table()[aten.linalg_vector_norm.default](x, 3) is NotImplemented
    assert rewrites.LIBRARY["aten.pow.Tensor_Scalar"].fn(x, 1.5) is NotImplemented


@check
def delegation_report_spellings_are_normalised():
    """get_delegation_info prints snake case: aten_sum_dim_int_list, aten_pow_tensor_scalar."""
    n = rewrites.normalise
    assert n("aten_sum_dim_int_list") == ["aten.sum.dim_IntList"]
    assert n("aten_pow_tensor_scalar") == ["aten.pow.Tensor_Scalar"]
    assert n("aten_expand_copy_default") == ["aten.expand.default"]
    assert n("aten_mm_default") == ["aten.mm.default"]


@check
def a_rewrite_never_fixes_a_dynamic_dim():
    """amax over a dynamic dim (a point cloud's points) is left as it was, and the dim stays
    dynamic; a replacement that would fix the dim anyway is refused with the dims it fixed."""
    import contextlib
    import io

    points = torch.export.Dim("points", min=2, max=512)
    model = Fn(lambda s, x: torch.relu(x).amax(dim=1) + x.mean(dim=1))
    x = _x(1, 16, 3)
    ep = torch.export.export(model, (x,), dynamic_shapes=({1: points},))
    dims = rewrites._symbolic_dims(ep)
    assert dims, "the check needs a dynamic dim"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        out, applied, _ = rewrites.apply(ep, ["aten.amax.default", "aten.mean.dim"])
    assert rewrites._symbolic_dims(out) == dims
    x2 = _x(1, 40, 3, seed=2)
    assert _close(out.module()(x2), model(x2), 1e-5, 1e-6) is None
    entry = rewrites.LIBRARY["aten.amax.default"]
    kept = entry.fn

    def fixing(x, dim=(), keepdim=False):
        # the entry before it checked for a dynamic reduced dim: the pool's window is that size
        y, keep_shape, flat_shape = rewrites._as_4d(x, rewrites._dims(dim, x.dim()))
        y = torch.nn.functional.max_pool2d(y, (y.shape[2], 1))
        return y.reshape(keep_shape if keepdim else flat_shape)

    entry.fn = fixing
    try:
        ep = torch.export.export(model, (x,), dynamic_shapes=({1: points},))
        raises(lambda: rewrites.apply(ep, ["aten.amax.default", "aten.mean.dim"]),
               "rewrite_ops: rewriting aten.amax.default, aten.mean.dim fixed the dynamic dim(s) x:1 to the example's size")
    finally:
        entry.fn = kept


@check
def every_entry_has_a_module_and_a_probe():
    assert set(MODULES) == set(rewrites.LIBRARY) == set(NEEDED), set(rewrites.LIBRARY) ^ set(MODULES) ^ set(NEEDED)
    assert len(rewrites.LIBRARY) >= 12


@check
def names_are_normalised():
    n = rewrites.normalise
    assert n("aten.median.dim") == ["aten.median.dim"]
    assert n("torch._ops.aten.median.dim") == ["aten.median.dim"]
    assert n("torch.ops.aten.median.dim") == ["aten.median.dim"]
    assert n("aten::median.dim") == ["aten.median.dim"]
    assert n("aten_median_dim") == ["aten.median.dim"]
    assert n("aten__cdist_forward_default") == ["aten._cdist_forward.default"]
    assert n("<OpOverload(op='aten.median', overload='dim')>") == ["aten.median.dim"]
    assert n("<OpOverload(op='prims.erf_inv', overload='default')>") == ["aten.erfinv.default"]
    assert n("aten.cdist") == ["aten._cdist_forward.default"]
    assert sorted(n("aten.median")) == ["aten.median.default", "aten.median.dim"]
    assert n("aten.conv2d.default") == []


@check
def unknown_op_is_refused_with_the_library():
    e = raises(lambda: rewrites.resolve(["aten.unique_consecutive.default"]), "not in the operator rewrite library")
    assert "aten.median.dim" in str(e) and "aten.roll.default" in str(e)


@check
def absent_op_is_a_note_not_an_error():
    ep = torch.export.export(Fn(lambda s, x: x.roll(1, 0)), (_x(3, 4),))
    out, applied, absent = rewrites.apply(ep, ["aten.median.dim"])
    assert out is ep and applied == [] and absent == ["aten.median.dim"]


@check
def calls_in_a_form_the_entry_does_not_take_stay_and_are_named():
    import contextlib
    import io

    # One expand the entry rewrites (a size-1 dim to 3) and one it does not (two dims at once):
    # the export goes on with the second left as it was, and the warning counts it.
    m = Fn(lambda s, x: x[:, :1].expand(4, 3).sum(1) + x[:1, :1].expand(4, 16).sum(1))
    x = _x(4, 5)
    ep = torch.export.export(m, (x,))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        out, applied, _ = rewrites.apply(ep, ["aten.expand.default"])
    assert applied == ["aten.expand.default"], applied
    assert "aipc-warning: rewrite incomplete: aten.expand.default: 1 of 2 calls left" in buf.getvalue(), buf.getvalue()
    assert _close(out.module()(x), m(x), 1e-6, 1e-6) is None


@check
def find_lists_the_library_ops_of_a_graph():
    m = Fn(lambda s, x: x.median(dim=1).values + torch.cummax(x, 0).values.sum(0) + x.sum(1))
    ep = torch.export.export(m, (_x(4, 4),))
    assert rewrites.find(ep) == ["aten.cummax.default", "aten.median.dim", "aten.sum.dim_IntList"], rewrites.find(ep)


@check
def messages_name_the_rewritable_op():
    onnx = "DispatchError: No ONNX function found for <OpOverload(op='aten.median', overload='dim')>. Failure message"
    et = "SpecViolationError: Operator torch._ops.aten.kthvalue.default is not in Core ATen opset (https://...)"
    assert rewrites.hint_line(rewrites.ops_in_message(onnx)) == 'aten.median.dim (aipc.toml [project] rewrite_ops = ["aten.median.dim"])'
    assert rewrites.hint_line(rewrites.ops_in_message(et)).startswith("aten.kthvalue.default")
    assert rewrites.hint_line(["aten_roll_default", "aten_add_tensor"]).startswith("aten.roll.default")
    assert rewrites.hint_line(["aten_add_tensor"]) is None
    # A rewrite whose output leaves another library op: the setting named keeps the first.
    assert rewrites.hint_line(["aten_sum_dim_int_list"], kept=["aten._cdist_forward.default"]) == (
        'aten.sum.dim_IntList (aipc.toml [project] rewrite_ops = ["aten._cdist_forward.default", "aten.sum.dim_IntList"])')


@check
def dynamic_batch_graphs_are_rewritten():
    """A symbolic batch dim (aipc.toml dynamic_batch) through the rewrites that reshape and slice."""
    batch = torch.export.Dim("batch", min=1, max=64)
    model = Fn(lambda s, x: x.median(dim=1).values + x.mean(dim=(1, 2)).unsqueeze(-1) + torch.cummax(x, 2).values.sum(1)
               + torch.linalg.vector_norm(x @ s.w, dim=1), w=_x(6, 6, seed=5))
    x = _x(3, 5, 6)
    ep = torch.export.export(model, (x,), dynamic_shapes=({0: batch},))
    ep, applied, _ = rewrites.apply(ep, ["aten.median.dim", "aten.mean.dim", "aten.cummax.default", "aten.mm.default",
                                         "aten.sum.dim_IntList"])
    assert len(applied) == 5, applied
    assert not {"aten.matmul.default", "aten.linalg_vector_norm.default"} & rewrites.graph_ops(ep), rewrites.graph_ops(ep)
    x2 = _x(7, 5, 6, seed=4)
    with torch.no_grad():
        ref = model(x2)
    with tempfile.TemporaryDirectory() as tmp:
        if VENV == "ort":
            import onnxruntime as ort

            torch.onnx.export(ep, (x,), os.path.join(tmp, "m.onnx"), dynamo=True)
            sess = ort.InferenceSession(os.path.join(tmp, "m.onnx"), providers=["CPUExecutionProvider"])
            got = torch.from_numpy(sess.run(None, {sess.get_inputs()[0].name: x2.numpy()})[0])
        else:
            import etcommon
            from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
            from executorch.exir import to_edge_transform_and_lower

            edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
            with open(os.path.join(tmp, "m.pte"), "wb") as f:
                f.write(edge.to_executorch().buffer)
            got = etcommon.load_method(os.path.join(tmp, "m.pte")).execute([x2])[0]
    assert _close(ref, got, 1e-5, 1e-5) is None, _close(ref, got, 1e-5, 1e-5)


@check
def index_outputs_export():
    """The index outputs (tie-free input) through the real toolchain, not only the values."""
    model = Fn(lambda s, x: torch.stack([x.median(dim=1).indices, torch.kthvalue(x, 2, 1).indices,
                                         torch.cummax(x, 1).indices[:, -1], torch.mode(x, 1).indices]))
    x = torch.randperm(24, generator=torch.Generator().manual_seed(5)).float().reshape(4, 6)
    keys = ["aten.median.dim", "aten.kthvalue.default", "aten.cummax.default", "aten.mode.default"]
    with torch.no_grad():
        ref = model(x)
    with tempfile.TemporaryDirectory() as tmp:
        outs, _ = _export(model, x, keys, os.path.join(tmp, "m"))
    assert torch.equal(ref, outs[0]), (ref, outs[0])


@check
def project_key_and_tool_argument():
    from aipc_toolbox import args
    from aipc_toolbox.project import Project

    with tempfile.TemporaryDirectory() as tmp:
        toml = os.path.join(tmp, "aipc.toml")
        with open(toml, "w") as f:
            f.write('[project]\nmodel = "m:f"\nexample_inputs = "d:f"\n')
        assert Project(tmp)["rewrite_ops"] == []
        with open(toml, "a") as f:
            f.write('rewrite_ops = ["aten_median_dim", "aten.roll"]\n')
        p = Project(tmp)
        assert rewrites.requested(p, ["aten.median.dim", "torch._ops.aten.cummax.default"]) == \
            ["aten.median.dim", "aten.roll.default", "aten.cummax.default"]
        with open(toml, "a") as f:
            f.write('opset = 18\n')
        with open(toml) as f:
            text = f.read().replace('"aten.roll"', '"aten.frobnicate.default"')
        with open(toml, "w") as f:
            f.write(text)
        e = raises(lambda: Project(tmp), "aipc.toml:4: rewrite_ops: 'aten.frobnicate.default' not in the operator rewrite library")
        assert "aten.median.dim" in str(e)
        with open(toml, "w") as f:
            f.write('[project]\nmodel = "m:f"\nexample_inputs = "d:f"\nrewrite_ops = "aten.median.dim"\n')
        raises(lambda: Project(tmp), "wrong type")
    # The tools take no rewrite_ops argument: the project option is the one way (a list argument
    # in the tool schema drew a small model into filling it on every export).
    for target in ("onnxruntime-cpu", "executorch-xnnpack"):
        script = str(ROOT / "toolbox" / "targets" / target / "export.py")
        assert "rewrite_ops" not in args.parse("export", script, [])

@check
def probe_fixtures_name_a_rewritable_op():
    """The recorded toolchain outputs (tests/data/probes/*_rw--*) each name a library op: in the
    toolchain's own words, or, where only the op's decomposition is left over (a 1-D pool's
    unsqueeze, pool and squeeze), on the rewritable-op line its provenance gave."""
    files = sorted((ROOT / "tests" / "data" / "probes").glob("*_rw--*.txt"))
    assert len(files) >= 8, files
    for f in files:
        text = f.read_text()
        names = rewrites.ops_in_message(text) or [w for w in text.split() if w.startswith("aten_")]
        if not rewrites.hint_line(names):
            line = re.search(r"^aipc-warning: rewritable op: (.+?) \(", text, re.M)
            names = line.group(1).split(", ") if line else []
        assert rewrites.hint_line(names), f"{f.name}: no library op named"


@check
def partial_delegation_names_the_rewritable_op():
    if VENV != "et":
        return
    import contextlib
    import io

    import etcommon

    d = {"non_delegated_compute_ops": 2, "compute_ops": 5, "non_delegated_ops": ["aten_mean_dim", "aten_index_tensor"]}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        etcommon.warn_partial(d)
    assert 'aipc-warning: rewritable op: aten.mean.dim (aipc.toml [project] rewrite_ops = ["aten.mean.dim"])' in buf.getvalue(), buf.getvalue()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        etcommon.warn_partial(d, ["aten.mean.dim"])
    assert "rewritable op" not in buf.getvalue(), buf.getvalue()


@check
def leftovers_name_the_op_they_were_decomposed_from():
    """A circular pad lowers to empty/slice_scatter/copy, none a library name: the warning names
    the aten.pad.default they came from (the nodes' provenance), so rewrite_ops is offered."""
    if VENV != "et":
        return
    import contextlib
    import io

    import etcommon
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    model, x = MODULES["aten.pad.default"]()
    edge = to_edge_transform_and_lower(torch.export.export(model.eval(), (x,)), partitioner=[XnnpackPartitioner()])
    d = etcommon.delegation_summary(edge)
    assert d["non_delegated_ops"] and not any(rewrites.normalise(op) for op in d["non_delegated_ops"]), d["non_delegated_ops"]
    assert "aten.pad.default" in d["source_ops"], d["source_ops"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        etcommon.warn_partial(d)
    assert 'rewritable op: aten.pad.default (aipc.toml [project] rewrite_ops = ["aten.pad.default"])' in buf.getvalue(), buf.getvalue()


if __name__ == "__main__":
    main()

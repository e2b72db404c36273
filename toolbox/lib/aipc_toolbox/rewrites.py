"""Graph-level operator rewrites: re-export with an operator the toolchain rejects replaced by
ops both targets take, whatever the model's code looks like.

What it is. A registry keyed by the ATen overload name as the toolchains print it
(`aten.median.dim`). Each entry is a replacement function with the overload's exact signature
and outputs, written only in core ATen ops that torch.onnx translates and that ExecuTorch accepts
(delegated to XNNPACK where the math allows), a one-line description, and an input generator for
its numeric check. `apply(ep, ops)` runs `ep.run_decompositions(table)` with a table holding only
the requested overloads (an empty-based table: nothing else is decomposed, so the graph the
exporter or the PT2E quantizer sees is the one it saw before, minus those ops; each toolchain then
runs its own default decompositions as usual). `find(ep)` lists the library ops a graph holds.

Names are normalised: `aten.median.dim`, `torch.ops.aten.median.dim`, `torch._ops.aten.median.dim`,
`aten::median.dim`, ExecuTorch's edge spelling `aten_median_dim`, torch.onnx's
`<OpOverload(op='aten.median', overload='dim')>`, a packet without overload (`aten.median`: every
library overload of it) and the aliases below (`aten.cdist`, torch.onnx's `prims.erf_inv`; the
var/std overloads of the graph for `aten.var.correction`, the one name ExecuTorch prints for both).

Probed here (torch 2.15, onnxscript exporter, ExecuTorch + XnnpackPartitioner), without the rewrite:

| op                           | torch.onnx.export(dynamo=True)                  | ExecuTorch XNNPACK                        | rewrite: exactness            |
|------------------------------|-------------------------------------------------|-------------------------------------------|-------------------------------|
| aten.median.dim              | No ONNX function found (aten.median, dim)       | not in Core ATen opset                    | values exact                  |
| aten.median.default          | No ONNX function found (aten.median, default)   | not in Core ATen opset                    | exact                         |
| aten.nanmedian.dim           | No ONNX function found (aten.nanmedian, dim)    | not in Core ATen opset                    | values exact                  |
| aten.kthvalue.default        | No ONNX function found (aten.kthvalue, default) | not in Core ATen opset                    | values exact                  |
| aten.mode.default            | No ONNX function found (aten.mode, default)     | not in Core ATen opset                    | exact                         |
| aten.cummax.default          | No ONNX function found (aten.cummax, default)   | not in Core ATen opset                    | exact                         |
| aten.cummin.default          | No ONNX function found (aten.cummin, default)   | not in Core ATen opset                    | exact                         |
| aten.cumsum.default (dim <= 512) | exports and runs                            | left on portable kernels (not delegated)  | rtol 1e-5                     |
| aten.cumprod.default (+ prims.prod; dim <= 64) | No ONNX function found (prims.prod) | not in Core ATen opset           | rtol 1e-5                     |
| aten.logcumsumexp.default    | exports and runs                                | not in Core ATen opset                    | rtol 1e-5                     |
| aten.histc.default           | exports (fails when min == max)                 | not in Core ATen opset                    | exact                         |
| aten.bucketize.Tensor        | exports and runs                                | not in Core ATen opset                    | exact                         |
| aten.searchsorted.Tensor     | No ONNX function found (aten.searchsorted)      | not in Core ATen opset                    | exact                         |
| aten.erfinv.default          | No ONNX function found (prims.erf_inv, default) | not in Core ATen opset                    | atol 2e-6 on (-1, 1)          |
| aten.prelu.default (+ _prelu_kernel) | exports and runs                        | lowering fails (ChannelsLastTaggedReshapePass) on a 3-D input | rtol 1e-6 |
| aten.softplus.default, aten.mish.default | exports and runs                     | gt/log1p/where left on portable kernels   | rtol 1e-5                     |
| aten.elu.default             | exports and runs                                | left on portable kernels (not delegated)  | rtol 1e-5                     |
| aten.adaptive_avg_pool2d.default (sizes divide) | exports and runs             | left on portable kernels unless global    | rtol 1e-5                     |
| aten.upsample_nearest2d.vec (whole factors) | exports and runs                 | left on portable kernels (not delegated)  | exact                         |
| aten.sort.default, aten.sort.stable (+ argsort; static dim <= 1024) | sort exports; sort.stable: No ONNX function found | lowers, then the runtime has no kernel (error 0x14) | values exact |
| aten.topk.default            | exports and runs                                | left on portable kernels (not delegated)  | values exact                  |
| aten._linalg_eigh.default (eigenvalues only; + linalg_eigvalsh; static n <= 6) | No ONNX function found (aten._linalg_eigh) | not in Core ATen opset | rtol 1e-4 (3 x 3: closed form in float64; else Jacobi) |
| aten._cdist_forward.default  | No ONNX function found (aten._cdist_forward)    | left on portable kernels (not delegated)  | rtol 1e-5                     |
| aten.roll.default            | exports and runs                                | left on portable kernels (index_select)   | exact                         |
| aten.mean.dim                | exports and runs                                | not delegated unless 4-D, dims (2, 3), keepdim | rtol 1e-5 (summation order) |
| aten.adaptive_max_pool2d.default | No ONNX function found (unless output 1x1)  | not in Core ATen opset                    | values exact                  |
| aten.avg_pool2d.default (ceil_mode, counted padding, divisor) | exports and runs | left on portable kernels (not delegated) | rtol 1e-5      |
| aten.native_layer_norm.default (+ aten.layer_norm.default) | exports and runs | left on portable kernels (XNNPACK has no layer norm) | rtol 1e-5 |
| aten.native_group_norm.default (+ aten.group_norm.default) | exports and runs | left on portable kernels (no XNNPACK group-norm config) | rtol 1e-5 |
| aten.scaled_dot_product_attention.default (no mask) | exports and runs | _safe_softmax's any/where left on portable kernels | rtol 1e-5 |
| aten.unbind.int, aten.select.int | exports and runs | select_copy left on portable kernels | exact          |
| aten.expand.default (+ expand_as; no copy, or one size-1 dim) | exports and runs | expand_copy left on portable kernels | exact |
| aten.pad.default (circular, reflect, replicate) | exports and runs                 | slice_scatter/copy/empty left on portable kernels | exact                 |
| aten.max_pool1d.default, aten.adaptive_max_pool1d.default (L divisible) | exports and runs | max_pool1d: unsqueeze/squeeze copies and the pool left on portable kernels; adaptive: not in Core ATen opset | values exact |
| aten.avg_pool1d.default, aten.adaptive_avg_pool1d.default (L divisible) | exports and runs | unsqueeze/squeeze copies left on portable kernels | rtol 1e-5 |
| aten.amax.default            | exports and runs                                | left on portable kernels (not delegated)  | exact                         |
| aten.amin.default            | exports and runs                                | left on portable kernels (not delegated)  | exact                         |
| aten.var.correction (+ var.dim, std.dim, std.correction) | exports and runs | left on portable kernels (not delegated) | rtol 1e-5           |
| aten.sum.dim_IntList (+ linalg_vector_norm ord 2, 1, +-inf) | exports and runs | sum, and the norm's pow/sum, left on portable kernels | rtol 1e-5 |
| aten.pow.Tensor_Scalar (c in 1, 2, 3, 4, 0.5, -0.5) | exports and runs      | left on portable kernels (not delegated)  | rtol 1e-6                     |
| aten.pow.Tensor_Tensor (positive bases: exp(p log x)) | exports and runs | left on portable kernels (not delegated) | rtol 1e-5, atol 1e-6 |
| aten.reciprocal.default (a constant one divided by x) | exports and runs | left on portable kernels (not delegated) | rtol 1e-6 |
| aten.mm.default (+ matmul of N-D by 2-D or same-batch stacks) | exports and runs | mm of a computed or transposed matrix left on portable kernels | rtol 1e-5 |

"values exact": the values output equals torch's bit for bit; among tied values the index output
is the first position holding the value (torch's choice among ties is its own; mode and
cummax/cummin match torch's index rule exactly, ties included). Tolerances are the replacement's
own in eager; through a toolchain the runtime's kernels add theirs (erfinv: 1e-4 after ORT's and
XNNPACK's erf/exp). Selection ops (median, kthvalue, mode, cummax, ...) and the max-pool forms
(amax, amin, adaptive_max_pool2d) assume no NaN in the input (nanmedian handles NaN).
Several entries compare every pair of elements along the reduced dim (n*n memory per row):
meant for the small windows models use these ops on. On a static dim, median/kthvalue use a
min/max sorting network instead (odd-even transposition up to 16, bitonic up to 1024), and
cummax/cummin values and logcumsumexp a log2(n)-step doubling scan over slices: fully delegated
to XNNPACK (the index outputs still compare; an unused one leaves the graph). aten.mean.dim keeps the
one form XNNPACK delegates (4-D, dims (2, 3), keepdim) and rewrites the others into it, so that
op name stays in a rewritten graph (`keeps_op`). `find` scans the top-level graph: an op inside a
torch.cond / map body is neither found nor rewritten.

How an entry is verified: toolbox/tests/check_rewrites.py, in both venvs, (a) compares the
replacement with the original op on the entry's generated inputs (fixed seeds, odd sizes,
negative dims, ties) at the entry's tolerance, (b) exports a tiny module using the op through
the venv's real toolchain with the rewrite, runs the artifact and compares it with eager, and
(c) shows the same module fails (or stays undelegated) without it in at least one venv.

How to add an entry: write `_name(<the overload's arguments>)` returning what the overload
returns (a tuple for multi-output overloads; return NotImplemented to keep the op for an
argument combination you do not handle), an input generator `g -> [(args, kwargs), ...]` (g: a
seeded torch.Generator), and `_add("aten.op.overload", fn, "one line", inputs, rtol=..,
atol=.., outputs=..)`; probe both toolchains without it (keep a raw output as
tests/data/probes/{onnx,et}_rw--<case>.txt), add its row above, and add it to check_rewrites.py's
NEEDED (what each toolchain does without it) and MODULES (a tiny module calling it).
"""
import math
import re

from .emit import ToolError
from .emit import warn as emit_warn

INF = float("inf")


class Entry:
    """One library entry: `key` (aten.x.overload), the replacement `fn`, `description`, the
    numeric-check input generator `inputs(g)`, the tolerance, and `outputs`: which outputs of a
    multi-output overload the numeric check compares on inputs with ties or NaN (indices among
    ties are not compared; see the module docstring)."""

    def __init__(self, key, fn, description, inputs, rtol=0.0, atol=0.0, outputs=None, aliases=(), keeps_op=False):
        self.key, self.fn, self.description, self.inputs = key, fn, description, inputs
        # aliases: other overloads the entry replaces, {name: fn} (fn None: the entry's own fn)
        aliases = dict(aliases) if isinstance(aliases, dict) else {a: None for a in aliases}
        self.rtol, self.atol, self.outputs = rtol, atol, outputs
        self.aliases, self._alias_fns = tuple(aliases), aliases
        # keeps_op: the replacement calls the op itself in the one form it leaves alone (returns
        # NotImplemented for), so the op's name stays in the rewritten graph
        self.keeps_op = keeps_op

    @property
    def exact(self):
        return self.rtol == 0 and self.atol == 0

    def overloads(self):
        """The OpOverload objects this entry replaces (its key and its aliases)."""
        return [_overload(k) for k in (self.key, *self.aliases)]

    def table(self):
        """{OpOverload: replacement} for the key and every alias."""
        return {_overload(k): (self._alias_fns.get(k) or self.fn) for k in (self.key, *self.aliases)}


LIBRARY = {}
ALIASES = {}


def _add(key, fn, description, inputs, spelled=(), **kw):
    """Register an entry; `spelled`: names a toolchain's message gives the op that are not
    overloads to replace (torch.onnx names cumprod's decomposition, prims.prod)."""
    entry = Entry(key, fn, description, inputs, **kw)
    LIBRARY[key] = entry
    for a in (*entry.aliases, *spelled):
        ALIASES[a] = key
    return entry


def _overload(key):
    import torch

    ns, packet, overload = key.split(".")
    return getattr(getattr(getattr(torch.ops, ns), packet), overload)


# ---------------------------------------------------------------------------- helpers


def _dim(d, rank):
    return d + rank if d < 0 else d


def _static(n):
    return isinstance(n, int)


def _arange_like(n, x):
    import torch

    return torch.arange(n, device=x.device)


def _keep_dim(t, x, d):
    """t (x reduced along dim d) with that dim kept as size 1: a reshape, which lowers to
    view_copy (XNNPACK delegates it), where unsqueeze's unsqueeze_copy stays on portable kernels."""
    return t.reshape(tuple(x.shape[:d]) + (1,) + tuple(x.shape[d + 1:]))


def _first_index(mask):
    """Index of the first True along the last dim (argmax returns the first maximum)."""
    import torch

    return torch.argmax(mask.to(torch.int32), -1)


def _network_kth(xd, k):
    """k-th smallest (0-based) along the last dim of xd with an odd-even transposition sort built
    from torch.minimum/maximum over narrow slices (XNNPACK delegates all of it)."""
    import torch

    n = xd.shape[-1]
    v = [xd.narrow(-1, i, 1) for i in range(n)]
    for r in range(n):
        for i in range(r % 2, n - 1, 2):
            v[i], v[i + 1] = torch.minimum(v[i], v[i + 1]), torch.maximum(v[i], v[i + 1])
    return v[k].reshape(xd.shape[:-1])  # a view, not squeeze: XNNPACK delegates view_copy only


# Largest static dim the bitonic network sorts (its graph grows with log2(n) squared; past this the
# rank-counting form, n*n per row, is used).
MAX_BITONIC = 1024


def _bitonic_sorted(xd):
    """xd sorted ascending along its last dim (static size n), by a bitonic network of
    torch.minimum/maximum over views, narrows and cats (XNNPACK delegates all of it): the batch
    dims flattened into one, the dim padded with +inf to a power of two P, then log2(P) merges of
    compare-exchange stages, each stage one min and one max over two halves of every block."""
    import torch

    n = xd.shape[-1]
    lead = tuple(xd.shape[:-1])
    rows = 1
    for s in lead:
        rows *= s
    v = xd.reshape(rows, n)
    size = 1
    while size < n:
        size *= 2
    if size > n:
        # +inf columns: a clamp of the first size - n (< n) real columns keeps the pad inside the
        # delegated ops
        v = torch.cat([v, torch.clamp(v.narrow(-1, 0, size - n), min=INF, max=INF)], -1)
    k = 2
    while k <= size:
        j = k // 2
        while j >= 1:
            v = _bitonic_stage(v, rows, size, k, j)
            j //= 2
        k *= 2
    return v.narrow(-1, 0, n).reshape(lead + (n,))


def _bitonic_stage(v, rows, size, k, j):
    """One compare-exchange stage of the bitonic sort: element i against i + j inside each block
    of 2j, ascending in blocks of k whose position bit k is 0, descending in the others."""
    import torch

    def exchange(part, ascending):
        # part: (m, blocks of 2j) viewed as (m, blocks, 2, j)
        m = part.shape[0]
        q = part.reshape(m, -1, 2, j)
        a, b = q.narrow(2, 0, 1), q.narrow(2, 1, 1)
        lo, hi = torch.minimum(a, b), torch.maximum(a, b)
        return torch.cat([lo, hi] if ascending else [hi, lo], 2).reshape(m, -1)

    if k == size:
        return exchange(v, True)
    pairs = v.reshape(rows * size // (2 * k), 2, k)
    up = exchange(pairs.narrow(1, 0, 1).reshape(-1, k), True)
    down = exchange(pairs.narrow(1, 1, 1).reshape(-1, k), False)
    return torch.cat([up.reshape(-1, 1, k), down.reshape(-1, 1, k)], 1).reshape(rows, size)


def _rank_kth(xd, k):
    """k-th smallest (0-based; int or a tensor broadcasting against xd[..., 0]) along the last dim,
    by counting for every element how many are smaller / not larger (no sort, no data-dependent
    shape: xd[i] is the k-th smallest when less(i) <= k < leq(i))."""
    import torch

    a, b = xd.unsqueeze(-1), xd.unsqueeze(-2)
    less = (b < a).sum(-1)
    leq = (b <= a).sum(-1)
    if isinstance(k, int):
        sel = (less <= k) & (leq > k)
    else:
        sel = (less <= k.unsqueeze(-1)) & (leq > k.unsqueeze(-1))
    return torch.where(sel, xd, -INF).amax(-1)


def _kth(x, k, dim, keepdim):
    """(values, indices) of the k-th smallest (0-based) along dim."""
    import torch

    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    d = _dim(dim, x.dim())
    xd = x.movedim(d, -1)
    n = xd.shape[-1]
    if _static(n) and n <= 16:
        v = _network_kth(xd, k)
    elif _static(n) and n <= MAX_BITONIC:
        v = _bitonic_sorted(xd).narrow(-1, k, 1).reshape(xd.shape[:-1])
    else:
        v = _rank_kth(xd, k)
    i = _first_index(xd == v.unsqueeze(-1))
    if keepdim:
        v, i = _keep_dim(v, x, d), _keep_dim(i, x, d)
    return v, i


# ---------------------------------------------------------------------------- entries


def _median_dim(x, dim, keepdim=False):
    n = x.shape[_dim(dim, x.dim())] if x.dim() else 1
    return _kth(x, (n - 1) // 2, dim, keepdim)


def _median_default(x):
    flat = x.reshape(-1)
    return _kth(flat, (flat.shape[0] - 1) // 2, 0, False)[0]


def _nanmedian_dim(x, dim, keepdim=False):
    import torch

    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    d = _dim(dim, x.dim())
    xd = x.movedim(d, -1)
    nan = torch.isnan(xd)
    valid = (~nan).sum(-1)
    k = torch.clamp(valid - 1, min=0) // 2
    filled = torch.where(nan, INF, xd)
    v = _rank_kth(filled, k)
    v = torch.where(valid == 0, float("nan"), v)
    i = torch.where(valid == 0, 0, _first_index((filled == v.unsqueeze(-1)) & ~nan))
    if keepdim:
        v, i = _keep_dim(v, x, d), _keep_dim(i, x, d)
    return v, i


def _kthvalue(x, k, dim=-1, keepdim=False):
    return _kth(x, k - 1, dim, keepdim)


def _mode(x, dim=-1, keepdim=False):
    """Most frequent value (the smallest among equally frequent ones) and its last position."""
    import torch

    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    d = _dim(dim, x.dim())
    xd = x.movedim(d, -1)
    count = (xd.unsqueeze(-1) == xd.unsqueeze(-2)).sum(-1)
    top = count == count.amax(-1, keepdim=True)
    v = torch.where(top, xd, INF).amin(-1)
    pos = _arange_like(xd.shape[-1], xd)
    i = torch.where(xd == v.unsqueeze(-1), pos, -1).amax(-1)
    if keepdim:
        v, i = _keep_dim(v, x, d), _keep_dim(i, x, d)
    return v, i


def _cum_extreme(x, dim, largest):
    """(values, indices) of the running maximum (largest) or minimum along dim: the values by a
    doubling scan on a static dim (delegated), else by a lower-triangular mask; the indices always
    by the mask (compares: an unused index output leaves the graph before lowering)."""
    import torch

    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    d = _dim(dim, x.dim())
    xd = x.movedim(d, -1)
    pos = _arange_like(xd.shape[-1], xd)
    tri = pos.unsqueeze(0) <= pos.unsqueeze(1)  # [i, j]: j <= i
    row = xd.unsqueeze(-2)  # [..., 1, j]
    if _static(xd.shape[-1]):
        v = _doubling_scan(xd, torch.maximum if largest else torch.minimum)
    elif largest:
        v = torch.where(tri, row, -INF).amax(-1)
    else:
        v = torch.where(tri, row, INF).amin(-1)
    # torch keeps the latest position of the running extreme among ties
    i = torch.where(tri & (row == v.unsqueeze(-1)), pos, -1).amax(-1)
    return v.movedim(-1, d), i.movedim(-1, d)


def _doubling_scan(xd, combine):
    """Inclusive scan of an associative `combine` along the last (static) dim of xd in log2(n)
    steps: step s combines each element with the one s places before it (the first s stay), by
    narrows and a cat, which XNNPACK delegates with the combine's own op."""
    import torch

    n = xd.shape[-1]
    v, s = xd, 1
    while s < n:
        v = torch.cat([v.narrow(-1, 0, s), combine(v.narrow(-1, s, n - s), v.narrow(-1, 0, n - s))], -1)
        s *= 2
    return v


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) shifted by max(a, b), the shift clamped to finite floats so that
    -inf and +inf inputs give -inf and +inf without a comparison (all of it delegates)."""
    import torch

    big = 3.4028234663852886e38
    m = torch.clamp(torch.maximum(a, b), min=-big, max=big)
    return torch.log(torch.exp(a - m) + torch.exp(b - m)) + m


def _cummax(x, dim):
    return _cum_extreme(x, dim, True)


def _cummin(x, dim):
    return _cum_extreme(x, dim, False)


def _logcumsumexp(x, dim):
    import torch

    if x.dim() == 0:
        return x.clone()
    d = _dim(dim, x.dim())
    xd = x.movedim(d, -1)
    if _static(xd.shape[-1]):
        return _doubling_scan(xd, _logaddexp).movedim(-1, d)
    pos = _arange_like(xd.shape[-1], xd)
    tri = pos.unsqueeze(0) <= pos.unsqueeze(1)
    masked = torch.where(tri, xd.unsqueeze(-2), -INF)  # [..., i, j]
    m = masked.amax(-1, keepdim=True)
    safe = torch.where(torch.isinf(m), 0.0, m)
    out = torch.log(torch.exp(masked - safe).sum(-1)) + safe.squeeze(-1)
    return out.movedim(-1, d)


# Largest scanned dim the triangular-matrix cumsum takes (its constant is n x n floats).
MAX_SCAN = 512


def _cumsum(x, dim, dtype=None):
    """running sum as one bmm with a constant upper-triangular matrix of ones (a lifted
    constant: XNNPACK takes the product whole, and ONNX's MatMul too); the dim moved last and
    back. Float tensors with a static scanned dim of at most MAX_SCAN."""
    import numpy as np
    import torch

    if x.dim() == 0 or not x.is_floating_point() or (dtype is not None and dtype != x.dtype):
        return NotImplemented
    d = _dim(dim, x.dim())
    n = x.shape[d]
    if not _static(n) or n > MAX_SCAN:
        return NotImplemented
    tri = torch.from_numpy(np.triu(np.ones((n, n), dtype=np.float32))).to(x.dtype)
    last = d == x.dim() - 1
    y = x if last else x.movedim(d, -1)
    out = torch.bmm(y.reshape(1, -1, n), tri.reshape(1, n, n)).reshape(y.shape)
    return out if last else out.movedim(-1, d)


def _cat5(parts, d):
    """cat of many tensors as nested cats of at most 5 (the most one XNNPACK cat node takes)."""
    import torch

    while len(parts) > 1:
        parts = [torch.cat(parts[i:i + 5], d) if len(parts[i:i + 5]) > 1 else parts[i] for i in range(0, len(parts), 5)]
    return parts[0]


def _cumprod(x, dim, dtype=None):
    """running product x0, x0*x1, ... (zeros and signs kept, unlike exp(cumsum(log))), slices
    multiplied in turn and concatenated; a static scanned dim of at most 64."""
    if x.dim() == 0 or not x.is_floating_point() or (dtype is not None and dtype != x.dtype):
        return NotImplemented
    d = _dim(dim, x.dim())
    n = x.shape[d]
    if not _static(n) or n > 64:
        return NotImplemented
    running = x.narrow(d, 0, 1).clone()
    parts = [running]
    for i in range(1, n):
        running = running * x.narrow(d, i, 1)
        parts.append(running)
    return _cat5(parts, d)


def _histc(x, bins=100, min=0, max=0):  # noqa: A002 - the overload's argument names
    import torch

    if min == max:
        lo, hi = x.amin(), x.amax()
        same = lo == hi
        lo, hi = torch.where(same, lo - 1, lo), torch.where(same, hi + 1, hi)
    else:
        lo, hi = float(min), float(max)
    flat = x.reshape(-1)
    pos = ((flat - lo) * bins / (hi - lo)).floor().to(torch.int64)
    pos = torch.clamp(pos, max=bins - 1)
    valid = (flat >= lo) & (flat <= hi)
    hit = (pos.unsqueeze(-1) == _arange_like(bins, x)) & valid.unsqueeze(-1)
    return hit.sum(0).to(x.dtype)


def _count_below(seq, values, right):
    """For each value, how many entries of the sorted last dim of seq are < it (<= it when right)."""
    if seq.dim() == 1:
        s, v = seq, values.unsqueeze(-1)
    else:
        s, v = seq.unsqueeze(-2), values.unsqueeze(-1)
    return (s <= v).sum(-1) if right else (s < v).sum(-1)


def _bucketize(x, boundaries, *, out_int32=False, right=False):
    import torch

    out = _count_below(boundaries, x, right)
    return out.to(torch.int32 if out_int32 else torch.int64)


def _searchsorted(sorted_sequence, x, *, out_int32=False, right=False, side=None, sorter=None):
    import torch

    if side is not None:
        right = side == "right"
    seq = sorted_sequence if sorter is None else torch.gather(sorted_sequence, -1, sorter)
    out = _count_below(seq, x, right)
    return out.to(torch.int32 if out_int32 else torch.int64)


def _erfinv(y):
    """Giles' single-precision approximation, then two Newton steps on erf(x) = y."""
    import torch

    w = -torch.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws = torch.where(small, w, 2.5) - 2.5
    wl = torch.sqrt(torch.where(small, 5.0, torch.clamp(w, max=1e30))) - 3.0
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * ws
    q = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * wl
    x = torch.where(small, p, q) * y
    for _ in range(2):
        x = x - (torch.erf(x) - y) / (2.0 / math.sqrt(math.pi) * torch.exp(-x * x))
    a = y.abs()
    x = torch.where(a == 1.0, y * INF, x)
    return torch.where(a > 1.0, float("nan"), x)


def _cdist(x1, x2, p=2.0, compute_mode=None):
    """Pairwise p-norm distances from the difference of every pair (not the matmul expansion:
    no cancellation error). The pairs are views, not unsqueezes, and the sums over the feature
    dim the 4-D mean XNNPACK delegates (_sum4): the whole rewrite is delegated."""
    import torch

    if not _static(x1.shape[-1]) or not _static(x2.shape[-2]):
        return NotImplemented
    a = x1.reshape(*x1.shape[:-1], 1, x1.shape[-1])
    b = x2.reshape(*x2.shape[:-2], 1, x2.shape[-2], x2.shape[-1])
    diff = a - b
    last = [diff.dim() - 1]
    if p == 2.0:
        return torch.sqrt(_sum4(diff * diff, last, False))
    if p == 1.0:
        return _sum4(torch.abs(diff), last, False)
    if p == 0.0:
        return (diff != 0).sum(-1).to(x1.dtype)
    if math.isinf(p):
        return diff.abs().amax(-1)
    return diff.abs().pow(p).sum(-1).pow(1.0 / p)


def _prelu(x, weight):
    """prelu as max(x, 0) + w * min(x, 0), the weight along dim 1 (two clamps, a multiply and an
    add: XNNPACK takes them; its own PReLU path fails to lower a 3-D input)."""
    import torch

    if not x.is_floating_point():
        return NotImplemented
    w = weight
    if weight.numel() > 1:
        if x.dim() < 2:
            return NotImplemented
        w = weight.reshape((1, weight.numel()) + (1,) * (x.dim() - 2))
    return torch.clamp(x, min=0.0) + w * torch.clamp(x, max=0.0)


def _softplus_terms(x):
    """softplus(x) = max(x, 0) + log(1 + exp(-|x|)): no comparison, no log1p (neither delegated)."""
    import torch

    return torch.clamp(x, min=0.0) + torch.log(1.0 + torch.exp(-torch.abs(x)))


def _softplus(x, beta=1.0, threshold=20.0):
    """softplus; past the threshold torch returns x, which this form equals to float precision."""
    if not x.is_floating_point():
        return NotImplemented
    if beta == 1.0:
        return _softplus_terms(x)
    return _softplus_terms(x * beta) / beta


def _mish(x):
    """mish = x * tanh(softplus(x)), with the delegated softplus form."""
    import torch

    if not x.is_floating_point():
        return NotImplemented
    return x * torch.tanh(_softplus_terms(x))


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    """elu as scale * (max(x, 0) + alpha * (exp(min(x, 0) * input_scale) - 1)) (alpha >= 0)."""
    import torch

    if not x.is_floating_point() or alpha < 0:
        return NotImplemented
    neg = torch.clamp(x, max=0.0)
    if input_scale != 1.0:
        neg = neg * input_scale
    out = torch.clamp(x, min=0.0) + alpha * (torch.exp(neg) - 1.0)
    return out * scale if scale != 1.0 else out


def _adaptive_avg_pool2d(x, output_size):
    """adaptive_avg_pool2d as avg_pool2d with kernel = stride = size / out, when both static sizes
    divide (the windows are then exactly torch's)."""
    import torch

    if x.dim() not in (3, 4) or not x.is_floating_point():
        return NotImplemented
    h, w = x.shape[-2], x.shape[-1]
    oh, ow = _pair(list(output_size))
    oh, ow = oh or h, ow or w
    if not (_static(h) and _static(w)) or h % oh or w % ow:
        return NotImplemented
    kh, kw = h // oh, w // ow
    return torch.ops.aten.avg_pool2d.default(x, [kh, kw], [kh, kw], [0, 0], False, True)


def _upsample_nearest2d(x, output_size=None, scale_factors=None):
    """Nearest upsampling by whole factors: each cell repeated by a broadcast multiply with ones
    over (N, C, H, 1, W, 1) and reshaped (XNNPACK takes both; its resize is not offered here)."""
    import numpy as np

    if x.dim() != 4 or not x.is_floating_point():
        return NotImplemented
    n, c, h, w = x.shape
    if not all(_static(v) for v in (n, c, h, w)):
        return NotImplemented
    if output_size is not None:
        oh, ow = output_size
        if oh % h or ow % w:
            return NotImplemented
        fh, fw = oh // h, ow // w
    elif scale_factors is not None:
        sh, sw = scale_factors
        if sh != int(sh) or sw != int(sw):
            return NotImplemented
        fh, fw = int(sh), int(sw)
    else:
        return NotImplemented
    if fh < 1 or fw < 1:
        return NotImplemented
    ones = _const(np.ones((1, 1, 1, fh, 1, fw), dtype=np.float32), x)
    return (x.reshape(n, c, h, 1, w, 1) * ones).reshape(n, c, h * fh, w * fw)


def _rank_along_last(x, descending):
    """For each element of x's last dim, its position in the sorted order: the count of elements
    before it in that order (smaller, or larger when descending), plus, among equal ones, those
    at a lower index (a stable sort's order)."""
    n = x.shape[-1]
    a, b = x.unsqueeze(-1), x.unsqueeze(-2)  # a: element i, b: element j
    before = (b > a) if descending else (b < a)
    idx = _arange_like(n, x)
    earlier = (idx.unsqueeze(0) < idx.unsqueeze(1))  # [i, j]: j < i
    return (before | ((b == a) & earlier)).sum(-1)


def _sorted_with_indices(x, dim, descending, k=None):
    """(values, indices) of x sorted along dim (the first k of them when k is given): values by the
    min/max network (static dim up to MAX_BITONIC; descending as the negated ascending sort of -x),
    indices by rank counting, ties in index order (n*n per row)."""
    import torch

    d = _dim(dim, x.dim()) if x.dim() else 0
    n = x.shape[d] if x.dim() else 1
    if x.dim() == 0 or not x.is_floating_point() or not _static(n) or n > MAX_BITONIC:
        return NotImplemented
    last = d == x.dim() - 1
    xd = x if last else x.movedim(d, -1)
    values = -_bitonic_sorted(-xd) if descending else _bitonic_sorted(xd)
    rank = _rank_along_last(xd, descending)
    positions = _arange_like(n, x)
    if k is not None:
        values = values.narrow(-1, 0, k)
        positions = positions.narrow(0, 0, k)
    onehot = rank.unsqueeze(-2) == positions.unsqueeze(-1)  # [.., r, i]: element i is r-th
    indices = (onehot.to(torch.int64) * _arange_like(n, x).to(torch.int64)).sum(-1)
    if not last:
        values, indices = values.movedim(-1, d), indices.movedim(-1, d)
    return values, indices


def _sort(x, dim=-1, descending=False):
    return _sorted_with_indices(x, dim, descending)


def _sort_stable(x, *, stable=None, dim=-1, descending=False):
    # The rank counting always orders ties by index, which is what stable=True asks for and one
    # of the orders stable=False allows.
    return _sorted_with_indices(x, dim, descending)


def _argsort(x, dim=-1, descending=False):
    out = _sorted_with_indices(x, dim, descending)
    return out if out is NotImplemented else out[1]


def _argsort_stable(x, *, stable=False, dim=-1, descending=False):
    return _argsort(x, dim, descending)


def _topk(x, k, dim=-1, largest=True, sorted=True):
    """topk: the first k of the sort (descending when largest), ties in index order."""
    return _sorted_with_indices(x, dim, largest, k)


# Largest static matrix size the eigenvalue rewrite takes (its graph holds n(n-1)/2 rotations
# per sweep); the covariance of a point neighbourhood (3) or of an image patch's channels is
# what models use it on.
MAX_EIGH = 6


def _symmetric(a, uplo):
    """The symmetric matrix torch.linalg.eigh reads from `a`: the lower (UPLO "L") or upper
    triangle, mirrored. Masks are constants; nothing else of `a` is read."""
    import numpy as np

    n = a.shape[-1]
    ones = np.ones((n, n), dtype=np.float32)
    tri = a * _const(np.tril(ones) if uplo.upper() == "L" else np.triu(ones), a)
    return tri + tri.transpose(-1, -2) - a * _const(np.eye(n, dtype=np.float32), a)


def _const(array, like):
    """A numpy array as a tensor of like's dtype: a lifted constant of the rewritten graph."""
    import torch

    return torch.from_numpy(array).to(like.dtype)


def _jacobi_eigvals(sym):
    """Eigenvalues of a batch of symmetric n x n matrices (static n <= MAX_EIGH), ascending, by
    cyclic Jacobi rotations over every off-diagonal pair for a fixed number of sweeps (no
    convergence test: no data-dependent control flow). Each rotation is the similarity transform
    G^T A G that zeroes a_pq, with tan(angle) = sgn(d) b / (|d| + sqrt(d^2 + b^2)) for
    d = a_qq - a_pp, b = 2 a_pq: the smaller of the two angles, 0 when b = 0, and well defined when
    d = 0 (sgn(0) = 1, an exact indicator from clamp and ceil). The values are the diagonal,
    sorted by the min/max network."""
    import numpy as np
    import torch

    n = sym.shape[-1]
    eye = _const(np.eye(n, dtype=np.float32), sym)
    tiny = torch.finfo(sym.dtype).tiny
    sweeps = 1 if n == 2 else (6 if n == 3 else 8)
    a = sym
    for _ in range(sweeps):
        for p in range(n - 1):
            for q in range(p + 1, n):
                app = a.narrow(-2, p, 1).narrow(-1, p, 1)
                aqq = a.narrow(-2, q, 1).narrow(-1, q, 1)
                apq = a.narrow(-2, p, 1).narrow(-1, q, 1)
                d, b = aqq - app, 2.0 * apq
                sgn = 1.0 - 2.0 * torch.ceil(torch.clamp(-d, 0.0, 1.0))
                t = sgn * b / (torch.abs(d) + torch.sqrt(d * d + b * b) + tiny)
                c = torch.rsqrt(t * t + 1.0)
                s = t * c
                diag, skew = np.zeros((n, n), np.float32), np.zeros((n, n), np.float32)
                diag[p, p] = diag[q, q] = 1.0
                skew[p, q], skew[q, p] = 1.0, -1.0
                g = eye + (c - 1.0) * _const(diag, sym) + s * _const(skew, sym)
                a = g.transpose(-1, -2) @ a @ g
    return _bitonic_sorted((a * eye).sum(-1))


# acos(x) = sqrt(1 - x) * P(x) on [0, 1], |error| <= 2e-8 (Abramowitz and Stegun 4.4.46).
_ACOS_POLY = (1.5707963050, -0.2145988016, 0.0889789874, -0.0501743046, 0.0308918810, -0.0170881256,
              0.0066700901, -0.0012624911)


def _acos64(r):
    """acos of a float64 tensor on [-1, 1] from elementwise ops only (onnxruntime has no float64
    Acos): the polynomial on |r|, and acos(r) = pi/2 + sgn(r) (acos(|r|) - pi/2)."""
    import torch

    x = torch.abs(r)
    poly = torch.zeros_like(x) + _ACOS_POLY[-1]
    for coef in reversed(_ACOS_POLY[:-1]):
        poly = poly * x + coef
    base = torch.sqrt(torch.clamp(1.0 - x, min=0.0)) * poly
    sgn = r / torch.clamp(x, min=1e-300)
    return math.pi / 2 + sgn * (base - math.pi / 2)


def _eigvals3(sym):
    """Eigenvalues of symmetric 3 x 3 matrices, ascending, in closed form: with q = trace / 3 and
    p the scale of A - qI, they are q + 2p cos(phi + 2 pi k / 3), where c = cos(phi) solves
    4c^3 - 3c = r, r = det(A - qI) / (2 p^3), on [1/2, 1]. About 60 elementwise ops, where Jacobi
    sweeps take hundreds (a covariance per point of a cloud made a model four times slower).
    Precision: r rounded to float32 loses up to 2e-4 of the largest eigenvalue when two are
    close (acos is steep at +-1), and onnxruntime has no float64 Acos; so acos(r) is a float64
    polynomial (_acos64), cos(phi) is taken in float32 (error 6e-8), and two Newton steps on the
    cubic in float64 refine c (their ratio stays bounded near the double root c = 1/2). The other cosines follow without another trig op: cos(phi + 2 pi / 3) = -c/2 -
    sqrt(3)/2 sqrt(1 - c^2). A = qI gives p = 0: the clamped divisor makes r 0 and every
    eigenvalue q."""
    import torch

    a = sym.to(torch.float64)
    e = [[a.narrow(-2, i, 1).narrow(-1, j, 1) for j in range(3)] for i in range(3)]
    q = (e[0][0] + e[1][1] + e[2][2]) / 3.0
    b00, b11, b22 = e[0][0] - q, e[1][1] - q, e[2][2] - q
    a01, a02, a12 = e[0][1], e[0][2], e[1][2]
    p = torch.sqrt((b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (a01 * a01 + a02 * a02 + a12 * a12)) / 6.0)
    det = b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02) + a02 * (a01 * a12 - b11 * a02)
    r = torch.clamp(det / torch.clamp(2.0 * p * p * p, min=1e-300), -1.0, 1.0)
    c = torch.cos((_acos64(r) / 3.0).to(torch.float32)).to(torch.float64)
    for _ in range(2):
        # f'(c) vanishes at the double root c = 1/2; a start within float32's error of it may
        # sit just below: the floor keeps that step tiny, and the clamp puts c back on [1/2, 1].
        c = c - (4.0 * c * c * c - 3.0 * c - r) / torch.clamp(12.0 * c * c - 3.0, min=1e-6)
        c = torch.clamp(c, 0.5, 1.0)
    s = torch.sqrt(torch.clamp(1.0 - c * c, min=0.0))
    largest = q + 2.0 * p * c
    smallest = q + 2.0 * p * (-0.5 * c - (math.sqrt(3.0) / 2.0) * s)
    middle = 3.0 * q - largest - smallest
    out = torch.cat([smallest, middle, largest], -1)
    return out.reshape(tuple(sym.shape[:-2]) + (3,)).to(sym.dtype)


def _eigvalsh(a, uplo="L"):
    """torch.linalg.eigvalsh: closed form for 3 x 3 (_eigvals3), Jacobi sweeps for 2 and 4 to
    MAX_EIGH (_jacobi_eigvals)."""
    n = a.shape[-1]
    if not _static(n) or n > MAX_EIGH or not a.is_floating_point():
        return NotImplemented
    if n == 1:
        return a.reshape(*a.shape[:-2], 1)
    sym = _symmetric(a, uplo)
    return _eigvals3(sym) if n == 3 else _jacobi_eigvals(sym)


def _linalg_eigh(a, uplo="L", compute_v=True):
    """aten._linalg_eigh, the eigenvalues only (compute_v False: eigvalsh's form); a graph that
    uses the eigenvectors keeps the op (their signs are LAPACK's own choice)."""
    if compute_v:
        return NotImplemented
    values = _eigvalsh(a, uplo)
    if values is NotImplemented:
        return values
    return values, a.new_zeros(0)


def _roll(x, shifts, dims=()):
    import torch

    shifts, dims = list(shifts), list(dims)
    if not dims:
        return _roll(x.reshape(-1), shifts, [0]).reshape(x.shape)
    for s, d in zip(shifts, dims):
        n = x.shape[d]
        s = s % n
        if s:
            x = torch.cat([x.narrow(d, n - s, s), x.narrow(d, 0, n - s)], d)
    return x if x.dim() else x.clone()


def _edge_slices(x, d, lo, hi, mode):
    """The slices a `mode` pad puts before and after x along dim d (lo and hi wide), each a
    narrow of x, so no dim size is needed as a number (a dynamic dim stays dynamic)."""
    import torch

    def one(start):  # the single slice [start, start + 1) along d; start < 0 counts from the end
        return torch.ops.aten.slice.Tensor(x, d, start, start + 1 if start != -1 else None)

    if mode == "circular":  # the ring: the last lo before, the first hi after
        before = [torch.ops.aten.slice.Tensor(x, d, -lo, None)] if lo else []
        after = [torch.ops.aten.slice.Tensor(x, d, 0, hi)] if hi else []
    elif mode == "reflect":  # mirrored without the edge: x[lo] .. x[1] before, x[-2] .. x[-1-hi] after
        before = [one(k) for k in range(lo, 0, -1)]
        after = [one(-2 - k) for k in range(hi)]
    else:  # replicate: the edge repeated
        before = [one(0)] * lo
        after = [one(-1)] * hi
    return before, after


def _pad(x, pad, mode="constant", value=None):
    """F.pad / a conv's padding_mode: circular, reflect and replicate as slices of the input
    concatenated around it (ops XNNPACK delegates; torch's own decomposition writes them into an
    empty tensor with slice_scatter and copy, which stay on the portable kernels); constant as
    the constant_pad_nd it is."""
    import torch

    if mode == "constant":
        return torch.ops.aten.constant_pad_nd.default(x, list(pad), 0.0 if value is None else value)
    pad = list(pad)
    if mode not in ("circular", "reflect", "replicate") or len(pad) % 2 or any(not _static(p) or p < 0 for p in pad):
        return NotImplemented
    out = x
    for i in range(len(pad) // 2):  # pad pairs run from the last dim backwards
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        if not lo and not hi:
            continue
        d = x.dim() - 1 - i
        before, after = _edge_slices(out, d, lo, hi, mode)
        out = _cat5([*before, out, *after], d)
    return out if out is not x else x.clone()


def _as_4d(x, dims):
    """x with the reduced `dims` permuted last and viewed as (1, kept, reduced, 1): the layout in
    which XNNPACK takes a reduction (mean over dims (2, 3), max_pool2d with a (reduced, 1) window).
    Returns (view, result shape with keepdim, result shape without)."""
    rank = x.dim()
    kept = [d for d in range(rank) if d not in dims]
    y = x.permute(kept + dims) if kept + dims != list(range(rank)) else x
    red = 1
    for d in dims:
        red = red * x.shape[d]
    keep_shape = [1 if d in dims else x.shape[d] for d in range(rank)]
    return y.reshape(1, -1, red, 1), keep_shape, [x.shape[d] for d in kept]


def _dims(dim, rank):
    return sorted({_dim(d, rank) for d in (dim or range(rank))})


def _mean4(x, dims, keepdim):
    import torch

    y, keep_shape, flat_shape = _as_4d(x, dims)
    y = torch.ops.aten.mean.dim(y, [2, 3], True)
    return y.reshape(keep_shape if keepdim else flat_shape)


def _mean_dim(x, dim, keepdim=False, dtype=None):
    """mean over any dims as XNNPACK takes it: permute the reduced dims last, view as
    (1, kept, reduced, 1), mean over dims (2, 3) with keepdim, view to the result's shape."""
    if dtype is not None or not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    dims = _dims(dim, x.dim())
    if x.dim() == 4 and dims == [2, 3] and keepdim:
        return NotImplemented  # already the form XNNPACK delegates
    if any(not _static(x.shape[d]) for d in dims):
        return NotImplemented  # a dynamic reduced dim: the view's size arithmetic stays on the portable kernels
    return _mean4(x, dims, keepdim)


def _pair(v, default=None):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    if not v:
        return list(default)
    return v * 2 if len(v) == 1 else v


def _pool_extent(size, k, s, p, ceil_mode):
    """(output size, cells past the padded end that ceil_mode's last window reaches), torch's rule:
    with ceil_mode the last window must start inside the input or its left padding."""
    out = (size + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out, max(0, (out - 1) * s + k - (size + 2 * p))


def _cells(size, k, s, p, out, lo, hi):
    """For each output position, how many cells of its window lie in [lo, hi) (input coordinates)."""
    return [max(0, min(i * s - p + k, hi) - max(i * s - p, lo)) for i in range(out)]


def _scaled_runs(t, ratios, dim):
    """`t` times ratios[i] at index i of `dim`, as slices times a number, concatenated (runs of
    equal ratio share one slice): a constant tensor would not stay functional in a
    decomposition, and XNNPACK delegates slices, scalar products and cat."""
    import torch

    runs = []
    for i, r in enumerate(ratios):
        if runs and runs[-1][2] == r:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1, r])
    if len(runs) == 1 and runs[0][2] == 1.0:
        return t
    parts = [(lambda piece: piece if r == 1.0 else piece * r)(t.narrow(dim, a, b - a)) for a, b, r in runs]
    return torch.cat(parts, dim) if len(parts) > 1 else parts[0]


def _avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """avg_pool2d in the one form XNNPACK delegates (no ceil_mode, padding excluded from the
    average, no divisor override), rescaled per output row and column so that its divisor becomes
    the original's: ceil_mode's last windows are zero-padded explicitly, and out = avg(x) ×
    (cells it averaged over / the original divisor) — a ratio that factors into one per row and
    one per column. Static H, W."""
    import torch

    (kh, kw), (ph, pw) = _pair(kernel_size), _pair(padding)
    sh, sw = _pair(stride, (kh, kw))
    if not ceil_mode and divisor_override is None and (not count_include_pad or ph == pw == 0):
        return NotImplemented  # already the form XNNPACK delegates
    h, w = x.shape[-2], x.shape[-1]
    if x.dim() not in (3, 4) or not x.is_floating_point() or not (_static(h) and _static(w)):
        return NotImplemented
    oh, eh = _pool_extent(h, kh, sh, ph, ceil_mode)
    ow, ew = _pool_extent(w, kw, sw, pw, ceil_mode)
    y = torch.ops.aten.constant_pad_nd.default(x, [0, ew, 0, eh], 0.0) if eh or ew else x
    avg = torch.ops.aten.avg_pool2d.default(y, [kh, kw], [sh, sw], [ph, pw], False, False)
    ratios = []
    for size, k, st, p, out, extra in ((h, kh, sh, ph, oh, eh), (w, kw, sw, pw, ow, ew)):
        seen = _cells(size, k, st, p, out, 0, size + extra)  # what the delegable form divided by
        wanted = _cells(size, k, st, p, out, -p, size + p) if count_include_pad else _cells(size, k, st, p, out, 0, size)
        ratios.append([c / d if d else 0.0 for c, d in zip(seen, wanted)])
    if divisor_override is not None:  # the divisor is one number: seen cells over it
        ratios = [_cells(h, kh, sh, ph, oh, 0, h + eh),
                  [c / divisor_override for c in _cells(w, kw, sw, pw, ow, 0, w + ew)]]
    return _scaled_runs(_scaled_runs(avg, ratios[0], x.dim() - 2), ratios[1], x.dim() - 1)


def _native_layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """layer norm as XNNPACK takes it (it has no layer-norm kernel): mean and variance over the
    normalised (last) dims as two 4-D keepdim means, rsqrt, then the affine; returns (out, mean,
    rstd) like the overload."""
    import torch

    if not x.is_floating_point() or not normalized_shape:
        return NotImplemented
    dims = list(range(x.dim() - len(normalized_shape), x.dim()))
    mean = _mean4(x, dims, True)
    centred = x - mean
    rstd = torch.ops.aten.rsqrt.default(_mean4(centred * centred, dims, True) + eps)
    out = centred * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """aten.layer_norm (what torch.export records for nn.LayerNorm / F.layer_norm): its output."""
    out = _native_layer_norm(x, normalized_shape, weight, bias, eps)
    return out if out is NotImplemented else out[0]


def _native_group_norm(x, weight, bias, n, c, hxw, group, eps):
    """group norm as XNNPACK takes it (ExecuTorch's partitioner has no group-norm config): the
    input viewed as (N, groups, C/groups x spatial), mean and variance as two 4-D keepdim means,
    rsqrt, back to the input's shape, then the per-channel affine; returns (out, mean, rstd) of
    shape (N, groups) like the overload."""
    import torch

    if not x.is_floating_point() or x.dim() < 2 or not group or x.shape[1] % group:
        return NotImplemented
    grouped = x.reshape(x.shape[0], group, -1)
    mean = _mean4(grouped, [2], True)
    centred = grouped - mean
    rstd = torch.ops.aten.rsqrt.default(_mean4(centred * centred, [2], True) + eps)
    out = (centred * rstd).reshape(x.shape)
    channel = [1, x.shape[1]] + [1] * (x.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(channel)
    if bias is not None:
        out = out + bias.reshape(channel)
    return out, mean.reshape(x.shape[0], group), rstd.reshape(x.shape[0], group)


def _group_norm(x, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """aten.group_norm (what F.group_norm / nn.GroupNorm record before decomposition): its output."""
    hxw = 1
    for d in x.shape[2:]:
        hxw = hxw * d
    out = _native_group_norm(x, weight, bias, x.shape[0], x.shape[1], hxw, num_groups, eps)
    return out if out is NotImplemented else out[0]


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False):
    """scaled dot-product attention without a mask as XNNPACK takes it: two batched matmuls over
    the flattened leading dims around a softmax. torch's own form wraps the softmax in
    _safe_softmax (any/where over each row, for rows a mask blanks out), which XNNPACK does not
    take; with no mask no row is blank, so the plain softmax is the same. Masked, causal,
    dropout and grouped-query calls are left as they are."""
    import torch

    if attn_mask is not None or is_causal or dropout_p or enable_gqa or query.dim() < 3 or not query.is_floating_point():
        return NotImplemented
    lead, (length, width), keys = tuple(query.shape[:-2]), tuple(query.shape[-2:]), key.shape[-2]
    if tuple(key.shape[:-2]) != lead or tuple(value.shape[:-2]) != lead or not all(_static(n) for n in (*lead, length, width, keys)):
        return NotImplemented
    factor = scale if scale is not None else 1.0 / math.sqrt(width)
    q = query.reshape(-1, length, width)
    k = key.reshape(-1, keys, width)
    v = value.reshape(-1, keys, value.shape[-1])
    weights = torch.softmax(torch.bmm(q, k.transpose(1, 2)) * factor, -1)
    return torch.bmm(weights, v).reshape(*lead, length, value.shape[-1])


def _unbind(x, dim=0):
    """unbind as slices viewed without the dim (XNNPACK takes slices and views, not select)."""
    d = _dim(dim, x.dim())
    if not _static(x.shape[d]):
        return NotImplemented
    shape = [n for i, n in enumerate(x.shape) if i != d]
    return [x.narrow(d, i, 1).reshape(shape) for i in range(x.shape[d])]


def _select(x, dim, index):
    """select as a slice viewed without the dim."""
    d = _dim(dim, x.dim())
    if not (_static(x.shape[d]) and isinstance(index, int)):
        return NotImplemented
    return x.narrow(d, index + x.shape[d] if index < 0 else index, 1).reshape([n for i, n in enumerate(x.shape) if i != d])


def _expand(x, size, *, implicit=False):
    """expand that copies nothing (the sizes already match: a clone) or repeats one size-1 dim n
    times: a cat of up to 5 clones, or for a larger n a cat of clones doubled until it covers n,
    sliced to n (XNNPACK delegates cat and slices, and its cat wants distinct inputs); an expand
    of several dims or of a dynamic size is left as it is."""
    import torch

    size = list(size)
    lead = len(size) - x.dim()
    if lead < 0 or not all(_static(n) for n in (*size, *x.shape)):
        return NotImplemented
    y = x.reshape([1] * lead + list(x.shape)) if lead else x
    target = [y.shape[i] if n == -1 else n for i, n in enumerate(size)]
    grow = [i for i, (have, want) in enumerate(zip(y.shape, target)) if have != want]
    if not grow:
        return y.clone()
    if len(grow) != 1 or y.shape[grow[0]] != 1 or target[grow[0]] < 2:
        return NotImplemented
    d, n = grow[0], target[grow[0]]
    if n <= 5:
        return torch.cat([y.clone() for _ in range(n)], d)
    out, have = y, 1
    while have < n:
        out, have = torch.cat([out.clone(), out.clone()], d), have * 2
    return out.narrow(d, 0, n) if have != n else out


def _expand_as(x, other):
    """expand_as (F.normalize's divisor) as the expand above to the other's shape."""
    return _expand(x, list(other.shape))


def _amax(x, dim=(), keepdim=False):
    """amax as a max_pool2d over the (1, kept, reduced, 1) view (XNNPACK delegates max pooling,
    not amax)."""
    import torch

    if not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    dims = _dims(dim, x.dim())
    if not all(_static(x.shape[d]) for d in dims):
        return NotImplemented  # the pool's window is the reduced size: a dynamic one would be fixed
    y, keep_shape, flat_shape = _as_4d(x, dims)
    y = torch.nn.functional.max_pool2d(y, (y.shape[2], 1))
    return y.reshape(keep_shape if keepdim else flat_shape)


def _amin(x, dim=(), keepdim=False):
    if not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    return -_amax(-x, dim, keepdim)


def _var(x, dim=None, *, correction=None, keepdim=False):
    """var as two 4-D keepdim means (XNNPACK takes those; not aten.var): mean((x - mean)^2),
    scaled by n / (n - correction)."""
    if not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    dims = _dims(dim, x.dim())
    c = 1 if correction is None else correction
    if c and not all(_static(x.shape[d]) for d in dims):
        return NotImplemented  # n / (n - c) of a dynamic n would fix it
    n = 1
    for d in dims:
        n = n * x.shape[d]
    centred = x - _mean4(x, dims, True)
    v = _mean4(centred * centred, dims, keepdim)
    return v * (n / (n - c)) if c else v


def _var_dim(x, dim=None, unbiased=True, keepdim=False):
    return _var(x, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def _std(x, dim=None, *, correction=None, keepdim=False):
    import torch

    v = _var(x, dim, correction=correction, keepdim=keepdim)
    return v if v is NotImplemented else torch.sqrt(v)


def _std_dim(x, dim=None, unbiased=True, keepdim=False):
    return _std(x, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def _adaptive_max_pool2d(x, output_size):
    """max_pool2d_with_indices with kernel = stride = input / output when the sizes divide; else
    one pool per output cell over its adaptive window [floor(i*H/oh), ceil((i+1)*H/oh)), its
    index mapped back to the flat H*W position, the cells concatenated."""
    import torch

    aten = torch.ops.aten
    H, W = x.shape[-2], x.shape[-1]
    oh, ow = output_size
    if not (_static(H) and _static(W)):
        return NotImplemented
    pool = torch.nn.functional.max_pool2d  # values: the op XNNPACK delegates (indices go unused)
    if H % oh == 0 and W % ow == 0:
        k = [H // oh, W // ow]
        return pool(x, k, k), aten.max_pool2d_with_indices.default(x, k, k)[1]
    rows_v, rows_i = [], []
    for i in range(oh):
        h0, h1 = (i * H) // oh, -((-(i + 1) * H) // oh)
        vs, ids = [], []
        for j in range(ow):
            w0, w1 = (j * W) // ow, -((-(j + 1) * W) // ow)
            region = x[..., h0:h1, w0:w1]
            k = [h1 - h0, w1 - w0]
            vs.append(pool(region, k, k))
            li = aten.max_pool2d_with_indices.default(region, k, k)[1]
            ids.append((h0 + li // (w1 - w0)) * W + (w0 + li % (w1 - w0)))
        rows_v.append(torch.cat(vs, -1))
        rows_i.append(torch.cat(ids, -1))
    return torch.cat(rows_v, -2), torch.cat(rows_i, -2)


def _as_2d_pool(x):
    """(x viewed as (N, C, 1, L) for a 2-D pool, the leading shape to view the result back to): a
    1-D pool's input (N, C, L) or (C, L) as the 4-D form XNNPACK pools, by reshape (view_copy,
    which it delegates) where torch's own lowering inserts unsqueeze/squeeze copies it does not."""
    lead = tuple(x.shape[:-1])
    four = lead + (1, x.shape[-1]) if x.dim() == 3 else (1,) + lead + (1, x.shape[-1])
    return x.reshape(four), lead


def _one(v):
    """The single value of a 1-D pool's int[1] argument (given as a list or a number)."""
    return list(v)[0] if isinstance(v, (list, tuple)) else v


def _window1(kernel_size, stride):
    """(kernel, stride) of a 1-D pool: an empty stride ([], torch's default) is the kernel."""
    k = _one(kernel_size)
    empty = isinstance(stride, (list, tuple)) and not stride
    return k, (k if empty or stride is None else _one(stride))


def _max_pool1d(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool1d as max_pool2d over a (N, C, 1, L) view: the same windows, -inf padding and
    ceil_mode rule on the last dim."""
    import torch

    if x.dim() not in (2, 3) or not x.is_floating_point():
        return NotImplemented
    k, s = _window1(kernel_size, stride)
    x4, lead = _as_2d_pool(x)
    # F.max_pool2d, not the with-indices overload called directly: XNNPACK takes only the former
    out = torch.nn.functional.max_pool2d(x4, [1, k], [1, s], [0, _one(padding)], [1, _one(dilation)], ceil_mode)
    return out.reshape(lead + (out.shape[-1],))


def _avg_pool1d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool1d as avg_pool2d over a (N, C, 1, L) view (through the avg_pool2d entry when its
    ceil_mode or counted padding needs the divisor rescale)."""
    import torch

    if x.dim() not in (2, 3) or not x.is_floating_point():
        return NotImplemented
    k, s = _window1(kernel_size, stride)
    p = _one(padding)
    x4, lead = _as_2d_pool(x)
    args = ([1, k], [1, s], [0, p], ceil_mode, count_include_pad)
    out = _avg_pool2d(x4, *args)
    if out is NotImplemented:
        out = torch.ops.aten.avg_pool2d.default(x4, *args)
    return out.reshape(lead + (out.shape[-1],))


def _adaptive_avg_pool1d(x, output_size):
    """adaptive_avg_pool1d as avg_pool2d over a (N, C, 1, L) view with kernel = stride = L / out,
    when the length divides (static L)."""
    import torch

    n, out = x.shape[-1], _one(output_size)
    if x.dim() not in (2, 3) or not x.is_floating_point() or not _static(n) or n % out:
        return NotImplemented
    x4, lead = _as_2d_pool(x)
    k = n // out
    y = torch.ops.aten.avg_pool2d.default(x4, [1, k], [1, k], [0, 0], False, True)
    return y.reshape(lead + (out,))


def _adaptive_max_pool1d(x, output_size):
    """adaptive_max_pool1d as max_pool2d_with_indices over a (N, C, 1, L) view with kernel =
    stride = L / out, when the length divides (static L); the index is the position along L (the
    view's row has one cell)."""
    import torch

    n, out = x.shape[-1], _one(output_size)
    if x.dim() not in (2, 3) or not x.is_floating_point() or not _static(n) or n % out:
        return NotImplemented
    x4, lead = _as_2d_pool(x)
    k = n // out
    v = torch.nn.functional.max_pool2d(x4, [1, k], [1, k])  # values: the form XNNPACK takes
    i = torch.ops.aten.max_pool2d_with_indices.default(x4, [1, k], [1, k])[1]  # unused, it leaves the graph
    return v.reshape(lead + (out,)), i.reshape(lead + (out,))


def _sum4(x, dims, keepdim):
    """sum over `dims` as the 4-D keepdim mean XNNPACK delegates, times the reduced count."""
    n = 1
    for d in dims:
        n = n * x.shape[d]
    return _mean4(x, dims, keepdim) * float(n)  # a float: an int scalar becomes a tensor constant left undelegated


def _sum_dim(x, dim, keepdim=False, dtype=None):
    """sum over any dims as a 4-D keepdim mean (XNNPACK has no sum) times the count (static)."""
    if dtype is not None or not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    dims = _dims(dim, x.dim())
    if not all(_static(x.shape[d]) for d in dims):
        return NotImplemented
    return _sum4(x, dims, keepdim)


def _vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - the overload's names
    """linalg_vector_norm (torch.norm, F.normalize) for ord 2, 1, inf and -inf: sqrt of a sum of
    squares, a sum of magnitudes, or amax / amin of magnitudes, over the same delegated means
    and pools; other orders are left as they are."""
    import torch

    if dtype is not None or not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    dims = _dims(dim, x.dim())
    if not all(_static(x.shape[d]) for d in dims):
        return NotImplemented
    if ord == 2:
        return torch.sqrt(_sum4(x * x, dims, keepdim))
    if ord == 1:
        return _sum4(torch.abs(x), dims, keepdim)
    if ord == INF:
        return _amax(torch.abs(x), dims, keepdim)
    if ord == -INF:
        return _amin(torch.abs(x), dims, keepdim)
    return NotImplemented


def _pow_scalar(x, exponent):
    """x ** c for the exponents models use (1, 2, 3, 4, 0.5, -0.5) as a clone, products, sqrt or
    rsqrt, which XNNPACK delegates; other exponents are left as they are."""
    import torch

    if not x.is_floating_point() or isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
        return NotImplemented
    c = float(exponent)
    if c == 1:
        return x.clone()
    if c == 2:
        return x * x
    if c == 3:
        return x * x * x
    if c == 4:
        sq = x * x
        return sq * sq
    if c == 0.5:
        return torch.sqrt(x)
    if c == -0.5:
        return torch.rsqrt(x)
    return NotImplemented  # (a division 1 / x traces to reciprocal, which XNNPACK leaves too)


def _pow_tensor(x, exponent):
    """x ** p with a tensor exponent (a learned power: generalised-mean pooling) as exp(p · log x),
    which XNNPACK delegates. For positive bases: a zero base gives 0 (p > 0) or inf (p < 0) as
    pow does, a negative one NaN where pow gives a real value for an integer p (the gates compare
    the artifact with eager, so such a model fails them and the rewrite is not kept)."""
    import torch

    if not (x.is_floating_point() and exponent.is_floating_point()):
        return NotImplemented
    return torch.exp(exponent * torch.log(x))


def _reciprocal(x):
    """1 / x as a division of a lifted constant one by x (XNNPACK delegates the division; a
    `1 / x` in the model traces to reciprocal, which it does not take)."""
    import numpy as np
    import torch

    if not x.is_floating_point():
        return NotImplemented
    one = torch.from_numpy(np.ones((1,) * x.dim(), dtype=np.float32)).to(x.dtype)
    return torch.div(one, x)


def _batch1(m):
    """A 2-D matrix viewed as a (1, rows, cols) batch without a copy: a transposed matrix (the
    `w.t()` of `x @ w.t()`) is viewed through its contiguous transpose and permuted back, since a
    reshape of it would trace to a copy XNNPACK leaves on the portable kernels."""
    r, c = m.shape
    if not m.is_contiguous() and m.t().is_contiguous():
        return m.t().reshape(1, c, r).permute(0, 2, 1)
    return m.reshape(1, r, c)


def _mm(a, b):
    """a 2-D product as a batch-1 bmm (XNNPACK delegates bmm whatever computes its operands; it
    leaves mm of a computed or transposed matrix on the portable kernels)."""
    import torch

    if a.dim() != 2 or b.dim() != 2 or not a.is_floating_point():
        return NotImplemented
    return torch.bmm(_batch1(a), _batch1(b)).reshape(a.shape[0], b.shape[1])


def _matmul(a, b):
    """matmul (`@`) of an N-D by a 2-D matrix (leading dims may be dynamic: one bmm over the
    flattened rows), or of two N-D stacks with the same static batch dims, as bmm between views;
    vectors and broadcast batch dims are left as they are."""
    import torch

    if a.dim() < 2 or b.dim() < 2 or not a.is_floating_point():
        return NotImplemented
    k, n = a.shape[-1], b.shape[-1]
    if b.dim() == 2:
        flat = _batch1(a) if a.dim() == 2 else a.reshape(1, -1, k)
        return torch.bmm(flat, _batch1(b)).reshape(*a.shape[:-1], n)
    if not all(_static(s) for s in (*a.shape, *b.shape)) or list(b.shape[:-2]) != list(a.shape[:-2]):
        return NotImplemented
    m, lead = a.shape[-2], list(a.shape[:-2])
    batch = 1
    for s in lead:
        batch = batch * s
    return torch.bmm(a.reshape(batch, m, k), b.reshape(batch, k, n)).reshape(lead + [m, n])


# ---------------------------------------------------------------------------- input generators
# Each returns [(args, kwargs), ...] for the overload; `g` is a seeded torch.Generator.


def _randn(g, *shape):
    import torch

    return torch.randn(*shape, generator=g)


def _ties(g, *shape, levels=4):
    import torch

    return torch.randint(0, levels, shape, generator=g).float()


def _gen_median_dim(g):
    return [((_randn(g, 4, 9), 1), {}), ((_randn(g, 3, 5, 7), -1), {"keepdim": True}),
            ((_randn(g, 2, 20, 3), 1), {}), ((_ties(g, 5, 6), 0), {}), ((_ties(g, 2, 3, 11), -2), {"keepdim": True}),
            ((_randn(g, 6), 0), {}), ((_ties(g, 3, 45), -1), {}), ((_randn(g, 64, 2), 0), {"keepdim": True})]


def _gen_median_default(g):
    return [((_randn(g, 3, 5),), {}), ((_ties(g, 4, 4),), {}), ((_randn(g, 2, 3, 4),), {}), ((_randn(g, 5, 9),), {})]


def _gen_nanmedian(g):
    import torch

    a = _randn(g, 5, 8)
    a[torch.rand(5, 8, generator=g) < 0.3] = float("nan")
    a[2] = float("nan")
    return [((a, 1), {}), ((a, 0), {"keepdim": True}), ((_randn(g, 3, 7), -1), {}), ((_ties(g, 4, 9), 1), {})]


def _gen_kthvalue(g):
    return [((_randn(g, 4, 9), 3, 1), {}), ((_randn(g, 3, 5, 7), 1), {"dim": -1, "keepdim": True}),
            ((_randn(g, 2, 19), 19, -1), {}), ((_ties(g, 6, 5), 2, 0), {}), ((_randn(g, 3, 33), 1, 1), {}),
            ((_ties(g, 2, 128), 100, -1), {})]


def _gen_mode(g):
    return [((_ties(g, 4, 9), 1), {}), ((_ties(g, 3, 5, 7, levels=3), -1), {"keepdim": True}),
            ((_ties(g, 8, 3), 0), {}), ((_randn(g, 3, 6), -1), {})]


def _gen_cum(g):
    return [((_randn(g, 4, 9), 1), {}), ((_ties(g, 3, 5, 7), -1), {}), ((_randn(g, 6, 3), 0), {}),
            ((_ties(g, 2, 11, 3), -2), {}), ((_randn(g, 2, 40), 1), {})]


def _gen_cumsum(g):
    return [((_randn(g, 4, 9), 1), {}), ((_randn(g, 3, 5, 7), -1), {}), ((_randn(g, 6, 3), 0), {}),
            ((_randn(g, 2, 11, 3), -2), {})]


def _gen_cumprod(g):
    x = _randn(g, 3, 8) * 0.9 + 1.0
    x[1, 3] = 0.0
    return [((x, 1), {}), ((_randn(g, 2, 5, 4), -2), {}), ((_randn(g, 7, 3), 0), {}), ((_randn(g, 2, 13), -1), {})]


def _gen_logcumsumexp(g):
    a = _randn(g, 3, 12)
    a[0, :4] = -INF  # masked log-probabilities: a leading run of -inf stays -inf
    a[1, 5] = -INF
    a[2, 7] = INF
    return [((_randn(g, 4, 9), 1), {}), ((_randn(g, 3, 5, 7) * 30, -1), {}), ((_randn(g, 6, 3), 0), {}), ((a, 1), {}),
            ((_randn(g, 2, 37) * 5, -1), {})]


def _gen_histc(g):
    return [((_randn(g, 4, 9),), {"bins": 7, "min": -1.5, "max": 2.0}), ((_randn(g, 3, 5, 7), 10), {}),
            ((_ties(g, 50), 4, 0.0, 3.0), {}), ((_randn(g, 33), 5, -3, 3), {})]


def _gen_bucketize(g):
    import torch

    b = torch.linspace(-1.0, 1.0, 5)
    return [((_randn(g, 4, 9), b), {}), ((_randn(g, 3, 5, 7), b), {"right": True}),
            ((torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0]), b), {"out_int32": True}),
            ((torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0]), b), {"right": True})]


def _gen_searchsorted(g):
    import torch

    b = torch.linspace(-1.0, 1.0, 5)
    s2 = torch.sort(_randn(g, 3, 6), -1).values
    return [((b, _randn(g, 4, 9)), {}), ((b, torch.tensor([-1.0, 0.0, 0.5, 3.0])), {"right": True}),
            ((s2, _randn(g, 3, 4)), {}), ((s2, s2[:, 1:4].contiguous()), {"side": "right"}),
            ((b, torch.tensor([-1.0, 0.0, 0.5])), {"out_int32": True})]


def _gen_erfinv(g):
    import torch

    return [(((torch.rand(4, 9, generator=g) * 2 - 1) * 0.999,), {}),
            ((torch.tensor([-0.9999, -0.99, -0.5, 0.0, 1e-6, 0.3, 0.9, 0.999]),), {})]


def _gen_cdist(g):
    return [((_randn(g, 5, 3), _randn(g, 4, 3), 2.0, None), {}), ((_randn(g, 2, 5, 3), _randn(g, 2, 7, 3), 1.0, None), {}),
            ((_randn(g, 6, 4), _randn(g, 3, 4), 3.0, None), {}), ((_randn(g, 6, 4), _randn(g, 3, 4), INF, None), {}),
            ((_randn(g, 31, 3), _randn(g, 27, 3), 2.0, None), {})]


def _gen_prelu(g):
    import torch

    return [((_randn(g, 2, 3, 5), torch.rand(3, generator=g)), {}), ((_randn(g, 2, 4, 6, 6), torch.rand(4, generator=g)), {}),
            ((_randn(g, 5, 7), torch.tensor([0.25])), {}), ((_randn(g, 3, 6), torch.rand(6, generator=g)), {})]


def _gen_activation(g):
    import torch

    wide = torch.linspace(-30.0, 30.0, 61)
    return [((_randn(g, 4, 9) * 3,), {}), ((wide,), {}), ((_randn(g, 2, 3, 5),), {})]


def _gen_softplus(g):
    return _gen_activation(g) + [((_randn(g, 3, 7) * 4, 2.0, 20.0), {}), ((_randn(g, 3, 7), 0.5, 10.0), {})]


def _gen_elu(g):
    return _gen_activation(g) + [((_randn(g, 3, 7) * 2, 0.5), {}), ((_randn(g, 3, 7), 1.6732632423543772, 1.0507009873554805, 1.0), {}),
                                 ((_randn(g, 3, 7), 1.0, 1.0, 2.0), {})]


def _gen_adaptive2d(g):
    return [((_randn(g, 1, 3, 8, 8), [2, 2]), {}), ((_randn(g, 2, 4, 12, 6), [3, 2]), {}), ((_randn(g, 3, 9, 9), [1, 3]), {}),
            ((_randn(g, 1, 2, 8, 8), [1, 1]), {})]


def _gen_upsample_nearest(g):
    return [((_randn(g, 1, 3, 4, 5), None, [2.0, 2.0]), {}), ((_randn(g, 2, 2, 3, 3), [9, 6], None), {}),
            ((_randn(g, 1, 1, 2, 4), None, [3.0, 1.0]), {})]


def _gen_sort(g):
    return [((_randn(g, 4, 9),), {}), ((_randn(g, 3, 5, 7), 1, True), {}), ((_ties(g, 5, 6), 0), {}),
            ((_randn(g, 2, 40),), {"descending": True}), ((_randn(g, 6),), {})]


def _gen_sort_stable(g):
    return [((_randn(g, 4, 9),), {"stable": True}), ((_ties(g, 5, 6),), {"stable": True, "dim": 0}),
            ((_ties(g, 3, 11),), {"stable": True, "descending": True}), ((_randn(g, 3, 5, 7),), {"stable": True, "dim": 1})]


def _gen_topk(g):
    return [((_randn(g, 4, 9), 3), {}), ((_randn(g, 3, 5, 7), 2, 1), {}), ((_ties(g, 5, 6), 4, 0, False), {}),
            ((_randn(g, 2, 40), 8, -1, True), {}), ((_randn(g, 6), 6), {})]


def _gen_eigh(g):
    import torch

    def cov(*shape):
        x = _randn(g, *shape)
        return x.transpose(-1, -2) @ x / shape[-2]

    def sym(*shape):
        x = _randn(g, *shape)
        return (x + x.transpose(-1, -2)) / 2

    repeated = torch.diag(torch.tensor([2.0, 2.0, -1.0]))
    q, _ = torch.linalg.qr(_randn(g, 3, 3))
    return [((cov(5, 9, 3), "L", False), {}), ((sym(4, 3, 3), "U", False), {}), ((sym(2, 2), "L", False), {}),
            ((cov(3, 7, 4), "L", False), {}), ((sym(2, 6, 6), "L", False), {}), ((_randn(g, 3, 5, 5), "L", False), {}),
            ((torch.eye(3) * 1.5, "L", False), {}), ((q @ repeated @ q.T, "L", False), {}),
            ((torch.diag(torch.tensor([3.0, 1.0, 2.0])), "U", False), {}), ((cov(1, 2, 3), "L", False), {})]


def _gen_roll(g):
    return [((_randn(g, 4, 9), [2], [1]), {}), ((_randn(g, 3, 5, 7), [-3, 12], [-1, 0]), {}),
            ((_randn(g, 3, 5), [4]), {}), ((_randn(g, 6), [0], [0]), {})]


def _gen_pad(g):
    return [((_randn(g, 2, 3, 9), [2, 2], "circular"), {}), ((_randn(g, 2, 3, 6, 7), [1, 2, 3, 0], "circular"), {}),
            ((_randn(g, 2, 4, 8), [3, 1], "reflect"), {}), ((_randn(g, 1, 2, 5, 6), [2, 2, 1, 1], "reflect"), {}),
            ((_randn(g, 2, 3, 7), [4, 2], "replicate"), {}), ((_randn(g, 1, 2, 4, 5), [0, 3, 2, 0], "replicate"), {}),
            ((_randn(g, 2, 3, 5), [1, 2]), {"value": 0.5}), ((_randn(g, 2, 3, 5), [5, 4], "circular"), {})]


def _gen_amax(g):
    return [((_randn(g, 2, 3, 5, 7), [2, 3]), {}), ((_randn(g, 2, 3, 5, 7), [-1]), {"keepdim": True}),
            ((_randn(g, 4, 300), [1]), {}), ((_ties(g, 3, 9, 5), [0, 2]), {}), ((_randn(g, 3, 4),), {})]


def _gen_var(g):
    return [((_randn(g, 2, 3, 5, 7), [2, 3]), {}), ((_randn(g, 2, 3, 5, 7), [-1]), {"keepdim": True, "correction": 0}),
            ((_randn(g, 4, 9) * 3 + 5, [1]), {}), ((_randn(g, 3, 9, 5),), {"correction": 2}),
            ((_randn(g, 6, 5), None), {})]


def _gen_adaptive_max(g):
    return [((_randn(g, 2, 3, 8, 6), [4, 3]), {}), ((_randn(g, 2, 3, 7, 5), [3, 3]), {}),
            ((_randn(g, 3, 10, 9), [4, 2]), {}), ((_randn(g, 1, 2, 5, 7), [1, 1]), {}),
            ((_ties(g, 2, 2, 6, 7), [5, 4]), {})]


def _gen_avg_pool(g):
    x, y, z = _randn(g, 2, 3, 9, 7), _randn(g, 1, 4, 8, 8), _randn(g, 3, 11, 6)
    return [((x, [2, 2], [2, 2], [0, 0], True, False), {}),      # a ResNet-D shortcut: ceil_mode, pad excluded
            ((x, [3, 3], [2, 2], [1, 1], False, True), {}),      # padding counted (the default)
            ((x, [3, 3], [2, 2], [1, 1], True, True), {}),       # both
            ((y, [3, 2], [2, 3], [1, 1], True, False), {}),
            ((z, [2, 3], [3, 2], [1, 0], True, True), {}),       # 3-D input
            ((y, [2, 2], [1, 1], [0, 0], False, True, 3), {})]   # divisor override


def _gen_pool1d(g):
    x, y = _randn(g, 2, 3, 17), _randn(g, 4, 12)
    return [((x, [2]), {}), ((x, [3], [2], [1]), {}), ((x, [3], [2], [1], [2], True), {}), ((y, [4], [3]), {}),
            ((_ties(g, 2, 5, 16), [2]), {})]


def _gen_avg_pool1d(g):
    x, y = _randn(g, 2, 3, 17), _randn(g, 4, 12)
    return [((x, [2]), {}), ((x, [3], [2], [1]), {}), ((x, [3], [2], [1], True, False), {}),
            ((x, [3], [2], [1], True, True), {}), ((y, [4], [3]), {})]


def _gen_adaptive1d(g):
    return [((_randn(g, 2, 3, 16), [1]), {}), ((_randn(g, 2, 3, 18), [6]), {}), ((_randn(g, 5, 12), [4]), {})]


def _gen_layer_norm(g):
    x, w, b = _randn(g, 2, 5, 16) * 3.0 + 1.0, _randn(g, 16), _randn(g, 16)
    y = _randn(g, 2, 4, 6, 7)
    return [((x, [16], w, b, 1e-5), {}), ((x, [16], None, None, 1e-6), {}),
            ((y, [6, 7], _randn(g, 6, 7), None, 1e-5), {}), ((_randn(g, 3, 9), [9], None, _randn(g, 9), 1e-5), {})]


def _gen_group_norm(g):
    x, y = _randn(g, 2, 6, 5, 4) * 2.0 + 0.5, _randn(g, 3, 8, 7)
    return [((x, _randn(g, 6), _randn(g, 6), 2, 6, 20, 3, 1e-5), {}), ((x, None, None, 2, 6, 20, 1, 1e-5), {}),
            ((y, _randn(g, 8), None, 3, 8, 7, 8, 1e-6), {}), ((_randn(g, 1, 4, 3, 3, 2), None, _randn(g, 4), 1, 4, 18, 2, 1e-5), {})]


def _gen_sdpa(g):
    q, k, v = _randn(g, 2, 3, 5, 8), _randn(g, 2, 3, 7, 8), _randn(g, 2, 3, 7, 6)
    return [((q, k, v), {}), ((q, k, v), {"scale": 0.3}), ((_randn(g, 4, 6, 4), _randn(g, 4, 6, 4), _randn(g, 4, 6, 4)), {})]


def _gen_unbind(g):
    return [((_randn(g, 3, 2, 4, 5), 0), {}), ((_randn(g, 2, 3, 4), -1), {}), ((_randn(g, 4, 1, 6), 1), {})]


def _gen_select(g):
    return [((_randn(g, 3, 2, 4), 0, 1), {}), ((_randn(g, 2, 5, 4), -2, -1), {}), ((_randn(g, 4, 6), 1, 0), {})]


def _gen_expand(g):
    return [((_randn(g, 1, 1, 8), [1, -1, -1]), {}), ((_randn(g, 1, 1, 8), [3, -1, -1]), {}),
            ((_randn(g, 4, 1), [4, 5]), {}), ((_randn(g, 6), [2, 6]), {})]


def _gen_expand_long(g):
    return [((_randn(g, 4, 1), [4, 32]), {}), ((_randn(g, 2, 1, 3), [2, 9, 3]), {}), ((_randn(g, 3, 1), [-1, 8]), {})]


def _gen_sum(g):
    return [((_randn(g, 2, 3, 5, 7), [2, 3]), {}), ((_randn(g, 4, 9), [1]), {"keepdim": True}),
            ((_randn(g, 3, 9, 5), [-1, 0]), {}), ((_randn(g, 2, 3, 4), []), {})]


def _gen_vector_norm(g):
    inf = float("inf")
    return [((_randn(g, 4, 32), 2.0, [1], True), {}), ((_randn(g, 3, 5, 7), 2), {}),
            ((_randn(g, 3, 5, 7), 1, [-1]), {}), ((_randn(g, 2, 6, 5), inf, [1, 2], True), {}),
            ((_randn(g, 5, 8), -inf, [0]), {})]


def _gen_pow(g):
    pos = _randn(g, 3, 7).abs() + 0.1
    x = _randn(g, 2, 5, 4)
    return [((x, c), {}) for c in (1, 2, 3, 4, 2.0)] + [((pos, c), {}) for c in (0.5, -0.5)]


def _gen_pow_tensor(g):
    base = _randn(g, 2, 6, 5).abs() + 0.05
    return [((base, _randn(g, 2, 6, 5)), {}), ((base, torch_scalar(3.0)), {}), ((base, torch_scalar(1.0 / 3.0)), {}),
            ((_randn(g, 3, 4).abs(), torch_scalar(2.5)), {})]


def _gen_reciprocal(g):
    x = _randn(g, 2, 5, 4)
    return [((x + x.sign() * 0.1,), {}), ((_randn(g, 7).abs() + 0.5,), {})]


def torch_scalar(v):
    import torch

    return torch.tensor(v)


def _gen_mm(g):
    return [((_randn(g, 4, 7), _randn(g, 7, 5)), {}), ((_randn(g, 1, 32), _randn(g, 32, 6)), {})]


def _gen_matmul(g):
    return [((_randn(g, 4, 7), _randn(g, 7, 5)), {}), ((_randn(g, 2, 3, 4), _randn(g, 4, 5)), {}),
            ((_randn(g, 2, 3, 4, 6), _randn(g, 2, 3, 6, 5)), {})]


def _gen_mean(g):
    return [((_randn(g, 2, 3, 5, 7), [2, 3]), {}), ((_randn(g, 2, 3, 5, 7), [-1, -2]), {}),
            ((_randn(g, 3, 9, 5), [1]), {"keepdim": True}), ((_randn(g, 4, 9), [-1]), {}),
            ((_randn(g, 2, 3, 5, 7), [1, 3]), {"keepdim": True})]


_add("aten.median.dim", _median_dim, "lower median along a dim: min/max sorting network (static dim <= 1024) or rank counting",
     _gen_median_dim, outputs=(0,))
_add("aten.median.default", _median_default, "lower median of all elements: min/max sorting network or rank counting",
     _gen_median_default)
_add("aten.nanmedian.dim", _nanmedian_dim, "lower median ignoring NaN, by rank counting with NaN moved past +inf",
     _gen_nanmedian, outputs=(0,))
_add("aten.kthvalue.default", _kthvalue, "k-th smallest along a dim: min/max sorting network (static dim <= 1024) or rank counting",
     _gen_kthvalue, outputs=(0,))
_add("aten.mode.default", _mode, "most frequent value (smallest among ties) and its last position, by pairwise equality counts",
     _gen_mode)
_add("aten.cummax.default", _cummax, "running maximum (a doubling scan of maximum over slices; static dim) and its latest position (a lower-triangular mask)",
     _gen_cum)
_add("aten.cummin.default", _cummin, "running minimum (a doubling scan of minimum over slices; static dim) and its latest position (a lower-triangular mask)",
     _gen_cum)
_add("aten.cumsum.default", _cumsum, "running sum as one bmm with a constant upper-triangular matrix of ones (static dim <= 512)",
     _gen_cumsum, rtol=1e-5, atol=1e-5)
_add("aten.cumprod.default", _cumprod, "running product as slices multiplied in turn and concatenated (static dim <= 64)",
     _gen_cumprod, rtol=1e-5, atol=1e-6, spelled=("prims.prod.default",))
_add("aten.logcumsumexp.default", _logcumsumexp, "running log-sum-exp: a doubling scan of max-shifted logaddexp (static dim) or a lower-triangular masked sum",
     _gen_logcumsumexp, rtol=1e-5, atol=1e-6)
_add("aten.histc.default", _histc, "histogram with equal bins, by comparing each element's bin with every bin",
     _gen_histc)
_add("aten.bucketize.Tensor", _bucketize, "bucket index of each value: count of boundaries below it",
     _gen_bucketize)
_add("aten.searchsorted.Tensor", _searchsorted, "insertion index into a sorted last dim: count of entries below each value",
     _gen_searchsorted)
_add("aten.erfinv.default", _erfinv, "inverse error function: polynomial approximation refined by two Newton steps on erf",
     _gen_erfinv, rtol=1e-5, atol=2e-6, aliases=("prims.erf_inv.default",))
_add("aten.prelu.default", _prelu, "PReLU as max(x, 0) + w * min(x, 0), the weight along dim 1",
     _gen_prelu, rtol=1e-6, atol=1e-7, aliases=("aten._prelu_kernel.default",))
_add("aten.softplus.default", _softplus, "softplus as max(x, 0) + log(1 + exp(-|x|)) (no comparison, no log1p)",
     _gen_softplus, rtol=1e-5, atol=1e-6)
_add("aten.mish.default", _mish, "mish as x * tanh(softplus(x)), softplus without comparison or log1p",
     _gen_activation, rtol=1e-5, atol=1e-6)
_add("aten.elu.default", _elu, "ELU as max(x, 0) + alpha * (exp(min(x, 0)) - 1) (alpha >= 0)",
     _gen_elu, rtol=1e-5, atol=1e-6)
_add("aten.adaptive_avg_pool2d.default", _adaptive_avg_pool2d,
     "adaptive average pooling as avg_pool2d, kernel = stride = size / out (static sizes that divide)",
     _gen_adaptive2d, rtol=1e-5, atol=1e-6, aliases=("aten._adaptive_avg_pool2d.default",))
_add("aten.upsample_nearest2d.vec", _upsample_nearest2d,
     "nearest upsampling by whole factors as a broadcast multiply with ones and a reshape", _gen_upsample_nearest)
_add("aten.sort.default", _sort, "sort along a dim: values by the min/max network (static dim <= 1024), indices by rank counting",
     _gen_sort, outputs=(0,))
_add("aten.sort.stable", _sort_stable, "stable sort along a dim: values by the min/max network, indices by rank counting (ties in index order)",
     _gen_sort_stable, aliases={"aten.argsort.stable": _argsort_stable})
_add("aten.argsort.default", _argsort, "argsort along a dim by rank counting (static dim <= 1024)",
     lambda g: [(a, kw) for a, kw in _gen_sort(g)], outputs=())
_add("aten.topk.default", _topk, "k largest (or smallest) along a dim: the min/max network's first k, indices by rank counting",
     _gen_topk, outputs=(0,))
_add("aten._linalg_eigh.default", _linalg_eigh, "eigenvalues of a symmetric matrix (static n <= 6; torch.linalg.eigvalsh): "
     "closed form in float64 for 3 x 3, else a fixed number of cyclic Jacobi sweeps sorted by a min/max network", _gen_eigh, rtol=1e-4, atol=2e-5,
     outputs=(0,), aliases={"aten.linalg_eigvalsh.default": _eigvalsh})
_add("aten._cdist_forward.default", _cdist, "pairwise p-norm distances (torch.cdist) from broadcast differences",
     _gen_cdist, rtol=1e-5, atol=1e-6, aliases=("aten.cdist.default",))
_add("aten.roll.default", _roll, "roll along dims as a concatenation of two slices",
     _gen_roll)
_add("aten.mean.dim", _mean_dim, "mean over any dims as the 4-D (2, 3) keepdim mean XNNPACK delegates, between a permute and views",
     _gen_mean, rtol=1e-5, atol=1e-6, keeps_op=True)
_add("aten.avg_pool2d.default", _avg_pool2d,
     "average pooling with ceil_mode, counted padding or a divisor override as the padding-excluding form XNNPACK delegates, times a per-cell divisor ratio (static H, W)",
     _gen_avg_pool, rtol=1e-5, atol=1e-6, keeps_op=True)
_add("aten.adaptive_max_pool2d.default", _adaptive_max_pool2d,
     "adaptive max pooling: one max_pool2d when sizes divide, else one pool per output cell (static H, W)",
     _gen_adaptive_max, outputs=(0,))
_add("aten.max_pool1d.default", _max_pool1d,
     "1-D max pooling as max_pool2d over a (N, C, 1, L) view (torch's lowering leaves its unsqueeze/squeeze copies undelegated)",
     _gen_pool1d)
_add("aten.avg_pool1d.default", _avg_pool1d,
     "1-D average pooling as avg_pool2d over a (N, C, 1, L) view (ceil_mode and counted padding through the avg_pool2d entry)",
     _gen_avg_pool1d, rtol=1e-5, atol=1e-6)
_add("aten.adaptive_avg_pool1d.default", _adaptive_avg_pool1d,
     "1-D adaptive average pooling as avg_pool2d over a (N, C, 1, L) view, kernel L / out (static L that divides)",
     _gen_adaptive1d, rtol=1e-5, atol=1e-6)
_add("aten.adaptive_max_pool1d.default", _adaptive_max_pool1d,
     "1-D adaptive max pooling as max_pool2d over a (N, C, 1, L) view, kernel L / out (static L that divides)",
     _gen_adaptive1d, outputs=(0,))
_add("aten.native_layer_norm.default", _native_layer_norm,
     "layer norm (no XNNPACK kernel) as two 4-D keepdim means over the normalised dims, rsqrt and the affine",
     _gen_layer_norm, rtol=1e-5, atol=1e-5, aliases={"aten.layer_norm.default": _layer_norm})
_add("aten.native_group_norm.default", _native_group_norm,
     "group norm (not delegated by XNNPACK) as two 4-D keepdim means over each group, rsqrt and the per-channel affine",
     _gen_group_norm, rtol=1e-5, atol=1e-5, aliases={"aten.group_norm.default": _group_norm})
_add("aten.scaled_dot_product_attention.default", _sdpa,
     "attention without a mask as bmm, softmax, bmm (torch's form adds any/where around the softmax for masked rows)",
     _gen_sdpa, rtol=1e-5, atol=1e-6)
_add("aten.unbind.int", _unbind, "unbind as slices viewed without the dim", _gen_unbind)
_add("aten.select.int", _select, "select as a slice viewed without the dim", _gen_select)
_add("aten.expand.default", _expand, "expand as a clone (sizes already match) or a cat of clones of a size-1 dim (doubled and sliced past 5)",
     lambda g: _gen_expand(g) + _gen_expand_long(g), aliases={"aten.expand_as.default": _expand_as})
_add("aten.pad.default", _pad,
     "circular, reflect and replicate padding (F.pad, a conv's padding_mode) as slices of the input concatenated around it",
     _gen_pad)
_add("aten.amax.default", _amax, "amax over any dims as a max_pool2d over a (1, kept, reduced, 1) view (no NaN)",
     _gen_amax)
_add("aten.amin.default", _amin, "amin over any dims as -max_pool2d(-x) over a (1, kept, reduced, 1) view (no NaN)",
     _gen_amax)
_add("aten.sum.dim_IntList", _sum_dim, "sum over any dims (and torch.norm / F.normalize's vector norm) as the 4-D keepdim mean XNNPACK delegates times the count",
     _gen_sum, rtol=1e-5, atol=1e-5, aliases={"aten.linalg_vector_norm.default": _vector_norm})
_add("aten.pow.Tensor_Scalar", _pow_scalar, "x ** c for c in 1, 2, 3, 4, 0.5, -0.5 as a clone, products, sqrt or rsqrt",
     _gen_pow, rtol=1e-6, atol=0.0)
_add("aten.pow.Tensor_Tensor", _pow_tensor, "x ** p with a tensor exponent (a learned power) as exp(p * log x), for positive bases",
     _gen_pow_tensor, rtol=1e-5, atol=1e-6)
_add("aten.reciprocal.default", _reciprocal, "1 / x as a division of a lifted constant one by x",
     _gen_reciprocal, rtol=1e-6, atol=0.0)
_add("aten.mm.default", _mm, "matrix product (and @ of an N-D by a 2-D or a same-batch stack) as one bmm between views",
     _gen_mm, rtol=1e-5, atol=1e-6, aliases={"aten.matmul.default": _matmul})
_add("aten.var.correction", _var, "variance and std (var/std .dim and .correction) as two 4-D keepdim means XNNPACK delegates",
     _gen_var, rtol=1e-5, atol=1e-6,
     aliases={"aten.var.dim": _var_dim, "aten.std.correction": _std, "aten.std.dim": _std_dim})


# ---------------------------------------------------------------------------- names


_ONNX = re.compile(r"OpOverload\(op='([\w.]+)', overload='(\w+)'\)")


def _edge_names():
    """ExecuTorch's spelling of each name: `aten_median_dim`; a view op as its functional copy,
    `aten_select_copy_int` for aten.select.int (what the edge graph holds); and as its delegation
    report spells it, in snake case (`aten_sum_dim_int_list` for aten.sum.dim_IntList)."""
    out = {}
    for name in (*LIBRARY, *ALIASES):
        key = ALIASES.get(name, name)
        ns, packet, overload = name.split(".")
        for spelling in (f"{ns}_{packet}_{overload}", f"{ns}_{packet}_copy_{overload}"):
            out.setdefault(spelling, key)
            out.setdefault(_snake(spelling), key)
    return out


def _snake(name):
    """`aten_sum_dim_IntList` -> `aten_sum_dim_int_list` (get_delegation_info's spelling)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def normalise(name):
    """The library keys a spelling names: one key, or every overload of a packet (`aten.median`).
    Returns [] when the name matches nothing in the library."""
    s = str(name).strip()
    m = _ONNX.search(s)
    if m:
        s = f"{m.group(1)}.{m.group(2)}"
    s = s.replace("::", ".")
    for prefix in ("torch._ops.", "torch.ops."):
        if s.startswith(prefix):
            s = s[len(prefix):]
    if "." not in s:
        s = _edge_names().get(s, s)
    if s.count(".") == 1:
        s_default = s + ".default"
        packet = [k for k in LIBRARY if k.rsplit(".", 1)[0] == s]
        if packet:
            return packet
        s = s_default
    s = ALIASES.get(s, s)
    return [s] if s in LIBRARY else []


def library_text():
    return ", ".join(sorted(LIBRARY))


def resolve(names):
    """Library keys for a list of spellings, in order, without duplicates; an unknown name is a
    ToolError listing the library."""
    keys = []
    for n in names or []:
        found = normalise(n)
        if not found:
            raise ToolError(
                f"rewrite_ops: {n!r} is not in the operator rewrite library (toolbox/lib/aipc_toolbox/rewrites.py); "
                f"it has: {library_text()}. Use one of these names (as the toolchain prints them, e.g. aten.median.dim), "
                "or change the model code for this op"
            )
        keys.extend(k for k in found if k not in keys)
    return keys


# ---------------------------------------------------------------------------- graph side


def graph_ops(ep):
    """Names (`aten.x.overload`) of every operator called in an ExportedProgram or GraphModule."""
    g = ep.graph if hasattr(ep, "graph") else ep
    out = set()
    for node in g.nodes:
        if node.op == "call_function" and hasattr(node.target, "_schema"):
            out.add(str(node.target))
    return out


def find(ep):
    """The library keys whose operator (or an alias) occurs in the graph, sorted."""
    ops = graph_ops(ep)
    return sorted(k for k, e in LIBRARY.items() if ops & {k, *e.aliases})


def apply(ep, names, base="none"):
    """Rewrite the named ops in an ExportedProgram; returns (new_ep, applied, absent).

    `names`: any spellings `normalise` takes (an unknown one is a ToolError listing the library).
    `applied`: the library keys that occurred and were rewritten; `absent`: requested keys the
    graph does not hold (a note for the caller, not an error). `base="none"` decomposes only these
    ops (what the exporters and the PT2E quantizer need: the rest of the graph is unchanged);
    `base="core"` merges them into torch.export.default_decompositions() (core ATen)."""
    keys = resolve(names)
    present = set(find(ep))
    applied = [k for k in keys if k in present]
    absent = [k for k in keys if k not in present]
    if not applied and base == "none":
        return ep, applied, absent
    dynamic = _symbolic_dims(ep)
    out = _decomposed(ep, applied, base)
    # A replacement that needs a dim's size as a number would fix a dynamic dim to the example's
    # size without an error (and in the shape environment the program shares, so there is no
    # undoing it here). The entries return NotImplemented for such calls; this is the backstop.
    lost = dynamic - _symbolic_dims(out)
    if lost:
        raise ToolError(
            f"rewrite_ops: rewriting {', '.join(applied)} fixed the dynamic dim(s) "
            f"{', '.join(f'{n}:{d}' for n, d in sorted(lost))} to the example's size (a replacement needs that size as a "
            "number). Remove the op from rewrite_ops, rewrite that call in the model code, or keep the dim static")
    left = [k for k in find(out) if k in applied and not LIBRARY[k].keeps_op]
    for k in left:
        # Some calls of the op are in a form the entry does not take (e.g. an expand of two dims
        # at once): the rewritten calls stay rewritten and these stay as they were,
        # so the export still succeeds and the later checks (delegation, accuracy) judge the result.
        before, after = _count(ep, k), _count(out, k)
        emit_warn("rewrite incomplete", f"{k}: {after} of {before} calls left as they were (an argument form the library "
             "entry does not handle); the others were rewritten. Change the model code of the calls left, or accept them "
             "where they run")
    return out, applied, absent


def _decomposed(ep, keys, base):
    """ep.run_decompositions with the entries of `keys` (on core ATen's table for base "core")."""
    import torch

    table = torch.export.default_decompositions() if base == "core" else {}
    for k in keys:
        table.update(LIBRARY[k].table())
    return ep.run_decompositions(table)


def _symbolic_dims(ep):
    """{(input name, dim)} of the user inputs' dims that are symbolic (dynamic)."""
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    names = set(getattr(getattr(ep, "graph_signature", None), "user_inputs", ()) or ())
    out = set()
    for node in ep.graph.nodes:
        if node.op == "placeholder" and node.name in names:
            val = node.meta.get("val")
            for i, n in enumerate(getattr(val, "shape", ())):
                if not is_concrete_int(n):  # a fixed dim may stay a SymInt holding a constant
                    out.add((node.name, i))
    return out


def _count(ep, key):
    """How many calls of the library entry `key` (or an alias) the graph holds."""
    names = {key, *LIBRARY[key].aliases}
    g = ep.graph if hasattr(ep, "graph") else ep
    return sum(1 for n in g.nodes if n.op == "call_function" and hasattr(n.target, "_schema") and str(n.target) in names)


def hint_line(names, kept=()):
    """`rewritable op: ...` text for library ops named in a toolchain message or op list, or None;
    the setting it names keeps the ops already rewritten (`kept`) beside the new ones."""
    keys = []
    for n in names:
        for k in normalise(n):
            if k not in keys:
                keys.append(k)
    if not keys:
        return None
    import json

    setting = [k for k in kept if k not in keys] + keys
    return f"{', '.join(keys)} (aipc.toml [project] rewrite_ops = {json.dumps(setting)})"


_MSG = [
    re.compile(r"OpOverload\(op='[\w.]+', overload='\w+'\)"),  # torch.onnx: No ONNX function found for <OpOverload(...)>
    re.compile(r"Operator (torch\._ops\.[\w.]+) is not in Core ATen opset"),  # ExecuTorch verifier
    re.compile(r"Error when translating node .*?target=torch\.ops\.([\w.]+)\]"),  # torch.onnx translation error
]


def ops_in_message(text):
    """Operator names a toolchain error message mentions (ONNX dispatch and translation errors,
    ExecuTorch's Core ATen verifier)."""
    found = []
    for pat in _MSG:
        for m in pat.finditer(text or ""):
            found.append(m.group(1) if pat.groups else m.group(0))
    return found


# ---------------------------------------------------------------------------- for the export scripts


def requested(project, arg):
    """Library keys to rewrite: aipc.toml [project] rewrite_ops, then the tool argument's (which
    adds to the project's list)."""
    return resolve(list(project["rewrite_ops"] or []) + list(arg or []))


def rewrite_for_export(ep, keys):
    """apply() with the export scripts' notes; returns (ep, applied keys)."""
    from .emit import note

    if not keys:
        return ep, []
    out, applied, absent = apply(ep, keys)
    for k in applied:
        note(f"rewrote {k} at graph level: {LIBRARY[k].description}")
    if absent:
        note(f"rewrite_ops: {', '.join(absent)} not in this graph: nothing to rewrite for "
             f"{'it' if len(absent) == 1 else 'them'} (ops of this graph the library has: {', '.join(find(ep)) or 'none'})")
    return out, applied


def warn_rewritable(names, done=()):
    """Print `aipc-warning: rewritable op: aten.x.y (aipc.toml [project] rewrite_ops = [...])` when a library
    op is among `names` (toolchain spellings) and not already rewritten (`done`: the setting named
    keeps those, so setting it adds the new ops instead of dropping the old)."""
    from .emit import warn

    keys = []
    for n in names:
        keys.extend(k for k in normalise(n) if k not in done and k not in keys)
    line = hint_line(keys, done)
    if line:
        warn("rewritable op", line)
    return keys


def warn_for_exception(exc, done=()):
    """warn_rewritable for the ops an exception (and its causes) names; the caller re-raises."""
    names, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        names.extend(ops_in_message(str(exc)))
        exc = exc.__cause__ or exc.__context__
    return warn_rewritable(names, done)

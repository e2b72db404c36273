"""Whether an FP32 artifact's distance from eager is the model's own rounding (numerical
conditioning), measured against the same model run in float64.

A float artifact that computes what the model computes still sums in another order than eager
PyTorch (fused kernels, other reductions). On a well-conditioned model that moves the outputs by
~1e-6; on an ill-conditioned one (a division by a sum that can come near zero, a difference of
large nearly equal terms) it moves them as much as eager FP32 itself is off the exact result.
Then no FP32 artifact can match eager FP32 closely, and repairing the export is the wrong move.

`measure` runs only when the artifact is off eager (cosine below `TRIGGER`), so a clean export
costs nothing and its result gains no field. It runs a float64 copy of the model on the same inputs (the exact reference) and
reports:
- `fp64_eager_cosine`: eager FP32 against float64 (how far the model's own FP32 result is);
- `fp64_artifact_cosine`: the artifact against float64;
- `ill_conditioned` 1 when eager FP32 is itself measurably off the exact result
  (1 - fp64_eager_cosine >= `SIGNIFICANT`) and the artifact is off it by the same order of
  magnitude (1 - fp64_artifact_cosine <= `ORDER` x (1 - fp64_eager_cosine)): both are rounding,
  which the model amplifies, summed in other orders. An artifact that computes something else is
  off the exact result far more than eager's rounding (a wrong activation: cosine 0.86 against
  eager's 1 - 1e-12). On efficientvit-b0 (random weights, batch-1 ORT artifact): eager 0.987,
  artifact 0.964, artifact vs eager 0.949; then
- `diverging_module` / `diverging_source`: the first module, in the order their forward calls
  finish, whose FP32 output is off its float64 output by cosine below `MODULE_COSINE` on a few
  samples (where the rounding error grows: the module a human looks at).
It prints `aipc-warning: ill-conditioned model: ...` for the evidence classifier.
"""
import copy
import inspect
import os

import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.metrics import cosine_global
from aipc_toolbox.tensors import eager_outputs

TRIGGER = 0.9999  # an artifact this close to eager is a clean export: nothing to measure
SIGNIFICANT = 1e-4  # eager FP32 off float64 by more than this (1 - cosine): the model amplifies rounding
ORDER = 10.0  # the artifact's error from float64, at most this many times eager's: the same rounding
MODULE_COSINE = 0.999  # a module output further than this from float64 has lost precision
LOCATE_SAMPLES = 8  # samples the per-module localisation runs on
LOCATE_BUDGET_BYTES = 512 << 20  # float64 module outputs kept for the localisation, at most


def _double(value):
    import torch

    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.double()
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating):
        return value.astype(np.float64)
    return value


def _first_tensor(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (list, tuple)):
        for v in value:
            t = _first_tensor(v)
            if t is not None:
                return t
    if isinstance(value, dict):
        for v in value.values():
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


def _source(module):
    """file:line of the module class's forward, relative to the project when inside it."""
    try:
        fn = type(module).forward
        path = inspect.getsourcefile(fn) or "?"
        line = inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):
        return type(module).__name__
    rel = os.path.relpath(path)
    return f"{rel if not rel.startswith('..') else path}:{line}"


def _module_outputs(model, inputs, keep):
    """Run `model` once on `inputs`; `keep(name, call, tensor)` sees each module's first output
    tensor as its forward finishes (call: how many times that module ran before)."""
    import torch

    calls = {}
    hooks = []

    def hook_for(name):
        def hook(_module, _args, output):
            t = _first_tensor(output)
            if t is not None and t.is_floating_point():
                n = calls.get(name, 0)
                calls[name] = n + 1
                keep(name, n, t.detach())

        return hook

    for name, module in model.named_modules():
        if name:
            hooks.append(module.register_forward_hook(hook_for(name)))
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for h in hooks:
            h.remove()


def _locate(model, model64, inputs):
    """(qualified name, module, cosine) of the first module whose FP32 output departs from its
    float64 output, or None."""
    import torch

    few = [torch.as_tensor(t[:LOCATE_SAMPLES]) for t in inputs]
    exact = {}
    used = [0]

    def keep64(name, call, t):
        if used[0] + t.numel() * 8 <= LOCATE_BUDGET_BYTES:
            exact[(name, call)] = t
            used[0] += t.numel() * 8

    _module_outputs(model64, [_double(t) for t in few], keep64)
    first = []

    def compare32(name, call, t):
        ref = exact.get((name, call))
        if first or ref is None or ref.shape != t.shape:
            return
        c = cosine_global(ref.numpy(), t.double().numpy())
        if c < MODULE_COSINE:
            first.append((name, c))

    _module_outputs(model, few, compare32)
    if not first:
        return None
    name, c = first[0]
    return name, dict(model.named_modules())[name], c


def measure(model, inputs, ref, out, size=64, fixed=False):
    """Conditioning of the model for an FP32 artifact whose outputs `out` differ from eager's
    `ref` (both the first output, over `inputs`). Returns the metrics above; none ({}) when the
    artifact is close to eager or the model cannot run in float64 (a clean export's result has
    the fields it always had: a re-run of a recorded session compares them)."""
    cosine = cosine_global(ref, out)
    if cosine >= TRIGGER:
        return {}
    try:
        model64 = copy.deepcopy(model).double()
        ref64 = eager_outputs(model64, [_double(t) for t in inputs], size, fixed)[0]
    except Exception as e:  # noqa: BLE001 - a model that cannot run in float64: nothing measured
        emit.note(f"conditioning: the model does not run in float64 ({type(e).__name__}: {e}); not measured")
        return {}
    eager_exact = cosine_global(ref64, ref)
    artifact_exact = cosine_global(ref64, out)
    ill = (1.0 - eager_exact) >= SIGNIFICANT and (1.0 - artifact_exact) <= ORDER * (1.0 - eager_exact)
    m = {
        "conditioning_checked": 1,
        "fp64_eager_cosine": eager_exact,
        "fp64_artifact_cosine": artifact_exact,
        "ill_conditioned": int(ill),
    }
    emit.note(
        f"conditioning: against the model in float64, eager FP32 has cosine {eager_exact:.6f}, "
        f"the artifact {artifact_exact:.6f} (artifact vs eager {cosine:.6f})"
    )
    if not ill:
        return m
    where = None
    try:
        where = _locate(model, model64, inputs)
    except Exception as e:  # noqa: BLE001 - the localisation is a hint; the measurement stands
        emit.note(f"conditioning: the per-module comparison failed ({type(e).__name__}: {e})")
    located = ""
    if where is not None:
        name, module, c = where
        m["diverging_module"] = name
        m["diverging_source"] = _source(module)
        located = (
            f"; the first module whose FP32 output departs from float64 is {name} "
            f"({type(module).__name__}, {m['diverging_source']} forward, cosine {c:.6f})"
        )
    emit.warn(
        "ill-conditioned model",
        f"eager FP32 is itself cosine {eager_exact:.6f} from the same model in "
        f"float64 and the artifact {artifact_exact:.6f}, so the artifact's distance from eager "
        f"(cosine {cosine:.6f}) is rounding the model amplifies, not the export{located}. An FP32 "
        f"artifact summing in another order than eager cannot match it closer: a human decides (a numerically "
        f"stable formulation in the model, or the gate's tolerance for it)"
    )
    return m

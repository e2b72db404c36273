"""Which of the project's own functions prepares the inputs the model is fed, when the calibration
set is on another scale (calib.py's set-level fault).

The eval inputs (or the example inputs) are built by the project's code, and somewhere on that
path a function turns raw data into what the model takes: a standardisation, a scaling to [0, 1],
a log transform. When calibration_data skips that step, no sample can be dropped; the step must
be applied. Nothing here knows what the step is called or computes: the eval path is followed
with a profile hook, and every module-level function of the project that takes an array and
returns one of the same shape is a candidate. Those the calibration path does not already call
are applied to the calibration samples, and a candidate is kept only when the calibration set
then lies in the reference's range (the same audit that found the fault). The result names the
function as `module:function`, the value of aipc.toml [project] `calibration_prep`, which
Project.calibration_data() then applies to every calibration sample (quantize, int8_formats and
int8_sensitivity of every target read the set through it).
"""
import os
import sys
from dataclasses import dataclass

from .builders import ProjectProfile, holds_array

MAX_CALLS = 100_000  # calls looked at per traced entry; beyond it the trace stops recording


@dataclass(frozen=True)
class Transform:
    """A module-level project function seen turning an array into one of the same shape."""

    entry: str  # "module:function", as aipc.toml names it
    file: str  # relative to the project
    line: int  # of its `def`


class TransformTrace(ProjectProfile):
    """Profile hook over project code: the shape-keeping array functions called, in call order."""

    def __init__(self, root):
        super().__init__(root)
        self.found = []
        self._pending = {}
        self._calls = 0

    def _module_level(self, frame):
        """`Transform` for the frame's function when the module binds it by name, else None."""
        code = frame.f_code
        module = frame.f_globals.get("__name__")
        bound = getattr(sys.modules.get(module), code.co_name, None)
        if getattr(bound, "__code__", None) is not code:
            return None
        return Transform(f"{module}:{code.co_name}", os.path.relpath(os.path.realpath(code.co_filename), self.root),
                         code.co_firstlineno)

    def _hook(self, frame, event, arg):
        if event not in ("call", "return"):
            return
        code = frame.f_code
        if code.co_name.startswith("<") or not self._in_project(code.co_filename):
            return
        if event == "call":
            self._calls += 1
            if self._calls > MAX_CALLS or code.co_argcount < 1:
                return
            first = frame.f_locals.get(code.co_varnames[0])
            if holds_array(first):
                self._pending[id(frame)] = tuple(first.shape)
            return
        shape = self._pending.pop(id(frame), None)
        if shape is None or not holds_array(arg) or tuple(arg.shape) != shape or getattr(arg.dtype, "kind", "f") not in "fc":
            return
        if getattr(arg, "is_floating_point", lambda: True)() is False:
            return
        transform = self._module_level(frame)
        if transform and transform not in self.found:
            self.found.append(transform)


def traced(project, call):
    """(what `call()` returned, the transforms its project code applied)."""
    with TransformTrace(project.root) as trace:
        value = call()
    return value, trace.found


def resolve(entry):
    """The function aipc.toml `calibration_prep` names ("module:function")."""
    import importlib

    module, name = entry.split(":", 1)
    return getattr(importlib.import_module(module), name)


def _call(fn, tensor, index):
    """`fn` on one input: as a numpy array first (what data code mostly takes), else as the tensor
    itself. Raises ValueError with the first error when neither works."""
    first = None
    for value in (tensor.detach().cpu().numpy(), tensor.detach().clone()):
        try:
            return fn(value)
        except Exception as e:  # the project's function: any error means it does not take this form
            first = first or f"sample {index}: {type(e).__name__}: {e}"
    raise ValueError(first)


def apply(fn, samples):
    """`samples` (input tuples of tensors) with `fn` applied to every floating-point input, as a
    numpy array or else as the tensor (the input's dtype and shape kept). Raises ValueError naming the sample when
    `fn` fails on it or changes its shape."""
    import numpy as np
    import torch

    out = []
    for i, sample in enumerate(samples):
        item = []
        for t in sample:
            if not t.is_floating_point():
                item.append(t)
                continue
            value = _call(fn, t, i)
            if isinstance(value, torch.Tensor):
                value = value.detach().cpu().numpy()
            value = np.asarray(value)
            if value.shape != tuple(t.shape):
                raise ValueError(f"sample {i}: it returned shape {value.shape} for {tuple(t.shape)}")
            item.append(torch.from_numpy(np.ascontiguousarray(value)).to(t.dtype))
        out.append(tuple(item))
    return out


def candidates(project, samples, reference_name):
    """The project's functions that prepare the reference inputs (`reference_name`: "eval
    inputs" or "example inputs") and, applied to the calibration `samples`, bring the set into the
    reference's range: a list of (Transform, outside before, outside after)."""
    from . import calib

    entry = project.eval_data if reference_name == "eval inputs" else project.example_inputs
    value, on_reference = traced(project, entry)
    reference = calib.per_row(value[0] if reference_name == "eval inputs" else value)
    _, on_calibration = traced(project, project.calibration_data)
    before = calib.audit(samples, reference, reference_name, quiet=True)
    kept = []
    for transform in on_reference:
        if transform in on_calibration:
            continue
        try:
            prepared = apply(resolve(transform.entry), samples)
        except (ValueError, ImportError, AttributeError):
            continue
        after = calib.audit(prepared, reference, reference_name, quiet=True)
        if not after.set_off:
            kept.append((transform, before, after))
    return kept


def line(found, reference_name):
    """What the calibration-scale warning adds when candidates were found: each one, with the
    samples outside the reference's range before and after it, and the setting that applies it."""
    return "; ".join(
        f"{t.entry} ({t.file}:{t.line}), which prepares the {reference_name}, brings them into range "
        f"({len(before.outside)} -> {len(after.outside)} outside): aipc.toml [project] calibration_prep = \"{t.entry}\" applies it"
        for t, before, after in found)

"""Which of the project's own functions prepares the inputs the model is fed, when the calibration
set is on another scale (calib.py's set-level fault).

The eval inputs (or the example inputs) are built by the project's code, and somewhere on that
path a function turns raw data into what the model takes: a standardisation, a scaling to [0, 1],
a log transform. When calibration_data skips that step, no sample can be dropped; the step must
be applied. Nothing here knows what the step is called or computes: the eval path is followed
with a profile hook, and every function of the project that takes an array and returns one of
the same shape, and that a module binds by name (a top-level function, a static method of a
top-level class, a method of an object held at top level, or of one its class makes with no
arguments: `module:Class()`), is a candidate. Those the
calibration path does not already call are applied to the calibration samples, and a candidate
is kept only when the calibration set then lies in the reference's range (the same audit that found the fault). The result names the
function as `module:function`, the value of aipc.toml [project] `calibration_prep`, which
Project.calibration_data() then applies to every calibration sample (quantize, int8_formats and
int8_sensitivity of every target read the set through it).
"""
import inspect
import os
import sys
from dataclasses import dataclass, field, replace

from .builders import ProjectProfile, holds_array

MAX_CALLS = 100_000  # calls looked at per traced entry; beyond it the trace stops recording


@dataclass(frozen=True)
class Transform:
    """A module-level project function seen turning an array into a floating-point one."""

    entry: str  # "module:function", as aipc.toml names it
    file: str  # relative to the project
    line: int  # of its `def`
    function: str = ""  # its qualified name (`Class.__call__` for an object's call)
    called_at: str = ""  # file:line of its first call on the traced path
    keeps_shape: bool = True  # returned the shape it was given (the calibration steps' form)
    # The other parameters of its first call, as given: ((name, value), ...), for the steps
    # that take more than the array (aipc_toolbox/skipped_step.py binds them).
    arguments: tuple = field(default=(), compare=False, repr=False)
    array: tuple = field(default=(), compare=False, repr=False)  # ((name, value),) of the array it was given


class TransformTrace(ProjectProfile):
    """Profile hook over project code: the array functions called that a module binds by name
    and that return a floating-point array, in the order they return (innermost first), once
    each (by entry)."""

    def __init__(self, root):
        super().__init__(root)
        self.found = []
        self._pending = {}
        self._calls = 0

    def _module_level(self, frame):
        """`Transform` for the frame's function when a project module binds it by name — the
        function itself, or a class or object it belongs to: "module:f", "module:Prep.standardise"
        (a static method), "module:SCALER.transform" or "module:SCALER" (a method or `__call__` of
        an object a module holds at its top level) — else None."""
        code = frame.f_code
        module = sys.modules.get(frame.f_globals.get("__name__"))
        if module is None:
            return None
        named = None
        if getattr(getattr(module, code.co_name, None), "__code__", None) is code:
            named = (module.__name__, code.co_name)
        else:
            owner, _, method = getattr(code, "co_qualname", "").rpartition(".")
            if owner and "<" not in owner:
                # A static or class method of a class the module binds (a plain method needs an
                # object: below).
                found = module
                for part in owner.split("."):
                    found = getattr(found, part, None)
                declared = inspect.getattr_static(found, method, None) if found is not None else None
                if isinstance(declared, (staticmethod, classmethod)) and _code_of(declared) is code:
                    named = (module.__name__, f"{owner}.{method}")
            if named is None and code.co_argcount >= 2:
                named = self._held_object_method(frame, module) or self._made_object_method(frame, module, owner)
        if named is None:
            return None
        return Transform(f"{named[0]}:{named[1]}", os.path.relpath(os.path.realpath(code.co_filename), self.root),
                         code.co_firstlineno, getattr(code, "co_qualname", code.co_name), self._called_at(frame))

    def _called_at(self, frame):
        caller = frame.f_back
        if caller is None or not self._in_project(caller.f_code.co_filename):
            return "?"
        return f"{os.path.relpath(os.path.realpath(caller.f_code.co_filename), self.root)}:{caller.f_lineno}"

    @staticmethod
    def _held_object_method(frame, module):
        """(module name, "NAME.method") for a method called on an object that a project module
        holds at its top level (the class's module, else the caller's), "NAME" for `__call__`;
        None when no module holds the object by a public name."""
        code = frame.f_code
        obj = frame.f_locals.get(code.co_varnames[0])
        attribute = "" if code.co_name == "__call__" else f".{code.co_name}"
        scopes = [module.__dict__]
        if frame.f_back is not None:
            scopes.append(frame.f_back.f_globals)
        for scope in scopes:
            for name, value in list(scope.items()):
                if value is obj and not name.startswith("_") and scope.get("__name__") in sys.modules:
                    return scope["__name__"], name + attribute
        return None

    @staticmethod
    def _made_object_method(frame, module, owner):
        """(module name, "Class().method") for a method called on an object of a class the module
        binds and can make with no arguments (`Class()` for `__call__`); else None."""
        code = frame.f_code
        cls = module
        for part in owner.split("."):
            cls = getattr(cls, part, None)
        if not isinstance(cls, type) or not isinstance(frame.f_locals.get(code.co_varnames[0]), cls):
            return None
        try:
            inspect.signature(cls).bind()
        except (TypeError, ValueError):
            return None
        return module.__name__, f"{owner}()" + ("" if code.co_name == "__call__" else f".{code.co_name}")

    def _project_event(self, frame, event, arg):
        code = frame.f_code
        if event == "call":
            self._calls += 1
            if self._calls > MAX_CALLS or code.co_argcount < 1:
                return
            # The array is the first argument, or the second of a method (after self).
            for index in range(min(code.co_argcount, 2)):
                value = frame.f_locals.get(code.co_varnames[index])
                if holds_array(value):
                    self._pending[id(frame)] = (tuple(value.shape), other_arguments(frame, index),
                                                ((code.co_varnames[index], value),))
                    return
            return
        shape, others, array = self._pending.pop(id(frame), (None, (), ()))
        if shape is None or not holds_array(arg) or getattr(arg.dtype, "kind", "f") not in "fc":
            return
        if getattr(arg, "is_floating_point", lambda: True)() is False:
            return
        transform = self._module_level(frame)
        if transform and all(t.entry != transform.entry for t in self.found):
            transform = replace(transform, keeps_shape=tuple(arg.shape) == shape, arguments=others, array=array)
            self.found.append(transform)


def other_arguments(frame, array_index):
    """((name, value), ...) of a call's named parameters besides the array at `array_index` and a
    method's receiver (the parameter before the array, named self or cls), as given."""
    code = frame.f_code
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    skip = {array_index} | ({0} if array_index == 1 and names[0] in ("self", "cls") else set())
    return tuple((name, frame.f_locals.get(name)) for k, name in enumerate(names) if k not in skip)


def _code_of(fn):
    """The code object of a function, a static or class method, or a bound method; else None."""
    return getattr(getattr(fn, "__func__", fn), "__code__", None)


def traced(project, call):
    """(what `call()` returned, the transforms its project code applied)."""
    with TransformTrace(project.root) as trace:
        value = call()
    return value, trace.found


def resolve(entry):
    """The function an entry names ("module:function", where the function may be an attribute
    path: "module:Prep.standardise", "module:SCALER.transform"; a part ending in `()` is called
    with no arguments, "module:Converter()" an object made anew). Raises ValueError with the
    reason."""
    found = resolve_value(entry)
    if not callable(found):
        raise ValueError(f"{entry!r} is not callable")
    return found


def resolve_value(entry):
    """What an entry names, callable or not (resolve's form: "module:NAME.attribute")."""
    import importlib

    module_name, sep, path = entry.partition(":")
    if not sep or not module_name or not path:
        raise ValueError(f"{entry!r} is not module:name (e.g. mypkg.prep:normalise or mypkg.prep:Normaliser())")
    try:
        found = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"module {module_name} does not import ({e})") from None
    for part in path.split("."):
        make = part.endswith("()")
        name = part[:-2] if make else part
        if not name.isidentifier():
            raise ValueError(f"{entry!r}: {part!r} is not a name")
        if not hasattr(found, name):
            raise ValueError(f"{entry!r}: {getattr(found, '__name__', type(found).__name__)} has no {name}")
        found = getattr(found, name)
        if make:
            try:
                found = found()
            except Exception as e:  # noqa: BLE001 -- the project's constructor: any failure is the answer
                raise ValueError(f"{entry!r}: {name}() fails ({type(e).__name__}: {e})") from None
    return found


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


def _steps(project, reference_name, skip_calibration_steps=True):
    """(the reference samples, the project's shape-keeping steps on the reference path), both
    traced; without the steps the calibration path calls too when `skip_calibration_steps` (a set
    it prepares throughout would be prepared twice; one it prepares in part may call the step for
    the prepared part)."""
    from . import calib

    entry = project.eval_data if reference_name == "eval inputs" else project.example_inputs
    value, on_reference = traced(project, entry)
    reference = calib.per_row(value[0] if reference_name == "eval inputs" else value)
    on_reference = [t for t in on_reference if t.keeps_shape]
    if not skip_calibration_steps:
        return reference, on_reference
    _, on_calibration = traced(project, project.calibration_data)
    called = {t.entry for t in on_calibration}
    return reference, [t for t in on_reference if t.entry not in called]


def candidates(project, samples, reference_name):
    """The project's functions that prepare the reference inputs (`reference_name`: "eval
    inputs" or "example inputs") and, applied to the calibration `samples`, bring the set into the
    reference's range: a list of (Transform, outside before, outside after)."""
    from . import calib

    reference, steps = _steps(project, reference_name)
    before = calib.audit(samples, reference, reference_name, quiet=True)
    kept = []
    for transform in steps:
        try:
            prepared = apply(resolve(transform.entry), samples)
        except (ValueError, ImportError, AttributeError):
            continue
        after = calib.audit(prepared, reference, reference_name, quiet=True)
        if not after.set_off:
            kept.append((transform, before, after))
    return kept


def prepared_outside(fn, samples, outside):
    """`samples` with `fn` applied to those at the indices `outside` only."""
    out = list(samples)
    for i, sample in zip(outside, apply(fn, [samples[i] for i in outside])):
        out[i] = sample
    return out


def scoped_candidates(project, samples, reference_name):
    """The project's functions that prepare the reference inputs and, applied only to the
    calibration samples outside the reference's range, bring every one of them into it on max|x|,
    and the group into it on typical |x| (a step that merely shrinks samples with a few extreme
    values leaves their typical values far below the reference's: those are outliers, not
    unprepared inputs): a list of (Transform, the samples outside before)."""
    from . import calib

    reference, steps = _steps(project, reference_name, skip_calibration_steps=False)
    outside = calib.audit(samples, reference, reference_name, quiet=True).outside
    if not outside:
        return []
    kept = []
    for transform in steps:
        try:
            prepared = prepared_outside(resolve(transform.entry), samples, outside)
        except (ValueError, ImportError, AttributeError):
            continue
        after = calib.audit(prepared, reference, reference_name, quiet=True)
        if not after.outside and calib.typical_in_range([prepared[i] for i in outside], reference):
            kept.append((transform, outside))
    return kept


def scoped_clause(transform, outside):
    """How the scoped setting reads in a calibration-scale line."""
    return (f"applied only to the {len(outside)} samples outside, {transform.entry} brings them into range and moves "
            f"none ({len(outside)} -> 0 outside): aipc.toml [project] calibration_prep_outside = \"{transform.entry}\" "
            "applies it to those only")


def line(found, reference_name, scoped=()):
    """What the calibration-scale warning adds when candidates were found: each one, with the
    samples outside the reference's range before and after it, and the setting that applies it.
    When it also moves samples that were in range out of it, it says so: those were prepared
    already, so the calibration function mixes prepared and unprepared inputs, and applying the
    step to every sample prepares those twice (the accuracy gates may not show it)."""
    parts = []
    for t, before, after in found:
        pushed = sorted(set(after.outside) - set(before.outside))
        mixed = (f", but moves {len(pushed)} that were in range out of it (prepared already: calibration_data "
                 "mixes prepared and unprepared inputs, so the better repair is in that function)") if pushed else ""
        parts.append(f"{t.entry} ({t.file}:{t.line}), which prepares the {reference_name}, brings them into range "
                     f"({len(before.outside)} -> {len(after.outside)} outside){mixed}: aipc.toml [project] calibration_prep = "
                     f"\"{t.entry}\" applies it")
        fitting = [outside for s_t, outside in scoped if s_t == t]
        if pushed and fitting:
            parts.append(scoped_clause(t, fitting[0]))
    return "; ".join(parts)


def partial_line(found, total, reference_name, source):
    """The calibration-scale line for a fraction (at most half) of the calibration set that the
    project's own step brings into range when applied to those samples only: `found` from
    scoped_candidates, `source` names the calibration function."""
    t, outside = found[0]
    others = "; ".join(f"{o.entry} ({o.file}:{o.line}) does too" for o, _ in found[1:])
    return (f"{len(outside)} of {total} calibration samples lie outside the {reference_name}' range (an unprepared "
            f"fraction of the set) and {source} does not prepare them the way the model is fed; {t.entry} "
            f"({t.file}:{t.line}), which prepares the {reference_name}, brings those samples into range applied to them "
            f"only ({len(outside)} -> 0 outside, on max|x| and typical |x|): aipc.toml [project] calibration_prep_outside = "
            f"\"{t.entry}\" applies it" + (f"; {others}" if others else ""))

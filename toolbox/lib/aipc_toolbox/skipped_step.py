"""Does the app skip a step of the project's own preprocessing? The fault class of the app's
input contract where the app feeds the raw form of its data (sensor counts, pixel codes, token
ids before a lookup the project does outside the model) while eval_data's function converts that
raw form with a step the project defines (a function, a converter object's `__call__`, a
method), and the conversion is not affine (a log, a ratio to a per-sample baseline, a clip), so
no measured scale and offset (aipc_toolbox/affine.py) can stand in for it.

`find(project, items, position)` runs eval_data's function again under a profile hook
(aipc_toolbox/builders.py ProjectProfile) and records every call of a project function that
takes one array and returns one: the candidate steps. A step is kept when its argument has the
form of what the app feeds (the same dims after the batch, or one sample of it) and its result
the form of eval_data's input; each kept step is then **applied to what the app feeds** and the
result compared with eval_data's inputs (the same samples, app_eval_data's contract): a step
explains the gap only when the converted feed holds eval_data's values (affine.fit finds the
identity). Nothing is assumed from names: the measurement decides.

A step must be reachable from the app's code without the eval_data call around it: a
module-level function (`pkg.mod:func`), a static or class method (`pkg.mod:Class.method`), or a
method of an object that is either a module-level global (`hooks:CONVERT`) or made by its class
with no arguments (`pkg.mod:Class()`, `pkg.mod:Class().method`). Each such reference is
measured; a step that is reachable in no such way is not offered (the function that builds the
input must then be rewritten). `resolve(reference)` turns a reference back into the callable;
fix_input_feed's decorator (toolbox/fixes/input_feed.py) does the same inside the project.
"""
import importlib
import inspect
import os
import sys
from dataclasses import dataclass

import numpy as np

from . import affine
from .builders import ProjectProfile, holds_array

MAX_CALLS = 20_000  # calls of project functions recorded at most while eval_data runs
MAX_TRIED = 12  # candidate steps applied to the app's feed at most, per input


@dataclass(frozen=True)
class Step:
    """A conversion eval_data's function applies: `reference` (how the app can reach it, see the
    module doc), `function` (qualified name), `file`:`line` (its def, relative to the project),
    `called_at` (file:line of the call on eval_data's path), `takes` ("numpy" or "torch": what it
    was given), `each` (True when it was given one sample, without the batch dim, so it is
    applied sample by sample), `dtype` (the dtype name eval_data's input has: the converted feed
    is cast to it) and `residual` (of the converted feed against eval_data, a fraction of its
    spread)."""

    reference: str
    function: str
    file: str
    line: int
    called_at: str
    takes: str
    each: bool
    dtype: str
    residual: float = 0.0

    def describe(self):
        return (f"{self.function}() ({self.file}:{self.line}, called at {self.called_at}): converted by it, the feed "
                f"holds eval_data's values ({100 * self.residual:.2f}% residual); the app skips that step: convert with "
                f"{self.reference}")


@dataclass
class _Call:
    code: object
    module: str
    first: object  # the bound object (self / cls), when the function has one
    called_at: str
    takes: str
    arg_shape: tuple
    ret_shape: tuple = None


def _kind(x):
    return "torch" if hasattr(x, "detach") else "numpy"


class StepTrace(ProjectProfile):
    """Every call of a project function that takes exactly one array argument (besides self or
    cls) and returns an array: _Call records, innermost first."""

    def __init__(self, root):
        super().__init__(root)
        self._open = {}
        self.calls = []

    def _where(self, frame):
        caller = frame.f_back
        if caller is None or not self._in_project(caller.f_code.co_filename):
            return "?"
        return f"{os.path.relpath(os.path.realpath(caller.f_code.co_filename), self.root)}:{caller.f_lineno}"

    def _project_event(self, frame, event, arg):
        code = frame.f_code
        if event == "call":
            if len(self.calls) + len(self._open) >= MAX_CALLS:
                return
            names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            values = [frame.f_locals.get(n) for n in names]
            arrays = [v for v in values if holds_array(v)]
            if len(arrays) != 1:
                return
            first = values[0] if names and names[0] in ("self", "cls") else None
            self._open[id(frame)] = _Call(code, frame.f_globals.get("__name__", ""), first, self._where(frame),
                                          _kind(arrays[0]), tuple(int(d) for d in arrays[0].shape))
        else:
            call = self._open.pop(id(frame), None)
            if call is not None and holds_array(arg):
                call.ret_shape = tuple(int(d) for d in arg.shape)
                self.calls.append(call)


def _project_modules(root):
    real = os.path.realpath(root) + os.sep
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and os.path.realpath(file).startswith(real) and os.sep + "site-packages" + os.sep not in file:
            yield name, module


def references(call, root):
    """The ways the app can reach the function `call` ran, best first (see the module doc);
    [] when there is none (a nested function, a lambda, an object made with arguments that no
    module holds)."""
    code = call.code
    qualname = getattr(code, "co_qualname", code.co_name)
    module = sys.modules.get(call.module)
    if module is None or "<locals>" in qualname or call.module == "__main__":
        return []
    parts = qualname.split(".")
    if len(parts) == 1:
        fn = getattr(module, parts[0], None)
        return [f"{call.module}:{qualname}"] if getattr(fn, "__code__", None) is code else []
    owner = module
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
    if not isinstance(owner, type):
        return []
    try:
        attr = inspect.getattr_static(owner, parts[-1])
    except AttributeError:
        return []
    if isinstance(attr, (staticmethod, classmethod)):
        return [f"{call.module}:{qualname}"]
    if call.first is None or not isinstance(call.first, owner):
        return []
    method = "" if parts[-1] == "__call__" else f".{parts[-1]}"
    found = []
    try:
        inspect.signature(owner).bind()
        found.append(f"{call.module}:{'.'.join(parts[:-1])}(){method}")
    except (TypeError, ValueError):
        pass
    for name, held in _project_modules(root):
        for key, value in list(vars(held).items()):
            if value is call.first and not key.startswith("__"):
                found.append(f"{name}:{key}{method}")
    return found


def resolve(reference):
    """The callable a reference names: `module:attr.attr`, where a part ending in `()` is called
    with no arguments (a class made anew). Raises ValueError with the reason."""
    module_name, sep, path = reference.partition(":")
    if not sep or not module_name or not path:
        raise ValueError(f"{reference!r} is not module:name (e.g. mypkg.prep:Normaliser() or pkg.prep:normalise)")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"module {module_name} does not import ({e})") from None
    for part in path.split("."):
        make = part.endswith("()")
        name = part[:-2] if make else part
        if not name.isidentifier():
            raise ValueError(f"{reference!r}: {part!r} is not a name")
        if not hasattr(obj, name):
            raise ValueError(f"{reference!r}: {getattr(obj, '__name__', type(obj).__name__)} has no {name}")
        obj = getattr(obj, name)
        if make:
            try:
                obj = obj()
            except Exception as e:  # noqa: BLE001 -- the project's constructor, any failure is the answer
                raise ValueError(f"{reference!r}: {name}() fails ({type(e).__name__}: {e})") from None
    if not callable(obj):
        raise ValueError(f"{reference!r} is not callable")
    return obj


def convert(fn, x, takes, each, dtype):
    """`fn` applied to one input array `x` as the app feeds it (a tensor or a numpy array): given
    what it took on eval_data's path (numpy or torch), sample by sample when `each`; the result
    as `x`'s kind, in `dtype`, contiguous. fix_input_feed's decorator does the same in the project."""
    import torch

    given = x
    if takes == "numpy" and hasattr(x, "detach"):
        given = x.detach().cpu().numpy()
    elif takes == "torch" and not hasattr(x, "detach"):
        given = torch.from_numpy(np.ascontiguousarray(x))
    if each:
        out = [fn(given[i]) for i in range(given.shape[0])]
        out = torch.stack([torch.as_tensor(o) for o in out]) if takes == "torch" else np.stack([np.asarray(o) for o in out])
    else:
        out = fn(given)
    if hasattr(x, "detach"):
        return torch.as_tensor(affine.to_numpy(out)).to(getattr(torch, dtype)).contiguous()
    return np.ascontiguousarray(affine.to_numpy(out), dtype=dtype)


def _dtype_name(x):
    return str(x.dtype).replace("torch.", "")


def _fits(call, app_tail, ref_tail):
    """(True, each) when the call took what the app feeds (batched, or one sample) and returned
    what eval_data holds."""
    if call.arg_shape[1:] == app_tail and call.ret_shape[1:] == ref_tail:
        return True, False
    if call.arg_shape == app_tail and call.ret_shape == ref_tail:
        return True, True
    return False, False


def find(project, items, position, reference_inputs=None):
    """The steps of eval_data's path that, applied to input `position` of what the app feeds
    (`items`, app_eval_data's tuples), give eval_data's values: a list of Step, best first ([]
    when none does, or the app's tuples do not stack). `reference_inputs`: eval_data's inputs,
    when the caller has them (eval_data runs again under the trace either way)."""
    app = affine.stacked(items, position)
    if app is None:
        return []
    with StepTrace(project.root) as trace:
        inputs, _ = project.eval_data()
    ref = affine.to_numpy((reference_inputs or inputs)[position])
    app_tail, ref_tail = tuple(app.shape[1:]), tuple(ref.shape[1:])
    dtype = _dtype_name((reference_inputs or inputs)[position])
    found, tried, seen = [], 0, set()
    # Outermost first: the step that returns eval_data's form is the last to return.
    for call in reversed(trace.calls):
        fits, each = _fits(call, app_tail, ref_tail)
        if not fits:
            continue
        for reference in references(call, project.root):
            if reference in seen or tried >= MAX_TRIED:
                continue
            seen.add(reference)
            tried += 1
            step = measure(reference, call, each, dtype, items, position, ref, project.root)
            if step is not None:
                found.append(step)
    return found


def measure(reference, call, each, dtype, items, position, ref, root):
    """The Step when `reference`, applied to the app's feed, gives `ref`'s values; else None."""
    try:
        fn = resolve(reference)
        converted = np.concatenate([affine.to_numpy(convert(fn, item[position], call.takes, each, dtype))
                                    for item in items])
    except Exception:  # noqa: BLE001 -- a step that does not take the app's feed does not explain it
        return None
    fit, _ = affine.fit(converted, ref)
    if fit is None or not fit.identity():
        return None
    code = call.code
    file = os.path.relpath(os.path.realpath(code.co_filename), os.path.realpath(root))
    return Step(reference, getattr(code, "co_qualname", code.co_name), file, code.co_firstlineno, call.called_at,
                call.takes, each, dtype, fit.residual)


def measure_reference(project, items, position, reference):
    """The Step for a reference the caller names (fix_input_feed `via`): with the trace's modes
    when eval_data's path calls it, else the first of numpy / torch, batched / sample by sample
    that gives eval_data's values; None when none does. Raises ValueError when the reference
    does not resolve."""
    fn = resolve(reference)
    for step in find(project, items, position):
        if step.reference == reference:
            return step
    inputs, _ = project.eval_data()
    ref, dtype = affine.to_numpy(inputs[position]), _dtype_name(inputs[position])
    for takes, each in (("numpy", False), ("torch", False), ("numpy", True), ("torch", True)):
        try:
            converted = np.concatenate([affine.to_numpy(convert(fn, item[position], takes, each, dtype)) for item in items])
        except Exception:  # noqa: BLE001 -- this mode does not take the feed; the next may
            continue
        fit, _ = affine.fit(converted, ref)
        if fit is not None and fit.identity():
            return Step(reference, reference.partition(":")[2], "?", 0, "?", takes, each, dtype, fit.residual)
    return None

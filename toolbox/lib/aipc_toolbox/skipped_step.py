"""Does the app skip a step of the project's own preprocessing? The fault class of the app's
input contract where the app feeds the raw form of its data (sensor counts, pixel codes, token
ids before a lookup the project does outside the model) while eval_data's function converts that
raw form with a step the project defines (a function, a converter object's `__call__`, a
method), and the conversion is not affine (a log, a ratio to a per-sample baseline, a clip), so
no measured scale and offset (aipc_toolbox/affine.py) can stand in for it.

`find(project, items, position)` runs eval_data's function again under the profile hook that
finds the calibration path's missing steps (aipc_toolbox/calib_prep.py TransformTrace): every
project function on that path that takes an array and returns a floating-point one, named the
way code outside that call can reach it — a module-level function (`pkg.mod:func`), a static or
class method (`pkg.mod:Class.method`), a method of an object a module holds (`hooks:CONVERT`) or
of one its class makes with no arguments (`pkg.mod:Class()`). A step reachable in none of these
ways (a nested function) is not a candidate: the function that builds the input must then be
rewritten. Each candidate is **applied to what the app feeds** — as a numpy array or a tensor,
the batch at once or sample by sample, the first that runs — and the result compared with
eval_data's inputs (the same samples, app_eval_data's contract): a step explains the gap only
when the converted feed holds eval_data's values (affine.fit finds the identity). Nothing is
assumed from names: the measurement decides. calib_prep.resolve turns a reference back into the
callable; fix_input_feed's decorator (toolbox/fixes/input_feed.py) does the same in the project.

`find_substitutes` covers the app's own copy of such a step that diverged from it (a vendored
front end without its last transform): applied to the app's result the step explains nothing,
but given the arguments of the app's function whose results are the feed, in its place, it
makes eval_data's values. The app path's calls are recorded with their arguments and results
(CallValues, within MAX_KEPT_BYTES) and measured the same way.
"""
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from . import affine, calib_prep, emit
from .builders import ProjectProfile, holds_array

MAX_TRIED = 12  # candidate steps applied to the app's feed at most, per input
SEARCH_BUDGET_S = 60.0  # wall time the candidates may take, per input (compare's own limit is 300 s)
MODES = (("numpy", False), ("torch", False), ("numpy", True), ("torch", True))  # (takes, each), in the order tried


@dataclass(frozen=True)
class Step:
    """A conversion eval_data's path applies: `reference` (how the app can reach it, see the
    module doc), `function` (qualified name), `file`:`line` (its def, relative to the project),
    `called_at` (file:line of its call on eval_data's path), `takes` ("numpy" or "torch": what it
    is given), `each` (True when it is given one sample at a time, without the batch dim),
    `dtype` (the dtype name of eval_data's input: the converted feed is cast to it) and
    `residual` (of the converted feed against eval_data, a fraction of its spread)."""

    reference: str
    function: str
    file: str
    line: int
    called_at: str
    takes: str
    each: bool
    dtype: str
    residual: float = 0.0
    arguments: tuple = ()  # Argument: what eval_data's path gives its other parameters
    # ((parameter, path), ...): parameters taken from the replaced app function's own arguments
    # by name (`frame.absorbance`: a field of a record it is given), find_substitutes' by-name form
    sources: tuple = ()

    def describe(self):
        return (f"{self.function}() ({self.file}:{self.line}, called at {self.called_at}): converted by it, the feed "
                f"holds eval_data's values ({100 * self.residual:.2f}% residual); the app skips that step: convert with "
                f"{self.reference}{self.given()}")

    def given(self):
        """" (given mean=prep:MEAN, eps=0.001, as eval_data's path calls it)", or "" without arguments."""
        if not self.arguments:
            return ""
        return f" (given {', '.join(a.describe() for a in self.arguments)}, as eval_data's path calls it)"

    def taken(self):
        """The app function's arguments the step takes in the by-name form: "frame.wavenumbers,
        frame.absorbance"."""
        return ", ".join(f"{path} as {name}" if path.rpartition(".")[2] != name else path for name, path in self.sources)

    def callable(self):
        """The step, its other parameters bound as eval_data's path gives them."""
        return bound(calib_prep.resolve(self.reference), self.arguments)


@dataclass(frozen=True)
class Argument:
    """A parameter of a step besides its array, as eval_data's path gives it: `kind` "literal"
    (`value` a number, string, bool, None or a short tuple of them) or "ref" (`value` is how code
    outside that call reaches the object given: "module:NAME" or "module:NAME.attribute")."""

    name: str
    kind: str
    value: object

    def describe(self):
        return f"{self.name}={self.value}" if self.kind == "ref" else f"{self.name}={self.value!r}"


MAX_LITERAL_ITEMS = 32  # a tuple or list given to a step is written as a literal up to this length


def _literal(value):
    """`value` as a Python literal a decorator can hold (numpy scalars as Python numbers), or
    None when it is not one."""
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return (value,) if not isinstance(value, str) or len(value) <= 200 else None
    if isinstance(value, float):
        return (value,) if np.isfinite(value) else None
    if isinstance(value, (tuple, list)) and len(value) <= MAX_LITERAL_ITEMS:
        items = [_literal(v) for v in value]
        return None if any(i is None for i in items) else (type(value)(i[0] for i in items),)
    return None


def _project_modules(root):
    root = os.path.realpath(root) + os.sep
    for name, module in sorted(sys.modules.items()):
        file = getattr(module, "__file__", None)
        real = os.path.realpath(file) if file else ""
        if real.startswith(root) and os.sep + "site-packages" + os.sep not in real:
            yield name, module


def _reference(value, root, first=None):
    """"module:NAME" of a project module that holds `value` by a public name, or
    "module:NAME.attribute" of an object such a module holds (module `first`, the step's own,
    looked at before the others); None when none does."""
    held = []
    modules = sorted(_project_modules(root), key=lambda m: m[0] != first)
    for module_name, module in modules:
        for name, obj in list(vars(module).items()):
            if name.startswith("_"):
                continue
            if obj is value:
                return f"{module_name}:{name}"
            if not isinstance(obj, type(sys)) and hasattr(obj, "__dict__") and not callable(obj):
                held.append((module_name, name, obj))
    # An object held where its class is defined first (settings:SETTINGS over a module importing it).
    for module_name, name, obj in sorted(held, key=lambda h: type(h[2]).__module__ != h[0]):
        for attribute, inner in list(vars(obj).items()):
            if inner is value and not attribute.startswith("_"):
                return f"{module_name}:{name}.{attribute}"
    return None


def bind_arguments(fn, arguments, root):
    """The Arguments of a step `fn` (resolved) for the other parameters its call on eval_data's
    path was given (calib_prep Transform.arguments): those equal to the parameter's default are
    left out; None when one can be given from outside that call neither as a literal nor as an
    object a project module holds (the step is then not offered)."""
    parameters = _parameters(fn)
    bound_ = []
    for name, value in arguments:
        argument = _bind_one(fn, name, value, parameters, root)
        if argument is None:
            return None
        if argument is not DEFAULT:
            bound_.append(argument)
    return tuple(bound_)


DEFAULT = object()  # _bind_one: the value is the parameter's default, nothing to give


def _parameters(fn):
    import inspect

    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def _bind_one(fn, name, value, parameters, root):
    """An Argument giving `value` to parameter `name` of `fn` from outside eval_data's call,
    DEFAULT when it is the parameter's default, None when it cannot be given."""
    import inspect

    default = getattr(parameters.get(name), "default", inspect.Parameter.empty)
    if default is not inspect.Parameter.empty and (default is value or _same_literal(default, value)):
        return DEFAULT
    literal = _literal(value)
    if literal is not None and not hasattr(value, "shape"):
        return Argument(name, "literal", literal[0])
    reference = _reference(value, root, getattr(fn, "__module__", None))
    return None if reference is None else Argument(name, "ref", reference)


def _same_literal(a, b):
    la, lb = _literal(a), _literal(b)
    return la is not None and lb is not None and la == lb


def bound(fn, arguments):
    """`fn` with its Arguments given (references resolved), or `fn` itself without any."""
    if not arguments:
        return fn
    import functools

    given = {a.name: calib_prep.resolve_value(a.value) if a.kind == "ref" else a.value for a in arguments}
    return functools.partial(fn, **given)


def _candidate(transform, root):
    """(the step's callable with its arguments bound, the Arguments) for a Transform of eval_data's
    path, or None when it does not resolve or an argument cannot be given from outside."""
    try:
        fn = calib_prep.resolve(transform.entry)
        arguments = bind_arguments(fn, transform.arguments, root)
        return None if arguments is None else (bound(fn, arguments), arguments)
    except ValueError:
        return None


def convert(fn, x, takes, each, dtype):
    """`fn` applied to one input array `x` as the app feeds it (a tensor or a numpy array), given a
    numpy array or a tensor (`takes`), sample by sample when `each`; the result as `x`'s kind, in
    `dtype`, contiguous. fix_input_feed's decorator does the same in the project."""
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


def _first_mode(make, ref):
    """(takes, each, residual) of the first mode (MODES) in which `make(takes, each)` — the feed
    a step makes in that mode — holds `ref`'s values; None when none does."""
    for takes, each in MODES:
        try:
            converted = make(takes, each)
        except Exception:  # noqa: BLE001 -- the project's step: any failure means it does not take this form
            continue
        fit, _ = affine.fit(converted, ref)
        if fit is not None and fit.identity():
            return takes, each, fit.residual
    return None


def _measured(fn, items, position, ref, dtype):
    """_first_mode of `fn` applied to input `position` of every item."""
    return _first_mode(lambda takes, each: np.concatenate(
        [affine.to_numpy(convert(fn, item[position], takes, each, dtype)) for item in items]), ref)


def eval_path(project):
    """(eval_data's inputs, the steps its path applies: calib_prep Transforms), traced once and
    shared by the searches of every input."""
    (inputs, _), transforms = calib_prep.traced(project, project.eval_data)
    return inputs, transforms


def find(project, items, position, reference_inputs=None, traced_eval=None):
    """The steps of eval_data's path that, applied to input `position` of what the app feeds
    (`items`, app_eval_data's tuples), give eval_data's values: a list of Step, outermost first
    ([] when none does, or the app's tuples do not stack). `reference_inputs`: eval_data's
    inputs, when the caller has them (eval_data runs again under the trace either way)."""
    if affine.stacked(items, position) is None:
        return []
    inputs, transforms = traced_eval or eval_path(project)
    inputs = reference_inputs or inputs
    ref, dtype = affine.to_numpy(inputs[position]), _dtype_name(inputs[position])
    found, deadline = [], time.monotonic() + SEARCH_BUDGET_S
    # Outermost first: the step that returns eval_data's form is the last to return.
    for transform in list(reversed(transforms))[:MAX_TRIED]:
        if time.monotonic() > deadline:
            emit.note(f"app path: the search for a step the app skips stopped after {SEARCH_BUDGET_S:.0f} s "
                      f"({len(found)} found); the steps left were not tried")
            break
        candidate = _candidate(transform, project.root)
        if candidate is None:
            continue
        fn, arguments = candidate
        measured = _measured(fn, items, position, ref, dtype)
        if measured is not None:
            takes, each, residual = measured
            found.append(Step(transform.entry, transform.function, transform.file, transform.line, transform.called_at,
                              takes, each, dtype, residual, arguments))
    return found


def measure_reference(project, items, position, reference):
    """The Step for a reference the caller names (fix_input_feed `via`), or None when it does
    not turn the app's feed into eval_data's values. Raises ValueError when it does not resolve."""
    fn = calib_prep.resolve(reference)
    for step in find(project, items, position):
        if step.reference == reference:
            return step
    inputs, _ = project.eval_data()
    dtype = _dtype_name(inputs[position])
    measured = _measured(fn, items, position, affine.to_numpy(inputs[position]), dtype)
    if measured is None:
        return None
    takes, each, residual = measured
    return Step(reference, reference.partition(":")[2], "?", 0, "?", takes, each, dtype, residual)


# ---- The app's own copy of a step that diverged from eval_data's ----------------------------

MAX_KEPT_BYTES = 256 * 2**20  # arguments and results kept while the app's path runs, at most


@dataclass(frozen=True)
class Substitute:
    """A function of the app's path whose results make the app's feed, and the step of eval_data's
    path that, given the same arguments, makes eval_data's values: `file`:`line` `function` (the
    app's function, its qualified name) and `step` (a Step, how to reach it)."""

    file: str
    line: int
    function: str
    step: Step

    def describe(self):
        s = self.step
        given = f"its arguments {s.taken()}" if s.sources else "its argument"
        return (f"{self.file}:{self.line} {self.function}() from {given}, where eval_data's path makes it with "
                f"{s.function}() ({s.file}:{s.line}, called at {s.called_at}): in its place, the feed holds eval_data's "
                f"values ({100 * s.residual:.2f}% residual); the app's function diverged from that step: convert with "
                f"{s.reference} instead{s.given()}")


class CallValues(ProjectProfile):
    """Every call of a project function that returns a floating-point array:
    {code: [(Call, result), ...]} in return order, within MAX_KEPT_BYTES (what the arguments
    hold counted too, one attribute deep)."""

    def __init__(self, root):
        super().__init__(root)
        self.calls = {}
        self._pending = {}
        self._bytes = 0

    def _project_event(self, frame, event, arg):
        code = frame.f_code
        if event == "call":
            names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            receiver = 1 if names and names[0] in ("self", "cls") else 0
            array = next((frame.f_locals.get(n) for n in names[receiver: receiver + 1]
                          if holds_array(frame.f_locals.get(n))), None)
            if array is None and receiver == 0 and len(names) > 1 and holds_array(frame.f_locals.get(names[1])):
                array = frame.f_locals.get(names[1])  # the second of a method whose receiver has another name
            self._pending[id(frame)] = Call(array, {n: frame.f_locals.get(n) for n in names[receiver:]})
            return
        call = self._pending.pop(id(frame), None)
        if call is None or not holds_array(arg) or getattr(arg.dtype, "kind", "f") not in "fc":
            return
        if getattr(arg, "is_floating_point", lambda: True)() is False:
            return
        size = _nbytes(arg) + sum(_held_bytes(v) for v in call.arguments.values())
        if self._bytes + size > MAX_KEPT_BYTES:
            return
        self._bytes += size
        self.calls.setdefault(code, []).append((call, arg))


@dataclass(frozen=True)
class Call:
    """A recorded call: `array` (its first array argument, after a method's receiver, or None)
    and `arguments` ({name: value} of its named parameters but the receiver)."""

    array: object
    arguments: dict

    def value(self, name):
        """What the call gives a parameter `name` of another function: its own argument of that
        name, else the attribute of that name of one of its arguments (a record's field:
        `frame.absorbance`), as (path, value); None when it has neither."""
        if name in self.arguments:
            return name, self.arguments[name]
        for holder, value in self.arguments.items():
            if not isinstance(value, (int, float, str, bytes, bool, type(None))) and not holds_array(value):
                inner = getattr(value, name, None)
                if inner is not None and not callable(inner):
                    return f"{holder}.{name}", inner
        return None


def _nbytes(x):
    return int(np.prod(x.shape)) * x.dtype.itemsize if holds_array(x) else 0


def _held_bytes(value):
    """The bytes of the arrays `value` is or holds as attributes (one level)."""
    if holds_array(value):
        return _nbytes(value)
    return sum(_nbytes(v) for v in getattr(value, "__dict__", {}).values())


def _flat(values):
    return np.concatenate([affine.to_numpy(v).reshape(-1) for v in values]) if values else np.zeros(0)


def find_substitutes(project, position, app_call, reference_inputs=None, traced_eval=None):
    """The functions of the app's path (run by `app_call()`, app_eval_data) whose results, in
    call order, are exactly input `position` of what the app feeds, each with the step of
    eval_data's path that, given the same arguments, makes eval_data's values: a list of
    Substitute, innermost first ([] when there is none)."""
    with CallValues(project.root) as trace:
        d = app_call()
    items = project._run_items(d[0], "app_eval_data")
    app = affine.stacked(items, position)
    if app is None:
        return []
    inputs, transforms = traced_eval or eval_path(project)
    inputs = reference_inputs or inputs
    ref, dtype = affine.to_numpy(inputs[position]), _dtype_name(inputs[position])
    if ref.size != app.size:
        return []
    feed = app.reshape(-1).astype(np.float64)
    found, deadline = [], time.monotonic() + SEARCH_BUDGET_S
    root = os.path.realpath(project.root)
    for code, calls in trace.calls.items():
        made = _flat([r for _, r in calls])
        if made.size != feed.size or not np.allclose(made.astype(np.float64), feed, rtol=1e-6, atol=1e-6):
            continue  # its results are not the feed element for element (another input, an inner step)
        for transform in list(reversed(transforms))[:MAX_TRIED]:
            if time.monotonic() > deadline:
                return found
            candidate = _candidate(transform, project.root) or (None, ())
            fn, arguments = candidate
            arrays = all(c.array is not None for c, _ in calls)
            measured = _substituted(fn, calls, app.shape, ref, dtype) if fn is not None and arrays else None
            sources = ()
            if measured is None:
                # The step's parameters from the app function's own arguments, by name.
                by_name = _by_name(transform, calls, project.root)
                if by_name is None:
                    continue
                fn, arguments, sources = by_name
                measured = _named_substituted(fn, sources, calls, app.shape, ref, dtype)
            if measured is not None:
                takes, each, residual = measured
                step = Step(transform.entry, transform.function, transform.file, transform.line, transform.called_at,
                            takes, each, dtype, residual, arguments, sources)
                found.append(Substitute(os.path.relpath(os.path.realpath(code.co_filename), root), code.co_firstlineno,
                                        getattr(code, "co_qualname", code.co_name), step))
                break
    return found


def _by_name(transform, calls, root):
    """(the step's function with the arguments eval_data's path gives it bound, those Arguments,
    the sources) when the step's parameters — the array and those eval_data's path gives — can
    be taken by name from the app function's arguments (calls' Call.value), the others given
    from outside (a literal, an object a module holds) or left at their default; None when one
    cannot, or none is taken by name."""
    import inspect

    try:
        fn = calib_prep.resolve(transform.entry)
    except ValueError:
        return None
    parameters = _parameters(fn)
    given = dict(transform.arguments)
    wanted = [n for n, p in parameters.items()
              if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and (p.default is inspect.Parameter.empty or n in given)]
    first = calls[0][0]
    sources, arguments = [], []
    for name in wanted:
        taken = first.value(name)
        if taken is not None and all(c.value(name) is not None for c, _ in calls):
            sources.append((name, taken[0]))
            continue
        if name not in given:
            return None
        argument = _bind_one(fn, name, given[name], parameters, root)
        if argument is None:
            return None
        if argument is not DEFAULT:
            arguments.append(argument)
    if not sources:
        return None
    return bound(fn, tuple(arguments)), tuple(arguments), tuple(sources)


def _named_substituted(fn, sources, calls, shape, ref, dtype):
    """(takes, each, residual) when `fn`, given its `sources` from each call's arguments in
    place of the app's function, makes `ref`'s values (each result the size of the one it
    replaces); None otherwise."""
    try:
        made = []
        for call, result in calls:
            out = affine.to_numpy(fn(**{name: call.value(name)[1] for name, _ in sources}))
            if out.size != int(np.prod(result.shape)):
                return None
            made.append(out.astype(dtype))
        converted = _flat(made).reshape(shape)
    except Exception:  # noqa: BLE001 -- the project's step: any failure means it does not take these
        return None
    fit, _ = affine.fit(converted, ref)
    return ("numpy", False, fit.residual) if fit is not None and fit.identity() else None


def _substituted(fn, calls, shape, ref, dtype):
    """_first_mode of `fn` given each call's argument in place of the app's function (each
    result the size of the one it replaces)."""
    def make(takes, each):
        made = []
        for call, result in calls:
            out = affine.to_numpy(convert(fn, call.array, takes, each, dtype))
            if out.size != int(np.prod(result.shape)):
                raise ValueError("another size")
            made.append(out)
        return _flat(made).reshape(shape)

    return _first_mode(make, ref)

"""The app's own copy of a preprocessing step, diverged from the step eval_data's path applies (a
vendored front end without its last transform, an older copy of a conversion): applied to the
app's result the project's step explains nothing, but given the arguments of the app's function
whose results are the feed, in its place, it makes eval_data's values.

`find_substitutes` records the app path's calls with their arguments and results (CallValues,
within MAX_KEPT_BYTES), keeps the functions whose results, in call order, are the feed element
for element, and gives each step of eval_data's path (aipc_toolbox/skipped_step.py eval_path) in
turn the function's array argument, or — when the function takes a record — its parameters from
the function's arguments: by name (`packet.offset` for `offset`), else the argument or
record field that holds what eval_data's path gave that parameter for the same sample. The
measurement decides, as for a skipped step: the substituted feed must hold eval_data's values.
fix_input_feed `via` + `instead` (`via_from` for the record form) writes the result.
"""
import os
import time
from dataclasses import dataclass

import numpy as np

from . import affine, calib_prep
from .builders import ProjectProfile, holds_array
from .skipped_step import MAX_TRIED, SEARCH_BUDGET_S, Step, bound_step, convert, dtype_name, eval_path, first_mode
from .step_arguments import DEFAULT, bind_one, parameters_of, bound

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
        `packet.offset`), as (path, value); None when it has neither."""
        if name in self.arguments:
            return name, self.arguments[name]
        for holder, value in self.arguments.items():
            if _record(value):
                inner = getattr(value, name, None)
                if inner is not None and not callable(inner):
                    return f"{holder}.{name}", inner
        return None

    def at(self, path):
        """The value at `path` ("packet" or "packet.offset") of this call's arguments, or None."""
        holder, _, field = path.partition(".")
        value = self.arguments.get(holder)
        return getattr(value, field, None) if field and value is not None else value

    def holding(self, array):
        """The path of this call's argument, or of a record field of one, that holds the same values
        as `array` (what eval_data's path gave a step's parameter, for the same sample: app_eval_data
        holds eval_data's samples in their raw form, in order); None when none does."""
        want = affine.to_numpy(array)
        places = []
        for holder, value in self.arguments.items():
            places.append((holder, value))
            if _record(value):
                places.extend((f"{holder}.{k}", v) for k, v in vars(value).items() if not k.startswith("_"))
        for path, value in places:
            if holds_array(value) and tuple(value.shape) == tuple(want.shape):
                got = affine.to_numpy(value)
                if got.dtype.kind in "biuf" and np.array_equal(got.astype(np.float64), want.astype(np.float64)):
                    return path
        return None


def _record(value):
    """Whether `value` is an object whose fields a step's parameters may be taken from (not a number,
    string or array)."""
    return (not isinstance(value, (int, float, str, bytes, bool, type(None), list, tuple, dict))
            and not holds_array(value) and hasattr(value, "__dict__"))


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
    ref, dtype = affine.to_numpy(inputs[position]), dtype_name(inputs[position])
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
            fn, arguments = bound_step(transform, project.root) or (None, ())
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
    parameters = parameters_of(fn)
    given = dict(transform.arguments)
    wanted = [n for n, p in parameters.items()
              if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and (p.default is inspect.Parameter.empty or n in given)]
    first = calls[0][0]
    given_first = dict(transform.array) | given  # what eval_data's path gave each parameter, first call
    sources, arguments = [], []
    for name in wanted:
        taken = first.value(name)
        paths = [taken[0]] if taken is not None else []
        if holds_array(given_first.get(name)):
            # Another name: the argument, or record field, that holds what eval_data's path gave it.
            paths.append(first.holding(given_first[name]))
        path = next((p for p in paths if p is not None and all(c.at(p) is not None for c, _ in calls)), None)
        if path is not None:
            sources.append((name, path))
            continue
        if name not in given:
            return None
        argument = bind_one(fn, name, given[name], parameters, root)
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
            out = affine.to_numpy(fn(**{name: call.at(path) for name, path in sources}))
            if out.size != int(np.prod(result.shape)):
                return None
            made.append(out.astype(dtype))
        converted = _flat(made).reshape(shape)
    except Exception:  # noqa: BLE001 -- the project's step: any failure means it does not take these
        return None
    fit, _ = affine.fit(converted, ref)
    return ("numpy", False, fit.residual) if fit is not None and fit.identity() else None


def _substituted(fn, calls, shape, ref, dtype):
    """first_mode of `fn` given each call's argument in place of the app's function (each
    result the size of the one it replaces)."""
    def make(takes, each):
        made = []
        for call, result in calls:
            out = affine.to_numpy(convert(fn, call.array, takes, each, dtype))
            if out.size != int(np.prod(result.shape)):
                raise ValueError("another size")
            made.append(out)
        return _flat(made).reshape(shape)

    return first_mode(make, ref)

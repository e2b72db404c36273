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

The app's own copy of such a step, which diverged from it, is aipc_toolbox/diverged_step.py;
the step's other parameters, as eval_data's path gives them, aipc_toolbox/step_arguments.py.
"""
import time
from dataclasses import dataclass

import numpy as np

from . import affine, calib_prep, emit
from .step_arguments import bind_arguments, bound

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
    # by name (`packet.offset`: a field of a record it is given), find_substitutes' by-name form
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
        """The app function's arguments the step takes in the by-name form: "packet.sent,
        packet.offset"."""
        return ", ".join(f"{path} as {name}" if path.rpartition(".")[2] != name else path for name, path in self.sources)


def bound_step(transform, root):
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


def dtype_name(x):
    return str(x.dtype).replace("torch.", "")


def first_mode(make, ref):
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
    """first_mode of `fn` applied to input `position` of every item."""
    return first_mode(lambda takes, each: np.concatenate(
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
    ref, dtype = affine.to_numpy(inputs[position]), dtype_name(inputs[position])
    found, deadline = [], time.monotonic() + SEARCH_BUDGET_S
    # Outermost first: the step that returns eval_data's form is the last to return.
    for transform in list(reversed(transforms))[:MAX_TRIED]:
        if time.monotonic() > deadline:
            emit.note(f"app path: the search for a step the app skips stopped after {SEARCH_BUDGET_S:.0f} s "
                      f"({len(found)} found); the steps left were not tried")
            break
        found_step = bound_step(transform, project.root)
        if found_step is None:
            continue
        fn, arguments = found_step
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
    dtype = dtype_name(inputs[position])
    measured = _measured(fn, items, position, affine.to_numpy(inputs[position]), dtype)
    if measured is None:
        return None
    takes, each, residual = measured
    return Step(reference, reference.partition(":")[2], "?", 0, "?", takes, each, dtype, residual)

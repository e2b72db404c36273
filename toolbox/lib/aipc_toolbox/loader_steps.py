"""A step the eval path applies to what a data loader returns, and the calibration path skips.

calib_prep.py finds the project's own array-to-array step that prepares the reference inputs. A
step can also take what a loader returns as a whole — a recording object with its unit, a
record with its metadata — and give the array: then no array step exists to apply to the
calibration samples, and the repair belongs where the calibration path calls the loader.

Nothing here knows what a loader or a step is called or computes. Both paths (eval_data, else
example_inputs; and calibration_data) run under a profile hook over project code that records,
for every project function call, which earlier project call in the same caller returned one of
its arguments (the data flow `value = load(entry); step(value)`). A step is missing when:
- the reference path calls a loader L in a function Ce and passes what L returned to a step S
  that returns a floating-point array;
- the calibration path calls the same L (in a function Cc) and never calls S at all.
The repair is in Cc: that is where the value L returns must go through S.
"""
import os
from dataclasses import dataclass

from .builders import ProjectProfile, holds_array

MAX_CALLS = 100_000  # project calls looked at per traced entry; beyond it nothing more is recorded
MAX_KEPT = 10_000  # returned values kept (by reference, so their ids stay unique) per trace


@dataclass(frozen=True)
class Function:
    """A project function as the messages name it."""

    name: str  # module:qualname
    file: str  # relative to the project
    line: int  # of its `def`


@dataclass(frozen=True)
class MissingStep:
    loader: Function
    step: Function
    reference_caller: Function
    reference_line: int  # where the reference caller calls the loader
    calibration_caller: Function
    calibration_line: int  # where the calibration caller calls the loader


class FlowTrace(ProjectProfile):
    """Profile hook over project code: each call (callee, caller, line of the call) and the data
    flow between project calls made from the same caller."""

    def __init__(self, root):
        super().__init__(root)
        self.calls = []  # (callee Function, caller Function or None, line in the caller)
        self.flows = []  # (loader Function, step Function, caller Function, line of the loader call)
        self._returned = {}  # id(value) -> (loader Function, caller frame id, line of the call)
        self._pending = {}  # id(step frame) -> the flow, kept when the step returns an array
        self._kept = []
        self._count = 0

    def _function(self, code, frame):
        module = frame.f_globals.get("__name__", "?")
        return Function(f"{module}:{getattr(code, 'co_qualname', code.co_name)}",
                        os.path.relpath(os.path.realpath(code.co_filename), self.root), code.co_firstlineno)

    def _project_event(self, frame, event, arg):
        code = frame.f_code
        caller = frame.f_back
        # A comprehension, generator expression or lambda is part of the function that holds it.
        while caller is not None and caller.f_code.co_name.startswith("<") and caller.f_code.co_name != "<module>":
            caller = caller.f_back
        in_project_caller = caller is not None and self._in_project(caller.f_code.co_filename) \
            and caller.f_code.co_name != "<module>"
        if event == "call":
            self._count += 1
            if self._count > MAX_CALLS:
                return
            callee = self._function(code, frame)
            by = self._function(caller.f_code, caller) if in_project_caller else None
            self.calls.append((callee, by, caller.f_lineno if in_project_caller else 0))
            if not in_project_caller:
                return
            for name in code.co_varnames[:code.co_argcount]:
                seen = self._returned.get(id(frame.f_locals.get(name)))
                if seen is not None and seen[1] == id(caller) and seen[0] != callee:
                    self._pending[id(frame)] = (seen[0], callee, by, seen[2])
                    break
            return
        flow = self._pending.pop(id(frame), None)
        # A step gives the model's kind of data: a floating-point array (what a loaded record's
        # unit conversion or normalisation returns), not a tuple, a label or another record.
        if flow is not None and holds_array(arg) and getattr(arg.dtype, "kind", "f") in "fc" \
                and getattr(arg, "is_floating_point", lambda: True)() is not False:
            self.flows.append(flow)
        if self._count > MAX_CALLS or not in_project_caller or arg is None or len(self._kept) >= MAX_KEPT:
            return
        if isinstance(arg, (bool, int, float, str)):
            return
        self._kept.append(arg)
        self._returned[id(arg)] = (self._function(code, frame), id(caller), caller.f_lineno)


def traced(project, call):
    with FlowTrace(project.root) as trace:
        call()
    return trace


def missing(project, reference_name):
    """The steps the reference path (`reference_name`: "eval inputs" or "example inputs") applies
    to what a loader returns and the calibration path never calls, with where the calibration path
    calls that loader: a list of MissingStep (empty when the paths share no such loader)."""
    entry = project.eval_data if reference_name == "eval inputs" else project.example_inputs
    reference = traced(project, entry)
    calibration = traced(project, project.calibration_data)
    called = {callee for callee, _, _ in calibration.calls}
    found = []
    for loader, step, caller, line in reference.flows:
        if step in called or caller is None:
            continue
        for callee, by, at in calibration.calls:
            if callee == loader and by is not None and by != caller:
                item = MissingStep(loader, step, caller, line, by, at)
                if item not in found:
                    found.append(item)
                break
    return found


def line(found, reference_name):
    """What the calibration-scale line adds for the first missing step (and how many more)."""
    m = found[0]
    more = f" ({len(found) - 1} more such step(s))" if len(found) > 1 else ""
    return (f"the {reference_name} path calls {m.loader.name} in {m.reference_caller.file}:{m.reference_line} "
            f"{m.reference_caller.name.split(':', 1)[1]}() and passes what it returns to {m.step.name} "
            f"({m.step.file}:{m.step.line}); the calibration path calls {m.loader.name} in "
            f"{m.calibration_caller.file}:{m.calibration_line} {m.calibration_caller.name.split(':', 1)[1]}() and never "
            f"calls {m.step.name}: the step the calibration loader skips{more}")

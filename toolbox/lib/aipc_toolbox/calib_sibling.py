"""Does the calibration path read its data through the wrong one of two sibling accessors? A
fault class of calibration data where a data class offers its samples in two forms — the stored
container and the values (`words()` with padding bits and `values()` without them, `raw()` and
`calibrated()`, `read_adc()` and `read_volts()`) — and eval_data's path reads the one the model
is fed while calibration_data calls the other. No step of the project turns one into the other
(calib_prep.py finds nothing to apply) and no loader step is skipped (loader_steps.py): the
repair is the call itself.

Nothing here knows what the accessors are called. calibration_data runs under loader_steps'
FlowTrace; for each method of a project class it calls, the class's other public methods with
the same parameters are candidates. Each in turn stands in for the method (the class attribute
swapped, restored after) while calibration_data runs again, and the set it returns is audited
against the reference samples with the same test that found the fault (calib.audit): a sibling
is named only when the set then lies in the reference's range. Bounded by MAX_SWAPS and
BUDGET_S. fix_call_site (toolbox/fixes/call_site.py) writes the call.
"""
import inspect
import os
import sys
import time
from dataclasses import dataclass

MAX_SWAPS = 12  # sibling methods tried in place of the calibration path's, at most
BUDGET_S = 60.0  # wall time calibration_data may take again, in all


@dataclass(frozen=True)
class Sibling:
    """`owner`.`method` (its def at `method_file`:`method_line`), called by the calibration path at
    `file`:`line` in `caller`, and its sibling `sibling` (`sibling_file`:`sibling_line`) that, called
    there instead, brings the set into range (`outside_before` -> `outside_after` samples outside)."""

    owner: str
    method: str
    method_file: str
    method_line: int
    sibling: str
    sibling_file: str
    sibling_line: int
    file: str
    line: int
    caller: str
    outside_before: int
    outside_after: int

    def describe(self, reference_name):
        return (f"the calibration path calls {self.owner}.{self.method}() ({self.method_file}:{self.method_line}) in "
                f"{self.file}:{self.line} {self.caller}(); its sibling {self.owner}.{self.sibling}() "
                f"({self.sibling_file}:{self.sibling_line}), called there instead, brings the set into the "
                f"{reference_name}' range ({self.outside_before} -> {self.outside_after} outside)")


def _owner_class(name):
    """(the class, its qualified name, the method name) of a traced "module:Class.method", or None."""
    from . import calib_prep

    module_name, _, qualname = name.partition(":")
    owner, _, method = qualname.rpartition(".")
    if not owner or "<" in owner or module_name not in sys.modules:
        return None
    try:
        cls = calib_prep.resolve_value(f"{module_name}:{owner}")
    except ValueError:
        return None
    return (cls, owner, method) if isinstance(cls, type) else None


def _parameter_names(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()]


def siblings(cls, method):
    """The public plain methods of `cls` (its own, not inherited) other than `method` that take the
    same parameters."""
    own = vars(cls)
    fn = own.get(method)
    if not inspect.isfunction(fn):
        return []
    want = _parameter_names(fn)
    return [name for name, other in own.items()
            if name != method and not name.startswith("_") and inspect.isfunction(other) and _parameter_names(other) == want]


def find(project, reference, reference_name, outside_before):
    """The Siblings of the methods the calibration path calls that, called instead, bring the
    calibration set into the reference samples' range; [] when none does."""
    from . import calib, loader_steps

    trace = loader_steps.traced(project, project.calibration_data)
    found, tried, deadline = [], 0, time.monotonic() + BUDGET_S
    seen = set()
    for callee, caller, line in trace.calls:
        if caller is None or (callee, caller, line) in seen:
            continue
        seen.add((callee, caller, line))
        owned = _owner_class(callee.name)
        if owned is None:
            continue
        cls, owner, method = owned
        for name in siblings(cls, method):
            if tried >= MAX_SWAPS or time.monotonic() > deadline:
                return found
            tried += 1
            original, stand_in = vars(cls)[method], vars(cls)[name]
            setattr(cls, method, stand_in)
            try:
                samples = project.calibration_data()
            except Exception:  # noqa: BLE001 -- the project's data code: any failure means "not this one"
                continue
            finally:
                setattr(cls, method, original)
            result = calib.audit(samples, reference, reference_name, quiet=True)
            if result.set_off or len(result.outside) >= outside_before:
                continue
            code = stand_in.__code__
            found.append(Sibling(owner, method, callee.file, callee.line, name,
                                 os.path.relpath(os.path.realpath(code.co_filename), project.root), code.co_firstlineno, caller.file, line,
                                 caller.name.split(":", 1)[1], outside_before, len(result.outside)))
    return found

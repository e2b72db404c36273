"""The other parameters of a project step, as eval_data's path gives them: a step of the app path
searches (aipc_toolbox/skipped_step.py, diverged_step.py) may take more than the array
(`to_level(counts, BASELINE, gain=2.5)`), and code outside eval_data's call — the decorator
fix_input_feed writes into the app — can give it those only as a literal (a number, string, bool,
None or a short tuple of them) or as an object a project module holds (`module:NAME`, or
`module:NAME.attribute` of an object such a module holds). A parameter equal to its default is
left out; one given anything else (a statistic computed inside that call) makes the step
unreachable from outside, and it is not offered.
"""
import os
import sys
from dataclasses import dataclass

import numpy as np

from . import calib_prep


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
    parameters = parameters_of(fn)
    bound_ = []
    for name, value in arguments:
        argument = bind_one(fn, name, value, parameters, root)
        if argument is None:
            return None
        if argument is not DEFAULT:
            bound_.append(argument)
    return tuple(bound_)


DEFAULT = object()  # bind_one: the value is the parameter's default, nothing to give


def parameters_of(fn):
    import inspect

    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def bind_one(fn, name, value, parameters, root):
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

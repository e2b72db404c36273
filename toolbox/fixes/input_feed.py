"""Fix `fix_input_feed`: make what the app feeds the deployed model match the artifact's input
contract — the dtype (`float64` scans for a `float32` graph), the layout (channels-last frames
for a channels-first graph), or the memory order (a transposed view ExecuTorch would read in
memory order) — when run_artifact warned about it:

    aipc-warning: input dtype: item 0 of app/pipeline.py Pipeline.to_batch() feeds image as float64, the artifact takes float32
    aipc-warning: input layout: item 0 of infer.py run_inputs() feeds image as (1, 8, 8, 1), the artifact takes (1, 1, 8, 8): channels-last data for a channels-first model
    aipc-warning: input not contiguous: item 0 of app/io.py load() feeds image as a non-contiguous (1, 1, 8, 8) view ...

The fix is in the app, never in the model: the artifact's contract is right, the app's
preprocessing is not. The function fixed is the one that **built** the input: the call of
aipc.toml `run_inputs` is followed (aipc_toolbox/builders.py) to the innermost project function
that returned the very array fed — a helper, a method (`Class.method`), or run_inputs itself —
so every caller of that function in the app gets the fixed input, not only the hook. The
`file`/`function` of the warning name it already; when they name run_inputs while a deeper
function built the input, or when they are left out, the trace decides (and says so).

With `value_range`, the values are fixed too: when the app's feed of eval_data's raw samples
(aipc.toml `app_eval_data`) is an affine map of eval_data's own inputs — another scale or offset,
a normalisation per channel or feature, another channel order (aipc_toolbox/affine.py; an
`aipc-warning: app path affine:` line names it) — the map is measured here, on the same paired
samples, and applied to what the function returns (`scale=`, `shift=` in the decorator, after any
dtype/layout conversion). A difference that is not affine (a transpose, a crop, clipping) is
refused, with what was measured: it needs the function rewritten (replace_function).

With `via` ("module:name"), the values are converted by the project's own step instead: when the
app feeds the raw form of its data and eval_data's path converts that form with a step the
project defines (an `aipc-warning: app path skipped step:` line names it and how the app reaches
it, aipc_toolbox/skipped_step.py), the step is measured on the same paired samples first
(refused when it does not resolve or does not give eval_data's values) and applied to what the
function returns (`via=`, with how eval_data's path gave it its input: `via_takes`, `via_each`,
and the dtype of eval_data's input, `via_dtype`); the module holding it is imported when the
function first runs, so it may import the app's module itself.
With `via` and `instead`, the function the warning names (`file`, `function`: the app's own copy
of a step that diverged from eval_data's, `aipc-warning: app path diverged step:`) has the step
give its array argument in its place: the step is measured there first (find_substitutes), and
the function's own result gives only the shape of what it returns.

That function gets a decorator, `@_aipc_conform_feed(position, dtype=..., layout=..., contiguous=..., scale=..., shift=..., via=...)`,
placed right above its `def` (under @staticmethod / @classmethod), and the decorator (a helper
added once at module level) converts what it returns: the returned array itself (position
None), or element `position` of the tuple it returns (or of each tuple of the list it returns):

- dtype: `np.ndarray.astype(dtype)` / `torch.Tensor.to(torch.<dtype>)`;
- layout `nchw` (channels-last data to a channels-first graph): transpose (0, 3, 1, 2);
  layout `nhwc`: transpose (0, 2, 3, 1) — right for any channel count, where a reshape is right
  only for one channel; any other rank or order: the axes themselves, as the input-layout
  warning names them (`"0, 2, 1"`: a time-major window for a channels-first sequence model);
- scale/shift: x·scale + shift (a number; a list along axis 1; a C×C list of lists mixing the
  channels), computed in float64 and returned in the input's float dtype (float32 for an integer
  one);
- the result is always contiguous (np.ascontiguousarray / .contiguous()).

The function's own code is left as it is. When the function already converts the same input
(a dtype fixed first, then the layout the next run names), the one decorator gets both
conversions; asking for another dtype or layout than the one it has is refused (two conversions
of one input would be wrong). After the edit the trace is run again on
the fixed file: the input must now have the dtype/layout asked for and be contiguous, else the
edit is undone and the tool fails with what it measured (with `value_range`: the feed must now
match eval_data's values, measured the same way).

Usage: python input_feed.py --input image --dtype float32                 (the trace finds the function)
       python input_feed.py --input image --value_range true              (the map is measured)
       python input_feed.py --input image --via mypkg.prep:Normaliser()   (the project's own step)
       python input_feed.py --file infer.py --function run_inputs --input image --layout nchw
"""
import ast

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError
from _codemod import FixRefused, after_imports_line, finish, read

DECORATOR = "_aipc_conform_feed"

HELPER = '''

def _aipc_conform_feed(position, dtype=None, layout=None, contiguous=True, scale=None, shift=0.0,
                       via=None, via_takes="numpy", via_each=False, via_dtype="float32", instead=False,
                       via_kwargs=None, via_refs=None, via_from=None):
    \"\"\"Convert what the decorated function returns to what the deployed artifact takes: the
    returned array itself (position None) or input `position` of the tuple(s) it returns, to
    `dtype` (a numpy/torch dtype name) and/or `layout` ("nchw": channels-last data to a
    channels-first graph; "nhwc": the other way), then through the project's own step `via`
    (module:name, as eval_data's path converts its samples; given a numpy array or a tensor,
    `via_takes`, sample by sample when `via_each`; the result in `via_dtype`), then to the values
    the model was trained on, x * scale + shift (scale: a number, one per channel of axis 1, or a
    channel-mixing matrix; measured against eval_data), contiguous. With `instead`, `via` is given
    the function's array argument in its place (the function's own result gives only the shape).
    The step's other parameters are given as eval_data's path gives them: `via_kwargs` (values)
    and `via_refs` (objects a project module holds, module:NAME); with `instead`, `via_from` gives
    parameters of the step from the function's own arguments by name ({"offset":
    "packet.offset"}: a field of a record the function is given) instead of its array.
    Added by aipc's fix_input_feed; the function's own code is left as it is.\"\"\"
    import functools

    # The named orders again (NAMED_LAYOUTS in aipc's input_feed.py): this helper is pasted into the
    # project and must not import aipc.
    order = tuple(layout) if isinstance(layout, (tuple, list)) else {"nchw": (0, 3, 1, 2), "nhwc": (0, 2, 3, 1)}.get(layout)

    def rescale(x):
        import numpy

        s, t = numpy.asarray(scale, dtype="float64"), numpy.asarray(shift, dtype="float64")
        v = numpy.asarray(x, dtype="float64")
        per_channel = (1, -1) + (1,) * (v.ndim - 2)
        if s.ndim == 2:
            v = numpy.einsum("ck,nk...->nc...", s, v)
        else:
            v = v * (s.reshape(per_channel) if s.ndim == 1 else s)
        v = v + (t.reshape(per_channel) if t.ndim == 1 else t)
        # C order: numpy keeps a transposed operand's strides, and the runtime takes none else.
        return numpy.ascontiguousarray(v, dtype=x.dtype if x.dtype.kind == "f" else "float32")

    resolved = []

    def step():
        # The project's own step, found again by its reference on first use (aipc's
        # skipped_step.resolve): imported lazily, as the module holding it may import this one.
        if not resolved:
            import importlib

            def find(reference):
                module, _, path = reference.partition(":")
                obj = importlib.import_module(module)
                for part in path.split("."):
                    obj = getattr(obj, part[:-2] if part.endswith("()") else part)
                    obj = obj() if part.endswith("()") else obj
                return obj

            given = dict(via_kwargs or {}, **{k: find(v) for k, v in (via_refs or {}).items()})
            resolved.append(functools.partial(find(via), **given) if given else find(via))
        return resolved[0]

    def through_step(x):
        import numpy

        fn, tensor = step(), hasattr(x, "permute")
        given = x
        if via_takes == "numpy" and tensor:
            given = x.detach().cpu().numpy()
        elif via_takes == "torch" and not tensor:
            import torch

            given = torch.from_numpy(numpy.ascontiguousarray(x))
        if via_each:
            parts = [fn(given[i]) for i in range(given.shape[0])]
            parts = [p.detach().cpu().numpy() if hasattr(p, "detach") else numpy.asarray(p) for p in parts]
            out = numpy.stack(parts)
        else:
            out = fn(given)
        out = out.detach().cpu().numpy() if hasattr(out, "detach") else numpy.asarray(out)
        out = numpy.ascontiguousarray(out, dtype=via_dtype)
        if tensor:  # torch only where the app already feeds tensors: a numpy-only app stays so
            import torch

            return torch.from_numpy(out)
        return out

    def convert(x):
        if hasattr(x, "permute"):  # a torch tensor
            import torch

            if order:
                x = x.permute(*order)
            if dtype:
                x = x.to(getattr(torch, dtype))
            if via and not instead:
                x = through_step(x)
            if scale is not None:
                return torch.from_numpy(rescale(x.detach().cpu().numpy()))
            return x.contiguous() if contiguous or order else x
        import numpy

        x = numpy.asarray(x)
        if order:
            x = x.transpose(order)
        x = numpy.ascontiguousarray(x, dtype=dtype or x.dtype)
        if via and not instead:
            x = through_step(x)
        return rescale(x) if scale is not None else x

    def conform_item(item):
        if hasattr(item, "shape"):
            return convert(item) if position in (None, 0) else item
        item = list(item)
        item[position] = convert(item[position])
        return tuple(item)

    def conform(function):
        @functools.wraps(function)
        def conformed(*args, **kwargs):
            out = function(*args, **kwargs)
            if instead and via_from:
                import inspect

                import numpy

                called = inspect.signature(function).bind(*args, **kwargs).arguments
                taken = {}
                for name, path in via_from.items():
                    holder, *fields = path.split(".")
                    value = called[holder]
                    for field in fields:
                        value = getattr(value, field)
                    taken[name] = value
                made = step()(**taken)
                made = made.detach().cpu().numpy() if hasattr(made, "detach") else numpy.asarray(made)
                made = numpy.ascontiguousarray(made, dtype=via_dtype)
            elif instead:
                given = next(v for v in list(args) + list(kwargs.values()) if hasattr(v, "shape") and hasattr(v, "dtype"))
                made = through_step(given)
                made = made.detach().cpu().numpy() if hasattr(made, "detach") else made
            if instead:
                if hasattr(out, "permute"):
                    import torch

                    out = torch.from_numpy(made.reshape(tuple(out.shape)).copy())
                else:
                    out = made.reshape(out.shape).copy()
            if position is None or hasattr(out, "shape"):
                return convert(out) if position in (None, 0) or not isinstance(out, (tuple, list)) else out
            if isinstance(out, tuple) and not any(isinstance(v, (tuple, list)) for v in out):
                return conform_item(out)
            return type(out)(conform_item(item) for item in out)

        return conformed

    return conform
'''


def input_position(name):
    """The position of input `name` in aipc.toml `input_names` (0 when the project names none)."""
    from aipc_toolbox.project import Project

    try:
        names = Project().cfg.get("input_names") or []
    except ToolError:
        names = []
    if not names:
        return 0
    if name not in names and len(names) == 1:
        # One input: which one is not in doubt (a small model put a file name here, 2026-12-04).
        emit.note(f"aipc.toml: input_names has no input '{name}'; the project has one input, '{names[0]}': fixing that")
        return 0
    if name not in names:
        raise FixRefused(f"aipc.toml: input_names {names} has no input '{name}'; pass the name the warning gives")
    return names.index(name)


def find_function(tree, path, name):
    """The def of `name` in `path`: a top-level function, or `Class.method` (nested classes too)."""
    parts = name.split(".")
    scope, node = tree.body, None
    for k, part in enumerate(parts):
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef) if k == len(parts) - 1 else (ast.ClassDef,)
        node = next((n for n in scope if isinstance(n, kinds) and n.name == part), None)
        if node is None:
            break
        scope = node.body
    if node is not None:
        return node
    defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    raise FixRefused(f"{path}: no function {name}() (it defines {', '.join(sorted(set(defined))) or 'none'}); "
                     "pass the function the warning names")


def traced_builder(position):
    """(the project function that built the input at `position`, that input's shape) for the
    first run input where the trace finds one, by following the run_inputs call; (None, None)
    when run_inputs is not set or the trace finds none."""
    from aipc_toolbox.project import Project

    items, builders = Project().traced_run_inputs()
    for item, found in zip(items, builders):
        if position < len(found) and found[position] is not None:
            return found[position], tuple(int(d) for d in item[position].shape)
    return None, None


CONVERSIONS = ("dtype", "layout", "scale", "shift", "via", "via_takes", "via_each", "via_dtype", "instead", "via_kwargs",
               "via_refs", "via_from")  # the decorator's keywords, in order


def decorator_options(position, conversions):
    return ", ".join([str(position)] + [f'{k}="{v}"' if isinstance(v, str) else f"{k}={v!r}"
                                        for k, v in conversions.items() if v is not None])


def existing_conversion(fn, position, path, name):
    """(decorator node, {dtype, layout, scale, shift}) of the @_aipc_conform_feed already on `fn` for input
    `position`, or None (one for another input may stay: each converts its own position)."""
    for deco in fn.decorator_list:
        if not (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == DECORATOR):
            continue
        try:
            had_position = ast.literal_eval(deco.args[0]) if deco.args else None
            had = {k.arg: ast.literal_eval(k.value) for k in deco.keywords if k.arg in CONVERSIONS}
        except ValueError as e:
            raise FixRefused(f"{path}:{deco.lineno}: {name}()'s @{DECORATOR} has arguments that are not literals ({e}); "
                             "edit it by hand") from None
        if had_position == position:
            return deco, had
    return None


def other_callers(path, name, hook):
    """Calls of the fixed function elsewhere in the project (file:line caller), besides the
    run_inputs hook: each now gets the converted input, and one that converted it itself (an
    eager pipeline's own .permute) must be looked at. A static scan by name, so it may list a
    same-named function of another class too."""
    import os

    short = name.rsplit(".", 1)[-1]
    found = []
    for root, dirs, files in os.walk("."):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("build", "__pycache__")]
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            file = os.path.relpath(os.path.join(root, f))
            try:
                tree = ast.parse(open(file).read())
            except (OSError, SyntaxError, ValueError):
                continue
            for fn in ast.walk(tree):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or (file, fn.name) == hook:
                    continue
                for node in ast.walk(fn):
                    callee = getattr(node, "func", None)
                    called = getattr(callee, "id", None) or getattr(callee, "attr", None)
                    if isinstance(node, ast.Call) and called == short and fn.name != short:
                        found.append(f"{file}:{node.lineno} {fn.name}()")
    return sorted(set(found))


def fresh_probe(code, what, timeout):
    """Run `code` in a fresh interpreter (the edited module is imported anew): (the JSON object of
    its last output line, None), or (None, what failed, naming `what`)."""
    import json
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        return None, f"{what} fails after the edit: {(r.stderr.strip().splitlines() or ['?'])[-1]}"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


# The axes orders the layout names stand for (HELPER repeats them: it runs in the project, without aipc).
NAMED_LAYOUTS = {"nchw": (0, 3, 1, 2), "nhwc": (0, 2, 3, 1)}


def layout_order(layout):
    """The axes order a layout argument asks for: "nchw" / "nhwc", or the axes themselves as the
    input-layout warning prints them ("0, 2, 1": what the app builds, transposed to these axes,
    is what the artifact takes). Refused when it is neither."""
    text = str(layout).strip().lower()
    if text in NAMED_LAYOUTS:
        return NAMED_LAYOUTS[text]
    try:
        axes = tuple(int(p) for p in text.strip("()[] ").split(",") if p.strip())
    except ValueError:
        axes = ()
    if len(axes) < 2 or sorted(axes) != list(range(len(axes))):
        raise FixRefused(f"layout {layout!r} is neither nchw, nhwc nor an order of axes such as \"0, 2, 1\" (each axis "
                         "once, from 0)")
    return axes


def measure_after(input_name, position, a, shape_before=None):
    """Run the app's run_inputs again (a fresh interpreter) and say what is still wrong with the
    input, or None."""
    got, failed = fresh_probe(
        "import json\n"
        "from aipc_toolbox.project import Project\n"
        "from aipc_toolbox.feed import dtype_name, _contiguous\n"
        f"x = Project().run_inputs()[0][{position}]\n"
        "print(json.dumps({'dtype': dtype_name(x), 'shape': [int(d) for d in x.shape], 'contiguous': _contiguous(x)}))\n",
        "run_inputs", 300)
    if failed:
        return failed
    if a["dtype"] and got["dtype"] != a["dtype"]:
        return f"{input_name} is still {got['dtype']} (asked for {a['dtype']})"
    if not got["contiguous"]:
        return f"{input_name} is still not contiguous"
    order = layout_order(a["layout"]) if a["layout"] else None
    if (order and shape_before and len(shape_before) == len(order)
            and tuple(got["shape"]) != tuple(shape_before[i] for i in order)):
        return f"{input_name} is {tuple(got['shape'])}, not the {a['layout']} order of {shape_before}"
    return None


def measured_map(input_name, position):
    """The map from what the app feeds as input `position` to eval_data's values (an affine.Fit)
    and the function that built that feed; refused when there is none to apply."""
    from aipc_toolbox import affine
    from aipc_toolbox.project import Project

    try:
        fit, why, builder = affine.measure_app_feed(Project(), position)
    except ToolError as e:
        raise FixRefused(f"value_range: {e}") from None
    if fit is None:
        raise FixRefused(f"value_range: input {input_name}: {why}; nothing was changed: rewrite the function that builds it "
                         "(replace_function) so that it prepares its values the way eval_data does")
    if fit.identity():
        raise FixRefused(f"value_range: input {input_name} as the app feeds it already holds eval_data's values "
                         f"({fit.describe()}); nothing was changed: the app path differs elsewhere (another input, the labels)")
    emit.note(f"measured on app_eval_data against eval_data: input {input_name} -> {fit.describe()} "
              f"({fit.kind}, {100 * fit.residual:.2f}% residual)")
    return fit, builder


def values_after(position):
    """Measure the app's feed against eval_data again in a fresh interpreter: None when it now
    holds eval_data's values, else what is still off."""
    got, failed = fresh_probe(
        "import json\n"
        "from aipc_toolbox import affine\n"
        "from aipc_toolbox.project import Project\n"
        f"fit, why, _ = affine.measure_app_feed(Project(), {position})\n"
        "print(json.dumps({'identity': bool(fit and fit.identity()), 'map': fit.describe() if fit else why}))\n",
        "app_eval_data", 600)
    if failed:
        return failed
    return None if got["identity"] else f"the feed still maps onto eval_data by {got['map']}"


def measured_step(input_name, position, reference):
    """The step of the project named `reference` (module:name) and the function that built the
    feed, when that step turns what the app feeds as input `position` into eval_data's values
    (aipc_toolbox/skipped_step.py); refused otherwise."""
    from aipc_toolbox import affine, skipped_step
    from aipc_toolbox.project import Project

    project = Project()
    try:
        items, builders = affine.app_feed(project)
        step = skipped_step.measure_reference(project, items, position, reference)
    except (ToolError, ValueError) as e:
        raise FixRefused(f"via: {e}; nothing was changed") from None
    if step is None:
        raise FixRefused(f"via: {reference} applied to input {input_name} as the app feeds it does not give eval_data's "
                         "values (measured on app_eval_data); nothing was changed: name the step the app path warning "
                         "gives, or rewrite the function that builds the input (replace_function)")
    emit.note(f"measured on app_eval_data against eval_data: input {input_name} converted by {reference} holds eval_data's "
              f"values ({100 * step.residual:.2f}% residual)")
    return step, affine.builder_at(builders, position)


def measured_substitute(input_name, position, file, function, reference):
    """The step of the project named `reference` when, given the arguments of the app's function
    `file` `function` in its place, it makes the app feed eval_data's values as input
    `position` (aipc_toolbox/diverged_step.py find_substitutes); refused otherwise."""
    from aipc_toolbox import calib_prep, diverged_step
    from aipc_toolbox.project import Project

    if not file or not function:
        raise FixRefused("instead: pass the file and function the app path warning names (the app's own function that "
                         "the step replaces)")
    project = Project()
    if not project.cfg.get("app_eval_data"):
        raise FixRefused("instead: aipc.toml names no app_eval_data (the app's own feed of eval_data's raw samples, with "
                         "their labels): the step cannot be measured against eval_data; nothing was changed")
    try:
        calib_prep.resolve(reference)
    except ValueError as e:
        raise FixRefused(f"via: {e}; nothing was changed") from None
    found = diverged_step.find_substitutes(project, position, lambda: project._call("app_eval_data"))
    for substitute in found:
        if (substitute.file, substitute.function, substitute.step.reference) == (file, function, reference):
            emit.note(f"measured on app_eval_data against eval_data: {reference} in place of {file} {function}() makes "
                      f"input {input_name} hold eval_data's values ({100 * substitute.step.residual:.2f}% residual)")
            return substitute.step
    named = ", ".join(f"{s.file} {s.function}() -> {s.step.reference}" for s in found) or "none"
    raise FixRefused(f"instead: {reference} in place of {file} {function}() does not make input {input_name} hold "
                     f"eval_data's values (measured on app_eval_data; what does: {named}); nothing was changed")


def step_arguments(step, kind):
    """{name: value} of the step's other parameters of one kind ("literal" or "ref"), as
    eval_data's path gives them (step_arguments.Argument)."""
    return {x.name: x.value for x in step.arguments if x.kind == kind}


def newer_helper(text):
    """`text` with its @_aipc_conform_feed helper replaced by this version's when it predates
    `via` or the step's other parameters (a file fixed by an older aipc, then given a step)."""
    tree = ast.parse(text)
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == DECORATOR), None)
    if node is None or any(arg.arg == "via_from" for arg in node.args.args):
        return text
    lines = text.splitlines(keepends=True)
    lines[node.lineno - 1: node.end_lineno] = [HELPER.strip("\n") + "\n"]
    return "".join(lines)


def body(a):
    if a["instead"] and not a["via"]:
        raise FixRefused("instead needs via: the step of eval_data's path that takes the function's argument in its place")
    if not a["dtype"] and not a["layout"] and not a["contiguous"] and not a["value_range"] and not a["via"]:
        raise FixRefused("nothing to convert: pass dtype (e.g. float32), layout (nchw, nhwc or an order of axes), contiguous, "
                         "value_range and/or via")
    if a["value_range"] and a["via"]:
        raise FixRefused("value_range and via both given: pass one (via converts with the project's own step, value_range "
                         "with a measured scale and offset)")
    if a["layout"]:
        layout_order(a["layout"])  # a layout that is no order of axes is refused before anything runs
    position = input_position(a["input"])
    path, name, builder, returned, shape_before = a["file"], a["function"], None, "tuple", None
    fit = step = None
    if a["value_range"]:
        fit, builder = measured_map(a["input"], position)
    if a["via"] and a["instead"]:
        step = measured_substitute(a["input"], position, a["file"], a["function"], a["via"])
    elif a["via"]:
        step, builder = measured_step(a["input"], position, a["via"])
    try:
        traced, shape_before = traced_builder(position)
        builder = builder or (None if a["instead"] else traced)
    except ToolError as e:
        emit.note(f"could not follow the run_inputs call ({e}); using the file and function given")
    if builder is not None:
        named = (path, name) == (builder.file, builder.function)
        if not named:
            emit.note(f"the run_inputs call builds input {a['input']} in {builder.file}:{builder.line} {builder.function}()"
                      + (f" (not {path} {name}())" if path and name else "") + ": fixing it there")
        path, name = builder.file, builder.function
        returned = "itself" if builder.position is None else builder.position
    if not path or not name:
        raise FixRefused("no file/function given and aipc.toml run_inputs is not set (or its call returns no array this "
                         "project built): pass the file and function the warning names")
    decorator_position = None if returned == "itself" or a["instead"] else (returned if isinstance(returned, int) else position)
    text, tree = read(path)
    fn = find_function(tree, path, name)
    layout = None
    if a["layout"]:
        order = layout_order(a["layout"])
        named = str(a["layout"]).strip().lower()
        layout = named if named in NAMED_LAYOUTS else order
    wanted = {"dtype": a["dtype"] or None, "layout": layout,
              "scale": fit.scale if fit else None, "shift": fit.shift if fit else None,
              "via": step.reference if step else None, "via_takes": step.takes if step and step.takes != "numpy" else None,
              "via_each": True if step and step.each else None, "via_dtype": step.dtype if step else None,
              "instead": True if a["instead"] else None,
              "via_kwargs": (step_arguments(step, "literal") or None) if step else None,
              "via_refs": (step_arguments(step, "ref") or None) if step else None,
              "via_from": dict(step.sources) if step and step.sources else None}
    lines = text.splitlines(keepends=True)
    line = lines[fn.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    existing = existing_conversion(fn, decorator_position, path, name)
    if existing is not None:
        # One more property of the same input (a layout after a dtype): one decorator, both conversions.
        deco, had = existing
        for key, value in wanted.items():
            if value and had.get(key) and had[key] != value:
                raise FixRefused(f"{path}:{deco.lineno}: {name}() already converts {a['input']} to {key} {had[key]!r}, "
                                 f"not {value!r}: edit that decorator by hand if the artifact changed")
        if fit is not None and had.get("scale") is not None:
            raise FixRefused(f"{path}:{deco.lineno}: {name}() already rescales {a['input']} (scale {had['scale']!r}) and the "
                             f"feed still maps onto eval_data by {fit.describe()}: rewrite the function (replace_function)")
        merged = {k: wanted[k] if wanted[k] is not None else had.get(k) for k in CONVERSIONS}
        if merged == {k: had.get(k) for k in CONVERSIONS}:
            raise FixRefused(f"{path}:{deco.lineno}: {name}() already converts {a['input']} this way; the feed is still wrong "
                             "elsewhere: read the warning's function again")
        first = deco.lineno
        lines[first - 1: deco.end_lineno] = [f"{indent}@{DECORATOR}({decorator_options(decorator_position, merged)})\n"]
        emit.note(f"{path}:{first}: {name}() already converted {a['input']} ({', '.join(f'{k} {v}' for k, v in had.items() if v is not None)}); "
                  "the same decorator now converts both")
    else:
        lines.insert(fn.lineno - 1, f"{indent}@{DECORATOR}({decorator_options(decorator_position, wanted)})\n")
    new = "".join(lines)
    if f"def {DECORATOR}(" not in new:
        lines = new.splitlines(keepends=True)
        lines.insert(after_imports_line(ast.parse(new)), HELPER)
        new = "".join(lines)
    elif step is not None:
        new = newer_helper(new)
    changed, diff = finish(path, text, new, a["dry_run"])
    if not a["dry_run"] and (builder is not None or a["instead"]):
        converted = a["dtype"] or a["layout"] or a["contiguous"]
        wrong = measure_after(a["input"], position, a, shape_before) if converted else None
        if not wrong and (fit is not None or step is not None):
            wrong = values_after(position)
        if wrong:
            with open(path, "w") as f:
                f.write(text)
            raise FixRefused(f"{path}:{fn.lineno}: decorating {name}() did not fix the feed ({wrong}); the edit is undone")
    what = " and ".join(o for o in (a["dtype"] and f"dtype {a['dtype']}", a["layout"] and f"layout {a['layout']}",
                                    a["contiguous"] and "contiguous", fit and f"values {fit.describe()}",
                                    step and f"converted by {step.reference}") if o)
    from aipc_toolbox.project import Project

    hook = Project().spec_file("run_inputs") if builder is not None else ("", "")
    others = other_callers(path, name, hook)
    if others:
        emit.note(f"{name}() is also called at {', '.join(others)}: those callers now get the converted input too; "
                  "one that converted it itself (e.g. its own transpose) must drop that conversion")
    emit.note(f"{path}:{fn.lineno}: {name}() now returns input {a['input']} as {what}"
              + (" (dry run: not written)" if a["dry_run"] else ""))
    return {"file": path, "function": name, "line": fn.lineno, "input": a["input"], "position": position,
            "traced": int(builder is not None), "dtype": a["dtype"] or None, "layout": a["layout"] or None,
            "contiguous": int(bool(a["contiguous"])),
            "value_map": fit.describe() if fit else None, "value_map_kind": fit.kind if fit else None, "via": step.reference if step else None, "other_callers": others, "changed_lines": changed, "written": int(not a["dry_run"]), "diff": diff}


if __name__ == "__main__":
    emit.main("fix_input_feed", __file__, "run", body)

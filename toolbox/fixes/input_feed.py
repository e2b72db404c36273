"""Fix `fix_input_feed`: make what the app feeds the deployed model match the artifact's input
contract — the dtype (`float64` scans for a `float32` graph) or the layout (channels-last frames
for a channels-first graph) — when run_artifact warned about it:

    aipc-warning: input dtype: item 0 of infer.py run_inputs() feeds image as float64, the artifact takes float32
    aipc-warning: input layout: item 0 of infer.py run_inputs() feeds image as (1, 8, 8, 1), the artifact takes (1, 1, 8, 8): channels-last data for a channels-first model

The fix is in the app (the file and function the warning names, aipc.toml `run_inputs`), never
in the model: the artifact's contract is right, the app's preprocessing is not. The function gets
a decorator, `@_aipc_conform_feed(position, dtype=..., layout=...)`, and the decorator (a helper
added once at module level) converts input `position` of every input tuple the function returns:

- dtype: `np.ndarray.astype(dtype)` / `torch.Tensor.to(torch.<dtype>)`;
- layout `nchw` (channels-last data to a channels-first graph): transpose (0, 3, 1, 2);
  layout `nhwc`: transpose (0, 2, 3, 1). Both make the result contiguous. A transpose is right
  for any channel count, where a reshape is right only for one channel.

The function's own code is left as it is, so the app's eager pipeline (which may convert on its
own, e.g. `.float()` or `.permute`) keeps working. The input's position comes from aipc.toml
`input_names` (the warning names the input). A function that already has the decorator is
refused: a second conversion of the same input would be wrong.

Usage: python input_feed.py --file infer.py --function run_inputs --input image --dtype float32
       python input_feed.py --file infer.py --function run_inputs --input image --layout nchw
"""
import ast

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError
from _codemod import FixRefused, after_imports_line, finish, read

DECORATOR = "_aipc_conform_feed"

HELPER = '''

def _aipc_conform_feed(position, dtype=None, layout=None):
    """Convert input `position` of every input tuple the decorated function returns to what the
    deployed artifact takes: `dtype` (a numpy/torch dtype name) and/or `layout` ("nchw":
    channels-last data to a channels-first graph; "nhwc": the other way). Added by aipc's
    fix_input_feed; the function's own preprocessing is left as it is."""
    import functools

    order = {"nchw": (0, 3, 1, 2), "nhwc": (0, 2, 3, 1)}.get(layout)

    def convert(x):
        if hasattr(x, "permute"):  # a torch tensor
            import torch

            if order:
                x = x.permute(*order).contiguous()
            return x.to(getattr(torch, dtype)) if dtype else x
        import numpy

        x = numpy.asarray(x)
        if order:
            x = x.transpose(order)
        return numpy.ascontiguousarray(x, dtype=dtype or x.dtype)

    def conform(function):
        @functools.wraps(function)
        def conformed(*args, **kwargs):
            items = function(*args, **kwargs)
            if hasattr(items, "shape"):
                return convert(items) if position == 0 else items
            out = []
            for item in items:
                if hasattr(item, "shape"):
                    out.append(convert(item) if position == 0 else item)
                else:
                    item = list(item)
                    item[position] = convert(item[position])
                    out.append(tuple(item))
            return out

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
    if name not in names:
        raise FixRefused(f"aipc.toml: input_names {names} has no input '{name}'; pass the name the warning gives")
    return names.index(name)


def find_function(tree, path, name):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    raise FixRefused(f"{path}: no top-level function {name}() (it defines {', '.join(defined) or 'none'}); "
                     "pass the function the warning names (aipc.toml run_inputs)")


def body(a):
    path, name = a["file"], a["function"]
    if not a["dtype"] and not a["layout"]:
        raise FixRefused("nothing to convert: pass dtype (e.g. float32) and/or layout (nchw or nhwc)")
    text, tree = read(path)
    fn = find_function(tree, path, name)
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Name) and target.id == DECORATOR:
            raise FixRefused(f"{path}:{deco.lineno}: {name}() already converts its feed with @{DECORATOR}; "
                             "edit that decorator's arguments instead of adding a second conversion")
    position = input_position(a["input"])
    options = [str(position)]
    if a["dtype"]:
        options.append(f'dtype="{a["dtype"]}"')
    if a["layout"]:
        options.append(f'layout="{a["layout"]}"')
    lines = text.splitlines(keepends=True)
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    lines.insert(first - 1, f"{indent}@{DECORATOR}({', '.join(options)})\n")
    new = "".join(lines)
    if f"def {DECORATOR}(" not in new:
        lines = new.splitlines(keepends=True)
        lines.insert(after_imports_line(ast.parse(new)), HELPER)
        new = "".join(lines)
    changed, diff = finish(path, text, new, a["dry_run"])
    what = " and ".join(o for o in (a["dtype"] and f"dtype {a['dtype']}", a["layout"] and f"layout {a['layout']}") if o)
    emit.note(f"{path}: {name}() now feeds input {a['input']} (position {position}) as {what}"
              + (" (dry run: not written)" if a["dry_run"] else ""))
    return {"file": path, "function": name, "input": a["input"], "position": position,
            "dtype": a["dtype"] or None, "layout": a["layout"] or None,
            "changed_lines": changed, "written": int(not a["dry_run"]), "diff": diff}


if __name__ == "__main__":
    emit.main("fix_input_feed", __file__, "run", body)

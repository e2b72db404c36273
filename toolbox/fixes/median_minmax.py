"""Fix `fix_median_minmax`: replace `torch.median(x, dim).values` by an exact min/max
sorting network, the documented rewrite for an op no exporter here takes:

- torch.onnx (dynamo): `DispatchError: No ONNX function found for <OpOverload(op='aten.median', overload='dim')>`
- ExecuTorch: `SpecViolationError: Operator torch._ops.aten.median.dim is not in Core ATen opset`

The replacement `_aipc_median(x, dim)` (a helper added once at module level) slices `x` along
`dim` with narrow, runs an odd-even transposition sort with torch.minimum / torch.maximum, and
takes element (n-1)//2: exactly the lower median torch.median returns, with ops that ONNX and
XNNPACK both take (elementwise min/max, slice, a static reshape). It costs n*(n-1)/2
compare-exchanges for n values along `dim`, so it is meant for small windows (a 3x3 filter:
n = 9, 36 pairs); `dim` must have a static size. NaN handling differs from torch.median.

Forms rewritten: `torch.median(x, dim).values`, `x.median(dim=d).values`, `...[0]`, with
`keepdim=` True/False, and `torch.median(x)` (all elements). Uses of the indices (`.indices`,
`[1]`, tuple unpacking) are refused: there is no mechanical rewrite for them.

Without `file`, every Python file of the project (the cwd; `_codemod.project_sources`) that holds
such a call is rewritten: the exporters' errors name the operator, not the file that calls it.

Usage: python median_minmax.py [--file model.py [--line 12]] [--dry_run]
"""
import ast

from aipc_toolbox import emit
from _codemod import (after_imports_line, ensure_import_torch, finish, over_project, read,
                      replace_spans, seg, tensor_call)

HELPER = '''

def _aipc_median(x, dim):
    """Lower median of x along dim, exactly what torch.median(x, dim).values returns, built from
    torch.minimum/maximum (an odd-even transposition sort over the slices) because
    aten.median.dim has no ONNX function and is not in ExecuTorch's Core ATen opset.
    Added by aipc's fix_median_minmax; n*(n-1)/2 compare-exchanges for n = x.shape[dim]."""
    n = x.shape[dim]
    v = [x.narrow(dim, i, 1) for i in range(n)]
    for r in range(n):
        for i in range(r % 2, n - 1, 2):
            v[i], v[i + 1] = torch.minimum(v[i], v[i + 1]), torch.maximum(v[i], v[i + 1])
    shape = list(x.shape)
    del shape[dim]
    return v[(n - 1) // 2].reshape(shape)
'''


def _median_call(node):
    """(tensor expr, dim expr or None, keepdim expr or None) if node is a median call."""
    call = tensor_call(node, "median")
    if call is None:
        return None
    tensor, args, kw = call
    dim = args.pop(0) if args else kw.pop("dim", None)
    keep = args.pop(0) if args else kw.pop("keepdim", None)
    if args or set(kw) - {"input"}:
        return False
    return tensor, dim, keep


def find(tree, text, path, line):
    """[(node to replace, new source)] for every median use (on `line` only, if given)."""
    parents = {}
    for p in ast.walk(tree):
        for c in ast.iter_child_nodes(p):
            parents[c] = p
    out, refused = [], []
    for node in ast.walk(tree):
        call = _median_call(node)
        if call is None:
            continue
        if line and not (node.lineno <= line <= node.end_lineno):
            continue
        where = f"{path}:{node.lineno}"
        if call is False:
            refused.append(f"{where}: `{seg(text, node)}` has arguments this fix does not know")
            continue
        tensor, dim, keep = call
        t = seg(text, tensor)
        if dim is None:
            out.append((node, f"_aipc_median(({t}).reshape(-1), 0)"))
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "values":
            target = parent
        elif isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Constant) and parent.slice.value == 0:
            target = parent
        else:
            what = "the indices" if (isinstance(parent, ast.Attribute) and parent.attr == "indices") or (
                isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Constant) and parent.slice.value == 1) else "the (values, indices) pair"
            refused.append(f"{where}: `{seg(text, parent or node)}` uses {what}; only `.values` / `[0]` have a mechanical rewrite")
            continue
        d = seg(text, dim)
        new = f"_aipc_median({t}, {d})"
        if keep is not None:
            k = seg(text, keep)
            if k == "True":
                new = f"{new}.unsqueeze({d})"
            elif k != "False":
                refused.append(f"{where}: keepdim={k} is not a literal True/False")
                continue
        out.append((target, new))
    return out, refused


def body(a):
    return over_project(a, lambda path: rewrite(path, a),
                        "no torch.median(..., dim).values / [0] to rewrite; the export error's traceback names "
                        "the file and line of the median call")


def rewrite(path, a):
    """Rewrite the median calls of `path`; None when it has none this fix can rewrite."""
    text, tree = read(path)
    found, refused = find(tree, text, path, a["line"])
    for r in refused:
        emit.note(f"not rewritten: {r}")
    if not found:
        return None
    # Outermost first, so nested medians inside a replaced span are left for a second run.
    found.sort(key=lambda c: (c[0].lineno, c[0].col_offset))
    spans, last_end = [], (0, 0)
    for node, new in found:
        if (node.lineno, node.col_offset) < last_end:
            continue
        spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
        last_end = (node.end_lineno, node.end_col_offset)
    new = replace_spans(text, spans)
    if "def _aipc_median(" not in new:
        t2 = ast.parse(new)
        lines = new.splitlines(keepends=True)
        at = after_imports_line(t2)
        lines.insert(at, HELPER)
        new = "".join(lines)
    new = ensure_import_torch(new, ast.parse(new))
    changed, diff = finish(path, text, new, a["dry_run"])
    lines = [s[0] for s in spans]
    emit.note(f"{path}: {len(spans)} median call(s) at line(s) {', '.join(map(str, lines))} rewritten to _aipc_median"
              + (" (dry run: not written)" if a["dry_run"] else ""))
    return {"file": path, "rewritten": len(spans), "lines": lines, "refused": len(refused),
            "changed_lines": changed, "written": int(not a["dry_run"]), "diff": diff}


if __name__ == "__main__":
    emit.main("fix_median_minmax", __file__, "export", body)

"""Fix `fix_mean_keepdim`: write a global average pool `x.mean(dim=(2, 3))` over the spatial dims
of an (N, C, H, W) tensor as `x.mean(dim=(2, 3), keepdim=True).flatten(1)`. The values are the
same; the difference is the op XNNPACK sees. ExecuTorch 1.5.1's XnnpackPartitioner takes a 4-D
mean only with keepdim, so without it `aten_mean_dim` stays on the portable CPU kernels:

    aipc-warning: partial delegation: 1 of 8 compute ops not delegated: aten_mean_dim (1)

Forms rewritten: `x.mean(dim=(2, 3))`, `x.mean((2, 3))`, `torch.mean(x, dim=(2, 3))`, with the
dims as a tuple or list of (2, 3), (3, 2), (-2, -1) or (-1, -2), and `keepdim=False`. A mean over
other dims, or with a dtype, is left alone and reported. `.flatten(1)` removes exactly the two
kept unit dims of a 4-D tensor, so this fix is for 4-D activations (the pooling head of a CNN).

Without `file`, every Python file of the project (the cwd) that holds such a mean is rewritten:
the delegation report names the op, not the file that calls it.

Usage: python mean_keepdim.py [--file model.py [--line 29]] [--dry_run]
"""
import ast

from aipc_toolbox import emit
from _codemod import finish, over_project, read, replace_spans, seg, tensor_call

SPATIAL = ({2, 3}, {-2, -1})


def _dims(node):
    """The set of int dims of a tuple/list literal, else None."""
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    out = []
    for e in node.elts:
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant):
            e = ast.Constant(-e.operand.value)
        if not (isinstance(e, ast.Constant) and isinstance(e.value, int)):
            return None
        out.append(e.value)
    return set(out) if len(out) == 2 else None


def _mean_call(node):
    """(tensor expr, dims expr) when node is a spatial mean without keepdim; False for a mean this
    fix leaves alone; None for anything else."""
    call = tensor_call(node, "mean")
    if call is None:
        return None
    tensor, args, kw = call
    dims = args.pop(0) if args else kw.pop("dim", None)
    keep = args.pop(0) if args else kw.pop("keepdim", None)
    if args or kw or dims is None:
        return False
    if keep is not None and not (isinstance(keep, ast.Constant) and keep.value is False):
        return False
    if _dims(dims) not in SPATIAL:
        return False
    return tensor, dims


def body(a):
    return over_project(a, lambda path: rewrite(path, a),
                        "no x.mean(dim=(2, 3)) without keepdim to rewrite; inspect's delegation table names "
                        "the op that stays on the portable kernels")


def rewrite(path, a):
    """Rewrite the spatial means of `path`; None when it has none this fix can rewrite."""
    text, tree = read(path)
    spans, skipped = [], []
    for node in ast.walk(tree):
        found = _mean_call(node)
        if found is None:
            continue
        if a["line"] and not (node.lineno <= a["line"] <= node.end_lineno):
            continue
        if found is False:
            skipped.append(f"{path}:{node.lineno}: `{seg(text, node)}` is not a spatial mean without keepdim")
            continue
        tensor, dims = found
        new = f"{seg(text, tensor)}.mean(dim={seg(text, dims)}, keepdim=True).flatten(1)"
        spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
    for s in skipped:
        emit.note(f"not rewritten: {s}")
    if not spans:
        return None
    spans.sort()
    new = replace_spans(text, spans)
    changed, diff = finish(path, text, new, a["dry_run"])
    lines = [s[0] for s in spans]
    emit.note(f"{path}: {len(spans)} spatial mean(s) at line(s) {', '.join(map(str, lines))} now keep their dims "
              "and flatten" + (" (dry run: not written)" if a["dry_run"] else ""))
    return {"file": path, "rewritten": len(spans), "lines": lines, "skipped": len(skipped),
            "changed_lines": changed, "written": int(not a["dry_run"]), "diff": diff}


if __name__ == "__main__":
    emit.main("fix_mean_keepdim", __file__, "export", body)

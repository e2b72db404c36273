"""Shared plumbing of the toolbox/fixes codemods: read a Python file, replace source spans
located by `ast` nodes, make sure `import torch` is there, check the result still parses, print
a unified diff and write the file (unless dry_run); and, for a codemod called without a file
(`over_project`), find the project's own Python files that hold what it rewrites — a toolchain
error names an operator, not always the file that calls it."""
import ast
import difflib
import os

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError

# Folders that are never the project's own source: VCS, sessions, build outputs, caches, venvs.
SKIP_DIRS = {".git", ".aipc", "build", "__pycache__", "node_modules", "site-packages", "venv", ".venv"}
# More Python files than this is not a project folder (a home folder, a checkout of a library).
MAX_SOURCES = 2000


class FixRefused(ToolError):
    """The fix does not apply here; the message names file:line and says why and what to do."""


def read(path):
    if not os.path.isfile(path):
        raise ToolError(f"{path}: no such file in the project ({os.getcwd()}); {sources_hint()}")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        raise FixRefused(f"{path}:{e.lineno}: the file does not parse ({e.msg}); fix the syntax first") from None
    return text, tree


def sources_hint():
    """What a caller who named a file that is not there can pass instead: the project's own
    Python files (a small model copies file names from its examples)."""
    try:
        sources = project_sources()
    except ToolError:
        sources = []
    if not sources:
        return "the folder has no Python files of the project; pass a file that exists"
    shown = ", ".join(sources[:15]) + (f" and {len(sources) - 15} more" if len(sources) > 15 else "")
    return f"the project's Python files are: {shown}"


def project_path(file):
    """A path an error names (absolute as the traceback prints it, relative, or only its base name)
    as a project file; FixRefused when it is not one, or several files share the base name."""
    if os.path.isfile(file) and not os.path.isabs(file):
        return os.path.normpath(file)
    if os.path.isabs(file):
        r = os.path.relpath(file)
        if not r.startswith("..") and os.path.isfile(r):
            return r
    parts = os.path.normpath(file).split(os.sep)
    for i in range(1, len(parts)):
        cand = os.path.join(*parts[i:])
        if os.path.isfile(cand):
            return cand
    same = [p for p in project_sources() if os.path.basename(p) == parts[-1]]
    if len(same) == 1:
        return same[0]
    raise FixRefused(f"{file}: not found in the project (cwd {os.getcwd()})"
                     + (f"; several files are named {parts[-1]}: {', '.join(same)}" if same else "")
                     + f"; pass `file` relative to the project folder ({sources_hint()})")


def seg(text, node):
    s = ast.get_source_segment(text, node)
    if s is None:
        raise FixRefused(f"cannot read the source of the expression at line {node.lineno}")
    return s


def tensor_call(node, name):
    """`torch.<name>(x, ...)` or `x.<name>(...)`: (tensor expr, the remaining positional args as a
    list, the keyword args as a dict), or None when node is not such a call."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name):
        return None
    args = list(node.args)
    kw = {k.arg: k.value for k in node.keywords}
    owner = node.func.value
    if isinstance(owner, ast.Name) and owner.id == "torch":
        if not args and "input" not in kw:
            return None
        tensor = args.pop(0) if args else kw.pop("input")
    else:
        tensor = owner
    return tensor, args, kw


def _offset(lines, lineno, col):
    """Character offset in the joined text of (1-based line, utf-8 byte column)."""
    before = sum(len(l) for l in lines[: lineno - 1])
    return before + len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8", "replace"))


def replace_spans(text, spans):
    """spans: [(lineno, col, end_lineno, end_col, new_text)] with ast coordinates; no overlaps."""
    lines = text.splitlines(keepends=True)
    cuts = sorted(((_offset(lines, a, b), _offset(lines, c, d), new) for a, b, c, d, new in spans), reverse=True)
    for start, end, new in cuts:
        text = text[:start] + new + text[end:]
    return text


def has_torch_import(tree):
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name == "torch" and a.asname in (None, "torch") for a in node.names):
            return True
    return False


def ensure_import_torch(text, tree):
    if has_torch_import(tree):
        return text
    lines = text.splitlines(keepends=True)
    at = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant) and node is tree.body[0]
        ):
            at = node.end_lineno
    lines.insert(at, "import torch\n")
    return "".join(lines)


def after_imports_line(tree):
    """Line number after the last top-level import (0 = file start)."""
    at = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            at = node.end_lineno
    return at


def project_sources(root="."):
    """The project's own Python files under `root` (relative paths, sorted): no hidden folders,
    build outputs, caches or virtual environments."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIP_DIRS and not d.startswith(".") and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
        )
        out.extend(os.path.normpath(os.path.join(dirpath, f)) for f in sorted(filenames) if f.endswith(".py"))
        if len(out) > MAX_SOURCES:
            raise ToolError(f"{os.path.abspath(root)} holds more than {MAX_SOURCES} Python files: run the fix in the "
                            "project folder, or pass `file`")
    return out


def over_project(a, rewrite, nothing):
    """Run `rewrite(path)` — a result dict, or None when the file has nothing to rewrite — on
    `a["file"]`, or, without one, on every project source (`project_sources`). `nothing` says
    what was looked for. Raises FixRefused when nothing anywhere was rewritten."""
    if a.get("file"):
        result = rewrite(a["file"])
        if result is None:
            where = f"{a['file']}:{a['line']}" if a.get("line") else a["file"]
            raise FixRefused(f"{where}: {nothing}")
        return result
    if a.get("line"):
        raise FixRefused("`line` is a line of `file`: pass both, or neither to rewrite every match in the project")
    sources = project_sources()
    results = []
    for path in sources:
        try:
            result = rewrite(path)
        except FixRefused as e:
            emit.note(f"skipped: {e}")
            continue
        if result is not None:
            results.append(result)
    if not results:
        raise FixRefused(f"none of the project's {len(sources)} Python files has {nothing}")
    if len(results) == 1:
        return results[0]
    return {
        "files": [r["file"] for r in results],
        "rewritten": sum(r["rewritten"] for r in results),
        "lines": [f"{r['file']}:{line}" for r in results for line in r["lines"]],
        "changed_lines": sum(r["changed_lines"] for r in results),
        "written": results[0]["written"],
        "diff": "".join(r["diff"] for r in results),
    }


def finish(path, old, new, dry_run):
    """Check the new source parses, print the diff, write it; returns (changed line count, diff
    text). The diff also goes into the JSON result: the engine shows the model only that line."""
    try:
        ast.parse(new, filename=path)
    except SyntaxError as e:
        raise FixRefused(f"{path}:{e.lineno}: the rewrite would not parse ({e.msg}); nothing was written") from None
    diff = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=f"a/{path}", tofile=f"b/{path}"))
    print("".join(diff), end="" if not diff or diff[-1].endswith("\n") else "\n", flush=True)
    if not dry_run:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return sum(1 for l in diff if l[:1] in "+-" and not l.startswith(("+++", "---"))), "".join(diff)


def numbers_note(numbers):
    """One line on what the numbers guard (aipc_toolbox/eager_guard.py) measured."""
    if not numbers.get("checked"):
        return f"numbers not checked: {numbers.get('why')}"
    inputs = numbers.get("inputs") or ["the example inputs"]
    on = inputs[0] if len(inputs) == 1 else f"{len(inputs)} inputs ({', '.join(inputs)})"
    if numbers.get("output") is None:
        return f"numbers checked: the model's outputs are exactly as before on {on}"
    return (f"numbers checked: the model's outputs are as before on {on} (worst {numbers['output']} on "
            f"{numbers.get('input', inputs[0])}: max abs diff {numbers['max_abs_diff']:.3g}, tolerance "
            f"{numbers['tolerance']:.3g})")


# -- conditions on tensor values, as tensors -------------------------------------------------------

# Methods whose result is already a bool tensor.
BOOL_METHODS = {"any", "all", "isnan", "isinf", "isfinite", "eq", "ne", "gt", "ge", "lt", "le", "bool"}
# Python wrappers that turn a one-element tensor into a number or a bool.
SCALAR_WRAPPERS = {"bool", "float", "int"}


def torch_call(fn, *args):
    """AST of `torch.<fn>(*args)`."""
    return ast.Call(func=ast.Attribute(value=ast.Name("torch", ast.Load()), attr=fn, ctx=ast.Load()),
                    args=list(args), keywords=[])


def unwrap_scalar(node):
    """The tensor inside bool(e) / float(e) / int(e) / e.item(); else the node itself."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SCALAR_WRAPPERS
            and len(node.args) == 1):
        return node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
        return node.func.value
    return node


def tensor_condition(node):
    """AST of a bool tensor for a condition: and/or/not as logical ops, chained comparisons split,
    `.item()` / bool() dropped, a non-bool value compared with 0 like Python's truth test. Raises
    ValueError for a test with no tensor form (in / is)."""
    if isinstance(node, ast.BoolOp):
        fn = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        out = tensor_condition(node.values[0])
        for v in node.values[1:]:
            out = torch_call(fn, out, tensor_condition(v))
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return torch_call("logical_not", tensor_condition(node.operand))
    if isinstance(node, ast.Compare):
        if any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops):
            raise ValueError(f"`{ast.unparse(node)}` uses in/is, which has no tensor form")
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(ast.Compare(left=unwrap_scalar(left), ops=[op], comparators=[unwrap_scalar(right)]))
            left = right
        out = parts[0]
        for p in parts[1:]:
            out = torch_call("logical_and", out, p)
        return out
    inner = unwrap_scalar(node)
    if inner is not node:
        return tensor_condition(inner)
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in BOOL_METHODS:
        return inner
    if isinstance(inner, ast.Call) and getattr(inner, "_aipc_bool", False):
        return inner
    return ast.Compare(left=inner, ops=[ast.NotEq()], comparators=[ast.Constant(0)])

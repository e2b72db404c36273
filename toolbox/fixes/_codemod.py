"""Shared plumbing of the toolbox/fixes codemods: read a Python file, replace source spans
located by `ast` nodes, make sure `import torch` is there, check the result still parses, print
a unified diff and write the file (unless dry_run)."""
import ast
import difflib
import os

from aipc_toolbox.emit import ToolError


class FixRefused(ToolError):
    """The fix does not apply here; the message names file:line and says why and what to do."""


def read(path):
    if not os.path.isfile(path):
        raise ToolError(f"{path}: no such file (cwd {os.getcwd()}); pass the model's source file, e.g. model.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        raise FixRefused(f"{path}:{e.lineno}: the file does not parse ({e.msg}); fix the syntax first") from None
    return text, tree


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

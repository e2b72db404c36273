"""Tool `replace_function`: replace the body of one function of the project by a body the model
writes, keeping its `def` line, decorators and indentation.

Made for a small model when no mechanical repair applies: it names a function (`forward`,
`Net.forward`, `preprocess`) instead of copying search text that must match the file exactly,
and writes only the body. The result is refused, and nothing is written, when:
- the function is not found, or the name matches several (say `Class.method`);
- the body does not parse, is empty, or starts a different `def` (the signature must stay: the
  callers and the export depend on it; a `def` line identical to the current one is accepted
  and dropped);
- the body does nothing (only `pass`, `...` or a string) where the function computes something:
  a placeholder, not a repair;
- the function returns a value and the new body returns none (its callers would get None);
- the file would not parse afterwards;
- the eager model's outputs on the project's example inputs move beyond rounding, or the model no
  longer runs (aipc_toolbox/eager_guard.py): the file gets its old text back. A function of the
  app (its preprocessing, its data) does not count, since the guard feeds the inputs it saved
  before the rewrite.
Every refusal names file:line and what to do. Prints the unified diff.

The body may be given at any indentation (it is dedented, then indented to the function's
body); tabs are expanded.
"""
import ast
import os
import textwrap

from aipc_toolbox import emit
from aipc_toolbox.eager_guard import EagerGuard
from _codemod import FixRefused, finish, numbers_note, project_sources, read


def _functions(tree):
    """(qualified name, node) of every function and method, nested ones included."""
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.append((name, child))
                walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def _matches(qualified, wanted):
    return qualified == wanted or qualified.endswith("." + wanted)


def _locate(a):
    """(path, text, tree, node) of the one function `a["function"]` names."""
    wanted = a["function"].strip()
    file = a.get("file")
    if file and not os.path.isfile(file):
        # A file name copied from an example: the function's name is the evidence that counts.
        emit.note(f"{file}: no such file in the project; looking for `{wanted}` in every project file")
        file = None
    paths = [file] if file else project_sources()
    hits = []
    for path in paths:
        try:
            text, tree = read(path)
        except FixRefused:
            if file:
                raise
            continue
        hits.extend((path, text, tree, name, node) for name, node in _functions(tree) if _matches(name, wanted))
    if not hits:
        where = file if file else f"the project's {len(paths)} Python files ({', '.join(paths[:15])})"
        raise FixRefused(f"no function `{wanted}` in {where}; give its name as defined (`forward`, "
                         "`ClassName.method`) and, when several files define it, `file`")
    if len(hits) > 1:
        names = ", ".join(f"{p}:{n.lineno} {q}" for p, _, _, q, n in hits)
        raise FixRefused(f"`{wanted}` matches {len(hits)} functions ({names}); name one as `ClassName.method` "
                         "and/or pass `file`")
    path, text, tree, _name, node = hits[0]
    return path, text, tree, node


def _header_text(text, node):
    """The function's `def ...:` header (decorators excluded) as written."""
    lines = text.splitlines(keepends=True)
    first = node.body[0]
    # The header runs from the def line to the line before the first body statement (or to the
    # colon when the body shares the def line).
    end = first.lineno - 1 if first.lineno > node.lineno else node.lineno
    return "".join(lines[node.lineno - 1:end])


def _normalise_header(header):
    return " ".join(header.replace("\\\n", " ").split())


def _new_body(a, path, text, node):
    body = textwrap.dedent(a["body"].expandtabs(4)).strip("\n")
    if not body.strip():
        raise FixRefused(f"{path}:{node.lineno}: the new body of `{node.name}` is empty; write its statements "
                         "(at least `pass`)")
    try:
        parsed = ast.parse(body)
    except SyntaxError as e:
        raise FixRefused(f"{path}:{node.lineno}: the new body of `{node.name}` does not parse: line {e.lineno} of "
                         f"the body: {e.msg}; nothing was written") from None
    first = parsed.body[0] if parsed.body else None
    if isinstance(first, (ast.FunctionDef, ast.AsyncFunctionDef)) and first.name == node.name and len(parsed.body) == 1:
        # The model wrote the whole function: accept it only with the same signature.
        old_header = _normalise_header(_header_text(text, node))
        new_header = _normalise_header(_header_text(body + "\n", first))
        if old_header != new_header:
            raise FixRefused(f"{path}:{node.lineno}: the new code changes the signature of `{node.name}` "
                             f"(`{old_header}` -> `{new_header}`); keep the signature and write only the body")
        body = textwrap.dedent("\n".join(body.splitlines()[first.body[0].lineno - 1:]))
    elif any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == node.name for s in parsed.body):
        raise FixRefused(f"{path}:{node.lineno}: the new body redefines `{node.name}`; write only the statements of "
                         "its body, or the whole function with its current def line")
    new_statements = ast.parse(body).body
    if _is_placeholder(new_statements) and not _is_placeholder(node.body):
        raise FixRefused(f"{path}:{node.lineno}: the new body of `{node.name}` does nothing (only `pass`, `...` or a "
                         f"string) where the current one has {len(node.body)} statement(s); write the statements that "
                         "compute its result; nothing was written")
    returned = _value_return(node.body)
    if returned is not None and not _gives_a_result(new_statements):
        raise FixRefused(f"{path}:{node.lineno}: `{node.name}` returns a value (line {returned.lineno}) and the new "
                         "body returns none, so its callers would get None; end the body with `return ...`; nothing "
                         "was written")
    return body


def _is_placeholder(statements):
    """Only `pass`, `...` and string constants (a docstring): a body that computes nothing."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                           and (s.value.value is Ellipsis or isinstance(s.value.value, str)))
               for s in statements)


def _own_nodes(statements):
    """Every node of these statements outside nested functions, lambdas and classes."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack = [s for s in statements if not isinstance(s, nested)]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, nested):
                stack.append(child)


def _value_return(statements):
    """The first `return <value>` of the function's own code (None for a generator: it yields)."""
    nodes = list(_own_nodes(statements))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes):
        return None
    returns = [n for n in nodes if isinstance(n, ast.Return) and n.value is not None
               and not (isinstance(n.value, ast.Constant) and n.value.value is None)]
    return min(returns, key=lambda n: n.lineno) if returns else None


def _gives_a_result(statements):
    """A `return <value>`, a generator's `yield`, or a body that ends by raising (a deliberate
    refusal of the input)."""
    if _value_return(statements) is not None or (statements and isinstance(statements[-1], ast.Raise)):
        return True
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(statements))


def body(a):
    path, text, tree, node = _locate(a)
    new_body = _new_body(a, path, text, node)
    lines = text.splitlines(keepends=True)
    first, last = node.body[0], node.body[-1]
    if first.lineno == node.lineno:
        raise FixRefused(f"{path}:{node.lineno}: `{node.name}` has its body on the def line; split it first "
                         "(edit_file), then replace it")
    # Keep the docstring when the new body has none.
    keep_doc = (isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant)
                and isinstance(first.value.value, str))
    new_has_doc = False
    try:
        nb = ast.parse(new_body).body
        new_has_doc = bool(nb) and isinstance(nb[0], ast.Expr) and isinstance(getattr(nb[0], "value", None), ast.Constant) \
            and isinstance(nb[0].value.value, str)
    except SyntaxError:
        pass
    start_line = first.lineno
    if keep_doc and not new_has_doc and len(node.body) > 1:
        start_line = node.body[1].lineno
    elif keep_doc and not new_has_doc:
        start_line = first.end_lineno + 1
    indent = " " * (node.col_offset + 4)
    body_lines = lines[first.lineno - 1]
    stripped = body_lines.lstrip(" \t")
    if stripped and len(body_lines) - len(stripped) > node.col_offset:
        indent = body_lines[: len(body_lines) - len(stripped)]
    replacement = "".join(indent + l if l.strip() else "\n" for l in (new_body + "\n").splitlines(keepends=True))
    # Decorators and comments after the body stay; the old body lines are replaced.
    before = "".join(lines[: start_line - 1])
    after = "".join(lines[last.end_lineno:])
    new = before + replacement + after
    if new == text:
        raise FixRefused(f"{path}:{node.lineno}: the new body of `{node.name}` is the same as the current one")
    guard = EagerGuard()
    if not a["dry_run"]:
        guard.baseline()
    changed, diff = finish(path, text, new, a["dry_run"])
    numbers = None if a["dry_run"] else guard.verify({path: text}, where=f"{path}:{node.lineno}: `{node.name}`")
    emit.note(f"{path}:{node.lineno}: replaced the body of `{node.name}` ({last.end_lineno - start_line + 1} line(s) -> "
              f"{len(new_body.splitlines())})" + (" (dry run: not written)" if a["dry_run"] else ""))
    result = {"file": path, "function": node.name, "line": node.lineno, "changed_lines": changed,
              "written": int(not a["dry_run"]), "diff": diff}
    if numbers is not None:
        result["numbers"] = numbers
        emit.note(numbers_note(numbers))
    return result


if __name__ == "__main__":
    emit.main("replace_function", __file__, "export", body)

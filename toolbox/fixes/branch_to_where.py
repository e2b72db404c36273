"""Fix `fix_branch_to_where`: turn a data-dependent Python branch inside `forward` into
torch.where, the documented repair for torch.export's
`GuardOnDataDependentSymNode: Could not guard on data-dependent expression ...`.

Python `if` on a tensor value forces torch.export to pick one branch for a value it does not
know at export time. torch.where(cond, a, b) keeps both in the graph. Patterns handled (each
branch exactly one statement; `elif` chains nest):

    if c: return a          ->  return torch.where(c, a, b)
    else: return b              (also: `if c: return a` followed by `return b`)
    if c: x = a             ->  x = torch.where(c, a, b)
    else: x = b
    if c: x = a             ->  x = torch.where(c, a, x)
    x = a if c else b       ->  x = torch.where(c, a, b)       (also in `return`)

The condition is rewritten for tensors: `and`/`or`/`not` become torch.logical_and/_or/_not,
chained comparisons are split, and a trailing `.item()` is dropped. Conditions on shapes,
sizes, `len()` or `self.training` are refused (they are not data-dependent: torch.export
specialises them). Semantics: torch.where evaluates both branches and broadcasts cond, a and b;
both branches must have broadcastable shapes (the export stage's check verifies the result).

Usage: python branch_to_where.py --file model.py [--line 27] [--function forward] [--dry_run]
Prints the unified diff, then {"ok": true, "file": ..., "line": ..., "pattern": ...}; refuses
with file:line and the reason when the code does not match.
"""
import ast

from aipc_toolbox import emit
from _codemod import FixRefused, ensure_import_torch, finish, read, replace_spans, seg

STATIC_HINTS = (".shape", ".size(", ".dim(", ".ndim", "len(", "self.training", "isinstance(", "is None", "is not None")


class Cond:
    def __init__(self, text, path):
        self.text, self.path = text, path

    def __call__(self, node):
        """Tensor-friendly source for a condition node."""
        if isinstance(node, ast.BoolOp):
            fn = "torch.logical_and" if isinstance(node.op, ast.And) else "torch.logical_or"
            parts = [self(v) for v in node.values]
            out = parts[0]
            for p in parts[1:]:
                out = f"{fn}({out}, {p})"
            return out
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return f"torch.logical_not({self(node.operand)})"
        if isinstance(node, ast.Compare) and len(node.ops) > 1:
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                parts.append(self(ast.copy_location(ast.Compare(left=left, ops=[op], comparators=[right]), node)))
                left = right
            out = parts[0]
            for p in parts[1:]:
                out = f"torch.logical_and({out}, {p})"
            return out
        if isinstance(node, ast.Compare):
            left = self.strip_item(node.left)
            rights = [self.strip_item(c) for c in node.comparators]
            ops = {ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!="}
            op = ops.get(type(node.ops[0]))
            if op is None:
                raise FixRefused(f"{self.path}:{node.lineno}: comparison `{seg(self.text, node)}` uses "
                                 f"{type(node.ops[0]).__name__}, which has no tensor form")
            return f"{left} {op} {rights[0]}"
        return f"({self.strip_item(node)}).bool()"

    def strip_item(self, node):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
                and not node.args and not node.keywords):
            return self.paren(node.func.value)
        return self.paren(node)

    def paren(self, node):
        s = seg(self.text, node)
        simple = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
        return s if isinstance(node, simple) else f"({s})"


def _single(stmts):
    return stmts[0] if len(stmts) == 1 else None


def _assign_target(stmt):
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    return None


def _why_not(node, text):
    if any(isinstance(n, (ast.For, ast.While, ast.With, ast.Try)) for n in ast.walk(node)):
        return "a branch holds a loop/with/try"
    return ("each branch must be exactly one `return <expr>` or one assignment `name = <expr>` to the same name "
            "(with `if` alone, the name must already exist)")


class Rewriter:
    def __init__(self, text, path):
        self.text, self.path, self.cond = text, path, Cond(text, path)

    def check_static(self, test):
        src = seg(self.text, test)
        for hint in STATIC_HINTS:
            if hint in src:
                raise FixRefused(
                    f"{self.path}:{test.lineno}: the condition `{src}` reads {hint.strip('.(')}, which is not a tensor value: "
                    "torch.export specialises it without an error, so torch.where is not the fix; look for another "
                    "data-dependent `if` (the export error names its file and line)")

    def branch_value(self, stmts, kind, name=None):
        """The expression of a one-statement branch, or None."""
        s = _single(stmts)
        if s is None:
            return None
        if kind == "return" and isinstance(s, ast.Return) and s.value is not None:
            return self.expr(s.value)
        if kind == "assign" and _assign_target(s) == name:
            return self.expr(s.value)
        if isinstance(s, ast.If) and kind == "return":
            return self.if_expr(s, "return", None)
        if isinstance(s, ast.If) and kind == "assign" and s.orelse:
            return self.if_expr(s, "assign", name)
        return None

    def expr(self, node):
        if isinstance(node, ast.IfExp):
            self.check_static(node.test)
            return f"torch.where({self.cond(node.test)}, {self.expr(node.body)}, {self.expr(node.orelse)})"
        return seg(self.text, node)

    def if_expr(self, node, kind, name):
        self.check_static(node.test)
        a = self.branch_value(node.body, kind, name)
        b = self.branch_value(node.orelse, kind, name)
        if a is None or b is None:
            return None
        return f"torch.where({self.cond(node.test)}, {a}, {b})"

    def rewrite_if(self, node, next_stmt):
        """(pattern, spans) for an `if` statement, or raise FixRefused."""
        self.check_static(node.test)
        ind = " " * node.col_offset
        body = _single(node.body)
        if body is not None and isinstance(body, ast.Return) and body.value is not None:
            if node.orelse:
                v = self.if_expr(node, "return", None)
                if v is not None:
                    return "if-return-else-return", [(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, f"return {v}")]
            elif isinstance(next_stmt, ast.Return) and next_stmt.value is not None:
                v = f"torch.where({self.cond(node.test)}, {self.expr(body.value)}, {self.expr(next_stmt.value)})"
                return "if-return-then-return", [(node.lineno, node.col_offset, next_stmt.end_lineno, next_stmt.end_col_offset, f"return {v}")]
        name = _assign_target(body) if body is not None else None
        if name:
            if node.orelse:
                v = self.if_expr(node, "assign", name)
                if v is not None:
                    return "if-assign-else-assign", [(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, f"{name} = {v}")]
            else:
                v = f"torch.where({self.cond(node.test)}, {self.expr(body.value)}, {name})"
                return "if-assign", [(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, f"{name} = {v}")]
        raise FixRefused(f"{self.path}:{node.lineno}: `if {seg(self.text, node.test)}:` does not match: {_why_not(node, self.text)}. "
                         f"Rewrite it by hand with torch.where or torch.cond{ind[:0]}")

    def rewrite_ifexp_stmt(self, stmt):
        v = self.expr(stmt.value)
        return "conditional-expression", [(stmt.value.lineno, stmt.value.col_offset, stmt.value.end_lineno, stmt.value.end_col_offset, v)]


def _functions(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]


def _stmt_lists(fn):
    """Every statement list inside a function (its body and nested blocks), outermost first."""
    out = [fn.body]
    for node in ast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if node is not fn and isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append(block)
    return out


def _has_ifexp(stmt):
    return isinstance(stmt, (ast.Assign, ast.Return, ast.AnnAssign)) and isinstance(getattr(stmt, "value", None), ast.IfExp)


def candidates(tree, function):
    """[(line, stmt, next_stmt)] for every `if` / conditional expression in the named functions."""
    found, seen_elif = [], set()
    for fn in _functions(tree, function):
        for block in _stmt_lists(fn):
            for i, stmt in enumerate(block):
                nxt = block[i + 1] if i + 1 < len(block) else None
                if isinstance(stmt, ast.If) and id(stmt) not in seen_elif:
                    if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                        seen_elif.add(id(stmt.orelse[0]))
                    found.append((stmt.lineno, stmt, nxt))
                elif _has_ifexp(stmt):
                    found.append((stmt.lineno, stmt, nxt))
    return found


def body(a):
    path, function = a["file"], a["function"]
    text, tree = read(path)
    fns = _functions(tree, function)
    if not fns:
        raise FixRefused(f"{path}: no function named {function!r}; pass function=<the method that torch.export traces>")
    cands = candidates(tree, function)
    if not cands:
        raise FixRefused(f"{path}:{fns[0].lineno}: {function}() has no `if` statement or conditional expression to rewrite")
    if a["line"]:
        hit = [c for c in cands if c[1].lineno <= a["line"] <= c[1].end_lineno]
        if not hit:
            lines = ", ".join(str(c[0]) for c in cands)
            raise FixRefused(f"{path}:{a['line']}: no `if` or conditional expression of {function}() covers this line "
                             f"(candidates at line(s) {lines})")
        line, stmt, nxt = max(hit, key=lambda c: c[1].lineno)  # innermost
    else:
        if len(cands) > 1:
            lines = ", ".join(f"{path}:{c[0]}" for c in cands)
            raise FixRefused(f"{function}() has {len(cands)} candidates ({lines}); pass line=<the line the export error names>")
        line, stmt, nxt = cands[0]
    rw = Rewriter(text, path)
    pattern, spans = rw.rewrite_if(stmt, nxt) if isinstance(stmt, ast.If) else rw.rewrite_ifexp_stmt(stmt)
    new = replace_spans(text, spans)
    new = ensure_import_torch(new, ast.parse(new))
    changed, diff = finish(path, text, new, a["dry_run"])
    emit.note(f"{path}:{line}: {pattern} rewritten with torch.where" + (" (dry run: not written)" if a["dry_run"] else "")
              + "; torch.where evaluates both branches, so both must be valid for every input")
    return {"file": path, "line": line, "pattern": pattern, "changed_lines": changed, "written": int(not a["dry_run"]), "diff": diff}


if __name__ == "__main__":
    emit.main("fix_branch_to_where", __file__, "export", body)

"""Fix `fix_loop_bound`: a Python loop whose number of passes depends on tensor values, which
torch.export cannot trace. Two errors lead here:

- the trip count is a tensor value (`GuardOnDataDependentSymNode: Could not extract specialized
  integer from data-dependent expression ...`): range() needs a number the export does not know.
  The count may be written in the loop (`range(int(n.max().item()))`, `range(1, int(...))`), in
  a name assigned before it, or in a helper it calls (`range(self._iters(steps))` whose body is
  `return int(steps.max().item())`);
- the loop ends on a tensor test (`Could not guard on data-dependent expression ...`): an
  `if <test>: break` or `if <test>: continue` of the body, or a `while <test>:` loop; the test
  may go through a single-return helper that makes it a Python bool (`return bool(d.max() < tol)`).

Rewrite: the loop runs a static number of passes and each pass's assignments take effect only
while the original loop would still be running, so the numbers stay those of the original loop
for every input that ends within those passes:

    for i in range(self._iters(steps)):          n_trips_l54 = steps.max()
        h = update(h)                      ->     for i in range(self.limits.max_iters):
                                                      h = torch.where(i + 1 <= n_trips_l54, update(h), h)

    for i in range(self.passes):                  running_l60 = torch.ones((), dtype=torch.bool)
        h = update(h)                             for i in range(self.passes):
        if self._settled(h, prev):        ->          h = torch.where(running_l60, update(h), h)
            break                                     running_l60 = running_l60 & torch.logical_not(
                                                          torch.as_tensor((h - prev).abs().max() < self.tol))

- A tensor count: the `.item()` / `int()` / `round()` / `math.floor|ceil|trunc` wrappers are
  dropped and the pass test keeps their rounding (`i + 1 <= n` for a truncated or integer count,
  `i < n` for a ceiling, `i < torch.round(n)` for round()); a helper with a single `return` is
  inlined with its arguments. The bound: the limit the code itself puts on the count (a
  `clamp`/`clip`/`clamp_max`/`minimum`/`min` to a number, a setting or a module constant,
  followed through assignments, reductions such as `.max()` and single-return helpers), else
  `bound` (a number, or an expression valid where the loop is). Without either, refused: the
  right bound is a fact of the model, not a guess.
- A `break`/`continue` test: a flag `running_l<line>` (and `live_l<line>` for the rest of a pass
  after a `continue`) masks every later assignment; the passes are the range's own (a static
  range stays as it is).
- A `while` loop: its passes are its counter's cap (`k = 0` before the loop, one `k += 1` in the
  body, `k < LIMIT` in the test; the counter is masked like any other value, so it still counts
  the passes that ran), else `bound`; the rest of the test is checked at the start of each pass.
- Refused, naming file:line, with nothing written: `return` or a `break` nested in another block,
  a loop `else`, a statement other than assignments to plain names and `if <test>: break|continue`
  (attribute or subscript writes, in-place ops, calls kept for their effect), a name read in the
  body before its first assignment there, the loop variable read after the loop, a `range` step
  other than 1, a `while` loop with no cap and no `bound`. A name first assigned in the body and
  read after the loop starts as None and takes its first assignment unmasked.

Every pass runs (and is paid for) on every input; the masked ones change nothing. The numbers
guard (aipc_toolbox/eager_guard.py) runs the model before and after on the example, eval samples
and scaled inputs, and rolls the rewrite back if an output moved (a bound below a count some
input reaches shows there).

Usage: python loop_bound.py --file model.py --line 40 [--function f] [--bound 8] [--dry_run]
Prints the diff, then {"ok": true, "file": ..., "line": <the loop's line>, "bound": ..., "exits": [...]}.
"""
import ast
import copy

from aipc_toolbox import emit
from aipc_toolbox.eager_guard import EagerGuard
from _codemod import (FixRefused, ensure_import_torch, finish, numbers_note, project_path, read, replace_spans,
                      tensor_condition, torch_call, unwrap_scalar)

# Wrappers that turn a tensor into the loop's int, and the pass test that keeps their rounding.
TRUNCATING = {"int", "trunc", "floor", "long"}
CEILING = {"ceil"}
ROUNDING = {"round"}
# Calls through which an upper bound of their (first) tensor argument or receiver carries over.
MONOTONE = {"max", "amax", "item", "int", "float", "round", "ceil", "floor", "trunc", "long", "to",
            "reshape", "view", "flatten", "squeeze", "unsqueeze", "detach", "clone", "type_as"}
MAX_DEPTH = 6
# Calls whose result is a size, which torch.export traces without a data-dependent guard.
SIZES = {"len", "size", "dim", "numel"}


class Source:
    def __init__(self, path):
        self.path = path
        self.text, self.tree = read(path)
        self.parents = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def enclosing(self, node, kinds):
        node = self.parents.get(node)
        while node is not None and not isinstance(node, kinds):
            node = self.parents.get(node)
        return node

    def functions(self):
        return [n for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def function_at(self, line):
        spans = [f for f in self.functions() if f.lineno <= line <= f.end_lineno]
        return min(spans, key=lambda f: f.end_lineno - f.lineno) if spans else None


def _call_name(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _returns_only(fn):
    """The expression of a function whose body is one `return <expr>` (after a docstring)."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


class _Substitute(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            return copy.deepcopy(self.names[node.id])
        return node


class Scope:
    """Where the loop is: its file, function and class, for following names and helper calls."""

    def __init__(self, src, fn, loop):
        self.src, self.fn, self.loop = src, fn, loop
        self.cls = src.enclosing(fn, (ast.ClassDef,))

    def assigned_before(self, name):
        """The value of the one plain assignment of `name` in the loop's function before the loop."""
        stmt = self.assignment_before(name)
        return stmt.value if stmt is not None else None

    def assignment_before(self, name):
        """The one plain assignment statement of `name` in the loop's function before the loop."""
        hits = [n for n in ast.walk(self.fn) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                and n.lineno < self.loop.lineno and any(isinstance(t, ast.Name) and t.id == name
                                                       for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if len(hits) == 1 and isinstance(hits[0], (ast.Assign, ast.AnnAssign)) and hits[0].value is not None:
            if isinstance(hits[0], ast.AnnAssign) or len(hits[0].targets) == 1:
                return hits[0]
        return None

    def helper(self, call):
        """(function def, receiver expression or None) for a call of a function of this file:
        `self.m(...)` / `obj.m(...)` a method (this class first), `m(...)` a module function."""
        name = _call_name(call)
        if name is None:
            return None
        if isinstance(call.func, ast.Attribute):
            own = [f for f in (self.cls.body if self.cls else []) if isinstance(f, ast.FunctionDef) and f.name == name]
            methods = own or [f for f in self.src.functions() if f.name == name
                              and isinstance(self.src.parents.get(f), ast.ClassDef)]
            return (methods[0], call.func.value) if len(methods) == 1 else None
        funcs = [f for f in self.src.tree.body if isinstance(f, ast.FunctionDef) and f.name == name]
        return (funcs[0], None) if len(funcs) == 1 else None

    def inline(self, call):
        """A single-return helper's expression with its parameters replaced by the call's
        arguments (and `self` by the receiver), or None."""
        found = self.helper(call)
        if found is None:
            return None
        fn, receiver = found
        expr = _returns_only(fn)
        if expr is None:
            return None
        params = [a.arg for a in fn.args.args]
        static = any(_call_name(d) == "staticmethod" if isinstance(d, ast.Call) else getattr(d, "id", None) == "staticmethod"
                     for d in fn.decorator_list)
        names = {}
        if receiver is not None and not static and params:
            names[params[0]] = receiver
            params = params[1:]
        if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        names.update(zip(params, call.args))
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in params:
                return None
            names[kw.arg] = kw.value
        defaults = fn.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            names.setdefault(p, d)
        if any(p not in names for p in params):
            return None
        return _Substitute(names).visit(copy.deepcopy(expr))


def count_tensor(scope, expr):
    """(tensor expression, rounding kind, the assignment statements the count was read through)
    for the loop's count, or a FixRefused naming why."""
    kind, through = "exact", []
    for _ in range(MAX_DEPTH * 3):
        if isinstance(expr, ast.Name):
            stmt = scope.assignment_before(expr.id)
            if stmt is None:
                break
            through.append(stmt)
            expr = stmt.value
            continue
        if not isinstance(expr, ast.Call):
            break
        name = _call_name(expr)
        wraps_arg = isinstance(expr.func, ast.Name) and name in {"int", "round", "float"} and len(expr.args) == 1
        math_fn = (isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Name)
                   and expr.func.value.id == "math" and name in {"floor", "ceil", "trunc"} and len(expr.args) == 1)
        method = isinstance(expr.func, ast.Attribute) and name in {"item", "int", "long"} and not expr.args
        if wraps_arg or math_fn:
            kind = _rounding(kind, name)
            expr = expr.args[0]
            continue
        if method:
            kind = _rounding(kind, name)
            expr = expr.func.value
            continue
        inlined = scope.inline(expr)
        if inlined is not None:
            expr = inlined
            continue
        break
    if _is_static(scope, expr):
        raise FixRefused(f"{scope.src.path}:{scope.loop.lineno}: the loop's count `{ast.unparse(expr)}` is not a tensor "
                         "value; torch.export takes a loop over a fixed number as it is")
    # Arithmetic around converted values (`int(n.max().item()) + 1`): each conversion becomes its
    # tensor form, so the count is an integer-valued tensor.
    tensor_form = _TensorRounding(scope).visit(copy.deepcopy(expr))
    if ast.dump(tensor_form) != ast.dump(expr):
        expr, kind = tensor_form, "exact"
    return expr, kind, through


class _TensorRounding(ast.NodeTransformer):
    """`.item()` / float() dropped and int() / math.floor|ceil|trunc / round() / .long() turned
    into torch.trunc|floor|ceil|round, on values that are not plain numbers or settings."""

    # The tensor op for each wrapper; `_rounding` classifies the same wrappers (TRUNCATING, CEILING,
    # ROUNDING) when they wrap the whole count instead.
    FORMS = {"int": "trunc", "trunc": "trunc", "long": "trunc", "floor": "floor", "ceil": "ceil", "round": "round"}

    def __init__(self, scope):
        self.scope = scope

    def visit_Call(self, node):
        self.generic_visit(node)
        name = _call_name(node)
        method = isinstance(node.func, ast.Attribute) and not node.args and not (
            isinstance(node.func.value, ast.Name) and node.func.value.id == "math")
        if method and name in {"item", "float"}:
            return node.func.value
        if method and name == "long":
            return torch_call("trunc", node.func.value)
        plain = isinstance(node.func, ast.Name) and name in {"int", "float", "round"}
        math_fn = (isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                   and node.func.value.id == "math" and name in {"floor", "ceil", "trunc"})
        if (plain or math_fn) and len(node.args) == 1 and not node.keywords and not _is_static(self.scope, node.args[0]):
            return node.args[0] if name == "float" else torch_call(self.FORMS[name], node.args[0])
        return node


def _rounding(kind, name):
    """The rounding of the count once wrapper `name` is seen. Wrappers are met from the outside in,
    and the innermost rounding decides (`int(math.ceil(t))` is a ceiling: int() of an integer is
    exact); `.item()` and float() change nothing."""
    if name in CEILING:
        return "ceil"
    if name in ROUNDING:
        return "round"
    if name in TRUNCATING:
        return "trunc"
    return kind


def _is_static(scope, expr):
    """A number, a setting (`self.limits.max_iters`, `CONFIG.limit`) or a module constant: not a tensor
    computed from the inputs."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _is_static(scope, expr.operand)
    if isinstance(expr, ast.BinOp):
        return _is_static(scope, expr.left) and _is_static(scope, expr.right)
    # Sizes: torch.export traces them (as numbers or symbolic sizes), never as data.
    if isinstance(expr, ast.Call) and _call_name(expr) in SIZES:
        return isinstance(expr.func, ast.Attribute) or _call_name(expr) == "len"
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
        return True
    if isinstance(expr, ast.Attribute) and expr.attr == "ndim":
        return True
    node = expr
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    if node.id == "self":
        return node is not expr
    # Otherwise a module-level name (a constant, a settings object): not a parameter or a local of
    # the loop's function, where the inputs and the tensors computed from them live.
    local = {a.arg for a in scope.fn.args.args + scope.fn.args.kwonlyargs} | {
        n.id for n in ast.walk(scope.fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return node.id not in local and node.id not in {"torch", "np", "math", "F", "nn"}


def upper_bound(scope, expr, depth=0):
    """A static upper bound the code puts on `expr` (source text), or None."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        value = scope.assigned_before(expr.id)
        return upper_bound(scope, value, depth + 1) if value is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)) and _is_static(scope, expr.right):
        inner = upper_bound(scope, expr.left, depth + 1)
        sign = "+" if isinstance(expr.op, ast.Add) else "-"
        return f"({inner}) {sign} {ast.unparse(expr.right)}" if inner is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and _is_static(scope, expr.left):
        inner = upper_bound(scope, expr.right, depth + 1)
        return f"{ast.unparse(expr.left)} + ({inner})" if inner is not None else None
    if not isinstance(expr, ast.Call):
        return None
    name = _call_name(expr)
    kw = {k.arg: k.value for k in expr.keywords if k.arg}
    on_tensor = isinstance(expr.func, ast.Attribute) and not (isinstance(expr.func.value, ast.Name)
                                                              and expr.func.value.id in {"torch", "math", "np"})
    args = ([expr.func.value] if on_tensor else []) + list(expr.args)
    if name in {"clamp", "clip"}:
        hi = kw.get("max") if "max" in kw else (args[2] if len(args) > 2 else None)
        if hi is not None and _is_static(scope, hi):
            return ast.unparse(hi)
    if name in {"clamp_max", "minimum", "min", "fmin"} and len(args) >= 2 and not kw.get("dim"):
        for a in args[:2]:
            if _is_static(scope, a):
                return ast.unparse(a)
    if name in MONOTONE and args:
        if name in {"max", "amax"} and len(args) > 1 and not on_tensor:
            return None  # max(a, b) of two values: the larger one's bound is not known here
        return upper_bound(scope, args[0], depth + 1)
    inlined = scope.inline(expr)
    if inlined is not None:
        return upper_bound(scope, inlined, depth + 1)
    return None


def _loads(nodes):
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stores(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _exit_kind(st):
    """"break" or "continue" for a loop-body statement `if <test>: break` / `if <test>: continue`
    (no else); None for any other statement."""
    if (isinstance(st, ast.If) and not st.orelse and len(st.body) == 1
            and isinstance(st.body[0], (ast.Break, ast.Continue))):
        return "break" if isinstance(st.body[0], ast.Break) else "continue"
    return None


def masked_body(scope, loop, test, exits=None, monotone=False):
    """(the loop body with its assignments selected by `test`, lines to put before the loop);
    FixRefused otherwise. `exits(statement, kind)`, when given, turns each `if <test>:
    break|continue` of the body into the lines that replace it.

    `monotone`: once `test` is false it stays false (a count, `break`, a `while` test; not
    `continue`), so a value the loop carries but nothing reads after it only feeds dead passes
    and is left unmasked (it may change shape from pass to pass: a stack of stages). In a loop
    nested in another every carried value is masked (the outer loop may read it again).
    A name first assigned in the loop and read after it starts as None and takes its first
    assignment's value unmasked, later ones masked: its final value is the last one the
    original loop assigned, on every input where the original assigned it at all (where it did
    not, reading it after the loop raised NameError)."""
    src, fn = scope.src, scope.fn
    where = f"{src.path}:{{}}"
    before = {a.arg for a in fn.args.args} | {a.arg for a in fn.args.kwonlyargs}
    for n in ast.walk(fn):
        if getattr(n, "lineno", loop.lineno) < loop.lineno:
            before |= _stores(n) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)) else set()
    after = [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno > loop.end_lineno]
    read_after = _loads(after)
    for target in sorted(_stores(loop.target) if isinstance(loop, ast.For) else ()):
        if target in read_after and target != "_":
            raise FixRefused(where.format(loop.lineno) + f": the loop variable `{target}` is read after the loop; with "
                             "a fixed number of passes it would hold the last pass's value, not the one it ended on")
    nested = isinstance(src.enclosing(loop, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)),
                        (ast.For, ast.While))
    keep_all = not monotone or nested
    out, pre, first_assigned, late = [], [], set(), set()
    for st in loop.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue
        if isinstance(st, ast.Pass):
            continue
        kind = _exit_kind(st)
        if kind is not None and exits is not None:
            out += [" " * st.col_offset + ln for ln in exits(st, kind)]
            continue
        if isinstance(st, (ast.Break, ast.Continue, ast.Return)):
            raise FixRefused(where.format(st.lineno) + f": `{type(st).__name__.lower()}` in a loop over a tensor count: "
                             "the number of passes would depend on the data again; rewrite the loop by hand")
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
            value = ast.BinOp(left=ast.Name(st.target.id, ast.Load()), op=st.op, right=st.value)
            targets, value_node = [st.target.id], value
        elif isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None:
            tgts = st.targets if isinstance(st, ast.Assign) else [st.target]
            if len(tgts) != 1:
                raise FixRefused(where.format(st.lineno) + ": a chained assignment `a = b = ...` in the loop")
            t = tgts[0]
            if isinstance(t, ast.Name):
                targets, value_node = [t.id], st.value
            elif isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts):
                targets, value_node = [e.id for e in t.elts], st.value
            else:
                raise FixRefused(where.format(st.lineno) + f": the loop writes `{ast.unparse(t)}`: attribute, subscript "
                                 "or in-place writes cannot be masked; only assignments to plain names can")
        else:
            raise FixRefused(where.format(st.lineno) + f": `{ast.unparse(st).splitlines()[0]}` in a loop over a tensor "
                             "count: only assignments to plain names can be masked pass by pass")
        for n in ast.walk(value_node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_") \
                    and not n.func.attr.startswith("_"):
                raise FixRefused(where.format(st.lineno) + f": `{ast.unparse(n)}` works in place; every pass runs "
                                 "after the rewrite, so it must be out of place")
        ind = " " * st.col_offset
        value_text = ast.unparse(value_node)
        carried = [t for t in targets if t in before or t in late]
        temps = [t for t in targets if t not in before and t not in late]
        for t in temps:
            if t in read_after and t not in first_assigned:
                late.add(t)
                pre.append(f"{t} = None  # takes its first pass's value (aipc fix_loop_bound)")
                carried.append(t)
                continue
            if t in _loads([s for s in loop.body if s.lineno < st.lineno]) and t not in first_assigned:
                raise FixRefused(where.format(st.lineno) + f": `{t}` is read in the loop before it is assigned: give "
                                 "it a value before the loop")
            first_assigned.add(t)
        masked = [t for t in carried if keep_all or t in read_after or t in late]

        def select(t, new):
            where_form = f"torch.where({test}, {new}, {t})"
            return f"{new} if {t} is None else {where_form}" if t in late else where_form

        if not masked:
            out.append(f"{ind}{ast.unparse(st)}")
            continue
        if len(targets) == 1:
            out.append(f"{ind}{targets[0]} = {select(targets[0], value_text)}")
            continue
        fresh = [f"{t}_pass" for t in targets]
        out.append(f"{ind}{', '.join(fresh)} = {value_text}")
        for t, f in zip(targets, fresh):
            out.append(f"{ind}{t} = {select(t, f)}" if t in masked else f"{ind}{t} = {f}")
    return out, pre


def _exits(loop):
    return [st for st in loop.body if _exit_kind(st)]


def _is_range(it):
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"


def locate(src, line, function):
    """The loop the line belongs to: a `for ... in range(...)` or `while` loop, by its own line, a
    line of its range argument or `while` test, of an `if <test>: break|continue` of its body, of
    the assignment its count reads, or of a helper any of those call."""
    loops = [n for n in ast.walk(src.tree) if isinstance(n, ast.While) or (
        isinstance(n, ast.For) and (_is_range(n.iter) or _exits(n)))]
    at = src.function_at(line)
    helper = at.name if at is not None else function
    found = []
    for loop in loops:
        fn = src.enclosing(loop, (ast.FunctionDef, ast.AsyncFunctionDef))
        if fn is None:
            continue
        scope = Scope(src, fn, loop)
        exprs = [loop.iter] if isinstance(loop, ast.For) else [loop.test]
        for n in ast.walk(exprs[0]):
            if isinstance(n, ast.Name) and scope.assigned_before(n.id) is not None:
                exprs.append(scope.assigned_before(n.id))
        exits = _exits(loop)
        exprs += [st.test for st in exits]
        hit = (loop.lineno == line or any(e.lineno <= line <= e.end_lineno for e in exprs)
               or any(st.lineno <= line <= st.end_lineno for st in exits))
        if not hit and helper and helper != fn.name:
            hit = any(isinstance(n, ast.Call) and _call_name(n) == helper for e in exprs for n in ast.walk(e))
        if hit:
            found.append((loop, fn))
    return found


class _InlineScalarHelpers(ast.NodeTransformer):
    """Inline the single-return helpers of a condition that turn a tensor into a Python value
    (`return bool(x.all())`): after the rewrite they must hand back the tensor."""

    def __init__(self, scope):
        self.scope, self.depth = scope, 0

    def visit_Call(self, node):
        self.generic_visit(node)
        inlined = self.scope.inline(node) if self.depth < MAX_DEPTH else None
        if inlined is not None and any(unwrap_scalar(n) is not n for n in ast.walk(inlined)):
            self.depth += 1
            return self.visit(inlined)
        return node


def tensor_test(scope, test):
    """Source text of `test` as a bool tensor (bool()/.item() dropped, and/or/not as logical ops)."""
    try:
        return ast.unparse(tensor_condition(_InlineScalarHelpers(scope).visit(copy.deepcopy(test))))
    except ValueError as e:
        raise FixRefused(f"{scope.src.path}:{test.lineno}: {e}") from None


def while_counter(scope, loop):
    """(counter, its start, the cap's text, the other conjuncts) for `while k < CAP and ...:` with
    `k` set to an integer before the loop and raised by exactly one `k += 1` in the body; None
    when the loop has no such counter."""
    conjuncts = loop.test.values if isinstance(loop.test, ast.BoolOp) and isinstance(loop.test.op, ast.And) else [loop.test]
    for c in conjuncts:
        if not (isinstance(c, ast.Compare) and len(c.ops) == 1):
            continue
        left, op, right = c.left, c.ops[0], c.comparators[0]
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right, op = right, left, ast.Lt() if isinstance(op, ast.Gt) else ast.LtE()
        if not (isinstance(op, (ast.Lt, ast.LtE)) and isinstance(left, ast.Name) and _is_static(scope, right)):
            continue
        start = scope.assigned_before(left.id)
        if not (isinstance(start, ast.Constant) and isinstance(start.value, int) and not isinstance(start.value, bool)):
            continue
        steps = [st for st in loop.body if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name)
                 and st.target.id == left.id and isinstance(st.op, ast.Add)
                 and isinstance(st.value, ast.Constant) and st.value.value == 1]
        stores = [st for st in loop.body if left.id in _stores(st)]
        if len(steps) != 1 or stores != steps:
            continue
        passes = (right.value - start.value + isinstance(op, ast.LtE) if isinstance(right, ast.Constant)
                  and isinstance(right.value, int) else None)
        if passes is not None:
            cap = str(max(passes, 0))
        else:
            cap = f"int({ast.unparse(right)})" + (f" - {start.value}" if start.value else "") \
                + (" + 1" if isinstance(op, ast.LtE) else "")
        return left.id, start.value, cap, [x for x in conjuncts if x is not c]
    return None


def _range_text(bound_text, kind):
    if bound_text.isdigit():
        return bound_text
    if kind in ("ceil", "round"):
        return f"int(-(-({bound_text}) // 1))"  # a count rounded up can reach the bound's ceiling
    return f"int({bound_text})"


def _given_bound(bound):
    bound_text = str(bound).strip()
    try:
        ast.parse(bound_text, mode="eval")
    except SyntaxError:
        raise FixRefused(f"bound `{bound_text}` is not a Python expression") from None
    return bound_text


def tensor_count(scope, loop, stop, bound, required):
    """For a loop over range(..., stop): (count tensor, rounding, names read through, bound text,
    where the bound came from), or None when the count is a plain number and `required` is False."""
    path = scope.src.path
    fn = scope.fn
    try:
        count, kind, through = count_tensor(scope, stop)
    except FixRefused:
        if required:
            raise
        return None
    # A name the count was read through is replaced by the tensor count: it must serve the loop only.
    if len(through) > 1:
        raise FixRefused(f"{path}:{through[-1].lineno}: the loop's count passes through several names "
                         f"({', '.join(ast.unparse(t.targets[0] if isinstance(t, ast.Assign) else t.target) for t in through)}); "
                         "compute it in one expression first")
    for stmt in through:
        name = (stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target).id
        uses = [n.lineno for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                and n.id == name and not (loop.iter.lineno <= n.lineno <= loop.iter.end_lineno)]
        if uses:
            raise FixRefused(f"{path}:{stmt.lineno}: `{name}`, the loop's count, is also read at line {uses[0]}; after "
                             "the rewrite it would still turn a tensor into a number there")
    found_bound = upper_bound(scope, stop)
    if bound is not None:
        bound_text, chosen_by = _given_bound(bound), "given"
    elif found_bound is not None:
        bound_text, chosen_by = found_bound, "the code's own limit"
    else:
        raise FixRefused(f"{path}:{loop.lineno}: the count `{ast.unparse(count)}` has no upper limit in the code (a clamp "
                         "or min to a number or a setting); pass `bound`, the largest count the model can take, or "
                         "limit the count in the code. Nothing was written")
    return count, kind, through, bound_text, chosen_by


def body(a):
    file, line, function, bound = a.get("file"), a.get("line"), a.get("function"), a.get("bound")
    if not file or not line:
        raise FixRefused("pass `file` and `line` from the export error (the line that turns a tensor into the loop's "
                         "count, the loop's own line, or its `while` / `if ...: break` test)")
    path = project_path(file)
    src = Source(path)
    found = locate(src, line, function)
    if not found:
        raise FixRefused(f"{path}:{line}: no `for ... in range(...)` or `while` loop in {path} takes its count or its "
                         "end from this line (directly, through a name, an `if ...: break|continue` of its body or "
                         "the helper defined here); a data-dependent `if` that does not end a loop is "
                         "fix_branch_to_where's")
    if len(found) > 1:
        raise FixRefused(f"{path}:{line}: several loops take their count from here (lines "
                         f"{', '.join(str(lp.lineno) for lp, _ in found)}); pass the loop's own line")
    loop, fn = found[0]
    scope = Scope(src, fn, loop)
    if loop.orelse:
        raise FixRefused(f"{path}:{loop.lineno}: a `{'for' if isinstance(loop, ast.For) else 'while'} ... else` loop: "
                         "the else block depends on how the loop ended")
    exits = _exits(loop)
    n = loop.lineno
    trips, run = f"n_trips_l{n}", f"running_l{n}"
    live = f"live_l{n}" if any(_exit_kind(st) == "continue" for st in exits) else run
    count = through = None
    counter = None
    if isinstance(loop, ast.For) and not _is_range(loop.iter):
        # A fixed iterable (modules, stages, a tuple) with an exit: its passes stay as they are.
        if not all(isinstance(e, ast.Name) for e in ([loop.target] if isinstance(loop.target, ast.Name)
                                                     else getattr(loop.target, "elts", [None]))):
            raise FixRefused(f"{path}:{n}: the loop variable `{ast.unparse(loop.target)}` is not a name or a tuple "
                             "of names")
        bound_text, chosen_by, test = f"len({ast.unparse(loop.iter)})", "the loop's own", None
        head = f"for {ast.unparse(loop.target)} in {ast.unparse(loop.iter)}:"
        conditions = []
    elif isinstance(loop, ast.For):
        if not isinstance(loop.target, ast.Name):
            raise FixRefused(f"{path}:{n}: the loop variable `{ast.unparse(loop.target)}` is not a plain name")
        args = loop.iter.args
        if (loop.iter.keywords or not 1 <= len(args) <= 3 or any(isinstance(x, ast.Starred) for x in args)
                or (len(args) == 3 and not (isinstance(args[2], ast.Constant) and args[2].value == 1))):
            raise FixRefused(f"{path}:{n}: `{ast.unparse(loop.iter)}`: only range(count) and range(start, count) "
                             "with step 1 are rewritten")
        start, stop = (args[0], args[1]) if len(args) >= 2 else (None, args[0])
        counted = tensor_count(scope, loop, stop, bound, required=not exits)
        if counted is not None:
            count, kind, through, bound_text, chosen_by = counted
            range_arg = _range_text(bound_text, kind)
            range_text = f"{ast.unparse(start)}, {range_arg}" if start is not None else range_arg
            var = loop.target.id
            test = {"trunc": f"{var} + 1 <= {trips}", "ceil": f"{var} < {trips}",
                    "round": f"{var} < torch.round({trips})", "exact": f"{var} + 1 <= {trips}"}[kind]
        else:
            bound_text, chosen_by, test = ast.unparse(stop), "the loop's own", None
            range_text = ", ".join(ast.unparse(x) for x in args[:2])
        head = f"for {loop.target.id} in range({range_text}):"
        conditions = []
    else:
        counter = while_counter(scope, loop)
        if counter is not None:
            _, _, bound_text, conditions = counter
            chosen_by = "the loop's own counter"
            if bound is not None:
                bound_text, chosen_by = _given_bound(bound), "given"
        elif bound is not None:
            bound_text, chosen_by = _given_bound(bound), "given"
            conditions = [loop.test]
        else:
            raise FixRefused(f"{path}:{n}: `while {ast.unparse(loop.test)}` has no iteration cap in the code (a counter "
                             "`k` set before the loop, `k += 1` in the body and `k < LIMIT` in the test); pass `bound`, "
                             "the most passes the loop may take, or add the cap. Nothing was written")
        conditions = [c for c in conditions if not (isinstance(c, ast.Constant) and c.value is True)]
        taken = {x.id for x in ast.walk(fn) if isinstance(x, ast.Name)}
        var = f"pass_l{n}"
        while var in taken:
            var += "_"
        head = f"for {var} in range({bound_text if counter is not None and bound is None else _range_text(bound_text, 'exact')}):"
        test = None

    ind = " " * loop.col_offset
    count_line = f"{trips} = {ast.unparse(count)}  # the pass count, as a tensor (aipc fix_loop_bound)" if count else None
    if not exits and isinstance(loop, ast.For):
        # Only the count depends on the data: each pass is masked by its own test.
        lines, pre = masked_body(scope, loop, test, monotone=True)
        new_block = ([] if through else [ind + count_line]) + [ind + p for p in pre] + [f"{ind}{head}"] + lines
        how = f"each pass's assignments masked by `{test}`"
    else:
        inner = " " * loop.body[0].col_offset

        def on_exit(st, kind):
            cond = tensor_test(scope, st.test)
            if kind == "continue":
                return [f"{live} = {live} & torch.logical_not(torch.as_tensor({cond}))  # was: if ...: continue"]
            out = [f"{run} = {run} & torch.logical_not(torch.as_tensor({cond}))  # was: if ...: break"]
            return out + ([f"{live} = {live} & {run}"] if live != run else [])

        pass_lines = []
        if test is not None:
            pass_lines.append(f"{inner}{run} = {run} & ({test})")
        if conditions:
            cond = conditions[0] if len(conditions) == 1 else ast.BoolOp(op=ast.And(), values=conditions)
            pass_lines.append(f"{inner}{run} = {run} & torch.as_tensor({tensor_test(scope, cond)})  # the `while` test")
        if live != run:
            pass_lines.append(f"{inner}{live} = {run}")
        lines, pre = masked_body(scope, loop, live, exits=on_exit, monotone=live == run)
        start_line = f"{ind}{run} = torch.ones((), dtype=torch.bool)  # the loop goes on (aipc fix_loop_bound)"
        new_block = ([] if through or count_line is None else [ind + count_line]) + [ind + p for p in pre] \
            + [start_line, f"{ind}{head}"] + pass_lines + lines
        ended = [f"`{ast.unparse(st.test)}` ({_exit_kind(st)})" for st in exits]
        if conditions:
            ended.insert(0, "the `while` test failing")
        if test is not None:
            ended.insert(0, f"`{test}` failing")
        how = f"each pass's assignments masked once the loop would have ended: {', '.join(ended)}"
    text_lines = src.text.splitlines()
    spans = [(loop.lineno, 0, loop.end_lineno, len(text_lines[loop.end_lineno - 1].encode("utf-8")), "\n".join(new_block))]
    for stmt in through or []:  # the count's own line becomes the tensor count
        spans.append((stmt.lineno, 0, stmt.end_lineno, len(text_lines[stmt.end_lineno - 1].encode("utf-8")),
                      " " * stmt.col_offset + count_line))
    new = replace_spans(src.text, spans)
    new = ensure_import_torch(new, ast.parse(new))
    guard = EagerGuard()
    if not a["dry_run"]:
        guard.baseline()
    changed, diff = finish(path, src.text, new, a["dry_run"])
    numbers = None if a["dry_run"] else guard.verify({path: src.text}, where=f"{path}:{loop.lineno}")
    emit.note(f"{path}:{loop.lineno}: {fn.name}(): the loop runs {bound_text} passes ({chosen_by}), {how}"
              + (" (dry run: not written)" if a["dry_run"] else ""))
    emit.note("every pass runs on every input: the masked passes cost time and change nothing")
    result = {"file": path, "line": loop.lineno, "function": fn.name, "bound": bound_text, "bound_from": chosen_by,
              "count": ast.unparse(count) if count is not None else None, "test": test,
              "exits": [f"{_exit_kind(st)} at line {st.lineno}" for st in exits],
              "changed_lines": changed, "written": int(not a["dry_run"]), "diff": diff}
    if numbers is not None:
        result["numbers"] = numbers
        emit.note(numbers_note(numbers))
    return result


if __name__ == "__main__":
    emit.main("fix_loop_bound", __file__, "export", body)

"""Fix `fix_branch_to_where`: repair Python control flow on tensor values, which torch.export
cannot trace (`GuardOnDataDependentSymNode: Could not guard on data-dependent expression ...`):
it has to pick one branch for a value it does not know at export time.

Finding the branch. With `file` and `line` (the user's line the export error names; `file` may be
the absolute path the traceback prints: it is mapped into the project, the cwd), the `if` whose
condition holds that line; when the line is inside a condition helper (`def f(x): return
bool(x.mean() > t)`, called as `if f(x):`), every `if` that tests that helper, and the helper's
`bool()`/`.item()`/`float()` wrapper is dropped so it returns the tensor. Without `line`, every
candidate of `file`; without `file`, of every project source (`_codemod.project_sources`): an
`if` or conditional expression on a tensor-valued condition inside `forward` of an nn.Module
subclass or in a method or project function reachable from one. Tensor-valued is decided
syntactically and conservatively (a reduction or tensor method in the condition, or a helper that
returns one); shape/size/dim/len/`self.training`/`is None` tests are static for torch.export and
are never touched. With `line`, the evidence is trusted for a bare `if x:`.

Rewrites, keeping the numbers identical:

- where (preferred): branches that only assign (several statements, several variables,
  augmented assignments, temporaries) or return, with `elif` chains and nested ifs: each branch is
  computed into its own temporaries, then every variable live after the `if` is selected with
  torch.where(cond, a, b) (a 0-d condition broadcasts); a variable one branch leaves alone keeps its
  prior value. An early `return` inside the `if` makes the rest of the function the other branch.
  Literal tuples are selected element by element. Both branches run, so each must be valid (and
  costs time) on every input; NaN/Inf of the branch not taken never reaches the result.
- torch.cond (`method="cond"`, or automatically when a branch holds what the where form cannot
  hoist: a `while` loop, a `with` block; `for` loops are hoisted): the branches become local
  functions. ONNX (dynamo) exports it as an `If` node. ExecuTorch
  lowers it, but XNNPACK delegates nothing inside a branch: the branch runs on portable kernels, and
  lowering fails when a branch holds an op XNNPACK keeps whole (linear, max_pool2d, hardswish,
  upsample, prelu): use the where form for that target.
- refused, naming file:line and why, with no file written: in-place ops, `self.x = ...`,
  subscript writes or container mutation in a branch, calls kept for their side effect (print,
  raise, assert), `break`/`continue`/`while` on a tensor value, a variable one branch assigns with
  no prior value, a `return` on one path only, or branches whose values visibly differ in shape
  (e.g. a reduction on one side only).

Usage: python branch_to_where.py [--file model.py [--line 27]] [--function forward]
                                 [--method auto|where|cond] [--dry_run]
Prints what it did per file:line and the unified diff, then {"ok": true, "files": ..., "lines": ...}.
"""
import ast
import copy
import os

from aipc_toolbox import emit
from aipc_toolbox.eager_guard import EagerGuard
from aipc_toolbox.emit import ToolError
from _codemod import (BOOL_METHODS, FixRefused, ensure_import_torch, finish, numbers_note, project_path,
                      project_sources, read, replace_spans, seg, tensor_condition, torch_call, unwrap_scalar)

# Condition text that torch.export decides statically (no data-dependent guard).
STATIC_HINTS = (".shape", ".size(", ".dim(", ".ndim", "len(", "self.training", "isinstance(", " is None",
                " is not None", ".numel(", ".device", ".dtype", "hasattr(", "callable(")
# Methods / torch functions whose result is a tensor computed from values.
TENSOR_METHODS = {
    "mean", "sum", "max", "min", "amax", "amin", "any", "all", "norm", "std", "var", "prod", "abs", "item",
    "isnan", "isinf", "isfinite", "count_nonzero", "argmax", "argmin", "eq", "ne", "gt", "ge", "lt", "le",
    "median", "logsumexp", "sigmoid", "softmax", "float", "bool", "nansum", "square", "sqrt", "exp", "log",
}
REDUCTIONS = {"sum", "mean", "amax", "amin", "max", "min", "prod", "std", "var", "norm", "any", "all", "argmax",
              "argmin", "logsumexp", "count_nonzero", "median", "nansum"}
RESHAPES = {"reshape", "view", "flatten", "unsqueeze", "squeeze", "permute", "transpose", "t", "expand",
            "repeat", "narrow", "select", "unflatten", "movedim", "cat", "stack", "split", "chunk", "view_as",
            "expand_as", "reshape_as", "tile", "roll", "flip"}
ELEMENTWISE = {"relu", "sigmoid", "tanh", "abs", "neg", "exp", "log", "sqrt", "rsqrt", "clamp", "clip", "pow",
               "float", "half", "double", "contiguous", "clone", "detach", "softmax", "log_softmax", "gelu", "silu",
               "square", "sin", "cos", "floor", "ceil", "round", "sign", "reciprocal", "where", "minimum",
               "maximum", "mul", "add", "sub", "div", "clamp_min", "clamp_max", "leaky_relu", "hardtanh", "elu",
               "to", "type_as", "nan_to_num", "lerp", "erf", "log1p", "expm1", "trunc", "frac"}
MUTATING_METHODS = {"append", "extend", "insert", "pop", "update", "setdefault", "clear", "remove", "add_module",
                    "register_buffer", "register_parameter", "copy_", "fill_", "zero_"}
SIDE_EFFECT_CALLS = {"print", "setattr", "delattr", "exec", "eval", "open", "input"}
# Random draws: evaluating both branches would consume the generator differently.
RANDOM_CALLS = {"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "bernoulli",
                "multinomial", "normal", "poisson", "uniform_", "normal_"}
TARGET_NOTE = ("torch.cond: onnxruntime-cpu exports it as an ONNX If node; executorch-xnnpack lowers it with the "
               "branches on portable kernels (nothing inside is delegated), and refuses a branch holding an op "
               "XNNPACK keeps whole (linear, max_pool2d, ...): for that target use the where form (method=where; "
               "it hoists `for` loops, not `while` loops)")


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _names_stored(stmts):
    out = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
                out.append(n.id)
    return out


def _terminates(stmts):
    """Every path through the statements ends in return/raise."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return isinstance(last, (ast.Return, ast.Raise))


def _names_in(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)} | {
        f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


class Renamer(ast.NodeTransformer):
    def __init__(self, cur):
        self.cur = cur

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.cur:
            return ast.copy_location(ast.Name(self.cur[node.id], ast.Load()), node)
        return node


def _rename(node, cur):
    return Renamer(cur).visit(copy.deepcopy(node))


class StoreRenamer(ast.NodeTransformer):
    def __init__(self, loads, stores):
        self.loads, self.stores = loads, stores

    def visit_Name(self, node):
        table = self.loads if isinstance(node.ctx, ast.Load) else self.stores
        if node.id in table:
            return ast.copy_location(ast.Name(table[node.id], node.ctx), node)
        return node


# ---------------------------------------------------------------------------------------------
# The project: parsed sources, classes, functions, reachability from forward.
# ---------------------------------------------------------------------------------------------

class Source:
    def __init__(self, path):
        self.path = path
        self.text, self.tree = read(path)
        self.parents = {}
        for p in ast.walk(self.tree):
            for c in ast.iter_child_nodes(p):
                self.parents[c] = p
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.classes = {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}
        self.imported = {}  # local name -> module name, for `from mod import f`
        for n in self.tree.body:
            if isinstance(n, ast.ImportFrom) and n.module and not n.level:
                for a in n.names:
                    self.imported[a.asname or a.name] = n.module

    def enclosing(self, node, kinds):
        p = self.parents.get(node)
        while p is not None and not isinstance(p, kinds):
            p = self.parents.get(p)
        return p

    def methods(self, cls):
        return {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


class Project:
    def __init__(self, paths):
        self.sources = {}
        for p in paths:
            try:
                self.sources[p] = Source(p)
            except FixRefused as e:
                emit.note(f"skipped: {e}")
        self.by_module = {os.path.splitext(p)[0].replace(os.sep, "."): s for p, s in self.sources.items()}

    def module_classes(self):
        """[(source, ClassDef)] of nn.Module subclasses (by base name, transitively in the project)."""
        known, out = {"Module"}, []
        changed = True
        while changed:
            changed = False
            for src in self.sources.values():
                for cls in src.classes.values():
                    bases = {(_dotted(b) or "").rsplit(".", 1)[-1] for b in cls.bases}
                    if cls.name not in known and bases & known:
                        known.add(cls.name)
                        changed = True
        for src in self.sources.values():
            out.extend((src, c) for c in src.classes.values() if c.name in known and c.name != "Module")
        return out

    def resolve(self, src, call, cls):
        """(source, FunctionDef) a call goes to: self.m(...) in the class, f(...) in this file or a
        project module it imports f from; None otherwise."""
        name = _dotted(call.func) if isinstance(call, ast.Call) else None
        if not name:
            return None
        if name.startswith("self.") and name.count(".") == 1 and cls is not None:
            seen = set()
            while cls is not None and id(cls) not in seen:  # the class, then its bases in the same file
                seen.add(id(cls))
                m = src.methods(cls).get(name[5:])
                if m:
                    return src, m
                cls = next((src.classes[b] for b in (_dotted(x) for x in cls.bases) if b in src.classes), None)
            return None
        if "." not in name:
            if name in src.functions:
                return src, src.functions[name]
            mod = src.imported.get(name)
            other = self.by_module.get(mod) if mod else None
            if other and name in other.functions:
                return other, other.functions[name]
        return None

    def reachable(self, only=None):
        """[(source, FunctionDef, ClassDef or None)]: forward of every nn.Module subclass and what it calls."""
        todo = [(s, f, c) for s, c in self.module_classes() for f in [s.methods(c).get("forward")] if f]
        seen, out = set(), []
        while todo:
            s, f, c = todo.pop(0)
            if id(f) in seen:
                continue
            seen.add(id(f))
            if only is None or s.path == only:
                out.append((s, f, c))
            for call in ast.walk(f):
                if isinstance(call, ast.Call):
                    hit = self.resolve(s, call, c)
                    if hit:
                        same_class = c is not None and hit[0] is s and hit[1] in c.body
                        todo.append((hit[0], hit[1], c if same_class else None))
        return out


# ---------------------------------------------------------------------------------------------
# Conditions
# ---------------------------------------------------------------------------------------------

class Conditions:
    def __init__(self, project):
        self.project = project

    def static(self, src, test):
        text = " " + seg(src.text, test)
        return next((h.strip().strip(".(") for h in STATIC_HINTS if h in text), None)

    def helper_of(self, src, node, cls, depth=0):
        """(source, FunctionDef) when node calls a project function whose returns are tensor-valued."""
        if depth > 3 or not isinstance(node, ast.Call):
            return None
        hit = self.project.resolve(src, node, cls)
        if not hit:
            return None
        hsrc, fn = hit
        rets = [r.value for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None]
        if rets and all(self.tensor(hsrc, unwrap_scalar(r), cls if hsrc is src else None, depth + 1) for r in rets):
            return hit
        return None

    def tensor(self, src, test, cls, depth=0, fn=None):
        """Conservative syntactic rule: the condition computes a tensor from values (a tensor method
        or torch function, a project helper returning one, or a local name assigned from one in `fn`)."""
        if self.static(src, test):
            return False
        for n in ast.walk(test):
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Attribute) and f.attr in TENSOR_METHODS and _dotted(f.value) != "math":
                    if not (isinstance(f.value, ast.Name) and f.value.id in ("builtins", "np", "numpy", "math")):
                        return True
                if (isinstance(f, ast.Attribute) and _dotted(f.value) in ("torch", "F", "torch.nn.functional")
                        and not f.attr.startswith(("is_", "get_", "_"))):
                    return True
                if self.helper_of(src, n, cls, depth):
                    return True
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and fn is not None and depth < 4:
                for a in ast.walk(fn):
                    if (isinstance(a, ast.Assign) and a.lineno < test.lineno and len(a.targets) == 1
                            and isinstance(a.targets[0], ast.Name) and a.targets[0].id == n.id
                            and self.tensor(src, a.value, cls, depth + 1, fn)):
                        return True
        return False


# ---------------------------------------------------------------------------------------------
# Shapes (only to refuse what visibly differs)
# ---------------------------------------------------------------------------------------------

def _shape(node, defs, depth=0):
    """(base names, shape ops) of an expression, or None when unknown; constants -> 'scalar'."""
    if depth > 20:
        return None
    if isinstance(node, ast.Constant):
        return "scalar"
    if isinstance(node, ast.Name):
        if node.id in defs:
            return _shape(defs[node.id], defs, depth + 1)
        return (frozenset([node.id]), ())
    if isinstance(node, ast.Attribute):
        return "scalar" if _dotted(node) and _dotted(node).startswith("self.") else None
    if isinstance(node, ast.UnaryOp):
        return _shape(node.operand, defs, depth + 1)
    if isinstance(node, ast.BinOp):
        parts = [_shape(node.left, defs, depth + 1), _shape(node.right, defs, depth + 1)]
        known = [p for p in parts if p != "scalar"]
        if not known:
            return "scalar"
        return known[0] if all(k == known[0] and k is not None for k in known) else None
    if isinstance(node, ast.Subscript):
        inner = _shape(node.value, defs, depth + 1)
        return None if not isinstance(inner, tuple) else (inner[0], inner[1] + (f"[{ast.unparse(node.slice)}]",))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr, owner = node.func.attr, node.func.value
        if _dotted(owner) in ("torch", "F", "torch.nn.functional"):
            if not node.args:
                return None
            owner, args = node.args[0], node.args[1:]
        else:
            args = node.args
        rest = ", ".join([ast.unparse(a) for a in args] + [ast.unparse(k) for k in node.keywords])
        if attr in ELEMENTWISE:
            inner = _shape(owner, defs, depth + 1)
            others = [_shape(a, defs, depth + 1) for a in args if not isinstance(a, ast.Constant)]
            return inner if all(o in ("scalar", inner) for o in others) else None
        if attr in REDUCTIONS or attr in RESHAPES:
            inner = _shape(owner, defs, depth + 1)
            kind = "reduce" if attr in REDUCTIONS else attr
            return None if not isinstance(inner, tuple) else (inner[0], inner[1] + (f"{kind}({rest})",))
    return None


# ---------------------------------------------------------------------------------------------
# The rewrite of one `if`
# ---------------------------------------------------------------------------------------------

class Refuse(Exception):
    """cond_ok: the where form cannot hoist the statement, but torch.cond can keep it in a branch."""

    def __init__(self, node, why, cond_ok=False):
        super().__init__(why)
        self.node, self.why, self.cond_ok = node, why, cond_ok


class IfRewrite:
    """Rewrites one data-dependent `if` (and, for an early return, the rest of its function)."""

    def __init__(self, src, fn, cls, conds, trust_lines=(), taken=None):
        self.src, self.fn, self.cls, self.conds = src, fn, cls, conds
        self.trust = set(trust_lines)
        self.taken = taken if taken is not None else _names_in(src.tree)
        self.defs = {}
        self.params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
        if fn.args.vararg:
            self.params.add(fn.args.vararg.arg)
        self.in_loop = False

    def fresh(self, base, hint):
        name = f"{base}_{hint}"
        k = 2
        while name in self.taken:
            name, k = f"{base}_{hint}{k}", k + 1
        self.taken.add(name)
        return name

    def is_tensor(self, test):
        if test.lineno in self.trust or any(test.lineno <= ln <= test.end_lineno for ln in self.trust):
            return self.conds.static(self.src, test) is None
        return self.conds.tensor(self.src, test, self.cls, fn=self.fn)

    def defined_before(self, name, node):
        if name in self.params:
            return True
        for n in ast.walk(self.fn):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno < node.lineno:
                return True
        return False

    def aliased(self, name):
        """`name` and another name may share a tensor: `name = other` or `other = name` in the function."""
        for n in ast.walk(self.fn):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name):
                targets = [t.id for t in n.targets if isinstance(t, ast.Name)]
                if name in targets or n.value.id == name:
                    return True
        return False

    def live_after(self, name, node):
        if self.in_loop:
            return True
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n.lineno > node.end_lineno
                   for n in ast.walk(self.fn))

    # -- purity -----------------------------------------------------------------------------
    def check_pure(self, node):
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                f = n.func
                name = _dotted(f) or ""
                in_place = f.attr.endswith("_") and not f.attr.startswith("_") if isinstance(f, ast.Attribute) else False
                if isinstance(f, ast.Attribute) and (f.attr in MUTATING_METHODS or in_place):
                    raise Refuse(n, f"`{ast.unparse(n)}` changes a tensor or container in place; with both branches "
                                    "evaluated it would happen on every input. Make it out-of-place (e.g. x = x.add(...)) first")
                if any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value for k in n.keywords):
                    raise Refuse(n, f"`{ast.unparse(n)}` works in place; drop inplace=True first")
                # A draw is torch.randn(...), x.bernoulli(), randn(...): not a call of the object's own
                # attribute (`self.normal(x)` is a submodule a project may name after its role).
                own = name == "self" or name.startswith("self.")
                if isinstance(f, (ast.Attribute, ast.Name)) and not own and name.rsplit(".", 1)[-1] in RANDOM_CALLS:
                    raise Refuse(n, f"`{ast.unparse(n)}` draws random numbers: computing both branches would change "
                                    "what each draw returns; move the draw before the `if`")
                if name in SIDE_EFFECT_CALLS or name.startswith(("logging.", "warnings.")):
                    raise Refuse(n, f"`{ast.unparse(n)}` is called for its side effect, which a traced graph cannot keep "
                                    "conditional; remove it from the branch first")
                hit = self.conds.project.resolve(self.src, n, self.cls)
                if hit:
                    for m in ast.walk(hit[1]):
                        t = (m.targets if isinstance(m, ast.Assign)
                             else [m.target] if isinstance(m, (ast.AugAssign, ast.AnnAssign)) else [])
                        if any(isinstance(x, (ast.Attribute, ast.Subscript)) for x in t):
                            raise Refuse(n, f"`{ast.unparse(n)}` calls {hit[1].name}(), which writes "
                                            f"`{ast.unparse(t[0])}` (line {m.lineno}): state mutation cannot be made conditional")

    def targets(self, stmt):
        ts = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = []
        for t in ts:
            elts = t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
            for e in elts:
                if isinstance(e, ast.Attribute):
                    raise Refuse(stmt, f"the branch assigns `{ast.unparse(e)}`: module/attribute state mutation "
                                       "cannot be made conditional with torch.where or torch.cond")
                if isinstance(e, ast.Subscript):
                    raise Refuse(stmt, f"the branch writes `{ast.unparse(e)}` in place: rewrite it out-of-place "
                                       "(e.g. torch.where on a mask, or index_put) first")
                if not isinstance(e, ast.Name):
                    raise Refuse(stmt, f"the assignment target `{ast.unparse(e)}` is not a plain name")
                names.append(e.id)
        return ts, names

    # -- where ------------------------------------------------------------------------------
    def flat(self, stmts, cur, hint):
        """Straight-line statements for a branch: (out, cur, return value or None, assigned names)."""
        out, cur, assigned = [], dict(cur), []
        i = 0
        while i < len(stmts):
            s, rest = stmts[i], stmts[i + 1:]
            if isinstance(s, ast.Return):
                if s.value is None:
                    raise Refuse(s, "a bare `return` (None) in a branch has no tensor value to select")
                self.check_pure(s.value)
                return out, cur, _rename(s.value, cur), assigned
            if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                if s.value is None:
                    i += 1
                    continue
                self.check_pure(s.value)
                ts, names = self.targets(s)
                if isinstance(s, ast.AugAssign):
                    if s.target.id not in cur and self.aliased(s.target.id):
                        raise Refuse(s, f"`{seg(self.src.text, s)}` changes `{s.target.id}` in place, and another name "
                                        "refers to the same tensor (an `a = b` in the function); write it out of place "
                                        f"(`{s.target.id} = {s.target.id} <op> ...`) first")
                    value = ast.BinOp(left=ast.Name(s.target.id, ast.Load()), op=s.op, right=s.value)
                else:
                    value = s.value
                value = self.expr(_rename(value, cur), cur)
                for n in names:
                    cur[n] = self.fresh(n, hint)
                    if n not in assigned:
                        assigned.append(n)
                if len(names) == 1 and len(ts) == 1 and isinstance(ts[0], ast.Name) or isinstance(s, ast.AugAssign):
                    self.defs[cur[names[0]]] = value
                    target = ast.Name(cur[names[0]], ast.Store())
                elif len(ts) == 1:
                    target = ast.Tuple([ast.Name(cur[n], ast.Store()) for n in names], ast.Store())
                else:
                    raise Refuse(s, "chained assignment `a = b = ...` in a branch")
                out.append(ast.Assign(targets=[target], value=value, lineno=0))
            elif isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
                pass
            elif isinstance(s, ast.If):
                static = self.conds.static(self.src, s.test)
                if static or not self.is_tensor(s.test):
                    raise Refuse(s, f"a nested `if` on {static or 'a non-tensor value'} inside a data-dependent branch: "
                                    "move it out of the branch first")
                body, orelse = s.body, s.orelse
                if _terminates(body) and not _terminates(orelse):
                    orelse, rest = orelse + rest, []
                elif _terminates(orelse) and not _terminates(body):
                    body, rest = body + rest, []
                o, cur, ret, names = self.merge(s, body, orelse, cur, final=False)
                out += o
                assigned += [n for n in names if n not in assigned]
                if ret is not None:
                    return out, cur, ret, assigned
                stmts, i = [*stmts[:i + 1], *rest], i
            elif isinstance(s, ast.Expr):
                self.check_pure(s.value)
                raise Refuse(s, f"`{seg(self.src.text, s)}` is a statement kept for its effect: a traced branch cannot "
                                "keep it conditional; remove it or make it a value")
            elif isinstance(s, (ast.Raise, ast.Assert)):
                raise Refuse(s, f"the branch holds `{seg(self.src.text, s).splitlines()[0]}`: a check that raises on "
                                "data cannot be exported; use torch._check(...) outside the branch, or drop it")
            elif isinstance(s, ast.For) and not s.orelse and not any(
                    isinstance(n, (ast.Break, ast.Continue, ast.While, ast.Return, ast.Raise)) for n in ast.walk(s)):
                out += self.hoist_loop(s, cur, hint, assigned)
            elif isinstance(s, (ast.For, ast.While, ast.With)):
                raise Refuse(s, f"the branch holds a `{type(s).__name__.lower()}` block the where form does not hoist",
                             cond_ok=True)
            elif isinstance(s, (ast.Break, ast.Continue)):
                raise Refuse(s, f"`{type(s).__name__.lower()}` on a tensor value: the number of loop iterations would "
                                "depend on data, which an exported graph cannot express; run a fixed number of iterations "
                                "and select with torch.where, or bound the loop")
            else:
                raise Refuse(s, f"a `{type(s).__name__}` statement in a branch is not handled")
            i += 1
        return out, cur, None, assigned

    def hoist_loop(self, s, cur, hint, assigned):
        """A `for` loop of a branch, run unconditionally on the branch's own copies of what it assigns."""
        for n in ast.walk(s):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                self.targets(n)
                self.check_pure(n.value)
            elif isinstance(n, ast.Expr) and not isinstance(n.value, ast.Constant):
                self.check_pure(n.value)
                raise Refuse(n, f"`{seg(self.src.text, n)}` is a statement kept for its effect: a traced branch cannot "
                                "keep it conditional; remove it or make it a value")
            elif isinstance(n, ast.If) and self.is_tensor(n.test):
                raise Refuse(n, "a data-dependent `if` inside a loop of a branch: rewrite the inner one first (call with its line)")
            elif isinstance(n, (ast.FunctionDef, ast.Lambda, ast.With, ast.Try)):
                raise Refuse(n, f"a `{type(n).__name__}` inside a loop of a branch is not hoisted", cond_ok=True)
        self.check_pure(s.iter)
        pre, stores = [], {}
        for n in _names_stored([s]):
            if n == "_":
                continue
            stores[n] = self.fresh(n, hint)  # fresh even for a branch temporary: a sibling branch may read it
            if n in cur or self.defined_before(n, s):
                pre.append(ast.Assign(targets=[ast.Name(stores[n], ast.Store())],
                                      value=ast.Name(cur.get(n, n), ast.Load()), lineno=0))
            self.defs[stores[n]] = None  # shape unknown after a loop
            if n not in assigned:
                assigned.append(n)
        loop = StoreRenamer({**cur, **stores}, stores).visit(copy.deepcopy(s))
        cur.update(stores)
        return pre + [loop]

    def expr(self, node, cur):
        """Rewrite conditional expressions (a if c else b) on tensors inside an expression."""
        class T(ast.NodeTransformer):
            def visit_IfExp(t, n):
                t.generic_visit(n)
                if not self.is_tensor(n.test):
                    return n
                self.check_shapes(n, n.body, n.orelse)
                return torch_call("where", self.cond_ast(n.test), n.body, n.orelse)
        return T().visit(node)

    def cond_ast(self, test):
        try:
            return tensor_condition(test)
        except ValueError as e:
            raise Refuse(test, str(e)) from None

    def check_shapes(self, node, a, b):
        sa, sb = _shape(a, self.defs), _shape(b, self.defs)
        if isinstance(sa, tuple) and isinstance(sb, tuple) and sa[0] == sb[0] and sa[1] != sb[1]:
            raise Refuse(node, f"the branches give `{ast.unparse(a)}` and `{ast.unparse(b)}`, whose shapes differ "
                               f"({' '.join(sa[1]) or 'as is'} vs {' '.join(sb[1]) or 'as is'}): torch.where would broadcast "
                               "them and torch.cond needs equal shapes; make both branches return the same shape first")

    def select(self, node, c, a, b):
        if isinstance(a, ast.Tuple) != isinstance(b, ast.Tuple) or (isinstance(a, ast.Tuple) and len(a.elts) != len(b.elts)):
            raise Refuse(node, f"the branches return different structures (`{ast.unparse(a)}` vs `{ast.unparse(b)}`)")
        if isinstance(a, ast.Tuple):
            return ast.Tuple([self.select(node, c, x, y) for x, y in zip(a.elts, b.elts)], ast.Load())
        self.check_shapes(node, a, b)
        return torch_call("where", ast.Name(c, ast.Load()), a, b)

    def merge(self, s, body, orelse, cur, final):
        """Both branches of `s` flattened, then each assigned variable selected with torch.where."""
        cvar = self.fresh("cond", f"l{s.lineno}")
        test = self.cond_ast(_rename(s.test, cur))
        self.check_pure(s.test)
        out = [ast.Assign(targets=[ast.Name(cvar, ast.Store())], value=test, lineno=0)]
        oa, ca, ra, na = self.flat(body, cur, "then")
        ob, cb, rb, nb = self.flat(orelse, cur, "else")
        out += oa + ob
        if (ra is None) != (rb is None):
            raise Refuse(s, "only one path through the `if` returns, the other falls through to code the rewrite "
                            "cannot see as its other branch; give both paths a return, or move the return after the `if`")
        cur = dict(cur)
        names = na + [n for n in nb if n not in na]
        kept = []
        for n in names:
            if ra is not None or not self.live_after(n, s):
                continue  # both paths return, or nothing reads it after the `if`: a branch temporary
            a = ca[n] if n in na else cur.get(n, n)
            b = cb[n] if n in nb else cur.get(n, n)
            if (n not in na or n not in nb) and n not in cur and not self.defined_before(n, s):
                raise Refuse(s, f"`{n}` is assigned in one branch only and has no value before the `if`: the other "
                                "path would leave it undefined; give it a value before the `if`")
            target = n if final else self.fresh(n, "sel")
            value = self.select(s, cvar, ast.Name(a, ast.Load()), ast.Name(b, ast.Load()))
            out.append(ast.Assign(targets=[ast.Name(target, ast.Store())], value=value, lineno=0))
            cur[n] = target
            kept.append(n)
        ret = self.select(s, cvar, ra, rb) if ra is not None else None
        return out, cur, ret, kept

    # -- cond -------------------------------------------------------------------------------
    def cond_form(self, s, body, orelse, ind):
        for block in (body, orelse):
            for st in block:
                for n in ast.walk(st):
                    if isinstance(n, (ast.Break, ast.Continue)) and self._breaks_on_tensor(n, st):
                        raise Refuse(n, "`break`/`continue` on a tensor value inside a loop: the iteration count would "
                                        "depend on data; fix_loop_bound rewrites the loop (every pass runs, masked "
                                        "once the loop would have ended) with its file and line")
                    if isinstance(n, ast.If) and self.is_tensor(n.test):
                        raise Refuse(n, "a data-dependent `if` nested in a torch.cond branch: torch.export would still "
                                        "guard on it; use method=where, or rewrite the inner one first")
                    if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                        self.targets(n)
                    if isinstance(n, (ast.Raise, ast.Assert)):
                        raise Refuse(n, "a check that raises inside a branch cannot be exported; use torch._check outside it")
                    if isinstance(n, ast.Expr) and not isinstance(n.value, ast.Constant):
                        self.check_pure(n.value)
                        raise Refuse(n, f"`{seg(self.src.text, n)}` is kept for its effect; a traced branch cannot keep it")
                self.check_pure(st)
        returns = _terminates(body)
        stored = _names_stored(body) + [n for n in _names_stored(orelse) if n not in _names_stored(body)]
        params = [n for n in stored if self.defined_before(n, s)]
        outs = [] if returns else [n for n in stored if self.live_after(n, s)]
        for n in outs:
            if n not in params and not (n in _names_stored(body) and n in _names_stored(orelse)):
                raise Refuse(s, f"`{n}` is assigned in one branch only and has no value before the `if`")
        tname, fname = self.fresh("_then", f"l{s.lineno}"), self.fresh("_else", f"l{s.lineno}")
        lines = []
        for name, block in ((tname, body), (fname, orelse)):
            lines.append(f"{ind}def {name}({', '.join(params)}):")
            for st in block:
                text = seg(self.src.text, st)
                first, *more = text.splitlines()
                lines.append(f"{ind}    {first}")
                lines += [f"{ind}    {m[st.col_offset:] if m[:st.col_offset].strip() == '' else m.lstrip()}" for m in more]
            if not block:
                lines.append(f"{ind}    pass")
            if not returns:
                lines.append(f"{ind}    return {'(' + ', '.join(outs) + ',)' if len(outs) != 1 else outs[0]}")
        test = ast.unparse(self.cond_ast(s.test))
        call = f"torch.cond({test}, {tname}, {fname}, ({''.join(p + ', ' for p in params)}))"
        if returns:
            lines.append(f"{ind}return {call}")
        elif len(outs) == 1:
            lines.append(f"{ind}{outs[0]} = {call}")
        elif outs:
            lines.append(f"{ind}{', '.join(outs)} = {call}")
        else:
            raise Refuse(s, "the branches assign nothing used after the `if`")
        return "\n".join(lines)

    def _breaks_on_tensor(self, brk, top):
        for n in ast.walk(top):
            if isinstance(n, ast.If) and any(b is brk for b in ast.walk(n)):
                if self.is_tensor(n.test):
                    return True
        return False

    # -- entry ------------------------------------------------------------------------------
    def rewrite(self, s, block, method):
        """(pattern, (start line, end line of the replaced statements), new source lines)."""
        ind = " " * s.col_offset
        static = self.conds.static(self.src, s.test) if isinstance(s, (ast.If, ast.While)) else None
        if static:
            raise Refuse(s, f"the condition `{seg(self.src.text, s.test)}` reads {static}, which is not a tensor value: "
                            "torch.export specialises it without an error, so this `if` is not the one to rewrite; "
                            "look for the data-dependent one the export error names")
        if isinstance(s, ast.While):
            raise Refuse(s, "a `while` loop on a tensor value: the iteration count would depend on data; "
                            "fix_loop_bound rewrites it (a fixed number of passes, each masked while the condition "
                            "holds) with this file and line")
        i = next(k for k, x in enumerate(block) if x is s)
        rest = block[i + 1:]
        self.in_loop = isinstance(self.src.enclosing(s, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)),
                                  (ast.For, ast.While))
        if isinstance(s, ast.If) and any(isinstance(x, (ast.Break, ast.Continue)) for x in s.body + s.orelse):
            raise Refuse(s, "`break`/`continue` on a tensor value: the number of loop iterations would depend on data, "
                            "which an exported graph cannot express; fix_loop_bound rewrites the loop (every pass runs, "
                            "masked once the loop would have ended) with this file and line")
        if not isinstance(s, ast.If):  # a statement holding a conditional expression
            self.check_pure(s)
            new = self.expr(copy.deepcopy(s), {})
            if ast.dump(new) == ast.dump(s):
                raise Refuse(s, "no conditional expression on this line tests a tensor value (shape, size or Python "
                                "values are specialised by torch.export without an error); pass the line the error names")
            return "conditional-expression", (s.lineno, s.end_lineno), [ind + ln for ln in ast.unparse(new).splitlines()]
        body, orelse, end = s.body, s.orelse, s
        if _terminates(body) != _terminates(orelse):
            if block is not self.fn.body:
                raise Refuse(s, "an early `return` inside a nested block (loop/with): move the `if` to the function's "
                                "top level first")
            if not rest or not _terminates(rest):
                raise Refuse(s, "an early `return` with no `return` at the end of the function: the other path returns None")
            if _terminates(body):
                orelse = orelse + rest
            else:
                body = body + rest
            end = rest[-1]
        if method == "cond":
            return "torch.cond", (s.lineno, end.end_lineno), self.cond_form(s, body, orelse, ind).splitlines()
        try:
            out, _, ret, _ = self.merge(s, body, orelse, {}, final=True)
        except Refuse as e:
            if not (e.cond_ok and method == "auto"):
                raise
            self.defs.clear()
            lines = self.cond_form(s, body, orelse, ind).splitlines()
            return f"torch.cond (line {e.node.lineno}: {e.why})", (s.lineno, end.end_lineno), lines
        if ret is not None:
            out.append(ast.Return(ret))
        pattern = "where-return" if ret is not None else "where-assign"
        if s.orelse and len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
            pattern += " (elif chain)"
        if end is not s:
            pattern += " (early return: the rest of the function is the other branch)"
        lines = []
        for st in out:
            lines += [ind + ln for ln in ast.unparse(ast.fix_missing_locations(st)).splitlines()]
        return pattern, (s.lineno, end.end_lineno), lines


# ---------------------------------------------------------------------------------------------
# Finding the candidates
# ---------------------------------------------------------------------------------------------

def _blocks(fn):
    """(block, stmt) for every statement of fn, nested blocks included (not nested functions)."""
    out = []

    def walk(block):
        for st in block:
            out.append((block, st))
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # a nested function is not this function's control flow
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(st, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    walk(sub)
            for h in getattr(st, "handlers", []):
                walk(h.body)
    walk(fn.body)
    return out


def _has_ifexp(st):
    return not isinstance(st, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef)) and any(
        isinstance(n, ast.IfExp) for n in ast.walk(st))


def candidates(src, fn, cls, conds, trust=()):
    """[(block, stmt)] in fn whose `if` / `while` / conditional expression tests a tensor; an `elif`
    belongs to its chain, an `if` inside another candidate's branch to that candidate."""
    rw = IfRewrite(src, fn, cls, conds, trust)
    found, inside = [], set()
    for block, st in _blocks(fn):
        if id(st) in inside:
            continue
        hit = False
        if isinstance(st, (ast.If, ast.While)) and rw.is_tensor(st.test):
            hit = True
        elif _has_ifexp(st) and any(rw.is_tensor(n.test) for n in ast.walk(st) if isinstance(n, ast.IfExp)):
            hit = True
        if hit:
            found.append((block, st))
            for n in ast.walk(st):
                inside.add(id(n))
            inside.discard(id(st))
            # an early return consumes the rest of the function: later ifs are part of it
            if isinstance(st, ast.If) and block is fn.body and _terminates(st.body) != _terminates(st.orelse):
                for later in block[block.index(st) + 1:]:
                    for n in ast.walk(later):
                        inside.add(id(n))
    return found


def locate(project, src, line, function, conds):
    """[(fn, cls, block, stmt, trusted lines)] for the evidence `line` of `src`."""
    fns = [n for n in ast.walk(src.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
           and n.lineno <= line <= n.end_lineno]
    if not fns:
        raise FixRefused(f"{src.path}:{line}: the line is not inside a function; pass the line the export error names")
    fn = max(fns, key=lambda n: n.lineno)
    if function and fn.name != function:
        named = [f for f in fns if f.name == function]
        if not named:
            raise FixRefused(f"{src.path}:{line}: the line is in {fn.name}(), not {function}(); pass the function the "
                             "export error names, or leave `function` out")
    cls = src.enclosing(fn, (ast.ClassDef,))
    for block, st in _blocks(fn):
        if isinstance(st, (ast.If, ast.While)) and (st.test.lineno <= line <= st.test.end_lineno or st.lineno == line):
            return [(fn, cls, block, st, [line])]
        if _has_ifexp(st) and st.lineno <= line <= st.end_lineno and any(isinstance(n, ast.IfExp) for n in ast.walk(st)):
            return [(fn, cls, block, st, [n.test.lineno for n in ast.walk(st) if isinstance(n, ast.IfExp)])]
    # The line is inside a condition helper: every `if` that tests it.
    rets = [r for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None and r.lineno <= line <= r.end_lineno]
    if not rets:
        raise FixRefused(f"{src.path}:{line}: no `if`, `while` or conditional expression tests this line, and it is not "
                         f"a `return` of a condition helper ({fn.name}() at line {fn.lineno}); pass the line of the `if`")
    out = []
    for other in project.sources.values():
        for f in ast.walk(other.tree):
            if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            fcls = other.enclosing(f, (ast.ClassDef,))
            for block, st in _blocks(f):
                tests = [st.test] if isinstance(st, (ast.If, ast.While)) else []
                for t in tests:
                    for call in ast.walk(t):
                        hit = project.resolve(other, call, fcls) if isinstance(call, ast.Call) else None
                        if hit and hit[1] is fn:
                            out.append((f, fcls, block, st, [t.lineno]))
                            break
    if not out:
        raise FixRefused(f"{src.path}:{line}: {fn.name}() holds this line, but no `if` in the project tests "
                         f"{fn.name}(...); pass the line of the `if`")
    return out


def helper_strips(project, conds, src, test, cls):
    """[(source path, return value node, inner node)]: the bool()/.item() wrappers of the condition
    helpers `test` calls, dropped so the helper returns its tensor. Refused when the helper is also
    used outside a condition (its other callers would get a tensor)."""
    out = []
    for call in ast.walk(test):
        hit = project.resolve(src, call, cls) if isinstance(call, ast.Call) else None
        if not hit or not conds.helper_of(src, call, cls):
            continue
        hsrc, fn = hit
        rets = [r for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None]
        inners = [unwrap_scalar(r.value) for r in rets]
        if all(isinstance(i, ast.Compare) or (isinstance(i, ast.Call) and isinstance(i.func, ast.Attribute)
                                              and i.func.attr in BOOL_METHODS) for i in inners):
            call._aipc_bool = True
        wrapped = [(hsrc.path, r.value, i) for r, i in zip(rets, inners) if i is not r.value]
        if not wrapped:
            continue
        for other in project.sources.values():
            tests = {id(n) for t in ast.walk(other.tree) if isinstance(t, (ast.If, ast.While, ast.IfExp))
                     for n in ast.walk(t.test)}
            for c in ast.walk(other.tree):
                if isinstance(c, ast.Call) and id(c) not in tests:
                    h = project.resolve(other, c, other.enclosing(c, (ast.ClassDef,)))
                    if h and h[1] is fn:
                        raise Refuse(test, f"the condition helper {fn.name}() ({hsrc.path}:{fn.lineno}) wraps its "
                                           f"tensor in bool()/.item(), and {other.path}:{c.lineno} also calls it outside "
                                           "a condition; make it return the tensor by hand")
        out += wrapped
    return out


def plan(project, conds, work, method):
    """{path: new text} with every item rewritten, and [(path, line, function, pattern)]; raises Refuse."""
    spans, done, taken = {}, [], {}
    for p, items in sorted(work.items()):
        src = project.sources[p]
        taken[p] = _names_in(src.tree)
        for fn, cls, block, st, trust in sorted(items, key=lambda it: it[3].lineno):
            rw = IfRewrite(src, fn, cls, conds, trust, taken[p])
            if isinstance(st, (ast.If, ast.While)):
                for hp, node, inner in helper_strips(project, conds, src, st.test, cls):
                    hsrc = project.sources[hp]
                    span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, seg(hsrc.text, inner))
                    if span not in spans.setdefault(hp, []):
                        spans[hp].append(span)
                        done.append((hp, node.lineno, "condition helper", "returns the tensor (bool()/.item() dropped)"))
            pattern, (a, b), lines = rw.rewrite(st, block, method)
            if src.text.splitlines()[a - 1].lstrip().startswith("elif"):
                # the `elif` of a static `if`: its rewrite becomes that `if`'s else block
                lines = [" " * st.col_offset + "else:"] + ["    " + ln for ln in lines]
                pattern += " (elif of a static if)"
            last_line = src.text.splitlines()[b - 1]
            spans.setdefault(p, []).append((a, 0, b, len(last_line.encode("utf-8")), "\n".join(lines)))
            done.append((p, st.lineno, fn.name, pattern))
    out = {}
    for p, sp in spans.items():
        new = replace_spans(project.sources[p].text, sp)
        out[p] = ensure_import_torch(new, ast.parse(new)) if "torch." in new else new
    return out, done


def body(a):
    file, line, function, method = a.get("file"), a.get("line"), a.get("function"), a.get("method") or "auto"
    if line and not file:
        raise FixRefused("`line` is a line of `file`: pass both (the export error names them), or neither to "
                         "rewrite every data-dependent `if` in the project")
    path = project_path(file) if file else None
    try:
        sources = project_sources()
    except ToolError:
        if not path:
            raise
        sources = []  # not a project folder: the named file alone
    if path and path not in sources:
        sources.append(path)
    project = Project(sources)
    if path and path not in project.sources:
        read(path)  # the named file does not parse: say so
    conds = Conditions(project)
    work = {}
    if path and line:
        for it in locate(project, project.sources[path], line, function, conds):
            owner = next(s for s in project.sources.values() if any(f is it[0] for f in ast.walk(s.tree)))
            work.setdefault(owner.path, []).append(it)
    else:
        functions = project.reachable(only=path)
        if path and not functions:  # no nn.Module forward reaches the file: every function of it
            src = project.sources[path]
            functions = [(src, f, src.enclosing(f, (ast.ClassDef,))) for f in ast.walk(src.tree)
                         if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for s, fn, cls in functions:
            if function and fn.name != function:
                continue
            for block, st in candidates(s, fn, cls, conds):
                work.setdefault(s.path, []).append((fn, cls, block, st, []))
        if not work:
            where = path or f"none of the project's {len(sources)} Python files"
            raise FixRefused(f"{where}: no `if` on a tensor value in forward() of an nn.Module or in what it calls; "
                             "pass `file` and `line` from the export error")
    try:
        new_texts, done = plan(project, conds, work, method)
    except Refuse as e:
        owner = next((s.path for s in project.sources.values() if any(n is e.node for n in ast.walk(s.tree))), "?")
        raise FixRefused(f"{owner}:{e.node.lineno}: {e.why}. Nothing was written; rewrite it by hand "
                         "(torch.where or torch.cond)") from None
    for p, new in new_texts.items():  # everything parses before anything is written
        try:
            ast.parse(new, filename=p)
        except SyntaxError as e:
            raise FixRefused(f"{p}:{e.lineno}: the rewrite would not parse ({e.msg}); nothing was written") from None
    guard = EagerGuard()
    if not a["dry_run"]:
        guard.baseline()
    changed, diffs = 0, []
    for p, new in sorted(new_texts.items()):
        c, d = finish(p, project.sources[p].text, new, a["dry_run"])
        changed, diffs = changed + c, diffs + [d]
    numbers = None if a["dry_run"] else guard.verify(
        {p: project.sources[p].text for p in new_texts}, where=", ".join(f"{p}:{ln}" for p, ln, _, _ in done))
    for p, ln, fn, pattern in done:
        emit.note(f"{p}:{ln}: {fn}" + ("" if fn == "condition helper" else "()") + f": {pattern}"
                  + (" (dry run: not written)" if a["dry_run"] else ""))
    rewrites = [d for d in done if d[2] != "condition helper"]
    result = {"files": sorted(new_texts), "lines": [f"{p}:{ln}" for p, ln, _, _ in rewrites],
              "patterns": [pat for *_, pat in rewrites], "rewritten": len(rewrites), "changed_lines": changed,
              "written": int(not a["dry_run"]), "diff": "".join(diffs)}
    if numbers is not None:
        result["numbers"] = numbers
        emit.note(numbers_note(numbers))
    if len(rewrites) == 1:
        result.update(file=rewrites[0][0], line=rewrites[0][1], pattern=rewrites[0][3])
    if any(pat.startswith("torch.cond") for *_, pat in rewrites):
        emit.note(TARGET_NOTE)
        result["targets"] = TARGET_NOTE
    else:
        emit.note("torch.where evaluates both branches: each must be valid (and is paid for) on every input")
    if path and line:
        rest = [f"{s.path}:{st.lineno}" for s, fn, cls in project.reachable()
                for _, st in candidates(s, fn, cls, conds)
                if not any(s.path == p and st.lineno == ln for p, ln, _, _ in rewrites)]
        if rest:
            emit.note(f"other data-dependent branches remain at {', '.join(rest)}: call again without `line` to "
                      "rewrite them all")
            result["remaining"] = rest
    return result


if __name__ == "__main__":
    emit.main("fix_branch_to_where", __file__, "export", body)

#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""fix_loop_bound (toolbox/fixes/loop_bound.py) on loops whose trip count is a tensor value, in
several code shapes: the count from a helper method over a value clamped in another method; from
a name assigned before the loop; inline in range() with round()/math.ceil, or with a start; a
tuple assignment and a temporary in the body; and loops whose end depends on the data: a
`break` on a tensor test (with a tensor count, or in a fixed loop through a helper that returns
a Python bool), a `continue`, a `while` loop with a counter cap (the counter read after it), an
uncapped `while` given a bound. For each: torch.export fails before (the error the fix
answers), the rewrite exports, and the eager outputs equal the original loop's on inputs whose
counts cover every value up to the bound. Refusals write nothing: no limit on the count (until
`bound` is given), a `return` or a nested `break` in the body, an attribute write. A `bound` below counts the inputs reach is
rolled back by the numbers guard.
"""
import importlib.util
import sys
import tempfile
from pathlib import Path

import torch

from checklib import ROOT, check, main, run_script

FIXES = ROOT / "toolbox" / "fixes"

TOML = '''target = "onnxruntime-cpu"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
'''

DATA = '''

def rows(n=48, seed=1):
    g = torch.Generator().manual_seed(seed)
    scale = torch.linspace(0.0, 3.0, n)[torch.randperm(n, generator=g)]
    return torch.randn(n, 8, generator=g) * scale[:, None]


def sample():
    return (rows()[:2],)


def held_out():
    return (rows(),), None
'''

# A helper method turns the count into a number; another method clamps it to a setting.
HELPER = '''
import torch
from torch import nn


class Limits:
    max_iters = 5


class Smoother(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = nn.Linear(8, 8)
        self.limits = Limits()

    def steps(self, x):
        return torch.clamp(torch.ceil(x.abs().mean(dim=1) * 2.0), 0, self.limits.max_iters)

    def _iters(self, s):
        return int(s.max().item())

    def forward(self, x):
        s = self.steps(x)
        h = x
        for i in range(self._iters(s)):
            h = torch.where((s > i).reshape(-1, 1), h + 0.5 * torch.tanh(self.lin(h)), h)
        return h.sum(dim=1, keepdim=True) + h


def build():
    return Smoother().eval()
''' + DATA

# The count in a name assigned before the loop, rounded; a tuple assignment and a temporary.
NAMED = '''
import torch
from torch import nn

MAX_ROUNDS = 4


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        rounds = round(float(x.std().mul(1.7).clamp(max=MAX_ROUNDS)))
        u, v = x, x * 0.5
        for _ in range(rounds):
            t = torch.relu(self.a(u))
            u, v = t + v, torch.sigmoid(self.b(v))
            v *= 0.9
        return u - v


def build():
    return Mixer().eval()
''' + DATA

# The count inline in range(), ceil'd; the limit is a clamp_max to a number.
INLINE = '''
import math

import torch
from torch import nn


class Refine(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = x
        for k in range(math.ceil(torch.clamp_max(x.abs().amax() * 1.3, 3).item())):
            y = y + torch.tanh(self.lin(y)) / (k + 1)
        return y


def build():
    return Refine().eval()
''' + DATA

UNBOUNDED = '''
import torch
from torch import nn


class Grow(nn.Module):
    def forward(self, x):
        y = x
        for _ in range(int(x.abs().max().item())):
            y = y * 0.5 + 1.0
        return y


def build():
    return Grow().eval()
''' + DATA

BREAKS = UNBOUNDED.replace("            y = y * 0.5 + 1.0\n", "            y = y * 0.5 + 1.0\n            if y.sum() > 4:\n                break\n")
RETURNS = UNBOUNDED.replace("            y = y * 0.5 + 1.0\n", "            y = y * 0.5 + 1.0\n            if y.sum() > 4:\n                return y\n")
NESTED_BREAK = UNBOUNDED.replace("            y = y * 0.5 + 1.0\n", "            y = y * 0.5 + 1.0\n            if y.sum() > 4:\n"
                                 "                y = y - 1.0\n                break\n")

# A fixed number of refinement passes that stops early once a helper method says the state has
# settled (the helper turns the tensor test into a Python bool).
SETTLES = '''
import torch
from torch import nn


class Relax(nn.Module):
    def __init__(self, passes=8, tol=0.05):
        super().__init__()
        torch.manual_seed(3)
        self.lin = nn.Linear(8, 8)
        self.passes, self.tol = passes, tol

    def _settled(self, new, old):
        return bool((new - old).abs().max() < self.tol)

    def forward(self, x):
        h = x
        for step in range(self.passes):
            prev = h
            h = 0.5 * h + 0.5 * torch.tanh(self.lin(h))
            if self._settled(h, prev):
                break
            h = h * 1.01
        return h


def build():
    return Relax().eval()
''' + DATA

# A while loop with its own cap and a tensor convergence test; the counter is returned.
WHILE_CAPPED = '''
import torch
from torch import nn

TOLERANCE = 0.02


class Solver(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(4)
        self.lin = nn.Linear(8, 8)
        self.max_steps = 6

    def forward(self, x):
        z = torch.zeros_like(x)
        err = x.abs().amax()
        steps = 0
        while steps < self.max_steps and err > TOLERANCE:
            z_next = 0.6 * torch.tanh(self.lin(z)) + 0.4 * x
            err = (z_next - z).abs().amax()
            z = z_next
            steps += 1
        return z * (1.0 + 0.01 * steps)


def build():
    return Solver().eval()
''' + DATA

# The same loop with a value first assigned in it and read after it, and a tensor count whose
# loop leaves its last step in a name first set in the body.
# (The first pass always runs: where it does not, the original raises NameError after the loop.)
WHILE_LATE = WHILE_CAPPED.replace("            z = z_next\n", "            z = z_next\n            last = z_next - z * 0.5\n").replace(
    "        return z * (1.0 + 0.01 * steps)", "        return z * (1.0 + 0.01 * steps) + last").replace(
    "        err = x.abs().amax()\n", "        err = x.abs().amax() + 1.0\n")
COUNT_LATE = UNBOUNDED.replace("            y = y * 0.5 + 1.0\n", "            step = y * 0.25\n            y = y * 0.5 + 1.0\n").replace(
    "        return y\n", "        return y + step\n", 1).replace(
    "range(int(x.abs().max().item()))", "range(int(x.abs().max().clamp(max=6).item()) + 1)")

WHILE_UNCAPPED = '''
import torch
from torch import nn


class Halve(nn.Module):
    def forward(self, x):
        y = x
        while y.abs().max() > 1.0:
            y = y * 0.5
        return y


def build():
    return Halve().eval()
''' + DATA

# A data-dependent `continue` in a loop over a fixed range, and a tensor count with a start.
SKIPS = '''
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))

    def forward(self, x):
        h = x
        for k in range(len(self.layers)):
            energy = h.pow(2).mean()
            if energy.item() < 0.05 * (k + 1):
                continue
            h = h + 0.3 * torch.tanh(self.layers[k](h))
        lo = 1
        for j in range(lo, int(torch.clamp(h.abs().mean() * 4, max=5).item())):
            h = h * 0.9 + 0.01 * j
        return h


def build():
    return Gate().eval()
''' + DATA

# An early-exit stack over a ModuleList: the state changes width from block to block, and the
# output is first assigned in the loop and read after it.
EXITS = '''
import torch
from torch import nn


def confident(scores, floor):
    return bool(scores.softmax(-1).amax(-1).min() >= floor)


class Block(nn.Module):
    def __init__(self, width_in, width_out):
        super().__init__()
        self.body = nn.Linear(width_in, width_out)
        self.head = nn.Linear(width_out, 3)

    def forward(self, z):
        z = torch.relu(self.body(z))
        return z, self.head(z)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(6)
        self.blocks = nn.ModuleList([Block(8, 16), Block(16, 12), Block(12, 6)])
        self.floor = 0.55

    def forward(self, x):
        state = x
        for block in self.blocks:
            state, scores = block(state)
            if confident(scores, self.floor):
                break
        return scores * 2.0


def build():
    return Stack().eval()
''' + DATA

WRITES = UNBOUNDED.replace("            y = y * 0.5 + 1.0\n", "            self.last = y\n            y = y * 0.5 + 1.0\n")


def project(source):
    d = Path(tempfile.mkdtemp(prefix="aipc-loop-bound-"))
    (d / "net.py").write_text(source)
    (d / "aipc.toml").write_text(TOML)
    return d


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def fix(d, args):
    return run_script(FIXES, d, "loop_bound.py", args)


def loop_line(source, needle="for "):
    return next(i for i, line in enumerate(source.splitlines(), 1) if line.strip().startswith(needle))


def exports(model, x):
    try:
        torch.export.export(model, (x,), strict=False)
        return True, ""
    except Exception as e:  # noqa: BLE001 -- any export failure is the answer
        return False, f"{type(e).__name__}: {e}"


def rewritten_matches(d, source, args, tag):
    before = load(d / "net.py", f"before_{tag}")
    ok, err = exports(before.build(), before.sample()[0])
    assert not ok and "data-dependent" in err, err[:400]
    res, out = fix(d, args)
    assert res["ok"], out
    assert res["numbers"]["checked"] and res["numbers"]["max_abs_diff"] == 0.0 or res["numbers"]["max_abs_diff"] < 1e-5, out
    after = load(d / "net.py", f"after_{tag}")
    # Inputs from quiet to loud: every count from 0 to past the limit, one row at a time and as batches.
    xs = [torch.randn(3, 8, generator=torch.Generator().manual_seed(s)) * k for s, k in
          enumerate((0.0, 0.05, 0.3, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 20.0))]
    with torch.no_grad():
        for x in xs + [torch.cat(xs)]:
            a, b = before.build()(x), after.build()(x)
            assert torch.allclose(a, b, atol=1e-6, rtol=1e-6), (tag, (a - b).abs().max())
    ok, err = exports(after.build(), after.sample()[0])
    assert ok, err[:400]
    return res, out


@check
def a_count_from_a_helper_over_a_clamped_value_gets_the_code_limit_and_exports():
    d = project(HELPER)
    helper_line = next(i for i, line in enumerate(HELPER.splitlines(), 1) if "int(s.max().item())" in line)
    res, out = rewritten_matches(d, HELPER, {"file": str((d / "net.py").resolve()), "line": helper_line,
                                             "function": "_iters"}, "helper")
    assert res["bound"] == "self.limits.max_iters" and res["bound_from"] == "the code's own limit", res
    assert res["line"] == loop_line(HELPER) and res["count"] == "s.max()", res
    assert "for i in range(int(self.limits.max_iters)):" in (d / "net.py").read_text()


@check
def a_count_in_a_name_rounded_with_a_tuple_assignment_and_a_temporary():
    d = project(NAMED)
    line = next(i for i, l in enumerate(NAMED.splitlines(), 1) if "rounds = round(" in l)
    res, _ = rewritten_matches(d, NAMED, {"file": "net.py", "line": line}, "named")
    assert res["bound"] == "MAX_ROUNDS" and "torch.round" in res["test"], res


@check
def a_count_inline_in_range_with_ceil_and_a_clamp_max_limit():
    d = project(INLINE)
    res, _ = rewritten_matches(d, INLINE, {"file": "net.py", "line": loop_line(INLINE)}, "inline")
    assert res["bound"] == "3" and res["test"] == f"k < n_trips_l{loop_line(INLINE)}", res


@check
def no_limit_is_refused_until_a_bound_is_given_and_a_low_bound_is_rolled_back():
    d = project(UNBOUNDED)
    line = loop_line(UNBOUNDED)
    res, out = fix(d, {"file": "net.py", "line": line})
    assert not res["ok"] and "has no upper limit in the code" in res["error"] and f"net.py:{line}" in res["error"], out
    assert (d / "net.py").read_text() == UNBOUNDED
    # Counts on the example x10 reach past 2: a bound of 2 moves the outputs and is rolled back.
    res, out = fix(d, {"file": "net.py", "line": line, "bound": "2"})
    assert not res["ok"] and (d / "net.py").read_text() == UNBOUNDED, out
    res, out = fix(d, {"file": "net.py", "line": line, "bound": "64"})
    assert res["ok"] and res["bound_from"] == "given" and res["numbers"]["checked"], out


@check
def a_tensor_count_with_a_data_dependent_break_is_masked_from_the_pass_that_breaks():
    d = project(BREAKS)
    res, out = rewritten_matches(d, BREAKS, {"file": "net.py", "line": loop_line(BREAKS, "if y.sum()"), "bound": "64"},
                                 "breaks")
    assert res["exits"] == [f"break at line {loop_line(BREAKS, 'if y.sum()')}"], res


@check
def a_fixed_loop_ending_on_a_helper_test_keeps_its_passes_and_drops_the_helper_bool():
    d = project(SETTLES)
    line = loop_line(SETTLES, "if self._settled")
    res, out = rewritten_matches(d, SETTLES, {"file": str((d / "net.py").resolve()), "line": line,
                                              "function": "forward"}, "settles")
    assert res["bound"] == "self.passes" and res["count"] is None, res
    text = (d / "net.py").read_text()
    assert "for step in range(self.passes):" in text and "(h - prev).abs().max() < self.tol" in text, text


@check
def a_capped_while_loop_becomes_its_passes_with_the_counter_masked():
    d = project(WHILE_CAPPED)
    line = loop_line(WHILE_CAPPED, "while ")
    res, out = rewritten_matches(d, WHILE_CAPPED, {"file": "net.py", "line": line}, "while")
    assert res["bound"] == "int(self.max_steps)" and res["bound_from"] == "the loop's own counter", res
    assert "steps = torch.where(running_l" in (d / "net.py").read_text()


@check
def a_name_first_assigned_in_the_loop_and_read_after_it_keeps_its_last_live_value():
    d = project(WHILE_LATE)
    res, out = rewritten_matches(d, WHILE_LATE, {"file": "net.py", "line": loop_line(WHILE_LATE, "while ")}, "late")
    assert "last = None" in (d / "net.py").read_text()
    d = project(COUNT_LATE)
    res, _ = rewritten_matches(d, COUNT_LATE, {"file": "net.py", "line": loop_line(COUNT_LATE)}, "count_late")
    # int() inside arithmetic keeps its rounding as a tensor op; the limit carries through the + 1.
    assert res["count"] == "torch.trunc(x.abs().max().clamp(max=6)) + 1" and res["bound"] == "(6) + 1", res


@check
def an_uncapped_while_is_refused_until_a_bound_is_given():
    d = project(WHILE_UNCAPPED)
    line = loop_line(WHILE_UNCAPPED, "while ")
    res, out = fix(d, {"file": "net.py", "line": line})
    assert not res["ok"] and "no iteration cap" in res["error"] and f"net.py:{line}" in res["error"], out
    assert (d / "net.py").read_text() == WHILE_UNCAPPED
    rewritten_matches(d, WHILE_UNCAPPED, {"file": "net.py", "line": line, "bound": "40"}, "uncapped")


@check
def a_data_dependent_continue_and_a_count_with_a_start():
    d = project(SKIPS)
    before = load(d / "net.py", "before_skips")
    res, out = fix(d, {"file": "net.py", "line": loop_line(SKIPS, "if energy")})
    assert res["ok"] and res["exits"][0].startswith("continue") and res["numbers"]["max_abs_diff"] < 1e-6, out
    assert "live_l" in (d / "net.py").read_text()
    # The second loop still stops the export: its count is the next fix's.
    res, out = fix(d, {"file": "net.py", "line": loop_line(SKIPS, "for j in")})
    assert res["ok"] and res["bound"] == "5" and res["numbers"]["max_abs_diff"] < 1e-6, out
    assert "for j in range(lo, 5):" in (d / "net.py").read_text()
    after = load(d / "net.py", "after_skips")
    xs = [torch.randn(3, 8, generator=torch.Generator().manual_seed(s)) * k for s, k in
          enumerate((0.0, 0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 2.0, 4.0))]
    with torch.no_grad():
        for x in xs + [torch.cat(xs)]:
            a, b = before.build()(x), after.build()(x)
            assert torch.allclose(a, b, atol=1e-6, rtol=1e-6), (a - b).abs().max()
    ok, err = exports(after.build(), after.sample()[0])
    assert ok, err[:400]


@check
def an_early_exit_over_a_module_list_with_a_changing_width_and_an_output_first_set_in_the_loop():
    d = project(EXITS)
    line = loop_line(EXITS, "if confident")
    res, out = rewritten_matches(d, EXITS, {"file": "net.py", "line": line, "function": "forward"}, "exits")
    text = (d / "net.py").read_text()
    assert "for block in self.blocks:" in text and "scores = None" in text, text
    assert "state = state_pass" in text, text
    # The exit is taken at different blocks for different inputs (else the check proves nothing).
    m = load(d / "net.py", "exits_probe").build()
    passes = set()
    with torch.no_grad():
        for k in (0.0, 0.3, 1.0, 3.0, 10.0, 30.0):
            x = torch.randn(1, 8, generator=torch.Generator().manual_seed(int(k * 10))) * k
            h = x
            for i, block in enumerate(m.blocks):
                h, sc = block(h)
                if sc.softmax(-1).amax(-1).min() >= m.floor:
                    break
            passes.add(i)
    assert len(passes) > 1, passes


@check
def returns_nested_breaks_and_attribute_writes_are_refused_with_file_and_line_writing_nothing():
    for source, why in ((RETURNS, "return"), (NESTED_BREAK, "a nested block"), (WRITES, "attribute, subscript")):
        d = project(source)
        res, out = fix(d, {"file": "net.py", "line": loop_line(source), "bound": "64"})
        assert not res["ok"], out
        assert "net.py:" in res["error"], res["error"]
        assert (d / "net.py").read_text() == source, why
    d = project(UNBOUNDED)
    res, out = fix(d, {"file": "net.py", "line": 2})
    assert not res["ok"] and "no `for ... in range(...)` or `while` loop" in res["error"], out


@check
def the_innermost_rounding_decides_the_pass_test():
    import loop_bound

    cases = (("int(math.ceil(t.item()))", "ceil"), ("math.ceil(t.item())", "ceil"), ("int(t.max().item())", "trunc"),
             ("round(float(t))", "round"), ("int(round(float(t)))", "round"), ("t.item()", "exact"),
             ("t.long().item()", "trunc"), ("math.floor(t.sum().item())", "trunc"))
    for text, kind in cases:
        path = Path(tempfile.mkdtemp(prefix="aipc-loop-kind-")) / "m.py"
        path.write_text(f"import math\n\n\ndef f(t):\n    for i in range({text}):\n        pass\n")
        src = loop_bound.Source(str(path))
        fn = src.tree.body[1]
        scope = loop_bound.Scope(src, fn, fn.body[0])
        _, found, _ = loop_bound.count_tensor(scope, fn.body[0].iter.args[0])
        assert found == kind, (text, found, kind)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""fix_branch_to_where on the code shapes of data-dependent control flow, checked numerically.

Every rewrite case writes a small project to a temporary folder and
- runs the original through torch.export, which must fail with GuardOnDataDependentSymNode; the
  tool is then called the way a session calls it (with the file, line and function that error
  names, the file as the absolute path the traceback prints), or without arguments (project scan);
- checks, by tracing the lines the original executes, that the fixed-seed inputs take EVERY branch
  of every `if` the tool rewrote;
- compares the rewritten module with the original on those inputs (eager), checks torch.export
  now succeeds and the exported program gives the same numbers;
- in the venv that has onnxruntime, exports to ONNX (dynamo) and runs it in onnxruntime; in the
  venv that has ExecuTorch, lowers with XNNPACK, runs the .pte and compares.
Refusal cases check the message names file:line and that no file changed.

Run with a target venv's python:
    QNN_SDK_ROOT= ~/.cache/aipc/toolchains/onnxruntime-cpu/venv/bin/python toolbox/tests/check_control_flow.py
    QNN_SDK_ROOT= ~/.cache/aipc/toolchains/executorch-xnnpack/venv/bin/python toolbox/tests/check_control_flow.py
"""
import ast
import contextlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from checklib import ROOT, check, main

import torch

SCRIPT = ROOT / "toolbox" / "fixes" / "branch_to_where.py"
HAS_ORT = importlib.util.find_spec("onnxruntime") is not None
HAS_ET = importlib.util.find_spec("executorch") is not None
RAISED = re.compile(r'The following call raised this error:\s*File "([^"]+)", line (\d+), in (\w+)')
# A guard on a Python float/int symbol (after .item()) names the user's line only here, the path cut short.
CAUSED = re.compile(r'Caused by: \(([^():\s]+\.py):(\d+) in (\w+)\)')


def _write(folder, files):
    for name, text in files.items():
        if text.startswith(HEAD):
            text = HEAD + textwrap.dedent(text[len(HEAD):])
        Path(folder, name).write_text(textwrap.dedent(text).lstrip("\n"))


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in Path(folder).glob("*.py")}


def _tool(folder, args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
    p = subprocess.run([sys.executable, str(SCRIPT), "--args-json", json.dumps(args)], cwd=folder, env=env,
                       capture_output=True, text=True)
    lines = p.stdout.strip().splitlines()
    assert lines, p.stderr
    return p.returncode, json.loads(lines[-1]), p.stdout


_COUNT = [0]


def _load(folder, module, cls):
    """Import `module` from `folder` under a fresh name (its project imports resolved in folder)."""
    _COUNT[0] += 1
    sys.path.insert(0, str(folder))
    try:
        for name in [m for m, v in sys.modules.items() if getattr(v, "__file__", None)
                     and os.path.dirname(os.path.abspath(v.__file__)).startswith(tempfile.gettempdir())]:
            del sys.modules[name]
        spec = importlib.util.spec_from_file_location(f"{module}_{_COUNT[0]}", Path(folder, f"{module}.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return getattr(mod, cls)
    finally:
        sys.path.remove(str(folder))


def _export_error(model, inputs):
    try:
        torch.export.export(model, inputs)
    except Exception as e:  # noqa: BLE001
        text = f"{type(e).__name__}: {e}"
        assert "GuardOnDataDependentSymNode" in text or "data-dependent" in text, text[:500]
        m = RAISED.search(text) or CAUSED.search(text)
        assert m, text[-800:]
        return m.group(1), int(m.group(2)), m.group(3)
    raise AssertionError("torch.export succeeded on the original: the case does not test anything")


def _covered(folder, model, inputs_list, rewritten_lines):
    """Every statement of every branch of the rewritten `if`s runs for some input."""
    files = {str(Path(folder, f).resolve()) for f in os.listdir(folder) if f.endswith(".py")}
    hit = set()

    def tracer(frame, event, arg):
        path = str(Path(frame.f_code.co_filename).resolve())
        if path in files:
            if event == "line":
                hit.add((os.path.basename(path), frame.f_lineno))
            return tracer
        return None

    sys.settrace(tracer)
    try:
        with torch.no_grad():
            for inputs in inputs_list:
                model(*inputs)
    finally:
        sys.settrace(None)
    for name, line in rewritten_lines:
        tree = ast.parse(Path(folder, name).read_text())
        node = next(n for n in ast.walk(tree) if isinstance(n, (ast.If, ast.stmt)) and n.lineno == line)
        ifs = [n for n in ast.walk(node) if isinstance(n, ast.If)]
        for i in ifs:
            for branch in (i.body, i.orelse):
                if branch and not (len(branch) == 1 and isinstance(branch[0], ast.If)):
                    assert (name, branch[0].lineno) in hit, f"no input takes the branch at {name}:{branch[0].lineno}"


def _outputs(y):
    return [t.detach() for t in (y if isinstance(y, (tuple, list)) else (y,))]


def _same(a, b, tol=0.0, what=""):
    a, b = _outputs(a), _outputs(b)
    assert len(a) == len(b), what
    for x, y in zip(a, b):
        x, y = torch.as_tensor(x), torch.as_tensor(y)
        assert x.shape == y.shape, f"{what}: shape {tuple(x.shape)} vs {tuple(y.shape)}"
        err = (x.float() - y.float()).abs().max().item() if x.numel() else 0.0
        assert err <= tol, f"{what}: max abs err {err}"


def _ort(model, inputs_list, folder):
    import onnxruntime as ort

    path = str(Path(folder, "m.onnx"))
    with contextlib.redirect_stdout(io.StringIO()):
        torch.onnx.export(model, inputs_list[0], path, dynamo=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    for inputs in inputs_list:
        got = sess.run(None, {n: t.numpy() for n, t in zip(names, inputs)})
        _same(model(*inputs), [torch.from_numpy(g) for g in got], 1e-5, "onnxruntime vs eager")
    return path


def _et(ep, model, inputs_list, folder):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    path = str(Path(folder, "m.pte"))
    with open(path, "wb") as f:
        f.write(prog.buffer)
    method = Runtime.get().load_program(path).load_method("forward")
    for inputs in inputs_list:
        _same(model(*inputs), method.execute(list(inputs)), 1e-5, "ExecuTorch .pte vs eager")


def rewrite_case(files, cls, inputs_list, call="evidence", expect_patterns=(), runtimes=True, module="model"):
    """Original fails to export; the tool (called from the error's evidence, or `call` args)
    rewrites; the new module matches the old one on inputs that take every branch, exports, and
    runs in this venv's runtime. Returns the tool's result."""
    with tempfile.TemporaryDirectory() as orig, tempfile.TemporaryDirectory() as proj:
        _write(orig, files)
        _write(proj, files)
        torch.manual_seed(0)
        old = _load(orig, module, cls)().eval()
        path, line, function = _export_error(old, inputs_list[0])
        if call == "evidence":
            args = {"file": path, "line": line, "function": function}  # the absolute path, as printed
        else:
            args = dict(call)
        rc, res, out = _tool(proj, args)
        assert rc == 0, out
        for pat in expect_patterns:
            assert any(pat in p for p in res["patterns"]), (pat, res["patterns"])
        rewritten = [(os.path.basename(x.split(":")[0]), int(x.split(":")[1])) for x in res["lines"]]
        _covered(orig, old, inputs_list, rewritten)
        new = _load(proj, module, cls)().eval()
        new.load_state_dict(old.state_dict())
        with torch.no_grad():
            for inputs in inputs_list:
                _same(old(*inputs), new(*inputs), 0.0, "rewritten vs original (eager)")
            ep = torch.export.export(new, inputs_list[0])
            for inputs in inputs_list:
                _same(old(*inputs), ep.module()(*inputs), 1e-6, "exported program vs original")
            if runtimes and HAS_ORT:
                _ort(new, inputs_list, proj)
            if runtimes and HAS_ET:
                _et(ep, new, inputs_list, proj)
        return res


def refuse_case(files, call, where, reason):
    with tempfile.TemporaryDirectory() as proj:
        _write(proj, files)
        before = _snapshot(proj)
        rc, res, out = _tool(proj, call)
        assert rc == 1, out
        assert where in res["error"] and reason in res["error"], res["error"]
        assert "Nothing was written" in res["error"], res["error"]
        assert _snapshot(proj) == before, "a refused rewrite changed a file"
        return res


def _x(seed, shape, shift=0.0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * scale + shift,)


HEAD = """
import torch
from torch import nn

"""


ONE_LINE_NET = HEAD + """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 3)

        def forward(self, x):
            if x.mean() > 0.5:
                x = 1.0 - x
            return self.fc(x)
    """


@check
def one_line_assign():
    rewrite_case({"model.py": ONE_LINE_NET}, "Net", [_x(1, (2, 6), 2.0), _x(2, (2, 6), -2.0)],
                 expect_patterns=["where-assign"])


@check
def multi_line_several_variables_augassign_temporaries():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(6, 6)

            def forward(self, x):
                h = self.fc(x)
                g = h * 0.5
                if h.abs().max() > 1.5:
                    peak = h.abs().max()
                    h = h / peak
                    g += h
                else:
                    h = torch.relu(h)
                    g = g - 1.0
                return h + g
        """}, "Net", [_x(3, (2, 6), 0.0, 5.0), _x(4, (2, 6), 0.0, 0.01)])


@check
def elif_chain_returns():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                m = x.mean()
                if m > 1.0:
                    return x - 1.0
                elif m < -1.0:
                    y = x + 1.0
                    return y * 2.0
                else:
                    return x * 0.5
        """}, "Net", [_x(5, (3, 4), 3.0), _x(6, (3, 4), -3.0), _x(7, (3, 4), 0.0, 0.1)],
        expect_patterns=["elif chain"])


@check
def nested_if_assign():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                y = x
                if x.sum() > 0:
                    if x.max() > 3.0:
                        y = x / x.max()
                    else:
                        y = x * 2.0
                else:
                    y = -x
                return y + 1.0
        """}, "Net", [_x(8, (2, 5), 4.0, 0.5), _x(9, (2, 5), 0.5, 0.1), _x(10, (2, 5), -2.0)])


@check
def branch_in_a_helper_method():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def _polarity(self, x):
                if x.mean() > 0.5:
                    flipped = 1.0 - x
                    x = flipped.clamp(0.0, 1.0)
                return x

            def forward(self, x):
                return self.fc(self._polarity(x))
        """}, "Net", [_x(11, (2, 4), 2.0), _x(12, (2, 4), -1.0)])


@check
def condition_computed_in_a_helper_function_in_another_file():
    # The export error names the helper's line (bool() raises there), not the `if`.
    res = rewrite_case({
        "helpers.py": """
            def is_bright(x, t=0.5):
                return bool(x.mean() > t)
            """,
        "model.py": HEAD + """
        from helpers import is_bright


        class Net(nn.Module):
            def forward(self, x):
                if is_bright(x):
                    x = 1.0 - x
                    x = x * 2.0
                return x.sum(dim=1)
        """}, "Net", [_x(13, (2, 4), 2.0), _x(14, (2, 4), -2.0)])
    assert res["lines"] == ["model.py:10"] and res["files"] == ["helpers.py", "model.py"], res
    assert "+    return x.mean() > t" in res["diff"], res["diff"]


@check
def early_return():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                s = x.norm()
                if s < 1.0:
                    return self.fc(x) * 0.0
                x = x / s
                out = self.fc(x)
                return out
        """}, "Net", [_x(15, (2, 4), 0.0, 0.05), _x(16, (2, 4), 0.0, 3.0)], expect_patterns=["early return"])


@check
def two_separate_ifs_and_static_ones_left_alone_by_a_project_scan():
    files = {"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                if x.dim() == 3:
                    x = x.flatten(1)
                if self.training:
                    x = x * 1.0
                if x.mean() > 0:
                    x = x - 1.0
                y = x * 2.0
                if y.max() > 5.0:
                    y = y / 5.0
                return y
        """}
    res = rewrite_case(files, "Net", [_x(17, (2, 6), 3.0), _x(18, (2, 6), -1.0), _x(19, (2, 6), 1.0, 0.01)], call={})
    assert res["lines"] == ["model.py:11", "model.py:14"], res
    assert "-        if x.dim()" not in res["diff"] and "-        if self.training" not in res["diff"], res["diff"]


@check
def elif_on_a_tensor_after_a_static_if_and_item_in_a_helper():
    # The error names the `elif` line (the static `if` before it raises nothing); the helper's
    # .item() is where the second class raises: both come from the export error's evidence.
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                if x.dim() == 3:
                    y = x.flatten(1)
                elif bool(x.sum() > 0):
                    y = self.fc(x)
                    y = y * 0.5
                else:
                    y = x
                return y
        """}, "Net", [_x(32, (2, 4), 2.0), _x(33, (2, 4), -2.0)], expect_patterns=["elif of a static if"])
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def _energy(self, x):
                return (x * x).mean().item()

            def forward(self, x):
                if self._energy(x) > 1.0:
                    x = x / 2.0
                return x
        """}, "Net", [_x(34, (2, 4), 0.0, 3.0), _x(35, (2, 4), 0.0, 0.1)])


@check
def branch_in_a_base_class_helper_found_by_a_project_scan():
    rewrite_case({"model.py": HEAD + """
        class Base(nn.Module):
            def _squash(self, x):
                if x.abs().max() > 1.0:
                    x = torch.tanh(x)
                return x


        class Net(Base):
            def forward(self, x):
                return self._squash(x) * 3.0
        """}, "Net", [_x(36, (2, 4), 0.0, 4.0), _x(37, (2, 4), 0.0, 0.1)], call={})


@check
def branch_in_a_submodule_forward():
    rewrite_case({"model.py": HEAD + """
        class Gate(nn.Module):
            def forward(self, x):
                if x.abs().mean() > 1.0:
                    return torch.tanh(x)
                else:
                    return x


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.gate = Gate()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(self.gate(x))
        """}, "Net", [_x(20, (2, 4), 0.0, 5.0), _x(21, (2, 4), 0.0, 0.1)])


@check
def branch_between_two_submodules_one_named_like_a_random_draw():
    # `self.normal` is a submodule, not torch.normal: both sub-networks run, one is selected.
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.low = nn.Linear(4, 4)
                self.normal = nn.Linear(4, 4)

            def route(self, frame):
                if frame.mean() < 0.0:
                    return self.low(frame * 4.0)
                return self.normal(frame)

            def forward(self, x):
                return torch.stack([self.route(f) for f in x.unbind(0)])
        """}, "Net", [_x(24, (2, 4), -3.0), _x(25, (2, 4), 3.0)])


@check
def per_batch_all_any():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                if (x > 0).all():
                    x = x.log()
                elif torch.isnan(x).any() or (x < -5).any():
                    x = torch.zeros_like(x)
                return x + 1.0
        """}, "Net", [(torch.rand(2, 3) + 0.1,), _x(22, (2, 3), 0.0, 10.0), _x(23, (2, 3), 0.0, 0.5)])


@check
def tuple_returns_and_conditional_expression():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                scale = 2.0 if x.mean() > 0 else 0.5
                y = x * scale
                if y.sum() > 0:
                    return y, y.sum(dim=1)
                return -y, y.mean(dim=1)
        """}, "Net", [_x(24, (2, 3), 2.0), _x(25, (2, 3), -2.0)], call={"file": "model.py"})


@check
def for_loop_in_a_branch_is_hoisted_into_the_where_form():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                y = self.fc(x)
                if y.mean() > 0:
                    for i in range(3):
                        y = self.fc(torch.tanh(y)) + i
                else:
                    y = y - 1.0
                return y
        """}, "Net", [_x(30, (2, 4), 3.0), _x(31, (2, 4), -3.0)], expect_patterns=["where-assign"])


@check
def while_loop_in_a_branch_becomes_torch_cond():
    # torch.cond with elementwise branches: an ONNX If, and ExecuTorch lowers it (portable kernels).
    res = rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                y = x * 1.5
                if y.mean() > 0:
                    k = 0
                    while k < 3:
                        y = torch.tanh(y) * 2.0
                        k += 1
                else:
                    y = y - 1.0
                return y + x
        """}, "Net", [_x(26, (2, 4), 1.0), _x(27, (2, 4), -1.0)], expect_patterns=["torch.cond"])
    assert "If node" in res["targets"], res


@check
def method_cond_on_request():
    rewrite_case({"model.py": HEAD + """
        class Net(nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    y = x * 2.0
                    z = y + 1.0
                else:
                    z = x - 1.0
                return z
        """}, "Net", [_x(28, (2, 4), 1.0), _x(29, (2, 4), -1.0)], call={"file": "model.py", "method": "cond"},
        expect_patterns=["torch.cond"])


@check
def executorch_lowers_no_cond_branch_with_linear():
    """What the tool's note says: XNNPACK delegates nothing inside a torch.cond branch and lowering
    refuses a branch holding an op it keeps whole (linear); the where form of it lowers."""
    if not HAS_ET:
        return
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            return torch.cond(x.mean() > 0, lambda x: self.fc(x) * 2, lambda x: self.fc(x) - 1, (x,))

    ep = torch.export.export(M().eval(), (torch.randn(2, 4),))
    try:
        to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    except RuntimeError as e:
        assert "not decomposed or delegated" in str(e), e
    else:
        raise AssertionError("ExecuTorch now lowers torch.cond with linear in a branch: update the tool's target note")


REFUSE_HEAD = HEAD + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0

    def forward(self, x):
"""


@check
def refuses_in_place_op():
    refuse_case({"model.py": REFUSE_HEAD + """\
        if x.mean() > 0:
            x.add_(1.0)
        return x
"""}, {"file": "model.py", "line": 11}, "model.py:12", "in place")


@check
def refuses_state_mutation():
    refuse_case({"model.py": REFUSE_HEAD + """\
        if x.mean() > 0:
            self.count = self.count + 1
            x = x * 2
        return x
"""}, {"file": "model.py", "line": 11}, "model.py:12", "state mutation")


@check
def refuses_loop_with_break_on_tensor():
    refuse_case({"model.py": REFUSE_HEAD + """\
        for _ in range(8):
            x = x * 0.5
            if x.abs().max() < 0.1:
                break
        return x
"""}, {}, "model.py:13", "break")


@check
def refuses_different_shapes():
    refuse_case({"model.py": REFUSE_HEAD + """\
        if x.sum() > 0:
            return x.sum(dim=1)
        return x
"""}, {"file": "model.py", "line": 11}, "model.py:11", "shapes differ")


@check
def refuses_side_effect_and_undefined_variable():
    refuse_case({"model.py": REFUSE_HEAD + """\
        if x.mean() > 0:
            print("bright")
            x = 1 - x
        return x
"""}, {"file": "model.py", "line": 11}, "model.py:12", "side effect")
    refuse_case({"model.py": REFUSE_HEAD + """\
        if x.mean() > 0:
            y = x * 2
        return x + y
"""}, {"file": "model.py"}, "model.py:11", "no value before")


@check
def refuses_random_draw_and_in_place_update_of_an_alias():
    refuse_case({"model.py": REFUSE_HEAD + """\
        if x.mean() > 0:
            x = x + torch.randn_like(x)
        return x
"""}, {"file": "model.py", "line": 11}, "model.py:12", "random")
    refuse_case({"model.py": REFUSE_HEAD + """\
        y = x
        if x.mean() > 0:
            y += 1.0
        return x + y
"""}, {"file": "model.py", "line": 12}, "model.py:13", "in place")


@check
def refusal_in_one_file_leaves_every_file_unchanged():
    refuse_case({
        "a.py": HEAD + """
            class A(nn.Module):
                def forward(self, x):
                    if x.mean() > 0:
                        x = x * 2
                    return x
            """,
        "b.py": HEAD + """
            class B(nn.Module):
                def forward(self, x):
                    if x.mean() > 0:
                        x.mul_(2)
                    return x
            """}, {}, "b.py:8", "in place")


@check
def static_conditions_are_not_rewritten():
    with tempfile.TemporaryDirectory() as proj:
        _write(proj, {"model.py": HEAD + """
            class Net(nn.Module):
                def forward(self, x):
                    if x.shape[0] > 1:
                        x = x * 2
                    return x
            """})
        rc, res, out = _tool(proj, {})
        assert rc == 1 and "no `if` on a tensor value" in res["error"], out
        rc, res, out = _tool(proj, {"file": "model.py", "line": 7})
        assert rc == 1 and "reads shape" in res["error"] and "model.py:7" in res["error"], out
        # A file name the project does not have (copied from an example): the error lists what it has.
        rc, res, out = _tool(proj, {"file": "net.py", "line": 7})
        assert rc == 1 and "net.py: not found in the project" in res["error"], out
        assert "the project's Python files are: model.py" in res["error"], out


@check
def in_a_project_the_rewritten_model_is_checked_against_the_original_numbers():
    # With an aipc.toml, the tool runs the model before and after on the project's example inputs
    # (aipc_toolbox/eager_guard.py) and says what it measured; the rollback itself is checked in
    # check_replace_function.py, whose bodies can move the numbers.
    with tempfile.TemporaryDirectory() as proj:
        _write(proj, {"model.py": ONE_LINE_NET, "entries.py": """
            import torch

            from model import Net


            def load_model():
                torch.manual_seed(0)
                return Net()


            def example_inputs():
                return (torch.linspace(0, 2, 12).reshape(2, 6),)
            """})
        Path(proj, "aipc.toml").write_text('[project]\nmodel = "entries:load_model"\n'
                                           'example_inputs = "entries:example_inputs"\n')
        rc, res, out = _tool(proj, {})
        assert rc == 0 and res["numbers"]["checked"] is True, out
        assert res["numbers"]["max_abs_diff"] <= res["numbers"]["tolerance"], out
        assert "numbers checked: the model's outputs are as before" in out, out


if __name__ == "__main__":
    main()

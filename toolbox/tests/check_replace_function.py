#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""replace_function (toolbox/fixes/replace_function.py): the body of one function replaced by
name in several code shapes (method, nested class, module function, docstring kept, decorator
kept, whole function with the same def line), and the refusals (does not parse, signature
changed, ambiguous name, not found, empty, a placeholder, a lost return value, the model's
numbers moved), each leaving the file unchanged."""
import contextlib
import io
import os
import tempfile
import textwrap

from checklib import check, main, raises

import replace_function

MODEL = textwrap.dedent('''\
    import torch


    class Net(torch.nn.Module):
        """A net."""

        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        @torch.no_grad()
        def forward(self, x,
                    scale: float = 1.0):
            """Forward."""
            if x.sum() > 0:
                x = x * 2
            return self.fc(x) * scale

        # a comment after forward


    class Head(torch.nn.Module):
        def forward(self, x):
            return x


    def preprocess(x):
        return x / 16.0
    ''')


def _run(files, **kw):
    a = {"file": None, "dry_run": False}
    a.update(kw)
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        cwd = os.getcwd()
        os.chdir(d)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    result = replace_function.body(a)
                except Exception as e:  # noqa: BLE001
                    after = {n: open(n).read() for n in files}
                    assert after == files, "a refused call changed a file"
                    raise e
            return result, {n: open(n).read() for n in files}
        finally:
            os.chdir(cwd)


@check
def a_method_body_is_replaced_keeping_decorator_signature_docstring_and_comments():
    r, out = _run({"model.py": MODEL}, function="Net.forward",
                  body="x = torch.where(x.sum() > 0, x * 2, x)\nreturn self.fc(x) * scale\n")
    text = out["model.py"]
    assert r["function"] == "forward" and r["line"] == 12, r
    expected = ('    @torch.no_grad()\n    def forward(self, x,\n                scale: float = 1.0):\n'
                '        """Forward."""\n        x = torch.where(x.sum() > 0, x * 2, x)\n'
                '        return self.fc(x) * scale\n\n    # a comment after forward\n')
    assert expected in text, text
    assert "if x.sum() > 0" not in text and "# a comment after forward" in text
    compile(text, "model.py", "exec")


@check
def indentation_of_the_given_body_does_not_matter():
    _, out = _run({"model.py": MODEL}, function="preprocess", body="        y = x / 16.0\n        return y.float()")
    assert "def preprocess(x):\n    y = x / 16.0\n    return y.float()\n" in out["model.py"], out["model.py"]


@check
def the_whole_function_with_the_same_def_line_is_accepted():
    _, out = _run({"model.py": MODEL}, function="preprocess", body="def preprocess(x):\n    return x * (1 / 16.0)\n")
    assert "def preprocess(x):\n    return x * (1 / 16.0)\n" in out["model.py"]


@check
def a_name_without_class_is_found_when_unique_and_across_files():
    _, out = _run({"model.py": MODEL, "app.py": "def feed(x):\n    return x\n"}, function="feed", body="return x.astype('float32')")
    assert "return x.astype('float32')" in out["app.py"]


@check
def refusals_name_file_line_and_leave_files_unchanged():
    files = {"model.py": MODEL}
    raises(lambda: _run(files, function="forward", body="return x"), "matches 2 functions")
    raises(lambda: _run(files, function="Net.forward", body="return (x"), "model.py:12: the new body of `forward` does not parse")
    raises(lambda: _run(files, function="Net.forward", body="def forward(self, x):\n    return x"),
           "changes the signature of `forward`")
    raises(lambda: _run(files, function="Net.missing", body="return x"), "no function `Net.missing` in the project's 1 "
           "Python files (model.py)")
    raises(lambda: _run(files, function="preprocess", body="   \n"), "is empty")
    raises(lambda: _run(files, function="preprocess", body="return x / 16.0"), "is the same as the current one")


@check
def a_placeholder_or_a_body_that_loses_the_return_is_refused():
    # A small model wrote `...` as preprocess's body: the app then fed None (DeployBench run, 2026-12-04).
    files = {"model.py": MODEL}
    raises(lambda: _run(files, function="preprocess", body="..."), "model.py:27: the new body of `preprocess` does "
           "nothing")
    raises(lambda: _run(files, function="Net.forward", body='"""Forward."""\npass'), "does nothing")
    raises(lambda: _run(files, function="preprocess", body="y = x / 16.0"), "returns a value (line 28) and the "
           "new body returns none")
    raises(lambda: _run(files, function="Net.forward", body="def inner(v):\n    return v\nx = inner(x)"),
           "returns none")
    # A return in any branch, a generator, or a body that only refuses the input are accepted.
    _, out = _run(files, function="preprocess", body="if x.max() > 1:\n    return x / 16.0\nreturn x")
    assert "    if x.max() > 1:\n        return x / 16.0\n    return x\n" in out["model.py"], out["model.py"]
    _, out = _run(files, function="preprocess", body="raise ValueError('scans must be 0..16')")
    assert "raise ValueError" in out["model.py"]
    _, out = _run(files, function="preprocess", body="for row in x:\n    yield row / 16.0")
    assert "yield row / 16.0" in out["model.py"]
    # A function that returned nothing may keep returning nothing.
    _, out = _run({"app.py": "def log(x):\n    print(x)\n"}, function="log", body="print(x, flush=True)")
    assert "print(x, flush=True)" in out["app.py"]


@check
def a_file_that_is_not_there_does_not_hide_the_function_the_call_names():
    # A small model copied a file name from its examples (DeployBench run, 2026-12-04).
    r, out = _run({"model.py": MODEL, "app.py": "def feed(x):\n    return x\n"}, file="net.py", function="feed",
                  body="return x.astype('float32')")
    assert r["file"] == "app.py" and "return x.astype('float32')" in out["app.py"], r
    raises(lambda: _run({"model.py": MODEL}, file="net.py", function="feed", body="return x"),
           "no function `feed` in the project's 1 Python files (model.py)")


# A project the numbers guard (aipc_toolbox/eager_guard.py) can load: the model, its example
# inputs built by the app's own preprocessing.
GUARDED = {
    "aipc.toml": '[project]\nmodel = "model:load_model"\nexample_inputs = "app:example_inputs"\neval_data = "app:eval_data"\n',
    "model.py": MODEL + textwrap.dedent('''\

        def load_model():
            torch.manual_seed(3)
            return Net()
        '''),
    "app.py": textwrap.dedent('''\
        import torch


        def scale(x):
            return x / 16.0


        def example_inputs():
            return (scale(torch.arange(24, dtype=torch.float32).reshape(6, 4) - 8.0),)


        def eval_data():
            return (torch.linspace(-2.0, 3.0, 40).reshape(10, 4),), torch.zeros(10, dtype=torch.int64)
        '''),
}


@check
def a_rewrite_that_keeps_the_numbers_is_kept_and_says_it_was_checked():
    r, out = _run(GUARDED, function="Net.forward",
                  body="x = torch.where(x.sum() > 0, x * 2, x)\nreturn self.fc(x) * scale\n")
    assert r["numbers"]["checked"] is True and r["numbers"]["max_abs_diff"] <= r["numbers"]["tolerance"], r
    assert "torch.where" in out["model.py"]
    # Checked beyond the example: eval samples and the example scaled (both signs of the branch).
    inputs = r["numbers"]["inputs"]
    assert inputs[0] == "the example inputs" and "eval sample 0" in inputs and "eval sample 9" in inputs, inputs
    assert "the example inputs x-1" in inputs and "the example inputs x10" in inputs, inputs
    # The app's input code is not the model: its fix changes no saved input, so it is kept.
    r, out = _run(GUARDED, function="scale", body="return (x / 16.0).contiguous()")
    assert r["numbers"]["checked"] is True and ".contiguous()" in out["app.py"], r


@check
def a_rewrite_that_moves_the_numbers_or_breaks_the_model_is_rolled_back():
    raises(lambda: _run(GUARDED, function="Net.forward", body="return self.fc(x * 3) * scale"),
           "the rewrite moves the eager model's outputs beyond rounding")
    raises(lambda: _run(GUARDED, function="Net.forward", body="return self.fc(x)[:, :1] * scale"),
           "(6, 1)")
    raises(lambda: _run(GUARDED, function="Net.forward", body="return self.fc(x[:, :3]) * scale"),
           "the rewritten model no longer runs on the example inputs")
    # Right on the example (its sum is positive, the branch doubles it), wrong where the branch is
    # not taken: an eval sample or the negated example catches it.
    e = raises(lambda: _run(GUARDED, function="Net.forward", body="return self.fc(x * 2) * scale"),
               "on the example inputs it keeps them")
    assert "beyond rounding on eval sample" in str(e) or "beyond rounding on the example inputs x-1" in str(e), e
    # An input the model ran on before and raises on after is named.
    raises(lambda: _run(GUARDED, function="Net.forward",
                        body="assert x.abs().max() > 1e-2\nreturn self.fc(torch.where(x.sum() > 0, x * 2, x)) * scale"),
           "no longer runs on the example inputs x0")


@check
def without_a_project_or_a_model_that_runs_the_numbers_are_not_checked():
    r, _ = _run({"model.py": MODEL}, function="preprocess", body="return x * (1 / 16.0)")
    assert r["numbers"] == {"checked": False, "why": "no aipc.toml in the working folder"}, r
    broken = dict(GUARDED, **{"app.py": "def example_inputs():\n    raise RuntimeError('no data here')\n"})
    r, _ = _run(broken, function="preprocess", body="return x * (1 / 16.0)")
    assert r["numbers"]["checked"] is False and "no data here" in r["numbers"]["why"], r


if __name__ == "__main__":
    main()

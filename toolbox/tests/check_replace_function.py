#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""replace_function (toolbox/fixes/replace_function.py): the body of one function replaced by
name in several code shapes (method, nested class, module function, docstring kept, decorator
kept, whole function with the same def line), and the refusals (does not parse, signature
changed, ambiguous name, not found, empty), each leaving the file unchanged."""
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
    raises(lambda: _run(files, function="Net.missing", body="return x"), "no function `Net.missing`")
    raises(lambda: _run(files, function="preprocess", body="   \n"), "is empty")
    raises(lambda: _run(files, function="preprocess", body="return x / 16.0"), "is the same as the current one")


if __name__ == "__main__":
    main()

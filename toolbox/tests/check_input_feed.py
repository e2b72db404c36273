#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""fix_input_feed follows the app's call (aipc_toolbox/builders.py) to the function that built the
input, in several code shapes, and the run stage's lines name that function:

- a helper the hook calls; a method of the app's class (`Class.method`), also a @staticmethod;
  the hook building the input inline; the second of two inputs built by its own helper;
- dtype, layout and contiguity (a transposed view) fixed in that function, every caller of it
  getting the fixed input; the project's other code left as it is;
- a fix that does not change what is fed is undone; a second decoration is refused;
- feed.check_preprocessing names the builder, and a non-contiguous view is a warning only where
  the runtime reads buffers as they lie (ExecuTorch).
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from checklib import ROOT, check, main

FIX = ROOT / "toolbox" / "fixes" / "input_feed.py"
TOML = '[project]\nmodel = "m:f"\nexample_inputs = "d:x"\nrun_inputs = "{run}"\ninput_names = {names}\n'


def project(files, run="app:run_inputs", names='["image"]'):
    d = Path(tempfile.mkdtemp(prefix="aipc-input-feed-"))
    for name, text in files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(textwrap.dedent(text))
    (d / "aipc.toml").write_text(TOML.format(run=run, names=names))
    return d


def fix(d, **args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
    p = subprocess.run([sys.executable, str(FIX), "--args-json", json.dumps(args)], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    return p.returncode, json.loads(p.stdout.strip().splitlines()[-1]), p.stdout


def fed(d, run="app:run_inputs"):
    """What run_inputs feeds after the fix, in a fresh interpreter."""
    module, fn = run.split(":")
    code = (f"import sys, json; sys.path.insert(0, '.'); import {module} as m; items = list(m.{fn}())\n"
            "def d(x):\n"
            "    c = x.is_contiguous() if hasattr(x, 'is_contiguous') else bool(x.flags['C_CONTIGUOUS'])\n"
            "    return [str(x.dtype).replace('torch.', ''), list(x.shape), c]\n"
            "print(json.dumps([[d(x) for x in (i if isinstance(i, (tuple, list)) else (i,))] for i in items]))")
    p = subprocess.run([sys.executable, "-c", code], cwd=d, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@check
def a_helper_the_hook_calls_is_fixed_not_the_hook():
    d = project({"app.py": """
        import numpy as np


        def scale(raw):
            out = raw / 16.0
            return out


        def run_inputs():
            frames = [np.full((1, 1, 8, 8), k, np.uint8) for k in range(3)]
            return [(scale(f),) for f in frames]
        """})
    rc, res, out = fix(d, input="image", dtype="float32", file="app.py", function="run_inputs")
    assert rc == 0 and res["function"] == "scale" and res["traced"] == 1, out
    assert res["other_callers"] == [], res
    assert "builds input image in app.py:5 scale()" in out, out
    assert "@_aipc_conform_feed(None, dtype=\"float32\")\ndef scale" in (d / "app.py").read_text()
    assert fed(d) == [[["float32", [1, 1, 8, 8], True]]] * 3


@check
def a_method_and_a_staticmethod_of_the_apps_class():
    d = project({"app/__init__.py": "", "app/pipeline.py": """
        import numpy as np
        import torch


        class Pipeline:
            def __init__(self, size):
                self.size = size

            @staticmethod
            def decode(k):
                return np.full((1, 8, 8, 1), k, np.float64)

            def to_batch(self, k):
                x = torch.from_numpy(self.decode(k))
                return x


        def run_inputs():
            p = Pipeline(8)
            return [(p.to_batch(k),) for k in range(2)]


        def eager(k):
            return Pipeline(8).to_batch(k).permute(0, 3, 1, 2)
        """}, run="app.pipeline:run_inputs")
    rc, res, out = fix(d, input="image", layout="nchw", dtype="float32")
    assert rc == 0 and res["function"] == "Pipeline.to_batch" and res["file"] == "app/pipeline.py", out
    assert [c.split(":")[0] + " " + c.split(" ")[1] for c in res["other_callers"]] == ["app/pipeline.py eager()"], res
    assert "eager() is" not in out and "must drop that conversion" in out, out
    text = (d / "app/pipeline.py").read_text()
    assert "    @_aipc_conform_feed(None, dtype=\"float32\", layout=\"nchw\")\n    def to_batch(self, k):" in text, text
    assert fed(d, "app.pipeline:run_inputs") == [[["float32", [1, 1, 8, 8], True]]] * 2
    # the staticmethod: the decorator goes under @staticmethod, next to the def
    d2 = project({"app.py": """
        import numpy as np


        class Reader:
            @staticmethod
            def load(k):
                return np.full((1, 1, 8, 8), k, np.float64)


        def run_inputs():
            return [(Reader.load(1),)]
        """})
    rc, res, out = fix(d2, input="image", dtype="float32")
    assert rc == 0 and res["function"] == "Reader.load", out
    assert "@staticmethod\n    @_aipc_conform_feed(None" in (d2 / "app.py").read_text()
    assert fed(d2) == [[["float32", [1, 1, 8, 8], True]]]


@check
def the_hook_building_the_input_inline_and_a_second_input():
    d = project({"app.py": """
        import numpy as np


        def mask_for(n):
            return np.ones((1, n), np.int32)


        def run_inputs():
            return [(np.zeros((1, 4), np.float64) + k, mask_for(4)) for k in range(2)]
        """}, names='["x", "mask"]')
    rc, res, out = fix(d, input="x", dtype="float32")
    assert rc == 0 and res["function"] == "run_inputs" and "(0, dtype=\"float32\")" in res["diff"], out
    rc, res, out = fix(d, input="mask", dtype="int64")
    assert rc == 0 and res["function"] == "mask_for", out
    assert fed(d) == [[["float32", [1, 4], True], ["int64", [1, 4], True]]] * 2


@check
def two_properties_of_one_input_in_two_calls_share_one_decorator():
    d = project({"app/__init__.py": "", "app/stream.py": """
        import numpy as np


        class FrameStream:
            def _standardise(self, raw):
                return (raw - raw.mean()) / (raw.std() + 1e-6)

            def frame(self, k):
                raw = np.arange(12 * 12 * 3, dtype=np.float64).reshape(1, 12, 12, 3) + k
                return self._standardise(raw)


        def run_inputs():
            s = FrameStream()
            return [(s.frame(k),) for k in range(2)]
        """}, run="app.stream:run_inputs")
    rc, res, out = fix(d, input="image", dtype="float32")
    assert rc == 0 and res["function"] == "FrameStream._standardise", out
    assert fed(d, "app.stream:run_inputs") == [[["float32", [1, 12, 12, 3], True]]] * 2
    rc, res, out = fix(d, input="image", layout="nchw")
    assert rc == 0 and "now converts both" in out, out
    text = (d / "app/stream.py").read_text()
    assert text.count("@_aipc_conform_feed(") == 1 and '(None, dtype="float32", layout="nchw")' in text, text
    assert fed(d, "app.stream:run_inputs") == [[["float32", [1, 3, 12, 12], True]]] * 2


@check
def a_transposed_view_is_made_contiguous():
    d = project({"app.py": """
        import torch


        def frames():
            return torch.arange(2 * 8 * 8 * 3, dtype=torch.float32).reshape(2, 8, 8, 3).permute(0, 3, 1, 2)


        def run_inputs():
            return [(frames(),)]
        """})
    assert fed(d) == [[["float32", [2, 3, 8, 8], False]]]
    rc, res, out = fix(d, input="image", contiguous=True)
    assert rc == 0 and res["function"] == "frames" and res["contiguous"] == 1, out
    assert fed(d) == [[["float32", [2, 3, 8, 8], True]]]


@check
def a_rescaled_transposed_tensor_is_fed_contiguous():
    # numpy keeps a transposed operand's strides through x * scale + shift, and torch.from_numpy
    # keeps numpy's: a time-major window, transposed and rescaled per channel, reached the
    # runtime non-contiguous.
    import importlib.util

    import torch

    sys.path.insert(0, str(ROOT / "toolbox" / "lib"))
    spec = importlib.util.spec_from_file_location("input_feed_fix", FIX)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scope = {}
    exec(module.HELPER, scope)
    conform = scope["_aipc_conform_feed"]
    scale = [4.0, 4.0, 4.0, 8.0, 8.0, 8.0]
    for make in (lambda: torch.arange(64 * 6, dtype=torch.float32).reshape(1, 64, 6),
                 lambda: torch.arange(64 * 6, dtype=torch.float32).reshape(1, 64, 6).numpy()):
        x = conform(None, layout=(0, 2, 1), scale=scale, shift=[0.0] * 6)(make)()
        c = x.is_contiguous() if hasattr(x, "is_contiguous") else bool(x.flags["C_CONTIGUOUS"])
        assert c and tuple(x.shape) == (1, 6, 64), (type(x), x.shape)
        assert float(x[0, 3, 1]) == 8.0 * (6 + 3), float(x[0, 3, 1])


@check
def a_fix_that_changes_nothing_fed_is_undone_and_a_second_is_refused():
    src = """
        import numpy as np


        def build():
            return np.zeros((1, 4))


        def run_inputs():
            x = build()
            return [(x.astype(np.float64),)]
        """
    d = project({"app.py": src})
    # the hook builds a new array from build()'s: the trace names the hook itself
    rc, res, out = fix(d, input="image", dtype="float32")
    assert rc == 0 and res["function"] == "run_inputs", out
    rc, res, out = fix(d, input="image", dtype="float16")
    assert rc == 1 and "already converts image to dtype 'float32', not 'float16'" in res["error"], out
    rc, res, out = fix(d, input="image", dtype="float32")
    assert rc == 1 and "already converts image this way" in res["error"], out
    # the app feeds a cached object, not the value the function returns after the decoration:
    # the fix does not reach what is fed, so it is undone and says what it measured
    d = project({"app.py": """
        import numpy as np

        CACHE = {}


        def load():
            CACHE["x"] = np.zeros((1, 4))
            return CACHE["x"]


        def run_inputs():
            load()
            return [(CACHE["x"],)]
        """})
    before = (d / "app.py").read_text()
    rc, res, out = fix(d, input="image", dtype="float32")
    assert rc == 1 and "did not fix the feed" in res["error"] and "still float64" in res["error"], out
    assert (d / "app.py").read_text() == before, "the project is left unchanged"


@check
def the_warning_names_the_builder_and_contiguity_matters_where_buffers_are_read_as_is():
    import numpy as np

    from aipc_toolbox import feed
    from aipc_toolbox.builders import Builder

    spec = [{"name": "image", "shape": [1, 3, 8, 8], "dtype": "float32"}]
    view = np.zeros((1, 8, 8, 3), np.float32).transpose(0, 3, 1, 2)
    b = [Builder("app/io.py", "Loader.frames", 12, None)]
    assert feed.check_preprocessing("app.py run_inputs()", 0, (view,), spec, b, takes_strides=True) == []
    problems = feed.check_preprocessing("app.py run_inputs()", 0, (view,), spec, b, takes_strides=False)
    assert problems and problems[0][0] == "contiguous", problems
    problems = feed.check_preprocessing("app.py run_inputs()", 0, (view.astype(np.float64),), spec, b)
    assert problems[0][:2] == ("dtype", "image"), problems
    assert b[0].origin() == "app/io.py Loader.frames()"


@check
def a_time_major_window_for_a_dynamic_batch_artifact_is_named_by_its_axes_and_transposed():
    import io
    from contextlib import redirect_stdout

    import numpy as np

    from aipc_toolbox import feed

    # The artifact takes (batch, 6, 64); the app builds (1, 64, 6): not a dynamic dim, a layout.
    spec = [{"name": "imu", "shape": ["batch", 6, 64], "dtype": "float32"}]
    window = np.zeros((1, 64, 6), np.float32)
    out = io.StringIO()
    with redirect_stdout(out):
        problems = feed.check_preprocessing("app.py run_inputs()", 0, (window,), spec)
        fixed = feed.fixed_dims("app.py run_inputs()", [(window,)], spec)
    assert problems and problems[0][0] == "layout" and fixed == [], (problems, fixed)
    assert "the artifact takes (batch, 6, 64): the same sizes in another order: transposing its axes to (0, 2, 1)" \
        in out.getvalue(), out.getvalue()
    # Sizes that are a real dynamic dim stay one; equal sizes leave the order to the 4-D names.
    assert feed.layout_axes((4, 6, 64), [None, 6, 64]) is None
    assert feed.layout_axes((1, 8, 8, 8), [None, 8, 8, 8]) is None
    d = project({"collar.py": """
        import numpy as np
        from dataclasses import dataclass


        @dataclass
        class Window:
            data: np.ndarray

            @classmethod
            def from_rows(cls, rows):
                return cls(np.ascontiguousarray(rows[np.newaxis], dtype=np.float32))


        def run_inputs():
            rows = [np.arange(64 * 6, dtype=np.float64).reshape(64, 6) * k for k in range(2)]
            return [(Window.from_rows(r).data,) for r in rows]
        """}, run="collar:run_inputs", names='["imu"]')
    rc, res, out = fix(d, input="imu", layout="0, 2, 1", file="collar.py", function="run_inputs")
    # The array leaves from_rows inside a dataclass: the innermost function returning the array
    # itself is the hook, which gets the conversion.
    assert rc == 0 and res["function"] == "run_inputs" and "layout=(0, 2, 1)" in (d / "collar.py").read_text(), out
    assert fed(d, "collar:run_inputs") == [[["float32", [1, 6, 64], True]]] * 2
    rc, res, out = fix(project({"app.py": "def run_inputs():\n    return []\n"}), input="image", layout="0, 0, 1")
    assert rc != 0 and "neither nchw, nhwc nor an order of axes" in res["error"], out


@check
def the_builder_trace_sees_only_the_project():
    import numpy as np

    from aipc_toolbox.builders import Trace

    d = project({"app.py": "import numpy as np\n\ndef make():\n    return np.ones(3)\n"})
    sys.path.insert(0, str(d))
    try:
        import app
        with Trace(d) as t:
            x = app.make()
            y = np.ones(2)
        assert t.builder_of(x).function == "make" and t.builder_of(y) is None
    finally:
        sys.path.remove(str(d))


if __name__ == "__main__":
    main()

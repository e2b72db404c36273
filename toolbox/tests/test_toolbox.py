#!/usr/bin/env python3
"""Unit checks of the toolbox that need no toolchain run (seconds): argument parsing from the
manifests, metrics, the calibration-outlier rule, aipc.toml loading errors, the codemods
(rewrites, refusals), the smoke runner's gate parser, the
run-time input contract (run_inputs: dtype/layout/fixed-dim lines, checked against the
signature tables), dynamic batch/sequence shapes, the shipped artifact and the ORT calibration
feed.

Run with a target venv's python (numpy and torch needed):
    ~/.cache/aipc/toolchains/onnxruntime-cpu/venv/bin/python toolbox/tests/test_toolbox.py
Prints one line per check; exits 1 if any fails.
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "toolbox" / "lib"))
sys.path.insert(0, str(ROOT / "toolbox" / "tests"))

import numpy as np  # noqa: E402

from aipc_toolbox import args, calib, feed, metrics  # noqa: E402
from aipc_toolbox.emit import ToolError  # noqa: E402
from aipc_toolbox.project import Project, budget_line, unbuilt_int8_line  # noqa: E402

ORT = ROOT / "toolbox" / "targets" / "onnxruntime-cpu"
FIXES = ROOT / "toolbox" / "fixes"


from checklib import check, raises  # noqa: E402  (the harness every check file shares)


@check
def manifests_load_and_name_scripts():
    for t in ("onnxruntime-cpu", "executorch-xnnpack"):
        d = ROOT / "toolbox" / "targets" / t
        tools = args.load_manifest(d / "toolbox.toml")
        names = [x["name"] for x in tools]
        assert "run" not in names, "run is a built-in tool name"
        for x in tools:
            assert (d / x["script"]).is_file(), x["script"]
        # The shared codemods come from toolbox/fixes/toolbox.toml, declared there once.
        fixes = {x["name"]: x for x in tools if x["name"].startswith("fix_")}
        assert {"fix_branch_to_where", "fix_input_feed"} <= set(fixes), names
        assert fixes["fix_input_feed"]["script"] == "../../fixes/input_feed.py"
    shared = [x["name"] for x in args.load_manifest(FIXES / "toolbox.toml")]
    assert shared == ["fix_branch_to_where", "fix_input_feed", "replace_function", "fix_loop_bound",
                      "fix_call_site"], shared


@check
def the_numbers_guard_finishes_within_its_tools_timeout():
    # The engine kills a tool at its manifest's timeout_s; killed between writing a rewrite and
    # rolling it back, the guard would leave a rewrite nobody checked. Every tool whose script
    # uses the guard must give it its worst case and some time for the codemod itself.
    import tomllib

    from aipc_toolbox.eager_guard import GUARD_WORST_S

    guarded = 0
    for manifest in [FIXES / "toolbox.toml", *sorted((ROOT / "toolbox" / "targets").glob("*/toolbox.toml"))]:
        for tool in tomllib.loads(manifest.read_text()).get("tool", []):
            script = (manifest.parent / tool["script"]).resolve()
            if "EagerGuard" in script.read_text():
                guarded += 1
                assert tool.get("timeout_s", 0) >= GUARD_WORST_S + 30, (manifest, tool["name"], tool.get("timeout_s"))
    assert guarded >= 2, guarded


@check
def no_script_shadows_a_module():
    # `python <script>` puts the script's folder first on sys.path: a script named like a
    # standard-library or installed module would be imported in its place (an inspect.py broke
    # numpy and torch that way).
    import importlib.util

    folders = [FIXES, *sorted((ROOT / "toolbox" / "targets").iterdir())]
    for folder in folders:
        for script in sorted(folder.glob("*.py")):
            name = script.stem
            assert name not in sys.stdlib_module_names, f"{script} shadows the standard library's {name}"
            spec = importlib.util.find_spec(name)
            assert spec is None or spec.origin is None or Path(spec.origin).parent in folders, \
                f"{script} shadows the installed module {name} ({spec.origin})"


@check
def args_json_flags_defaults_and_enums():
    script = str(ORT / "quantize.py")
    a = args.parse("quantize", script, ["--args-json", '{"method": "minmax", "drop_outliers": true}'])
    assert a["method"] == "MinMax" and a["drop_outliers"] is True
    assert a["per_channel"] is None and a["format"] is None, "both default to the project's int8_format"
    assert a["nodes_to_exclude"] == []  # no tuned outlier factor
    assert "outlier_factor" not in a
    a = args.parse("quantize", script, ["--nodes_to_exclude", "a,b", "--no-per-channel", "--percentile", "99.9"])
    assert a["nodes_to_exclude"] == ["a", "b"] and a["per_channel"] is False and a["percentile"] == 99.9
    raises(lambda: args.parse("quantize", script, ["--args-json", '{"metod": "MinMax"}']), "did you mean 'method'")
    raises(lambda: args.parse("quantize", script, ["--args-json", '{"percentile": 50}']), "must be >= 90")
    raises(lambda: args.parse("quantize", script, ["--args-json", "[1]"]), "must be a JSON object")
    raises(lambda: args.parse("fix_input_feed", str(FIXES / "input_feed.py"), []), "needs argument(s) input")


@check
def metrics_global_and_per_sample_cosine():
    ref = np.array([[10.0, 0.0], [0.0, 1.0]])
    out = np.array([[10.0, 0.0], [1.0, 0.0]])
    m = metrics.compare(ref, out, np.array([0, 1]))
    assert abs(m["cosine_mean"] - 0.5) < 1e-12 and m["cosine_min"] == 0.0
    assert m["cosine"] > 0.99  # the large-norm sample dominates the global cosine
    assert m["top1_agreement"] == 0.5 and m["task_acc_ref"] == 1.0 and m["task_acc_target"] == 0.5
    assert m["acc_drop_points"] == 50.0 and m["task_labels"] == "given"
    # Without labels the eager model's classes are the labels: the drop is 1 - top-1 agreement.
    m = metrics.compare(ref, out)
    assert m["task_labels"] == "eager" and m["task_acc_ref"] == 1.0 and m["acc_drop_points"] == 50.0
    raises_value = False
    try:
        metrics.compare(ref, out[:1])
    except ValueError:
        raises_value = True
    assert raises_value


def _audit(samples, reference=None, name="eval inputs"):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = calib.audit(samples, reference, name)
    return result, buf.getvalue().strip()


@check
def calibration_outliers_are_judged_against_the_reference_not_a_factor():
    rng = np.random.default_rng(0)
    # Reference: normalised images whose max varies between samples (0.6 .. 1.0).
    reference = [(rng.uniform(0, 1, (1, 16)) * rng.uniform(0.6, 1.0),) for _ in range(40)]
    clean = [(rng.uniform(0, 1, (1, 16)) * rng.uniform(0.6, 1.0),) for _ in range(30)]
    result, out = _audit(clean, reference)
    assert result.outliers == [] and not result.set_off and out == "", out
    # One hot pixel (any size well above the reference's spread), and one un-normalised image (x255).
    for hot in (8.0, 150.0, 1e4):
        dirty = list(clean)
        dirty[3] = (np.concatenate([clean[3][0][:, :15], [[hot]]], axis=1),)
        dirty[11] = (clean[11][0] * 255.0,)
        result, out = _audit(dirty, reference)
        assert result.outliers == [3, 11] and not result.set_off, (hot, out)
        assert result.droppable() == [3, 11]
        assert out.splitlines()[0].startswith(f"aipc-warning: calibration outlier: sample 3 max|x| {float(hot)!r} is "), out
        assert "the median max|x|" in out and "of the eval inputs" in out
    # A sample below the range does not stretch INT8 ranges: not an outlier.
    dim = list(clean)
    dim[5] = (clean[5][0] * 0.01,)
    assert _audit(dim, reference)[0].outliers == []


@check
def calibration_set_on_another_scale_is_named_and_not_dropped():
    rng = np.random.default_rng(1)
    reference = [(rng.uniform(0, 1, (1, 16)),) for _ in range(20)]
    for scale in (255.0, 1 / 255.0):
        whole = [(rng.uniform(0, 1, (1, 16)) * scale,) for _ in range(20)]
        result, out = _audit(whole, reference)
        assert result.set_off and result.droppable() == [], (scale, out)
        assert out.startswith("aipc-warning: calibration scale: 20 of 20 calibration samples lie outside the eval inputs' range"), out
    # Two thirds of the set on another scale: still the set's fault, not a few samples'.
    mixed = [(rng.uniform(0, 1, (1, 16)) * (255.0 if i % 3 else 1.0),) for i in range(21)]
    result, out = _audit(mixed, reference)
    assert result.set_off and "14 of 21" in out, out


@check
def calibration_without_a_reference_uses_its_own_spread():
    samples = [(np.full((1, 4), 1.0),) for _ in range(10)]
    samples[3] = (np.array([[0.0, 0.0, 0.0, 150.0]]),)
    result, out = _audit(samples, None)
    assert result.outliers == [3] and result.median == 1.0 and not result.set_off
    assert out.startswith("aipc-warning: calibration outlier: sample 3 max|x| 150.0 is 150.0x the median max|x| 1.0 of the calibration set"), out
    # Integer inputs (token ids) are not judged by magnitude.
    tokens = [(np.arange(8, dtype=np.int64).reshape(1, 8) * (1000 if i == 2 else 1),) for i in range(10)]
    assert _audit(tokens, None)[0].outliers == []


@check
def calibration_reference_rows_split_a_batch():
    rows = calib.per_row((np.zeros((3, 2)), np.ones((3, 5))))
    assert len(rows) == 3 and rows[0][0].shape == (1, 2) and rows[2][1].shape == (1, 5)


@check
def a_missing_artifact_names_the_tool_that_writes_it():
    from aipc_toolbox.artifact import require_artifact

    with tempfile.TemporaryDirectory() as d:
        present = os.path.join(d, "model.onnx")
        Path(present).write_bytes(b"x")
        assert require_artifact(present) == present
        raises(lambda: require_artifact(os.path.join(d, "build", "model_int8.pte")), "call quantize first")
        raises(lambda: require_artifact(os.path.join(d, "build", "Model_INT8.onnx")), "call quantize first")
        raises(lambda: require_artifact(os.path.join(d, "build", "model.pte")), "call export first")
        raises(lambda: require_artifact(os.path.join(d, "m.onnx"), "FP32 model", hint="run the exporter"),
               "FP32 model")


@check
def project_errors_name_key_and_line():
    with tempfile.TemporaryDirectory() as d:
        Path(d, "aipc.toml").write_text('target = "x"\n\n[project]\nmodel = "model:load"\nexample_inputs = 3\n')
        raises(lambda: Project(d), "aipc.toml:5: key 'example_inputs' = 3 has the wrong type")
        Path(d, "aipc.toml").write_text('[project]\nexample_inputs = "data:x"\n')
        raises(lambda: Project(d), "missing key 'model'")
        Path(d, "aipc.toml").write_text('[project]\nmodel = "nomod:f"\nexample_inputs = "data:x"\n')
        raises(lambda: Project(d).load_model(), "no module 'nomod'")


def _fix(script, src, *argv):
    with tempfile.TemporaryDirectory() as d:
        Path(d, "model.py").write_text(textwrap.dedent(src))
        env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
        p = subprocess.run([sys.executable, str(FIXES / script), "--file", "model.py", *argv], cwd=d, env=env,
                           capture_output=True, text=True)
        res = json.loads(p.stdout.strip().splitlines()[-1])
        return p.returncode, res, Path(d, "model.py").read_text()


@check
def branch_to_where_rewrites_and_refuses():
    src = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0 and not x.max().item() > 5:
                    return x * 2
                return x - 1
        """
    # The early return makes the rest of forward the else branch (check_control_flow.py checks the
    # numbers of this and the other shapes in both venvs).
    rc, res, new = _fix("branch_to_where.py", src)
    assert rc == 0 and res["pattern"].startswith("where-return (early return"), res
    assert "cond_l5 = torch.logical_and(x.sum() > 0, torch.logical_not(x.max() > 5))" in new, new
    assert "return torch.where(cond_l5, x * 2, x - 1)" in new, new
    assert "-        if x.sum() > 0" in res["diff"]
    rc, res, _ = _fix("branch_to_where.py", src.replace("x.sum() > 0 and not x.max().item() > 5", "x.shape[0] > 1"),
                      "--line", "5")
    assert rc == 1 and "reads shape" in res["error"] and "model.py:5" in res["error"], res
    rc, res, new = _fix("branch_to_where.py", """
        class M:
            def forward(self, x):
                y = x if x.mean() < 0.5 else 1 - x
                return y
        """)
    assert rc == 0 and "y = torch.where(x.mean() < 0.5, x, 1 - x)" in new and "import torch" in new, new


@check
def input_feed_converts_what_the_app_feeds():
    import re

    import torch

    src = textwrap.dedent("""
        import numpy as np


        def preprocess(scans):
            return (scans / 16.0)[..., None]


        def run_inputs():
            return [(preprocess(np.full((1, 8, 8), 3, np.uint8)), np.zeros(2))]


        def one_tensor():
            return torch.zeros(2, 4, 4, 3, dtype=torch.float64)
        """)
    with tempfile.TemporaryDirectory() as d:
        Path(d, "infer.py").write_text(src)
        Path(d, "aipc.toml").write_text('[project]\nmodel = "m:f"\nexample_inputs = "d:x"\ninput_names = ["image", "mask"]\n')
        env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))

        def fix(*argv):
            p = subprocess.run([sys.executable, str(FIXES / "input_feed.py"), "--file", "infer.py", *argv], cwd=d,
                               env=env, capture_output=True, text=True)
            return p.returncode, json.loads(p.stdout.strip().splitlines()[-1])

        rc, res = fix("--function", "run_inputs", "--input", "image", "--dtype", "float32", "--layout", "nchw")
        assert rc == 0 and res["position"] == 0 and "+@_aipc_conform_feed(0, dtype=\"float32\", layout=\"nchw\")" in res["diff"], res
        ns = {"torch": torch}
        exec(compile(Path(d, "infer.py").read_text(), "infer.py", "exec"), ns)
        (image, other), = ns["run_inputs"]()
        assert image.dtype == np.float32 and image.shape == (1, 1, 8, 8) and image.flags["C_CONTIGUOUS"], image.shape
        assert float(image[0, 0, 0, 0]) == 3 / 16 and other.dtype == np.float64
        assert ns["preprocess"](np.zeros((1, 8, 8))).shape == (1, 8, 8, 1), "the app's own code is left as it is"
        rc, res = fix("--function", "run_inputs", "--input", "image", "--dtype", "float32")
        assert rc == 1 and re.search(r"infer\.py:\d+: run_inputs\(\) already converts", res["error"]), res
        rc, res = fix("--function", "one_tensor", "--input", "image", "--layout", "nchw", "--dtype", "float32")
        assert rc == 0, res
        ns = {"torch": torch}
        exec(compile(Path(d, "infer.py").read_text(), "infer.py", "exec"), ns)
        t = ns["one_tensor"]()
        assert t.shape == (2, 3, 4, 4) and t.dtype == torch.float32 and t.is_contiguous(), (t.shape, t.dtype)
        assert Path(d, "infer.py").read_text().count("def _aipc_conform_feed(") == 1
        rc, res = fix("--function", "nope", "--input", "image", "--dtype", "float32")
        assert rc == 1 and "no function nope()" in res["error"] and "run_inputs" in res["error"], res
        rc, res = fix("--function", "preprocess", "--input", "pixels", "--dtype", "float32")
        assert rc == 1 and "has no input 'pixels'" in res["error"], res
        # With one input, a name that is not it (a small model passed a file name) still means it.
        import input_feed

        Path(d, "aipc.toml").write_text('[project]\nmodel = "m:f"\nexample_inputs = "d:x"\ninput_names = ["image"]\n')
        cwd = os.getcwd()
        os.chdir(d)
        try:
            assert input_feed.input_position("aipc.toml") == 0
        finally:
            os.chdir(cwd)


@check
def runner_gates_like_the_engine():
    import run_examples as r

    m = r.flatten({"cosine": 0.97, "ok": True, "ops": {"Conv": 2}, "name": "x"})
    assert m == {"cosine": 0.97, "ok": 1.0, "ops.Conv": 2.0}
    assert r.gate_ok("cosine >= 95%", m)[0] and not r.gate_ok("ops.Conv > 2", m)[0]
    assert r.gate_ok("missing == 1", m) == (False, "metric not printed")
    assert r.last_json('x\n{"a": 1}\nnoise\n') == {"a": 1}
    # A check's `when`, as the engine reads it (src/contract/condition.rs).
    assert not r.when_holds('quantize != "none"', {"quantize": "none"})
    assert r.when_holds('quantize != "none"', {}) and not r.when_holds('quantize == "none"', {})
    assert r.when_holds("threads == 4", {"threads": 4.0}) and not r.when_holds("threads == 4", {"threads": "4"})


@check
def onnx_export_is_the_same_wherever_it_is_built():
    """The ONNX export script's artifact depends only on the project: two worktrees at different
    paths give the same bytes (the exporter's stack-trace metadata is made relative), and the
    file:line of each node is kept."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("skip onnx_export_is_the_same_wherever_it_is_built: no onnx in this python")
        return
    model = """
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 3)
            def forward(self, x):
                return torch.relu(self.fc(x))
        def load_model():
            torch.manual_seed(0)
            return M().eval()
        def example_inputs():
            return (torch.ones(1, 4),)
        """
    toml = '[project]\nmodel = "model:load_model"\nexample_inputs = "model:example_inputs"\nopset = 18\n'
    built = []
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory(suffix="-a-longer-path") as b:
        for d in (a, b):
            Path(d, "model.py").write_text(textwrap.dedent(model))
            Path(d, "aipc.toml").write_text(toml)
            env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib") + os.pathsep + str(ORT))
            p = subprocess.run([sys.executable, str(ORT / "export.py"), "--args-json", "{}"], cwd=d, env=env,
                               capture_output=True, text=True)
            assert p.returncode == 0, p.stdout + p.stderr
            files = sorted(Path(d, "build").glob("model.onnx*"))
            built.append({f.name: f.read_bytes() for f in files})
        assert built[0] == built[1], "the artifact differs between two build paths"
        onnx_bytes = built[0]["model.onnx"]
        assert b"model.py" in onnx_bytes and a.encode() not in onnx_bytes and b.encode() not in onnx_bytes


def _lines(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = fn()
    return out, buf.getvalue().splitlines()


def _signature(target, sig_id):
    """The Python-compiled regex of a signature (Rust `regex` syntax is Python's for these)."""
    import re
    import tomllib

    with open(ROOT / "toolbox" / "targets" / target / "signatures.toml", "rb") as f:
        table = tomllib.load(f)
    sig = next(s for s in table["signature"] if s["id"] == sig_id)
    return re.compile(sig["regex"])


@check
def preprocessing_lines_name_the_file_and_match_the_tables():
    import torch

    want = [{"name": "image", "shape": [1, 1, 8, 8], "dtype": "float32"}]
    found, lines = _lines(lambda: feed.check_preprocessing("infer.py run_inputs()", 0, [np.zeros((1, 1, 8, 8))], want))
    assert found == [("dtype", "image", "float64", "float32")], found
    assert lines == ["aipc-warning: input dtype: item 0 of infer.py run_inputs() feeds image as float64, "
                     "the artifact takes float32"], lines
    found, lines = _lines(lambda: feed.check_preprocessing("infer.py run_inputs()", 3, [torch.zeros(1, 8, 8, 1)], want))
    assert found == [("layout", "image", (1, 8, 8, 1), (1, 1, 8, 8))], found
    assert lines[0].endswith("feeds image as (1, 8, 8, 1), the artifact takes (1, 1, 8, 8): channels-last data for a "
                             "channels-first model"), lines
    # ORT type strings, ExecuTorch's "float", a symbolic dim: nothing to say.
    ok = [{"name": "x", "shape": ["batch", 1, 8, 8], "dtype": "tensor(float)"}]
    assert _lines(lambda: feed.check_preprocessing("o", 0, [np.zeros((4, 1, 8, 8), np.float32)], ok)) == ([], [])
    assert feed.dtype_name("float") == "float32" and feed.dtype_name(torch.zeros(1, dtype=torch.int64)) == "int64"
    for target in ("onnxruntime-cpu", "executorch-xnnpack"):
        m = _signature(target, "run.input_dtype").search(
            "aipc-warning: input dtype: item 0 of infer.py run_inputs() feeds image as float64, the artifact takes float32")
        assert m and m["file"] == "infer.py" and m["got"] == "float64", target
        assert _signature(target, "run.input_layout").search(lines[0])["expected"] == "(1, 1, 8, 8)", target


@check
def fixed_dims_are_the_sizes_the_app_varies():
    frames = [(np.zeros((1, t, 8), np.float32),) for t in (6, 16, 23)]
    static = [{"name": "frames", "shape": [1, 16, 8], "dtype": "float32"}]
    found, lines = _lines(lambda: feed.fixed_dims("infer.py run_inputs()", frames, static))
    assert found == [{"input": "frames", "dim": 1, "fixed": 16, "sizes": [6, 16, 23]}], found
    assert lines == ["aipc-warning: fixed dim: infer.py run_inputs() feeds frames with sizes 6, 16, 23 in dim 1 "
                     "(dynamic_seq), the artifact fixes it to 16"], lines
    m = _signature("onnxruntime-cpu", "shape.fixed_dim").search(lines[0])
    assert m and m["option"] == "dynamic_seq" and m["dim"] == "1", lines
    # A symbolic dim takes any size; a permutation (a layout fault) is the run stage's business.
    dynamic = [{"name": "frames", "shape": [1, "seq", 8], "dtype": "float32"}]
    assert _lines(lambda: feed.fixed_dims("o", frames, dynamic)) == ([], [])
    nhwc = [(np.zeros((1, 8, 8, 1), np.float32),)]
    assert _lines(lambda: feed.fixed_dims("o", nhwc, [{"name": "i", "shape": [1, 1, 8, 8]}])) == ([], [])
    found, lines = _lines(lambda: feed.fixed_dims("f.py g()", [(np.zeros((8, 1, 8, 8)),)], [{"name": "i", "shape": [1, 1, 8, 8]}]))
    assert found[0]["dim"] == 0 and "(dynamic_batch)" in lines[0], lines
    # Sizes past the dim's upper bound (seq_max, 64 by default) or an example past it: dynamic_seq
    # could not export them; the dynamic_dims entry with room for twice the largest can.
    points = [(np.zeros((1, n, 3), np.float32),) for n in (120, 420)]
    found, lines = _lines(lambda: feed.fixed_dims("s.py r()", points, [{"name": "points", "shape": [1, 256, 3]}]))
    assert '(dynamic_dims = ["points:1:840"])' in lines[0], lines
    assert _signature("executorch-xnnpack", "shape.fixed_dim_any").search(lines[0])["dims_json"] == '["points:1:840"]'
    found, lines = _lines(lambda: feed.fixed_dims("s.py r()", points, [{"name": "points", "shape": [1, 256, 3]}],
                                                  limits={1: 1024}))
    assert "(dynamic_seq)" in lines[0], lines


@check
def dynamic_shapes_share_batch_and_sequence_dims():
    import torch

    from aipc_toolbox.tensors import dynamic_shapes

    assert dynamic_shapes((torch.zeros(2, 4),), False, False) is None
    tokens, mask, scalar = torch.zeros(1, 16, 8), torch.zeros(1, 16), torch.zeros(1)
    shapes = dynamic_shapes((tokens, mask, scalar), batch=False, seq=True, seq_max=32)
    assert list(shapes[0]) == [1] and list(shapes[1]) == [1] and shapes[2] is None, shapes
    assert shapes[0][1] is shapes[1][1] and shapes[0][1].max == 32, "one shared Dim"
    both = dynamic_shapes((torch.zeros(2, 16, 8),), batch=True, seq=True)
    assert sorted(both[0]) == [0, 1]
    raises(lambda: dynamic_shapes((torch.zeros(1, 16, 8),), batch=True), "batch >= 2")
    raises(lambda: dynamic_shapes((torch.zeros(1, 1, 8),), seq=True), "length >= 2")


@check
def a_one_sample_example_is_traced_at_batch_two_for_a_dynamic_batch():
    import torch

    from aipc_toolbox.tensors import dynamic_shapes, for_dynamic_batch

    one = (torch.arange(6.0).reshape(1, 2, 3), torch.ones(1, 4))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        traced = for_dynamic_batch(one, True)
    assert [tuple(t.shape) for t in traced] == [(2, 2, 3), (2, 4)], traced
    assert torch.equal(traced[0][1], one[0][0]), "the row repeated"
    assert "traced at batch 2" in out.getvalue(), out.getvalue()
    with contextlib.redirect_stdout(io.StringIO()):
        assert [t.shape[0] for t in for_dynamic_batch(one, True, 64)] == [64, 64]
    assert dynamic_shapes(traced, batch=True)[0][0].max == 64
    # Unchanged without a dynamic batch, or when the batch is already >= 2.
    assert for_dynamic_batch(one, False) == one
    two = (torch.zeros(3, 4),)
    assert for_dynamic_batch(two, True) == two

    # The real exporter: a model traced that way takes other batches.
    model = torch.nn.Sequential(torch.nn.Conv1d(2, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(4, 3)).eval()
    example = (torch.randn(1, 2, 3),)
    with contextlib.redirect_stdout(io.StringIO()):
        traced = for_dynamic_batch(example, True)
    ep = torch.export.export(model, traced, dynamic_shapes=dynamic_shapes(traced, batch=True))
    batch4 = torch.randn(4, 2, 3)
    assert torch.allclose(ep.module()(batch4), model(batch4))


@check
def project_run_inputs_shipped_artifact_and_new_keys():
    with tempfile.TemporaryDirectory() as d:
        Path(d, "app.py").write_text("import numpy as np\ndef feed():\n    return [np.zeros((1, 4)), (np.ones((1, 4)),)]\n")
        Path(d, "aipc.toml").write_text('[project]\nmodel = "m:f"\nexample_inputs = "d:x"\nrun_inputs = "app:feed"\n'
                                        'dynamic_seq = true\nquantize = "none"\n')
        p = Project(d)
        items = p.run_inputs()
        assert len(items) == 2 and all(isinstance(i, tuple) and len(i) == 1 for i in items), items
        assert p.spec_file("run_inputs") == ("app.py", "feed") and feed.where(p) == "app.py feed()"
        assert p["dynamic_seq"] is True and p["seq_max"] == 64
        assert p.shipped("build/model.onnx", "build/model_int8.onnx") == "build/model.onnx"
        Path(d, "aipc.toml").write_text('[project]\nmodel = "m:f"\nexample_inputs = "d:x"\nseq_max = "long"\n')
        raises(lambda: Project(d), "aipc.toml:4: key 'seq_max'")
        Path(d, "aipc.toml").write_text('[project]\nmodel = "m:f"\nexample_inputs = "d:x"\n')
        assert Project(d).run_inputs() == [] and Project(d).shipped("a", "b") == "b"


@check
def dynamic_dims_beyond_batch_and_sequence():
    import torch

    from aipc_toolbox import feed
    from aipc_toolbox.tensors import dynamic_shapes

    x, mask = torch.zeros(2, 3, 128), torch.zeros(2, 128)
    shapes = dynamic_shapes((x, mask), extra=[(0, 2, 512)])
    assert shapes[1] is None and list(shapes[0]) == [2] and shapes[0][2].max == 512, shapes
    both = dynamic_shapes((x, torch.zeros(2, 5, 128)), batch=True, extra=[(0, 2, 512), (1, 2, 512)])
    assert both[0][2] is both[1][2] and both[0][0] is both[1][0], "same dim and max: one shared Dim"
    raises(lambda: dynamic_shapes((torch.zeros(2, 3, 1),), extra=[(0, 2, 64)]), "between 2 and 64")
    raises(lambda: dynamic_shapes((x,), extra=[(0, 3, 64)]), "no dim 3")
    assert feed._dims_option("signal", 2, 256, ["other:3:8", "signal:2:300"]) == 'dynamic_dims = ["other:3:8", "signal:2:512"]'
    with tempfile.TemporaryDirectory() as d:
        Path(d, "aipc.toml").write_text('[project]\nmodel = "m:f"\nexample_inputs = "d:x"\ninput_names = ["signal"]\n'
                                        'dynamic_dims = ["signal:2:512", "signal:x:3"]\n')
        cwd = os.getcwd()
        os.chdir(d)
        try:
            from aipc_toolbox.project import Project

            raises(lambda: Project().dynamic_dims(1), "aipc.toml:5: dynamic_dims entry 'signal:x:3'")
        finally:
            os.chdir(cwd)


@check
def fp32_over_budget_line_matches_the_tables():
    out = {"p50_ms": 0.5625, "int8_p50_ms": 0.21}
    line = "aipc-warning: fp32 over budget: " + budget_line("build/model.onnx", out, 0.3, "build/model_int8.onnx", "none")
    assert line.endswith('meets it: ship it: quantize = "int8" in aipc.toml (now "none")'), line
    for target in ("onnxruntime-cpu", "executorch-xnnpack"):
        m = _signature(target, "perf.fp32_over_budget").search(line)
        assert m and m["measured"] == "0.562" and m["threshold"] == "0.3" and m["int8_measured"] == "0.210", (target, line)

    # A project that ships FP32 built no INT8 artifact: the line says so and its own signature
    # (int8_formats first) matches it, not the one above.
    line = "aipc-warning: fp32 over budget: " + unbuilt_int8_line("build/model.onnx", out, 0.3, "build/model_int8.onnx", "none")
    for target in ("onnxruntime-cpu", "executorch-xnnpack"):
        m = _signature(target, "perf.fp32_over_budget_no_int8").search(line)
        assert m and m["measured"] == "0.562" and m["threshold"] == "0.3", (target, line)
        assert not _signature(target, "perf.fp32_over_budget").search(line), (target, line)
    shipped = unbuilt_int8_line("build/model.onnx", out, 0.3, "build/model_int8.onnx", "int8")
    assert "ships FP32" not in shipped and _signature("onnxruntime-cpu", "perf.fp32_over_budget_no_int8").search(
        "aipc-warning: fp32 over budget: " + shipped), shipped


@check
def ort_calibration_feed_keeps_integer_inputs_and_variable_lengths():
    import importlib.util

    spec = importlib.util.spec_from_file_location("ortquant", ORT / "ortquant.py")
    q = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(q)
    samples = [(np.zeros((1, n), np.int64), np.ones((1, n), np.float64)) for n in (4, 7)]
    feeds = q.calibration_batches(samples, ["tokens", "mask"], fixed=1)
    assert [f["tokens"].shape for f in feeds] == [(1, 4), (1, 7)], feeds
    assert feeds[0]["tokens"].dtype == np.int64 and feeds[0]["mask"].dtype == np.float32
    stacked = q.calibration_batches([(np.zeros((1, 3), np.float32),)] * 5, ["x"], fixed=2)
    assert [f["x"].shape for f in stacked] == [(2, 3)] * 3, "re-cut to the fixed batch, the last one padded"


if __name__ == "__main__":
    from checklib import main

    main()

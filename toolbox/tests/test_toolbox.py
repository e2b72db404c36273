#!/usr/bin/env python3
"""Unit checks of the toolbox that need no toolchain run (seconds): argument parsing from the
manifests, metrics, the calibration-outlier rule, aipc.toml loading errors, the two codemods
(rewrites, exactness of the median network, refusals), and the smoke runner's gate parser.

Run with a target venv's python (numpy needed; torch for the median check):
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

from aipc_toolbox import args, calib, metrics  # noqa: E402
from aipc_toolbox.emit import ToolError  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402

CHECKS = []
ORT = ROOT / "toolbox" / "targets" / "onnxruntime-cpu"
FIXES = ROOT / "toolbox" / "fixes"


def check(fn):
    CHECKS.append(fn)
    return fn


def raises(fn, text):
    try:
        fn()
    except (ToolError, SystemExit) as e:
        assert text in str(e), f"expected {text!r} in {e!r}"
        return
    raise AssertionError(f"expected an error containing {text!r}")


@check
def manifests_load_and_name_scripts():
    for t in ("onnxruntime-cpu", "executorch-xnnpack"):
        d = ROOT / "toolbox" / "targets" / t
        tools = args.load_manifest(d / "toolbox.toml")
        names = [x["name"] for x in tools]
        assert "run" not in names, "run is a built-in tool name"
        for x in tools:
            assert (d / x["script"]).is_file(), x["script"]


@check
def args_json_flags_defaults_and_enums():
    script = str(ORT / "quantize.py")
    a = args.parse("quantize", script, ["--args-json", '{"method": "minmax", "drop_outliers": true}'])
    assert a["method"] == "MinMax" and a["drop_outliers"] is True and a["per_channel"] is True
    assert a["nodes_to_exclude"] == [] and a["outlier_factor"] == 20.0
    a = args.parse("quantize", script, ["--nodes_to_exclude", "a,b", "--no-per-channel", "--percentile", "99.9"])
    assert a["nodes_to_exclude"] == ["a", "b"] and a["per_channel"] is False and a["percentile"] == 99.9
    raises(lambda: args.parse("quantize", script, ["--args-json", '{"metod": "MinMax"}']), "did you mean 'method'")
    raises(lambda: args.parse("quantize", script, ["--args-json", '{"percentile": 50}']), "must be >= 90")
    raises(lambda: args.parse("quantize", script, ["--args-json", "[1]"]), "must be a JSON object")
    raises(lambda: args.parse("fix_median_minmax", str(FIXES / "median_minmax.py"), []), "needs argument(s) file")


@check
def metrics_global_and_per_sample_cosine():
    ref = np.array([[10.0, 0.0], [0.0, 1.0]])
    out = np.array([[10.0, 0.0], [1.0, 0.0]])
    m = metrics.compare(ref, out, np.array([0, 1]))
    assert abs(m["cosine_mean"] - 0.5) < 1e-12 and m["cosine_min"] == 0.0
    assert m["cosine"] > 0.99  # the large-norm sample dominates the global cosine
    assert m["top1_agreement"] == 0.5 and m["task_acc_ref"] == 1.0 and m["task_acc_target"] == 0.5
    assert m["acc_drop_points"] == 50.0
    raises_value = False
    try:
        metrics.compare(ref, out[:1])
    except ValueError:
        raises_value = True
    assert raises_value


@check
def calibration_outlier_rule_and_line():
    samples = [(np.full((1, 4), 1.0),) for _ in range(10)]
    samples[3] = (np.array([[0.0, 0.0, 0.0, 150.0]]),)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        found, _, median = calib.outliers(samples, 20.0)
    assert found == [3] and median == 1.0
    assert buf.getvalue().strip() == "aipc-warning: calibration outlier: sample 3 max|x| 150.0 is 150.0x the median max|x| 1.0"


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
    rc, res, new = _fix("branch_to_where.py", src)
    assert rc == 0 and res["pattern"] == "if-return-then-return", res
    assert "return torch.where(torch.logical_and(x.sum() > 0, torch.logical_not(x.max() > 5)), x * 2, x - 1)" in new
    assert "-        if x.sum() > 0" in res["diff"]
    rc, res, _ = _fix("branch_to_where.py", src.replace("x.sum() > 0 and not x.max().item() > 5", "x.shape[0] > 1"))
    assert rc == 1 and "reads shape" in res["error"] and "model.py:5" in res["error"], res
    rc, res, new = _fix("branch_to_where.py", """
        class M:
            def forward(self, x):
                y = x if x.mean() < 0.5 else 1 - x
                return y
        """)
    assert rc == 0 and "y = torch.where(x.mean() < 0.5, x, 1 - x)" in new and "import torch" in new, new


@check
def median_minmax_is_exact():
    import torch

    rc, res, new = _fix("median_minmax.py", """
        import torch
        def f(x):
            return torch.median(x, dim=1).values, x.median(2, keepdim=True)[0]
        """)
    assert rc == 0 and res["rewritten"] == 2, res
    ns = {}
    exec(compile(new, "model.py", "exec"), ns)
    x = torch.randn(3, 9, 8)
    a, b = ns["f"](x)
    assert torch.equal(a, torch.median(x, dim=1).values) and torch.equal(b, x.median(2, keepdim=True)[0])
    rc, res, _ = _fix("median_minmax.py", "import torch\ndef f(x):\n    v, i = x.median(1)\n    return i\n")
    assert rc == 1 and "no torch.median" in res["error"], res


@check
def runner_gates_like_the_engine():
    import run_examples as r

    m = r.flatten({"cosine": 0.97, "ok": True, "ops": {"Conv": 2}, "name": "x"})
    assert m == {"cosine": 0.97, "ok": 1.0, "ops.Conv": 2.0}
    assert r.gate_ok("cosine >= 95%", m)[0] and not r.gate_ok("ops.Conv > 2", m)[0]
    assert r.gate_ok("missing == 1", m) == (False, "metric not printed")
    assert r.last_json('x\n{"a": 1}\nnoise\n') == {"a": 1}


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


def main():
    failed = 0
    for fn in CHECKS:
        try:
            fn()
            print(f"ok   {fn.__name__}")
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc()
    print(f"{len(CHECKS) - failed}/{len(CHECKS)} passed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""INT8 formats (onnxruntime-cpu: ortquant.py, quantize, int8_formats, and the lines profile and
inspect print about them), run for real on a small MLP project written to a temporary folder:

- quantize builds every format, records it in the artifact, and `format` / aipc.toml
  int8_format choose it; a stale artifact is named by inspect (int8_format_matches 0);
- int8_formats measures every format against FP32 and eager, keeps the fastest that passes the
  thresholds as build/model_int8.onnx (never one that fails them), reuses the calibration
  settings the current INT8 artifact records, and its line matches the signature table;
- profile's `int8 over budget` line names the format and matches the table.
No timing is asserted: which format is fastest is this CPU's business.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from checklib import ROOT, check, main

TARGET = ROOT / "toolbox" / "targets" / "onnxruntime-cpu"
FORMATS = ["qdq-s8s8", "qdq-u8s8", "qdq-u8s8-tensor", "qdq-u8s8-conv-matmul", "qoperator-u8s8", "dynamic-matmul"]

NET = '''
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    return net.eval()


def rows():
    g = torch.Generator().manual_seed(1)
    return torch.randn(96, 16, generator=g)


def sample():
    return (rows()[:4],)


def held_out():
    x = rows()
    with torch.no_grad():
        y = build()(x).argmax(1)
    return (x,), y


def calibration():
    x = rows()
    return [(x[i:i + 8],) for i in range(0, 64, 8)]
'''

TOML = '''target = "onnxruntime-cpu"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
calibration_data = "net:calibration"
input_names = ["x"]
output_names = ["y"]
quantize = "int8"
latency_budget_ms = {budget}
{extra}
'''

_DIR = None


def project(budget=100.0, extra=""):
    """The project folder, exported once; aipc.toml rewritten for each check."""
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix="aipc-int8-formats-"))
        (_DIR / "net.py").write_text(NET)
    (_DIR / "aipc.toml").write_text(TOML.format(budget=budget, extra=extra))
    if not (_DIR / "build" / "model.onnx").is_file():
        tool("export.py", {})
    return _DIR


def tool(script, args):
    """Run a target script in the project; (last JSON line, whole output)."""
    env = dict(os.environ, AIPC_TARGET_DIR=str(TARGET), AIPC_TOOLBOX=str(ROOT / "toolbox"),
               PYTHONPATH=str(ROOT / "toolbox" / "lib"))
    r = subprocess.run([sys.executable, str(TARGET / script), "--args-json", json.dumps(args)], cwd=_DIR, env=env,
                       capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    last = [line for line in r.stdout.splitlines() if line.startswith("{")]
    assert last, f"{script} printed no JSON line:\n{out}"
    return json.loads(last[-1]), out


def signature(sig_id):
    with open(ROOT / "toolbox" / "targets" / "common" / "int8-formats.toml", "rb") as f:
        table = tomllib.load(f)
    return re.compile(next(s["regex"] for s in table["signature"] if s["id"] == sig_id))


def recorded(path):
    import onnx

    props = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return props.get("aipc.int8_format"), json.loads(props.get("aipc.quantize", "{}"))


@check
def quantize_builds_every_format_and_records_it():
    d = project()
    for fmt in FORMATS:
        res, out = tool("quantize.py", {"format": fmt})
        assert res["ok"] and res["format"] == fmt and res["int8_nodes"] >= 1, out
        assert recorded(d / "build" / "model_int8.onnx")[0] == fmt
    res, _ = tool("compare.py", {"artifact": "build/model_int8.onnx"})
    assert res["ok"] and res["cosine"] > 0.9, res


@check
def aipc_toml_chooses_the_format_and_inspect_names_a_stale_artifact():
    project(extra='int8_format = "qdq-u8s8-tensor"')
    res, out = tool("quantize.py", {})
    assert res["format"] == "qdq-u8s8-tensor" and res["per_channel"] == 0, out
    res, out = tool("inspect_artifact.py", {"artifact": "build/model_int8.onnx"})
    assert res["int8_format_matches"] == 1 and res["int8_format"] == "qdq-u8s8-tensor", out
    project(extra='int8_format = "dynamic-matmul"')
    res, out = tool("inspect_artifact.py", {"artifact": "build/model_int8.onnx"})
    assert res["int8_format_matches"] == 0, out
    m = signature("perf.int8_artifact_stale").search(out)
    assert m and m["built"] == "qdq-u8s8-tensor" and m["format"] == "dynamic-matmul", out
    project(extra='int8_format = "static-tensor"')
    res, out = tool("quantize.py", {})
    assert not res["ok"] and "aipc.toml:" in out and "not an onnxruntime-cpu format" in out, out


@check
def int8_formats_keeps_the_fastest_accurate_one_and_names_the_setting():
    d = project()
    tool("quantize.py", {"drop_outliers": True, "method": "Percentile", "percentile": 99.9})
    res, out = tool("int8_formats.py", {"max_s": 1.0})
    assert res["ok"], out
    assert "reused" in out and "'method': 'Percentile'" in out, "the recorded calibration is reused"
    assert set(res["formats"]) == set(FORMATS), res["formats"]
    passing = {f: r for f, r in res["formats"].items() if r.get("passes")}
    assert passing, res
    best = min(passing, key=lambda f: passing[f]["p50_ms"])
    if res["fp32_p50_ms"] <= passing[best]["p50_ms"]:
        assert "int8 not faster" in out and "best_format" in res, out
        return
    assert res["best_format"] == best, res
    fmt, settings = recorded(d / "build" / "model_int8.onnx")
    if best != "qdq-s8s8":
        assert fmt == best and res["replaced"] == 1, (fmt, res)
        assert settings.get("method") == "Percentile", settings
        m = signature("perf.int8_format").search(out)
        assert m and m["format"] == best, out
    res, out = tool("inspect_artifact.py", {"artifact": "build/model_int8.onnx"})
    assert res["int8_format_matches"] == int(best == "qdq-s8s8"), out


@check
def thresholds_exclude_a_format():
    project()
    tool("quantize.py", {})
    res, out = tool("int8_formats.py", {"max_s": 1.0, "formats": ["qdq-s8s8", "dynamic-matmul"], "min_cosine": 1.01})
    assert res["ok"] and "best_format" not in res and res["replaced"] == 0, out
    assert all(r.get("passes") == 0 for r in res["formats"].values()), res
    assert signature("perf.int8_not_faster").search(out), out


@check
def profile_names_the_format_over_budget():
    project(budget=0.0001, extra='int8_format = "qdq-u8s8"')
    tool("quantize.py", {})
    res, out = tool("profile_latency.py", {"max_s": 0.5, "iters": 20})
    assert res["ok"] and res["within_budget"] == 0 and "fp32_p50_ms" in res, out
    m = signature("perf.int8_over_budget").search(out)
    assert m and m["format"] == "qdq-u8s8" and m["artifact"] == "build/model_int8.onnx", out


if __name__ == "__main__":
    try:
        main()
    finally:
        if _DIR is not None:
            shutil.rmtree(_DIR, ignore_errors=True)

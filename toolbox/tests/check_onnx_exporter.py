#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""The onnxruntime-cpu exporters (export.py), run for real on a small CNN project in a temporary
folder:

- aipc.toml onnx_exporter = "torchscript" exports by tracing (dynamo=False), keeps the dynamic
  batch as a dynamic axis and the weights in <artifact>.data, and compare finds it equal to eager
  on batches of another size;
- the same setting with rewrite_ops is refused with what to do (a rewrite needs torch.export);
- the dynamo exporter's failure line (`dynamo export failed`) is read from a real failure's output
  (tests/data/toolbox/ort-export-dynamo-decompose-failed.txt) by the signature table's regex.
"""
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

from checklib import ROOT, check, main, run_script

TARGET = ROOT / "toolbox" / "targets" / "onnxruntime-cpu"

NET = '''
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                        nn.Linear(8, 4))
    return net.eval()


def images(n):
    return torch.randn(n, 3, 16, 16, generator=torch.Generator().manual_seed(n))


def sample():
    return (images(2),)


def held_out():
    x = images(24)
    with torch.no_grad():
        return (x,), build()(x).argmax(1)
'''

TOML = '''target = "onnxruntime-cpu"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
input_names = ["image"]
output_names = ["logits"]
quantize = "none"
dynamic_batch = true
{extra}
'''


def project(extra):
    d = Path(tempfile.mkdtemp(prefix="aipc-exporter-"))
    (d / "net.py").write_text(NET)
    (d / "aipc.toml").write_text(TOML.format(extra=extra))
    return d


@check
def torchscript_exporter_traces_the_module_with_a_dynamic_batch():
    d = project('onnx_exporter = "torchscript"')
    try:
        res, out = run_script(TARGET, d, "export.py", {})
        assert res["ok"] and res["exporter"] == "torchscript" and res["dynamic_batch"] == 1, out
        assert res["external_data_ok"] == 1 and (d / "build" / "model.onnx.data").is_file(), out
        assert "(torchscript exporter)" in out, out
        res, out = run_script(TARGET, d, "compare.py", {"artifact": "build/model.onnx"})
        assert res["ok"] and res["cosine"] > 0.9999 and res["top1_agreement"] == 1.0, out
    finally:
        shutil.rmtree(d, ignore_errors=True)


@check
def torchscript_exporter_refuses_rewrites():
    d = project('onnx_exporter = "torchscript"\nrewrite_ops = ["aten.median.dim"]')
    try:
        res, out = run_script(TARGET, d, "export.py", {})
        assert not res["ok"] and "cannot apply rewrite_ops" in res["error"] and "set_project_option" in res["error"], out
        assert not (d / "build" / "model.onnx").exists(), out
    finally:
        shutil.rmtree(d, ignore_errors=True)


@check
def the_dynamo_failure_line_matches_the_signature_table():
    # The target's table includes shared tables, as the engine reads it.
    with open(TARGET / "signatures.toml", "rb") as f:
        table = tomllib.load(f)
    signatures = list(table.get("signature", []))
    for include in table.get("include", []):
        with open(TARGET / include, "rb") as f:
            signatures += tomllib.load(f).get("signature", [])
    regex = re.compile(next(s["regex"] for s in signatures if s["id"] == "export.dynamo_failed"))
    text = (ROOT / "tests" / "data" / "toolbox" / "ort-export-dynamo-decompose-failed.txt").read_text()
    m = regex.search(text)
    assert m and m["step"] == "2/3" and m["cause"].startswith("ValueError: Cannot view"), text[:2000]


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""INT8 formats (onnxruntime-cpu: ortquant.py; executorch-xnnpack: quantize.py's FORMATS; both:
quantize, int8_formats, and the lines profile and inspect print about them), run for real in the
venv it runs in, on a small MLP project written to a temporary folder:

- quantize builds every format, records it in the artifact, and `format` / aipc.toml
  int8_format choose it; a stale artifact is named by inspect (int8_format_matches 0);
- int8_formats measures every format against FP32 and eager, keeps the fastest that passes the
  thresholds as the INT8 artifact (never one that fails them), reuses the calibration
  settings the current INT8 artifact records, and its line matches the signature table;
- profile's `int8 over budget` line names the format and matches the table.
No timing is asserted: which format is fastest is this CPU's business.
"""
import json
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

from checklib import MLP_DATA, MLP_TOML, ROOT, check, main, run_script

try:
    import onnxruntime  # noqa: F401

    TARGET_NAME, EXT = "onnxruntime-cpu", "onnx"
    FORMATS = ["qdq-s8s8", "qdq-u8s8", "qdq-u8s8-tensor", "qdq-u8s8-conv-matmul", "qoperator-u8s8", "dynamic-matmul"]
    OTHER = "static-tensor"  # the other target's
except ImportError:
    TARGET_NAME, EXT = "executorch-xnnpack", "pte"
    FORMATS = ["static-channel", "static-tensor", "dynamic-channel"]
    OTHER = "qdq-u8s8"
TARGET = ROOT / "toolbox" / "targets" / TARGET_NAME
DEFAULT, SECOND, LAST = FORMATS[0], FORMATS[1], FORMATS[-1]
INT8 = f"build/model_int8.{EXT}"

NET = '''
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    return net.eval()
''' + MLP_DATA


_DIR = None


def project(budget=100.0, extra=""):
    """The project folder, exported once; aipc.toml rewritten for each check."""
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix="aipc-int8-formats-"))
        (_DIR / "net.py").write_text(NET)
    extra = f'input_names = ["x"]\noutput_names = ["y"]\nlatency_budget_ms = {budget}\n{extra}'
    (_DIR / "aipc.toml").write_text(MLP_TOML.format(target=TARGET_NAME, extra=extra))
    if not (_DIR / "build" / f"model.{EXT}").is_file():
        tool("export.py", {})
    return _DIR


def tool(script, args):
    """Run a target script in the project; (last JSON line, whole output)."""
    return run_script(TARGET, _DIR, script, args)


def signature(sig_id):
    with open(ROOT / "toolbox" / "targets" / "common" / "int8-formats.toml", "rb") as f:
        table = tomllib.load(f)
    return re.compile(next(s["regex"] for s in table["signature"] if s["id"] == sig_id))


def recorded(path):
    """(format, calibration settings) the INT8 artifact records."""
    if EXT == "pte":
        settings = json.loads(Path(f"{path}.json").read_text()).get("quantize", {})
        return settings.get("format"), settings
    import onnx

    props = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return props.get("aipc.int8_format"), json.loads(props.get("aipc.quantize", "{}"))


@check
def quantize_builds_every_format_and_records_it():
    d = project()
    for fmt in FORMATS:
        res, out = tool("quantize.py", {"format": fmt})
        assert res["ok"] and res["format"] == fmt, out
        assert recorded(d / INT8)[0] == fmt
        res, out = tool("inspect_artifact.py", {"artifact": INT8})
        assert res.get("int8_nodes", 1) >= 1 and res.get("quantized", 1) == 1, out
    res, _ = tool("compare.py", {"artifact": INT8})
    assert res["ok"] and res["cosine"] > 0.9, res


@check
def aipc_toml_chooses_the_format_and_inspect_names_a_stale_artifact():
    per_tensor = next(f for f in FORMATS if "tensor" in f)
    project(extra=f'int8_format = "{per_tensor}"')
    res, out = tool("quantize.py", {})
    assert res["format"] == per_tensor and res["per_channel"] == 0, out
    res, out = tool("inspect_artifact.py", {"artifact": INT8})
    assert res["int8_format_matches"] == 1 and res["int8_format"] == per_tensor, out
    project(extra=f'int8_format = "{LAST}"')
    res, out = tool("inspect_artifact.py", {"artifact": INT8})
    assert res["int8_format_matches"] == 0, out
    m = signature("perf.int8_artifact_stale").search(out)
    assert m and m["built"] == per_tensor and m["format"] == LAST, out
    project(extra=f'int8_format = "{OTHER}"')
    res, out = tool("quantize.py", {})
    assert not res["ok"] and "aipc.toml:" in out and f"not an {TARGET_NAME} format" in out, out


@check
def int8_formats_keeps_the_fastest_accurate_one_and_names_the_setting():
    d = project()
    calib = ({"method": "Percentile", "percentile": 99.9} if EXT == "onnx" else {"observer": "minmax"})
    res, out = tool("quantize.py", calib)
    assert res["ok"], out
    res, out = tool("int8_formats.py", {"max_s": 1.0})
    assert res["ok"], out
    key, value = next(iter(calib.items()))
    assert "reused" in out and f"'{key}': '{value}'" in out, "the recorded calibration is reused"
    assert set(res["formats"]) == set(FORMATS), res["formats"]
    passing = {f: r for f, r in res["formats"].items() if r.get("passes")}
    assert passing, res
    best = res["best_format"]
    fastest = min(r["p50_ms"] for r in passing.values())
    assert best in passing and passing[best]["p50_ms"] <= fastest + 1e-4 or (
        best == res["project_format"] and passing[best]["p50_ms"] <= fastest * 1.05 + 1e-4), res
    previous_passes = res["formats"][res["previous_format"]].get("passes")
    if "int8 not faster" in out:
        # No faster INT8 format, and the current artifact passes: it stays.
        assert res["best_p50_ms"] >= res["fp32_p50_ms"] - 1e-4 and res["replaced"] == 0 and previous_passes, res
        return
    # Faster than FP32, or the current artifact fails the thresholds (an accurate format then
    # replaces it even when it is not faster).
    assert res["best_p50_ms"] <= res["fp32_p50_ms"] + 1e-4 or not previous_passes, res
    fmt, settings = recorded(d / INT8)
    if best != DEFAULT:
        assert fmt == best and res["replaced"] == 1, (fmt, res)
        assert settings.get(key) == value, settings
        m = signature("perf.int8_format").search(out)
        assert m and m["format"] == best, out
    res, out = tool("inspect_artifact.py", {"artifact": INT8})
    assert res["int8_format_matches"] == int(best == DEFAULT), out
    if best != DEFAULT:
        m = signature("perf.int8_format_chosen").search(out)
        assert m and m["format"] == best and m["wanted"] == DEFAULT, "a kept format is recorded, not rebuilt: " + out
        assert not signature("perf.int8_artifact_stale").search(out), out


@check
def thresholds_exclude_a_format():
    project()
    tool("quantize.py", {})
    res, out = tool("int8_formats.py", {"max_s": 1.0, "formats": [DEFAULT, LAST], "min_cosine": 1.01})
    assert res["ok"] and "best_format" not in res and res["replaced"] == 0, out
    assert all(r.get("passes") == 0 for r in res["formats"].values()), res
    assert signature("perf.int8_not_faster").search(out), out


@check
def an_inaccurate_artifact_is_replaced_by_an_accurate_format_even_when_not_faster():
    """int8_choice.decide on measured rows (no build): in the accuracy stage the current INT8
    artifact fails the thresholds; a format that passes replaces it although it is slower than
    FP32 (the latency gate decides whether INT8 pays). When the current one passes, a slower
    format never replaces it."""
    import contextlib
    import io

    from aipc_toolbox import int8_choice

    a = {"min_cosine": 0.95, "min_top1_agreement": 0.98, "max_acc_drop_points": 1.0}
    built = {"fast-bad": "fast.bin", "slow-good": "slow.bin"}
    p50 = {"fp32.bin": 1.0, "fast.bin": 0.5, "slow.bin": 1.2}

    def decide(previous):
        rows = {"fast-bad": {"cosine": 0.5, "top1_agreement": 0.2, "passes": 0},
                "slow-good": {"cosine": 0.999, "top1_agreement": 1.0, "passes": 1}}
        replaced = []
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            out = int8_choice.decide(rows, built, p50, "fp32.bin", a, {
                "previous": previous, "wanted": previous, "quantize": "int8", "budget": None, "threads": 1,
                "int8": INT8, "replace": replaced.append})
        return out, replaced, buf.getvalue()

    out, replaced, text = decide(previous="fast-bad")
    assert out["replaced"] == 1 and replaced == ["slow.bin"], (out, text)
    m = signature("perf.int8_format").search(text)
    assert m and m["format"] == "slow-good", "the kept format is named for aipc.toml: " + text
    assert not signature("perf.int8_not_faster").search(text), text
    # ... and the result names the call that records it, which the engine offers next.
    assert out["next_calls"] and out["next_calls"][0].startswith(
        'set_project_option {"key": "int8_format", "value": "slow-good"}'), out
    out, replaced, text = decide(previous="slow-good")
    assert out["replaced"] == 0 and not replaced, (out, text)
    assert signature("perf.int8_not_faster").search(text), text


@check
def profile_names_the_format_over_budget():
    project(budget=0.0001, extra=f'int8_format = "{SECOND}"')
    tool("quantize.py", {})
    res, out = tool("profile_latency.py", {"max_s": 0.5, "iters": 20})
    assert res["ok"] and res["within_budget"] == 0 and "fp32_p50_ms" in res, out
    m = signature("perf.int8_over_budget").search(out)
    assert m and m["format"] == SECOND and m["artifact"] == INT8, out


@check
def the_choice_keeps_the_project_format_within_noise_and_names_shipping_int8():
    """decide() on given medians (no timing of this machine): a format within 5 % of the
    project's own is not a reason to switch; a project that ships FP32 is told to ship INT8 when
    an accurate format beats FP32, with the call."""
    import sys

    sys.path.insert(0, str(ROOT / "toolbox" / "lib"))
    from aipc_toolbox.int8_choice import decide

    thresholds = {"min_cosine": 0.95, "min_top1_agreement": 0.98, "max_acc_drop_points": 1.0}

    def choose(p50_other, quantize):
        rows = {f: {"passes": True, "cosine": 1.0, "top1_agreement": 1.0} for f in (DEFAULT, SECOND)}
        replaced = []
        ctx = {"previous": None, "wanted": DEFAULT, "quantize": quantize, "budget": 0.6, "threads": 1,
               "int8": INT8, "replace": replaced.append}
        out = decide(rows, {DEFAULT: "d", SECOND: "s"}, {"fp32": 1.0, "d": 0.50, "s": p50_other}, "fp32",
                     thresholds, ctx)
        return out, replaced

    out, replaced = choose(0.49, "none")
    assert out["best_format"] == DEFAULT and replaced == ["d"], out
    assert [c.split("  ")[0] for c in out["next_calls"]] == ['set_project_option {"key": "quantize", "value": "int8"}'], out
    out, replaced = choose(0.40, "none")
    assert out["best_format"] == SECOND and replaced == ["s"], out
    assert [c.split("  ")[0] for c in out["next_calls"]] == [
        'set_project_option {"key": "int8_format", "value": "%s"}' % SECOND,
        'set_project_option {"key": "quantize", "value": "int8"}'], out
    out, _ = choose(0.40, "int8")
    assert [c.split("  ")[0] for c in out["next_calls"]] == [
        'set_project_option {"key": "int8_format", "value": "%s"}' % SECOND], "a project shipping INT8 is not told to"

if __name__ == "__main__":
    try:
        main()
    finally:
        if _DIR is not None:
            shutil.rmtree(_DIR, ignore_errors=True)

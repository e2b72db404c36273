# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""The application's own path (compare with aipc.toml app_eval_data, aipc_toolbox/app_path.py),
run for real on a small trained classifier whose app reads raw integer readings and prepares
them in a method of its own class:

- a right preprocessing: app_path_ok 1, the same accuracy and class-by-class agreement as eager
  on eval_data;
- preprocessing that runs but gives other values (another scale; the features in another order):
  app_path_ok 0, and the warning names the method that built the inputs (file:line) and both
  value ranges, in the form the app.accuracy_drop signature reads;
- values that a step of eval_data's own path makes from what the app feeds (the device's order
  back to the sensor's, not an affine map of tables): a line names the step and how the app
  reaches it (the app.skipped_step signature), and fix_input_feed `via` converts with it in the
  method that builds the inputs, after which the app's path scores as eager;
- values that the app makes with its own copy of such a step, which diverged from it (the device
  image's unpack from before the reorder): a line names that function and the step that, given
  its argument in its place, feeds eval_data's values (app.diverged_step), and fix_input_feed
  `via` + `instead` puts it there; when that function is given a record (a dataclass of the
  unit's readings and its offset), the step takes the record's fields by its parameters' names;
- values that are an affine map of eval_data's (another scale; a scale per feature): a second
  warning gives the map measured (the app.affine_feed signature), and fix_input_feed
  `value_range` applies it in the method that builds the inputs, after which the app's path
  scores as eager; another order is not affine: no such line, and the fix refuses, writing
  nothing;
- a feed that holds a non-contiguous view: onnxruntime copies it in order and the app's path
  scores as eager; ExecuTorch reads the buffer in memory order, so there the view is named where
  it is built (the run stage's `input not contiguous` line) instead of the runtime's error, and
  fix_input_feed `contiguous` repairs it;
- no app_eval_data: nothing is measured, and the check says so;
- labels that do not match the samples: a clear error naming aipc.toml's line.
"""
import re
import tempfile
import tomllib
from pathlib import Path

from checklib import ROOT, check, main, run_script, venv_target

TARGET_NAME, EXT, TARGET = venv_target()

NET = '''
import numpy as np
import torch
from torch import nn

ORDER = [3, 0, 7, 1, 10, 5, 2, 11, 4, 9, 6, 8]  # the order the device sends its 12 readings in


def raw(n, seed):
    """Raw readings as the sensor gives them: integers 0..16, and the class of each."""
    g = torch.Generator().manual_seed(seed)
    centers = torch.rand(4, 12, generator=torch.Generator().manual_seed(0)) * 16.0
    y = torch.randint(0, 4, (n,), generator=g)
    x = (centers[y] + torch.randn(n, 12, generator=g) * 2.0).round().clamp(0, 16)
    return x.to(torch.uint8), y


def build():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))
    x, y = raw(512, 1)
    x = x.float() / 16.0
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(200):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    return net.eval()


def degraded():
    """The trained net with its last layer's weights scrambled: an artifact built from it loses
    accuracy on its own, whatever feeds it (what a collapsed INT8 build does)."""
    net = build()
    with torch.no_grad():
        w = net[2].weight
        w.copy_(w[torch.randperm(w.shape[0], generator=torch.Generator().manual_seed(5))])
    return net


def sample():
    return (raw(8, 2)[0].float() / 16.0,)


def held_out():
    x, y = raw(96, 3)
    return (x.float() / 16.0,), y


def calibration():
    x, _ = raw(64, 4)
    return [(x[i:i + 8].float() / 16.0,) for i in range(0, 64, 8)]


def pack(readings):
    """The readings as the device sends them: in its own order."""
    return readings[:, ORDER]


def unpack(packed):
    """The device's order back to the sensor's, in the model's unit."""
    x = np.empty(packed.shape, dtype=np.float32)
    x[:, ORDER] = packed / 16.0
    return x


def held_out_packed():
    """held_out(), from what the device sends."""
    x, y = raw(96, 3)
    return (torch.from_numpy(unpack(pack(x.numpy()))),), y


def offsets(n, seed):
    """Each unit's own sensor offset, which it reports beside its readings."""
    return (torch.rand(n, generator=torch.Generator().manual_seed(seed)) * 8.0 + 4.0).numpy()


def calibrated(sent, offset):
    """What a unit sent, back to the sensor's readings, in the model's unit."""
    return ((sent - offset[:, None]) / 16.0).astype(np.float32)


def held_out_offset():
    """held_out(), from what the units send with their offsets."""
    x, y = raw(96, 3)
    o = offsets(96, 3)
    return (torch.from_numpy(calibrated(x.numpy() + o[:, None], o)),), y
'''

APP = '''
import numpy as np

import net


class Reader:
    """The app's front end: readings in, model input out."""

    def prepare(self, readings):
        return {prepare}


def labelled(limit=None):
    x, y = net.raw(96, 3)
    x, y = x.numpy(), y.numpy()
    reader = Reader()
    feeds = [(reader.prepare(x[i:i + 8]),) for i in range(0, 96, 8)]
    return feeds, y[:limit]
'''

RIGHT = "(readings / 16.0).astype(np.float32)"
WRONG_SCALE = "(readings / 255.0).astype(np.float32)"
WRONG_ORDER = "np.ascontiguousarray((readings / 16.0).astype(np.float32)[:, ::-1])"
PACKED = "np.ascontiguousarray(net.pack(readings), dtype=np.float32)"
WRONG_PER_FEATURE = "(readings * np.linspace(-1.0, 1.0, 12) + 3.0).astype(np.float32)"
FIX = ROOT / "toolbox" / "fixes" / "input_feed.py"

TOML = '''target = "{target}"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
calibration_data = "net:calibration"
input_names = ["x"]
output_names = ["y"]
quantize = "int8"
{extra}
'''

_DIR = None


def project(prepare=RIGHT, app_eval_data="app:labelled"):
    """The project folder, exported once; app.py and aipc.toml rewritten for each check."""
    global _DIR
    fresh = _DIR is None
    if fresh:
        _DIR = Path(tempfile.mkdtemp(prefix="aipc-app-path-"))
        (_DIR / "net.py").write_text(NET)
    (_DIR / "app.py").write_text(APP.format(prepare=prepare))
    extra = f'app_eval_data = "{app_eval_data}"' if app_eval_data else ""
    (_DIR / "aipc.toml").write_text(TOML.format(target=TARGET_NAME, extra=extra))
    if fresh:
        res, out = tool("export.py", {})
        assert res["ok"], out
    return _DIR


def tool(script, args):
    return run_script(TARGET, _DIR, script, args)


def signature(sig_id):
    with open(ROOT / "toolbox" / "targets" / "common" / "app-path.toml", "rb") as f:
        entry = next(s for s in tomllib.load(f)["signature"] if s["id"] == sig_id)
    return re.compile(entry["regex"]), entry["fixes"]


def prepare_line():
    return next(i for i, line in enumerate((_DIR / "app.py").read_text().splitlines(), 1) if "def prepare" in line)


@check
def the_apps_own_path_scores_as_eager_when_it_prepares_the_inputs_right():
    project()
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["ok"] and res["app_path_checked"] == 1 and res["app_path_ok"] == 1, out
    assert res["app_samples"] == 96 and res["app_top1_agreement"] == 1.0, out
    assert res["app_acc_target"] == res["task_acc_ref"] > 0.5 and res["app_acc_drop_points"] == 0, out
    assert res["app_acc_eager"] == res["task_acc_ref"], out
    assert "aipc-warning" not in out, out


@check
def an_artifact_that_loses_accuracy_on_its_own_is_not_blamed_on_the_apps_preprocessing():
    project()
    # A copy of the project whose artifact is built from the degraded net, then compared with
    # the trained one, through the right preprocessing.
    lossy = Path(tempfile.mkdtemp(prefix="aipc-app-path-lossy-"))
    for name in ("net.py", "app.py"):
        (lossy / name).write_text((_DIR / name).read_text())
    toml = (_DIR / "aipc.toml").read_text()
    (lossy / "aipc.toml").write_text(toml.replace('model = "net:build"', 'model = "net:degraded"'))
    res, out = run_script(TARGET, lossy, "export.py", {})
    assert res["ok"], out
    (lossy / "aipc.toml").write_text(toml)
    res, out = run_script(TARGET, lossy, "compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["ok"] and res["app_path_checked"] == 1 and res["app_path_ok"] == 0, out
    assert res["task_acc_target"] < res["task_acc_ref"] - 0.2, out
    assert res["app_drop_is_artifact"] == 1, out
    assert "the drop is the artifact's own accuracy" in out, out
    regex, _ = signature("app.accuracy_drop")
    assert not regex.search(out) and "aipc-warning: app path" not in out, out


@check
def preprocessing_that_runs_but_gives_other_values_fails_and_names_the_function_that_builds_the_inputs():
    regex, fixes = signature("app.accuracy_drop")
    for prepare, what in ((WRONG_SCALE, "another scale"), (WRONG_ORDER, "the features in another order")):
        project(prepare)
        res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
        assert res["ok"] and res["app_path_checked"] == 1 and res["app_path_ok"] == 0, (what, out)
        assert res["app_acc_drop_points"] > 10 and res["app_top1_agreement"] < 0.9, (what, out)
        # The eager model on the same feed is as wrong: the feed is, not the artifact.
        assert abs(res["app_acc_eager"] - res["app_acc_target"]) < 0.02, (what, out)
        m = regex.search(out)
        assert m, (what, out)
        assert (m["file"], m["line"], m["function"]) == ("app.py", str(prepare_line()), "Reader.prepare"), m.groupdict()
        assert m["app_stats"] and m["eval_stats"], m.groupdict()
        call = fixes[0].replace("${file}", m["file"]).replace("${function}", m["function"])
        assert call.startswith('replace_function {"file": "app.py", "function": "Reader.prepare"}'), call
    # The scale shows in the two ranges the evidence gives.
    project(WRONG_SCALE)
    _, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    m = regex.search(out)
    assert "range [0, 0.06" in m["app_stats"] and "range [0, 1]" in m["eval_stats"], m.groupdict()


def fix_input_feed(args):
    return run_script(FIX.parent, _DIR, FIX.name, args)


def compare_with(app_text, eval_data):
    """compare on the project with app.py `app_text` and aipc.toml eval_data `eval_data`."""
    project()
    (_DIR / "app.py").write_text(app_text)
    toml = (_DIR / "aipc.toml").read_text()
    (_DIR / "aipc.toml").write_text(toml.replace('eval_data = "net:held_out"', f'eval_data = "{eval_data}"'))
    return tool("compare.py", {"artifact": f"build/model.{EXT}"})


def passes_after_the_fix():
    """compare again: the app's path now scores as eager, with nothing left to warn about; then
    the project as it was, for the next check."""
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["app_path_ok"] == 1 and res["app_top1_agreement"] == 1.0 and "aipc-warning" not in out, out
    project()


@check
def an_affine_difference_is_measured_and_fix_input_feed_applies_it_where_the_inputs_are_built():
    regex, fixes = signature("app.affine_feed")
    for prepare, kind, shown in ((WRONG_SCALE, "scalar", "x 15.9375 + 0"), (WRONG_PER_FEATURE, "per-channel", "per channel")):
        project(prepare)
        res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
        assert res["app_path_ok"] == 0 and res["app_affine_input"] == "x", (kind, out)
        m = regex.search(out)
        assert m, (kind, out)
        assert (m["input"], m["file"], m["function"], m["kind"]) == ("x", "app.py", "Reader.prepare", kind), m.groupdict()
        assert m["map"].startswith(shown) and float(m["residual"]) < 1.0, m.groupdict()
        assert fixes[0].replace("${input}", m["input"]).startswith('fix_input_feed {"input": "x", "value_range": true}')
        before = (_DIR / "app.py").read_text()
        res, out = fix_input_feed({"input": m["input"], "value_range": True})
        assert res["ok"] and res["value_map_kind"] == kind and res["function"] == "Reader.prepare", out
        after = (_DIR / "app.py").read_text()
        assert after != before and re.search(r"@_aipc_conform_feed\(None, scale=.*, shift=.*\)\n    def prepare", after), after
        assert (_DIR / "app.py").read_text().count(prepare) == 1, "the method's own code is left as it is"
        res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
        assert res["app_path_ok"] == 1 and res["app_acc_drop_points"] <= 0.0 + 1e-9, (kind, out)
        assert res["app_top1_agreement"] == 1.0 and "app path affine" not in out, (kind, out)
        # Measured again: nothing left to apply, and a second call says so, writing nothing.
        res, out = fix_input_feed({"input": "x", "value_range": True})
        assert not res["ok"] and "already holds eval_data's values" in res["error"], out
        assert (_DIR / "app.py").read_text() == after


@check
def a_step_of_eval_datas_path_the_app_skips_is_measured_and_fix_input_feed_converts_with_it():
    regex, fixes = signature("app.skipped_step")
    res, out = compare_with(APP.format(prepare=PACKED), "net:held_out_packed")
    assert res["app_path_ok"] == 0 and res["app_skipped_step"] == "net:unpack" and "app path affine" not in out, out
    m = regex.search(out)
    assert m, out
    assert (m["input"], m["file"], m["function"], m["step"], m["via"]) == ("x", "app.py", "Reader.prepare", "unpack",
                                                                            "net:unpack"), m.groupdict()
    assert m["step_file"] == "net.py" and m["called_at"].startswith("net.py:"), m.groupdict()
    assert fixes[0].replace("${input}", m["input"]).replace("${via}", m["via"]).startswith(
        'fix_input_feed {"input": "x", "via": "net:unpack"}'), fixes[0]
    res, out = fix_input_feed({"input": m["input"], "via": m["via"]})
    assert res["ok"] and res["via"] == "net:unpack" and res["function"] == "Reader.prepare", out
    assert (_DIR / "app.py").read_text().count(PACKED) == 1, "the method's own code is left as it is"
    passes_after_the_fix()


STALE = "\n\ndef stale_unpack(packed):\n    # the device image's copy of net.unpack, from before the reorder\n    return np.ascontiguousarray(packed / 16.0, dtype=np.float32)\n"


@check
def an_app_function_that_diverged_from_a_step_of_eval_datas_path_is_named_and_the_step_takes_its_place():
    regex, fixes = signature("app.diverged_step")
    res, out = compare_with(APP.format(prepare="stale_unpack(net.pack(readings))") + STALE, "net:held_out_packed")
    assert res["app_path_ok"] == 0 and "app_skipped_step" not in res, out
    m = regex.search(out)
    assert m, out
    assert (m["input"], m["file"], m["function"], m["step"], m["via"]) == ("x", "app.py", "stale_unpack", "unpack",
                                                                            "net:unpack"), m.groupdict()
    call = fixes[0].replace("${input}", m["input"]).replace("${file}", m["file"]).replace(
        "${function}", m["function"]).replace("${via}", m["via"])
    assert call.startswith('fix_input_feed {"input": "x", "file": "app.py", "function": "stale_unpack", "via": '
                           '"net:unpack", "instead": true}'), call
    res, out = fix_input_feed({"input": "x", "file": "app.py", "function": "stale_unpack", "via": "net:unpack",
                               "instead": True})
    assert res["ok"] and res["via"] == "net:unpack" and res["function"] == "stale_unpack", out
    passes_after_the_fix()


APP_PACKETS = '''
from dataclasses import dataclass

import numpy as np

import net


@dataclass
class Packet:
    sent: np.ndarray
    offset: np.ndarray


class Reader:
    def prepare(self, packet):
        # The device image's front end, from before the units reported their offset.
        return (packet.sent / 16.0).astype(np.float32)


def labelled(limit=None):
    x, y = net.raw(96, 3)
    o = net.offsets(96, 3)
    sent = x.numpy() + o[:, None]
    reader = Reader()
    return [(reader.prepare(Packet(sent[i:i + 8], o[i:i + 8])),) for i in range(0, 96, 8)], y.numpy()[:limit]
'''


@check
def an_app_function_given_a_record_that_diverged_has_the_step_take_the_records_fields():
    regex, fixes = signature("app.diverged_step")
    res, out = compare_with(APP_PACKETS, "net:held_out_offset")
    assert res["app_path_ok"] == 0 and "app_skipped_step" not in res and "app_affine_input" not in res, out
    m = regex.search(out)
    assert m, out
    assert (m["function"], m["taken"], m["step"], m["via"]) == ("Reader.prepare", "packet.sent, packet.offset",
                                                                "calibrated", "net:calibrated"), m.groupdict()
    assert "makes of packet.sent, packet.offset)" in fixes[1].replace("${taken|its argument}", m["taken"])
    res, out = fix_input_feed({"input": "x", "file": m["file"], "function": m["function"], "via": m["via"],
                               "instead": True})
    assert res["ok"] and res["function"] == "Reader.prepare", out
    passes_after_the_fix()


STRIDED = "np.asfortranarray((readings / 16.0).astype(np.float32))"


@check
def a_non_contiguous_feed_is_named_where_it_is_built_on_a_runtime_that_reads_memory_order():
    project(STRIDED)
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["ok"], out
    if TARGET_NAME == "onnxruntime-cpu":
        # onnxruntime copies a strided input in order: the app's path runs, and scores as eager.
        assert res["app_path_ok"] == 1 and res["app_top1_agreement"] == 1.0 and "aipc-warning" not in out, out
        project()
        return
    # ExecuTorch reads the buffer in memory order: the view is named where the app builds it (the
    # run stage's signature reads the line), not left to the runtime's own error.
    assert res["app_path_ok"] == 0 and res["app_inputs_contiguous"] == 0, out
    assert "app_acc_target" not in res and "contiguous or channels-last" not in out, out
    with open(TARGET / "signatures.toml", "rb") as f:
        entry = next(s for s in tomllib.load(f)["signature"] if s["id"] == "run.input_not_contiguous")
    m = re.search(entry["regex"], out)
    assert m, out
    assert (m["file"], m["function"], m["input"], m["got"]) == ("app.py", "Reader.prepare", "x", "(8, 12)"), m.groupdict()
    assert out.count("aipc-warning: input not contiguous") == 1, "one line per input, not per tuple"
    res, out = fix_input_feed({"file": m["file"], "function": m["function"], "input": m["input"], "contiguous": True})
    assert res["ok"], out
    passes_after_the_fix()


@check
def a_difference_that_is_not_affine_gets_no_map_and_the_fix_refuses_writing_nothing():
    project(WRONG_ORDER)
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["app_path_ok"] == 0 and "app path affine" not in out and "app_affine_input" not in res, out
    before = (_DIR / "app.py").read_text()
    res, out = fix_input_feed({"input": "x", "value_range": True})
    assert not res["ok"] and "not an affine map of eval_data's inputs" in res["error"], out
    assert (_DIR / "app.py").read_text() == before
    project(app_eval_data=None)
    res, out = fix_input_feed({"input": "x", "value_range": True})
    assert not res["ok"] and "names no app_eval_data" in res["error"], out
    project()


@check
def without_app_eval_data_nothing_is_measured_and_the_check_says_so():
    project(WRONG_SCALE, app_eval_data=None)
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["ok"] and res["app_path_checked"] == 0 and res["app_path_ok"] == 1, out
    assert "app path: not checked (aipc.toml names no app_eval_data)" in out, out


@check
def without_labels_accuracy_is_measured_against_the_eager_models_classes():
    project(app_eval_data=None)
    (_DIR / "net.py").write_text(NET + "\n\ndef unlabelled():\n    return held_out()[0], None\n")
    (_DIR / "aipc.toml").write_text((_DIR / "aipc.toml").read_text().replace("net:held_out", "net:unlabelled"))
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert res["ok"] and res["task_labels"] == "eager" and res["task_acc_ref"] == 1.0, out
    assert res["acc_drop_points"] == round(100 * (1 - res["top1_agreement"]), 6), out
    assert "against the eager model's classes (eval_data has no labels)" in out, out
    (_DIR / "net.py").write_text(NET)
    project()


@check
def labels_that_do_not_match_the_samples_are_a_clear_error():
    project(app_eval_data="app:labelled_short")
    (_DIR / "app.py").write_text(APP.format(prepare=RIGHT) + "\n\ndef labelled_short():\n    return labelled(90)\n")
    res, out = tool("compare.py", {"artifact": f"build/model.{EXT}"})
    assert not res["ok"], out
    assert "aipc.toml:10: app:labelled_short: the input tuples hold 96 samples" in out and "90 labels" in out, out
    project()


if __name__ == "__main__":
    main()

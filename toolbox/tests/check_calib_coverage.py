#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""Checks of the calibration-coverage line (aipc_toolbox/calib.py coverage): a calibration set
whose samples are all on the right scale but drawn from a narrow part of the data (one regime,
one class, one stretch of a recording) is named, with the calibration function, so the build
stage fails with evidence that points at where the samples are picked; a set drawn across the
data, a small one included, is not.

Run with either target's venv: `python check_calib_coverage.py`.
"""
import re
import sys
import tempfile
import textwrap
import tomllib
from pathlib import Path

from checklib import ROOT, check, main, write_data_project

sys.path.insert(0, str(ROOT / "toolbox" / "lib"))

import numpy as np  # noqa: E402

from aipc_toolbox import calib  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402

# Four operating regimes of one signal, each its own amplitude (the reference covers them all).
AMPLITUDES = (0.2, 0.9, 2.5, 4.0)


def _regime(rng, amplitude, n, width=64):
    """n samples (one (1, 3, width) tensor each) of noise at `amplitude`."""
    return [(rng.normal(0.0, amplitude / 3.0, (1, 3, width)).astype(np.float32),) for _ in range(n)]


def _reference(rng, per_regime=100):
    return [s for a in AMPLITUDES for s in _regime(rng, a, per_regime)]


def _signature(target):
    with open(ROOT / "toolbox" / "targets" / target / "signatures.toml", "rb") as f:
        table = tomllib.load(f)
    return re.compile(next(s["regex"] for s in table["signature"] if s["id"] == "quant.calibration_coverage"))


@check
def a_set_from_one_regime_is_named_with_its_function():
    rng = np.random.default_rng(0)
    reference = _reference(rng)
    samples = _regime(rng, AMPLITUDES[0], 64)
    # every sample lies inside the reference's spread: neither outliers nor a set on another scale
    audit = calib.audit(samples, reference, quiet=True)
    assert not audit.outside and not audit.set_off, (audit.outside, audit.set_off)
    line = calib.coverage(samples, reference, "eval inputs", "calibration_data (plant/windows.py first_windows())")
    assert line and line.startswith("300 of 400 eval inputs lie more than one bit above every calibration sample"), line
    for target in ("onnxruntime-cpu", "executorch-xnnpack"):
        m = _signature(target).search("aipc-warning: calibration coverage: " + line)
        assert m, (target, line)
        assert m["file"] == "plant/windows.py" and m["function"] == "first_windows", m.groupdict()
        assert m["beyond"] == "300" and m["reference_samples"] == "400" and m["reference"] == "eval inputs", m.groupdict()


@check
def a_set_drawn_across_the_data_is_not_named():
    rng = np.random.default_rng(1)
    reference = _reference(rng)
    samples = [s for a in AMPLITUDES for s in _regime(rng, a, 16)]
    assert calib.coverage(samples, reference) is None


@check
def a_small_set_of_heavy_tailed_samples_is_not_named():
    """Eight samples drawn at random from a reference whose amplitudes are log-normal (a long
    tail): the largest of them sits high in the reference, so most of it is covered."""
    rng = np.random.default_rng(2)
    amplitudes = rng.lognormal(0.0, 1.0, 400)
    reference = [s for a in amplitudes for s in _regime(rng, a, 1)]
    for seed in range(20):
        pick = np.random.default_rng(100 + seed).choice(len(reference), 8, replace=False)
        line = calib.coverage([reference[i] for i in pick], reference)
        assert line is None, (seed, line)


@check
def a_reference_of_fewer_than_four_samples_judges_nothing():
    rng = np.random.default_rng(3)
    assert calib.coverage(_regime(rng, 0.1, 8), _regime(rng, 4.0, 3)) is None


@check
def the_artifact_records_it_and_inspect_fails_the_build_with_it():
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fields = calib.calibration_fields("coverage: 3 of 4 eval inputs lie more than one bit above ...")
    assert fields == {"calibration_ok": 0}, fields
    assert buf.getvalue().startswith("aipc-warning: calibration coverage: 3 of 4 eval inputs"), buf.getvalue()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fields = calib.calibration_fields("64 of 64 calibration samples lie outside ...")
    assert fields == {"calibration_ok": 0} and "calibration scale: 64 of 64" in buf.getvalue(), buf.getvalue()


DATA = '''
import numpy as np
import torch

AMPLITUDES = (0.2, 0.9, 2.5, 4.0)


def _log():
    rng = np.random.default_rng(7)
    return np.concatenate([rng.normal(0.0, a / 3.0, (100, 6)) for a in AMPLITUDES]).astype(np.float32)


def evaluation():
    return (torch.from_numpy(_log()),), None


def example():
    return (evaluation()[0][0][:2],)


def calibration():
    x = torch.from_numpy(_log())
    return [(x[i:i + 1],) for i in range(64)]


def build():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)).eval()
'''


@check
def quantize_names_the_calibration_function_of_a_project():
    d = tempfile.mkdtemp(prefix="calib-coverage-")
    Path(d, "ride_data.py").write_text(textwrap.dedent(DATA))
    write_data_project(d, "ride_data")
    p = Project(d)
    audit, kept = calib.checked_samples(p, p.calibration_data(), False)
    assert len(kept) == 64 and audit.scale_line, audit.scale_line
    m = re.match(r"coverage: (\d+) of 400 eval inputs lie more than one bit above", audit.scale_line)
    assert m and int(m[1]) > 200, audit.scale_line
    assert "calibration_data (ride_data.py calibration())" in audit.scale_line, audit.scale_line


@check
def drop_outliers_that_would_drop_nothing_is_refused_with_the_reason():
    rng = np.random.default_rng(3)
    reference = [rng.normal(0.0, 1.0, (1, 6)).astype(np.float32) for _ in range(200)]
    clean = [rng.normal(0.0, 1.0, (1, 6)).astype(np.float32) for _ in range(32)]
    with_outlier = clean[:-1] + [clean[-1] * 400.0]
    off = [x * 400.0 for x in clean]

    def refusal(samples, dynamic=False):
        result = calib.audit(samples, reference, quiet=True)
        try:
            calib.refuse_needless_drop(result, True, dynamic)
        except calib.ToolError as e:
            return str(e)
        return None

    assert refusal(with_outlier) is None
    assert "none of the 32 calibration samples is an outlier" in (refusal(clean) or ""), refusal(clean)
    assert "calibration function must prepare" in (refusal(off) or ""), refusal(off)
    assert "uses no calibration data" in (refusal(with_outlier, dynamic=True) or "")
    # Not asked: nothing to refuse.
    calib.refuse_needless_drop(calib.audit(clean, reference, quiet=True), False, False)


if __name__ == "__main__":
    main()

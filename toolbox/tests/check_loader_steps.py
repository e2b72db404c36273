#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""A step the eval path applies to what a data loader returns, skipped by the calibration path
(aipc_toolbox/loader_steps.py), over several code shapes of the data module.

Each project stores its recordings as records with a unit; the eval path converts each record to
the model's unit with a step that takes the record (so no array step exists that calib_prep could
apply to calibration samples), and the calibration path reads the records' raw values. The
checks show that the step and the place the calibration path calls the loader are named (a
method, a comprehension inside a function), that the quantize line matches the targets'
`quant.calibration_loader_step` signature with those facts, for a fraction of the set and for the
whole set, and that nothing is named when the calibration path converts too, or when what the
eval path does with the record returns no array (labels split off).
"""
import itertools
import re
import tempfile
import textwrap
import tomllib
from pathlib import Path

from checklib import EXAMPLE_AND_MLP8, ROOT, check, main, write_data_project

from aipc_toolbox import calib, loader_steps  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402

_ids = itertools.count()

# Recordings as records with the unit their device wrote; the model takes volts.
STORE = '''
from dataclasses import dataclass

import numpy as np
import torch

TO_VOLT = {"V": 1.0, "mV": 1e-3}


@dataclass
class Trace:
    name: str
    unit: str
    values: np.ndarray


def _rows(seed, n, unit):
    g = np.random.default_rng(seed)
    v = (g.normal(size=(n, 8)) * 0.5).astype(np.float32)
    return Trace(f"trace{seed}", unit, v * (1000.0 if unit == "mV" else 1.0))


SESSIONS = {"eval": [(1, "V"), (2, "V"), (3, "mV")], "calib": CALIB}


def read(key):
    seed, unit = key
    return _rows(seed, 32, unit)


def in_volts(trace):
    return (trace.values * TO_VOLT[trace.unit]).astype(np.float32)


def evaluation():
    x = np.concatenate([in_volts(read(k)) for k in SESSIONS["eval"]])
    return (torch.from_numpy(x),), None


''' + EXAMPLE_AND_MLP8

# Three shapes of the calibration path.
AS_METHOD = '''
class CalibrationSource:
    def _raw(self, key):
        return read(key).values

    def batches(self):
        return [(torch.from_numpy(self._raw(k)[i:i + 8]),) for k in SESSIONS["calib"] for i in range(0, 32, 8)]


def calibration():
    return CalibrationSource().batches()
'''
IN_COMPREHENSION = '''
def calibration():
    rows = [read(k).values for k in SESSIONS["calib"]]
    return [(torch.from_numpy(r[i:i + 8]),) for r in rows for i in range(0, 32, 8)]
'''
CONVERTED = '''
def calibration():
    rows = [in_volts(read(k)) for k in SESSIONS["calib"]]
    return [(torch.from_numpy(r[i:i + 8]),) for r in rows for i in range(0, 32, 8)]
'''
# One of four calibration sessions in mV (a fraction), or all of them (the whole set).
FRACTION = '[(4, "V"), (5, "V"), (6, "V"), (7, "mV")]'
WHOLE = '[(4, "mV"), (5, "mV"), (6, "mV"), (7, "mV")]'


def _project(calibration_src, calib_sessions, store=STORE):
    module = f"trace_data_{next(_ids)}"
    d = tempfile.mkdtemp(prefix="loader-steps-")
    Path(d, module + ".py").write_text(textwrap.dedent(store).replace("CALIB", calib_sessions)
                                       + textwrap.dedent(calibration_src))
    write_data_project(d, module)
    return Project(d), module


def _signature(target):
    with open(ROOT / "toolbox" / "targets" / target / "signatures.toml", "rb") as f:
        table = tomllib.load(f)
    return re.compile(next(s["regex"] for s in table["signature"] if s["id"] == "quant.calibration_loader_step"))


def _line(p):
    audit, _ = calib.checked_samples(p, p.calibration_data(), False)
    return audit


@check
def the_skipped_step_and_the_method_that_reads_the_raw_values_are_named():
    p, module = _project(AS_METHOD, FRACTION)
    found = loader_steps.missing(p, "eval inputs")
    assert len(found) == 1, found
    m = found[0]
    assert m.loader.name == f"{module}:read" and m.step.name == f"{module}:in_volts", m
    assert m.reference_caller.name == f"{module}:evaluation", m
    assert m.calibration_caller.name == f"{module}:CalibrationSource._raw", m
    source = Path(p.root, f"{module}.py").read_text().splitlines()
    assert "read(key)" in source[m.calibration_line - 1], m.calibration_line
    assert "read(k)" in source[m.reference_line - 1], m.reference_line


@check
def a_fraction_on_another_unit_gets_the_line_the_tables_match_on_both_targets():
    p, module = _project(AS_METHOD, FRACTION)
    audit = _line(p)
    assert audit.scale_line and not audit.set_off, audit.scale_line
    for target in ("onnxruntime-cpu", "executorch-xnnpack"):
        m = _signature(target).search("aipc-warning: calibration scale: " + audit.scale_line)
        assert m, (target, audit.scale_line)
        assert m["file"] == f"{module}.py" and m["function"] == "CalibrationSource._raw", m.groupdict()
        assert m["step"] == f"{module}:in_volts" and m["eval_function"] == "evaluation", m.groupdict()


@check
def a_whole_set_read_raw_in_a_comprehension_names_the_enclosing_function():
    p, module = _project(IN_COMPREHENSION, WHOLE)
    audit = _line(p)
    assert audit.set_off and "never calls" in audit.scale_line, audit.scale_line
    m = _signature("onnxruntime-cpu").search("aipc-warning: calibration scale: " + audit.scale_line)
    assert m and m["function"] == "calibration", (audit.scale_line, m and m.groupdict())


@check
def nothing_is_named_when_the_calibration_path_converts_too():
    p, _ = _project(CONVERTED, FRACTION)
    assert loader_steps.missing(p, "eval inputs") == []
    audit = _line(p)
    assert not audit.scale_line and not audit.outside, audit.scale_line


@check
def a_function_that_returns_no_array_from_the_record_is_not_a_step():
    # The eval path splits each record into (values, name): a tuple, not the model's data.
    store = STORE.replace(
        "def evaluation():\n    x = np.concatenate([in_volts(read(k)) for k in SESSIONS[\"eval\"]])",
        "def split(trace):\n    return trace.values, trace.name\n\n\n"
        "def evaluation():\n    x = np.concatenate([split(read(k))[0] for k in SESSIONS[\"eval\"][:2]])")
    assert store != STORE
    p, _ = _project(AS_METHOD, WHOLE, store)
    assert loader_steps.missing(p, "eval inputs") == []


if __name__ == "__main__":
    main()

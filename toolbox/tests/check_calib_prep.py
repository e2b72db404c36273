#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu executorch-xnnpack
"""Calibration sets on another scale: finding the project's own preparation step (calib_prep.py)
and applying it (aipc.toml calibration_prep), over several code shapes of the data module.

Each project here feeds its model standardised (or unit-scaled) inputs on the eval path and
returns raw ones from calibration_data. The checks show that the audit really sees the set as
off, that the step the eval path applies is found by following that path (whatever the function
is called), that a step the calibration path already applies, one that changes the shape, or an
inline computation is not offered, that a step which does not bring the set into range is not
offered, and that Project.calibration_data() applies the setting (and refuses one that does not
fit, naming its aipc.toml line). Last, quantize.py of both targets prints the line and builds
an INT8 model that matches eager once the setting is made.
"""
import itertools
import sys
import tempfile
import textwrap
from pathlib import Path

from checklib import ROOT, check, main, raises, run_script, write_data_project

from aipc_toolbox import calib, calib_prep  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402

_ids = itertools.count()

# Raw measurements on very different scales per column (like lab units); the model takes z-scores.
RAW = '''
import numpy as np
import torch

_g = np.random.default_rng(3)
RAW = (_g.normal(size=(200, 6)) * np.array([300.0, 2.0, 40.0, 0.5, 900.0, 7.0])
       + np.array([1500.0, 1.0, 80.0, 0.2, 4000.0, 30.0])).astype(np.float32)
MEAN, STD = RAW[:150].mean(0), RAW[:150].std(0)
'''


def _project(data_src, extra_toml=""):
    """A project folder with a small MLP and the data module `data_src` (the module gets a fresh
    name, so several projects in one process do not share an import); returns (Project, module)."""
    module = f"prep_data_{next(_ids)}"
    d = tempfile.mkdtemp(prefix="calib-prep-")
    Path(d, module + ".py").write_text(textwrap.dedent(RAW) + textwrap.dedent(data_src) + textwrap.dedent('''

        def build():
            torch.manual_seed(0)
            return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)).eval()
    '''))
    write_data_project(d, module, extra_toml.replace("MODULE", module))
    return Project(d), module


def _data(steps, eval_inputs):
    """A data module: the functions `steps`, eval_data returning the tensor `eval_inputs` builds,
    the example rows taken from it, and calibration returning 64 raw rows, one per sample."""
    return textwrap.dedent(steps) + textwrap.dedent(f'''

        def evaluation():
            return ({eval_inputs},), None


        def example():
            return (evaluation()[0][0][:2],)


        def calibration():
            return [(torch.from_numpy(RAW[i:i + 1].copy()),) for i in range(64)]
        ''')


# The step is a module-level function the eval path calls; calibration returns raw rows.
STANDARDISE_STEP = '''
def standardise(rows):
    return (rows - MEAN) / STD
'''
STANDARDISE = _data(STANDARDISE_STEP, "torch.from_numpy(standardise(RAW[150:]))")


def _candidates(project):
    samples = project.calibration_data()
    reference, name = calib.reference_samples(project)
    assert calib.audit(samples, reference, name, quiet=True).set_off, "the set must be off for the check to mean anything"
    return [t.entry for t, _, _ in calib_prep.candidates(project, samples, name)]


@check
def the_step_the_eval_path_applies_is_found_and_brings_the_set_into_range():
    p, module = _project(STANDARDISE)
    assert _candidates(p) == [f"{module}:standardise"]


@check
def the_step_is_found_under_any_name_and_inside_a_helper_chain():
    # Another name, called through a loader class on the eval path, on torch tensors.
    p, module = _project(_data('''
        def to_model_units(t):
            return (t - torch.from_numpy(MEAN)) / torch.from_numpy(STD)


        class Loader:
            def batch(self):
                return to_model_units(torch.from_numpy(RAW[150:]))
        ''', "Loader().batch()"))
    assert _candidates(p) == [f"{module}:to_model_units"]


@check
def the_step_is_found_when_the_eval_set_is_memoised_and_already_loaded():
    # The eval rows are built once behind functools.lru_cache and the audit has loaded them
    # already: the trace must run the path again, not read the cache (a probe project hid its
    # normalisation that way).
    p, module = _project(_data('''
        import functools


        def scale_rows(rows):
            return (rows - MEAN) / STD


        @functools.lru_cache(maxsize=1)
        def _rows():
            return torch.from_numpy(scale_rows(RAW[150:]))
        ''', "_rows()"))
    assert _candidates(p) == [f"{module}:scale_rows"]


@check
def a_static_method_or_a_method_of_an_object_the_module_holds_is_named_by_its_path():
    # A static method of a top-level class, called through the class.
    p, module = _project(_data('''
        class Prep:
            @staticmethod
            def standardise(rows):
                return (rows - MEAN) / STD
        ''', "torch.from_numpy(Prep.standardise(RAW[150:]))"))
    assert _candidates(p) == [f"{module}:Prep.standardise"]
    # A fitted scaler object held at top level, its method and its __call__.
    scaler = '''
        class Scaler:
            def __init__(self, rows):
                self.mean, self.std = rows.mean(0), rows.std(0)

            def transform(self, rows):
                return (rows - self.mean) / self.std

            def __call__(self, rows):
                return self.transform(rows)


        SCALER = Scaler(RAW[:150])
        '''
    p, module = _project(_data(scaler, "torch.from_numpy(SCALER.transform(RAW[150:]))"))
    assert _candidates(p) == [f"{module}:SCALER.transform"]
    p, module = _project(_data(scaler, "torch.from_numpy(SCALER(RAW[150:]))"))
    # __call__ and the transform it calls both bring the set into range: both are named (in the
    # order they return, the inner one first).
    assert _candidates(p) == [f"{module}:SCALER.transform", f"{module}:SCALER"], _candidates(p)
    # The path resolves as aipc.toml's value, and a missing attribute names where it looked.
    p, module = _project(_data(scaler, "torch.from_numpy(SCALER.transform(RAW[150:]))"),
                         'calibration_prep = "MODULE:SCALER.transform"\n')
    reference, name = calib.reference_samples(p)
    assert not calib.audit(p.calibration_data(), reference, name, quiet=True).set_off
    bad, module = _project(_data(scaler, "torch.from_numpy(SCALER.transform(RAW[150:]))"),
                           'calibration_prep = "MODULE:SCALER.transfrom"\n')
    raises(bad.calibration_data, f"{module}.SCALER has no function 'transfrom' (did you mean 'transform'?)")
    # An object made inside the eval path (no module holds it): nothing to name.
    p, _ = _project(_data(scaler, "torch.from_numpy(Scaler(RAW[:150]).transform(RAW[150:]))"))
    assert _candidates(p) == []


# Readings logged in kilo-units where the model takes units; the eval path converts them.
KILO_STEP = '''
Z = ((RAW - MEAN) / STD).astype(np.float32)


def to_model_units(rows):
    return rows * 1000.0
'''


# 40 rows logged in kilo-units, 24 stored in model units already.
MIXED_KILO = _data(KILO_STEP, "torch.from_numpy(to_model_units(Z[150:] / 1000.0))").replace(
    "    return [(torch.from_numpy(RAW[i:i + 1].copy()),) for i in range(64)]",
    "    return [(torch.from_numpy(Z[i:i + 1] / 1000.0 if i < 40 else Z[i:i + 1].copy()),) for i in range(64)]")


@check
def a_set_that_mixes_prepared_and_raw_inputs_is_named_as_such():
    # 40 rows logged in kilo-units and 24 stored in model units already: the step brings the 40
    # into range and pushes the 24 out; the line says so.
    p, module = _project(MIXED_KILO)
    assert "if i < 40" in Path(p.root, module + ".py").read_text()
    samples = p.calibration_data()
    reference, name = calib.reference_samples(p)
    found = calib_prep.candidates(p, samples, name)
    assert [t.entry for t, _, _ in found] == [f"{module}:to_model_units"], found
    text = calib_prep.line(found, name)
    assert "(40 -> 24 outside), but moves 24 that were in range out of it (prepared already" in text, text
    # A set that is raw throughout gets no such clause.
    p, module = _project(STANDARDISE)
    samples = p.calibration_data()
    assert "but moves" not in calib_prep.line(calib_prep.candidates(p, samples, name), name)


@check
def a_mixed_set_is_also_offered_the_step_on_the_samples_outside_only():
    p, module = _project(MIXED_KILO)
    samples = p.calibration_data()
    reference, name = calib.reference_samples(p)
    scoped = calib_prep.scoped_candidates(p, samples, name)
    assert [(t.entry, len(outside)) for t, outside in scoped] == [(f"{module}:to_model_units", 40)], scoped
    text = calib_prep.line(calib_prep.candidates(p, samples, name), name, scoped)
    assert (f"applied only to the 40 samples outside, {module}:to_model_units brings them into range and moves none "
            f"(40 -> 0 outside): aipc.toml [project] calibration_prep_outside = \"{module}:to_model_units\"") in text, text
    # The setting prepares those 40 and leaves the 24 prepared ones as they were.
    q, _ = _project(MIXED_KILO, 'calibration_prep_outside = "MODULE:to_model_units"\n')
    prepared = q.calibration_data()
    reference, name = calib.reference_samples(q)
    assert not calib.audit(prepared, reference, name, quiet=True).outside
    assert all((prepared[i][0] == samples[i][0]).all() for i in range(40, 64))
    assert all(not (prepared[i][0] == samples[i][0]).all() for i in range(40))
    # Both settings at once: refused, naming the line.
    both, _ = _project(MIXED_KILO, 'calibration_prep = "MODULE:to_model_units"\ncalibration_prep_outside = "MODULE:to_model_units"\n')
    raises(both.calibration_data, "aipc.toml:13: calibration_prep and calibration_prep_outside are both set")


# 20 of 64 rows stored raw (another unit), the rest prepared: no longer "most of the set".
PARTIAL = STANDARDISE.replace(
    "    return [(torch.from_numpy(RAW[i:i + 1].copy()),) for i in range(64)]",
    "    return [(torch.from_numpy(RAW[i:i + 1].copy() if i % 3 == 0 and i < 60 else standardise(RAW[i:i + 1])),)\n"
    "            for i in range(64)]")


@check
def an_unprepared_fraction_is_named_with_the_step_that_prepares_exactly_those():
    import contextlib
    import io

    p, module = _project(PARTIAL)
    samples = p.calibration_data()
    reference, name = calib.reference_samples(p)
    first = calib.audit(samples, reference, name, quiet=True)
    assert not first.set_off and len(first.outside) == 20, first.outside
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result, kept = calib.checked_samples(p, samples, drop_outliers=False)
    out = buf.getvalue()
    assert (f"aipc-warning: calibration scale: 20 of 64 calibration samples lie outside the eval inputs' range (an "
            f"unprepared fraction of the set) and calibration_data ({module}.py calibration()) does not prepare them") in out, out
    assert (f"{module}:standardise ({module}.py:") in out and \
        f'(20 -> 0 outside, on max|x| and typical |x|): aipc.toml [project] calibration_prep_outside = "{module}:standardise"' in out, out
    assert result.scale_line and len(kept) == 64
    # Dropping them instead is the project's choice: no set-level line then.
    with contextlib.redirect_stdout(io.StringIO()):
        result, kept = calib.checked_samples(p, samples, drop_outliers=True)
    assert not result.scale_line
    # With the setting, the set is in range and nothing is said.
    q, _ = _project(PARTIAL, 'calibration_prep_outside = "MODULE:standardise"\n')
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result, _ = calib.checked_samples(q, q.calibration_data(), drop_outliers=False)
    assert not result.scale_line and "calibration" not in buf.getvalue(), buf.getvalue()


@check
def a_sample_with_a_few_extreme_values_is_an_outlier_not_an_unprepared_input():
    # Readings in 0..255 the eval path scales to 0..1; one prepared calibration row holds a stuck
    # value of 150. Scaling that row brings its max into range but leaves its typical values ~255x
    # too small: the step is not offered for it, and the outlier line stays.
    import contextlib
    import io

    p, module = _project(_data('''
        COUNTS = np.abs(RAW[:, :]) % 256


        def to_unit(rows):
            return rows / 255.0
        ''', "torch.from_numpy(to_unit(COUNTS[150:]))").replace(
        "    return [(torch.from_numpy(RAW[i:i + 1].copy()),) for i in range(64)]",
        "    rows = [to_unit(COUNTS[i:i + 1]) for i in range(64)]\n"
        "    rows[5] = rows[5].copy()\n"
        "    rows[5][0, 2] = 150.0\n"
        "    return [(torch.from_numpy(r.astype(np.float32)),) for r in rows]"))
    samples = p.calibration_data()
    reference, name = calib.reference_samples(p)
    assert calib.audit(samples, reference, name, quiet=True).outliers == [5]
    assert calib_prep.scoped_candidates(p, samples, name) == []
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result, _ = calib.checked_samples(p, samples, drop_outliers=False)
    assert "calibration outlier: sample 5" in buf.getvalue() and not result.scale_line, buf.getvalue()


@check
def a_step_that_does_not_bring_the_set_into_range_is_not_offered():
    # The eval path also clips its z-scores (a shape-keeping function), which alone leaves the
    # raw calibration rows far out of range: only the standardisation is offered.
    p, module = _project(_data(STANDARDISE_STEP + '''

def clip(rows):
    return np.clip(rows, -1e6, 1e6)
''', "torch.from_numpy(clip(standardise(RAW[150:])))"))
    assert _candidates(p) == [f"{module}:standardise"]


@check
def inline_steps_shape_changes_and_steps_calibration_already_takes_are_not_offered():
    # Inline arithmetic: nothing to name.
    p, _ = _project(_data(STANDARDISE_STEP, "torch.from_numpy((RAW[150:] - MEAN) / STD)"))
    assert _candidates(p) == []
    # The step also selects columns (the shape changes): applying it to a sample is not the same step.
    p, _ = _project(STANDARDISE.replace("return (rows - MEAN) / STD",
                                        "return ((rows - MEAN) / STD)[:, :5]"))
    assert _candidates(p) == []
    # The calibration path calls the step already (on rows it then throws away).
    p, _ = _project(STANDARDISE.replace("    return [(torch.from_numpy(RAW[i:i + 1].copy()),) for i in range(64)]",
                                        "    standardise(RAW[:1])\n"
                                        "    return [(torch.from_numpy(RAW[i:i + 1].copy()),) for i in range(64)]"))
    assert _candidates(p) == []


@check
def the_setting_is_applied_to_every_calibration_input_and_a_misfit_names_its_line():
    p, module = _project(STANDARDISE, 'calibration_prep = "MODULE:standardise"\n')
    samples = p.calibration_data()
    reference, name = calib.reference_samples(p)
    assert not calib.audit(samples, reference, name, quiet=True).set_off
    assert samples[0][0].dtype.is_floating_point and tuple(samples[0][0].shape) == (1, 6)
    bad, _ = _project(STANDARDISE + '''

def summary(rows):
    return rows.mean(0)
''', 'calibration_prep = "MODULE:summary"\n')
    raises(bad.calibration_data, "aipc.toml:12: calibration_prep")


@check
def quantize_names_the_step_and_builds_an_accurate_int8_model_once_it_is_set():
    for target, artifact in (("onnxruntime-cpu", "build/model_int8.onnx"),
                             ("executorch-xnnpack", "build/model_int8.pte")):
        venv = Path(sys.prefix).name == "venv" and Path(sys.prefix).parent.name
        if venv and venv != target:
            continue  # each venv runs its own target's scripts
        folder = ROOT / "toolbox" / "targets" / target
        p, module = _project(STANDARDISE)
        text = Path(p.root, "aipc.toml").read_text().replace('"onnxruntime-cpu"', f'"{target}"')
        Path(p.root, "aipc.toml").write_text(text)
        res, out = run_script(folder, p.root, "export.py", {})
        assert res["ok"], out
        res, out = run_script(folder, p.root, "quantize.py", {})
        assert f'calibration_prep = "{module}:standardise" applies it' in out, out
        res, out = run_script(folder, p.root, "compare.py", {"artifact": artifact})
        before = res.get("cosine", 0.0)
        Path(p.root, "aipc.toml").write_text(text + f'calibration_prep = "{module}:standardise"\n')
        res, out = run_script(folder, p.root, "quantize.py", {})
        assert res["ok"] and "calibration scale" not in out, out
        res, out = run_script(folder, p.root, "compare.py", {"artifact": artifact})
        assert res["ok"] and res["cosine"] >= 0.99 and res["cosine"] > before, (before, out)


if __name__ == "__main__":
    main()

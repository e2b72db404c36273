#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""aipc_toolbox/skipped_step.py and fix_input_feed `via`: the app feeds the raw form of its data
and a step of eval_data's own path turns it into the model's values. The step is found by
applying every candidate of that path to what the app feeds, in several code shapes:

- a module-level function of a package; a converter object a module holds (`__call__`); a
  method of an object the hook makes with no arguments (`Class().method`); a method of an object
  made with arguments that a module holds; a @staticmethod; a step given one sample at a time
  (no batch dim); a step that takes a tensor;
- each is written where the app builds the input (the function the trace follows), and the app's
  feed then holds eval_data's values (measured in a fresh interpreter);
- a step given other parameters (module constants, a settings object's attribute, a literal):
  the decorator gives them as eval_data's path does (`via_kwargs`, `via_refs`);
- not offered: a step no code outside eval_data's call can reach (a nested function), or one
  given an argument nothing outside that call holds (a statistic computed there); a step the
  app already applies. A step that is affine is found too (the app path line gives affine.py's
  measured map first, and looks for a step only when there is none);
- refused, the file left as it was: a reference that does not resolve, and one that resolves
  but does not give eval_data's values;
- the app's own copy of the step that diverged from eval_data's (a vendored front end without
  its last transform): the step is found by giving it that function's arguments in its place,
  and fix_input_feed `via` + `instead` writes that there; refused when it does not fit; a copy
  given a record (a dataclass of the reading's arrays) has the step take the record's fields by
  the names of its parameters (`via_from`), or, named otherwise, by what they hold (the same
  sample's values eval_data's path gave the step);
- a file decorated by an older fix_input_feed (its helper without `via`) gets the new helper.
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from checklib import ROOT, check, main

sys.path.insert(0, str(ROOT / "toolbox" / "lib"))
sys.path.insert(0, str(ROOT / "toolbox" / "fixes"))

FIX = ROOT / "toolbox" / "fixes" / "input_feed.py"
TOML = ('[project]\nmodel = "m:f"\nexample_inputs = "hooks:example"\neval_data = "hooks:held_out"\n'
        'run_inputs = "app:run_inputs"\napp_eval_data = "app:labelled"\ninput_names = ["x"]\n')

# Raw readings (counts of a 12-bit converter, per-sample baselines), the same in every project.
RAW = """
import numpy as np


def raw(n=48):
    rng = np.random.default_rng(7)
    base = rng.uniform(200, 900, size=(n, 4, 1))
    rise = rng.uniform(1.0, 3.0, size=(n, 4, 16)).cumsum(axis=-1)
    return np.clip(base + rise * rng.uniform(1, 40, size=(n, 1, 1)), 1, 4094).astype(np.uint16), rng.integers(0, 3, n)
"""

APP = """
import numpy as np
import torch

from raw import raw


class Feeder:
    def frame(self, counts):
        return torch.from_numpy(np.asarray(counts, dtype=np.float32)[None])


def labelled():
    counts, labels = raw()
    feeder = Feeder()
    return [(feeder.frame(c),) for c in counts], torch.from_numpy(labels)


def run_inputs():
    return labelled()[0][:4]
"""

# Each shape: the project's own step and the eval_data hook that applies it.
SHAPES = {
    "module function": ({
        "sensing/__init__.py": "",
        "sensing/prep.py": """
            import numpy as np


            def to_response(counts):
                g = counts.astype(np.float64)
                return np.log(g / g[..., :2].mean(axis=-1, keepdims=True)).astype(np.float32)
            """,
        "hooks.py": """
            import torch

            from raw import raw
            from sensing.prep import to_response


            def held_out():
                counts, labels = raw()
                return (torch.from_numpy(to_response(counts)),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "sensing.prep:to_response"),
    "converter object": ({
        "conv.py": """
            from dataclasses import dataclass

            import numpy as np


            @dataclass
            class Settings:
                floor: float = 1.0


            class Converter:
                def __init__(self, settings=Settings()):
                    self.settings = settings

                def ratio(self, counts):
                    g = np.maximum(counts.astype(np.float64), self.settings.floor)
                    return g / np.median(g[..., :3], axis=-1, keepdims=True)

                def __call__(self, counts):
                    return np.log(self.ratio(counts)).astype(np.float32)
            """,
        "hooks.py": """
            import torch

            from conv import Converter
            from raw import raw

            CONVERT = Converter()


            def held_out():
                counts, labels = raw()
                return (torch.from_numpy(CONVERT(counts)),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "hooks:CONVERT"),
    "an object the hook makes with no arguments": ({
        "conv.py": """
            import numpy as np


            class Converter:
                def __init__(self, floor=1.0):
                    self.floor = floor

                def respond(self, counts):
                    g = np.maximum(counts.astype(np.float64), self.floor)
                    return np.log(g / np.median(g[..., :3], axis=-1, keepdims=True)).astype(np.float32)
            """,
        "hooks.py": """
            import torch

            from conv import Converter
            from raw import raw


            def held_out():
                counts, labels = raw()
                converter = Converter()
                return (torch.from_numpy(converter.respond(counts)),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "conv:Converter().respond"),
    "method of a held object made with arguments": ({
        "norm.py": """
            import numpy as np


            class Compander:
                def __init__(self, mu):
                    self.mu = mu

                def expand(self, counts):
                    x = counts.astype(np.float64) / 4095.0
                    return (np.log1p(self.mu * x) / np.log1p(self.mu)).astype(np.float32)


            LINE = Compander(mu=255.0)
            """,
        "hooks.py": """
            import torch

            from norm import LINE
            from raw import raw


            def held_out():
                counts, labels = raw()
                return (torch.from_numpy(LINE.expand(counts)),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "norm:LINE.expand"),
    "static method, one sample at a time": ({
        "codec.py": """
            import numpy as np


            class Codec:
                @staticmethod
                def decode(window):
                    assert window.ndim == 2, "one window at a time"
                    w = window.astype(np.float64)
                    return np.sqrt(w) - np.sqrt(w[:, :1])
            """,
        "hooks.py": """
            import numpy as np
            import torch

            from codec import Codec
            from raw import raw


            def held_out():
                counts, labels = raw()
                x = np.stack([Codec.decode(w) for w in counts]).astype(np.float32)
                return (torch.from_numpy(x),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "codec:Codec.decode"),
    "a step that takes a tensor": ({
        "tprep.py": """
            import torch


            def soft_level(x):
                x = x.to(torch.float32)
                return torch.tanh(x / x.amax(dim=-1, keepdim=True))
            """,
        "hooks.py": """
            import torch

            from raw import raw
            from tprep import soft_level


            def held_out():
                counts, labels = raw()
                return (soft_level(torch.from_numpy(counts.astype('int64'))),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "tprep:soft_level"),
    "a function given module constants and a literal": ({
        "levels.py": """
            import numpy as np

            BASELINE = np.array([310.0, 420.0, 515.0, 640.0])  # per channel, from the bench


            def to_level(counts, baseline, gain=1.0):
                return (np.log(counts.astype(np.float64) / baseline[:, None]) * gain).astype(np.float32)
            """,
        "hooks.py": """
            import torch

            from levels import BASELINE, to_level
            from raw import raw


            def held_out():
                counts, labels = raw()
                return (torch.from_numpy(to_level(counts, BASELINE, gain=2.5)),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "levels:to_level"),
    "a method given a settings object's attribute": ({
        "settings.py": """
            from dataclasses import dataclass, field

            import numpy as np


            @dataclass
            class Settings:
                knee: np.ndarray = field(default_factory=lambda: np.array([600.0, 700.0, 800.0, 900.0]))


            SETTINGS = Settings()
            """,
        "shaping.py": """
            import numpy as np


            class Shaper:
                def squash(self, counts, knee):
                    return np.tanh(counts.astype(np.float64) / knee[:, None]).astype(np.float32)
            """,
        "hooks.py": """
            import torch

            from raw import raw
            from settings import SETTINGS
            from shaping import Shaper


            def held_out():
                counts, labels = raw()
                return (torch.from_numpy(Shaper().squash(counts, SETTINGS.knee)),), torch.from_numpy(labels)


            def example():
                return (held_out()[0][0][:1],)
            """}, "shaping:Shaper().squash"),
}

# What the decorator is given for each shape's other parameters.
GIVEN = {"a function given module constants and a literal": "via_kwargs={'gain': 2.5}, via_refs={'baseline': 'levels:BASELINE'}",
         "a method given a settings object's attribute": "via_refs={'knee': 'settings:SETTINGS.knee'}"}

# ... and what the app path line says of them.
GIVEN_LINE = {
    "a function given module constants and a literal":
        " (given baseline=levels:BASELINE, gain=2.5, as eval_data's path calls it)",
    "a method given a settings object's attribute": " (given knee=settings:SETTINGS.knee, as eval_data's path calls it)"}


def project(files, app=APP):
    d = Path(tempfile.mkdtemp(prefix="aipc-skipped-step-"))
    for name, text in {"raw.py": RAW, "app.py": app, **files}.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(textwrap.dedent(text))
    (d / "aipc.toml").write_text(TOML)
    return d


def steps(d):
    """skipped_step.find on the project in `d`, in a fresh interpreter: [(reference, each, takes)]."""
    code = ("import json\nfrom aipc_toolbox.project import Project\nfrom aipc_toolbox import skipped_step\n"
            "p = Project()\nitems, _, _ = p.traced_app_eval_data()\n"
            "print(json.dumps([[s.reference, s.each, s.takes, s.called_at, s.given()] for s in skipped_step.find(p, items, 0)]))")
    return json.loads(_python(d, code).strip().splitlines()[-1])


def _python(d, code):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
    p = subprocess.run([sys.executable, "-c", code], cwd=d, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def fix(d, **args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
    p = subprocess.run([sys.executable, str(FIX), "--args-json", json.dumps(args)], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stdout


def matches_eval(d):
    """Whether the app's feed now holds eval_data's values (a fresh interpreter)."""
    code = ("import json\nfrom aipc_toolbox import affine\nfrom aipc_toolbox.project import Project\n"
            "fit, why, _ = affine.measure_app_feed(Project(), 0)\nprint(json.dumps(bool(fit and fit.identity())))")
    return json.loads(_python(d, code).strip().splitlines()[-1])


@check
def the_step_eval_data_applies_is_found_in_each_code_shape_and_written_where_the_app_builds_the_input():
    for k, (shape, (files, reference)) in enumerate(SHAPES.items()):
        d = project(files)
        found = steps(d)
        assert found and found[0][0] == reference, (shape, found)
        assert found[0][3].startswith("hooks.py:"), (shape, found)
        assert found[0][4] == GIVEN_LINE.get(shape, ""), (shape, found)
        if k == 0:
            assert not matches_eval(d), shape
        res, out = fix(d, input="x", via=found[0][0])
        assert res["ok"] and res["function"] == "Feeder.frame" and res["via"] == reference, (shape, out)
        text = (d / "app.py").read_text()
        assert f'via="{reference}"' in text and "return torch.from_numpy(np.asarray(counts" in text, (shape, text)
        decorator = next(line for line in text.splitlines() if "@_aipc_conform_feed(" in line)
        assert GIVEN.get(shape, "via=") in decorator and ("via_refs=" in decorator) == (shape in GIVEN), (shape, decorator)
        # fix_input_feed measured the feed again before keeping the edit; once here too, and with
        # the step applied nothing is left to find.
        if k == 0 or shape in GIVEN:
            assert matches_eval(d) and steps(d) == [], shape


@check
def one_sample_at_a_time_and_tensor_steps_keep_the_way_eval_data_calls_them():
    found = steps(project(SHAPES["static method, one sample at a time"][0]))
    assert found[0][1] is True and found[0][2] == "numpy", found
    found = steps(project(SHAPES["a step that takes a tensor"][0]))
    assert found[0][1] is False and found[0][2] == "torch", found


@check
def a_step_nothing_outside_eval_data_can_reach_is_not_offered():
    files = {"hooks.py": """
        import numpy as np
        import torch

        from raw import raw


        def held_out():
            def level(counts):
                g = counts.astype(np.float64)
                return np.log(g / g[..., :2].mean(axis=-1, keepdims=True)).astype(np.float32)

            counts, labels = raw()
            return (torch.from_numpy(level(counts)),), torch.from_numpy(labels)


        def example():
            return (held_out()[0][0][:1],)
        """}
    assert steps(project(files)) == []


@check
def a_step_given_an_argument_nothing_outside_eval_data_holds_is_not_offered():
    files = {"levels.py": SHAPES["a function given module constants and a literal"][0]["levels.py"],
             "hooks.py": """
        import torch

        from levels import to_level
        from raw import raw


        def held_out():
            counts, labels = raw()
            baseline = counts[:, :, :2].mean(axis=(0, 2))  # measured on the eval set itself, held nowhere
            return (torch.from_numpy(to_level(counts, baseline)),), torch.from_numpy(labels)


        def example():
            return (held_out()[0][0][:1],)
        """}
    assert steps(project(files)) == []


@check
def a_step_that_is_affine_is_found_too():
    files = {"scale.py": "def unit(counts):\n    return (counts / 4095.0).astype('float32')\n",
             "hooks.py": """
        import torch

        from raw import raw
        from scale import unit


        def held_out():
            counts, labels = raw()
            return (torch.from_numpy(unit(counts)),), torch.from_numpy(labels)


        def example():
            return (held_out()[0][0][:1],)
        """}
    assert steps(project(files))[0][0] == "scale:unit"


@check
def a_reference_that_does_not_resolve_or_does_not_give_eval_datas_values_is_refused_writing_nothing():
    files, _ = SHAPES["converter object"]
    d = project(files)
    before = (d / "app.py").read_text()
    for via, says in (("conv:Nothing()", "has no Nothing"), ("conv", "is not module:name"),
                      ("nomodule:f", "does not import"), ("conv:Converter().ratio", "does not give eval_data's values")):
        res, out = fix(d, input="x", via=via)
        assert not res["ok"] and says in res["error"] and "nothing was changed" in res["error"], (via, out)
        assert (d / "app.py").read_text() == before, via
    (d / "aipc.toml").write_text(TOML.replace('app_eval_data = "app:labelled"\n', ""))
    res, out = fix(d, input="x", via="conv:Converter()")
    assert not res["ok"] and "names no app_eval_data" in res["error"] and "nothing was changed" in res["error"], out
    assert (d / "app.py").read_text() == before


DIVERGED = {
    "feat.py": """
        import numpy as np


        class Features:
            def __call__(self, counts):
                steps = np.abs(np.diff(counts.astype(np.float64), axis=-1))
                return np.log1p(steps).astype(np.float32)


        FEATURES = Features()
        """,
    "vendored.py": """
        import numpy as np


        def edges(counts):
            # A copy of the front end kept for the device image; it predates the log.
            return np.abs(np.diff(counts.astype(np.float64), axis=-1)).astype(np.float32)
        """,
    "hooks.py": """
        import torch

        from feat import FEATURES
        from raw import raw


        def held_out():
            counts, labels = raw()
            return (torch.from_numpy(FEATURES(counts)),), torch.from_numpy(labels)


        def example():
            return (held_out()[0][0][:1],)
        """}

APP_DIVERGED = APP.replace("import torch\n", "import torch\n\nimport vendored\n").replace(
    "return torch.from_numpy(np.asarray(counts, dtype=np.float32)[None])",
    "return torch.from_numpy(vendored.edges(counts)[None])")


def substitutes(d):
    """find_substitutes in a fresh interpreter: [(file, function, step reference)]."""
    code = ("import json\nfrom aipc_toolbox.project import Project\nfrom aipc_toolbox import diverged_step\n"
            "p = Project()\n"
            "found = diverged_step.find_substitutes(p, 0, lambda: p._call('app_eval_data'))\n"
            "print(json.dumps([[s.file, s.function, s.step.reference] for s in found]))")
    return json.loads(_python(d, code).strip().splitlines()[-1])


@check
def an_app_function_that_diverged_from_eval_datas_step_is_found_and_the_step_given_its_argument_instead():
    d = project(DIVERGED, app=APP_DIVERGED)
    assert "vendored.edges(counts)" in (d / "app.py").read_text()
    assert steps(d) == [], "applied to the diverged copy's result, the step gives no eval values"
    found = substitutes(d)
    assert found[0] == ["vendored.py", "edges", "feat:FEATURES"], found
    assert ["app.py", "Feeder.frame", "feat:FEATURES"] in found, found
    before_app = (d / "app.py").read_text()
    res, out = fix(d, input="x", file="vendored.py", function="edges", via="feat:FEATURES", instead=True)
    assert res["ok"] and res["function"] == "edges" and res["via"] == "feat:FEATURES", out
    assert 'instead=True' in (d / "vendored.py").read_text() and (d / "app.py").read_text() == before_app
    assert matches_eval(d)


RECORD = {
    "front.py": """
        import numpy as np


        def to_features(counts, baseline):
            return np.log(counts.astype(np.float64) / baseline).astype(np.float32)
        """,
    "hooks.py": """
        import numpy as np
        import torch

        from front import to_features
        from raw import raw


        def held_out():
            counts, labels = raw()
            x = np.stack([to_features(c, c[:, :2].mean(axis=-1, keepdims=True)) for c in counts])
            return (torch.from_numpy(x),), torch.from_numpy(labels)


        def example():
            return (held_out()[0][0][:1],)
        """}

APP_RECORD = """
from dataclasses import dataclass

import numpy as np
import torch

from raw import raw


@dataclass
class Reading:
    counts: np.ndarray
    baseline: np.ndarray


class Feeder:
    def frame(self, reading):
        # The gateway's own front end: a fixed baseline where the lab divides by the reading's.
        level = np.log(reading.counts.astype(np.float64) / 500.0)
        return torch.from_numpy(level.astype(np.float32)[None])


def labelled():
    counts, labels = raw()
    feeder = Feeder()
    readings = [Reading(c, c[:, :2].mean(axis=-1, keepdims=True)) for c in counts]
    return [(feeder.frame(r),) for r in readings], torch.from_numpy(labels)


def run_inputs():
    return labelled()[0][:4]
"""


@check
def a_diverged_function_given_a_record_has_the_step_take_the_records_fields_by_name():
    d = project(RECORD, app=APP_RECORD)
    assert steps(d) == [] and not matches_eval(d)
    code = ("import json\nfrom aipc_toolbox.project import Project\nfrom aipc_toolbox import diverged_step\n"
            "p = Project()\nfound = diverged_step.find_substitutes(p, 0, lambda: p._call('app_eval_data'))\n"
            "print(json.dumps([[s.function, s.step.reference, s.step.sources, s.describe()] for s in found]))")
    found = json.loads(_python(d, code).strip().splitlines()[-1])
    assert found and found[0][:3] == ["Feeder.frame", "front:to_features",
                                      [["counts", "reading.counts"], ["baseline", "reading.baseline"]]], found
    assert "Feeder.frame() from its arguments reading.counts, reading.baseline, where" in found[0][3], found
    res, out = fix(d, input="x", file="app.py", function="Feeder.frame", via="front:to_features", instead=True)
    assert res["ok"] and res["function"] == "Feeder.frame", out
    assert "via_from={'counts': 'reading.counts', 'baseline': 'reading.baseline'}" in (d / "app.py").read_text()
    assert matches_eval(d)


@check
def a_records_fields_named_otherwise_are_matched_by_what_they_hold():
    app = (APP_RECORD.replace("counts: np.ndarray\n    baseline: np.ndarray", "raw: np.ndarray\n    dark: np.ndarray")
           .replace("reading.counts.astype", "reading.raw.astype"))
    assert "dark: np.ndarray" in app and "reading.raw.astype" in app
    d = project(RECORD, app=app)
    code = ("import json\nfrom aipc_toolbox.project import Project\nfrom aipc_toolbox import diverged_step\n"
            "p = Project()\nfound = diverged_step.find_substitutes(p, 0, lambda: p._call('app_eval_data'))\n"
            "print(json.dumps([[s.function, s.step.sources, s.describe()] for s in found]))")
    found = json.loads(_python(d, code).strip().splitlines()[-1])
    assert found and found[0][:2] == ["Feeder.frame", [["counts", "reading.raw"], ["baseline", "reading.dark"]]], found
    assert "from its arguments reading.raw as counts, reading.dark as baseline, where" in found[0][2], found
    res, out = fix(d, input="x", file="app.py", function="Feeder.frame", via="front:to_features", instead=True)
    assert res["ok"], out
    assert matches_eval(d)


@check
def instead_is_refused_writing_nothing_when_the_step_does_not_make_eval_datas_values_in_that_place():
    d = project(DIVERGED, app=APP_DIVERGED)
    before = (d / "vendored.py").read_text()
    for args, says in (({"via": "feat:FEATURES", "instead": True}, "pass the file and function"),
                       ({"file": "vendored.py", "function": "edges", "instead": True}, "instead needs via"),
                       ({"file": "vendored.py", "function": "edges", "via": "raw:raw", "instead": True},
                        "does not make input x hold eval_data's values")):
        res, out = fix(d, input="x", **args)
        assert not res["ok"] and says in res["error"], (args, out)
        assert (d / "vendored.py").read_text() == before, args


@check
def a_file_with_an_older_helper_gets_the_one_that_knows_via():
    from input_feed import HELPER, newer_helper

    old = HELPER.replace('''def _aipc_conform_feed(position, dtype=None, layout=None, contiguous=True, scale=None, shift=0.0,
                       via=None, via_takes="numpy", via_each=False, via_dtype="float32", instead=False,
                       via_kwargs=None, via_refs=None, via_from=None):''',
                         "def _aipc_conform_feed(position, dtype=None, layout=None, contiguous=True, scale=None, shift=0.0):")
    assert old != HELPER
    text = "import numpy as np\n" + old + "\n\n@_aipc_conform_feed(None, dtype=\"float32\")\ndef f():\n    return 1\n"
    new = newer_helper(text)
    assert "via=None" in new and new.count("def _aipc_conform_feed(") == 1 and new.endswith("def f():\n    return 1\n"), new
    assert newer_helper(new) == new


if __name__ == "__main__":
    main()

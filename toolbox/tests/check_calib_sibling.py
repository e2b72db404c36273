#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""The calibration path reads through the wrong one of two sibling accessors of a data class
(aipc_toolbox/calib_sibling.py), and fix_call_site (toolbox/fixes/call_site.py) calls the other.

Each project keeps its samples in a store that offers them two ways: the stored 16-bit containers
(the value shifted into the high bits) and the values. eval_data reads the values; the calibration
path reads the containers, so the whole set is 16x too large, and no step of the project turns
one into the other. The checks show that:
- the method called, where (file:line, function) and the sibling that, called there instead,
  brings the set into range are named in the calibration-scale line, which both targets'
  `quant.calibration_sibling` signature reads, for a method of the store called in a function
  and in a method of another class;
- fix_call_site writes that call, after which the set lies in range and nothing is named;
- nothing is named when no sibling brings the set into range (the sibling is another quantity);
- fix_call_site refuses, writing nothing, a line without that call, a line with two, and names
  that are not method names.
"""
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import tomllib
from pathlib import Path

from checklib import EXAMPLE_AND_MLP8, ROOT, check, main, write_data_project

from aipc_toolbox import calib, calib_sibling  # noqa: E402
from aipc_toolbox.project import Project  # noqa: E402

_ids = itertools.count()
FIX = ROOT / "toolbox" / "fixes" / "call_site.py"

STORE = '''
import numpy as np
import torch


class Store:
    """Samples as the instrument writes them: 12-bit values in 16-bit containers."""

    def __init__(self, seed):
        g = np.random.default_rng(seed)
        self._words = (g.integers(0, 4096, size=(64, 8)).astype(np.uint16) << 4)

    def words(self, start=0, stop=None):
        return self._words[start:stop]

    def values(self, start=0, stop=None):
        return self._words[start:stop] >> 4

    def spread(self, start=0, stop=None):
        return np.full((len(self._words[start:stop]), 8), 40000, dtype=np.uint16)


def unit(values):
    return torch.from_numpy((values / 4095.0).astype(np.float32))


def evaluation():
    return (unit(Store(1).values()),), None


''' + EXAMPLE_AND_MLP8

IN_FUNCTION = '''
def calibration():
    store = Store(2)
    rows = store.words(0, 32)
    return [(unit(rows[i:i + 8]),) for i in range(0, 32, 8)]
'''
IN_METHOD = '''
class Feeder:
    def __init__(self):
        self.store = Store(3)

    def batches(self):
        return [(unit(self.store.words(i, i + 8)),) for i in range(0, 32, 8)]


def calibration():
    return Feeder().batches()
'''


def _project(calibration_src, store=STORE):
    module = f"store_data_{next(_ids)}"
    d = tempfile.mkdtemp(prefix="calib-sibling-")
    Path(d, module + ".py").write_text(textwrap.dedent(store) + textwrap.dedent(calibration_src))
    write_data_project(d, module)
    return Project(d), module


def _signature(target):
    with open(ROOT / "toolbox" / "targets" / target / "signatures.toml", "rb") as f:
        table = tomllib.load(f)
    entry = next(s for s in table["signature"] if s["id"] == "quant.calibration_sibling")
    return re.compile(entry["regex"]), entry["fixes"]


def _line(p):
    audit, _ = calib.checked_samples(p, p.calibration_data(), False)
    return audit


def _fix(d, **args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
    r = subprocess.run([sys.executable, str(FIX), "--args-json", json.dumps(args)], cwd=d, env=env,
                       capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stdout + r.stderr


@check
def the_call_and_the_sibling_that_brings_the_set_into_range_are_named_and_fix_call_site_writes_it():
    for source, function, needle in ((IN_FUNCTION, "calibration", "store.words(0, 32)"),
                                     (IN_METHOD, "Feeder.batches", "self.store.words(i, i + 8)")):
        p, module = _project(source)
        audit = _line(p)
        assert audit.set_off and "its sibling Store.values()" in audit.scale_line, audit.scale_line
        text = Path(p.root, f"{module}.py").read_text()
        for target in ("onnxruntime-cpu", "executorch-xnnpack"):
            regex, fixes = _signature(target)
            m = regex.search("aipc-warning: calibration scale: " + audit.scale_line)
            assert m, (target, audit.scale_line)
            assert (m["owner"], m["method"], m["sibling"], m["function"]) == ("Store", "words", "values", function), \
                m.groupdict()
            assert needle in text.splitlines()[int(m["line"]) - 1], (m["line"], needle)
            assert (m["outside_before"], m["outside_after"]) == ("4", "0"), m.groupdict()
            assert fixes[0].startswith("fix_call_site"), fixes
        res, out = _fix(p.root, file=m["file"], line=int(m["line"]), call=m["method"], instead=m["sibling"])
        assert res["ok"] and res["changed_lines"] == 2, out
        assert needle.replace("words", "values") in Path(p.root, f"{module}.py").read_text()
        # The module is imported anew (this process holds the old one).
        code = ("import json\nfrom aipc_toolbox import calib\nfrom aipc_toolbox.project import Project\n"
                "p = Project()\na, _ = calib.checked_samples(p, p.calibration_data(), False)\n"
                "print(json.dumps([a.scale_line, len(a.outside)]))")
        env = dict(os.environ, PYTHONPATH=str(ROOT / "toolbox" / "lib"))
        r = subprocess.run([sys.executable, "-c", code], cwd=p.root, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout.strip().splitlines()[-1]) == [None, 0], r.stdout


@check
def no_sibling_is_named_when_none_brings_the_set_into_range():
    # The store's only other method with those parameters gives another quantity.
    store = STORE.replace("    def values(self, start=0, stop=None):\n        return self._words[start:stop] >> 4\n\n", "")
    store = store.replace("(unit(Store(1).values()),)", "(unit(Store(1).words() >> 4),)")
    assert "def values" not in store
    p, _ = _project(IN_FUNCTION, store)
    audit = _line(p)
    assert audit.set_off and "its sibling" not in audit.scale_line, audit.scale_line
    assert calib_sibling.find(p, calib.reference_samples(p)[0], "eval inputs", 4) == []


@check
def fix_call_site_refuses_writing_nothing_when_the_line_does_not_hold_one_such_call():
    p, module = _project(IN_FUNCTION + "\n\ndef twice(s):\n    return s.words(0, 1), s.words(1, 2)\n")
    path = Path(p.root, f"{module}.py")
    before = path.read_text()
    lines = before.splitlines()
    at = next(i for i, text in enumerate(lines, 1) if "store.words(0, 32)" in text)
    both = next(i for i, text in enumerate(lines, 1) if "s.words(0, 1), s.words(1, 2)" in text)
    for args, says in (({"line": at - 1, "call": "words", "instead": "values"}, "no call of .words(...)"),
                       ({"line": both, "call": "words", "instead": "values"}, "2 calls of .words(...)"),
                       ({"line": at, "call": "words", "instead": "values()"}, "is not a method name"),
                       ({"line": at, "call": "words", "instead": "words"}, "both 'words'")):
        res, out = _fix(p.root, file=f"{module}.py", **args)
        assert not res["ok"] and says in res["error"] and "nothing was changed" in res["error"], (args, out)
        assert path.read_text() == before, args


if __name__ == "__main__":
    main()

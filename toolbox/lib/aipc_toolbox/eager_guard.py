"""The numbers guard of a source rewrite: a codemod that rewrites the model's code must leave the
eager model's outputs where they were, or it is rolled back.

Before the rewrite is written, `EagerGuard.baseline()` loads the project's model (aipc.toml
`model`, under a fixed seed) in a child Python process, runs it on the project's example inputs
and keeps both inputs and outputs in a scratch folder. Besides the example it runs a few eval
samples and the example scaled by 0, 1e-3, 10 and -1 (when the model is quick): a rewrite of a
branch the example does not take (a saturation guard, a floor on a spread) must keep the numbers
there too; an extra input the model does not run on, or answers with a non-finite value, is left
out. After the rewrite, `verify()` loads the model again in a fresh child (so the rewritten
modules are imported anew), runs it on the *same* saved inputs and compares every output: within
`atol + rtol * max|reference|` for floating tensors, equal for the rest, the same structure and
shapes. When an output moved, when the model
no longer loads or runs, or when the child does not finish in time, the rewritten files get
their old text back and the codemod fails (RolledBack) saying what moved, by how much, and that
nothing was kept.

Child processes, because the codemod's own process may already hold the project's modules
imported; the same saved inputs, because a rewrite of the app's input code must not count as a
change of the model. When there is nothing to compare against (no aipc.toml, or the model does
not run before the rewrite either) the guard says why and the rewrite is kept unverified: the
export and accuracy gates still judge it.

Child usage: python -m aipc_toolbox.eager_guard capture|replay <scratch folder>
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .emit import ToolError

# A rewrite that keeps the numbers (torch.where over both branches, torch.cond, a replaced body
# computing the same thing) moves float outputs by rounding at most.
RTOL = 1e-4
ATOL = 1e-5
# Seconds for the baseline child (a model that takes longer is not checked: the rewrite is kept
# unverified and the gates judge it), and the most the replay child may take (3x the baseline, at
# least 30 s). The guard runs inside a tool that the engine kills at its manifest's timeout_s, and
# a kill between writing and rolling back would keep a rewrite nobody checked: GUARD_WORST_S must
# stay under the timeout_s of every tool that uses the guard (fixes/toolbox.toml; a unit check in
# toolbox/tests/test_toolbox.py holds them together).
BASELINE_TIMEOUT_S = 90
REPLAY_MIN_S, REPLAY_MAX_S = 30, 150
GUARD_WORST_S = BASELINE_TIMEOUT_S + REPLAY_MAX_S
SEED = 0
# The inputs besides the example: up to EVAL_SAMPLES samples spread over eval_data, and the example
# scaled by each of STRESS_SCALES (floating tensors only). They are run when the example ran in
# under EXTRA_INPUTS_MAX_S / (their count) seconds; eval_data gets EVAL_DATA_MAX_S to load.
EVAL_SAMPLES = 8
STRESS_SCALES = (0.0, 1e-3, 10.0, -1.0)
EXTRA_INPUTS_MAX_S = 20.0
EVAL_DATA_MAX_S = 20
EXAMPLE = "the example inputs"


class RolledBack(ToolError):
    """The rewrite moved the model's numbers (or broke it) and the files have their old text back."""


def _seed():
    import random

    import torch

    random.seed(SEED)
    torch.manual_seed(SEED)
    try:
        import numpy

        numpy.random.seed(SEED)
    except ImportError:
        pass


def _flatten(out, prefix="output"):
    """[(name, value)] of a model's result: tensors, tuples/lists, dicts and dataclass-like outputs."""
    import torch

    if isinstance(out, torch.Tensor) or out is None or isinstance(out, (int, float, bool, str)):
        return [(prefix, out)]
    if isinstance(out, dict) or hasattr(out, "items"):
        return [item for k, v in out.items() for item in _flatten(v, f"{prefix}.{k}")]
    if isinstance(out, (tuple, list)):
        return [item for i, v in enumerate(out) for item in _flatten(v, f"{prefix}[{i}]")]
    return [(prefix, repr(type(out)))]


def _load():
    from .project import Project

    project = Project()
    _seed()
    return project, project.load_model()


def _forward(model, inputs):
    import torch

    _seed()
    with torch.no_grad():
        return _flatten(model(*inputs))


def _finite(outputs):
    import torch

    return all(not isinstance(v, torch.Tensor) or not (v.is_floating_point() or v.is_complex())
               or bool(torch.isfinite(v).all()) for _, v in outputs)


def _eval_samples(project):
    """Up to EVAL_SAMPLES single samples spread over eval_data ([] when there is none, it fails,
    or it takes over EVAL_DATA_MAX_S to load)."""
    import signal

    def _late(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, _late)
    signal.alarm(EVAL_DATA_MAX_S)
    try:
        _seed()
        inputs, _ = project.eval_data()
    except Exception:  # noqa: BLE001 - no eval data is a smaller check, not a failure
        return []
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    n = int(inputs[0].shape[0])
    if n == 0 or any(getattr(t, "shape", (0,))[:1] != (n,) for t in inputs):
        return []
    picks = sorted({round(k * (n - 1) / max(EVAL_SAMPLES - 1, 1)) for k in range(min(EVAL_SAMPLES, n))})
    return [(f"eval sample {i}", tuple(t[i:i + 1].clone() for t in inputs)) for i in picks]


def _stressed(example):
    if not any(t.is_floating_point() for t in example):
        return []
    return [(f"{EXAMPLE} x{s:g}", tuple(t * s if t.is_floating_point() else t.clone() for t in example))
            for s in STRESS_SCALES]


def _capture():
    """[(label, inputs, outputs)]: the example first (it must run), then the extra inputs the
    model runs on with finite outputs."""
    child_started = time.monotonic()
    project, model = _load()
    _seed()
    example = project.example_inputs()
    started = time.monotonic()
    sets = [(EXAMPLE, tuple(example), _forward(model, example))]
    took = time.monotonic() - started
    extras = EVAL_SAMPLES + len(STRESS_SCALES)
    # The extras must not push a slow-loading model's baseline past BASELINE_TIMEOUT_S (which
    # would leave the rewrite unchecked altogether): none when loading already took a third of it,
    # and none started after two thirds.
    if took * extras > EXTRA_INPUTS_MAX_S or time.monotonic() - child_started > BASELINE_TIMEOUT_S / 3:
        return sets
    for label, inputs in _eval_samples(project) + _stressed(tuple(example)):
        if time.monotonic() - child_started > 2 * BASELINE_TIMEOUT_S / 3:
            break
        try:
            out = _forward(model, inputs)
        except Exception:  # noqa: BLE001 - an input this model does not take is left out
            continue
        if _finite(out):
            sets.append((label, inputs, out))
    return sets


def _compare(before, after):
    """(ok, what) comparing two flattened outputs."""
    import torch

    if [n for n, _ in before] != [n for n, _ in after]:
        return False, {"output": "structure", "before": [n for n, _ in before], "after": [n for n, _ in after]}
    worst = {"output": None, "max_abs_diff": 0.0, "tolerance": None}
    for (name, a), (_, b) in zip(before, after):
        if isinstance(a, torch.Tensor) != isinstance(b, torch.Tensor):
            return False, {"output": name, "why": "a tensor on one side only"}
        if not isinstance(a, torch.Tensor):
            if a != b:
                return False, {"output": name, "before": repr(a)[:80], "after": repr(b)[:80]}
            continue
        if a.shape != b.shape or a.dtype != b.dtype:
            return False, {"output": name, "before": f"{tuple(a.shape)} {a.dtype}", "after": f"{tuple(b.shape)} {b.dtype}"}
        if not (a.is_floating_point() or a.is_complex()):
            if not torch.equal(a, b):
                n = int((a != b).sum())
                return False, {"output": name, "differing_elements": n, "of": a.numel()}
            continue
        a64, b64 = a.double(), b.double()
        if not torch.equal(torch.isnan(a64), torch.isnan(b64)):
            return False, {"output": name, "why": "NaN in different places"}
        fa, fb = torch.nan_to_num(a64, nan=0.0), torch.nan_to_num(b64, nan=0.0)
        finite = torch.isfinite(fa) & torch.isfinite(fb)
        if not torch.equal(fa[~finite], fb[~finite]):
            return False, {"output": name, "why": "infinities in different places"}
        diff = float((fa[finite] - fb[finite]).abs().max()) if finite.any() else 0.0
        scale = float(fa[finite].abs().max()) if finite.any() else 0.0
        tol = ATOL + RTOL * scale
        if diff > tol:
            return False, {"output": name, "max_abs_diff": diff, "tolerance": tol, "max_abs_reference": scale}
        if worst["output"] is None or diff > worst["max_abs_diff"]:
            worst = {"output": name, "max_abs_diff": diff, "tolerance": tol}
    return True, worst


def _child(mode, scratch):
    import torch

    path = os.path.join(scratch, "baseline.pt")
    if mode == "capture":
        sets = _capture()
        torch.save([{"label": label, "inputs": inputs, "outputs": out} for label, inputs, out in sets], path)
        print(json.dumps({"ok": True, "outputs": [n for n, _ in sets[0][2]], "inputs": [label for label, _, _ in sets]}))
        return 0
    saved = torch.load(path, weights_only=True)
    _, model = _load()
    worst = None
    for item in saved:
        try:
            out = _forward(model, item["inputs"])
        except Exception as e:  # noqa: BLE001 - the rewritten model failing is the finding
            if item["label"] == EXAMPLE:
                raise
            print(json.dumps({"ok": False, "input": item["label"], "raises": f"{type(e).__name__}: {e}"[:300]}))
            return 0
        ok, what = _compare(item["outputs"], out)
        if not ok:
            print(json.dumps({"ok": False, "input": item["label"], **what}))
            return 0
        if worst is None or (what["output"] is not None
                             and (worst["output"] is None or what["max_abs_diff"] > worst["max_abs_diff"])):
            worst = dict(what, input=item["label"])
    print(json.dumps({"ok": True, **worst, "inputs": [item["label"] for item in saved]}))
    return 0


class EagerGuard:
    """baseline() before writing a rewrite, verify(old_texts) after; see the module doc."""

    def __init__(self, root="."):
        self.root = os.path.abspath(root)
        self.scratch = None
        self.skipped = None
        self.baseline_s = None

    @staticmethod
    def _timed_out(timeout):
        return f"the model did not finish within {timeout:.0f} s"

    def _spawn(self, mode, timeout):
        lib = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = lib + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            p = subprocess.run([sys.executable, "-m", "aipc_toolbox.eager_guard", mode, self.scratch], cwd=self.root,
                               env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, self._timed_out(timeout)
        last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
        try:
            reply = json.loads(last)
        except json.JSONDecodeError:
            reply = None
        if p.returncode != 0 or not isinstance(reply, dict):
            tail = [l for l in p.stderr.strip().splitlines() if l.strip()][-3:]
            return None, " | ".join(tail)[-600:] or f"exit code {p.returncode}"
        return reply, None

    def baseline(self):
        """Run the model as it is now. False (with `skipped` saying why) when there is nothing to
        compare against."""
        if not os.path.isfile(os.path.join(self.root, "aipc.toml")):
            self.skipped = "no aipc.toml in the working folder"
            return False
        self.scratch = tempfile.mkdtemp(prefix="aipc-eager-guard-")
        started = time.monotonic()
        reply, err = self._spawn("capture", BASELINE_TIMEOUT_S)
        self.baseline_s = time.monotonic() - started
        if err == self._timed_out(BASELINE_TIMEOUT_S):
            self.skipped = (f"the model took over {BASELINE_TIMEOUT_S} s on the example inputs, too long to run "
                            "twice within the tool's time")
            self.close()
            return False
        if err:
            self.skipped = f"the model does not run before the rewrite either ({err})"
            self.close()
            return False
        return True

    def verify(self, old_texts, where=None):
        """Run the rewritten model on the saved inputs; roll `old_texts` ({path: text}) back and
        raise RolledBack (its message starting with `where`, default the files) when its outputs
        moved. Returns what was measured (for the result)."""
        if self.scratch is None:
            return {"checked": False, "why": self.skipped}
        try:
            timeout = min(REPLAY_MAX_S, max(REPLAY_MIN_S, 3 * (self.baseline_s or 0)))
            reply, err = self._spawn("replay", timeout)
        finally:
            self.close()
        if err is None and reply.get("ok"):
            return {"checked": True, **{k: v for k, v in reply.items() if k != "ok"}}
        for path, text in old_texts.items():
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        where = where or ", ".join(sorted(old_texts))
        if err is not None:
            why = f"the rewritten model no longer runs on {EXAMPLE} ({err})"
        elif "raises" in reply:
            why = (f"the rewritten model no longer runs on {reply['input']}, where the model ran before the rewrite "
                   f"({reply['raises']})")
        else:
            detail = {k: v for k, v in reply.items() if k not in ("ok", "input")}
            why = f"the rewrite moves the eager model's outputs beyond rounding on {reply.get('input')}: {json.dumps(detail)}"
            if reply.get("input") != EXAMPLE:
                why += (f" (on {EXAMPLE} it keeps them: the rewrite changed what the model does on inputs the example "
                        "does not reach, e.g. a branch the example does not take)")
        raise RolledBack(f"{where}: {why}. Rolled back: the file(s) are as they were. A rewrite must keep the model's "
                         "numbers; look at the diff above, or change the code by hand")

    def close(self):
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2]))

"""The numbers guard of a source rewrite: a codemod that rewrites the model's code must leave the
eager model's outputs where they were, or it is rolled back.

Before the rewrite is written, `EagerGuard.baseline()` loads the project's model (aipc.toml
`model`, under a fixed seed) in a child Python process, runs it on the project's example inputs
and keeps both inputs and outputs in a scratch folder. After the rewrite, `verify()` loads the
model again in a fresh child (so the rewritten modules are imported anew), runs it on the *same*
saved inputs and compares every output: within `atol + rtol * max|reference|` for floating
tensors, equal for the rest, the same structure and shapes. When an output moved, when the model
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


def _run_model(inputs):
    import torch

    from .project import Project

    project = Project()
    _seed()
    model = project.load_model()
    if inputs is None:
        _seed()
        inputs = project.example_inputs()
    with torch.no_grad():
        out = model(*inputs)
    return inputs, _flatten(out)


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

    if mode == "capture":
        inputs, out = _run_model(None)
        torch.save({"inputs": tuple(inputs), "outputs": out}, os.path.join(scratch, "baseline.pt"))
        print(json.dumps({"ok": True, "outputs": [n for n, _ in out]}))
        return 0
    saved = torch.load(os.path.join(scratch, "baseline.pt"), weights_only=True)
    _, out = _run_model(saved["inputs"])
    ok, what = _compare(saved["outputs"], out)
    print(json.dumps({"ok": ok, **what}))
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
            why = f"the rewritten model no longer runs on the example inputs ({err})"
        else:
            detail = {k: v for k, v in reply.items() if k != "ok"}
            why = f"the rewrite moves the eager model's outputs beyond rounding: {json.dumps(detail)}"
        raise RolledBack(f"{where}: {why}. Rolled back: the file(s) are as they were. A rewrite must keep the model's "
                         "numbers; look at the diff above, or change the code by hand")

    def close(self):
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2]))

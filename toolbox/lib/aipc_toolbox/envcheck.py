"""The env stage's check, shared by the targets' env.py: is the toolchain importable, is the
environment the engine promises there (QNN_SDK_ROOT set, the venv's python), and does the
project load and run eagerly on its example inputs (weights present, data importable)?

Prints the versions and, as metrics, toolchain_ok, project_ok, eager_ok and eager_deterministic
(1/0: the model function builds the same model each call, and it gives the same outputs again).
"""
import importlib
import os
import sys
import time

from . import emit
from .project import Project


def check(modules):
    """modules: [(import name, distribution name for the version)]; returns the result dict."""
    out = {"python": sys.version.split()[0], "executable": sys.executable, "venv": os.environ.get("VIRTUAL_ENV")}
    missing = []
    versions = {}
    for mod, dist in modules:
        t0 = time.monotonic()
        try:
            m = importlib.import_module(mod)
        except Exception as e:  # noqa: BLE001 - report every missing piece, then fail
            missing.append(f"{mod}: {emit.describe(e)}")
            continue
        versions[dist] = getattr(m, "__version__", None) or _dist_version(dist)
        emit.note(f"import {mod}: {versions[dist]} ({time.monotonic() - t0:.1f} s)")
    out["versions"] = versions
    if "QNN_SDK_ROOT" not in os.environ:
        emit.note("QNN_SDK_ROOT is not set: importing ExecuTorch's Qualcomm backend would try to download an SDK; "
                  "the engine sets it to an empty value")
    out["qnn_sdk_root_set"] = int("QNN_SDK_ROOT" in os.environ)
    if missing:
        raise emit.ToolError("toolchain incomplete: " + "; ".join(missing) + ". Run `aipc toolchain setup <target>`")
    out["toolchain_ok"] = 1
    p = Project()
    model = p.load_model()
    inputs = p.example_inputs()
    out["project_ok"] = 1
    import torch

    with torch.no_grad():
        y = model(*inputs)
    ys = _tensors(y)
    out["eager_ok"] = 1
    out["eager_deterministic"] = deterministic(p, model, inputs, ys)
    out["example_inputs"] = [list(t.shape) for t in inputs]
    out["eager_outputs"] = [list(t.shape) for t in ys]
    emit.note(f"project: {p['model']} runs on example inputs {out['example_inputs']} -> {out['eager_outputs']}")
    return out


def _tensors(y):
    import torch

    if hasattr(y, "to_tuple"):  # a transformers ModelOutput: its tensors (logits), not its keys
        y = y.to_tuple()
    return [y] if isinstance(y, torch.Tensor) else [t for t in y if isinstance(t, torch.Tensor)]


def deterministic(p, model, inputs, ys):
    """1 when the model gives the same outputs on the example inputs when called again, and when
    the model function, called again, builds the same model. Every gate compares an artifact with
    "the eager model": a function that builds new random weights on each call (no seed, no weights
    loaded) makes that reference a different model each time, and the artifact is compared with a
    stranger (cosine near 0). Else 0, with the warning naming the model function's file and name."""
    import torch

    with torch.no_grad():
        again = _tensors(model(*inputs))
        rebuilt = _tensors(p.load_model()(*inputs))
    first = [t.detach().float() for t in ys]

    def diff(other):
        return max((float((a - b.detach().float()).abs().max()) for a, b in zip(first, other) if a.shape == b.shape),
                   default=0.0)

    scale = max((float(t.abs().max()) for t in first if t.numel()), default=1.0) or 1.0
    same_call, same_build = diff(again), diff(rebuilt)
    if same_call <= 1e-5 * scale and same_build <= 1e-5 * scale:
        return 1
    module, _, function = p["model"].partition(":")
    where = f"{module.replace('.', '/')}.py {function}()"
    if same_call > 1e-5 * scale:
        emit.warn("model not deterministic", f"the model gives other outputs when called again on the same example "
                  f"inputs (max difference {same_call:.3g}): a random op or dropout stays active in eval mode; "
                  f"model function {where}")
    else:
        emit.warn("model not deterministic", f"each call builds a different model (outputs differ by {same_build:.3g} "
                  "on the example inputs): it makes new random weights, so every check would compare the artifact "
                  "with another model; seed it (torch.manual_seed) before building, or load saved weights; "
                  f"model function {where}")
    return 0


def _dist_version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001
        return None

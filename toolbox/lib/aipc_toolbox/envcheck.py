"""The env stage's check, shared by the targets' env.py: is the toolchain importable, is the
environment the engine promises there (QNN_SDK_ROOT set, the venv's python), and does the
project load and run eagerly on its example inputs (weights present, data importable)?

Prints the versions and, as metrics, toolchain_ok, project_ok and eager_ok (1/0).
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
    ys = [y] if isinstance(y, torch.Tensor) else list(y)
    out["eager_ok"] = 1
    out["example_inputs"] = [list(t.shape) for t in inputs]
    out["eager_outputs"] = [list(t.shape) for t in ys]
    emit.note(f"project: {p['model']} runs on example inputs {out['example_inputs']} -> {out['eager_outputs']}")
    return out


def _dist_version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001
        return None

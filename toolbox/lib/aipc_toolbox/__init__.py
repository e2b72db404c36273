"""aipc_toolbox: the shared part of aipc's toolbox scripts (docs/toolbox.md).

Every target script (export.py, inspect.py, run.py, compare.py, quantize.py, profile.py) and
every fix under toolbox/fixes/ uses it to
- load the project it deploys from the `[project]` table of `aipc.toml` (`project`),
- read its arguments, either `--args-json '{...}'` (the model's tool call) or one `--<name>`
  flag per argument (engineers and checks), both built from the manifest entry (`args`),
- compute the comparison metrics the gates name (`metrics`),
- print the final one-line JSON result, the `aipc-warning:` lines for silent failures, and a
  consistent error result with the real traceback above it (`emit`).

The package imports neither torch nor a toolchain, so it loads in milliseconds; the scripts
import the heavy toolchains themselves.
"""

import os as _os
import sys as _sys


def script_dir_last(script):
    """Move a target script's folder from the front to the end of sys.path.

    `python inspect.py` puts the script's folder first on sys.path, and that folder holds
    inspect.py and profile.py: numpy, torch and onnx would then import them instead of the
    standard library's `inspect` / `profile` (AttributeError: module 'inspect' has no attribute
    'cleandoc'). Every target script calls this before importing anything else; the folder stays
    importable (for its helper modules) after the standard library.
    """
    here = _os.path.dirname(_os.path.abspath(script))
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") != here] + [here]
    for name in ("inspect", "profile"):
        mod = _sys.modules.get(name)
        if mod is not None and _os.path.dirname(_os.path.abspath(getattr(mod, "__file__", "") or "")) == here:
            del _sys.modules[name]

"""aipc_toolbox: the shared part of aipc's toolbox scripts (docs/toolbox.md).

Every target script (export.py, inspect_artifact.py, run.py, compare.py, quantize.py,
profile_latency.py, env.py, report.py) and every fix under toolbox/fixes/ uses it to
- load the project it deploys from the `[project]` table of `aipc.toml` (`project`),
- read its arguments, either `--args-json '{...}'` (the model's tool call) or one `--<name>`
  flag per argument (engineers and checks), both built from the manifest entry (`args`),
- compute the comparison metrics the gates name (`metrics`),
- print the final one-line JSON result, the `aipc-warning:` lines for silent failures, and a
  consistent error result with the real traceback above it (`emit`).

The package imports neither torch nor a toolchain, so it loads in milliseconds; the scripts
import the heavy toolchains themselves.

The scripts find this package through `PYTHONPATH=$AIPC_TOOLBOX/lib`, which aipc sets for every
toolbox call and check command (docs/toolbox.md); their own folder, first on `sys.path` as for
any `python <script>`, gives them their target's helpers (ortcommon.py, etcommon.py, _codemod.py).
No script is named like a standard-library module, so that folder shadows nothing.
"""

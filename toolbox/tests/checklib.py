"""The small harness the toolbox's `check_*.py` files share (tests/toolbox_python.rs runs each
in the venvs its `# aipc-venvs:` header names): `@check` registers a function, `raises` asserts a
ToolError (or SystemExit) whose message holds a text, `main()` runs every check, prints one line
per check and exits 1 when any failed. It puts toolbox/lib on sys.path, so a check file imports
`aipc_toolbox` and the fixes' helpers the way a toolbox script does; `run_script` runs a target
script in a project folder the way the engine does.
"""
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT / "toolbox" / "lib", ROOT / "toolbox" / "fixes"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from aipc_toolbox.emit import ToolError  # noqa: E402

CHECKS = []


def write_data_project(folder, module, extra=""):
    """aipc.toml for a small ONNX Runtime INT8 project whose `module` holds build, example,
    evaluation and calibration (input x, output y), with `extra` lines after them."""
    import textwrap

    Path(folder, "aipc.toml").write_text(textwrap.dedent(f'''\
        target = "onnxruntime-cpu"

        [project]
        model = "{module}:build"
        example_inputs = "{module}:example"
        eval_data = "{module}:evaluation"
        calibration_data = "{module}:calibration"
        input_names = ["x"]
        output_names = ["y"]
        opset = 18
        quantize = "int8"
    ''') + extra)

# The example and model of the small data-module projects (8 features, 3 classes) whose
# `evaluation()` the calibration checks write themselves.
EXAMPLE_AND_MLP8 = '''
def example():
    return (evaluation()[0][0][:2],)


def build():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)).eval()
'''

# The data functions of the small MLP projects the INT8 checks write into net.py, after their own
# `build()` (16 inputs): fixed-seed rows, the example batch, a held-out set labelled by the model
# itself, and calibration batches.
MLP_DATA = '''

def rows():
    g = torch.Generator().manual_seed(1)
    return torch.randn(96, 16, generator=g)


def sample():
    return (rows()[:4],)


def held_out():
    x = rows()
    with torch.no_grad():
        y = build()(x).argmax(1)
    return (x,), y


def calibration():
    x = rows()
    return [(x[i:i + 8],) for i in range(0, 64, 8)]
'''

# The aipc.toml of those projects: `target` and `extra` (more [project] lines) filled in by the check.
MLP_TOML = '''target = "{target}"
[project]
model = "net:build"
example_inputs = "net:sample"
eval_data = "net:held_out"
calibration_data = "net:calibration"
quantize = "int8"
{extra}
'''


def venv_target():
    """The target of the venv a check runs in (onnxruntime is installed in the ORT venv only):
    (its name, its artifact extension, its toolbox folder)."""
    try:
        import onnxruntime  # noqa: F401

        name, ext = "onnxruntime-cpu", "onnx"
    except ImportError:
        name, ext = "executorch-xnnpack", "pte"
    return name, ext, ROOT / "toolbox" / "targets" / name


def run_script(target, project, script, args):
    """Run a toolbox script of the target folder `target` in the project folder `project`, the way
    the engine does (its environment variables, this interpreter); (last JSON line, whole output)."""
    env = dict(os.environ, AIPC_TARGET_DIR=str(target), AIPC_TOOLBOX=str(ROOT / "toolbox"),
               PYTHONPATH=str(ROOT / "toolbox" / "lib"), QNN_SDK_ROOT="")
    r = subprocess.run([sys.executable, str(Path(target) / script), "--args-json", json.dumps(args)], cwd=project,
                       env=env, capture_output=True, text=True, timeout=900)
    out = r.stdout + r.stderr
    last = [line for line in r.stdout.splitlines() if line.startswith("{")]
    assert last, f"{script} printed no JSON line:\n{out}"
    return json.loads(last[-1]), out


def check(fn):
    CHECKS.append(fn)
    return fn


def raises(fn, text):
    try:
        fn()
    except (ToolError, SystemExit) as e:
        assert text in str(e), f"expected {text!r} in {e!r}"
        return e
    raise AssertionError(f"expected an error containing {text!r}")


def main():
    failed = 0
    for fn in CHECKS:
        try:
            fn()
            print(f"ok   {fn.__name__}")
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc()
    print(f"{len(CHECKS) - failed}/{len(CHECKS)} passed")
    if not CHECKS:
        print("no checks registered")
        sys.exit(1)
    sys.exit(1 if failed else 0)

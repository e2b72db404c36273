#!/usr/bin/env python3
"""Write ZooBench's task folders from tests/zoobench/zoo.toml: for every architecture and target,
tests/zoobench/tasks/<name>-<ort|et>/ with a task.toml (as DeployBench reads it) and project/,
written by `aipc init --batch` exactly as a user would (aipc.toml and aipc_hooks.py).

    python3 tests/zoobench/generate.py --aipc <aipc binary>            # every entry
    python3 tests/zoobench/generate.py --aipc <aipc> --check <venv python> [NAME ...]
    aipc bench deploy --tasks-dir tests/zoobench/tasks --tasks '*' --arm skills

--check builds each generated project's model and runs it on its example inputs in the given
toolchain venv (no export): an entry whose model cannot be built is a zoo definition error, not a
deployment failure. Exits 1 when `aipc init` or a check fails.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"onnxruntime-cpu": "ort", "executorch-xnnpack": "et"}

CHECK = """
import json, sys, time, torch
sys.path.insert(0, ".")
import aipc_hooks as h
t0 = time.monotonic()
m = h.model()
built = time.monotonic() - t0
x = h.example_inputs()
(ex,), labels = h.eval_data()
with torch.no_grad():
    y = m(*x)
    logits = m(ex)
params = sum(p.numel() for p in m.parameters())
top = logits.topk(2, dim=1).values
out = {"inputs": [list(t.shape) for t in x], "output": list(y.shape), "params": params, "model_s": round(built, 2),
       # the median gap between the two highest logits, in units of the logits' spread: near 0, any
       # rounding flips classes (random weights); the short fit of --data labelled widens it
       "top2_gap": round(float(((top[:, 0] - top[:, 1]) / logits.std(dim=1)).median()), 3)}
if labels is not None:
    out["eager_acc"] = round(float((logits.argmax(1) == labels).float().mean()), 3)
print(json.dumps(out))
"""


def init_args(arch, target):
    args = ["--batch", "--from", arch["from"], "--target", target]
    if "input_shape" in arch:
        args += ["--input-shape", ",".join(map(str, arch["input_shape"]))]
    for pair in arch.get("hf_config", []):
        args += ["--hf-config", pair]
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aipc", required=True, help="the aipc binary")
    ap.add_argument("--check", metavar="PYTHON", help="a toolchain venv's python: build and run each model")
    ap.add_argument("names", nargs="*", help="only these entries (default: all)")
    a = ap.parse_args()
    with open(HERE / "zoo.toml", "rb") as f:
        zoo = tomllib.load(f)["arch"]
    if a.names:
        zoo = [z for z in zoo if z["name"] in a.names]
    failed = 0
    for arch in zoo:
        for target, short in TARGETS.items():
            task = HERE / "tasks" / f"{arch['name']}-{short}"
            shutil.rmtree(task, ignore_errors=True)
            (task / "project").mkdir(parents=True)
            r = subprocess.run([a.aipc, "init", str(task / "project"), *init_args(arch, target)],
                               capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                failed += 1
                print(f"{task.name}: aipc init failed (exit {r.returncode}): {r.stderr.strip()}")
                continue
            source = arch["from"].split(":", 1)[0]
            inputs = ("digits, short fit" if arch.get("kind", "image") == "image"
                      else f"synthetic {arch.get('kind')} task with labels, short fit")
            (task / "task.toml").write_text(
                f'description = "ZooBench: {arch["from"]}, random weights, {inputs} (aipc init)"\n'
                f'project = "project"\ntarget = "{target}"\n'
                f'covers = ["zoo", "{arch.get("kind", "image")}", "{source}"]\n')
        if a.check:
            project = HERE / "tasks" / f"{arch['name']}-ort" / "project"
            r = subprocess.run([a.check, "-c", CHECK], cwd=project, capture_output=True, text=True, timeout=600)
            last = (r.stdout.strip().splitlines() or [""])[-1]
            if r.returncode != 0 or not last.startswith("{"):
                failed += 1
                err = (r.stderr.strip().splitlines() or ["no output"])[-1]
                print(f"{arch['name']}: the model does not build and run: {err}")
            else:
                print(f"{arch['name']}: {json.loads(last)}")
    print(f"{len(zoo)} architecture(s) x {len(TARGETS)} targets; {failed} failure(s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

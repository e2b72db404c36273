#!/usr/bin/env python3
"""ZooBench's table: one row per architecture, one column group per target, from the
deploybench.json files `aipc bench deploy` wrote for the zoo's tasks.

    python3 tests/zoobench/table.py results/<date>/<run>/*.json > table.md

Each cell: deployed (✔) or the stage it failed at with the signature it ended on; then repairs,
model turns, export and build time, FP32 and INT8 p50, INT8 cosine and top-1 agreement against
eager, task accuracy (artifact / eager) and, on ExecuTorch, the delegated share of compute ops.
"""
import json
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"ort": "onnxruntime-cpu", "et": "executorch-xnnpack"}


def num(v, fmt):
    return "–" if v is None else format(v, fmt)


def cell(run):
    if run is None:
        return ["not run"] + ["–"] * 8
    f = run.get("figures", {})
    outcome = "✔ deployed" if run["success"] else f"✘ {run['stage_reached']}"
    if not run["success"] and f.get("signature"):
        outcome += f" · `{f['signature']}`"
    if run["outcome"] == "error":
        outcome = f"error: {run.get('note', '')[:80]}"
    acc = "–"
    if f.get("task_acc") is not None:
        acc = num(f.get("task_acc"), ".3f") + (f" / {f['task_acc_eager']:.3f}" if f.get("task_acc_eager") is not None else "")
    return [outcome, f"{run['repair_attempts']} / {run['model_turns']}",
            f"{num(f.get('export_s'), '.0f')} / {num(f.get('build_s'), '.0f')} s",
            f"{num(f.get('fp32_p50_ms'), '.2f')} / {num(f.get('int8_p50_ms'), '.2f')} ms",
            num(f.get("cosine"), ".4f"), num(f.get("top1_agreement"), ".3f"), acc,
            num(f.get("delegated_ratio"), ".3f"), f"{run['wall_s']:.0f} s"]


def main():
    runs = {}
    for path in sys.argv[1:]:
        for run in json.loads(Path(path).read_text())["runs"]:
            runs[run["task"]] = run
    with open(HERE / "zoo.toml", "rb") as f:
        zoo = tomllib.load(f)["arch"]
    head = ["outcome", "repairs / turns", "export / build", "FP32 / INT8 p50", "cosine", "top-1",
            "task acc", "delegated", "wall"]
    print("| architecture | kind | target | " + " | ".join(head) + " |")
    print("|" + "---|" * (3 + len(head)))
    counts = {t: [0, 0] for t in TARGETS}
    for arch in zoo:
        for short, target in TARGETS.items():
            run = runs.get(f"{arch['name']}-{short}")
            if run is not None:
                counts[short][1] += 1
                counts[short][0] += int(run["success"])
            print(f"| {arch['name']} | {arch.get('kind', 'image')} | {target} | " + " | ".join(cell(run)) + " |")
    total = [sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())]
    print()
    for short, (ok, n) in counts.items():
        print(f"- {TARGETS[short]}: {ok} of {n} deployed")
    if total[1]:
        print(f"- all pairs: {total[0]} of {total[1]} deployed ({100 * total[0] / total[1]:.0f}%)")


if __name__ == "__main__":
    main()

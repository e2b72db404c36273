#!/usr/bin/env python3
"""Verify DeployBench tasks without a model: for each task (tests/deploybench/tasks/<name>/), run
its project (with its overlay) through the target's stages with toolbox/tests/run_examples.py,
twice:

1. **fault**: the stages' default tool calls only (export in `export`, quantize in `build`); the
   first failing stage must be `[fault] stage` of the task's verify.toml and its output must
   contain every `[fault] shows` text (an `aipc-warning:` line, a gate failure, an error);
   a task without `[fault]` must pass every stage here (a clean task);
2. **repair**: the `[repair] calls` (STAGE:TOOL:JSON, as run_examples --call; `edit_file` is
   emulated) instead of the default calls of their stages; every stage must pass.

With --engine AIPC (the aipc binary), each task instead runs through the real engine, the way
`aipc bench deploy` runs it (a copy of the project with the overlay, `aipc run --batch`), with
the scripted model `tests/deploybench/scripts/<task>.jsonl` making the repair calls; the session
must end `deployed`, and for a task with a fault, the first evidence the stage `[fault] stage`
collected must be `[fault] signature` (a repair in several steps collects more after it).

verify.toml and the scripts are for this script and the task README only: `aipc bench deploy`
reads task.toml and judges a run by the session's own gates, never by these files.

    python3 tests/deploybench/verify_tasks.py                 # every task, both runs (slow: minutes per task)
    python3 tests/deploybench/verify_tasks.py 'opset-*' --only repair
    python3 tests/deploybench/verify_tasks.py 'latency-*' --engine ~/.cache/aipc/target/debug/aipc
Exits 1 when a task does not behave as its verify.toml says.
"""
import argparse
import fnmatch
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "tests" / "deploybench" / "tasks"
sys.path.insert(0, str(ROOT / "toolbox" / "tests"))

import run_examples  # noqa: E402


def load(task_dir):
    with open(task_dir / "task.toml", "rb") as f:
        task = tomllib.load(f)
    verify_path = task_dir / "verify.toml"
    verify = tomllib.load(open(verify_path, "rb")) if verify_path.exists() else {}
    project = task_dir / task["project"]
    if not project.is_dir():
        project = ROOT / task["project"]
    overlay = task_dir / task["overlay"] if task.get("overlay") else None
    return task, verify, project, overlay


def run(project, target, overlay, calls, json_path=None):
    args = SimpleNamespace(example=str(project), target=target, call=calls, keep_going=False, in_place=False,
                           keep=False, json=json_path, save_failures=None, overlay=str(overlay) if overlay else None)
    runner = run_examples.Runner(args)
    code = runner.run()
    return code, runner


def verify(task_dir, only, steps_dir=None):
    task, spec, project, overlay = load(task_dir)
    target = task["target"]
    results = []
    fault = spec.get("fault")
    if only in (None, "fault") and fault is not None:
        print(f"\n=== {task_dir.name}: fault run ({target})")
        t0 = time.monotonic()
        _, r = run(project, target, overlay, [], steps_dir and str(Path(steps_dir) / f"{task_dir.name}.fault.json"))
        problems = []
        if r.failed_stage != fault["stage"]:
            problems.append(f"first failing stage {r.failed_stage!r}, expected {fault['stage']!r}")
        for text in fault.get("shows", []):
            if text not in r.fail_text:
                problems.append(f"the failing stage's output lacks {text!r}")
        results.append((task_dir.name, "fault", not problems, problems, time.monotonic() - t0))
    if only in (None, "repair"):
        calls = spec.get("repair", {}).get("calls", [])
        print(f"\n=== {task_dir.name}: {'repair' if fault else 'clean'} run ({target})" + "".join(f"\n    --call {c}" for c in calls))
        t0 = time.monotonic()
        code, r = run(project, target, overlay, calls, steps_dir and str(Path(steps_dir) / f"{task_dir.name}.repair.json"))
        expect = task.get("expect", {}).get("stages")
        if expect:
            passed = {row["stage"] for row in r.rows if row["ok"]} - {row["stage"] for row in r.rows if not row["ok"]}
            missing = [s for s in expect if s not in passed]
            problems = [f"stages not passed: {missing}"] if missing else []
        else:
            problems = [] if code == 0 else [f"stage {r.failed_stage!r} failed"]
        results.append((task_dir.name, "repair" if fault else "clean", not problems, problems, time.monotonic() - t0))
    return results


def engine(task_dir, exe):
    """One scripted session through the real engine; returns [(name, "engine", ok, problems, secs)]."""
    task, spec, project, overlay = load(task_dir)
    script = ROOT / "tests" / "deploybench" / "scripts" / f"{task_dir.name}.jsonl"
    print(f"\n=== {task_dir.name}: scripted session ({task['target']}, {script.relative_to(ROOT)})")
    t0 = time.monotonic()
    problems = []
    with tempfile.TemporaryDirectory(prefix=f"aipc-{task_dir.name}-") as tmp:
        copy = Path(tmp) / "project"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns("build", "__pycache__", ".aipc", ".git"))
        if overlay:
            shutil.copytree(overlay, copy, dirs_exist_ok=True)
        p = subprocess.run([exe, "--data-dir", str(ROOT), "run", str(copy), "--batch", "--no-toolchain-setup",
                            "--target", task["target"], "--model", f"scripted:{script}"],
                           capture_output=True, text=True)
        last = (p.stdout.strip().splitlines() or [""])[-1].strip()
        if not last.endswith("report.md"):
            problems.append(f"no report (exit {p.returncode}): {p.stderr.strip().splitlines()[-3:]}")
        else:
            report = json.loads(Path(last).with_name("report.json").read_text())
            stages = {st["name"]: st for st in report.get("stages", [])}
            if report.get("outcome") != "deployed":
                problems.append(f"outcome {report.get('outcome')} (exit {p.returncode})")
            for name, st in stages.items():
                ev = (st.get("last_evidence") or {}).get("signature")
                print(f"  {name:<12} {st.get('status')}, attempts {st.get('attempts')}"
                      + (f", checks first {st.get('checks_first')}" if st.get("checks_first") else "")
                      + (f", evidence {ev}" if ev else ""))
            fault = spec.get("fault")
            if fault:
                # The fault is the stage's first evidence; a repair in several steps may collect more.
                events = Path(last).with_name("events.jsonl").read_text().splitlines()
                got = next((e["evidence"].get("signature") for e in map(json.loads, events)
                            if e.get("type") == "evidence_collected" and e.get("stage") == fault["stage"]), None)
                if got != fault.get("signature"):
                    problems.append(f"stage {fault['stage']}: evidence {got!r}, expected {fault.get('signature')!r}")
            else:
                failed = [n for n, st in stages.items() if st.get("last_evidence")]
                if failed:
                    problems.append(f"a clean task collected evidence in {failed}")
    return [(task_dir.name, "engine", not problems, problems, time.monotonic() - t0)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pattern", nargs="?", default="*", help="task name glob (default: every task)")
    ap.add_argument("--only", choices=["fault", "repair"], help="run one of the two runs")
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    ap.add_argument("--steps-dir", metavar="DIR", help="write each run's steps and metrics (run_examples --json) into DIR")
    ap.add_argument("--engine", metavar="AIPC", help="run scripted sessions through this aipc binary instead")
    a = ap.parse_args()
    dirs = sorted(d for d in TASKS.iterdir() if (d / "task.toml").exists() and fnmatch.fnmatch(d.name, a.pattern))
    if not dirs:
        sys.exit(f"error: no task in {TASKS} matches {a.pattern!r}")
    if a.steps_dir:
        Path(a.steps_dir).mkdir(parents=True, exist_ok=True)
    if a.engine:
        results = [r for d in dirs for r in engine(d, a.engine)]
    else:
        results = [r for d in dirs for r in verify(d, a.only, a.steps_dir)]
    print(f"\n{'task':<28} {'run':<7} {'result':<7} {'wall s':>7}  notes")
    for name, kind, ok, problems, secs in results:
        print(f"{name:<28} {kind:<7} {'ok' if ok else 'FAILED':<7} {secs:>7.1f}  {'; '.join(problems)}")
    if a.json:
        Path(a.json).write_text(json.dumps([{"task": n, "run": k, "ok": ok, "problems": p, "wall_s": round(s, 1)}
                                            for n, k, ok, p, s in results], indent=1))
    sys.exit(0 if all(ok for _, _, ok, _, _ in results) else 1)


if __name__ == "__main__":
    main()

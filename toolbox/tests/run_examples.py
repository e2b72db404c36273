#!/usr/bin/env python3
"""Run the happy path of one example on one target through the toolbox, the way a session would
without a model: for every stage of the target's contract (merged with the example's aipc.toml),
make the stage's first tool calls (export in `export`, quantize in `build`, or the calls given
with --call), then run the stage's checks and evaluate their gates like the engine does
(docs/contract.md: last JSON line of stdout, nested keys flattened with `.`, booleans 1/0).

Exits 0 when every stage passes, 1 at the first failing stage (or, with --keep-going, at the
end), 2 on usage errors. Prints a timing table (wall time per tool call and check) and can write
it as JSON (--json). The example is copied to a temporary folder first, so fixes that edit
model.py never touch the repository (--in-place to work in the folder itself).

Needs only python3 (3.11+); the toolchains come from ~/.cache/aipc/toolchains/<target>/venv
(or $AIPC_VENV). Examples (from the repository root):

    python3 toolbox/tests/run_examples.py digits-cnn onnxruntime-cpu
    python3 toolbox/tests/run_examples.py digits-branchy executorch-xnnpack \\
        --call 'export:fix_branch_to_where:{"file": "model.py"}' --call export:export
    python3 toolbox/tests/run_examples.py digits-calib-outlier onnxruntime-cpu \\
        --call 'build:quantize:{"drop_outliers": true}'

--save-failures DIR writes the output of a failing tool call or check (stdout, then stderr: what
the engine's classifier reads) to DIR/<example>.<target>.<script>.txt.

`edit_file` and `set_project_option` (the engine's built-in tools) are emulated for --call:
edit_file's `search` text must occur exactly once in `path` (no whitespace-tolerant matching),
e.g.
    --call 'inspect:set_project_option:{"key": "opset", "value": 18}'
--overlay DIR copies DIR's files over the copy (a DeployBench task's overlay); tests/deploybench/
verify_tasks.py runs the tasks this way.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLBOX = ROOT / "toolbox"
sys.path.insert(0, str(TOOLBOX / "lib"))  # aipc_toolbox, as the scripts get it from PYTHONPATH
DEFAULT_ACTIONS = {"export": [("export", {})], "build": [("quantize", {})]}
GATE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(>=|<=|==|!=|>|<)\s*([-+0-9.eE]+)\s*(%?)\s*$")
WHEN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(==|!=)\s*(.+?)\s*$")


def venv_dir(target):
    if os.environ.get("AIPC_VENV"):
        return Path(os.environ["AIPC_VENV"])
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "aipc" / "toolchains" / target / "venv"


def environment(target):
    venv = venv_dir(target)
    if not (venv / "bin" / "python").exists():
        sys.exit(f"error: no venv for {target} at {venv}: run `aipc toolchain setup {target}` (or set AIPC_VENV)")
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    env.update({
        "PATH": f"{venv / 'bin'}:{env.get('PATH', '')}",
        "VIRTUAL_ENV": str(venv),
        "AIPC_TARGET_DIR": str(TOOLBOX / "targets" / target),
        "AIPC_TOOLBOX": str(TOOLBOX),
        "PYTHONPATH": f"{TOOLBOX / 'lib'}" + (f":{env['PYTHONPATH']}" if env.get("PYTHONPATH") else ""),
        "QNN_SDK_ROOT": "",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


def stages_of(target, project):
    """The target's stages with the project's patches merged (checks by name; added stages)."""
    with open(TOOLBOX / "targets" / target / "contract.toml", "rb") as f:
        stages = tomllib.load(f).get("stage", [])
    path = project / "aipc.toml"
    patches = tomllib.load(open(path, "rb")).get("stage", []) if path.exists() else []
    by_name = {s["name"]: s for s in stages}
    for p in patches:
        if p["name"] in by_name:
            s = by_name[p["name"]]
            checks = {c["name"]: i for i, c in enumerate(s.get("check", []))}
            for c in p.get("check", []):
                if c["name"] in checks:
                    s["check"][checks[c["name"]]] = c
                else:
                    s.setdefault("check", []).append(c)
            for k, v in p.items():
                if k not in ("check", "name"):
                    s[k] = v
        else:
            at = next((i + 1 for i, s in enumerate(stages) if s["name"] == p.get("after")), len(stages))
            stages.insert(at, p)
            by_name[p["name"]] = p
    return stages


def when_holds(when, project):
    """A check's `when` on the [project] table, as the engine reads it (docs/contract.md): a key
    the table does not set equals nothing; numbers compare by value."""
    m = WHEN.match(when)
    if not m:
        raise ValueError(f"bad condition {when!r}")
    key, op, literal = m.groups()
    value = tomllib.loads(f"v = {literal}")["v"]
    have = project.get(key, _UNSET)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (have, value))
    equal = have is not _UNSET and (have == value if numbers else (type(have) is type(value) and have == value))
    return equal if op == "==" else not equal


_UNSET = object()


def project_table(work):
    """aipc.toml's [project] table as it is now (checks read it each time they are about to run)."""
    path = work / "aipc.toml"
    try:
        return tomllib.load(open(path, "rb")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def manifest(target):
    from aipc_toolbox import args  # the manifest reader of the scripts: follows [[include]]

    return {t["name"]: t for t in args.load_manifest(TOOLBOX / "targets" / target / "toolbox.toml")}


def last_json(stdout):
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif isinstance(v, bool):
            out[key] = 1.0 if v else 0.0
        elif isinstance(v, (int, float)):
            out[key] = float(v)
    return out


def gate_ok(gate, metrics):
    m = GATE.match(gate)
    if not m:
        raise SystemExit(f"error: bad gate {gate!r}")
    name, op, num, pct = m.groups()
    want = float(num) / (100 if pct else 1)
    got = metrics.get(name)
    if got is None:
        return False, "metric not printed"
    ok = {">=": got >= want, "<=": got <= want, ">": got > want, "<": got < want, "==": got == want, "!=": got != want}[op]
    return ok, f"measured {got:g}"


class Runner:
    def __init__(self, args):
        self.args, self.rows, self.failed = args, [], False
        self.failed_stage, self.fail_text = None, ""  # the first failing stage and its checks' output
        self.example = Path(args.example) if "/" in args.example else ROOT / "examples" / args.example
        if not (self.example / "aipc.toml").exists():
            sys.exit(f"error: {self.example} has no aipc.toml")
        self.name = self.example.name
        self.env = environment(args.target)
        self.tools = manifest(args.target)

    def save(self, script, out, err):
        if not self.args.save_failures:
            return
        os.makedirs(self.args.save_failures, exist_ok=True)
        path = Path(self.args.save_failures) / f"{self.name}.{self.args.target}.{Path(script).stem}.txt"
        path.write_text(out + err)
        print(f"    saved {path}")

    def execute(self, argv, shell=False):
        t0 = time.monotonic()
        p = subprocess.run(argv, cwd=self.work, env=self.env, shell=shell, capture_output=True, text=True,
                           executable="/bin/bash" if shell else None)
        return p, time.monotonic() - t0

    def edit_file(self, stage, args):
        """The engine's edit_file, exact matches only: replace the one occurrence of `search`."""
        path = self.work / args["path"]
        text = path.read_text() if path.is_file() else ""
        count = text.count(args["search"]) if args["search"] else 0
        ok = count == 1
        if ok:
            path.write_text(text.replace(args["search"], args["replace"], 1))
        self.rows.append({"stage": stage, "step": f"edit_file {args['path']}", "script": "edit_file", "wall_s": 0.0,
                          "ok": ok, "metrics": {}})
        print(f"  [{stage}] edit_file {json.dumps(args)} -> {'ok' if ok else f'FAILED ({count} matches)'}")
        return ok

    def set_project_option(self, stage, args):
        """An emulation of the engine's set_project_option (which edits with toml_edit): set
        `key` in aipc.toml's [project] table to the JSON `value`, keeping a trailing comment;
        enough for the verification runs, not a TOML editor."""
        path = self.work / "aipc.toml"
        lines = path.read_text().splitlines(keepends=True)
        value = json.dumps(args["value"])
        in_project, done, header = False, False, None
        for i, line in enumerate(lines):
            stripped = line.strip()
            if stripped.startswith("["):
                in_project = stripped.split("#")[0].strip() == "[project]"
                header = i if in_project else header
                continue
            m = re.match(rf"(\s*{re.escape(args['key'])}\s*=\s*)([^#\n]*?)(\s*(#.*)?)$", line.rstrip("\n"))
            if in_project and m:
                lines[i] = m.group(1) + value + m.group(3) + "\n"
                done = True
                break
        if not done and header is not None:
            lines.insert(header + 1, f"{args['key']} = {value}\n")
            done = True
        if done:
            path.write_text("".join(lines))
        self.rows.append({"stage": stage, "step": f"set_project_option {args['key']}", "script": "set_project_option",
                          "wall_s": 0.0, "ok": done, "metrics": {}})
        print(f"  [{stage}] set_project_option {json.dumps(args)} -> {'ok' if done else 'FAILED (no [project] table)'}")
        return done

    def call(self, stage, tool, args):
        if tool == "edit_file":
            return self.edit_file(stage, args)
        if tool == "set_project_option":
            return self.set_project_option(stage, args)
        entry = self.tools.get(tool)
        if entry is None:
            sys.exit(f"error: tool {tool!r} is not in {self.args.target}'s toolbox.toml ({', '.join(self.tools)})")
        script = (TOOLBOX / "targets" / self.args.target / entry["script"]).resolve()
        p, secs = self.execute(["python", str(script), "--args-json", json.dumps(args)])
        res = last_json(p.stdout) or {}
        ok = p.returncode == 0 and res.get("ok") is True
        self.rows.append({"stage": stage, "step": f"{tool} {json.dumps(args) if args else ''}".strip(),
                          "script": script.name, "wall_s": round(secs, 2), "ok": ok, "metrics": flatten(res)})
        warn = [l for l in p.stdout.splitlines() if l.startswith("aipc-warning:")]
        print(f"  [{stage}] {tool} {json.dumps(args) if args else ''} -> {'ok' if ok else 'FAILED'} ({secs:.1f} s)")
        for w in warn:
            print(f"    {w}")
        if not ok:
            self.fail_text += p.stdout + p.stderr
            tail = (p.stdout + p.stderr).strip().splitlines()[-12:]
            print("    " + "\n    ".join(tail))
            self.save(script.name, p.stdout, p.stderr)
        return ok

    def check(self, stage, c):
        ok, why = True, []
        out = err = ""
        metrics = {}
        secs = 0.0
        script = c.get("command", "")
        if c.get("command"):
            p, secs = self.execute(c["command"], shell=True)
            out, err = p.stdout, p.stderr
            if p.returncode != c.get("expect_exit", 0):
                ok = False
                why.append(f"exit {p.returncode} (expected {c.get('expect_exit', 0)})")
            res = last_json(out)
            metrics = flatten(res) if res else {}
            for g in c.get("gates", []):
                passed, detail = gate_ok(g, metrics)
                if not passed:
                    ok = False
                    why.append(f"aipc-gate-failed: {c['name']}: {g} ({detail})")
            words = shlex.split(c["command"])
            script = next((w for w in words if w.endswith(".py")), words[0])
        for pattern in c.get("files", []):
            if not glob.glob(str(self.work / pattern)):
                ok = False
                why.append(f"missing file {pattern}")
        self.rows.append({"stage": stage, "step": f"check: {c['name']}", "script": Path(os.path.expandvars(script)).name,
                          "wall_s": round(secs, 2), "ok": ok, "metrics": metrics if c.get("command") else {}})
        print(f"  [{stage}] check {c['name']!r} -> {'PASS' if ok else 'FAIL'} ({secs:.1f} s)")
        for w in why:
            print(f"    {w}")
        if not ok:
            self.fail_text += out + err + "".join(w + "\n" for w in why)
            if not any(w.startswith("aipc-gate-failed") for w in why) and (out or err):
                print("    " + "\n    ".join((out + err).strip().splitlines()[-12:]))
            self.save(Path(os.path.expandvars(script)).name, out, err)
        return ok

    def run(self):
        calls = {}
        for spec in self.args.call:
            stage, tool, *rest = spec.split(":", 2)
            calls.setdefault(stage, []).append((tool, json.loads(rest[0]) if rest else {}))
        tmp = None
        if self.args.in_place:
            self.work = self.example
        else:
            tmp = tempfile.mkdtemp(prefix=f"aipc-{self.name}-")
            self.work = Path(tmp) / self.name
            shutil.copytree(self.example, self.work, ignore=shutil.ignore_patterns("build", "__pycache__", ".aipc"))
        if self.args.overlay:
            shutil.copytree(self.args.overlay, self.work, dirs_exist_ok=True)
        print(f"{self.name} on {self.args.target} in {self.work}")
        t0 = time.monotonic()
        try:
            for st in stages_of(self.args.target, self.work):
                checks = st.get("check", [])
                project = project_table(self.work)
                if checks and not any(when_holds(c["when"], project) if "when" in c else True for c in checks):
                    print(f"  [{st['name']}] skipped: no check applies (their `when`)")
                    continue
                actions = calls.get(st["name"], DEFAULT_ACTIONS.get(st["name"], []))
                stage_ok = all(self.call(st["name"], tool, a) for tool, a in actions)
                for c in checks:
                    if "when" in c and not when_holds(c["when"], project_table(self.work)):
                        print(f"  [{st['name']}] check {c['name']!r} -> skipped (applies when {c['when']})")
                        continue
                    stage_ok = self.check(st["name"], c) and stage_ok
                if not stage_ok:
                    self.failed = True
                    self.failed_stage = self.failed_stage or st["name"]
                    print(f"stage {st['name']!r} FAILED")
                    if not self.args.keep_going:
                        break
        finally:
            total = time.monotonic() - t0
            if tmp and not self.args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
        print(f"\n{'stage':<12} {'step':<58} {'wall s':>7}  result")
        for r in self.rows:
            print(f"{r['stage']:<12} {r['step'][:58]:<58} {r['wall_s']:>7.2f}  {'ok' if r['ok'] else 'FAIL'}")
        print(f"{'total':<12} {'':<58} {total:>7.2f}  {'FAILED' if self.failed else 'all stages passed'}")
        if self.args.json:
            Path(self.args.json).write_text(json.dumps({"example": self.name, "target": self.args.target,
                                                        "passed": not self.failed, "total_s": round(total, 2),
                                                        "steps": self.rows}, indent=1))
        return 1 if self.failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("example", help="example name (examples/<name>) or a project path")
    ap.add_argument("target", choices=sorted(p.parent.name for p in (TOOLBOX / "targets").glob("*/toolbox.toml")))
    ap.add_argument("--call", action="append", default=[], metavar="STAGE:TOOL[:JSON]",
                    help="tool call to make in STAGE instead of its default ones (repeatable, in order)")
    ap.add_argument("--keep-going", action="store_true", help="run the later stages after a failure")
    ap.add_argument("--in-place", action="store_true", help="work in the example folder itself (build/ is written there)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy")
    ap.add_argument("--overlay", metavar="DIR", help="copy DIR's files over the project copy (a DeployBench task's overlay)")
    ap.add_argument("--json", metavar="FILE", help="write the steps and timings as JSON")
    ap.add_argument("--save-failures", metavar="DIR", help="save failing steps' output as DIR/<example>.<target>.<script>.txt")
    sys.exit(Runner(ap.parse_args()).run())


if __name__ == "__main__":
    main()

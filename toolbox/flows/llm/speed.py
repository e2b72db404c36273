"""decoder-LLM flow, tool `llm_speed`: prefill and decode tokens/s and peak memory of the FP32
program and of the quantized one (aipc.toml llm_quant, when built), each in a fresh process at the
project's threads, median of 3. When aipc.toml llm_gguf names the same weights as a GGUF, llama.cpp
runs them through llama-bench (the one scripts/build-llama-server.sh builds, or $AIPC_LLAMA_BENCH)
with the same threads and token counts, and each program's speed is printed as a ratio to it.

Metrics: measured, threads, prompt_tokens, decode_tokens, <fp32|quant>_prefill_tps,
<fp32|quant>_decode_tps, <fp32|quant>_peak_rss_mb, llama_cpp_prefill_tps, llama_cpp_decode_tps,
<fp32|quant>_decode_ratio, <fp32|quant>_prefill_ratio, llama_cpp (what was compared, or why not).
"""
import glob
import json
import os
import subprocess
import sys

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError, note, rel
from aipc_toolbox.project import Project

import llmlib

REPEATS = 3


def run_child(path, cache_len, threads, n_prompt, n_decode):
    cmd = [sys.executable, os.path.join(llmlib.HERE, "speed_child.py"), path, str(cache_len), str(threads),
           str(n_prompt), str(n_decode), str(REPEATS)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-12:])
        raise ToolError(f"measuring {rel(path)} failed (exit {done.returncode}):\n{tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def llama_bench_path():
    given = os.environ.get("AIPC_LLAMA_BENCH")
    if given:
        return given if os.access(given, os.X_OK) else None
    cache = os.environ.get("AIPC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "aipc")
    found = sorted(glob.glob(os.path.join(cache, "llama.cpp", "llama-cpp-sys-2-*", "bin", "llama-bench")))
    return found[-1] if found else None


def llama_cpp(gguf, threads, n_prompt, n_decode):
    bench = llama_bench_path()
    if bench is None:
        return None, "llama-bench not built (scripts/build-llama-server.sh bench, or set AIPC_LLAMA_BENCH)"
    cmd = [bench, "-m", gguf, "-p", str(n_prompt), "-n", str(n_decode), "-t", str(threads), "-r", str(REPEATS), "-o", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
    if done.returncode != 0:
        return None, f"llama-bench failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:] or ''}"
    try:
        rows = json.loads(done.stdout)
    except json.JSONDecodeError:
        return None, f"llama-bench printed no JSON ({bench} -o json): {done.stdout.strip()[:200]!r}"
    out = {}
    for row in rows:
        if row.get("n_prompt", 0) > 0 and row.get("n_gen", 0) == 0:
            out["prefill_tps"] = round(float(row["avg_ts"]), 2)
        elif row.get("n_gen", 0) > 0 and row.get("n_prompt", 0) == 0:
            out["decode_tps"] = round(float(row["avg_ts"]), 2)
    return out, f"llama.cpp {os.path.basename(gguf)} via {bench}"


def body(a):
    phase = llmlib.Phase()
    p = Project()
    cache_len, threads = p["llm_cache_len"], int(p.get("threads") or 1)
    n_decode = min(64, cache_len // 4)
    n_prompt = min(128, cache_len - n_decode - 1)
    programs = [("fp32", llmlib.artifact_path("none"))]
    if p["llm_quant"] != "none":
        programs.append(("quant", llmlib.artifact_path(p["llm_quant"])))
    fields = {"measured": 1, "threads": threads, "prompt_tokens": n_prompt, "decode_tokens": n_decode,
              "scheme": p["llm_quant"]}
    for name, path in programs:
        if not os.path.isfile(path):
            raise ToolError(f"{path}: not built; {'llm_export' if name == 'fp32' else 'llm_quantize'} builds it")
        m = run_child(path, cache_len, threads, n_prompt, n_decode)
        note(f"{rel(path)}: prefill {m['prefill_tps']:.1f} tok/s ({n_prompt} tokens), decode {m['decode_tps']:.1f} tok/s "
             f"({n_decode} tokens), peak RSS {m['peak_rss_mb']:.0f} MiB, {threads} thread(s)")
        for k, v in m.items():
            fields[f"{name}_{k}"] = v
    gguf = p.get("llm_gguf")
    if gguf:
        gguf = os.path.expanduser(os.path.expandvars(gguf))
        if not os.path.isabs(gguf):
            gguf = os.path.join(p.root, gguf)
        if not os.path.isfile(gguf):
            raise ToolError(f"{p._where('llm_gguf')}: llm_gguf = {p['llm_gguf']!r}: no such file")
        ref, what = llama_cpp(gguf, threads, n_prompt, n_decode)
        fields["llama_cpp"] = what
        if ref:
            for k, v in ref.items():
                fields[f"llama_cpp_{k}"] = v
            for name, _ in programs:
                for kind in ("prefill", "decode"):
                    if ref.get(f"{kind}_tps"):
                        fields[f"{name}_{kind}_ratio"] = round(fields[f"{name}_{kind}_tps"] / ref[f"{kind}_tps"], 3)
            note(f"{what}: prefill {ref.get('prefill_tps')} tok/s, decode {ref.get('decode_tps')} tok/s; ratios "
                 + ", ".join(f"{k}={v}" for k, v in fields.items() if k.endswith("_ratio")))
        else:
            note(f"no llama.cpp comparison: {what}")
    else:
        fields["llama_cpp"] = "aipc.toml sets no llm_gguf"
    fields.update(phase.fields())
    llmlib.record("speed", fields)
    return fields


if __name__ == "__main__":
    emit.main("llm_speed", __file__, "speed", body)

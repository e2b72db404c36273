"""decoder-LLM flow, the report stage: the phase table (build/llm_report.md) from the phases'
records in build/llm_*.json: every gate's values, wall time and peak memory per phase, speed and
the llama.cpp ratios; and build/report.json with the artifacts and their hashes.

Metrics: phases (records found), artifacts.
"""
import glob
import json
import os

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project
from aipc_toolbox.report import sha256

import llmlib

ROWS = [
    ("reference", "reference", lambda r: f"FP32 ppl {r['ppl_fp32']:.3f}; {r['prompts']} prompts, {r['decode_prompts']} decoded; "
                                         f"{r['params_m']} M params ({r['model_type']})"),
    ("export (FP32)", "export_none", lambda r: f"{r['artifact_mb']} MiB ({r.get('weights_mb')} MiB of weights"
                                              f"{', tied embeddings stored twice' if r.get('tied_embeddings') and r['artifact_mb'] > 1.3 * r.get('weights_mb', 1e9) else ''}), cache {r['cache_len']}, "
                                              f"{r['delegate_calls']} delegate calls, {r['portable_ops']} portable ops"),
    ("prefill parity", "prefill_none", lambda r: f"cosine min {r['prefill_cosine_min']:.5f}, top-1 all equal: "
                                                f"{'yes' if r['prefill_top1_match'] else 'no'}"),
    ("decode parity", "decode_none", lambda r: f"{r['decode_prompts']} x {r['tokens']} greedy tokens identical: "
                                              f"{'yes' if r['decode_match'] else 'no, first at ' + json.dumps(r['first_divergence'])}"),
    ("quantize", "export_{quant}", lambda r: f"{r['scheme']} g{r['group_size']}: {r['artifact_mb']} MiB"),
    ("quantized quality", "quality", lambda r: f"ppl {r['ppl_quant']:.3f} vs {r['ppl_fp32']:.3f} ({r['ppl_increase_pct']:+.2f} %, "
                                               f"budget {r['budget_pct']:g} %); greedy agreement {r['agreement']:.2f}; "
                                               f"prefill cosine min {r['prefill_cosine_min']:.4f}"),
    ("speed", "speed", lambda r: speed_text(r)),
]


def speed_text(r):
    parts = []
    for name in ("fp32", "quant"):
        if f"{name}_decode_tps" in r:
            ratio = r.get(f"{name}_decode_ratio")
            pratio = r.get(f"{name}_prefill_ratio")
            parts.append(f"{name}: prefill {r[f'{name}_prefill_tps']:.1f} tok/s"
                         + (f" ({pratio:.2f}x llama.cpp)" if pratio else "")
                         + f", decode {r[f'{name}_decode_tps']:.1f} tok/s" + (f" ({ratio:.2f}x llama.cpp)" if ratio else "")
                         + f", peak {r[f'{name}_peak_rss_mb']:.0f} MiB")
    if "llama_cpp_decode_tps" in r:
        parts.append(f"llama.cpp: prefill {r.get('llama_cpp_prefill_tps')} tok/s, decode {r['llama_cpp_decode_tps']} tok/s")
    else:
        parts.append(f"llama.cpp: {r.get('llama_cpp')}")
    return f"{r['threads']} thread(s), {r['prompt_tokens']}-token prompt, {r['decode_tokens']} decoded; " + "; ".join(parts)


def body(a):
    p = Project()
    lines = ["| phase | gate values | wall s | peak RSS MiB |", "|---|---|---|---|"]
    found = 0
    for title, name, text in ROWS:
        path = os.path.join(llmlib.BUILD, f"llm_{name.format(quant=p['llm_quant'])}.json")
        if not os.path.isfile(path):
            lines.append(f"| {title} | not run | | |")
            continue
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        found += 1
        try:
            values = text(r)
        except (KeyError, TypeError) as e:
            values = f"record incomplete ({e})"
        lines.append(f"| {title} | {values} | {r.get('phase_s', '')} | {r.get('peak_rss_mb', '')} |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(llmlib.BUILD, "llm_report.md"), "w", encoding="utf-8") as f:
        f.write("# Decoder-LLM deployment: phase table\n\n" + table)
    note(table)
    artifacts = [{"path": path, "bytes": os.path.getsize(path), "sha256": sha256(path)}
                 for path in sorted(glob.glob(os.path.join(llmlib.BUILD, "*.pte")))]
    with open(os.path.join(llmlib.BUILD, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"artifacts": artifacts, "phase_table": table}, f, indent=1)
    return {"phases": found, "artifacts": len(artifacts)}


if __name__ == "__main__":
    emit.main("report", __file__, "report", body)

"""decoder-LLM flow, tool `quant_sweep`: build every quantization scheme of SCHEMES and measure
each against FP32 on the bundled text (perplexity increase, greedy agreement, size), then name
the smallest program within llm_ppl_budget_pct. The programs are built in build/sweep/ and
removed after measuring, so build/ keeps what llm_quantize built; aipc.toml is not changed (the
choice is recorded with set_project_option, then llm_quantize builds it).

Metrics: measured (rows: scheme, group_size, artifact_mb, ppl_quant, ppl_increase_pct, agreement,
lowering_cosine, passes: within the budget and the program computes what the quantized model does),
passing, best, best_group_size, budget_pct.
"""
import json
import os
import shutil

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import decode
import export
import llmlib

# (scheme, group size): int8 dynamic activations with int4 or int8 weights, weight-only int8 per
# output channel, weight-only int4 in groups of 32.
SCHEMES = [("8da4w", 32), ("8da8w", 0), ("8w", 0), ("4w", 32)]
# The sweep's programs: apart from build/, so that the program aipc.toml's scheme names (and
# its record) is never replaced by a build with another group size.
SCRATCH = os.path.join(llmlib.BUILD, "sweep")


def body(a):
    p = Project()
    ref = llmlib.load_reference()
    budget = float(p["llm_ppl_budget_pct"])
    rows = []
    shutil.rmtree(SCRATCH, ignore_errors=True)
    for scheme, group in SCHEMES:
        built = export.build(p, scheme, group, SCRATCH)
        prog = llmlib.Program(llmlib.artifact_path(scheme, SCRATCH), p["llm_cache_len"])
        ppl = prog.perplexity(ref["windows"])
        del prog
        dec = decode.measure(p, scheme, path=llmlib.artifact_path(scheme, SCRATCH))
        increase = 100.0 * (ppl / ref["ppl_fp32"] - 1.0)
        rows.append({"scheme": scheme, "group_size": group, "artifact_mb": built["artifact_mb"], "ppl_quant": round(ppl, 4),
                     "ppl_increase_pct": round(increase, 3), "agreement": dec["agreement"], "lowering_cosine": built["lowering_cosine"],
                     "passes": int(abs(increase) <= budget and built["lowering_cosine"] >= export.LOWERING_COSINE_MIN)})
    shutil.rmtree(SCRATCH, ignore_errors=True)
    note(f"FP32 perplexity {ref['ppl_fp32']:.3f}; budget ±{budget:g} %")
    note(f"{'scheme':<8} {'group':>5} {'MiB':>8} {'ppl':>10} {'increase %':>11} {'agreement':>10} {'lowering':>9}  passes")
    for r in rows:
        note(f"{r['scheme']:<8} {r['group_size']:>5} {r['artifact_mb']:>8.1f} {r['ppl_quant']:>10.4g} "
             f"{r['ppl_increase_pct']:>+11.4g} {r['agreement']:>10.2f} {r['lowering_cosine']:>9.4f}  {'yes' if r['passes'] else 'no'}")
    passing = [r for r in rows if r["passes"]]
    best = min(passing, key=lambda r: (r["artifact_mb"], r["ppl_increase_pct"])) if passing else None
    if best:
        emit.warn("quant scheme chosen", f"the smallest program within the perplexity budget is scheme "
                  f"{json.dumps(best['scheme'])} group {best['group_size']} ({best['artifact_mb']} MiB, "
                  f"{best['ppl_increase_pct']:+.2f} %): record it with set_project_option llm_quant and llm_group_size, "
                  "then llm_quantize {}")
    else:
        emit.warn("quant exhausted", f"no quantization scheme of this toolbox keeps the perplexity within ±{budget:g} % "
                  "of FP32; a human decides (a larger budget, keeping the model in FP32 with llm_quant = \"none\", or "
                  "quantization-aware training)")
    return {"measured": rows, "passing": [r["scheme"] for r in passing], "best": best["scheme"] if best else None,
            "best_group_size": best["group_size"] if best else None, "budget_pct": budget}


if __name__ == "__main__":
    emit.main("quant_sweep", __file__, "quantize", body)

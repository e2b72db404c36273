"""decoder-LLM flow, tool `quant_quality`: the quantized program (aipc.toml llm_quant, or
`scheme`) against FP32: perplexity on the bundled text through the runtime, in the reference's
windows, within llm_ppl_budget_pct of the eager FP32 perplexity; greedy agreement with eager and
prefill parity reported. scheme_matches says the program was built with aipc.toml's scheme and
group size.

Metrics: ppl_fp32, ppl_quant, ppl_increase_pct, within_budget, budget_pct, agreement,
prefill_cosine_min, prefill_top1_match, scheme, group_size, scheme_matches, artifact_mb.
"""
import json
import os

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError, note
from aipc_toolbox.project import Project

import decode
import llmlib
import prefill


def body(a):
    phase = llmlib.Phase()
    p = Project()
    scheme = a.get("scheme") or p["llm_quant"]
    if scheme == "none":
        note(f"{p._where('llm_quant')}: llm_quant = \"none\": the FP32 program is the one deployed; nothing to measure")
        fields = {"scheme": "none", "within_budget": 1, "scheme_matches": 1}
        fields.update(phase.fields())
        return fields
    built_path = os.path.join(llmlib.BUILD, f"llm_export_{scheme}.json")
    if not os.path.isfile(built_path):
        raise ToolError(f"{llmlib.artifact_path(scheme)}: not built; call llm_quantize first")
    with open(built_path, encoding="utf-8") as f:
        built = json.load(f)
    ref = llmlib.load_reference()
    prog = llmlib.Program(llmlib.artifact_path(scheme), p["llm_cache_len"])
    ppl = prog.perplexity(ref["windows"])
    base = ref["ppl_fp32"]
    increase = 100.0 * (ppl / base - 1.0)
    budget = float(p["llm_ppl_budget_pct"])
    note(f"perplexity on the bundled text: {scheme} g{built['group_size']} {ppl:.3f} against FP32 {base:.3f} "
         f"({increase:+.2f} %, budget {budget:g} %)")
    del prog
    pre = prefill.measure(p, scheme)
    dec = decode.measure(p, scheme)
    matches = int(built["scheme"] == p["llm_quant"] and int(built["group_size"]) == p["llm_group_size"])
    if not matches and abs(increase) > budget:
        emit.warn("quant program stale", f"{llmlib.artifact_path(scheme)} was built as \"{built['scheme']}\" group "
                  f"{built['group_size']}, aipc.toml asks for llm_quant = \"{p['llm_quant']}\", llm_group_size = "
                  f"{p['llm_group_size']}: llm_quantize {{}} builds what aipc.toml says")
    elif not matches:
        emit.warn("quant scheme unrecorded", f"scheme \"{built['scheme']}\" group {built['group_size']} is the program "
                  f"measured, but aipc.toml says llm_quant = \"{p['llm_quant']}\", llm_group_size = {p['llm_group_size']}: "
                  f"record it with set_project_option llm_quant \"{built['scheme']}\" and llm_group_size {built['group_size']}")
    fields = {"scheme": scheme, "group_size": built["group_size"], "ppl_fp32": round(base, 4), "ppl_quant": round(ppl, 4),
              "ppl_increase_pct": round(increase, 3), "budget_pct": budget, "within_budget": int(abs(increase) <= budget),
              "agreement": dec["agreement"], "prefill_cosine_min": pre["prefill_cosine_min"],
              "prefill_top1_match": pre["prefill_top1_match"], "scheme_matches": matches,
              "artifact_mb": built.get("artifact_mb")}
    fields.update(phase.fields())
    llmlib.record("quality", fields)
    return fields


if __name__ == "__main__":
    emit.main("quant_quality", __file__, "quantize", body)

"""decoder-LLM flow, tool `llm_quantize`: build the quantized program (export.py's build with the
Linear layers quantized first) and measure its perplexity on the bundled text against FP32 at
once, so that a scheme tried is a scheme measured. Default: aipc.toml llm_quant and
llm_group_size; the arguments build another scheme without changing aipc.toml: one that meets the
budget is named with the set_project_option calls that record it.

Metrics: as llm_export, plus ppl_quant, ppl_increase_pct, within_budget, recorded (1 when the
scheme built is aipc.toml's).
"""
from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError, note
from aipc_toolbox.project import Project

import export
import llmlib


def body(a):
    p = Project()
    scheme = a.get("scheme") or p["llm_quant"]
    if scheme == "none":
        raise ToolError(f"{p._where('llm_quant')}: llm_quant = \"none\": nothing to quantize; the FP32 program is "
                        "llm_export's. Choose a scheme (8da4w, 8da8w, 8w, 4w) or leave the model in FP32")
    group_size = a.get("group_size")
    group_size = p["llm_group_size"] if group_size is None else int(group_size)
    fields = export.build(p, scheme, group_size)
    ref = llmlib.load_reference()
    ppl = llmlib.Program(llmlib.artifact_path(scheme), p["llm_cache_len"]).perplexity(ref["windows"])
    increase = 100.0 * (ppl / ref["ppl_fp32"] - 1.0)
    budget = float(p["llm_ppl_budget_pct"])
    recorded = int(scheme == p["llm_quant"] and group_size == p["llm_group_size"])
    note(f"perplexity on the bundled text: {scheme} group {group_size}: {ppl:.3f} against FP32 {ref['ppl_fp32']:.3f} "
         f"({increase:+.2f} %, budget {budget:g} %)")
    if abs(increase) > budget:
        emit.warn("quant over budget", f"scheme \"{scheme}\" group {group_size}: perplexity {increase:+.2f} % against FP32, outside "
                  f"+-{budget:g} % (aipc.toml llm_ppl_budget_pct)")
    elif not recorded:
        emit.warn("quant scheme unrecorded", f"scheme \"{scheme}\" group {group_size} meets the budget ({increase:+.2f} %) "
                  f"but aipc.toml says llm_quant = \"{p['llm_quant']}\", llm_group_size = {p['llm_group_size']}: record "
                  f"it with set_project_option llm_quant \"{scheme}\" and llm_group_size {group_size}")
    fields.update({"ppl_quant": round(ppl, 4), "ppl_increase_pct": round(increase, 3), "within_budget": int(abs(increase) <= budget),
                   "recorded": recorded})
    return fields


if __name__ == "__main__":
    emit.main("llm_quantize", __file__, "quantize", body)

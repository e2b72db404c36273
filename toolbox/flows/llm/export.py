"""decoder-LLM flow, tool `llm_export`: export the model with a static KV cache of llm_cache_len
(torch.export, strict, dynamic sequence length) and lower it to ExecuTorch with the XNNPACK
delegate: build/llm_fp32.pte, or build/llm_<scheme>.pte with the Linear layers quantized first
(torchao, as ExecuTorch's LLM export does: aipc.toml llm_quant / llm_group_size, or the arguments).
A phase whose estimated peak memory exceeds what is available stops before it starts.

Metrics: exported, scheme, group_size, artifact, artifact_mb, weights_mb (FP32, unique),
tied_embeddings, delegate_calls, portable_ops, portable_op_names, lowering_cosine (quantized: the program against the quantized eager model on
the first prompt), export_s, lower_s, phase_s, peak_rss_mb.
"""
import os
import time

from aipc_toolbox import emit
from aipc_toolbox.emit import ToolError, note, rel
from aipc_toolbox.project import Project

import llmlib

# A quantized program must compute what the quantized eager model computes (same weights, same
# arithmetic up to kernel rounding).
LOWERING_COSINE_MIN = 0.99


def build(p, scheme, group_size, build_dir=llmlib.BUILD):
    """Build one program into build_dir (default build/) with its record beside it."""
    phase = llmlib.Phase()
    ref = llmlib.load_reference()
    cache_len = p["llm_cache_len"]
    if ref["cache_len"] != cache_len:
        raise ToolError(f"{llmlib.REFERENCE} was made for llm_cache_len = {ref['cache_len']}, aipc.toml now says {cache_len}; "
                        "run llm_reference again")
    model = llmlib.load_model(p)
    longest = max(len(x) for x in ref["ids"])
    llmlib.check_cache_len(p, model, max(longest, max(len(ref["ids"][i]) for i in ref["greedy"]) + ref["decode_tokens"]))
    llmlib.guard_memory(f"export of {type(model).__name__} ({scheme})", llmlib.export_need_mb(model, cache_len),
                        "Lower llm_cache_len, choose a smaller model, or free memory.")
    weights_mb = llmlib.param_mb(model)  # unique parameters: a tied embedding counts once
    tied = llmlib.tied_embeddings(model)
    llmlib.quantize_in_place(model, scheme, group_size)
    probe = ref["ids"][0]
    if scheme != "none":
        # The quantized model's own logits, to check that the lowered program computes the same.
        import torch

        with torch.no_grad():
            eager_probe = model(input_ids=torch.tensor([probe])).logits[0, -1].float()
    t0 = time.monotonic()
    ep = llmlib.export_program(model, cache_len)
    export_s = time.monotonic() - t0
    note(f"torch.export: {export_s:.1f} s (static cache {cache_len}, dynamic sequence 1..{cache_len - 1})")
    out = llmlib.artifact_path(scheme, build_dir)
    t0 = time.monotonic()
    counts = llmlib.lower_to_pte(ep, out)
    lower_s = time.monotonic() - t0
    size_mb = os.path.getsize(out) / 2**20
    note(f"{rel(out)}: {size_mb:.1f} MiB, {counts['delegate_calls']} XNNPACK delegate calls, "
         f"{counts['portable_ops']} ops left on portable kernels {counts['portable_op_names']}")
    lowering_cosine = None
    if scheme != "none":
        lowering_cosine = llmlib.cosine(llmlib.Program(out, cache_len).prefill(probe)[-1], eager_probe)
        note(f"lowering parity: the program against the quantized eager model on prompt 0: cosine {lowering_cosine:.5f}")
        if not lowering_cosine >= LOWERING_COSINE_MIN:
            emit.warn("quant lowering mismatch", f"scheme \"{scheme}\" group {group_size}: the lowered program's logits differ "
                      f"from the quantized eager model's (cosine {lowering_cosine:.4f} < {LOWERING_COSINE_MIN}): the runtime "
                      "computes this scheme differently from torchao; build another scheme")
    if tied and scheme == "none" and size_mb > 1.3 * weights_mb:
        note(f"{rel(out)} holds {size_mb:.0f} MiB for {weights_mb:.0f} MiB of FP32 weights: the input embedding and the "
             "output head share one weight in the model, and the program stores it twice (as the embedding table and "
             "as the head's matrix)")
    if counts["delegate_calls"] == 0:
        emit.warn("nothing delegated", f"{rel(out)}: no part of the graph went to XNNPACK; it runs on portable kernels")
    fields = {"exported": 1, "scheme": scheme, "group_size": group_size, "artifact": rel(out),
              "artifact_mb": round(size_mb, 1), "weights_mb": round(weights_mb, 1), "tied_embeddings": int(tied),
              "export_s": round(export_s, 1), "lower_s": round(lower_s, 1), "cache_len": cache_len, "lowering_cosine": lowering_cosine, **counts}
    fields.update(phase.fields())
    llmlib.record(f"export_{scheme}", fields, build_dir)
    return fields


def body(a):
    p = Project()
    scheme = a.get("scheme") or "none"
    group_size = a.get("group_size")
    group_size = p["llm_group_size"] if group_size is None else int(group_size)
    return build(p, scheme, group_size)


if __name__ == "__main__":
    emit.main("llm_export", __file__, "export", body)

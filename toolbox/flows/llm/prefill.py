"""decoder-LLM flow, tool `prefill_parity`: the program's last-position logits after prefilling
each prompt of the set in one call, against the eager reference: cosine and top-1 per prompt.
Default program: the FP32 one; `scheme` measures a quantized one.

Metrics: prefill_cosine_min, prefill_top1_match (1 when every prompt's top-1 equals eager's),
prompts, worst_prompt, mismatched (indices), phase_s, peak_rss_mb.
"""
from aipc_toolbox import emit
from aipc_toolbox.emit import note

import llmlib


def measure(p, scheme):
    phase = llmlib.Phase()
    ref = llmlib.load_reference()
    prog = llmlib.Program(llmlib.artifact_path(scheme), p["llm_cache_len"])
    cosines, mismatched = [], []
    for i, (ids, want) in enumerate(zip(ref["ids"], ref["last_logits"])):
        got = prog.prefill(ids)[-1]
        c = llmlib.cosine(got, want)
        cosines.append(c)
        same = int(got.argmax()) == int(want.argmax())
        if not same:
            mismatched.append(i)
        note(f"prompt {i} ({len(ids)} tokens): cosine {c:.5f}, top-1 {int(got.argmax())} vs eager {int(want.argmax())}"
             f"{'' if same else '  MISMATCH'}")
    worst = min(range(len(cosines)), key=lambda i: cosines[i])
    fields = {"scheme": scheme, "prefill_cosine_min": round(min(cosines), 6), "prefill_top1_match": int(not mismatched),
              "prompts": len(cosines), "worst_prompt": worst, "mismatched": mismatched}
    fields.update(phase.fields())
    return fields


body = llmlib.scheme_body("prefill", measure)


if __name__ == "__main__":
    emit.main("prefill_parity", __file__, "prefill", body)

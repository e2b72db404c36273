"""decoder-LLM flow, tool `decode_parity`: greedy decoding on the program (prompt prefilled in one
call, then one token per call through the KV cache) against the eager reference's greedy tokens,
llm_decode_tokens per prompt on the reference's decode prompts. A divergence is reported with the
prompt, the position and both tokens. Default program: FP32; `scheme` measures a quantized one.

Metrics: decode_match (1 when every prompt's tokens equal eager's), decode_prompts, tokens,
agreement (mean share of tokens before the first divergence), first_divergence (prompt, position,
eager token, program token), phase_s, peak_rss_mb.
"""
from aipc_toolbox import emit
from aipc_toolbox.emit import note

import llmlib


def measure(p, scheme, tok=None, path=None):
    phase = llmlib.Phase()
    ref = llmlib.load_reference()
    prog = llmlib.Program(path or llmlib.artifact_path(scheme), p["llm_cache_len"])
    tok = tok or llmlib.load_tokenizer(p)
    steps = ref["decode_tokens"]
    shares, first = [], None
    for i in sorted(ref["greedy"]):
        want = ref["greedy"][i]
        _, got = prog.greedy(ref["ids"][i], steps)
        at = llmlib.first_divergence(want, got)
        shares.append(1.0 if at is None else at / len(want))
        if at is None:
            note(f"prompt {i}: {len(got)} greedy tokens identical to eager")
        else:
            note(f"prompt {i}: diverges at generated token {at}: eager {want[at]} {tok.decode([want[at]])!r}, "
                 f"program {got[at]} {tok.decode([got[at]])!r} (after {tok.decode(want[max(0, at - 8):at])!r})")
            if first is None:
                first = {"prompt": i, "position": at, "eager_token": want[at], "program_token": got[at],
                         "eager_text": tok.decode([want[at]]), "program_text": tok.decode([got[at]])}
    fields = {"scheme": scheme, "decode_match": int(first is None), "decode_prompts": len(shares), "tokens": steps,
              "agreement": round(sum(shares) / len(shares), 4), "first_divergence": first}
    if first is not None and scheme == "none":
        emit.warn("decode divergence", f"prompt {first['prompt']}: the program's greedy token {first['position']} is "
                  f"{first['program_token']} ({first['program_text']!r}), eager's {first['eager_token']} "
                  f"({first['eager_text']!r}); the KV cache or the positions differ from eager past the prompt")
    fields.update(phase.fields())
    return fields


body = llmlib.scheme_body("decode", measure)


if __name__ == "__main__":
    emit.main("decode_parity", __file__, "decode", body)

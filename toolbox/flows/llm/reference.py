"""decoder-LLM flow, tool `llm_reference`: the eager FP32 reference every later phase is gated
against. The model and tokenizer load as aipc.toml says; each prompt of the prompt set gives its
last-position logits, the longest DECODE_PROMPTS give llm_decode_tokens greedy tokens (the model's
own dynamic cache), and the bundled text gives the FP32 perplexity in windows of
llm_cache_len - 1 tokens. Kept in build/llm_reference.pt.

Metrics: reference_ok, prompts, decode_prompts, ppl_fp32, params_m, vocab, sliding_window,
longest_needed, cache_len, phase_s, peak_rss_mb.
"""
import os

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import llmlib


def body(a):
    import torch

    phase = llmlib.Phase()
    p = Project()
    torch.manual_seed(0)
    tok = llmlib.load_tokenizer(p)
    texts = llmlib.prompts(p)
    ids = [llmlib.encode(tok, t) for t in texts]
    steps = p["llm_decode_tokens"]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    decode_set = sorted(order[:llmlib.DECODE_PROMPTS])
    longest = max(len(ids[i]) for i in decode_set) + steps
    longest = max(longest, max(len(x) for x in ids))
    model = llmlib.load_model(p)
    n_params = sum(q.numel() for q in model.parameters())
    cfg = llmlib.text_config(model)
    note(f"{type(model).__name__}: {n_params / 1e6:.1f} M parameters, vocab {cfg.vocab_size}, "
         f"{cfg.num_hidden_layers} layers, sliding window {llmlib.sliding_window(model)}")
    llmlib.check_cache_len(p, model, longest)
    last, gen = [], {}
    for i, x in enumerate(ids):
        if i in decode_set:
            logits, g = llmlib.eager_greedy(model, x, steps)
            gen[i] = g
            note(f"prompt {i} ({len(x)} tokens) -> {tok.decode(g[:16])!r}...")
        else:
            logits, _ = llmlib.eager_greedy(model, x, 1)
        last.append(logits)
    window = p["llm_cache_len"] - 1
    text_ids = llmlib.encode(tok, llmlib.bundled_text())
    windows = llmlib.chunks_of(text_ids, window)
    ppl = llmlib.eager_perplexity(model, windows)
    note(f"FP32 perplexity on the bundled text ({len(text_ids)} tokens, {len(windows)} windows of <= {window}): {ppl:.3f}")
    os.makedirs(llmlib.BUILD, exist_ok=True)
    torch.save({"prompts": texts, "ids": ids, "last_logits": last, "greedy": gen, "decode_tokens": steps,
                "windows": windows, "ppl_fp32": ppl, "cache_len": p["llm_cache_len"], "params": n_params,
                "model_type": getattr(cfg, "model_type", type(model).__name__)}, llmlib.REFERENCE)
    fields = {"reference_ok": 1, "prompts": len(texts), "decode_prompts": len(gen), "ppl_fp32": round(ppl, 4),
              "params_m": round(n_params / 1e6, 2), "vocab": int(cfg.vocab_size),
              "sliding_window": llmlib.sliding_window(model) or 0, "longest_needed": longest,
              "cache_len": p["llm_cache_len"], "model_type": getattr(cfg, "model_type", "")}
    fields.update(phase.fields())
    llmlib.record("reference", fields)
    return fields


if __name__ == "__main__":
    emit.main("llm_reference", __file__, "reference", body)

#!/usr/bin/env python3
# aipc-venvs: executorch-xnnpack
"""The decoder-LLM flow's pieces (toolbox/flows/llm/llmlib.py) on several decoder architectures:

- sliding-window detection (Gemma 3 slides, Llama and Qwen 3 do not) and the cache-length guard
  (past the window, past max_position_embeddings, too short for the gates), each refused with the
  number that fixes it;
- the memory guard: a phase whose estimate exceeds the ceiling is refused before it starts;
- perplexity arithmetic (nll_sum against a hand computation), windows, first divergence;
- the static-cache export and XNNPACK lowering of a one-layer Llama, Qwen 3 and Gemma 3: the
  program's prefill logits equal eager's on every position, its greedy decode through the KV cache
  equals the model's own greedy decode with its dynamic cache, and its perplexity equals eager's;
- an 8da4w program of the same model stays close to it (top-1 may move, cosine stays high).
"""
import math
import os
import sys
import tempfile

import torch

from checklib import ROOT, check, main, raises

FLOW = ROOT / "toolbox" / "flows" / "llm"
sys.path.insert(0, str(FLOW))
os.environ["QNN_SDK_ROOT"] = ""

import llmlib  # noqa: E402


class Cfg:
    """A stand-in aipc.toml [project] table for llmlib's guards."""

    def __init__(self, **cfg):
        self.cfg = cfg

    def __getitem__(self, key):
        return self.cfg[key]

    def get(self, key, default=None):
        return self.cfg.get(key, default)

    def _where(self, key):
        return "aipc.toml:7"


def tiny(kind, seed=0):
    from transformers import (Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM, Qwen3Config,
                              Qwen3ForCausalLM)

    torch.manual_seed(seed)
    common = dict(vocab_size=97, hidden_size=64, intermediate_size=96, num_hidden_layers=1, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=256)
    if kind == "llama":
        return LlamaForCausalLM(LlamaConfig(**common)).eval()
    if kind == "qwen":
        return Qwen3ForCausalLM(Qwen3Config(head_dim=16, tie_word_embeddings=True, **common)).eval()
    return Gemma3ForCausalLM(Gemma3TextConfig(head_dim=16, sliding_window=48, **common)).eval()


@check
def sliding_windows_are_found_only_where_layers_slide():
    assert llmlib.sliding_window(tiny("gemma")) == 48
    assert llmlib.sliding_window(tiny("llama")) is None
    assert llmlib.sliding_window(tiny("qwen")) is None


@check
def cache_lengths_the_program_cannot_honour_are_refused_with_the_fix():
    gemma, llama = tiny("gemma"), tiny("llama")
    e = raises(lambda: llmlib.check_cache_len(Cfg(llm_cache_len=64), gemma, 20), "sliding attention window (48 tokens")
    assert "at most 48" in str(e)
    raises(lambda: llmlib.check_cache_len(Cfg(llm_cache_len=512), llama, 20), "max_position_embeddings (256)")
    e = raises(lambda: llmlib.check_cache_len(Cfg(llm_cache_len=40), llama, 40), "cannot hold the longest sequence")
    assert "at least 41" in str(e)
    llmlib.check_cache_len(Cfg(llm_cache_len=48), gemma, 47)


@check
def a_phase_over_the_memory_ceiling_stops_before_it_starts():
    os.environ["AIPC_LLM_MEMORY_MB"] = "100"
    try:
        e = raises(lambda: llmlib.guard_memory("export", 5000, "Lower it."), "would need about 5,000 MiB but only 100 MiB")
        assert "not started" in str(e)
        llmlib.guard_memory("export", 50, "Lower it.")
    finally:
        del os.environ["AIPC_LLM_MEMORY_MB"]


@check
def perplexity_arithmetic_matches_a_hand_computation():
    logits = torch.tensor([[0.0, 1.0, 2.0], [2.0, 0.0, 0.0], [0.0, 0.0, 5.0]])
    ids = [0, 2, 0]
    s, n = llmlib.nll_sum(logits, ids)
    lp = lambda row, t: row[t] - math.log(sum(math.exp(v) for v in row))  # noqa: E731
    want = -(lp([0.0, 1.0, 2.0], 2) + lp([2.0, 0.0, 0.0], 0))
    assert n == 2 and abs(s - want) < 1e-5, (s, want)
    assert llmlib.chunks_of(list(range(10)), 4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert llmlib.chunks_of(list(range(9)), 4) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert llmlib.first_divergence([1, 2, 3], [1, 2, 3]) is None
    assert llmlib.first_divergence([1, 2, 3], [1, 5, 3]) == 1


def roundtrip(kind, scheme="none"):
    model = tiny(kind)
    cache_len, prompt, steps = 40, [3, 14, 15, 92, 65, 35], 12
    with torch.no_grad():
        eager_logits = model(input_ids=torch.tensor([prompt])).logits[0]
    _, eager_gen = llmlib.eager_greedy(model, prompt, steps)
    eager_ppl = llmlib.eager_perplexity(model, [prompt])
    llmlib.quantize_in_place(model, scheme, 32)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "llm.pte")
        counts = llmlib.lower_to_pte(llmlib.export_program(model, cache_len), path)
        assert counts["delegate_calls"] > 0, counts
        prog = llmlib.Program(path, cache_len)
        got = prog.prefill(prompt)
        _, gen = prog.greedy(prompt, steps)
        ppl = prog.perplexity([prompt])
        raises(lambda: prog._run([1] * 5, 38), "past the program's KV cache (40)")
    return eager_logits, got, eager_gen, gen, eager_ppl, ppl


@check
def fp32_programs_match_eager_on_three_architectures():
    for kind in ("llama", "qwen", "gemma"):
        eager_logits, got, eager_gen, gen, eager_ppl, ppl = roundtrip(kind)
        assert got.shape == eager_logits.shape, (kind, got.shape)
        cos = min(llmlib.cosine(got[i], eager_logits[i]) for i in range(got.shape[0]))
        assert cos > 0.9999, (kind, cos)
        assert gen == eager_gen, (kind, gen, eager_gen)
        assert abs(ppl / eager_ppl - 1) < 1e-4, (kind, ppl, eager_ppl)


@check
def an_8da4w_program_stays_close_to_eager():
    eager_logits, got, _, _, eager_ppl, ppl = roundtrip("llama", "8da4w")
    cos = min(llmlib.cosine(got[i], eager_logits[i]) for i in range(got.shape[0]))
    assert cos > 0.95, cos
    assert abs(ppl / eager_ppl - 1) < 0.2, (ppl, eager_ppl)


if __name__ == "__main__":
    main()

"""Measured in a fresh process by speed.py (so that its peak memory is the program's alone):
`python speed_child.py <program.pte> <cache_len> <threads> <prompt_tokens> <decode_tokens> <repeats>`
prints one JSON line: prefill and decode tokens/s (median of the repeats) and peak RSS (MiB)."""
import json
import statistics
import sys
import time


def main():
    path, cache_len, threads, n_prompt, n_decode, repeats = sys.argv[1], *map(int, sys.argv[2:7])
    from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool

    _unsafe_reset_threadpool(threads)
    import llmlib

    prog = llmlib.Program(path, cache_len)
    ids = [1 + (i * 7919) % 200 for i in range(n_prompt)]
    prefill, decode = [], []
    prog.prefill(ids[:8])  # warm-up: first-call allocation and packing
    for _ in range(repeats):
        t0 = time.perf_counter()
        logits = prog.prefill(ids)
        prefill.append(n_prompt / (time.perf_counter() - t0))
        cur, pos = int(logits[-1].argmax()), n_prompt
        t0 = time.perf_counter()
        for _ in range(n_decode):
            cur = int(prog._run([cur], pos)[-1].argmax())
            pos += 1
        decode.append(n_decode / (time.perf_counter() - t0))
    print(json.dumps({"prefill_tps": round(statistics.median(prefill), 2), "decode_tps": round(statistics.median(decode), 2),
                      "peak_rss_mb": llmlib.peak_rss_mb()}))


if __name__ == "__main__":
    main()

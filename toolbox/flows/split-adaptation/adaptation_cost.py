"""split adaptation, tool `adaptation_cost`: what the split costs against the host. Timed in the
same run, `repeats` times each (median kept):

- split: the runtime's INT8 backbone extracting the adaptation set's features, then the FP32 head
  trained on them (what the device does);
- host: the eager FP32 backbone on the host CPU extracting the same features, then the same head
  trained the same way.

ratio = split / host wall time (below 1: the split adapts faster). Peak resident memory of this
process (the runtime's and torch's) is reported; time per sample is over the adaptation set.
With aipc.toml adapt_cost_ratio_max the ratio is gated (within_budget), else reported only.

Metrics: split_s, host_s, ratio, split_ms_per_sample, host_ms_per_sample, extract_s, train_s,
peak_rss_mb, within_budget, measured.
"""
import resource
import statistics
import time

import torch

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib


def body(a):
    p = Project()
    b = splitlib.backend()
    side = splitlib.read_sidecar()
    split = splitlib.Split(p)
    tx, ty, _, _, classes = splitlib.adapt_data(p)
    threads = p["threads"]
    torch.set_num_threads(threads)
    art = side["int8"]["artifact"]
    b.features(art, tuple(t[:8] for t in tx), threads=threads)  # warm-up: load and first run
    split_runs, host_runs, parts = [], [], []
    for _ in range(a["repeats"] or 3):
        t0 = time.perf_counter()
        feats, _ = b.features(art, tx, threads=threads)
        t1 = time.perf_counter()
        splitlib.train_head(split.new_head(classes, p["adapt_seed"]), feats, ty, p, log=False)
        t2 = time.perf_counter()
        split_runs.append(t2 - t0)
        parts.append((t1 - t0, t2 - t1))
        t0 = time.perf_counter()
        ref = splitlib.eager_features(split.backbone, tx)
        splitlib.train_head(split.new_head(classes, p["adapt_seed"]), ref, ty, p, log=False)
        host_runs.append(time.perf_counter() - t0)
    s, h = statistics.median(split_runs), statistics.median(host_runs)
    extract_s = statistics.median(x for x, _ in parts)
    train_s = statistics.median(y for _, y in parts)
    n = len(ty)
    ratio = s / h if h > 0 else float("inf")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    limit = p.get("adapt_cost_ratio_max")
    note(f"adaptation of {n} samples, {threads} thread(s), median of {len(split_runs)}: split (runtime INT8 backbone "
         f"{extract_s:.4f} s + head {train_s:.4f} s) {s:.4f} s = {s / n * 1000:.3f} ms per sample; host (eager FP32 "
         f"backbone + head) {h:.4f} s = {h / n * 1000:.3f} ms per sample; ratio {ratio:.3f}; peak RSS {rss:.0f} MB")
    return {"measured": 1, "split_s": round(s, 4), "host_s": round(h, 4), "ratio": round(ratio, 4),
            "split_ms_per_sample": round(s / n * 1000, 4), "host_ms_per_sample": round(h / n * 1000, 4),
            "extract_s": round(extract_s, 4), "train_s": round(train_s, 4), "peak_rss_mb": round(rss, 1),
            "ratio_max": limit, "within_budget": int(limit is None or ratio <= limit), "samples": n}


if __name__ == "__main__":
    emit.main("adaptation_cost", __file__, "cost", body)

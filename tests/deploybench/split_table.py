#!/usr/bin/env python3
"""The split-adaptation figures of recorded sessions, one row per session: the feature gate's
first and last measurement (before / after restoration), the adaptation gate's accuracies and
the cost against the host, read from each session's check results (events.jsonl).

    python3 tests/deploybench/split_table.py <session dir or bench out dir>...
"""
import json
import sys
from pathlib import Path


def sessions(paths):
    for p in map(Path, paths):
        if (p / "events.jsonl").is_file():
            yield p
        else:
            yield from sorted(q.parent for q in p.rglob("events.jsonl"))


def row(session):
    checks, target, outcome, wall = {}, "?", "?", None
    for line in (session / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["type"] == "session_started":
            target = e.get("target") or e.get("contract", {}).get("target", "?")
        elif e["type"] == "check_result":
            stage = e["check_id"].split(".")[0]
            checks.setdefault((stage, e["check_id"].split(".")[-1]), []).append(e.get("metrics") or {})
        elif e["type"] == "session_finished":
            outcome, wall = e.get("outcome", "?"), e.get("duration_ms")
    feats = checks.get(("features", "c1"), [{}])
    adapt = checks.get(("adapt", "c2"), [{}])[-1]
    cost = checks.get(("cost", "c1"), [{}])[-1]
    f = lambda m, k, fmt="{:.4f}": fmt.format(m[k]) if k in m else "–"  # noqa: E731
    return (f"| {session.name} | {target} | {outcome} | {f(feats[0], 'cosine_mean')} / {f(feats[0], 'channel_err_max', '{:.3f}')} "
            f"| {f(feats[-1], 'cosine_mean')} / {f(feats[-1], 'channel_err_max', '{:.3f}')} | {f(adapt, 'acc')} | {f(adapt, 'ref_acc')} "
            f"| {f(adapt, 'full_ft_acc')} | {f(adapt, 'acc_drop_points', '{:.2f}')} | {f(cost, 'ratio', '{:.3f}')} "
            f"| {f(cost, 'split_ms_per_sample', '{:.3f}')} / {f(cost, 'host_ms_per_sample', '{:.3f}')} | {f(cost, 'peak_rss_mb', '{:.0f}')} "
            f"| {wall / 1000:.0f} s |" if wall else "| – |")


def main():
    print("| session | target | outcome | features before (cosine / chan err) | after | acc | ref acc (FP32 features) "
          "| full fine-tune | drop (points) | cost ratio | ms/sample split / host | peak RSS MB | wall |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in sessions(sys.argv[1:]):
        print(row(s))


if __name__ == "__main__":
    main()

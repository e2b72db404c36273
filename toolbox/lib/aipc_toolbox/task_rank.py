"""Ranking what to keep in float by what the task loses: the part of `int8_sensitivity` both
targets share.

The per-layer report scores a node by the error it adds to its own output (SQNR, energy-weighted).
That misses the faults that matter most: a tensor whose small values carry the task while its
range is set by a large one (a power spectrum under a hum, a feature under an outlier channel)
keeps a high SQNR where it is rounded, and the node that shows the loss is further down, so keeping
that node in float changes nothing (measured: a log-power front end, the `log` ranked worst, kept in
float with the add before it: cosine 0.026, the same as the whole INT8 model).

So each *quantization point* (one tensor the INT8 build rounds: an activation's Q/DQ pair, or a
weight's) is applied alone (the target's quantized reference with every other point passed
through in float, or the float model with that one point inserted), and the model's output is
compared with the float model's on the calibration batches. The point whose rounding alone
costs the task the most (the lower of cosine and top-1 agreement) comes first. A tensor is
rounded when the op that writes it or one that reads it is quantized, so the group kept in float
for a point is its writer and its readers (and the pass-through ops between): that is what the
real build must leave out for the tensor to stay float.

A target supplies the points (`Point`: the tensor, the nodes of its group, how suspect the
per-layer report makes it) and `alone(point)`, the reference's output with only that point applied
(`alone(None)`: no point, the float model). Measuring is bounded by time; points not measured keep
the per-layer report's order after the measured ones.
"""
import dataclasses
import math
import time

from . import emit, metrics

# How long the ranking may measure points (each is one run of the reference over the analysis
# batches); a bound on the tool's time, not a threshold on the result.
RANK_BUDGET_S = 60.0


@dataclasses.dataclass
class Point:
    """One tensor the INT8 build rounds, and the nodes to keep in float so that it is not."""

    tensor: str
    kind: str  # "activation" or "weight"
    nodes: list
    suspect: int  # the best rank, in the per-layer report, of a node of `nodes` (lower first)
    cosine: float = None
    top1_agreement: float = None


def rank(points, alone, budget_s=RANK_BUDGET_S):
    """Measure each point alone (the most suspect first, until `budget_s`), and return
    (the points, measured ones by what they cost the task, the worst first, then the rest in the
    per-layer report's order; how many were measured)."""
    started = time.monotonic()
    reference = alone(None)
    order = sorted(points, key=lambda p: p.suspect)
    measured = []
    for point in order:
        if measured and time.monotonic() - started > budget_s:
            break
        m = metrics.compare(reference, alone(point))
        # An output that is no longer finite (a log or a division of a value rounded to zero) is
        # the worst there is: its cosine is NaN, which would not sort.
        point.cosine = m["cosine"] if math.isfinite(m["cosine"]) else -1.0
        point.top1_agreement = m["top1_agreement"]
        measured.append(point)
    rest = order[len(measured):]
    # The worse of cosine and top-1 agreement decides (both are 1 when nothing is lost, and the
    # gates hold both: a classifier whose classes flip under a high cosine is hurt), then the
    # cosine, then the per-layer report's order.
    measured.sort(key=lambda p: (min(p.cosine, p.top1_agreement), p.cosine, p.suspect))
    return measured + rest, len(measured)


def groups(ranked, base, fallback):
    """The node groups a mixed-precision search keeps in float, in `ranked` order: each point's
    nodes less those already float (`base`), without repeats or empty groups; then `fallback`'s
    groups (the per-layer report's) not yet covered, so the search has them all."""
    out, seen = [], set()
    for nodes in [p.nodes for p in ranked] + list(fallback):
        group = [n for n in dict.fromkeys(nodes) if n not in base]
        key = frozenset(group)
        if group and key not in seen:
            seen.add(key)
            out.append(group)
    return out


def print_ranking(ranked, measured, total_s, top):
    """The lines that say what each point alone costs the task."""
    emit.note(f"task loss of each rounded tensor alone ({measured} of {len(ranked)} measured in {total_s:.1f} s; "
              "cosine of the model's output with only that tensor in INT8, against float); the largest:")
    for p in ranked[:min(top, measured)]:
        emit.note(f"  {p.tensor} ({p.kind}): cosine {p.cosine:.4f}, top-1 agreement {p.top1_agreement:.4f}; "
                  f"float needs {', '.join(p.nodes)}")


def report_rows(ranked):
    """The ranking as the report keeps it."""
    return [{"tensor": p.tensor, "kind": p.kind, "nodes": p.nodes, "cosine": p.cosine,
             "top1_agreement": p.top1_agreement} for p in ranked if p.cosine is not None]


def ranked_groups(points, alone, base, fallback, top, budget_s=RANK_BUDGET_S):
    """rank + print_ranking + groups: (the groups to search, the report rows)."""
    started = time.monotonic()
    ranked, measured = rank(points, alone, budget_s)
    print_ranking(ranked, measured, time.monotonic() - started, top)
    return groups(ranked, base, fallback), report_rows(ranked)

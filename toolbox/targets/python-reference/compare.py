"""Reference runtime of the python-reference target: run an exported build/model.json and compare
it with the project's eager model on the project's evaluation samples.

Usage: python3 compare.py <model.json>   (run in the project folder)
Prints progress, then one JSON object as its last line:
{"samples": N, "cosine": c, "max_abs_err": e, "top1_agreement": a}
"""
import json
import math
import os
import sys

OPS = {
    "relu": lambda v: max(0.0, v),
    "sigmoid": lambda v: 1.0 / (1.0 + math.exp(-v)),
    "tanh": math.tanh,
}


def run_artifact(spec, x):
    for index, layer in enumerate(spec["layers"]):
        op = layer.get("op")
        if op == "dense":
            x = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(layer["w"], layer["b"])]
        elif op in OPS:
            x = [OPS[op](v) for v in x]
        else:
            raise SystemExit(f"error: layer {index}: unsupported op {op!r} (supported: dense, {', '.join(OPS)})")
    return x


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: compare.py <model.json>")
    sys.path.insert(0, os.getcwd())
    import data
    import model

    with open(sys.argv[1]) as f:
        spec = json.load(f)
    if spec.get("format") != 1:
        raise SystemExit(f"error: {sys.argv[1]}: unknown format {spec.get('format')!r}, expected 1")
    params = model.build()
    cosines, max_err, agree = [], 0.0, 0
    inputs = data.samples()
    for x in inputs:
        expected = model.forward(params, x)
        got = run_artifact(spec, x)
        if len(got) != len(expected):
            raise SystemExit(f"error: output has {len(got)} values, eager model has {len(expected)}")
        cosines.append(cosine(expected, got))
        max_err = max(max_err, max(abs(a - b) for a, b in zip(expected, got)))
        agree += expected.index(max(expected)) == got.index(max(got))
    result = {
        "samples": len(inputs),
        "cosine": min(cosines),
        "max_abs_err": max_err,
        "top1_agreement": agree / len(inputs),
    }
    print(f"compared {len(inputs)} samples: worst cosine {result['cosine']:.6f}, "
          f"top-1 agreement {result['top1_agreement']:.3f}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

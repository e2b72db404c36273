"""A small multi-layer perceptron in plain Python: the "PyTorch project" of aipc's engine demo.

Two dense layers with a tanh in between, weights drawn from a fixed seed so every run is the
same. `forward` is the eager reference that a deployed artifact must match.
"""
import math
import random

INPUTS, HIDDEN, CLASSES = 8, 16, 4


def _matrix(rng, rows, cols, scale):
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def build():
    """The model's parameters: weights are stored as [out][in] like torch.nn.Linear."""
    rng = random.Random(1234)
    return {
        "w1": _matrix(rng, HIDDEN, INPUTS, 0.6),
        "b1": [rng.gauss(0.0, 0.1) for _ in range(HIDDEN)],
        "w2": _matrix(rng, CLASSES, HIDDEN, 0.5),
        "b2": [rng.gauss(0.0, 0.1) for _ in range(CLASSES)],
    }


def activation(x):
    return math.tanh(x)


def dense(w, b, x):
    return [sum(wi * xi for wi, xi in zip(row, x)) + bias for row, bias in zip(w, b)]


def forward(params, x):
    hidden = [activation(v) for v in dense(params["w1"], params["b1"], x)]
    return dense(params["w2"], params["b2"], hidden)

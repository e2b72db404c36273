"""Evaluation inputs with labels: deterministic samples the deployment is validated on."""
import random

from model import INPUTS


def samples(count=64):
    rng = random.Random(99)
    return [[rng.uniform(-2.0, 2.0) for _ in range(INPUTS)] for _ in range(count)]

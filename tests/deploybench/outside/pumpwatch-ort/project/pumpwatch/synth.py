"""Synthetic bearing-housing vibration windows (stands in for the test-rig recordings).

Each window is (3, 128) in g: x/y radial, z axial, with +1 g of gravity on z. Shaft speed
1450-2950 rpm. The waveform is turned into int16 ADC counts by sensor.g_to_counts, so loud
windows saturate at +-4 g exactly as on the real sensor.
"""
import numpy as np

from . import AXES, SAMPLE_RATE_HZ, WINDOW
from .sensor import g_to_counts

T = np.arange(WINDOW) / SAMPLE_RATE_HZ


def _tone(rng, f, amp, phase=None):
    phase = rng.uniform(0, 2 * np.pi) if phase is None else phase
    return amp * np.sin(2 * np.pi * f * T + phase)


def _window(rng, label):
    f1 = rng.uniform(1450, 2950) / 60.0                     # shaft frequency, Hz
    w = np.zeros((AXES, WINDOW))
    noise = rng.uniform(0.02, 0.05)
    if label == 5:                                          # stopped: sensor noise only
        w += rng.normal(0, rng.uniform(0.003, 0.012), w.shape)
        w[2] += 1.0
        return w
    base = rng.uniform(0.08, 0.25)
    for ax in range(2):
        w[ax] += _tone(rng, f1, base * rng.uniform(0.7, 1.3))
    w[2] += _tone(rng, f1, base * 0.3)
    if label == 1:                                          # imbalance: strong 1x radial
        amp = rng.uniform(0.9, 5.5)
        ph = rng.uniform(0, 2 * np.pi)
        w[0] += _tone(rng, f1, amp, ph)
        w[1] += _tone(rng, f1, amp * rng.uniform(0.6, 1.0), ph + np.pi / 2)
    elif label == 2:                                        # misalignment: 2x and axial 1x
        amp = rng.uniform(0.5, 2.5)
        for ax in range(2):
            w[ax] += _tone(rng, 2 * f1, amp * rng.uniform(0.5, 1.0))
        w[2] += _tone(rng, f1, amp * rng.uniform(0.8, 1.4)) + _tone(rng, 2 * f1, amp * 0.5)
    elif label == 3:                                        # bearing outer race: ringing impulses
        bpfo = f1 * rng.uniform(3.3, 3.9)
        fr = rng.uniform(280, 400)
        amp = rng.uniform(0.6, 3.0)
        t0 = rng.uniform(0, 1 / bpfo)
        ring = np.zeros(WINDOW)
        for k in range(12):
            t = T - (t0 + k / bpfo)
            on = t >= 0
            ring[on] += np.exp(-t[on] * rng.uniform(120, 220)) * np.sin(2 * np.pi * fr * t[on])
        for ax in range(3):
            w[ax] += amp * rng.uniform(0.5, 1.0) * ring
    elif label == 4:                                        # cavitation: broadband bursts
        amp = rng.uniform(0.4, 3.5)
        env = 0.3 + np.abs(np.convolve(rng.normal(0, 1, WINDOW), np.ones(9) / 3, "same"))
        for ax in range(3):
            w[ax] += amp * env * rng.normal(0, 1, WINDOW) * rng.uniform(0.6, 1.0)
    w += rng.normal(0, noise, w.shape)
    w[2] += 1.0
    return w


def make_counts(n_per_class, seed, classes=6):
    """(counts int16 (N, 3, 128), labels int64 (N,)), classes interleaved."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for i in range(n_per_class):
        for c in range(classes):
            xs.append(g_to_counts(_window(rng, c)))
            ys.append(c)
    return np.stack(xs), np.array(ys, dtype=np.int64)

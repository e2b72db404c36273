"""Seeded simulator of the deck IMU's accelerometer on pavement of different condition grades.

The IMU (under the deck, z up) samples at 100 Hz in int16 counts, 4096 counts per g. A window is
64 samples (0.64 s) of (x, y, z). The city grades street segments in four pavement grades:
  good       recently resurfaced: fine texture only
  fair       ageing surface: more texture, the odd crack
  poor       cracked and patched: rough, frequent jolts
  very_poor  broken surface and potholes: heavy texture and big hits
The fleet's small wheels pass all of it to the deck, so a grade shows as how hard the deck is
shaken, not as a different kind of signal.
"""
import numpy as np

FS = 100
WINDOW = 64
COUNTS_PER_G = 4096
GRADES = ("good", "fair", "poor", "very_poor")

# per grade: (texture std range in g, jolts per window range, jolt amplitude range in g)
_GRADE = {
    0: ((0.03, 0.07), (0, 0), (0.0, 0.0)),
    1: ((0.10, 0.20), (0, 2), (0.25, 0.5)),
    2: ((0.26, 0.42), (2, 5), (0.6, 1.2)),
    3: ((0.50, 0.80), (3, 7), (1.5, 3.0)),
}


def _lowpass(x, k):
    return np.convolve(x, np.ones(k) / k, mode="same")


def _jolts(times, amp, f_ring, decay):
    t = np.arange(WINDOW) / FS
    out = np.zeros(WINDOW)
    for t0, a in zip(times, amp):
        dt = t - t0
        m = dt >= 0
        out[m] += a * np.exp(-dt[m] * decay) * np.cos(2 * np.pi * f_ring * dt[m])
    return out


def window(grade, rng):
    pitch, roll = np.radians(rng.normal(0, 3, 2))
    g = np.array([np.sin(pitch), -np.sin(roll), np.cos(pitch) * np.cos(roll)])
    acc = g[:, None] + rng.normal(0, 0.015, (3, WINDOW))          # sensor noise
    (s0, s1), (j0, j1), (a0, a1) = _GRADE[grade]
    tex = _lowpass(rng.normal(0, 1, (3, WINDOW)).ravel(), 2).reshape(3, WINDOW)
    tex /= tex.std(1, keepdims=True)
    acc += rng.uniform(s0, s1) * tex * np.array([[0.4], [0.4], [1.0]])
    n = rng.integers(j0, j1 + 1)
    if n:
        times = np.sort(rng.uniform(0, WINDOW / FS, n))
        f_ring = rng.uniform(8, 16)
        acc[2] += _jolts(times, rng.uniform(a0, a1, n), f_ring, 18)
        acc[0] += _jolts(times, rng.uniform(-0.3, 0.3, n) * a1, f_ring, 18)
    counts = np.round(acc * COUNTS_PER_G)
    return np.clip(counts, -32768, 32767).astype(np.int16)


def survey_ride(grade, n, rng):
    return np.stack([window(grade, rng) for _ in range(n)])


def ride_log(windows_per_ride=150, seed=3):
    """The labelled survey rides, in the order they were ridden: the resurfaced test street
    (good) first, then the graded segments. Returns counts (R*n, 3, 64) int16, grade, ride id."""
    rng = np.random.default_rng(seed)
    order = [0, 1, 2, 3, 0, 2, 1, 3]
    parts = [survey_ride(s, windows_per_ride, rng) for s in order]
    grade = np.repeat(order, windows_per_ride)
    ride_id = np.repeat(np.arange(len(order)), windows_per_ride)
    return np.concatenate(parts), grade.astype(np.int64), ride_id.astype(np.int64)


def street_test(per_grade=100, seed=4):
    """Held-out windows from segments the city graded independently, shuffled."""
    rng = np.random.default_rng(seed)
    grade = rng.permutation(np.repeat(np.arange(len(GRADES)), per_grade))
    return np.stack([window(int(s), rng) for s in grade]), grade.astype(np.int64)

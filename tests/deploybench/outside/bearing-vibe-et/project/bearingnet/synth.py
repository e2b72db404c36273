"""Synthetic two-axis vibration windows for the pump bearing monitor.

A window is 128 samples of a radial (axis 0) and an axial (axis 1) accelerometer at 4096 Hz,
in g, DC removed. Each condition adds its own signature on top of the running-speed tone and
sensor noise: periodic impacts that ring a structural resonance (race and rolling-element
defects, each at its own defect frequency and resonance) or shaft harmonics in the axial
direction (misalignment). The shaft speed, phases, amplitudes and noise floor vary per window.
"""
import numpy as np

CONDITIONS = ("healthy", "outer_race", "inner_race", "rolling_element", "misalignment")
FS_HZ = 4096.0
WINDOW = 128

# defect frequency (multiple of shaft speed), resonance rung by the impacts (Hz), decay (1/s)
_IMPACTS = {
    "outer_race": (8.1, 900.0, 320.0),
    "inner_race": (11.6, 1500.0, 420.0),
    "rolling_element": (5.3, 600.0, 250.0),
}


def _impacts(rng, t, rate_hz, resonance_hz, decay, jitter=0.04):
    period = 1.0 / rate_hz
    out = np.zeros_like(t)
    start = rng.uniform(0.0, period) - 3 * period  # impacts before the window still ring into it
    for t0 in np.arange(start, t[-1], period):
        t0 = t0 + rng.normal(0.0, jitter * period)
        dt = t - t0
        m = dt >= 0
        out[m] += np.exp(-dt[m] * decay) * np.sin(2 * np.pi * resonance_hz * dt[m])
    return out


def window(rng, condition):
    t = np.arange(WINDOW) / FS_HZ
    shaft = rng.uniform(24.0, 36.0)
    ph = rng.uniform(0, 2 * np.pi, size=4)
    x = np.zeros((2, WINDOW))
    x[0] += rng.uniform(0.15, 0.35) * np.sin(2 * np.pi * shaft * t + ph[0])
    x[1] += rng.uniform(0.05, 0.2) * np.sin(2 * np.pi * shaft * t + ph[1])
    amp = rng.uniform(0.6, 1.4)
    if condition in _IMPACTS:
        mult, res, decay = _IMPACTS[condition]
        burst = _impacts(rng, t, mult * shaft, res * rng.uniform(0.95, 1.05), decay)
        if condition == "inner_race":  # the defect passes through the load zone once per turn
            burst *= 1.0 + 0.8 * np.sin(2 * np.pi * shaft * t + ph[2])
        share = {"outer_race": 0.3, "inner_race": 0.5, "rolling_element": 0.8}[condition]
        x[0] += amp * burst
        x[1] += amp * share * burst
    elif condition == "misalignment":
        x[1] += amp * (0.8 * np.sin(2 * np.pi * 2 * shaft * t + ph[2]) + 0.35 * np.sin(2 * np.pi * 3 * shaft * t + ph[3]))
        x[0] += amp * 0.3 * np.sin(2 * np.pi * 2 * shaft * t + ph[3])
    x += rng.normal(0.0, rng.uniform(0.06, 0.14), size=x.shape)
    x -= x.mean(axis=1, keepdims=True)
    return x.astype(np.float32)


def make_set(n_per_condition, seed):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(n_per_condition):
        for label, name in enumerate(CONDITIONS):
            xs.append(window(rng, name))
            ys.append(label)
    order = rng.permutation(len(ys))
    return np.stack(xs)[order], np.asarray(ys, dtype=np.int64)[order]

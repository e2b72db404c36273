"""Synthetic hydrophone clips, 0.512 s at 4 kHz, in pascal-like units (the recorder's int16 counts
divided by COUNTS_PER_UNIT).

Every clip carries the buoy's own mooring-generator hum (45-65 Hz plus its 2nd harmonic, 1.5 to
4.5 units) and wideband sea noise; the sources we classify are 10 to 40 times weaker than the hum
and sit well above it in frequency:
  0 ambient   nothing but hum and sea noise
  1 outboard  a propeller blade-rate comb (harmonics 3..8 of 170-260 Hz), amplitude-modulated
  2 dolphin   a whistle sweeping upward through 800-1500 Hz for part of the clip
  3 pinger    an echo-sounder's tone bursts at 1650-1900 Hz (25 ms on, 100-140 ms period)
"""
import numpy as np

CLASSES = ("ambient", "outboard", "dolphin", "pinger")
RATE, SAMPLES = 4000, 2048
COUNTS_PER_UNIT = 4096.0


def clip(rng, label):
    t = np.arange(SAMPLES) / RATE
    f_hum = rng.uniform(45, 65)
    hum_amp = rng.uniform(1.5, 4.5)
    x = hum_amp * np.sin(2 * np.pi * f_hum * t + rng.uniform(0, 2 * np.pi))
    x += 0.3 * hum_amp * np.sin(4 * np.pi * f_hum * t + rng.uniform(0, 2 * np.pi))
    x += rng.normal(0, rng.uniform(0.02, 0.04), SAMPLES)
    amp = rng.uniform(0.10, 0.30)
    if label == 1:
        f0 = rng.uniform(170, 260)
        am = 1 + 0.5 * np.sin(2 * np.pi * rng.uniform(8, 25) * t)
        for k in range(3, 9):
            if k * f0 < 1950:
                x += amp / np.sqrt(k - 2) * am * np.sin(2 * np.pi * k * f0 * t + rng.uniform(0, 2 * np.pi))
    elif label == 2:
        f_start = rng.uniform(800, 1100)
        f_end = f_start + rng.uniform(200, 400)
        on = rng.uniform(0, 0.2)
        dur = rng.uniform(0.25, 0.5)
        frac = np.clip((t - on) / dur, 0, 1)
        phase = 2 * np.pi * np.cumsum(f_start + (f_end - f_start) * frac) / RATE
        gate = ((t >= on) & (t <= on + dur)).astype(float)
        x += amp * gate * np.sin(phase)
    elif label == 3:
        f = rng.uniform(1650, 1900)
        period = rng.uniform(0.10, 0.14)
        gate = (((t + rng.uniform(0, period)) % period) < 0.025).astype(float)
        x += 1.5 * amp * gate * np.sin(2 * np.pi * f * t)
    return x


def make_clips(seed, count):
    """`count` clips with balanced labels: (float64 (count, SAMPLES), int64 labels)."""
    rng = np.random.default_rng(seed)
    labels = np.arange(count) % len(CLASSES)
    rng.shuffle(labels)
    return np.stack([clip(rng, int(k)) for k in labels]), labels.astype(np.int64)


def to_counts(x):
    return np.clip(np.round(x * COUNTS_PER_UNIT), -32768, 32767).astype(np.int16)


def from_counts(pcm):
    return (np.asarray(pcm).astype(np.float32) / np.float32(COUNTS_PER_UNIT)).astype(np.float32)

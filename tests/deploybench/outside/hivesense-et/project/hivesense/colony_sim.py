"""Synthetic hive recordings in the monitor's mel-dB domain (fixed seeds; no field data ships
with the repo). Four colony states:

  queenright  steady flight/fanning hum around 220-280 Hz and its harmonics
  queenless   the "queenless roar": louder, higher and wandering fundamental, broadband rise
  piping      pre-swarm piping: repeated tonal toots (400-520 Hz + harmonics) over the hum
  disturbed   defensive hissing: broadband bursts above 1.5 kHz over a raised hum

Events repeat often enough that any 3-second window (48 frames) holds at least one.
"""
import numpy as np

from .melframes import N_MELS, band_of, encode_db

STATES = ("queenright", "queenless", "piping", "disturbed")
BANDS = np.arange(N_MELS)


def _tone(f0, width, n_harm, rolloff):
    spec = np.zeros(N_MELS)
    for h in range(1, n_harm + 1):
        b = band_of(f0 * h)
        if b > N_MELS:
            break
        spec += rolloff ** (h - 1) * np.exp(-0.5 * ((BANDS - b) / width) ** 2)
    return spec


def clip(state: int, frames: int, rng) -> np.ndarray:
    """One recording: uint8 codes (frames, 32)."""
    name = STATES[state]
    level = rng.uniform(-58.0, -44.0)                  # hum level at the fundamental, dB
    f0 = rng.uniform(215.0, 285.0)
    wander = 3.0
    if name == "queenless":
        f0, level, wander = rng.uniform(270.0, 340.0), level + rng.uniform(4.0, 9.0), 14.0
    power = np.zeros((frames, N_MELS))
    f_track = f0 + np.cumsum(rng.normal(0.0, wander * 0.15, frames))
    f_track = np.clip(f_track, f0 - 2 * wander - 5, f0 + 2 * wander + 5)
    amp_track = 1.0 + 0.15 * np.sin(np.arange(frames) / rng.uniform(4.0, 12.0) + rng.uniform(0, 6.3))
    for t in range(frames):
        power[t] += amp_track[t] * _tone(f_track[t], 0.9, 6, 0.55)
    if name == "queenless":
        power += 0.12 * np.exp(-0.5 * ((BANDS - band_of(900.0)) / 6.0) ** 2)[None]
    if name == "piping":
        period = rng.integers(10, 22)
        start = rng.integers(0, period)
        fp = rng.uniform(400.0, 520.0)
        for t0 in range(start, frames, period):
            dur = rng.integers(4, 9)
            gain = rng.uniform(0.6, 1.6)
            power[t0:t0 + dur] += gain * _tone(fp + rng.normal(0, 6), 0.6, 4, 0.5)[None]
    if name == "disturbed":
        power *= rng.uniform(1.2, 1.8)
        period = rng.integers(8, 18)
        start = rng.integers(0, period)
        for t0 in range(start, frames, period):
            dur = rng.integers(2, 6)
            lo = band_of(rng.uniform(1500.0, 2200.0))
            hiss = 0.35 * rng.uniform(0.5, 1.5) / (1.0 + np.exp(-(BANDS - lo) / 1.5))
            power[t0:t0 + dur] += hiss[None]
    floor = 10 ** (rng.uniform(-7.5, -6.0))               # microphone / wind noise floor
    db = 10 * np.log10(power * 10 ** (level / 10) + floor)
    db += rng.normal(0.0, 1.5, db.shape)
    return encode_db(db)


def recordings(n: int, seed: int, min_frames: int = 48, max_frames: int = 128):
    """n clips of random lengths: (list of uint8 (frames_i, 32), labels (n,))."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(STATES), n)
    clips = [clip(int(k), int(rng.integers(min_frames, max_frames + 1)), rng) for k in labels]
    return clips, labels.astype(np.int64)

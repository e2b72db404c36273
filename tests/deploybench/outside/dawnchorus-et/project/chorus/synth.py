"""Synthetic dawn-chorus clips.

A clip is a 16-bin x 32-frame spectrogram in dB (floor -80 dB, ceiling 0 dB), holding one call
on top of wind/insect background noise. Four call types, as the survey team labels them:

    0 upsweep     a whistle rising in pitch
    1 downsweep   a whistle falling in pitch
    2 trill       a note jumping between two pitches every few frames
    3 tonal       a steady note

The call's level above the background (SNR) is drawn per clip between 6 and 30 dB, so some
clips are trivially easy and some are barely audible: the cascade's early exits answer the easy
ones and leave the faint ones to the deeper stages.

The recorder stores a clip as uint8 codes, code = round((dB - DB_FLOOR) / DB_SPAN * 255).
"""
import numpy as np

N_BINS, N_FRAMES = 16, 32
DB_FLOOR, DB_SPAN = -80.0, 80.0
CALL_TYPES = ("upsweep", "downsweep", "trill", "tonal")


def _call_track(kind, rng, dur):
    t = np.arange(dur, dtype=np.float64)
    if kind == 0:
        return rng.uniform(1.5, 5.5) + rng.uniform(0.22, 0.42) * t
    if kind == 1:
        return rng.uniform(10.5, 14.5) - rng.uniform(0.22, 0.42) * t
    if kind == 2:
        centre, half = rng.uniform(5.0, 11.0), rng.uniform(1.6, 2.8)
        period = rng.integers(3, 6)
        return centre + half * np.where((t // period) % 2 == 0, 1.0, -1.0)
    return rng.uniform(2.5, 13.5) + np.cumsum(rng.normal(0.0, 0.08, dur))


def render_clip(kind, rng):
    """One clip of call type `kind`, in dB, shape (N_BINS, N_FRAMES)."""
    bins = np.arange(N_BINS, dtype=np.float64)[:, None]
    floor = rng.uniform(-72.0, -58.0)
    tilt = rng.uniform(0.0, 0.8) * (N_BINS - 1 - bins)          # wind: more energy low down
    noise_db = floor + tilt + rng.normal(0.0, 4.0, (N_BINS, N_FRAMES))
    dur = int(rng.integers(14, 24))
    onset = int(rng.integers(0, N_FRAMES - dur + 1))
    track = _call_track(kind, rng, dur)
    level = floor + rng.uniform(6.0, 30.0)
    call_db = np.full((N_BINS, N_FRAMES), -200.0)
    width = rng.uniform(0.5, 0.9)
    for j, f in enumerate(track):
        call_db[:, onset + j] = level - 0.5 * ((bins[:, 0] - f) / width) ** 2 * 6.0
    power = 10.0 ** (noise_db / 10.0) + 10.0 ** (call_db / 10.0)
    return np.clip(10.0 * np.log10(power), DB_FLOOR, DB_FLOOR + DB_SPAN)


def encode(db):
    """dB -> the recorder's uint8 codes."""
    return np.round((db - DB_FLOOR) / DB_SPAN * 255.0).astype(np.uint8)


def render_set(n, seed):
    """n clips with balanced labels, as uint8 codes (n, N_BINS, N_FRAMES) and int64 labels."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % len(CALL_TYPES)
    rng.shuffle(labels)
    codes = np.stack([encode(render_clip(int(k), rng)) for k in labels])
    return codes, labels.astype(np.int64)

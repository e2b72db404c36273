"""Synthetic keyword utterances as log-mel features (fixed seeds, no download).

An utterance is 8 mel bands x T frames (10 ms hop), float32, shaped (N, 8, T) for the model.
Each keyword is a short sequence of "phones"; a phone lights up a few neighbouring bands.
The word is time-stretched to fill 60-90% of the frames, with a random onset, on top of a
noise floor. Speakers differ in loudness and by a shift of up to one band.

aipc.toml [project] names:
- sample_utterance(): one evaluation utterance of 40 frames, batch 1;
- validation_set(): ((mels,), labels) of 400 utterances of 40 frames;
- calibration_utterances(): 64 utterances of 40 frames, one input tuple each.
"""
from functools import lru_cache

import numpy as np
import torch

BANDS = 8
EVAL_FRAMES = 40

# keyword -> phones: (centre band, relative duration); None is a short pause
KEYWORDS = {
    "lights": [(1, 1.0), (5, 1.0)],
    "music": [(5, 1.0), (1, 1.0)],
    "timer": [(1, 0.7), (3, 1.0), (1, 0.7)],
    "cancel": [(6, 1.0), (None, 0.5), (6, 1.0)],
    "weather": [(3, 1.0), (None, 0.6), (3, 0.6), (6, 0.8)],
}
WORDS = tuple(KEYWORDS)


def _phone_profile(centre, shift):
    bands = np.arange(BANDS)
    return np.exp(-((bands - centre - shift) ** 2) / 1.5)


def _render(word, frames, rng):
    phones = KEYWORDS[word]
    span = int(round(frames * rng.uniform(0.6, 0.9)))
    onset = rng.integers(0, frames - span + 1)
    shift = rng.uniform(-1.0, 1.0)
    gain = rng.uniform(2.0, 3.5)
    total = sum(d for _, d in phones)
    energy = np.zeros((BANDS, frames))
    start = float(onset)
    for centre, dur in phones:
        length = span * dur / total
        lo, hi = int(round(start)), int(round(start + length))
        if centre is not None and hi > lo:
            envelope = np.hanning(hi - lo + 2)[1:-1]
            energy[:, lo:hi] += gain * _phone_profile(centre, shift)[:, None] * envelope[None, :]
        start += length
    floor = rng.normal(-1.0, 0.3, (BANDS, frames))
    return energy + floor


def utterances(count, frames, seed):
    """`count` utterances of `frames` frames: float32 (count, 8, frames), and int64 labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(WORDS), count)
    mels = np.stack([_render(WORDS[k], frames, rng) for k in labels]).astype(np.float32)
    return torch.from_numpy(mels), torch.from_numpy(labels.astype(np.int64))


@lru_cache(maxsize=1)
def _validation():
    return utterances(400, EVAL_FRAMES, seed=41)


def validation_set():
    mels, labels = _validation()
    return (mels,), labels


def sample_utterance():
    mels, _ = _validation()
    return (mels[:1].clone(),)


def calibration_utterances():
    mels, _ = utterances(64, EVAL_FRAMES, seed=42)
    return [(mels[i:i + 1].clone(),) for i in range(len(mels))]

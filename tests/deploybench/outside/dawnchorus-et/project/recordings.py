"""The survey data the deployment contract names (aipc.toml [project]).

Clips are uint8 dB codes (chorus.synth.encode); the network reads code / 255, i.e. the dB level
mapped from [-80, 0] dB onto [0, 1], shaped (N, 1, 16, 32).
"""
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

DATA = Path(__file__).resolve().parent / "data" / "survey_clips.npz"


def codes_to_model_space(codes):
    codes = np.asarray(codes, dtype=np.uint8)
    return (codes.astype(np.float32) / np.float32(255.0)).reshape(-1, 1, codes.shape[-2], codes.shape[-1])


@lru_cache(maxsize=1)
def _survey():
    with np.load(DATA) as z:
        return {k: z[k] for k in z.files}


def holdout():
    """((clips,), labels): the 400 labelled survey clips."""
    s = _survey()
    return (torch.from_numpy(codes_to_model_space(s["holdout_codes"])),), torch.from_numpy(s["holdout_labels"])


def first_clip():
    """One clip, batch 1: the recorder classifies one clip at a time."""
    (x,), _ = holdout()
    return (x[:1].clone(),)


def calibration_clips():
    """64 unlabelled clips from the calibration recordings, one input tuple per clip."""
    x = torch.from_numpy(codes_to_model_space(_survey()["calib_codes"]))
    return [(x[i:i + 1].clone(),) for i in range(len(x))]

"""The hive monitor's acoustic front end, as the gateway sees it.

The monitor's DSP (8 kHz microphone) computes 32 mel-band energies every 64 ms and uploads
them as one byte per band: dB = code * DB_STEP + DB_FLOOR. The classifier reads the decoded dB
values, centred and scaled with the fixed constants below (measured on the 2023 recordings).
"""
import numpy as np

SAMPLE_RATE = 8000
N_MELS = 32
FRAME_S = 0.064
DB_FLOOR, DB_STEP = -100.0, 0.4          # code 0 -> -100 dB, code 255 -> 2 dB
NORM_MEAN_DB, NORM_STD_DB = -62.0, 12.0


def _hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)


def _mel_to_hz(m):
    return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)


BAND_CENTRES_HZ = _mel_to_hz(np.linspace(_hz_to_mel(60.0), _hz_to_mel(3800.0), N_MELS))


def band_of(freq_hz: float) -> float:
    """Fractional band index of a frequency (for the simulator)."""
    m = _hz_to_mel(freq_hz)
    lo, hi = _hz_to_mel(60.0), _hz_to_mel(3800.0)
    return (m - lo) / (hi - lo) * (N_MELS - 1)


def encode_db(db: np.ndarray) -> np.ndarray:
    return np.clip(np.round((db - DB_FLOOR) / DB_STEP), 0, 255).astype(np.uint8)


def decode_db(codes: np.ndarray) -> np.ndarray:
    return codes.astype(np.float32) * DB_STEP + DB_FLOOR


def to_model_frames(codes: np.ndarray) -> np.ndarray:
    """Uploaded codes (..., frames, 32) -> the classifier's input values, float32."""
    return ((decode_db(codes) - NORM_MEAN_DB) / NORM_STD_DB).astype(np.float32)

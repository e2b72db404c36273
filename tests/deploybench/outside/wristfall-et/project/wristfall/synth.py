"""Synthetic wrist IMU episodes (2 s at 50 Hz), stored as the watch logs them: int16 counts."""
import numpy as np

from .config import DetectorConfig

CFG = DetectorConfig()


def _unit(v):
    return v / np.linalg.norm(v)


def _episode(kind, rng, T=CFG.window, fs=CFG.imu.rate_hz):
    t = np.arange(T) / fs
    g0 = _unit(np.array([0.0, 0.0, 1.0]) + rng.normal(0, 0.35, 3))
    acc = np.tile(g0[:, None], (1, T))
    gyro = rng.normal(0, 0.05, (3, T))
    f = rng.uniform(1.5, 2.2)
    ph = rng.uniform(0, 2 * np.pi)
    swing = rng.uniform(0.15, 0.35)
    walk_acc = swing * np.sin(2 * np.pi * f * t + ph)
    walk_gyro = rng.uniform(1.0, 2.5) * np.sin(2 * np.pi * f * t + ph + 0.8)
    if kind == 0:    # walking
        acc += np.outer(g0, walk_acc) + rng.normal(0, 0.05, (3, T)) * swing
        gyro[0] += walk_gyro
    elif kind == 1:  # sitting down: a slow dip and rebound of ~0.3 g over about a second
        c = rng.uniform(0.6, 1.4)
        w = rng.uniform(0.2, 0.3)
        dip = -rng.uniform(0.25, 0.4) * np.exp(-((t - c) / w) ** 2) + 0.3 * np.exp(-((t - c - 1.5 * w) / w) ** 2)
        acc += np.outer(g0, dip)
        gyro[1] += rng.uniform(0.5, 1.0) * np.exp(-((t - c) / (2 * w)) ** 2)
    elif kind == 2:  # stumble: walking, one sharp jolt, recovered
        acc += np.outer(g0, walk_acc)
        gyro[0] += walk_gyro
        k = rng.integers(25, 75)
        acc[:, k:k + 3] += rng.normal(0, 1.0, (3, 1)) * rng.uniform(1.0, 1.8)
        gyro[:, k:k + 4] += rng.normal(0, 2.0, (3, 1))
    else:            # fall: free fall, impact, lying still in another orientation
        k = rng.integers(20, 55)
        n_ff = rng.integers(12, 22)
        g1 = _unit(rng.normal(0, 1, 3))
        acc[:, k:k + n_ff] = g0[:, None] * rng.uniform(0.05, 0.3)
        gyro[:, k:k + n_ff] += rng.normal(0, 3.0, (3, 1))
        i = k + n_ff
        acc[:, i:i + 3] = g1[:, None] * rng.uniform(3.0, 6.0) + rng.normal(0, 0.5, (3, 3))
        acc[:, i + 3:] = g1[:, None]
    acc += rng.normal(0, 0.02, acc.shape)
    return np.concatenate([acc, gyro])


def to_counts(episode, cfg=CFG):
    acc = np.clip(np.round(episode[:3] * cfg.imu.acc_lsb_per_g), -32768, 32767)
    gyro = np.clip(np.round(np.degrees(episode[3:]) * cfg.imu.gyro_lsb_per_dps), -32768, 32767)
    return np.concatenate([acc, gyro]).astype(np.int16)


def generate(n, seed):
    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, 4, n)
    counts = np.stack([to_counts(_episode(k, rng)) for k in kinds])
    return counts, kinds.astype(np.int64)

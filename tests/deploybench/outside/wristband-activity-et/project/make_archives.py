"""Synthesise the archives (fixed seed): the band logger's archives/train_sessions.npz and
archives/holdout_sessions.npz, and the field team's archives/phone_field_captures.npz.
Run once; the archives are committed."""
import numpy as np

from har.sensors import ACTIVITIES, ARCHIVE_DIR, SAMPLE_RATE_HZ, WINDOW

LSB_PER_G = 8192  # +-4 g range, 16 bit
STANDARD_GRAVITY = 9.80665
T = np.arange(WINDOW) / SAMPLE_RATE_HZ


def _gravity(rng):
    v = np.array([0.0, 0.0, 1.0]) + rng.normal(0, 0.25, 3)
    return v / np.linalg.norm(v)


def _window(rng, activity):
    g = _gravity(rng)[:, None] * np.ones((3, WINDOW))
    noise = rng.normal(0, 0.015, (3, WINDOW))
    phase = rng.uniform(0, 2 * np.pi)
    axis_mix = rng.normal(0, 1, 3)
    axis_mix /= np.linalg.norm(axis_mix)
    if activity == "still":
        motion = rng.normal(0, 0.02, (3, WINDOW))
    elif activity == "walk":
        f = rng.uniform(1.6, 2.1)
        a = rng.uniform(0.25, 0.45)
        motion = a * np.sin(2 * np.pi * f * T + phase) + 0.3 * a * np.sin(4 * np.pi * f * T + 2 * phase)
        motion = axis_mix[:, None] * motion[None] + rng.normal(0, 0.05, (3, WINDOW))
    elif activity == "run":
        f = rng.uniform(2.5, 3.2)
        a = rng.uniform(0.9, 1.6)
        motion = a * np.abs(np.sin(np.pi * f * T + phase)) ** 3 - a * 0.42
        motion = axis_mix[:, None] * motion[None] + rng.normal(0, 0.12, (3, WINDOW))
    else:  # cycle: smooth pedalling, arm mostly still
        f = rng.uniform(1.0, 1.4)
        a = rng.uniform(0.05, 0.10)
        motion = a * np.sin(2 * np.pi * f * T + phase)
        motion = axis_mix[:, None] * motion[None] + rng.normal(0, 0.02, (3, WINDOW))
    return g + motion + noise


def _archive(rng, sessions, per_activity, first_session):
    counts, act, sess = [], [], []
    for s in range(sessions):
        for k, name in enumerate(ACTIVITIES):  # lab protocol: one block per activity, in order
            for _ in range(per_activity):
                w = _window(rng, name)
                counts.append(np.clip(np.round(w * LSB_PER_G), -32768, 32767).astype(np.int16))
                act.append(k)
                sess.append(first_session + s)
    return dict(counts=np.stack(counts), activity=np.array(act, np.int8),
                session=np.array(sess, np.int16), lsb_per_g=np.array(LSB_PER_G))


def _phone_captures(rng, n):
    """Unlabelled field captures from the companion phone app (Android SensorManager: m/s^2)."""
    kinds = rng.integers(0, len(ACTIVITIES), n)
    accel = np.stack([_window(rng, ACTIVITIES[k]) for k in kinds]) * STANDARD_GRAVITY
    return dict(accel_ms2=accel.astype(np.float32), sample_rate_hz=np.array(SAMPLE_RATE_HZ),
                unit=np.array("m/s^2"), source=np.array("companion-app 3.2 / android"))


def main():
    rng = np.random.default_rng(20240611)
    ARCHIVE_DIR.mkdir(exist_ok=True)
    np.savez_compressed(ARCHIVE_DIR / "train_sessions.npz", **_archive(rng, 5, 50, 100))
    np.savez_compressed(ARCHIVE_DIR / "holdout_sessions.npz", **_archive(rng, 2, 40, 200))
    np.savez_compressed(ARCHIVE_DIR / "phone_field_captures.npz", **_phone_captures(rng, 64))
    print("wrote", sorted(p.name for p in ARCHIVE_DIR.glob("*.npz")))


if __name__ == "__main__":
    main()

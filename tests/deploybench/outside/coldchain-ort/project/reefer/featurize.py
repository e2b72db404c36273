"""The model's six features, as the training pipeline computes them from a shipment."""
import numpy as np

FEATURES = ("transit_h", "mean_temp_c", "peak_temp_c", "minutes_above_8c", "door_openings", "payload_t")
LIMIT_C = 8.0


def shipment_features(ship):
    temps = ship.temps_c.astype(np.float64)
    return np.array([
        len(temps) * ship.interval_s / 3600.0,
        temps.mean(),
        temps.max(),
        np.count_nonzero(temps > LIMIT_C) * ship.interval_s / 60.0,
        float(ship.door_openings),
        ship.payload_kg / 1000.0,
    ], dtype=np.float32)


def feature_matrix(ships):
    return np.stack([shipment_features(s) for s in ships])

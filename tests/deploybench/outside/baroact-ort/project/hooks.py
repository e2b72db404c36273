"""aipc.toml [project] entries: model, example/eval/calibration inputs."""
import torch

from wearsense.model import load_encoder
from wearsense.windows import load_recording, to_windows


def encoder():
    return load_encoder()


def annotated_walks():
    rec = load_recording("annotated_walks.npz")
    return (to_windows(rec["imu"], rec["baro_pa"]),), torch.from_numpy(rec["labels"])


def one_window():
    rec = load_recording("annotated_walks.npz")
    return (to_windows(rec["imu"][:1], rec["baro_pa"][:1]),)


def commute_calibration():
    """A second day of unlabelled wear (commute, office, gym): same unit, same firmware."""
    rec = load_recording("commute_day2.npz")
    x = to_windows(rec["imu"], rec["baro_pa"])
    return [(x[i:i + 1],) for i in range(len(x))]

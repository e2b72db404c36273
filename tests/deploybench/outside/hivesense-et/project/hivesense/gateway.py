"""The apiary gateway's classification service: each upload bundle is decoded and classified
in one call (all hives of the apiary at once, at the length the monitors recorded), and the
per-hive states go to the beekeeper's dashboard.
"""
import numpy as np

from .colony_sim import STATES
from .melframes import to_model_frames
from .uploads import read_store


def bundle_input(bundle) -> np.ndarray:
    """(hives, frames, 32) uint8 codes -> (hives, 1, frames, 32) float32, the model's input."""
    return to_model_frames(bundle.codes)[:, None]


def pending_bundles(limit=None):
    """The run-time feed (aipc.toml run_inputs): the week's bundles as the service builds them."""
    return [(bundle_input(b),) for b in read_store("uploads_2024w18")[:limit]]


def dashboard_rows(bundle, logits: np.ndarray):
    return [(bundle.apiary, i, STATES[k]) for i, k in enumerate(logits.argmax(axis=1))]

"""What the deployment pipeline reads (aipc.toml [project])."""
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from fabscan.encoding import encode_maps
from fabscan.resmlp import load_resmlp

NPZ = Path(__file__).resolve().parent.parent / "data" / "wafers.npz"


@lru_cache(maxsize=1)
def _arrays():
    with np.load(NPZ) as z:
        return {k: z[k] for k in z.files}


def classifier():
    return load_resmlp()


def training_maps():
    a = _arrays()
    return encode_maps(a["train_x"]), torch.from_numpy(a["train_y"])


def held_out():
    a = _arrays()
    return (encode_maps(a["eval_x"]),), torch.from_numpy(a["eval_y"])


def one_wafer():
    """The station classifies one wafer as it comes off the prober."""
    return (encode_maps(_arrays()["eval_x"][:1]),)


def calibration_wafers():
    x = encode_maps(_arrays()["calib_x"])
    return [(x[i:i + 1].clone(),) for i in range(len(x))]

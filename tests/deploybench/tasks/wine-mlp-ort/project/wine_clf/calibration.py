"""Representative inputs for INT8 calibration: most rows come from the curated training table,
a quarter from the lab logger's recent export (so the ranges also see this season's harvest)."""
import torch

from . import features

CURATED_PER_LOGGED = 3


def _curated(count):
    x, _ = features.train_split()
    return [x[i:i + 1] for i in range(count)]


def _logged(count):
    rows = features.raw_training_rows()[-count:]
    return [torch.tensor(r[None], dtype=torch.float32) for r in rows]


def representative_rows(total=48):
    logged = _logged(total // (CURATED_PER_LOGGED + 1))
    curated = _curated(total - len(logged))
    rows = []
    for i, row in enumerate(curated):
        rows.append((row.clone(),))
        if i % CURATED_PER_LOGGED == CURATED_PER_LOGGED - 1 and logged:
            rows.append((logged.pop(0),))
    return rows

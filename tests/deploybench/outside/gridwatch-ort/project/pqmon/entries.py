"""What aipc.toml [project] names: inputs as the classification service builds them from the
monitors' records (int16 counts x calibration scale -> per-unit float32, one record per call)."""
from functools import lru_cache

import numpy as np
import torch

from .recorder import read_archive


@lru_cache(maxsize=None)
def _archive(name):
    recs = read_archive(name)
    x = torch.from_numpy(np.concatenate([r.per_unit() for r in recs]))
    y = torch.tensor([r.label for r in recs])
    return x, y


def example_record():
    """The self-test capture the service warms the model up with (one record, batch 1)."""
    x, _ = _archive("selftest")
    return (x.clone(),)


def acceptance_records():
    x, y = _archive("acceptance")
    return (x,), y


def commissioning_records():
    x, _ = _archive("commissioning")
    return [(x[i:i + 1].clone(),) for i in range(len(x))]


def service_feed(limit: int = 8):
    """The service's run-time inputs: records as they arrive, each read and scaled alone."""
    return [(rec.per_unit(),) for rec in read_archive("acceptance")[:limit]]

"""aipc.toml [project] entries of the grading model."""
import torch

from camera.capture import FrameStore
from grader.net import load_gradenet
from grader.prep import crops_to_batch


def gradenet():
    return load_gradenet()


def one_crop():
    return (crops_to_batch(FrameStore("audit_shift.npz").raw()[:1]),)


def audited_crops():
    store = FrameStore("audit_shift.npz")
    return (crops_to_batch(store.raw()),), torch.from_numpy(store.kinds())


def warmup_crops():
    """64 unlabelled frames of the shift's warm-up, one per batch."""
    raw = FrameStore("warmup_shift.npz").raw()
    return [(crops_to_batch(raw[i:i + 1]),) for i in range(len(raw))]

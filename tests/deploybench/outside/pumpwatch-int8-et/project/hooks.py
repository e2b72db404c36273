"""aipc.toml [project] entries of the pump monitor."""
import torch

from acoustics.classifier import load_classifier
from field_unit import ClipPreparer, Session

PREP = ClipPreparer()


def classifier():
    return load_classifier()


def inspection_round():
    s = Session.open("inspection_round.npz")
    return (torch.cat([PREP(c) for c in s.pcm]),), torch.from_numpy(s.states)


def single_clip():
    s = Session.open("inspection_round.npz")
    return (PREP(s.pcm[0]),)


def calibration_clips():
    """Clips recorded on the same pumps on another round (unlabelled), same codec path."""
    s = Session.open("calibration_round.npz")
    return [(PREP(c),) for c in s.pcm]

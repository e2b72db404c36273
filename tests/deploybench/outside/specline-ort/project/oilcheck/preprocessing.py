"""Instrument frame -> model input: resample onto the model axis, then SNV."""
import numpy as np

from .grid import ModelAxis


def snv(a):
    """Standard normal variate per spectrum (removes path length / scatter scale and offset)."""
    a = np.asarray(a, np.float64)
    mu = a.mean(axis=-1, keepdims=True)
    sd = a.std(axis=-1, keepdims=True) + 1e-9
    return (a - mu) / sd


def resample(wavenumbers, absorbance, axis: ModelAxis = ModelAxis()):
    """Linear interpolation onto the model axis; any instrument ordering of the frame."""
    order = np.argsort(wavenumbers)
    return np.interp(axis.wavenumbers(), np.asarray(wavenumbers)[order], np.asarray(absorbance)[order])


def to_model_input(wavenumbers, absorbance, axis: ModelAxis = ModelAxis()):
    """-> float32 (1, points): one spectrum ready for the network."""
    return snv(resample(wavenumbers, absorbance, axis)).astype(np.float32)[None, :]

"""Spectrum conditioning: raw counts -> reflectance (dark/white references) -> SNV."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Conditioner:
    dark: np.ndarray
    white: np.ndarray
    eps: float = 1e-6

    def reflectance(self, raw):
        return (raw.astype(np.float32) - self.dark) / (self.white - self.dark)

    @staticmethod
    def snv(refl):
        mu = refl.mean(axis=-1, keepdims=True)
        sd = refl.std(axis=-1, keepdims=True)
        return (refl - mu) / (sd + 1e-6)

    def __call__(self, raw):
        """raw counts (..., bands) -> float32 (..., 1, bands) standard normal variate."""
        x = self.snv(self.reflectance(raw)).astype(np.float32)
        return x.reshape(*x.shape[:-1], 1, x.shape[-1])

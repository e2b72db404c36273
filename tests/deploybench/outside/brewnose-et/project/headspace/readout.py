"""ADC counts of the divider -> the sensor response the net reads.

Each element sits in series with the load resistor; the ADC reads the voltage across the load:
    v = counts / adc_max * v_ref,   R_s = R_L (v_ref - v) / v,   G = 1 / R_s.
A MOX element's conductance rises with the reducing gases; its clean-air conductance G0 drifts
from unit to unit and over weeks, so the response is taken against this cycle's purge:
    response = ln(G / G0),   G0 = median conductance over the purge samples.
"""
import numpy as np

from .board import BoardConfig


class ResponseConverter:
    def __init__(self, board: BoardConfig = BoardConfig()):
        self.board = board

    def conductance(self, counts: np.ndarray) -> np.ndarray:
        b = self.board
        v = np.clip(counts.astype(np.float64), 1, b.adc_max - 1) / b.adc_max * b.v_ref
        return v / (b.r_load_ohm * (b.v_ref - v))

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """counts (..., elements, steps) integer -> response (..., elements, steps) float32."""
        g = self.conductance(counts)
        g0 = np.median(g[..., : self.board.purge_steps], axis=-1, keepdims=True)
        return np.log(g / g0).astype(np.float32)

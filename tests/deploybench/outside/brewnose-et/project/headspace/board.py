"""The sensor board as built (rev C): eight MOX elements, each read through a load resistor by
the MCU's 12-bit ADC.  One sniff cycle is 64 samples at 2 Hz: 12 samples of clean-air purge,
32 of headspace exposure, 20 of recovery."""
from dataclasses import dataclass

ELEMENTS = ("SnO2-A", "SnO2-B", "WO3", "ZnO", "SnO2-Pd", "In2O3", "SnO2-Pt", "CuO")
VERDICTS = ("healthy", "acetic_spoilage", "sulfur_offflavour", "stuck_ferment")


@dataclass(frozen=True)
class BoardConfig:
    elements: tuple = ELEMENTS
    steps: int = 64
    purge_steps: int = 12
    exposure_steps: int = 32
    adc_bits: int = 12
    v_ref: float = 3.3           # ADC reference = divider supply
    r_load_ohm: float = 20e3     # load resistor in series with each element

    @property
    def adc_max(self) -> int:
        return (1 << self.adc_bits) - 1

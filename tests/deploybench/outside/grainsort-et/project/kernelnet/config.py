"""Settings of the kernel classifier and of the sorter's spectrometer."""
from dataclasses import dataclass, field

GRADES = ("sound", "sprouted", "fusarium", "insect_bored", "foreign_seed")


@dataclass(frozen=True)
class Spectrometer:
    bands: int = 64                 # InGaAs line array, 900 .. 1700 nm
    first_nm: float = 900.0
    last_nm: float = 1700.0
    dark_counts: float = 1800.0     # mean dark frame, 16-bit ADC
    white_counts: float = 52000.0   # mean white-tile reference

    def wavelengths(self):
        import numpy as np
        return np.linspace(self.first_nm, self.last_nm, self.bands)


@dataclass(frozen=True)
class EncoderCfg:
    widths: tuple = (16, 32, 32)
    kernel: int = 5
    embed_dim: int = 24


@dataclass(frozen=True)
class KernelNetCfg:
    spectro: Spectrometer = field(default_factory=Spectrometer)
    encoder: EncoderCfg = field(default_factory=EncoderCfg)
    num_grades: int = len(GRADES)
    temperature: float = 4.0        # logits = -distance * temperature

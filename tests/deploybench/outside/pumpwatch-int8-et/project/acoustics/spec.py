"""Signal and model settings of the pump condition monitor."""
from dataclasses import dataclass, field

PUMP_STATES = ("healthy", "bearing_wear", "cavitation", "impeller_rub")


@dataclass(frozen=True)
class SignalSpec:
    sample_rate: int = 8000
    clip_samples: int = 1024            # 128 ms per decision
    pcm_full_scale: float = 32768.0     # int16 PCM from the codec


@dataclass(frozen=True)
class SpectrumSpec:
    frame: int = 128                    # 16 ms Hann frames
    hop: int = 64
    bins: int = 64                      # 0 .. 3.94 kHz in 62.5 Hz steps
    floor: float = 1e-6                 # power floor before the log


@dataclass(frozen=True)
class ClassifierSpec:
    signal: SignalSpec = field(default_factory=SignalSpec)
    spectrum: SpectrumSpec = field(default_factory=SpectrumSpec)
    channels: int = 32
    num_states: int = len(PUMP_STATES)

    @property
    def frames(self):
        return (self.signal.clip_samples - self.spectrum.frame) // self.spectrum.hop + 1
